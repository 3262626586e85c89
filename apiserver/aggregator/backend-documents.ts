/**
 * Downloading a backend's discovery and OpenAPI for one group version, as kube-aggregator's discovery
 * manager and OpenAPI controllers do:
 *
 * - discovery: the aggregated document (`GET /apis` asking for apidiscovery.k8s.io v2, v2beta1, then
 *   JSON); a backend that answers it gets its group version's entry taken as is. One that does not (404,
 *   406, or a legacy APIGroupList) is asked for `GET /apis/<group>/<version>` (APIResourceList), converted
 *   as Kubernetes' ConvertGroupVersionIntoToDiscovery does (sub-resources folded into their resource; the
 *   response kind's group and version are the entry's own, usually empty). A group version the backend
 *   does not list has no resources.
 * - OpenAPI v2: `GET /openapi/v2`, kept to the paths under `/apis/<group>/<version>` and the definitions
 *   they reach; v3: the `apis/<group>/<version>` document listed in `GET /openapi/v3`. A backend without
 *   them (404) simply contributes none.
 *
 * Every call carries the identity `system:kube-aggregator`, as kube's downloads do.
 */
import type { OutgoingHttpHeaders } from 'node:http';
import { aggregatedContentType } from '../endpoints/discovery/aggregated-documents.js';
import type { OpenAPIV2Fragment } from './aggregated-group-version.js';
import { BackendError, type BackendResponse } from './backend-client.js';
import { isObject } from '../api/json.js';

export type BackendFetch = (path: string, headers: OutgoingHttpHeaders) => Promise<BackendResponse>;

export const AGGREGATOR_USER = 'system:kube-aggregator';
const identity = { 'X-Remote-User': AGGREGATOR_USER };
const aggregatedAccept = `${aggregatedContentType('v2')},${aggregatedContentType('v2beta1')},application/json`;

type Json = Record<string, unknown>;
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

function parseJson(res: BackendResponse, what: string): Json {
  try {
    const v: unknown = JSON.parse(res.body.toString('utf8'));
    if (isObject(v)) return v;
  } catch {
    // reported below
  }
  throw new BackendError(`${what}: the backend's answer is not a JSON object`);
}

function failed(res: BackendResponse, path: string): BackendError {
  return new BackendError(`failed to download discovery for ${path}: ${res.status} ${res.body.toString('utf8').slice(0, 200)}`.trimEnd());
}

/** Kubernetes' conversion of an APIResourceList's entries into APIResourceDiscovery objects. */
export function discoveryFromResourceList(resources: readonly unknown[]): Json[] {
  const out: Json[] = [];
  const byName = new Map<string, Json>();
  for (const r of resources.filter(isObject)) {
    const name = text(r.name);
    if (name === '' || name.includes('/')) continue;
    const entry: Json = {
      resource: name,
      responseKind: { group: text(r.group), version: text(r.version), kind: text(r.kind) },
      scope: r.namespaced === true ? 'Namespaced' : 'Cluster',
      singularResource: text(r.singularName),
      verbs: list(r.verbs),
      ...(list(r.shortNames).length > 0 ? { shortNames: list(r.shortNames) } : {}),
      ...(list(r.categories).length > 0 ? { categories: list(r.categories) } : {}),
    };
    out.push(entry);
    byName.set(name, entry);
  }
  for (const r of resources.filter(isObject)) {
    const name = text(r.name);
    const slash = name.indexOf('/');
    if (slash < 0) continue;
    const parent = byName.get(name.slice(0, slash));
    if (parent === undefined) continue;
    const sub: Json = {
      subresource: name.slice(slash + 1),
      ...(text(r.kind) === '' ? {} : { responseKind: { group: text(r.group), version: text(r.version), kind: text(r.kind) } }),
      verbs: list(r.verbs),
    };
    parent.subresources = [...list(parent.subresources), sub];
  }
  return out;
}

/** The backend's resources of `group`/`version`, in aggregated-discovery form. Throws on failure. */
export async function fetchDiscovery(fetch: BackendFetch, group: string, version: string): Promise<unknown[]> {
  const aggregated = await fetch('/apis', { ...identity, accept: aggregatedAccept });
  if (aggregated.status === 200) {
    const doc = parseJson(aggregated, '/apis');
    if (doc.kind === 'APIGroupDiscoveryList') {
      const g = list(doc.items).filter(isObject).find((i) => isObject(i.metadata) && i.metadata.name === group);
      const v = g === undefined ? undefined : list(g.versions).filter(isObject).find((x) => x.version === version);
      return v === undefined ? [] : list(v.resources);
    }
  } else if (aggregated.status !== 404 && aggregated.status !== 406) {
    throw failed(aggregated, '/apis');
  }
  const path = `/apis/${group}/${version}`;
  const legacy = await fetch(path, { ...identity, accept: 'application/json' });
  if (legacy.status !== 200) throw failed(legacy, path);
  const resourceList = parseJson(legacy, path);
  if (resourceList.kind !== undefined && resourceList.kind !== 'APIResourceList') throw new BackendError(`${path}: expected an APIResourceList, got ${text(resourceList.kind)}`);
  return discoveryFromResourceList(list(resourceList.resources));
}

/** The `$ref`s (`#/definitions/<name>`) anywhere in `value`. */
function refsOf(value: unknown, out: Set<string>): void {
  if (Array.isArray(value)) {
    for (const v of value) refsOf(v, out);
  } else if (isObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith('#/definitions/')) out.add(v.slice('#/definitions/'.length));
      else refsOf(v, out);
    }
  }
}

/** The backend's Swagger 2.0 paths of the group version and the definitions they reach; undefined without one. */
export async function fetchOpenAPIV2(fetch: BackendFetch, group: string, version: string): Promise<OpenAPIV2Fragment | undefined> {
  const res = await fetch('/openapi/v2', { ...identity, accept: 'application/json' });
  if (res.status === 404) return undefined;
  if (res.status !== 200) throw failed(res, '/openapi/v2');
  const doc = parseJson(res, '/openapi/v2');
  const prefix = `/apis/${group}/${version}`;
  const paths: Json = {};
  for (const [p, item] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
    if (p === prefix || p.startsWith(`${prefix}/`)) paths[p] = item;
  }
  const all = isObject(doc.definitions) ? doc.definitions : {};
  const definitions: Json = {};
  const pending = new Set<string>();
  refsOf(paths, pending);
  while (pending.size > 0) {
    const [name] = pending;
    pending.delete(name!);
    if (name! in definitions || !(name! in all)) continue;
    definitions[name!] = all[name!];
    const more = new Set<string>();
    refsOf(all[name!], more);
    for (const m of more) if (!(m in definitions)) pending.add(m);
  }
  return { paths, definitions };
}

/** The backend's OpenAPI v3 document of the group version; undefined when it lists none. */
export async function fetchOpenAPIV3(fetch: BackendFetch, group: string, version: string): Promise<unknown> {
  const root = await fetch('/openapi/v3', { ...identity, accept: 'application/json' });
  if (root.status === 404) return undefined;
  if (root.status !== 200) throw failed(root, '/openapi/v3');
  const paths = parseJson(root, '/openapi/v3').paths;
  const entry = isObject(paths) ? paths[`apis/${group}/${version}`] : undefined;
  const url = isObject(entry) ? text(entry.serverRelativeURL) : '';
  if (url === '' || !url.startsWith('/')) return undefined;
  const res = await fetch(url, { ...identity, accept: 'application/json' });
  if (res.status !== 200) throw failed(res, url);
  return parseJson(res, url);
}
