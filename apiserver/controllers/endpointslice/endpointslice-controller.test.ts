/**
 * The EndpointSlice controller over the real registries on the embedded store, the test playing the node
 * agent (pod IPs and Ready through `/status`): slice names, labels, owner and trigger-time annotation;
 * ready/serving/terminating; both address families; named ports; nodeName, zone and hostname; 250 pods
 * in 3 slices of at most 100; pods leaving; selector changes; Services without a selector and slices
 * managed by others left alone; pods on unknown Nodes.
 */
import type { KubeObject } from '../../api/object.js';
import { naming } from '../../naming/naming.js';
import { rfc3339 } from '../../registry/generic/system-fields.js';
import type { GenericRegistry } from '../../registry/generic/generic-registry.js';
import { createEventRecorder } from '../../events/event-recorder.js';
import { createInformerFactory, type InformerFactory } from '../informer.js';
import { openServedStore, type ServedStore } from '../testing/served-store.js';
import { startEndpointSliceController, type EndpointSliceController } from './endpointslice-controller.js';
import type { Endpoint } from './endpoints.js';
import type { Slice } from './reconciler.js';

const names = naming('k8s.io');
const SERVICE_NAME = 'kubernetes.io/service-name';
const MANAGED_BY = 'endpointslice.kubernetes.io/managed-by';
const CONTROLLER = 'endpointslice-controller.k8s.io';
const TRIGGER = 'endpoints.kubernetes.io/last-change-trigger-time';

let store: ServedStore;
let services: GenericRegistry;
let pods: GenericRegistry;
let slices: GenericRegistry;
let nodes: GenericRegistry;
let events: GenericRegistry;
let informers: InformerFactory;
let controller: EndpointSliceController | undefined;
let errors: unknown[];

beforeEach(async () => {
  store = await openServedStore(names);
  const r = (group: string, resource: string): GenericRegistry => store.served.lookup(group, 'v1', resource)!.registry;
  services = r('', 'services');
  pods = r('', 'pods');
  slices = r('discovery.k8s.io', 'endpointslices');
  nodes = r('', 'nodes');
  events = r('', 'events');
  await r('', 'namespaces').create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  await createNode('node-a', 'zone-1');
  await createNode('node-b');
  errors = [];
  informers = createInformerFactory({ onError: (err) => errors.push(err), rewatchDelayMs: 50 });
});

afterEach(async () => {
  await controller?.stop();
  controller = undefined;
  await informers.stop();
  await store.close();
});

function start(maxEndpointsPerSlice?: number): void {
  controller = startEndpointSliceController({
    informers,
    services,
    pods,
    endpointSlices: slices,
    nodes,
    naming: names,
    recorder: createEventRecorder({ events, component: 'endpoint-slice-controller' }),
    syncBackOffMs: 20,
    sliceChangeMinSyncDelayMs: 20,
    onError: (err) => errors.push(err),
    ...(maxEndpointsPerSlice === undefined ? {} : { maxEndpointsPerSlice }),
  });
}

async function until<T>(what: string, check: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  let last: unknown;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; last state ${JSON.stringify(last)}`);
    last = await slicesOf('web').catch(() => undefined);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function createNode(name: string, zone?: string): Promise<void> {
  await nodes.create('', { apiVersion: 'v1', kind: 'Node', metadata: { name, ...(zone === undefined ? {} : { labels: { 'topology.kubernetes.io/zone': zone } }) } });
}

async function createService(name: string, spec: Record<string, unknown>, labels?: Record<string, string>): Promise<KubeObject> {
  return (
    await services.create('default', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, ...(labels === undefined ? {} : { labels }) },
      spec: { clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'], ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', ports: [{ name: 'http', port: 80, targetPort: 'http' }], ...spec },
    })
  ).object;
}

interface PodOptions {
  node?: string;
  ips?: string[];
  ready?: boolean;
  hostname?: string;
  subdomain?: string;
  port?: number;
}

/** A pod on a node with a named container port `http`, and the node agent's status (IPs, Ready). */
async function createPod(name: string, labels: Record<string, string>, o: PodOptions = {}): Promise<KubeObject> {
  const spec: Record<string, unknown> = {
    nodeName: o.node ?? 'node-a',
    containers: [{ name: 'app', image: 'nginx:1.27', ports: [{ name: 'http', containerPort: o.port ?? 8080 }] }],
  };
  if (o.hostname !== undefined) spec.hostname = o.hostname;
  if (o.subdomain !== undefined) spec.subdomain = o.subdomain;
  await pods.create('default', { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels }, spec });
  if (o.ips !== undefined) await setPodStatus(name, o.ips, o.ready ?? true);
  return pods.get('default', name);
}

async function setPodStatus(name: string, ips: string[], ready: boolean): Promise<void> {
  const pod = await pods.get('default', name);
  const status = {
    phase: 'Running',
    podIP: ips[0],
    podIPs: ips.map((ip) => ({ ip })),
    conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: rfc3339(new Date()) }],
  };
  await pods.update('default', name, { ...pod, status }, { subresource: 'status' });
}

const slicesOf = async (service: string): Promise<Slice[]> =>
  (await slices.list('default')).items.filter((s) => s.metadata.labels?.[SERVICE_NAME] === service) as Slice[];
const endpointsOf = (ss: Slice[]): Endpoint[] => ss.flatMap((s) => s.endpoints ?? []);
const byPod = (ss: Slice[]): Record<string, Endpoint> => Object.fromEntries(endpointsOf(ss).map((e) => [e.targetRef!.name!, e]));

/** The service's slices once `check` accepts them. */
const slicesWhen = (service: string, what: string, check: (ss: Slice[]) => boolean): Promise<Slice[]> =>
  until(what, async () => {
    const ss = await slicesOf(service);
    return check(ss) ? ss : undefined;
  });

describe('EndpointSlice controller', () => {
  it('writes one slice with kube names, labels, owner, ports, endpoints and conditions', async () => {
    const svc = await createService('web', { selector: { app: 'web' } }, { tier: 'frontend' });
    const ready = await createPod('ready', { app: 'web' }, { ips: ['10.1.0.1'] });
    await createPod('unready', { app: 'web' }, { ips: ['10.1.0.2'], ready: false, node: 'node-b' });
    await createPod('no-ip', { app: 'web' });
    await createPod('other', { app: 'db' }, { ips: ['10.1.0.4'] });
    start();
    const [slice] = await slicesWhen('web', '2 endpoints', (ss) => endpointsOf(ss).length === 2);
    expect(slice!.metadata.name).toMatch(/^web-[a-z0-9]{5}$/);
    expect(slice!.metadata.generateName).toBe('web-');
    expect(slice!.metadata.labels).toEqual({ tier: 'frontend', [SERVICE_NAME]: 'web', [MANAGED_BY]: CONTROLLER });
    expect(slice!.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Service', name: 'web', uid: svc.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    expect(slice!.metadata.annotations?.[TRIGGER]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(slice!.addressType).toBe('IPv4');
    expect(slice!.ports).toEqual([{ name: 'http', port: 8080, protocol: 'TCP' }]);
    const eps = byPod([slice!]);
    expect(eps.ready).toEqual({
      addresses: ['10.1.0.1'],
      conditions: { ready: true, serving: true, terminating: false },
      nodeName: 'node-a',
      zone: 'zone-1',
      targetRef: { kind: 'Pod', namespace: 'default', name: 'ready', uid: ready.metadata.uid },
    });
    expect(eps.unready).toMatchObject({ conditions: { ready: false, serving: false, terminating: false }, nodeName: 'node-b' });
    expect(eps.unready!.zone).toBeUndefined();
    expect((await slices.get('default', slice!.metadata.name!)).metadata.managedFields?.[0]?.manager).toBe('kube-controller-manager');

    // Becoming ready, then terminating: serving stays true while ready turns false.
    await setPodStatus('unready', ['10.1.0.2'], true);
    await slicesWhen('web', 'unready ready', (ss) => byPod(ss).unready?.conditions.ready === true);
    await pods.delete('default', 'ready');
    const after = await slicesWhen('web', 'terminating', (ss) => byPod(ss).ready?.conditions.terminating === true);
    expect(byPod(after).ready!.conditions).toEqual({ ready: false, serving: true, terminating: true });
    expect(after).toHaveLength(1);
    // Gone (the node agent removes it): the endpoint leaves.
    await pods.delete('default', 'ready', { gracePeriodSeconds: 0 });
    await slicesWhen('web', 'left', (ss) => byPod(ss).ready === undefined && endpointsOf(ss).length === 1);
    expect(errors).toEqual([]);
  });

  it('a Service with no ready endpoints gets an empty placeholder slice', async () => {
    await createService('web', { selector: { app: 'web' } });
    start();
    const [slice] = await slicesWhen('web', 'placeholder', (ss) => ss.length === 1);
    expect(slice!.endpoints ?? []).toEqual([]);
    expect(slice!.ports ?? []).toEqual([]);
    await createPod('p', { app: 'web' }, { ips: ['10.1.0.1'] });
    // The placeholder is reused (updated in place), not deleted and recreated.
    const [filled] = await slicesWhen('web', 'filled', (ss) => endpointsOf(ss).length === 1);
    expect(filled!.metadata.name).toBe(slice!.metadata.name);
    expect(filled!.ports).toEqual([{ name: 'http', port: 8080, protocol: 'TCP' }]);
  });

  it('one slice per address family of the Service, from the pod IPs', async () => {
    await createService('web', {
      selector: { app: 'web' },
      clusterIP: 'None',
      clusterIPs: ['None'],
      ipFamilies: ['IPv4', 'IPv6'],
      ipFamilyPolicy: 'RequireDualStack',
      ports: [{ name: '', port: 80, targetPort: 8080 }],
    });
    await createPod('dual', { app: 'web' }, { ips: ['10.1.0.1', 'fd00:0:0::1'] });
    await createPod('v4', { app: 'web' }, { ips: ['10.1.0.2'] });
    start();
    const ss = await slicesWhen('web', 'two families', (s) => s.length === 2 && endpointsOf(s).length === 3);
    const v4 = ss.find((s) => s.addressType === 'IPv4')!;
    const v6 = ss.find((s) => s.addressType === 'IPv6')!;
    expect(endpointsOf([v4]).map((e) => e.addresses[0]).sort()).toEqual(['10.1.0.1', '10.1.0.2']);
    expect(endpointsOf([v6]).map((e) => e.addresses)).toEqual([['fd00::1']]);
    expect(v4.ports).toEqual([{ name: '', port: 8080, protocol: 'TCP' }]);
    // A headless Service carries the headless label.
    expect(v4.metadata.labels?.['service.kubernetes.io/headless']).toBe('');
  });

  it('resolves named target ports per pod: different numbers give different slices', async () => {
    await createService('web', { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }, { name: 'metrics', port: 9090, targetPort: 9100 }] });
    await createPod('a', { app: 'web' }, { ips: ['10.1.0.1'], port: 8080 });
    await createPod('b', { app: 'web' }, { ips: ['10.1.0.2'], port: 8081 });
    start();
    const ss = await slicesWhen('web', 'two port sets', (s) => s.length === 2 && endpointsOf(s).length === 2);
    const portsOf = (pod: string): unknown => ss.find((s) => s.endpoints?.[0]?.targetRef?.name === pod)!.ports;
    expect(portsOf('a')).toEqual([{ name: 'http', port: 8080, protocol: 'TCP' }, { name: 'metrics', port: 9100, protocol: 'TCP' }]);
    expect(portsOf('b')).toEqual([{ name: 'http', port: 8081, protocol: 'TCP' }, { name: 'metrics', port: 9100, protocol: 'TCP' }]);
  });

  it('250 pods fill 3 slices of at most 100; pods leaving shrink them in place', async () => {
    await createService('web', { selector: { app: 'web' } });
    start();
    await slicesWhen('web', 'placeholder', (ss) => ss.length === 1);
    for (let i = 0; i < 250; i++) await createPod(`p${i}`, { app: 'web' }, { ips: [`10.2.${i >> 8}.${i & 255}`] });
    const ss = await slicesWhen('web', '250 endpoints', (s) => endpointsOf(s).length === 250);
    expect(ss.map((s) => s.endpoints!.length).sort((a, b) => b - a)).toEqual([100, 100, 50]);
    const before = new Set(ss.map((s) => s.metadata.name));
    for (let i = 0; i < 60; i++) await pods.delete('default', `p${i}`, { gracePeriodSeconds: 0 });
    const after = await slicesWhen('web', '190 endpoints', (s) => endpointsOf(s).length === 190);
    expect(after.every((s) => s.endpoints!.length <= 100)).toBe(true);
    // Updated in place: no slice was replaced.
    expect(after.every((s) => before.has(s.metadata.name))).toBe(true);
    // Every endpoint once.
    expect(new Set(endpointsOf(after).map((e) => e.targetRef!.name)).size).toBe(190);
    expect(errors).toEqual([]);
  }, 60_000);

  it('honours maxEndpointsPerSlice', async () => {
    await createService('web', { selector: { app: 'web' } });
    for (let i = 0; i < 5; i++) await createPod(`p${i}`, { app: 'web' }, { ips: [`10.3.0.${i + 1}`] });
    start(2);
    const ss = await slicesWhen('web', '5 endpoints', (s) => endpointsOf(s).length === 5);
    expect(ss.map((s) => s.endpoints!.length).sort()).toEqual([1, 2, 2]);
  });

  it('follows a selector change, and labels copied from the Service', async () => {
    await createService('web', { selector: { app: 'web' } });
    await createPod('w', { app: 'web' }, { ips: ['10.1.0.1'] });
    await createPod('d', { app: 'db' }, { ips: ['10.1.0.2'] });
    start();
    await slicesWhen('web', 'w', (ss) => Object.keys(byPod(ss)).join() === 'w');
    await services.patch('default', 'web', (cur) => ({ ...cur, metadata: { ...cur.metadata, labels: { team: 'x' } }, spec: { ...(cur.spec as object), selector: { app: 'db' } } }));
    const ss = await slicesWhen('web', 'd', (s) => Object.keys(byPod(s)).join() === 'd' && s[0]?.metadata.labels?.team === 'x');
    expect(ss).toHaveLength(1);
  });

  it('pods on an unknown Node are left out (and retried), unless the Service publishes not-ready addresses', async () => {
    await createService('web', { selector: { app: 'web' } });
    await createPod('lost', { app: 'web' }, { ips: ['10.1.0.1'], node: 'node-x' });
    await createPod('fine', { app: 'web' }, { ips: ['10.1.0.2'] });
    start();
    await slicesWhen('web', 'only fine', (ss) => Object.keys(byPod(ss)).join() === 'fine');
    const warning = await until('event', async () => {
      const e = (await events.list('default')).items.find((x) => x.reason === 'FailedToUpdateEndpointSlices');
      return e === undefined ? undefined : String(e.message);
    });
    expect(warning).toBe('Error updating Endpoint Slices for Service default/web: skipping Pod lost for Service default/web: Node node-x Not Found');
    // The Node appears: the retry adds the pod.
    await createNode('node-x');
    await slicesWhen('web', 'both', (ss) => endpointsOf(ss).length === 2);
    // publishNotReadyAddresses: the unready pod is ready for the Service.
    await services.patch('default', 'web', (cur) => ({ ...cur, spec: { ...(cur.spec as object), publishNotReadyAddresses: true } }));
    await setPodStatus('fine', ['10.1.0.2'], false);
    const ss = await slicesWhen('web', 'published', (s) => byPod(s).fine?.conditions.serving === false);
    expect(byPod(ss).fine!.conditions).toEqual({ ready: true, serving: false, terminating: false });
  });

  it('sets hostname for pods whose subdomain is the Service', async () => {
    await createService('web', { selector: { app: 'web' } });
    await createPod('named', { app: 'web' }, { ips: ['10.1.0.1'], hostname: 'web-0', subdomain: 'web' });
    await createPod('elsewhere', { app: 'web' }, { ips: ['10.1.0.2'], hostname: 'web-1', subdomain: 'other' });
    start();
    const ss = await slicesWhen('web', '2', (s) => endpointsOf(s).length === 2);
    expect(byPod(ss).named!.hostname).toBe('web-0');
    expect(byPod(ss).elsewhere!.hostname).toBeUndefined();
  });

  it('leaves Services without a selector, ExternalName Services and slices managed by others alone', async () => {
    await createService('manual', {});
    await createService('ext', { type: 'ExternalName', externalName: 'example.com', clusterIP: '', clusterIPs: undefined, ipFamilies: undefined, ipFamilyPolicy: undefined, selector: { app: 'web' } });
    await slices.create('default', {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'manual-1', labels: { [SERVICE_NAME]: 'manual' } },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['192.168.0.1'] }],
    } as KubeObject);
    await createPod('w', { app: 'web' }, { ips: ['10.1.0.1'] });
    await createService('web', { selector: { app: 'web' } });
    start();
    await slicesWhen('web', 'web', (ss) => endpointsOf(ss).length === 1);
    expect((await slicesOf('manual')).map((s) => s.metadata.name)).toEqual(['manual-1']);
    expect(await slicesOf('ext')).toEqual([]);
  });

  it('a deleted Service gets no new slices; its own carry its controller reference for the collector', async () => {
    const svc = await createService('web', { selector: { app: 'web' } });
    await createPod('w', { app: 'web' }, { ips: ['10.1.0.1'] });
    start();
    const [slice] = await slicesWhen('web', 'one', (ss) => endpointsOf(ss).length === 1);
    await services.delete('default', 'web');
    // An earlier Service's slice is replaced for a new Service of the same name.
    const again = await createService('web', { selector: { app: 'web' } });
    expect(again.metadata.uid).not.toBe(svc.metadata.uid);
    const ss = await slicesWhen('web', 'owned by the new service', (s) => s.length === 1 && s[0]!.metadata.ownerReferences?.[0]?.uid === again.metadata.uid);
    expect(ss[0]!.metadata.name).not.toBe(slice!.metadata.name);
    expect(endpointsOf(ss)).toHaveLength(1);
  });

  it('writes the domain names of the platform domain outside k8s.io', async () => {
    const { sliceNames } = await import('./slice-names.js');
    expect(sliceNames(naming('platform.io'))).toEqual({
      apiVersion: 'discovery.platform.io/v1',
      serviceName: 'platform.io/service-name',
      managedBy: 'endpointslice.platform.io/managed-by',
      controllerName: 'endpointslice-controller.platform.io',
      headless: 'service.platform.io/headless',
      lastChangeTriggerTime: 'endpoints.platform.io/last-change-trigger-time',
      zone: 'topology.platform.io/zone',
    });
  });
});
