/**
 * What the fuzzer targets, read from the server's own discovery (`/api`, `/apis` and each group version's
 * resource list), so a kind or sub-resource added later is fuzzed without touching this suite. Each served
 * resource gets a valid template object: its fixture from test/fixtures/kinds when there is one (every
 * stored built-in kind has one), else a minimal object; the mutators start from it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { FuzzClient } from './client.js';

const FIXTURES = join(__dirname, '..', 'fixtures', 'kinds');

export interface ServedKind {
  /** '' for the core group. */
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly kind: string;
  readonly namespaced: boolean;
  readonly verbs: readonly string[];
  /** Sub-resources (`status`, `scale`, `binding`, `token`, ...) with their verbs and kinds. */
  readonly subresources: readonly { readonly name: string; readonly kind: string; readonly group?: string; readonly version?: string; readonly verbs: readonly string[] }[];
  /** The API root: `/api/v1` or `/apis/<group>/<version>`. */
  readonly root: string;
  /** A valid object of the kind without metadata.name/namespace (set per request). */
  readonly template: Record<string, unknown>;
}

interface ResourceList {
  resources: { name: string; kind: string; namespaced: boolean; verbs: string[]; group?: string; version?: string }[];
}

async function getJson<T>(client: FuzzClient, token: string, path: string): Promise<T> {
  const res = await client.send({ method: 'GET', path, headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' } }, 30_000);
  if (res.status !== 200) throw new Error(`discovery ${path}: ${res.status} ${res.error ?? ''} ${res.body.toString('utf8').slice(0, 500)}`);
  return JSON.parse(res.body.toString('utf8')) as T;
}

/** The fixture's file name for a group: `core`, the group's first label for `<x>.platform.io`, else the group. */
function fixturePrefix(group: string, domain: string): string {
  if (group === '') return 'core';
  return group.endsWith(`.${domain}`) ? group.slice(0, -(domain.length + 1)) : group;
}

function templateFor(group: string, version: string, resource: string, kind: string, domain: string): Record<string, unknown> {
  const apiVersion = group === '' ? version : `${group}/${version}`;
  const file = join(FIXTURES, `${fixturePrefix(group, domain)}.${resource}.yaml`);
  if (existsSync(file)) {
    const text = readFileSync(file, 'utf8').replaceAll('{{namespace}}', 'fz-ns-0').replaceAll('{{name}}', 'fz-0');
    const fixture = parseYaml(text) as { object: Record<string, unknown>; name?: string };
    const metadata = (fixture.object.metadata ?? {}) as Record<string, unknown>;
    return { ...fixture.object, apiVersion, kind, metadata: { ...metadata, ...(fixture.name === undefined ? {} : { name: fixture.name }) } };
  }
  return { apiVersion, kind, metadata: {}, spec: {} };
}

/** Every served resource of every group version the server lists. */
export async function servedKinds(client: FuzzClient, token: string, domain = 'platform.io'): Promise<ServedKind[]> {
  const roots: { group: string; version: string; root: string }[] = [];
  const core = await getJson<{ versions: string[] }>(client, token, '/api');
  for (const v of core.versions) roots.push({ group: '', version: v, root: `/api/${v}` });
  const groups = await getJson<{ groups: { name: string; versions: { version: string }[] }[] }>(client, token, '/apis');
  for (const g of groups.groups) for (const v of g.versions) roots.push({ group: g.name, version: v.version, root: `/apis/${g.name}/${v.version}` });
  const kinds: ServedKind[] = [];
  for (const r of roots) {
    const list = await getJson<ResourceList>(client, token, r.root);
    const top = list.resources.filter((x) => !x.name.includes('/'));
    for (const t of top) {
      const subresources = list.resources.filter((x) => x.name.startsWith(`${t.name}/`)).map((x) => ({
        name: x.name.slice(t.name.length + 1), kind: x.kind, verbs: x.verbs,
        ...(x.group === undefined ? {} : { group: x.group }), ...(x.version === undefined ? {} : { version: x.version }),
      }));
      kinds.push({
        group: r.group, version: r.version, resource: t.name, kind: t.kind, namespaced: t.namespaced, verbs: t.verbs,
        subresources, root: r.root, template: templateFor(r.group, r.version, t.name, t.kind, domain),
      });
    }
  }
  return kinds;
}
