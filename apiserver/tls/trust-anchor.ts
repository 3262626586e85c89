import { x509 } from './crypto-provider.js';

/**
 * For a user-provided certificate chain: the PEM a client could trust to reach us, if the chain file
 * shows one — its last certificate when that is self-signed (a root appended to the chain, or a
 * self-signed serving certificate). undefined when the issuer is not in the file (the generated
 * kubeconfig then skips verification).
 */
export async function trustAnchorFor(chainPem: string): Promise<string | undefined> {
  try {
    const blocks = chainPem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
    const lastPem = blocks[blocks.length - 1];
    if (lastPem === undefined) return undefined;
    const last = new x509.X509Certificate(lastPem);
    return (await last.isSelfSigned()) ? `${last.toString('pem')}\n` : undefined;
  } catch {
    return undefined;
  }
}
