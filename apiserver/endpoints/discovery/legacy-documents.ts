/**
 * The legacy (unaggregated) discovery documents, as plain objects with kube-apiserver's field order:
 * `/api` (APIVersions), `/apis` (APIGroupList), `/apis/<g>` (APIGroup), `/api/v1` and `/apis/<g>/<v>`
 * (APIResourceList). Koa-free; `discovery-endpoints.ts` serves them.
 */
import { createHash } from 'node:crypto';
import { apiVersionOf } from '../../api/object.js';
import type { Naming } from '../../naming/naming.js';
import type { KindStrategy } from '../../registry/kind-strategy.js';
import { resourceVerbs, subresourcesOf } from './resource-verbs.js';
import type { ServedGroup, ServedVersion } from './served-groups.js';

export interface ServerAddressByClientCIDR {
  readonly clientCIDR: string;
  readonly serverAddress: string;
}

/** `GET /api`: the core group's versions and the address clients should use. */
export function apiVersions(core: ServedGroup | undefined, serverAddress: string) {
  return {
    kind: 'APIVersions',
    versions: core === undefined ? [] : core.versions.map((v) => v.version),
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] as ServerAddressByClientCIDR[],
  };
}

const groupVersionFor = (group: string, version: string) => ({ groupVersion: apiVersionOf(group, version), version });

/** One APIGroup: its versions by priority and the preferred (first) one. */
export function apiGroup(g: ServedGroup) {
  return {
    name: g.name,
    versions: g.versions.map((v) => groupVersionFor(g.name, v.version)),
    preferredVersion: groupVersionFor(g.name, g.versions[0]!.version),
  };
}

/** `GET /apis`: every named group (the core group is not listed). */
export function apiGroupList(groups: readonly ServedGroup[]) {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups.filter((g) => g.name !== '').map(apiGroup) };
}

/** `GET /apis/<g>`. */
export function apiGroupDocument(g: ServedGroup) {
  return { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(g) };
}

/**
 * The storage version hash kube-apiserver publishes (discovery `StorageVersionHash`): the first 8 bytes of
 * SHA-256 over `<group>/<version>/<Kind>` (core: `/v1/Secret`), base64. Clients only compare it for equality.
 */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}

function resourceEntry(group: string, version: string, k: KindStrategy) {
  return {
    name: k.resource,
    singularName: k.singular,
    namespaced: k.namespaced,
    kind: k.kind,
    verbs: resourceVerbs(k),
    ...(k.shortNames !== undefined && k.shortNames.length > 0 ? { shortNames: k.shortNames } : {}),
    ...(k.categories !== undefined && k.categories.length > 0 ? { categories: k.categories } : {}),
    storageVersionHash: storageVersionHash(group, version, k.kind),
  };
}

/**
 * `GET /api/v1` or `/apis/<g>/<v>`: every resource, each followed by its sub-resources as `<resource>/<sub>`
 * entries (empty singularName, the parent's kind, the sub-resource's verbs). The core group's list has no
 * `apiVersion`, as kube-apiserver's.
 */
export function apiResourceList(group: string, v: ServedVersion, naming: Naming) {
  const resources: object[] = [];
  for (const k of v.resources) {
    resources.push(resourceEntry(group, v.version, k));
    for (const sub of subresourcesOf(k, naming)) {
      // A sub-resource of another kind names its group and version too, as kube's do.
      const kind = sub.kind === undefined ? { kind: k.kind } : { group: sub.kind.group, version: sub.kind.version, kind: sub.kind.kind };
      resources.push({ name: `${k.resource}/${sub.name}`, singularName: '', namespaced: k.namespaced, ...kind, verbs: sub.verbs });
    }
  }
  return {
    kind: 'APIResourceList',
    ...(group === '' ? {} : { apiVersion: 'v1' }),
    groupVersion: apiVersionOf(group, v.version),
    resources,
  };
}
