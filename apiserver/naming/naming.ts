/**
 * The one place that knows the group domain (DESIGN.md "The group domain"). Every domain-bearing name —
 * API groups, schema extensions, system namespaces, annotations, the protobuf media type — comes from a
 * `Naming`, so `--group-domain=k8s.io` switches the whole server to Kubernetes' names.
 *
 * Names kubectl reads whatever the domain (`meta.k8s.io` Table requests, `apidiscovery.k8s.io`,
 * `x-kubernetes-group-version-kind` in OpenAPI) are not here: they are answered in both modes.
 */
export interface Naming {
  /** `platform.io` or `k8s.io`. */
  readonly domain: string;
  /**
   * A named API group under the domain: `certificates` -> `certificates.platform.io`. Under `k8s.io` a few
   * prefixes take Kubernetes' longer names: `rbac` -> `rbac.authorization.k8s.io`.
   */
  group(prefix: string): string;
  /** The namespace of system components: `platform-system` / `kube-system`. */
  readonly systemNamespace: string;
  /** The world-readable namespace: `platform-public` / `kube-public`. */
  readonly publicNamespace: string;
  /** A schema extension as published: `list-type` -> `x-platform-list-type` / `x-kubernetes-list-type`. */
  extension(name: string): string;
  /** An annotation or label key under the domain: `deprecated` -> `platform.io/deprecated`. */
  key(name: string): string;
  /** `application/vnd.platform.protobuf` / `application/vnd.kubernetes.protobuf`. */
  readonly protobufMediaType: string;
  /**
   * The domain of the well-known names Kubernetes spells `kubernetes.io/...` rather than `k8s.io/...` (Secret
   * types, `kubernetes.io/service-account.name`, `batch.kubernetes.io/job-completion-index`, node role
   * labels, the job controller's `kubernetes.io/job-controller`): `kubernetes.io` under `k8s.io`, else the
   * domain itself (`platform.io/tls`, `batch.platform.io/job-completion-index`).
   */
  readonly legacyDomain: string;
  /**
   * The word for the node agent in member names: `kubelet` under `k8s.io` (`kubeletVersion`,
   * `daemonEndpoints.kubeletEndpoint`), `nodeagent` in the documents' names (`nodeagentVersion`).
   */
  readonly nodeAgent: 'kubelet' | 'nodeagent';
  /**
   * The prefix of values encrypted at rest (`--encryption-provider-config`), followed by
   * `<provider>:v1:<key name>:`: Kubernetes' `k8s:enc:` under k8s.io, the domain's word otherwise
   * (`platform:enc:`), as the documents rename every domain-bearing name.
   */
  readonly encryptedValuePrefix: string;
}

/**
 * Groups whose Kubernetes name is not `<prefix>.k8s.io`: under `k8s.io` the prefix is renamed so stock
 * clients find the group where they hard-code it (`rbac` -> `rbac.authorization.k8s.io`). Other domains
 * keep the document names (`rbac.platform.io`).
 */
const KUBERNETES_GROUP_PREFIXES: Readonly<Record<string, string>> = Object.freeze({ rbac: 'rbac.authorization' });

/** The short word of a domain: `platform.io` -> `platform`, `k8s.io` -> `kubernetes` (Kubernetes' own). */
function word(domain: string): string {
  if (domain === 'k8s.io') return 'kubernetes';
  return domain.split('.')[0] ?? domain;
}

/** The namespaces' prefix: `platform` / `kube`. */
function namespacePrefix(domain: string): string {
  return domain === 'k8s.io' ? 'kube' : word(domain);
}

/**
 * Builds the naming for `domain`. The domain must be a DNS subdomain with at least two labels (checked by
 * the flag parser).
 */
export function naming(domain: string): Naming {
  const w = word(domain);
  const ns = namespacePrefix(domain);
  return Object.freeze({
    domain,
    group: (prefix: string) => `${(domain === 'k8s.io' ? KUBERNETES_GROUP_PREFIXES[prefix] : undefined) ?? prefix}.${domain}`,
    systemNamespace: `${ns}-system`,
    publicNamespace: `${ns}-public`,
    extension: (name: string) => `x-${w}-${name}`,
    key: (name: string) => `${domain}/${name}`,
    protobufMediaType: `application/vnd.${w}.protobuf`,
    legacyDomain: domain === 'k8s.io' ? 'kubernetes.io' : domain,
    nodeAgent: domain === 'k8s.io' ? 'kubelet' : 'nodeagent',
    encryptedValuePrefix: `${domain === 'k8s.io' ? 'k8s' : w}:enc:`,
  });
}

export const DEFAULT_GROUP_DOMAIN = 'platform.io';
