/**
 * The APIService kind through a real generic registry over the embedded store (k8s.io names): defaults,
 * Kubernetes' validation messages in one 422, the local Available condition, status kept by updates and
 * the status sub-resource's checks, the table cells, and the protobuf round trip of the schema's numbers.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../../../api/object.js';
import { serveResources, type ServedResources } from '../../served-resources.js';
import { StatusError } from '../../../errors/status-error.js';
import { naming } from '../../../naming/naming.js';
import { openMemoryStore, type MemoryStore } from '../../../../storage/memory/memory-store.js';
import { apiServices } from './apiservice.js';
import { apiServiceTable } from './apiservice-table.js';

const GROUP = 'apiregistration.k8s.io';

const apiService = (name: string, spec: Record<string, unknown>): KubeObject => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'APIService',
  metadata: { name },
  spec,
});
const remote = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  group: 'metrics.example.com',
  version: 'v1beta1',
  groupPriorityMinimum: 100,
  versionPriority: 10,
  service: { namespace: 'kube-system', name: 'metrics' },
  insecureSkipTLSVerify: true,
  ...extra,
});

describe('APIService through the registry', () => {
  let dir: string;
  let store: MemoryStore;
  let served: ServedResources;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'apiservice-kind-'));
    store = await openMemoryStore({ dataDir: dir });
    served = serveResources({ store, naming: naming('k8s.io'), kinds: [apiServices], prefix: '/registry' });
  });
  afterAll(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });
  const registry = () => served.lookup(GROUP, 'v1', 'apiservices')!.registry;
  const causes = async (write: Promise<unknown>): Promise<string[]> => {
    try {
      await write;
    } catch (e) {
      if (!(e instanceof StatusError)) throw e;
      expect(e.code).toBe(422);
      return (e.details?.causes ?? []).map((c) => `${c.field}: ${c.message}`);
    }
    throw new Error('the write succeeded');
  };

  test('a remote APIService: port defaults to 443, status starts empty whatever the client sent', async () => {
    const obj = apiService('v1beta1.metrics.example.com', remote());
    obj.status = { conditions: [{ type: 'Available', status: 'True' }] };
    const { object } = await registry().create('', obj);
    expect((object.spec as any).service).toEqual({ namespace: 'kube-system', name: 'metrics', port: 443 });
    expect(object.status).toEqual({});
  });

  test('a local APIService is Available at once (reason Local)', async () => {
    const { object } = await registry().create('', apiService('v1.local.example.com', { group: 'local.example.com', version: 'v1', groupPriorityMinimum: 1, versionPriority: 1 }));
    expect((object.status as any).conditions).toEqual([
      expect.objectContaining({ type: 'Available', status: 'True', reason: 'Local', message: 'Local APIServices are always available' }),
    ]);
    expect(apiServiceTable.cells(object, new Date())).toEqual(['v1.local.example.com', 'Local', 'True', expect.any(String)]);
  });

  test("Kubernetes' messages, all in one 422", async () => {
    expect(await causes(registry().create('', apiService('v2.wrong.example.com', remote({
      groupPriorityMinimum: 0,
      versionPriority: 1001,
      caBundle: Buffer.from('x').toString('base64'),
      service: { namespace: '', name: '', port: 70000 },
    }))))).toEqual([
      'metadata.name: Invalid value: "v2.wrong.example.com": must be `spec.version+"."+spec.group`: "v1beta1.metrics.example.com"',
      'spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000',
      'spec.versionPriority: Invalid value: 1001: must be positive and less than 1000',
      'spec.service.namespace: Required value',
      'spec.service.name: Required value',
      'spec.service.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive',
      'spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present',
    ]);
    expect(await causes(registry().create('', apiService('v1beta1.x', { group: '', version: 'v1beta1', groupPriorityMinimum: 1, versionPriority: 1, insecureSkipTLSVerify: true, caBundle: 'eHl6' })))).toEqual([
      'metadata.name: Invalid value: "v1beta1.x": must be `spec.version+"."+spec.group`: "v1beta1."',
      'spec.group: Required value: only v1 may have an empty group and it better be legacy kube',
      'spec.caBundle: Invalid value: "3 bytes": local APIServices may not have a caBundle',
      'spec.insecureSkipTLSVerify: Invalid value: true: local APIServices may not have insecureSkipTLSVerify',
    ]);
    expect(await causes(registry().create('', apiService('v1.Bad_Group', { group: 'Bad_Group', version: '1x', groupPriorityMinimum: 1, versionPriority: 1 })))).toEqual([
      'metadata.name: Invalid value: "v1.Bad_Group": must be `spec.version+"."+spec.group`: "1x.Bad_Group"',
      expect.stringMatching(/^spec\.group: Invalid value: "Bad_Group": a lowercase RFC 1123 subdomain/),
      expect.stringMatching(/^spec\.version: Invalid value: "1x": a DNS-1035 label/),
    ]);
  });

  test('updates keep the status; the status sub-resource keeps the spec and checks condition statuses', async () => {
    const name = 'v1.status.example.com';
    await registry().create('', apiService(name, remote({ group: 'status.example.com', version: 'v1' })));
    const current = await registry().get('', name);
    const withStatus = { ...current, spec: { ...(current.spec as object), versionPriority: 999 }, status: { conditions: [{ type: 'Available', status: 'False', reason: 'FailedDiscoveryCheck', message: 'down' }] } };
    const { object: afterStatus } = await registry().update('', name, withStatus, { subresource: 'status' });
    expect((afterStatus.spec as any).versionPriority).toBe(10);
    expect(apiServiceTable.cells(afterStatus, new Date()).slice(1, 3)).toEqual(['kube-system/metrics', 'False (FailedDiscoveryCheck)']);
    const { object: afterUpdate } = await registry().update('', name, { ...afterStatus, spec: { ...(afterStatus.spec as object), versionPriority: 20 }, status: {} });
    expect((afterUpdate.spec as any).versionPriority).toBe(20);
    expect((afterUpdate.status as any).conditions[0].reason).toBe('FailedDiscoveryCheck');
    expect(await causes(registry().update('', name, { ...afterUpdate, status: { conditions: [{ type: 'Available', status: 'Maybe' }] } }, { subresource: 'status' }))).toEqual([
      'status.conditions[0].status: Unsupported value: "Maybe": supported values: "True", "False", "Unknown"',
    ]);
  });
});
