import { x509 } from './crypto-provider.js';

/**
 * For a user-provided certificate chain: the PEM a client could trust to reach us, if the chain file
 * shows one — its last certificate when that is self-signed (a root appended to the chain, or a
 * self-signed serving certificate). undefined when the issuer is not in the file (the generated
 * kubeconfig then skips verification).
 */
export async function trustAnchorFor(chainPem: string): Promise<string | undefined> {
  try {
    const certs = new x509.X509Certificates(chainPem);
    const last = certs[certs.length - 1];
    if (last === undefined) return undefined;
    return (await last.isSelfSigned()) ? last.toString('pem') : undefined;
  } catch {
    return undefined;
  }
}
