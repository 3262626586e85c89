/**
 * The CustomResourceDefinition kind through a real generic registry over the embedded store (served in
 * this test only: the kind is not in `builtinKinds()` until the CRD controller serves custom resources):
 * the hooks run in the registry's order, defaults and `status.storedVersions` are stored, an invalid
 * definition is one 422 with Kubernetes' causes, updates bump the generation and keep the status, and the
 * immutable fields hold.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../../../api/object.js';
import { serveResources, type ServedResources } from '../../served-resources.js';
import { StatusError } from '../../../errors/status-error.js';
import { naming } from '../../../naming/naming.js';
import { openMemoryStore, type MemoryStore } from '../../../../storage/memory/memory-store.js';
import { customResourceDefinitions } from './crd.js';
import { testdataDefinitions } from './testing.js';

const GROUP = 'apiextensions.k8s.io';

const definition = (schema: Record<string, unknown> = { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } }): KubeObject => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', kind: 'Widget' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }],
  },
});

describe('through the registry (embedded store)', () => {
  let dir: string;
  let store: MemoryStore;
  let served: ServedResources;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'crd-kind-'));
    store = await openMemoryStore({ dataDir: dir });
    served = serveResources({ store, naming: naming('k8s.io'), kinds: [customResourceDefinitions], prefix: '/registry' });
  });
  afterAll(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });
  const registry = () => served.lookup(GROUP, 'v1', 'customresourcedefinitions')!.registry;
  const failure = (write: Promise<unknown>): Promise<StatusError> =>
    write.then(
      () => {
        throw new Error('the write succeeded');
      },
      (e: unknown) => {
        if (!(e instanceof StatusError)) throw e;
        return e;
      },
    );

  test('create stores the defaults, the storage version and generation 1', async () => {
    const { object } = await registry().create('', definition());
    expect(object.metadata.generation).toBe(1);
    expect((object.spec as { names: unknown }).names).toEqual({ plural: 'widgets', kind: 'Widget', singular: 'widget', listKind: 'WidgetList' });
    expect((object.spec as { conversion: unknown }).conversion).toEqual({ strategy: 'None' });
    expect(object.status).toEqual({ storedVersions: ['v1'] });
    const read = await registry().get('', 'widgets.example.com');
    expect(read.status).toEqual({ storedVersions: ['v1'] });
  });

  test('an invalid definition is one 422 with every cause', async () => {
    const bad = definition({ type: 'object', properties: { spec: { type: 'array' }, x: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self > 1' }] } } });
    bad.metadata.name = 'gadgets.example.com';
    const err = await failure(registry().create('', bad));
    expect(err.code).toBe(422);
    expect(err.details?.causes?.map((c) => `${c.field}: ${c.message}`)).toEqual(
      expect.arrayContaining([
        'metadata.name: Invalid value: "gadgets.example.com": must be spec.names.plural+"."+spec.group',
        'spec.validation.openAPIV3Schema.properties[spec].items: Required value: must be specified',
      ]),
    );
    expect(err.message).toMatch(/^CustomResourceDefinition\.apiextensions\.k8s\.io "gadgets\.example\.com" is invalid: /);
  });

  test('a rule that does not compile is refused at write time', async () => {
    const bad = definition({ type: 'object', 'x-kubernetes-validations': [{ rule: 'self.nope == 1' }], properties: { spec: { type: 'object' } } });
    const other = { ...bad, metadata: { name: 'things.example.com' }, spec: { ...(bad.spec as object), names: { plural: 'things', kind: 'Thing' } } };
    const err = await failure(registry().create('', other));
    expect(err.details?.causes?.map((c) => c.field)).toEqual(['spec.validation.openAPIV3Schema.x-kubernetes-validations[0].rule']);
    expect(err.details?.causes?.[0]?.message).toContain("undefined field 'nope'");
  });

  test('an update bumps the generation on spec changes, keeps the status, and guards group and plural', async () => {
    const current = await registry().get('', 'widgets.example.com');
    const changed = { ...current, spec: { ...(current.spec as object), scope: 'Cluster' }, status: { storedVersions: ['v9'] } };
    const { object } = await registry().update('', 'widgets.example.com', changed);
    expect(object.metadata.generation).toBe(2);
    expect(object.status).toEqual({ storedVersions: ['v1'] });
    const renamed = { ...object, spec: { ...(object.spec as object), group: 'example.org' } };
    const err = await failure(registry().update('', 'widgets.example.com', renamed));
    expect(err.details?.causes?.map((c) => `${c.field}: ${c.message}`)).toContain('spec.group: Invalid value: "example.org": field is immutable');
  });

  test('the real definitions are accepted by the registry', async () => {
    for (const { crd } of testdataDefinitions().slice(0, 6)) {
      const { object } = await registry().create('', structuredClone(crd));
      expect(object.metadata.name).toBe(crd.metadata.name);
    }
  });
});
