/**
 * The server and objects the bad-input suites write to: one real server on the embedded store (bad input
 * is refused before any store call, so the backend does not matter here; the fuzz and storage suites run
 * both), a namespace with one object of each kind whose body paths are tried, and a custom resource with
 * `x-platform-preserve-unknown-fields` (any nesting) and the status and scale sub-resources.
 */
import type { StartOptions } from '../../../apiserver/server/start-server.js';
import type { ServerConfig } from '../../../apiserver/config/server-config.js';
import { backends, createNamespace, uniqueName, type Backend, type TestApi } from '../../http/helpers.js';
import { eventually } from '../../server/helpers.js';

/** The embedded-store backend of test/http/helpers.ts, whatever `HTTP_BACKENDS` says. */
export function memoryBackend(): Backend {
  const saved = process.env.HTTP_BACKENDS;
  process.env.HTTP_BACKENDS = 'memory';
  try {
    return backends()[0]!;
  } finally {
    if (saved === undefined) delete process.env.HTTP_BACKENDS;
    else process.env.HTTP_BACKENDS = saved;
  }
}

export interface World {
  readonly api: TestApi;
  readonly ns: string;
  /** `/apis/<group>/v1/namespaces/<ns>/gadgets` */
  readonly gadgets: string;
  readonly group: string;
}

export const container = { name: 'web', image: 'nginx:1.27' };

/** Starts a server and creates: the namespace; ConfigMap cm1, Pod p1, ReplicationController rc1, ServiceAccount sa1, Gadget g1. */
export async function startWorld(b: Backend, overrides: Partial<ServerConfig> = {}, options: StartOptions = {}): Promise<World> {
  const api = await b.start(overrides, options);
  const ns = await createNamespace(api);
  const group = `${uniqueName('g')}.example.com`;
  const crd = {
    apiVersion: 'apiextensions.platform.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `gadgets.${group}` },
    spec: {
      group,
      names: { kind: 'Gadget', plural: 'gadgets' },
      scope: 'Namespaced',
      versions: [{
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { replicas: { type: 'integer' }, free: { type: 'object', 'x-platform-preserve-unknown-fields': true } } },
              status: { type: 'object', properties: { replicas: { type: 'integer' } } },
            },
          },
        },
      }],
    },
  };
  const made = await api.request('POST', '/apis/apiextensions.platform.io/v1/customresourcedefinitions', { body: crd });
  if (made.status !== 201) throw new Error(`CRD: ${made.status} ${made.text()}`);
  const gadgets = `/apis/${group}/v1/namespaces/${ns}/gadgets`;
  await eventually(async () => (await api.request('GET', gadgets)).status === 200, `${gadgets} served`, 15_000);
  const creates: [string, unknown][] = [
    [`/api/v1/namespaces/${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm1' }, data: { a: 'b' } }],
    [`/api/v1/namespaces/${ns}/pods`, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p1' }, spec: { containers: [container] } }],
    [`/api/v1/namespaces/${ns}/replicationcontrollers`, {
      apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'rc1' },
      spec: { replicas: 1, selector: { app: 'x' }, template: { metadata: { labels: { app: 'x' } }, spec: { containers: [container] } } },
    }],
    [`/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa1' } }],
    [gadgets, { apiVersion: `${group}/v1`, kind: 'Gadget', metadata: { name: 'g1' }, spec: { replicas: 1, free: { a: 1 } } }],
  ];
  for (const [path, body] of creates) {
    const res = await api.request('POST', path, { body });
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${res.text()}`);
  }
  return { api, ns, gadgets, group };
}

/** The objects startWorld made, by path. */
export function worldObjects(w: World): string[] {
  return [
    `/api/v1/namespaces/${w.ns}/configmaps/cm1`,
    `/api/v1/namespaces/${w.ns}/pods/p1`,
    `/api/v1/namespaces/${w.ns}/replicationcontrollers/rc1`,
    `/api/v1/namespaces/${w.ns}/serviceaccounts/sa1`,
    `${w.gadgets}/g1`,
  ];
}

/** The resourceVersion of each object and the item count of each collection of the world's namespace. */
export async function snapshot(w: World): Promise<Record<string, string | number>> {
  const out: Record<string, string | number> = {};
  for (const path of worldObjects(w)) {
    const res = await w.api.request('GET', path);
    out[path] = res.status === 200 ? (res.json().metadata.resourceVersion as string) : res.status;
    const collection = path.slice(0, path.lastIndexOf('/'));
    out[collection] = (await w.api.request('GET', collection)).json().items.length as number;
  }
  out['/api/v1/namespaces'] = (await w.api.request('GET', '/api/v1/namespaces')).json().items.length as number;
  return out;
}
