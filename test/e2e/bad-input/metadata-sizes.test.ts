/**
 * Issue 18 item 2: label and annotation sizes per Kubernetes' ObjectMeta rules, on every stored built-in
 * kind (driven by test/fixtures/kinds, so a new kind is covered) and on a custom resource: a label value of
 * 64 characters and a label key name of 64 characters are 422 `metadata.labels`; annotations of more than
 * 262144 bytes in all (keys and values, in UTF-8 bytes) are 422 `metadata.annotations: Too long: must
 * have at most 262144 bytes`, on create and on a patch of an existing object, which stays unchanged;
 * exactly 262144 bytes is accepted.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { builtinKinds } from '../../../apiserver/registry/kinds/index.js';
import { groupOf, type KindStrategy } from '../../../apiserver/registry/kind-strategy.js';
import { naming } from '../../../apiserver/naming/naming.js';
import { uniqueName } from '../../http/helpers.js';
import { memoryBackend, startWorld, type World } from './fixtures.js';

const FIXTURES = join(__dirname, '..', '..', 'fixtures', 'kinds');
const n = naming('platform.io');
const fixtureKey = (s: KindStrategy): string => `${s.groupPrefix ?? (s.group === '' ? 'core' : s.group)}.${s.resource}`;
const creatable = builtinKinds().filter((s) => s.virtual === undefined && (s.verbs ?? ['create']).includes('create'));

interface Fixture {
  readonly name?: string;
  readonly object: Record<string, unknown>;
}

const b = memoryBackend();
afterAll(() => b.stop());

let w: World;
beforeAll(async () => {
  w = await startWorld(b, { runtimeConfig: 'networking.platform.io/v1beta1=true' });
}, 60_000);

/** Collection path and a body of the kind, with `metadata` merged in. */
function body(s: KindStrategy, name: string, metadata: Record<string, unknown>): { path: string; object: Record<string, unknown>; name: string } {
  const text = readFileSync(join(FIXTURES, `${fixtureKey(s)}.yaml`), 'utf8').replaceAll('{{namespace}}', w.ns).replaceAll('{{name}}', name);
  const f = parseYaml(text) as Fixture;
  const g = groupOf(s, n);
  const root = g === '' ? `/api/${s.version}` : `/apis/${g}/${s.version}`;
  const objectName = f.name ?? name;
  return {
    path: `${root}${s.namespaced ? `/namespaces/${w.ns}` : ''}/${s.resource}`,
    name: objectName,
    object: { ...f.object, apiVersion: g === '' ? s.version : `${g}/${s.version}`, kind: s.kind, metadata: { ...((f.object.metadata as object) ?? {}), name: objectName, ...metadata } },
  };
}

const tooLongLabel = { labels: { ok: 'v'.repeat(64) } };
const tooLongKey = { labels: { [`${'k'.repeat(64)}`]: 'v' } };
/** Annotations of exactly `bytes` bytes in all: key `a` plus a value of multi-byte characters and ASCII. */
const annotations = (bytes: number) => ({ annotations: { a: 'é'.repeat(1000) + 'x'.repeat(bytes - 1 - 2000) } });
const ANNOTATION_LIMIT = 262_144;

type Maker = (name: string, meta: Record<string, unknown>) => ReturnType<typeof body>;
const kinds = (): [string, Maker][] => [
  ...creatable.map((s): [string, Maker] => [s.kind, (name, meta) => body(s, name, meta)]),
  ['Gadget (custom resource)', (name, meta) => ({ path: w.gadgets, name, object: { apiVersion: `${w.group}/v1`, kind: 'Gadget', metadata: { name, ...meta }, spec: { replicas: 1 } } })],
];

it('on every kind: a 64-character label value or key name, and annotations over 262144 bytes, are 422', async () => {
  const seen: string[] = [];
  for (const [kind, make] of kinds()) {
    for (const [what, meta, field, detail] of [
      ['label value', tooLongLabel, 'metadata.labels', 'must be no more than 63 characters'],
      ['label key', tooLongKey, 'metadata.labels', 'name part must be no more than 63 characters'],
      ['annotations', annotations(ANNOTATION_LIMIT + 1), 'metadata.annotations', `Too long: must have at most ${ANNOTATION_LIMIT} bytes`],
    ] as const) {
      const { path, object, name } = make(uniqueName('m'), meta);
      const res = await w.api.request('POST', path, { body: object });
      const causes = (res.json().details?.causes ?? []) as { field: string; message: string }[];
      expect([kind, what, res.status, causes.some((c) => c.field === field && c.message.includes(detail))]).toEqual([kind, what, 422, true]);
      expect([kind, what, (await w.api.request('GET', `${path}/${name}`)).status]).toEqual([kind, what, 404]);
    }
    seen.push(kind);
  }
  expect(seen.length).toBe(creatable.length + 1);
}, 120_000);

it('exactly 262144 bytes of annotations are accepted; one more byte by a patch is 422 and changes nothing', async () => {
  for (const [path, name] of [[`/api/v1/namespaces/${w.ns}/configmaps`, 'cm1'], [w.gadgets, 'g1']] as const) {
    const ok = await w.api.request('PATCH', `${path}/${name}`, { body: { metadata: annotations(ANNOTATION_LIMIT) } });
    expect([path, ok.status]).toEqual([path, 200]);
    const rv = ok.json().metadata.resourceVersion as string;
    const over = await w.api.request('PATCH', `${path}/${name}`, { body: { metadata: { annotations: { b: '' } } } });
    expect([path, over.status, over.json().details.causes]).toEqual([path, 422, [expect.objectContaining({ field: 'metadata.annotations', message: `Too long: must have at most ${ANNOTATION_LIMIT} bytes` })]]);
    const apply = await w.api.request('PATCH', `${path}/${name}`, {
      body: JSON.stringify({ apiVersion: path.startsWith('/api/') ? 'v1' : `${w.group}/v1`, kind: path.startsWith('/api/') ? 'ConfigMap' : 'Gadget', metadata: { name, labels: tooLongLabel.labels } }),
      headers: { 'Content-Type': 'application/apply-patch+yaml' },
      query: { fieldManager: 'm' },
    });
    expect([path, apply.status]).toEqual([path, 422]);
    expect((await w.api.request('GET', `${path}/${name}`)).json().metadata.resourceVersion).toBe(rv);
  }
});
