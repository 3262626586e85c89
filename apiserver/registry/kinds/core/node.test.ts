import type { KubeObject } from '../../../api/object.js';
import { errorString } from '../../../validation/field-error.js';
import { naming } from '../../../naming/naming.js';
import { testContext } from '../shared/test-context.js';
import { nodes, nodesFor } from './node.js';

const node = (spec: Record<string, unknown> = {}, status?: Record<string, unknown>, labels?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'worker-1', creationTimestamp: '2024-01-01T00:00:00Z', ...(labels ? { labels } : {}) },
  spec,
  ...(status ? { status } : {}),
});
const ctx = testContext('platform.io', '', '', 'create');
const k8s = testContext('k8s.io', '', '', 'create');
const validate = (n: KubeObject, c = ctx): string[] => nodes.validate(n, c).map(errorString);
const update = (n: KubeObject, old: KubeObject): string[] => nodes.validateUpdate(n, old).map(errorString);

const typicalStatus = {
  capacity: { cpu: '4', memory: '16Gi', pods: '110' },
  allocatable: { cpu: '3800m', memory: '15Gi', pods: '110' },
  conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }],
  addresses: [
    { type: 'InternalIP', address: '10.0.0.5' },
    { type: 'Hostname', address: 'worker-1' },
  ],
  nodeInfo: { nodeagentVersion: 'v1.32.2', osImage: 'Debian GNU/Linux 12 (bookworm)', kernelVersion: '6.1.0-18-amd64', containerRuntimeVersion: 'containerd://1.7.13' },
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
  expect(status.nodeInfo!.required).toContain('nodeagentVersion');
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

test('a missing podCIDR or podCIDRs is filled from the other; removed config fields are dropped on create', () => {
  const n = node({ podCIDRs: ['10.1.0.0/24', 'fd00::/64'], configSource: { configMap: {} } }, { config: { error: '' } });
  nodes.prepareForCreate(n);
  expect(n.spec).toEqual({ podCIDR: '10.1.0.0/24', podCIDRs: ['10.1.0.0/24', 'fd00::/64'] });
  expect(n.status).toEqual({});
  const one = node({ podCIDR: '10.2.0.0/24' });
  nodes.prepareForCreate(one);
  expect(one.spec).toEqual({ podCIDR: '10.2.0.0/24', podCIDRs: ['10.2.0.0/24'] });
});

describe("document 2's node rules", () => {
  test.each<[string, Record<string, unknown>, Record<string, unknown> | undefined, string[]]>([
    ['podCIDRs[0] differing from podCIDR is refused, never rewritten', { podCIDR: '10.0.0.0/24', podCIDRs: ['10.1.0.0/24'] }, undefined, [
      'spec.podCIDRs[0]: Invalid value: "10.1.0.0/24": must equal spec.podCIDR ("10.0.0.0/24")',
    ]],
    ['podCIDRs[0] equal to podCIDR', { podCIDR: '10.0.0.0/24', podCIDRs: ['10.0.0.0/24', 'fd00::/64'] }, undefined, []],
    ['the three listed address types', {}, { addresses: [{ type: 'Hostname', address: 'a' }, { type: 'ExternalIP', address: '1.2.3.4' }, { type: 'InternalIP', address: '10.0.0.1' }] }, []],
    ['an unlisted address type', {}, { addresses: [{ type: 'InternalDNS', address: 'a.local' }] }, [
      'status.addresses[0].type: Unsupported value: "InternalDNS": supported values: "ExternalIP", "Hostname", "InternalIP"',
    ]],
    ['condition statuses True, False, Unknown', {}, { conditions: [{ type: 'Ready', status: 'True' }, { type: 'DiskPressure', status: 'False' }, { type: 'PIDPressure', status: 'Unknown' }] }, []],
    ['a condition status outside the three', {}, { conditions: [{ type: 'Ready', status: 'true' }] }, [
      'status.conditions[0].status: Unsupported value: "true": supported values: "False", "True", "Unknown"',
    ]],
  ])('%s', (_name, spec, status, expected) => {
    expect(validate(node(spec, status))).toEqual(expected);
  });

  test('Kubernetes mode also accepts the DNS address types its node agents report', () => {
    expect(validate(node({}, { addresses: [{ type: 'InternalDNS', address: 'a.local' }, { type: 'ExternalDNS', address: 'a.example' }] }), k8s)).toEqual([]);
    expect(validate(node({}, { addresses: [{ type: 'Other', address: 'a' }] }), k8s)).toHaveLength(1);
  });

  test('status writes check them too', () => {
    expect(nodes.validateStatusUpdate(node({}, { conditions: [{ type: 'Ready', status: 'Yes' }] }), node(), ctx).map(errorString)).toEqual([
      'status.conditions[0].status: Unsupported value: "Yes": supported values: "False", "True", "Unknown"',
    ]);
  });

  test('allocatable defaults to capacity; a given allocatable is kept', () => {
    const n = node({}, { capacity: { cpu: '4', pods: '110' } });
    nodes.canonicalize(n);
    expect(n.status).toEqual({ capacity: { cpu: '4', pods: '110' }, allocatable: { cpu: '4', pods: '110' } });
    const given = node({}, { capacity: { cpu: '4' }, allocatable: { cpu: '3' } });
    nodes.canonicalize(given);
    expect((given.status as { allocatable: unknown }).allocatable).toEqual({ cpu: '3' });
  });

  test('the node agent member names follow the naming; every nodeInfo member the document lists is required', () => {
    const platform = nodesFor(naming('platform.io')).schema.properties!.status!.properties!;
    const kube = nodesFor(naming('k8s.io')).schema.properties!.status!.properties!;
    expect(Object.keys(platform.daemonEndpoints!.properties!)).toEqual(['nodeagentEndpoint']);
    expect(Object.keys(kube.daemonEndpoints!.properties!)).toEqual(['kubeletEndpoint']);
    expect([...platform.nodeInfo!.required!].sort()).toEqual(['architecture', 'bootID', 'containerRuntimeVersion', 'kernelVersion', 'nodeagentVersion', 'operatingSystem', 'osImage', 'proxyVersion']);
    expect(kube.nodeInfo!.required).toEqual(expect.arrayContaining(['kubeletVersion', 'kubeProxyVersion', 'machineID', 'systemUUID']));
    expect(platform.nodeInfo!.protobuf).toEqual(expect.objectContaining({ nodeagentVersion: 7, proxyVersion: 8 }));
    const configMap = nodesFor(naming('platform.io')).schema.properties!.spec!.properties!.configSource!.properties!.configMap!;
    expect(configMap.required).toContain('nodeagentConfigKey');
    expect(nodesFor(naming('platform.io')).schema).toBe(nodes.schema);
  });
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
  expect(nodes.validateStatusUpdate(node({}, { capacity: { memory: 'x' } }), node(), ctx).map(errorString)).toHaveLength(1);
});

test('updates keep the old status; status updates reject duplicate addresses', () => {
  const old = node({}, structuredClone(typicalStatus));
  const n = node({ unschedulable: true }, { phase: 'Running' });
  nodes.prepareForUpdate(n, old);
  expect(n.status).toEqual(typicalStatus);
  expect(n.status).not.toBe(old.status);
  const dup = node({}, { addresses: [{ type: 'InternalIP', address: '10.0.0.5' }, { type: 'InternalIP', address: '10.0.0.5' }] });
  expect(nodes.validateStatusUpdate(dup, node(), ctx).map(errorString)).toEqual([
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
