/**
 * customResourceKinds over real definitions of /work/shared/testdata/crds (used as they are): identity,
 * versions, tables. Gateway API's Gateway is served through a real generic registry over the embedded store
 * (validation style `crd`): pruning, defaulting, its CEL rules, the status sub-resource, generation,
 * printer columns and a field selector.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../../../api/object.js';
import { StatusError } from '../../../errors/status-error.js';
import { naming } from '../../../naming/naming.js';
import { decodeObject } from '../../../schema/decode.js';
import { parseFieldSelector } from '../../../selectors/field-selector.js';
import { openMemoryStore, type MemoryStore } from '../../../../storage/memory/memory-store.js';
import { createGenericRegistry, type GenericRegistry } from '../../generic/generic-registry.js';
import type { KindStrategy } from '../../kind-strategy.js';
import { CUSTOM_RESOURCE_VALIDATION_STYLE, customResourceKinds } from './custom-resource-kinds.js';
import { testdataDefinitions } from './testing.js';

const K8S = naming('k8s.io');
const definitions = testdataDefinitions();
const definition = (file: string): KubeObject => {
  const found = definitions.find((d) => d.file === file);
  if (found === undefined) throw new Error(`no definition ${file}`);
  return structuredClone(found.crd);
};
const GATEWAYS = 'gateway-api-standard/crds/gateway.networking.k8s.io_gateways.yaml';
const CERTIFICATES = 'cert-manager/crds/cert-manager.io_certificates.yaml';
const APPLICATIONS = 'argo-cd/crds/application-crd.yaml';
const UDPROUTES = 'gateway-api-standard/crds/gateway.networking.k8s.io_udproutes.yaml';

const columnsOf = (k: KindStrategy): string[] => k.table!.columns.map((c) => `${c.name}:${c.type}:${c.priority}`);

describe('kinds of real definitions', () => {
  test('Gateway API Gateway: one kind per served version, literal group, status, no strategic merge patch', () => {
    const kinds = customResourceKinds(definition(GATEWAYS), K8S);
    expect(kinds.map((k) => k.version)).toEqual(['v1', 'v1beta1']);
    const [v1] = kinds;
    expect(v1).toMatchObject({
      group: 'gateway.networking.k8s.io', kind: 'Gateway', resource: 'gateways', singular: 'gateway', namespaced: true,
      shortNames: ['gtw'], categories: ['gateway-api'], subresources: ['status'], strategicMergePatch: false, tracksGeneration: true,
    });
    expect(v1!.groupPrefix).toBeUndefined();
    expect(Object.keys(v1!.schema.properties!).slice(0, 3)).toEqual(['apiVersion', 'kind', 'metadata']);
    expect(v1!.schema.properties!.metadata!.properties!.ownerReferences).toBeDefined();
    expect(columnsOf(v1!)).toEqual(['Name:string:0', 'Class:string:0', 'Address:string:0', 'Programmed:string:0', 'Age:date:0']);
    expect(Object.isFrozen(v1!.schema)).toBe(true);
  });

  test('unserved versions are left out (UDPRoute v1alpha2)', () => {
    expect(customResourceKinds(definition(UDPROUTES), K8S).map((k) => k.version)).toEqual(['v1']);
  });

  test('cert-manager Certificate: priority columns and a filter path', () => {
    const [v1] = customResourceKinds(definition(CERTIFICATES), K8S);
    expect(v1).toMatchObject({ group: 'cert-manager.io', kind: 'Certificate', resource: 'certificates', shortNames: ['cert', 'certs'] });
    expect(columnsOf(v1!)).toEqual(['Name:string:0', 'Ready:string:0', 'Secret:string:0', 'Issuer:string:1', 'Status:string:1', 'Age:date:0']);
    const now = new Date('2024-01-01T01:00:00Z');
    const cert: KubeObject = {
      apiVersion: 'cert-manager.io/v1', kind: 'Certificate',
      metadata: { name: 'web', creationTimestamp: '2024-01-01T00:00:00Z' },
      spec: { secretName: 'web-tls', issuerRef: { name: 'letsencrypt' } },
      status: { conditions: [{ type: 'Issuing', status: 'False' }, { type: 'Ready', status: 'True', message: 'Certificate is up to date' }] },
    };
    expect(v1!.table!.cells(cert, now)).toEqual(['web', 'True', 'web-tls', 'letsencrypt', 'Certificate is up to date', '60m']);
    const fresh = { ...cert, status: undefined };
    expect(v1!.table!.cells(fresh, now)).toEqual(['web', null, 'web-tls', 'letsencrypt', null, '60m']);
  });

  test('Argo CD Application: no status sub-resource, so a status change bumps the generation too', () => {
    const [app] = customResourceKinds(definition(APPLICATIONS), K8S);
    expect(app).toMatchObject({ group: 'argoproj.io', version: 'v1alpha1', kind: 'Application', resource: 'applications', shortNames: ['app', 'apps'] });
    expect(app!.subresources).toBeUndefined();
    expect(columnsOf(app!)).toEqual(['Name:string:0', 'Sync Status:string:0', 'Health Status:string:0', 'Revision:string:10', 'Project:string:10']);
    const old: KubeObject = { metadata: { name: 'a', generation: 3 }, spec: {}, status: { sync: { status: 'Synced' } } };
    const changed: KubeObject = { ...structuredClone(old), status: { sync: { status: 'OutOfSync' } } };
    app!.prepareForUpdate!(changed, old, undefined as never);
    expect(changed.metadata.generation).toBe(4);
  });

  test('a version without columns gets the Age column; extensions are read under the platform naming', () => {
    const crd: KubeObject = {
      metadata: { name: 'things.example.com' },
      spec: {
        group: 'example.com', scope: 'Cluster', names: { plural: 'things', kind: 'Thing' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-platform-preserve-unknown-fields': true } } } } }],
      },
    };
    const [thing] = customResourceKinds(crd, naming('platform.io'));
    expect(thing).toMatchObject({ singular: 'thing', namespaced: false });
    expect(columnsOf(thing!)).toEqual(['Name:string:0', 'Age:date:0']);
    expect(thing!.schema.properties!.spec).toEqual({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
    expect(thing!.table!.cells({ metadata: { name: 'x', creationTimestamp: '2024-01-01T00:00:00Z' } }, new Date('2024-01-01T00:00:30Z'))).toEqual(['x', '30s']);
  });
});

describe('Gateway served through the generic registry (embedded store)', () => {
  let dir: string;
  let store: MemoryStore;
  let registry: GenericRegistry;
  let strategy: KindStrategy;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'custom-resource-kinds-'));
    store = await openMemoryStore({ dataDir: dir });
    const crd = definition(GATEWAYS);
    // A copy with a selectable field (the published file declares none).
    const versions = (crd.spec as { versions: Record<string, unknown>[] }).versions;
    versions[0]!.selectableFields = [{ jsonPath: '.spec.gatewayClassName' }];
    strategy = customResourceKinds(crd, K8S)[0]!;
    registry = createGenericRegistry({ store, strategy, naming: K8S, resourcePrefix: 'gateway.networking.k8s.io/gateways', validationStyle: CUSTOM_RESOURCE_VALIDATION_STYLE });
  });
  afterAll(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  const gateway = (name: string, listeners: unknown[] = [{ name: 'http', protocol: 'HTTP', port: 80 }], className = 'example'): KubeObject => ({
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'Gateway',
    metadata: { name, unknownMeta: 'x' } as KubeObject['metadata'],
    spec: { gatewayClassName: className, listeners, surplus: true },
    status: { addresses: [{ value: '10.0.0.1' }] },
  });
  const failure = async (p: Promise<unknown>): Promise<StatusError> => {
    try {
      await p;
    } catch (e) {
      if (e instanceof StatusError) return e;
      throw e;
    }
    throw new Error('the write succeeded');
  };

  test('decode + create prune unknown fields, apply defaults, drop the written status for its default, generation 1', async () => {
    // The body decode of the handlers (schema/decode.ts) prunes against the kind's schema.
    const decoded = decodeObject(JSON.stringify(gateway('g1')), strategy.schema, 'Warn');
    expect(decoded.warnings).toEqual(['unknown field "metadata.unknownMeta"', 'unknown field "spec.surplus"']);
    const { object } = await registry.create('default', decoded.object as KubeObject);
    const spec = object.spec as Record<string, unknown>;
    expect(spec.surplus).toBeUndefined();
    expect((object.metadata as Record<string, unknown>).unknownMeta).toBeUndefined();
    expect(spec.listeners).toEqual([{ name: 'http', protocol: 'HTTP', port: 80, allowedRoutes: { namespaces: { from: 'Same' } } }]);
    const status = object.status as { addresses?: unknown; conditions: { type: string; reason: string }[] };
    expect(status.addresses).toBeUndefined();
    expect(status.conditions.map((c) => `${c.type}/${c.reason}`)).toEqual(['Accepted/Pending', 'Programmed/Pending']);
    expect(object.metadata.generation).toBe(1);
    expect((await registry.get('default', 'g1')).spec).toEqual(spec);
  });

  test('the CEL rules and the schema give one 422 with every cause', async () => {
    const bad = gateway('bad', [
      { name: 'http', protocol: 'HTTP', port: 80, tls: { mode: 'Terminate', certificateRefs: [{ name: 'c' }] } },
      { name: 'http', protocol: 'HTTP', port: 70000 },
    ]);
    const err = await failure(registry.create('default', bad));
    expect(err.code).toBe(422);
    const causes = (err.details?.causes ?? []).map((c) => `${c.field}: ${c.message}`);
    expect(causes).toEqual(
      expect.arrayContaining([
        "spec.listeners: Invalid value: \"array\": tls must not be specified for protocols ['HTTP', 'TCP', 'UDP']",
        'spec.listeners: Invalid value: "array": Listener name must be unique within the Gateway',
        expect.stringMatching(/^spec\.listeners\[1\]\.port: Invalid value: 70000: spec\.listeners\[1\]\.port in body should be less than or equal to 65535/),
      ]),
    );
    expect(err.message).toMatch(/^Gateway\.gateway\.networking\.k8s\.io "bad" is invalid: /);
  });

  test('main writes keep the status; status writes keep everything else; only spec changes bump the generation', async () => {
    const current = await registry.get('default', 'g1');
    const edit = structuredClone(current);
    (edit.spec as Record<string, unknown>).gatewayClassName = 'other';
    edit.status = { conditions: [] };
    const { object: afterMain } = await registry.update('default', 'g1', edit);
    expect((afterMain.spec as Record<string, unknown>).gatewayClassName).toBe('other');
    expect(afterMain.status).toEqual(current.status);
    expect(afterMain.metadata.generation).toBe(2);

    const statusEdit = structuredClone(afterMain);
    (statusEdit.spec as Record<string, unknown>).gatewayClassName = 'ignored';
    statusEdit.metadata.labels = { ignored: 'yes' };
    statusEdit.status = { addresses: [{ type: 'IPAddress', value: '10.0.0.7' }], conditions: [{ type: 'Programmed', status: 'True', reason: 'Programmed', message: '', lastTransitionTime: '2024-01-01T00:00:00Z' }] };
    const { object: afterStatus } = await registry.update('default', 'g1', statusEdit, { subresource: 'status' });
    expect((afterStatus.spec as Record<string, unknown>).gatewayClassName).toBe('other');
    expect(afterStatus.metadata.labels).toBeUndefined();
    expect((afterStatus.status as { addresses: unknown }).addresses).toEqual([{ type: 'IPAddress', value: '10.0.0.7' }]);
    expect(afterStatus.metadata.generation).toBe(2);

    const labelled = structuredClone(afterStatus);
    labelled.metadata.labels = { team: 'a' };
    expect((await registry.update('default', 'g1', labelled)).object.metadata.generation).toBe(2);
  });

  test('table cells from the printer columns of a stored object', async () => {
    const obj = await registry.get('default', 'g1');
    const created = Date.parse(obj.metadata.creationTimestamp!);
    const strategy = customResourceKinds(definition(GATEWAYS), K8S)[0]!;
    expect(strategy.table!.cells(obj, new Date(created + 5 * 60_000))).toEqual(['g1', 'other', '10.0.0.7', 'True', '5m']);
  });

  test('a field selector on a selectable field', async () => {
    await registry.create('default', gateway('g2', undefined, 'special'));
    const list = await registry.list('default', { fieldSelector: parseFieldSelector('spec.gatewayClassName=special') });
    expect(list.items.map((o) => o.metadata.name)).toEqual(['g2']);
    const err = await failure(registry.list('default', { fieldSelector: parseFieldSelector('spec.listeners=x') }));
    expect(err.code).toBe(400);
  });
});
