/**
 * The domain of the well-known names Kubernetes spells `kubernetes.io/...` (Secret types, the
 * `kubernetes.io/service-account.name` annotation, `kubernetes.io/metadata.name`, node role labels).
 * Under `--group-domain=k8s.io` these must be Kubernetes' own `kubernetes.io` names, which
 * `Naming.key` (`k8s.io/...`) does not give; under any other domain they follow the domain
 * (`platform.io/tls`, `bootstrap.platform.io/token`).
 */
import type { Naming } from '../../../naming/naming.js';

export const legacyDomain = (naming: Naming): string => naming.legacyDomain;

/** `name` under the legacy domain: `tls` -> `kubernetes.io/tls` / `platform.io/tls`. */
export const legacyKey = (naming: Naming, name: string): string => `${legacyDomain(naming)}/${name}`;
