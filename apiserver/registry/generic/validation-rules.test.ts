/**
 * The registry's validation step runs the schema's CEL rules (schema/validate-rules.ts) on create, update
 * and status update, against the real embedded store: one 422 with every cause, transition rules against
 * the stored object, the blocking-errors cause, ratcheting of an unchanged invalid value.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../../api/object.js';
import { StatusError } from '../../errors/status-error.js';
import { naming } from '../../naming/naming.js';
import { kindSchema } from '../../schema/object-meta-schema.js';
import { RULES_NOT_CHECKED } from '../../schema/validate-rules.js';
import { openMemoryStore, type MemoryStore } from '../../../storage/memory/memory-store.js';
import type { KindStrategy } from '../kind-strategy.js';
import { createGenericRegistry, type GenericRegistry } from './generic-registry.js';
import { widgetStrategy } from './testing/widget-strategy.js';

const ruledStrategy = {
  ...widgetStrategy,
  kind: 'Ruled',
  resource: 'ruleds',
  singular: 'ruled',
  validate: undefined,
  warnings: undefined,
  schema: kindSchema('A kind with CEL rules.', {
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer', maximum: 100 },
        max: { type: 'integer' },
        class: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'class is immutable' }] },
      },
      'x-kubernetes-validations': [{ rule: '!has(self.max) || self.replicas <= self.max', messageExpression: "'replicas must be at most ' + string(self.max)" }],
    },
    status: { type: 'object', properties: { phase: { type: 'string', 'x-kubernetes-validations': [{ rule: "self != 'Broken'", reason: 'FieldValueForbidden', message: 'no broken phase' }] } } },
  }),
} satisfies KindStrategy;

let dir: string;
let store: MemoryStore;
let registry: GenericRegistry;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'registry-rules-'));
  store = await openMemoryStore({ dataDir: dir });
  registry = createGenericRegistry({ store, strategy: ruledStrategy, naming: naming('platform.io'), validationStyle: 'crd' });
});

afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const obj = (spec: Record<string, unknown>, extra: Partial<KubeObject> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'Ruled', metadata: { name: 'a' }, spec, ...extra });

async function causes(p: Promise<unknown>): Promise<{ code: number; causes: { reason?: string; field?: string; message?: string }[] }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof StatusError) return { code: err.code, causes: [...(err.details?.causes ?? [])] };
    throw err;
  }
  throw new Error('expected a StatusError');
}

test('create: a failing rule is a 422 cause with the messageExpression', async () => {
  const res = await causes(registry.create('ns', obj({ replicas: 5, max: 3 })));
  expect(res).toEqual({ code: 422, causes: [{ reason: 'FieldValueInvalid', field: 'spec', message: 'Invalid value: "object": replicas must be at most 3' }] });
});

test('create: a non-blocking schema error and the rules in one 422', async () => {
  const res = await causes(registry.create('ns', obj({ replicas: 101, max: 3 })));
  expect(res.causes.map((c) => `${c.field}: ${c.message}`)).toEqual([
    'spec.replicas: Invalid value: 101: spec.replicas in body should be less than or equal to 100',
    'spec: Invalid value: "object": replicas must be at most 3',
  ]);
});

test('create: a blocking schema error replaces the rules by one cause', async () => {
  const res = await causes(registry.create('ns', obj({ replicas: 'five', max: 3 })));
  expect(res.causes.map((c) => `${c.field}: ${c.message}`)).toEqual([
    'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
    `<nil>: Invalid value: "null": ${RULES_NOT_CHECKED}`,
  ]);
});

test('update: transition rules compare with the stored object; unchanged invalid values ratchet', async () => {
  const { object } = await registry.create('ns', obj({ replicas: 1, class: 'gold' }));
  const changed = structuredClone(object);
  (changed.spec as Record<string, unknown>).class = 'silver';
  expect((await causes(registry.update('ns', 'a', changed))).causes).toEqual([
    { reason: 'FieldValueInvalid', field: 'spec.class', message: 'Invalid value: "string": class is immutable' },
  ]);

  // An object stored before the rule existed (written straight to the store) breaks it; an update that
  // does not touch spec goes through, one that changes spec does not.
  const raw = await store.get('/registry/ruleds/ns/a');
  const stored = JSON.parse(Buffer.from(raw.kv!.value).toString()) as KubeObject;
  (stored.spec as Record<string, unknown>) = { replicas: 9, max: 3, class: 'gold' };
  await store.update('/registry/ruleds/ns/a', Buffer.from(JSON.stringify(stored)), raw.kv!.modRevision);
  const current = await registry.get('ns', 'a');
  const labelled = structuredClone(current);
  labelled.metadata.labels = { touched: 'yes' };
  const { object: updated, warnings } = await registry.update('ns', 'a', labelled);
  expect(updated.metadata.labels).toEqual({ touched: 'yes' });
  expect(warnings).toEqual(['spec: Invalid value: "object": replicas must be at most 3']);

  const respec = structuredClone(updated);
  (respec.spec as Record<string, unknown>).replicas = 8;
  expect((await causes(registry.update('ns', 'a', respec))).causes.map((c) => c.message)).toEqual(['Invalid value: "object": replicas must be at most 3']);
});

test('status update: the status rules run, with their reason', async () => {
  const { object } = await registry.create('ns', obj({ replicas: 1 }));
  const broken = { ...structuredClone(object), status: { phase: 'Broken' } };
  expect((await causes(registry.update('ns', 'a', broken, { subresource: 'status' }))).causes).toEqual([
    { reason: 'FieldValueForbidden', field: 'status.phase', message: 'Forbidden: no broken phase' },
  ]);
  const fine = { ...structuredClone(object), status: { phase: 'Running' } };
  expect((await registry.update('ns', 'a', fine, { subresource: 'status' })).object.status).toEqual({ phase: 'Running' });
});
