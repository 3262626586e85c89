/**
 * EndpointSlice through the registry's create and update paths (no store): Kubernetes v1.32's validation
 * with its field paths and reasons, the v1 defaults, the dropped deprecated topology, the immutable
 * address type, the table, and the schema's protobuf numbers.
 */
import type { KubeObject } from '../../../api/object.js';
import type { Schema } from '../../../schema/schema.js';
import { createAs, updateAs, type Cause } from '../storage/testing.js';
import { endpointSlices } from './endpointslice.js';

const PORT = { name: 'http', protocol: 'TCP', port: 80 };
const slice = (fields: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'discovery.platform.io/v1',
  kind: 'EndpointSlice',
  metadata: { name: 'web-abc12', namespace: 'default', labels: { 'kubernetes.io/service-name': 'web' } },
  addressType: 'IPv4',
  endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: true }, nodeName: 'node-1', zone: 'zone-a' }],
  ports: [PORT],
  ...fields,
});
const ep = (addresses: string[], extra: Record<string, unknown> = {}) => ({ addresses, ...extra });

const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const required = (field: string, detail = ''): Cause => ({ reason: 'FieldValueRequired', field, message: detail === '' ? 'Required value' : `Required value: ${detail}` });
const invalid = (field: string, value: string, detail: string): Cause => ({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${JSON.stringify(value)}: ${detail}` });
const tooMany = (field: string, actual: number, max: number): Cause => ({ reason: 'FieldValueTooMany', field, message: `Too many: ${actual}: must have at most ${max} items` });
const duplicate = (field: string, value: string): Cause => ({ reason: 'FieldValueDuplicate', field, message: `Duplicate value: ${JSON.stringify(value)}` });

const cases: [string, Record<string, unknown>, Cause[]][] = [
  ['an IPv4 slice', {}, []],
  ['an IPv6 slice', { addressType: 'IPv6', endpoints: [ep(['2001:db8::1', 'fd00::5'])] }, []],
  ['an FQDN slice (a trailing dot allowed)', { addressType: 'FQDN', endpoints: [ep(['db.example.com', 'cache.example.com.'])] }, []],
  ['no ports and no endpoints', { ports: undefined, endpoints: [] }, []],
  ['an unnamed port with no number ("all ports")', { ports: [{}] }, []],
  ['every optional endpoint member', {
    endpoints: [ep(['10.0.0.1'], {
      hostname: 'pod-0', nodeName: 'node-1.example', zone: 'us-east-1a',
      conditions: { ready: false, serving: true, terminating: true },
      hints: { forZones: [{ name: 'us-east-1a' }, { name: 'us-east-1b' }] },
      targetRef: { kind: 'Pod', namespace: 'default', name: 'web-0', uid: '1234' },
    })],
  }, []],
  ['100 addresses', { endpoints: [ep(Array.from({ length: 100 }, (_, i) => `10.0.1.${i + 1}`))] }, []],
  ['appProtocols: IANA name, domain-prefixed', { ports: [{ name: 'a', appProtocol: 'https' }, { name: 'b', appProtocol: 'platform.io/h2c' }] }, []],
  ['no address type', { addressType: undefined }, [required('addressType')]],
  ['an unknown address type (addresses unchecked)', { addressType: 'IP', endpoints: [ep(['not-an-ip'])] }, [
    { reason: 'FieldValueNotSupported', field: 'addressType', message: 'Unsupported value: "IP": supported values: "FQDN", "IPv4", "IPv6"' },
  ]],
  ['an endpoint without addresses', { endpoints: [ep([])] }, [required('endpoints[0].addresses', 'must contain at least 1 address')]],
  ['101 addresses', { endpoints: [ep(Array.from({ length: 101 }, (_, i) => `10.0.1.${i + 1}`))] }, [tooMany('endpoints[0].addresses', 101, 100)]],
  ['1001 endpoints (only that cause)', { endpoints: Array.from({ length: 1001 }, () => ep(['127.0.0.1'])) }, [tooMany('endpoints', 1001, 1000)]],
  ['an IPv6 address in an IPv4 slice', { endpoints: [ep(['10.0.0.1', 'fd00::1'])] }, [invalid('endpoints[0].addresses[1]', 'fd00::1', 'must be a valid IPv4 address')]],
  ['an IPv4 address in an IPv6 slice', { addressType: 'IPv6', endpoints: [ep(['10.0.0.1'])] }, [invalid('endpoints[0].addresses[0]', '10.0.0.1', 'must be a valid IPv6 address')]],
  ['a host name in an IPv4 slice', { endpoints: [ep(['web'])] }, [
    invalid('endpoints[0].addresses[0]', 'web', 'must be a valid IPv4 address'),
    invalid('endpoints[0].addresses[0]', 'web', 'must be a valid IP address'),
  ]],
  ['special IPv4 ranges', { endpoints: [ep(['0.0.0.0', '127.0.0.1', '169.254.169.254', '224.0.0.5'])] }, [
    invalid('endpoints[0].addresses[0]', '0.0.0.0', 'may not be unspecified (0.0.0.0)'),
    invalid('endpoints[0].addresses[1]', '127.0.0.1', 'may not be in the loopback range (127.0.0.0/8, ::1/128)'),
    invalid('endpoints[0].addresses[2]', '169.254.169.254', 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'),
    invalid('endpoints[0].addresses[3]', '224.0.0.5', 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'),
  ]],
  ['special IPv6 ranges', { addressType: 'IPv6', endpoints: [ep(['::', '::1', 'fe80::1', 'ff02::1'])] }, [
    invalid('endpoints[0].addresses[0]', '::', 'may not be unspecified (::)'),
    invalid('endpoints[0].addresses[1]', '::1', 'may not be in the loopback range (127.0.0.0/8, ::1/128)'),
    invalid('endpoints[0].addresses[2]', 'fe80::1', 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'),
    invalid('endpoints[0].addresses[3]', 'ff02::1', 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'),
  ]],
  ['FQDN: one segment, capitals, empty', { addressType: 'FQDN', endpoints: [ep(['localhost', 'Web.Example.com', ''])] }, [
    invalid('endpoints[0].addresses[0]', 'localhost', 'should be a domain with at least two segments separated by dots'),
    invalid('endpoints[0].addresses[1]', 'Web.Example.com', SUBDOMAIN_MSG),
    required('endpoints[0].addresses[2]'),
  ]],
  ['a node name that is not a subdomain', { endpoints: [ep(['10.0.0.1'], { nodeName: 'Node_1' })] }, [invalid('endpoints[0].nodeName', 'Node_1', SUBDOMAIN_MSG)]],
  ['a host name that is not a DNS label', { endpoints: [ep(['10.0.0.1'], { hostname: 'pod.0' })] }, [invalid('endpoints[0].hostname', 'pod.0', LABEL_MSG)]],
  ['zone hints: duplicate and invalid names', { endpoints: [ep(['10.0.0.1'], { hints: { forZones: [{ name: 'a' }, { name: 'a' }, { name: 'bad zone' }] } })] }, [
    duplicate('endpoints[0].hints.forZones[1].name', 'a'),
    invalid('endpoints[0].hints.forZones[2].name', 'bad zone', LABEL_VALUE_MSG),
  ]],
  ['nine zone hints', { endpoints: [ep(['10.0.0.1'], { hints: { forZones: Array.from({ length: 9 }, (_, i) => ({ name: `z${i}` })) } })] }, [
    tooMany('endpoints[0].hints.forZones', 9, 8),
  ]],
  ['a port name that is not a DNS label', { ports: [{ name: 'HTTP', port: 80 }] }, [invalid('ports[0].name', 'HTTP', LABEL_MSG)]],
  ['duplicate port names (two unnamed ports too)', { ports: [PORT, { ...PORT, port: 8080 }, {}, { port: 9 }] }, [duplicate('ports[1].name', 'http'), duplicate('ports[3].name', '')]],
  ['an unsupported protocol', { ports: [{ ...PORT, protocol: 'ICMP' }] }, [
    { reason: 'FieldValueNotSupported', field: 'ports[0].protocol', message: 'Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"' },
  ]],
  ['an appProtocol that is not a qualified name', { ports: [{ ...PORT, appProtocol: 'a/b/c' }] }, [
    invalid('ports[0].appProtocol', 'a/b/c', "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"),
  ]],
  ['101 ports (only that cause)', { ports: Array.from({ length: 101 }, () => ({ name: 'x' })) }, [tooMany('ports', 101, 100)]],
  ['an address type that is not a string', { addressType: 4 }, [
    { reason: 'FieldValueTypeInvalid', field: 'addressType', message: 'Invalid value: "integer": must be of type string: "integer"' },
    required('addressType'),
  ]],
];

describe('EndpointSlice validation on create', () => {
  test.each(cases)('%s', (_name, fields, expected) => {
    expect(createAs(endpointSlices, slice(fields)).causes).toEqual(expected);
  });

  test('ports default to an empty name and TCP', () => {
    const { obj } = createAs(endpointSlices, slice({ ports: [{ port: 53, protocol: 'UDP' }, { port: 80 }] }));
    expect(obj.ports).toEqual([{ name: '', port: 53, protocol: 'UDP' }, { name: '', port: 80, protocol: 'TCP' }]);
  });

  test('a create drops the deprecated topology silently', () => {
    const { obj, causes } = createAs(endpointSlices, slice({ endpoints: [ep(['10.0.0.1'], { deprecatedTopology: { 'bad key!': 'x' } })] }));
    expect(causes).toEqual([]);
    expect(obj.endpoints).toEqual([{ addresses: ['10.0.0.1'] }]);
  });
});

describe('EndpointSlice updates', () => {
  const stored = createAs(endpointSlices, slice()).obj;

  test('endpoints and ports may change', () => {
    const next = { ...stored, endpoints: [ep(['10.0.0.2']), ep(['10.0.0.3'])], ports: [] };
    expect(updateAs(endpointSlices, next, stored).causes).toEqual([]);
  });

  test.each([
    ['IPv4 -> IPv6', 'IPv6', [ep(['fd00::1'])]],
    ['IPv4 -> FQDN', 'FQDN', [ep(['web.example.com'])]],
  ])('the address type is immutable: %s', (_n, addressType, endpoints) => {
    expect(updateAs(endpointSlices, { ...stored, addressType, endpoints }, stored).causes).toEqual([
      invalid('addressType', addressType, 'field is immutable'),
    ]);
  });

  test('a label change bumps the generation; other metadata does not', () => {
    const base = { ...stored, metadata: { ...stored.metadata, generation: 4 } };
    const relabeled = { ...base, metadata: { ...base.metadata, labels: { 'kubernetes.io/service-name': 'api' } } };
    expect(updateAs(endpointSlices, relabeled, base).obj.metadata.generation).toBe(5);
    const annotated = { ...base, metadata: { ...base.metadata, annotations: { a: 'b' } } };
    expect(updateAs(endpointSlices, annotated, base).obj.metadata.generation).toBe(4);
  });

  test('an update still validates the whole slice', () => {
    expect(updateAs(endpointSlices, { ...stored, addressType: '', endpoints: [ep([])] }, stored).causes).toEqual([
      required('addressType'),
      required('endpoints[0].addresses', 'must contain at least 1 address'),
      invalid('addressType', '', 'field is immutable'),
    ]);
  });

  test('a stored topology sent back with unchanged endpoints is kept; changing the endpoints drops it', () => {
    const withTopology = { ...stored, endpoints: [ep(['10.0.0.1'], { deprecatedTopology: { rack: 'r1' } })] };
    expect(updateAs(endpointSlices, withTopology, withTopology).obj.endpoints).toEqual(withTopology.endpoints);
    const moved = { ...withTopology, endpoints: [ep(['10.0.0.9'], { deprecatedTopology: { rack: 'r1' } })] };
    expect(updateAs(endpointSlices, moved, withTopology).obj.endpoints).toEqual([{ addresses: ['10.0.0.9'] }]);
  });
});

describe('EndpointSlice table', () => {
  const now = new Date('2026-01-01T01:00:00Z');
  const meta = { name: 'web-abc12', namespace: 'default', creationTimestamp: '2026-01-01T00:00:00Z' };
  const cells = (fields: Record<string, unknown>) => endpointSlices.table.cells({ ...slice(fields), metadata: meta }, now);

  test('columns as kubectl shows them', () => {
    expect(endpointSlices.table.columns.map((c) => [c.name, c.type, c.format, c.priority])).toEqual([
      ['Name', 'string', 'name', 0],
      ['AddressType', 'string', '', 0],
      ['Ports', 'string', '', 0],
      ['Endpoints', 'string', '', 0],
      ['Age', 'string', '', 0],
    ]);
  });

  test('cells: ports by number, else name, else *; addresses across endpoints', () => {
    expect(cells({ ports: [PORT, { name: 'metrics' }, {}], endpoints: [ep(['10.0.0.1', '10.0.0.2']), ep(['10.0.0.3'])] })).toEqual([
      'web-abc12', 'IPv4', '80,metrics,*', '10.0.0.1,10.0.0.2,10.0.0.3', '60m',
    ]);
  });

  test('more than three: "+ N more..."; none: <unset>', () => {
    const ports = [1, 2, 3, 4, 5].map((port) => ({ port }));
    const endpoints = [ep(['10.0.0.1', '10.0.0.2']), ep(['10.0.0.3', '10.0.0.4'])];
    expect(cells({ ports, endpoints }).slice(2, 4)).toEqual(['1,2,3 + 2 more...', '10.0.0.1,10.0.0.2,10.0.0.3 + 1 more...']);
    expect(cells({ ports: [], endpoints: [] }).slice(2, 4)).toEqual(['<unset>', '<unset>']);
  });
});

describe('EndpointSlice schema', () => {
  const props = (s: Schema | undefined): Record<string, Schema> => s!.properties!;
  test('protobuf numbers of k8s.io/api/discovery/v1', () => {
    const top = endpointSlices.schema;
    expect(top.protobuf).toEqual({ metadata: 1, endpoints: 2, ports: 3, addressType: 4 });
    const endpoint = props(top).endpoints!.items!;
    expect(endpoint.protobuf).toEqual({
      addresses: 1,
      conditions: 2,
      hostname: { tag: 3, pointer: true },
      targetRef: { tag: 4, pointer: true },
      deprecatedTopology: 5,
      nodeName: { tag: 6, pointer: true },
      zone: { tag: 7, pointer: true },
      hints: { tag: 8, pointer: true },
    });
    expect(props(endpoint).conditions!.protobuf).toEqual({ ready: { tag: 1, pointer: true }, serving: { tag: 2, pointer: true }, terminating: { tag: 3, pointer: true } });
    expect(props(endpoint).hints!.protobuf).toEqual({ forZones: 1 });
    expect(props(top).ports!.items!.protobuf).toEqual({ name: { tag: 1, pointer: true }, protocol: { tag: 2, pointer: true }, port: { tag: 3, pointer: true }, appProtocol: { tag: 4, pointer: true } });
  });
});
