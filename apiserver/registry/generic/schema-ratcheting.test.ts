/**
 * The registry's validation step ratchets schema errors on updates of custom resources (validationStyle
 * `crd`, schema/ratcheting.ts) and never for built-in kinds, against the real embedded store: an object
 * stored before its schema was tightened stays updatable while its invalid part is unchanged.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../../api/object.js';
import { StatusError } from '../../errors/status-error.js';
import { naming } from '../../naming/naming.js';
import { kindSchema } from '../../schema/object-meta-schema.js';
import { openMemoryStore, type MemoryStore } from '../../../storage/memory/memory-store.js';
import type { KindStrategy } from '../kind-strategy.js';
import { createGenericRegistry } from './generic-registry.js';
import { widgetStrategy } from './testing/widget-strategy.js';

const tightStrategy = {
  ...widgetStrategy,
  kind: 'Tight',
  resource: 'tights',
  singular: 'tight',
  validate: undefined,
  warnings: undefined,
  schema: kindSchema('A kind whose schema was tightened.', {
    spec: { type: 'object', properties: { size: { type: 'string', maxLength: 3 }, replicas: { type: 'integer', minimum: 0 } } },
    status: { type: 'object', properties: { phase: { type: 'string', enum: ['Running'] } } },
  }),
} satisfies KindStrategy;

let dir: string;
let store: MemoryStore;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'registry-ratchet-'));
  store = await openMemoryStore({ dataDir: dir });
});

afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const KEY = '/registry/tights/ns/a';

/** Creates a valid object, then rewrites it in the store as an object written under a laxer schema. */
async function storedInvalid(style: 'crd' | 'builtin', spec: Record<string, unknown>, status?: Record<string, unknown>) {
  const registry = createGenericRegistry({ store, strategy: tightStrategy, naming: naming('platform.io'), validationStyle: style });
  await registry.create('ns', { apiVersion: 'v1', kind: 'Tight', metadata: { name: 'a' }, spec: { size: 's', replicas: 1 } });
  const raw = await store.get(KEY);
  const stored = JSON.parse(Buffer.from(raw.kv!.value).toString()) as KubeObject;
  stored.spec = spec;
  if (status !== undefined) stored.status = status;
  await store.update(KEY, Buffer.from(JSON.stringify(stored)), raw.kv!.modRevision);
  return { registry, current: await registry.get('ns', 'a') };
}

async function messages(p: Promise<unknown>): Promise<string[]> {
  try {
    await p;
  } catch (err) {
    if (err instanceof StatusError && err.code === 422) return (err.details?.causes ?? []).map((c) => `${c.field}: ${c.message}`);
    throw err;
  }
  throw new Error('expected a 422');
}

test('custom resources: an unchanged invalid field does not block an update; a changed one does', async () => {
  const { registry, current } = await storedInvalid('crd', { size: 'large', replicas: 1 });
  const labelled = structuredClone(current);
  labelled.metadata.labels = { touched: 'yes' };
  const { object } = await registry.update('ns', 'a', labelled);
  expect(object.metadata.labels).toEqual({ touched: 'yes' });

  // A sibling changes: spec changed, but size did not.
  const sibling = structuredClone(object);
  (sibling.spec as Record<string, unknown>).replicas = 2;
  expect((await registry.update('ns', 'a', sibling)).object.spec).toEqual({ size: 'large', replicas: 2 });

  const worse = structuredClone(sibling);
  delete worse.metadata.resourceVersion;
  (worse.spec as Record<string, unknown>).size = 'larger';
  expect(await messages(registry.update('ns', 'a', worse))).toEqual(['spec.size: Too long: may not be more than 3 bytes']);
});

test('custom resources: the status sub-resource ratchets too', async () => {
  const { registry, current } = await storedInvalid('crd', { size: 's' }, { phase: 'Old' });
  const statusWrite = structuredClone(current);
  statusWrite.metadata.labels = { ignored: 'by status writes' };
  await expect(registry.update('ns', 'a', statusWrite, { subresource: 'status' })).resolves.toBeDefined();
  const changed = { ...structuredClone(current), status: { phase: 'Older' } };
  delete changed.metadata.resourceVersion;
  expect(await messages(registry.update('ns', 'a', changed, { subresource: 'status' }))).toEqual([
    'status.phase: Unsupported value: "Older": supported values: "Running"',
  ]);
});

test('built-in kinds never ratchet', async () => {
  const { registry, current } = await storedInvalid('builtin', { size: 'large', replicas: 1 });
  const labelled = structuredClone(current);
  labelled.metadata.labels = { touched: 'yes' };
  expect(await messages(registry.update('ns', 'a', labelled))).toEqual(['spec.size: Too long: may not be more than 3 bytes']);
});
