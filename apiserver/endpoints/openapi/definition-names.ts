/**
 * How kinds, shared types and operations are named in the published OpenAPI documents. Kubernetes names
 * definitions after Go packages (`io.k8s.api.core.v1.Secret`, `io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta`);
 * we keep that shape with the group domain reversed in front: `io.platform.api.core.v1.Secret` under
 * `platform.io`, exactly Kubernetes' names under `k8s.io`. A group outside the domain that contains a dot
 * (custom resources) is reversed whole: `com.example.stable.v1.CronTab`, as Kubernetes names CRD schemas.
 * kubectl finds schemas through `x-kubernetes-group-version-kind`, never through these names.
 */
import type { Naming } from '../../naming/naming.js';

const reversed = (dotted: string): string => dotted.split('.').reverse().join('.');

/** The short name of a group in Kubernetes' package paths and tags: `certificates`, `apps`, `core`. */
function groupWord(group: string, naming: Naming): string | undefined {
  if (group === '') return 'core';
  const suffix = `.${naming.domain}`;
  if (group.endsWith(suffix)) return group.slice(0, -suffix.length);
  if (!group.includes('.')) return group;
  return undefined;
}

/** `io.platform.api.core.v1.Secret`, `io.k8s.api.certificates.v1.CertificateSigningRequest`, `com.example.v1.CronTab`. */
export function kindDefinitionName(naming: Naming, group: string, version: string, kind: string): string {
  const word = groupWord(group, naming);
  if (word === undefined) return `${reversed(group)}.${version}.${kind}`;
  // rbac.authorization -> rbac, as Kubernetes' package names.
  return `${reversed(naming.domain)}.api.${word.split('.')[0]}.${version}.${kind}`;
}

/** `io.platform.apimachinery.pkg.apis.meta.v1.ObjectMeta`. */
export function metaDefinitionName(naming: Naming, type: string): string {
  return `${reversed(naming.domain)}.apimachinery.pkg.apis.meta.v1.${type}`;
}

const capitalize = (s: string): string => (s === '' ? s : s[0]!.toUpperCase() + s.slice(1));

/** The group-version part of operation ids: `CoreV1`, `CertificatesV1`, `RbacAuthorizationV1beta1`, `ExampleComV1`. */
export function operationGroupVersion(naming: Naming, group: string, version: string): string {
  const word = groupWord(group, naming) ?? group;
  return word.split(/[.-]/).map(capitalize).join('') + capitalize(version);
}

/** The tag of a group version's operations: `core_v1`, `rbacAuthorization_v1`. */
export function operationTag(naming: Naming, group: string, version: string): string {
  const word = groupWord(group, naming) ?? group;
  const [first = '', ...rest] = word.split(/[.-]/);
  return `${first}${rest.map(capitalize).join('')}_${version}`;
}
