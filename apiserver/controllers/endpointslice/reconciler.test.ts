/**
 * The slice plan as kube's reconciler makes it, on hand-made states: filling updated slices first, the
 * unchanged slice closest to full for a remainder, new slices only beyond, deleting emptied slices,
 * reusing a slice to delete for one to create, slices of foreign owners and of dropped families, and
 * label drift.
 */
import type { KubeObject } from '../../api/object.js';
import { naming } from '../../naming/naming.js';
import { planSlices, newSlice, type Slice } from './reconciler.js';
import { podToEndpoint } from './endpoints.js';
import { sliceNames } from './slice-names.js';

const names = sliceNames(naming('k8s.io'));
const service: KubeObject = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'web', namespace: 'default', uid: 'svc-uid' },
  spec: { selector: { app: 'web' }, clusterIP: '10.96.0.1', ipFamilies: ['IPv4'], ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }] },
};
const node: KubeObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } };

const pod = (i: number): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: `p${i}`, namespace: 'default', uid: `uid-${i}`, labels: { app: 'web' } },
  spec: { nodeName: 'n1', containers: [] },
  status: { phase: 'Running', podIP: `10.0.${i >> 8}.${i & 255}`, podIPs: [{ ip: `10.0.${i >> 8}.${i & 255}` }], conditions: [{ type: 'Ready', status: 'True' }] },
});

const PORTS = [{ name: 'http', port: 8080, protocol: 'TCP' }];
let serial = 0;
/** An existing slice of this service holding the endpoints of pods `from`..`to`-1. */
function slice(from: number, to: number, edit: (s: Slice) => void = () => {}): Slice {
  const s = newSlice(service, PORTS.map((p) => ({ ...p })), 'IPv4', names);
  s.metadata.name = `web-${++serial}`;
  s.metadata.uid = `slice-${serial}`;
  s.metadata.resourceVersion = '1';
  for (let i = from; i < to; i++) s.endpoints!.push(podToEndpoint(pod(i), node, service, 'IPv4', names.zone));
  edit(s);
  return s;
}

const range = (from: number, to: number): KubeObject[] => Array.from({ length: to - from }, (_, k) => pod(from + k));
const plan = (pods: KubeObject[], existing: Slice[], max = 100) =>
  planSlices({ service, pods, existing, node: (n) => (n === 'n1' ? node : undefined), maxEndpointsPerSlice: max, names });
const sizes = (ss: Slice[]): number[] => ss.map((s) => s.endpoints!.length);

describe('planSlices', () => {
  it('changes nothing when the slices are right', () => {
    const p = plan(range(0, 150), [slice(0, 100), slice(100, 150)]);
    expect([p.create, p.update, p.delete]).toEqual([[], [], []]);
  });

  it('puts a remainder into the unchanged slice it fits best, not a new one', () => {
    const a = slice(0, 100);
    const b = slice(100, 150);
    const c = slice(150, 170);
    const p = plan(range(0, 200), [a, b, c]);
    // 30 new endpoints: b (50) would end at 80, c (20) at 50: b is closest to full.
    expect(p.create).toEqual([]);
    expect(p.update.map((s) => s.metadata.name)).toEqual([b.metadata.name]);
    expect(sizes(p.update)).toEqual([80]);
  });

  it('fills slices being updated first, fullest first, then creates', () => {
    const a = slice(0, 100);
    const b = slice(100, 190);
    // p5 and p150 leave: both slices change (99 and 89 left); of 110 new endpoints 1 tops up a, 11 top up b, 98 go to a new slice.
    const pods = [...range(0, 190).filter((p) => !['p5', 'p150'].includes(p.metadata.name!)), ...range(190, 300)];
    const p = plan(pods, [a, b]);
    expect(sizes(p.update).sort()).toEqual([100, 100]);
    expect(sizes(p.create)).toEqual([98]);
    expect(p.create[0]!.metadata.generateName).toBe('web-');
  });

  it('deletes a slice left empty, reusing it for a slice to create', () => {
    const a = slice(0, 3);
    const p = plan(range(10, 12), [a]);
    // a loses every endpoint (delete) and 2 new ones need a slice (create): a is updated instead.
    expect(p.delete).toEqual([]);
    expect(p.create).toEqual([]);
    expect(p.update).toHaveLength(1);
    expect(p.update[0]!.metadata.name).toBe(a.metadata.name);
    expect(p.update[0]!.metadata.resourceVersion).toBe('1');
    expect(p.update[0]!.endpoints!.map((e) => e.targetRef!.name)).toEqual(['p10', 'p11']);
  });

  it('keeps one empty placeholder when nothing is left, and does not churn it', () => {
    const a = slice(0, 2);
    const p = plan([], [a]);
    expect(p.create).toEqual([]);
    expect(p.update).toHaveLength(1);
    expect(p.update[0]!.endpoints).toEqual([]);
    expect(p.update[0]!.ports).toEqual([]);
    const again = plan([], [{ ...p.update[0]! }]);
    expect([again.create, again.update, again.delete]).toEqual([[], [], []]);
  });

  it('deletes slices of another owner (an earlier Service of the same name) and of a family the Service dropped', () => {
    const foreign = slice(0, 1, (s) => (s.metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'Service', name: 'web', uid: 'old', controller: true }]));
    const v6 = slice(0, 0, (s) => (s.addressType = 'IPv6'));
    const p = plan(range(0, 1), [foreign, v6]);
    expect(p.delete.map((s) => s.metadata.name).sort()).toEqual([foreign.metadata.name, v6.metadata.name].sort());
    expect(sizes(p.create)).toEqual([1]);
  });

  it('updates a slice whose labels drifted from the Service', () => {
    const a = slice(0, 1, (s) => (s.metadata.labels = { ...s.metadata.labels, stale: 'yes' }));
    const p = plan(range(0, 1), [a]);
    expect(p.update).toHaveLength(1);
    expect(p.update[0]!.metadata.labels).toEqual({ 'kubernetes.io/service-name': 'web', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' });
  });

  it('an endpoint whose conditions changed is replaced in place', () => {
    const a = slice(0, 2);
    const unready = pod(1);
    (unready.status as { conditions: unknown[] }).conditions = [{ type: 'Ready', status: 'False' }];
    const p = plan([pod(0), unready], [a]);
    expect(p.update).toHaveLength(1);
    expect(p.update[0]!.endpoints![1]!.conditions).toEqual({ ready: false, serving: false, terminating: false });
  });
});
