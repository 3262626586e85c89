import type { KubeObject } from '../../../api/object.js';
import { errorString } from '../../../validation/field-error.js';
import { nodes } from './node.js';

const node = (spec: Record<string, unknown> = {}, status?: Record<string, unknown>, labels?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'worker-1', creationTimestamp: '2024-01-01T00:00:00Z', ...(labels ? { labels } : {}) },
  spec,
  ...(status ? { status } : {}),
});
const validate = (n: KubeObject): string[] => nodes.validate(n).map(errorString);
const update = (n: KubeObject, old: KubeObject): string[] => nodes.validateUpdate(n, old).map(errorString);

const typicalStatus = {
  capacity: { cpu: '4', memory: '16Gi', pods: '110' },
  allocatable: { cpu: '3800m', memory: '15Gi', pods: '110' },
  conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }],
  addresses: [
    { type: 'InternalIP', address: '10.0.0.5' },
    { type: 'Hostname', address: 'worker-1' },
  ],
  nodeInfo: { kubeletVersion: 'v1.32.2', osImage: 'Debian GNU/Linux 12 (bookworm)', kernelVersion: '6.1.0-18-amd64', containerRuntimeVersion: 'containerd://1.7.13' },
};

test('discovery data and schema', () => {
  expect(nodes.namespaced).toBe(false);
  expect(nodes.shortNames).toEqual(['no']);
  expect(nodes.subresources).toEqual(['status']);
  const spec = nodes.schema.properties!.spec!.properties!;
  expect(spec.podCIDRs).toMatchObject({ 'x-kubernetes-list-type': 'set', 'x-kubernetes-patch-strategy': 'merge' });
  expect(spec.taints).toMatchObject({ 'x-kubernetes-list-type': 'atomic' });
  const status = nodes.schema.properties!.status!.properties!;
  expect(status.addresses).toMatchObject({ 'x-kubernetes-list-map-keys': ['type'], 'x-kubernetes-patch-merge-key': 'type' });
  expect(status.conditions).toMatchObject({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-patch-strategy': 'merge' });
  expect(status.capacity!.additionalProperties).toMatchObject({ 'x-kubernetes-int-or-string': true });
  expect(status.nodeInfo!.required).toContain('kubeletVersion');
});

test('a typical node round-trips through create, status included', () => {
  const n = node({ podCIDR: '10.244.1.0/24', providerID: 'aws:///eu-west-1a/i-0abc', taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] }, structuredClone(typicalStatus));
  nodes.prepareForCreate(n);
  expect(validate(n)).toEqual([]);
  expect(n).toEqual(
    node(
      { podCIDR: '10.244.1.0/24', podCIDRs: ['10.244.1.0/24'], providerID: 'aws:///eu-west-1a/i-0abc', taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] },
      typicalStatus,
    ),
  );
});

test('podCIDRs win over podCIDR; removed config fields are dropped on create', () => {
  const n = node({ podCIDR: '10.0.0.0/24', podCIDRs: ['10.1.0.0/24', 'fd00::/64'], configSource: { configMap: {} } }, { config: { error: '' } });
  nodes.prepareForCreate(n);
  expect(n.spec).toEqual({ podCIDR: '10.1.0.0/24', podCIDRs: ['10.1.0.0/24', 'fd00::/64'] });
  expect(n.status).toEqual({});
});

describe('taints', () => {
  test('key, value, effect and uniqueness by key and effect', () => {
    expect(
      validate(
        node({
          taints: [
            { key: 'a', effect: 'NoSchedule' },
            { key: 'a', effect: 'NoExecute' },
            { key: 'a', effect: 'NoSchedule' },
            { key: '', value: 'bad value', effect: '' },
            { key: 'b', effect: 'Sometimes' },
          ],
        }),
      ),
    ).toEqual([
      'metadata.taints[2]: Duplicate value: {"key":"a","effect":"NoSchedule"}: taints must be unique by key and effect pair',
      `metadata.taints[3].key: Invalid value: "": name part must be non-empty`,
      `metadata.taints[3].key: Invalid value: "": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      `metadata.taints[3].value: Invalid value: "bad value": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
      'metadata.taints[3].effect: Required value',
      'metadata.taints[4].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
    ]);
  });
});

describe('pod CIDRs', () => {
  test('valid CIDRs, at most one per family, no duplicates', () => {
    expect(validate(node({ podCIDRs: ['10.0.0.0/24', 'fd00::/64'] }))).toEqual([]);
    expect(validate(node({ podCIDRs: ['10.0.0.0/33'] }))).toEqual(['spec.podCIDRs[0]: Invalid value: "10.0.0.0/33": must be valid CIDR']);
    expect(validate(node({ podCIDRs: ['10.0.0.0/24', '10.1.0.0/24'] }))).toEqual([
      'spec.podCIDRs: Invalid value: ["10.0.0.0/24","10.1.0.0/24"]: may specify no more than one CIDR for each IP family',
    ]);
    expect(validate(node({ podCIDRs: ['10.0.0.0/24', 'fd00::/64', '10.1.0.0/24'] }))).toHaveLength(1);
    expect(validate(node({ podCIDRs: ['10.0.0.0/24', '10.0.0.0/24'] }))).toEqual([
      'spec.podCIDRs: Invalid value: ["10.0.0.0/24","10.0.0.0/24"]: may specify no more than one CIDR for each IP family',
      'spec.podCIDRs[1]: Duplicate value: "10.0.0.0/24"',
    ]);
  });

  test('set once: "" to valid is allowed, changes are forbidden', () => {
    expect(update(node({ podCIDRs: ['10.0.0.0/24'] }), node())).toEqual([]);
    expect(update(node({ podCIDRs: ['10.9.0.0/24'] }), node({ podCIDRs: ['10.0.0.0/24'] }))).toEqual([
      'spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid',
    ]);
    expect(update(node({}), node({ podCIDR: '10.0.0.0/24' }))).toEqual(['spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid']);
  });
});

test('providerID and externalID are set once', () => {
  expect(update(node({ providerID: 'x://1' }), node())).toEqual([]);
  expect(update(node({ providerID: 'x://2' }), node({ providerID: 'x://1' }))).toEqual([
    'spec.providerID: Forbidden: node updates may not change providerID except from "" to valid',
  ]);
  expect(update(node({ externalID: 'b' }), node({ externalID: 'a' }))).toEqual(['spec.externalID: Forbidden: may not be updated']);
});

test('resource quantities are checked on create and status updates', () => {
  expect(validate(node({}, { capacity: { cpu: '-1' }, allocatable: { pods: '1.5' } }))).toEqual([
    'status.capacity.cpu: Invalid value: "-1": must be greater than or equal to 0',
    'status.allocatable.pods: Invalid value: "1.5": must be an integer',
  ]);
  expect(nodes.validateStatusUpdate(node({}, { capacity: { memory: 'x' } }), node()).map(errorString)).toHaveLength(1);
});

test('updates keep the old status; status updates reject duplicate addresses', () => {
  const old = node({}, structuredClone(typicalStatus));
  const n = node({ unschedulable: true }, { phase: 'Running' });
  nodes.prepareForUpdate(n, old);
  expect(n.status).toEqual(typicalStatus);
  expect(n.status).not.toBe(old.status);
  const dup = node({}, { addresses: [{ type: 'InternalIP', address: '10.0.0.5' }, { type: 'InternalIP', address: '10.0.0.5' }] });
  expect(nodes.validateStatusUpdate(dup, node()).map(errorString)).toEqual([
    'status.addresses[1]: Duplicate value: {"type":"InternalIP","address":"10.0.0.5"}',
  ]);
});

describe('table', () => {
  const now = new Date('2024-01-03T00:00:00Z');
  test('NAME STATUS ROLES AGE VERSION, wide columns', () => {
    expect(nodes.table.columns.map((c) => [c.name, c.priority])).toEqual([
      ['Name', 0],
      ['Status', 0],
      ['Roles', 0],
      ['Age', 0],
      ['Version', 0],
      ['Internal-IP', 1],
      ['External-IP', 1],
      ['OS-Image', 1],
      ['Kernel-Version', 1],
      ['Container-Runtime', 1],
    ]);
    const n = node({ unschedulable: true }, typicalStatus, { 'node-role.kubernetes.io/control-plane': '', 'node-role.platform.io/worker': '', 'kubernetes.io/role': 'infra' });
    expect(nodes.table.cells(n, now)).toEqual([
      'worker-1',
      'Ready,SchedulingDisabled',
      'control-plane,infra,worker',
      '2d',
      'v1.32.2',
      '10.0.0.5',
      '<none>',
      'Debian GNU/Linux 12 (bookworm)',
      '6.1.0-18-amd64',
      'containerd://1.7.13',
    ]);
  });

  test('a bare node: Unknown, <none>, <unknown>', () => {
    expect(nodes.table.cells(node(), now)).toEqual(['worker-1', 'Unknown', '<none>', '2d', '', '<none>', '<none>', '<unknown>', '<unknown>', '<unknown>']);
    const notReady = node({}, { conditions: [{ type: 'Ready', status: 'Unknown' }] });
    expect(nodes.table.cells(notReady, now)[1]).toBe('NotReady');
  });
});

test('spec.unschedulable is selectable', () => {
  expect(nodes.selectableFields['spec.unschedulable'](node({ unschedulable: true }))).toBe('true');
  expect(nodes.selectableFields['spec.unschedulable'](node())).toBe('false');
});
