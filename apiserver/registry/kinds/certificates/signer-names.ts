/**
 * The well-known signer names of CertificateSigningRequests, from a Naming: the one place that spells them.
 * Under `--group-domain=k8s.io` they are Kubernetes' own (`kubernetes.io/kube-apiserver-client` ...); under
 * any other domain they follow the documents (`platform.io/apiserver-client` ...). The registry, the
 * admission plugins and the csrapproving / csrsigning controllers all take them from here.
 */
import type { Naming } from '../../../naming/naming.js';

export interface SignerNames {
  /** Client certificates for the API server; never auto-approved. */
  readonly apiserverClient: string;
  /** Client certificates of node agents (kubelets); csrapproving may approve them. */
  readonly nodeAgentClient: string;
  /** Serving certificates of node agents; never auto-approved. */
  readonly nodeAgentServing: string;
  /** Kubernetes' `legacy-unknown` signer: refused by certificates/v1 on create. */
  readonly legacyUnknown: string;
  /** The three signers csrsigning issues for, in that order. */
  readonly wellKnown: readonly string[];
}

const cache = new Map<string, SignerNames>();

export function signerNames(n: Naming): SignerNames {
  const d = n.legacyDomain;
  let s = cache.get(d);
  if (s !== undefined) return s;
  const k8s = d === 'kubernetes.io';
  const apiserverClient = k8s ? `${d}/kube-apiserver-client` : `${d}/apiserver-client`;
  const nodeAgentClient = k8s ? `${d}/kube-apiserver-client-kubelet` : `${d}/apiserver-client-nodeagent`;
  const nodeAgentServing = k8s ? `${d}/kubelet-serving` : `${d}/nodeagent-serving`;
  s = Object.freeze({
    apiserverClient,
    nodeAgentClient,
    nodeAgentServing,
    legacyUnknown: `${d}/legacy-unknown`,
    wellKnown: Object.freeze([apiserverClient, nodeAgentClient, nodeAgentServing]),
  });
  cache.set(d, s);
  return s;
}
