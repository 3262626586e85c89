/**
 * ServiceCIDR through the registry's create, update and status paths (no store): Kubernetes v1.32's
 * validation of the blocks with its field paths and messages, the immutable blocks, the status reset on
 * create and kept by the main endpoint, the document's condition rules on status writes, and the table.
 */
import type { KubeObject } from '../../../api/object.js';
import type { KindStrategy } from '../../kind-strategy.js';
import { createAs, updateAs, updateStatusAs, type Cause } from '../storage/testing.js';
import { serviceCIDRs } from './servicecidr.js';

const cidr = (cidrs?: unknown[], extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'networking.platform.io/v1beta1',
  kind: 'ServiceCIDR',
  metadata: { name: 'kubernetes' },
  ...(cidrs === undefined ? {} : { spec: { cidrs } }),
  ...extra,
});

const invalid = (field: string, value: unknown, detail: string): Cause => ({
  reason: 'FieldValueInvalid',
  field,
  message: `Invalid value: ${typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value)}: ${detail}`,
});
const required = (field: string, detail = ''): Cause => ({ reason: 'FieldValueRequired', field, message: detail === '' ? 'Required value' : `Required value: ${detail}` });
const FAMILIES = 'may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64';
const NOT_NETWORK = "wrong CIDR format, IP doesn't match network IP address";
const NOT_CANONICAL = 'CIDR not in RFC 5952 canonical format';

const cases: [string, unknown[] | undefined, Cause[]][] = [
  ['one IPv4 block', ['10.96.0.0/12'], []],
  ['one IPv6 block', ['2001:db8::/64'], []],
  ['one block of each family', ['10.96.0.0/12', 'fd00:10:96::/112'], []],
  ['the whole IPv4 space', ['0.0.0.0/0'], []],
  ['an IPv4-mapped IPv6 block (an IPv6 prefix for netip)', ['::ffff:10.0.0.0/104'], []],
  ['no spec', undefined, [required('spec.cidrs', 'at least one CIDR required')]],
  ['an empty list', [], [required('spec.cidrs', 'at least one CIDR required')]],
  ['three blocks', ['10.0.0.0/8', '2001:db8::/64', '192.168.0.0/16'], [invalid('spec.cidrs', ['10.0.0.0/8', '2001:db8::/64', '192.168.0.0/16'], 'may only hold up to 2 values')]],
  ['two IPv4 blocks', ['10.0.0.0/8', '192.168.0.0/16'], [invalid('spec.cidrs', ['10.0.0.0/8', '192.168.0.0/16'], FAMILIES)]],
  ['two IPv6 blocks', ['2001:db8::/64', 'fd00::/64'], [invalid('spec.cidrs', ['2001:db8::/64', 'fd00::/64'], FAMILIES)]],
  ['an IPv4 block and an IPv4-mapped IPv6 one (both IPv4 for Go\'s net package)', ['10.0.0.0/8', '::ffff:10.0.0.0/104'], [
    invalid('spec.cidrs', ['10.0.0.0/8', '::ffff:10.0.0.0/104'], FAMILIES),
  ]],
  ['two blocks, one not a CIDR', ['bad', '2001:db8::/64'], [invalid('spec.cidrs', ['bad', '2001:db8::/64'], FAMILIES)]],
  ['host bits set', ['10.96.0.1/12'], [invalid('spec.cidrs[0]', '10.96.0.1/12', NOT_NETWORK)]],
  ['no prefix length', ['10.96.0.0'], [invalid('spec.cidrs[0]', '10.96.0.0', 'netip.ParsePrefix("10.96.0.0"): no \'/\'')]],
  ['an octet with a leading zero', ['010.96.0.0/12'], [
    invalid('spec.cidrs[0]', '010.96.0.0/12', 'netip.ParsePrefix("010.96.0.0/12"): ParseAddr("010.96.0.0"): IPv4 field has octet with leading zero'),
  ]],
  ['an octet over 255', ['10.0.0.256/32'], [invalid('spec.cidrs[0]', '10.0.0.256/32', 'netip.ParsePrefix("10.0.0.256/32"): ParseAddr("10.0.0.256"): IPv4 field has value >255')]],
  ['three octets', ['10.0.0/8'], [invalid('spec.cidrs[0]', '10.0.0/8', 'netip.ParsePrefix("10.0.0/8"): ParseAddr("10.0.0"): IPv4 address too short')]],
  ['a prefix length over 32', ['10.0.0.0/33'], [invalid('spec.cidrs[0]', '10.0.0.0/33', 'netip.ParsePrefix("10.0.0.0/33"): prefix length out of range')]],
  ['a prefix length with a leading zero', ['10.0.0.0/08'], [invalid('spec.cidrs[0]', '10.0.0.0/08', 'netip.ParsePrefix("10.0.0.0/08"): bad bits after slash: "08"')]],
  ['an IPv6 block in capitals', ['2001:DB8::/64'], [invalid('spec.cidrs[0]', '2001:DB8::/64', NOT_CANONICAL)]],
  ['an IPv6 block with host bits, not canonical', ['2001:db8:0:0::1/64'], [
    invalid('spec.cidrs[0]', '2001:db8:0:0::1/64', NOT_NETWORK),
    invalid('spec.cidrs[0]', '2001:db8:0:0::1/64', NOT_CANONICAL),
  ]],
  ['an IPv6 block with a zone', ['fe80::%eth0/64'], [invalid('spec.cidrs[0]', 'fe80::%eth0/64', 'netip.ParsePrefix("fe80::%eth0/64"): IPv6 zones cannot be present in a prefix')]],
  ['the second block of two is wrong', ['10.96.0.0/12', '2001:db8::1/64'], [invalid('spec.cidrs[1]', '2001:db8::1/64', NOT_NETWORK)]],
  ['an IPv6 group of five digits', ['2001:db8:00000::/64'], [
    invalid('spec.cidrs[0]', '2001:db8:00000::/64', 'netip.ParsePrefix("2001:db8:00000::/64"): ParseAddr("2001:db8:00000::"): each group must have 4 or less digits (at "00000::")'),
  ]],
];

describe('ServiceCIDR validation on create', () => {
  test.each(cases)('%s', (_name, cidrs, expected) => {
    expect(createAs(serviceCIDRs, cidr(cidrs)).causes).toEqual(expected);
  });

  test('a create starts from an empty status, whatever it sends', () => {
    const { obj, causes } = createAs(serviceCIDRs, cidr(['10.96.0.0/12'], { status: { conditions: [{ type: 'Ready', status: 'Maybe' }] } }));
    expect(causes).toEqual([]);
    expect(obj.status).toEqual({});
  });
});

describe('ServiceCIDR updates', () => {
  const stored: KubeObject = {
    ...createAs(serviceCIDRs, cidr(['10.96.0.0/12'])).obj,
    status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }] },
  };

  test('metadata may change; the status sent is replaced by the stored one', () => {
    const { obj, causes } = updateAs(serviceCIDRs, { ...stored, metadata: { ...stored.metadata, labels: { a: 'b' } }, status: {} }, stored);
    expect(causes).toEqual([]);
    expect(obj.status).toEqual(stored.status);
  });

  test('the blocks are immutable', () => {
    expect(updateAs(serviceCIDRs, { ...stored, spec: { cidrs: ['10.97.0.0/16'] } }, stored).causes).toEqual([
      invalid('spec.cidrs', ['10.97.0.0/16'], 'field is immutable'),
    ]);
  });

  test('a second family cannot be added (Kubernetes 1.32)', () => {
    expect(updateAs(serviceCIDRs, { ...stored, spec: { cidrs: ['10.96.0.0/12', '2001:db8::/64'] } }, stored).causes).toEqual([
      invalid('spec.cidrs', ['10.96.0.0/12', '2001:db8::/64'], 'field is immutable'),
    ]);
  });

  test('the blocks cannot be removed', () => {
    expect(updateAs(serviceCIDRs, { ...stored, spec: {} }, stored).causes).toEqual([invalid('spec.cidrs', [], 'field is immutable')]);
  });
});

describe('ServiceCIDR status writes', () => {
  const stored = createAs(serviceCIDRs, cidr(['10.96.0.0/12'])).obj;
  const ready = { type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: '2026-01-01T00:00:00Z', observedGeneration: 1 };
  const write = (conditions: Record<string, unknown>[]): Cause[] => updateStatusAs(serviceCIDRs, { ...stored, status: { conditions } }, stored).causes;
  const REASON_ERROR =
    "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used for validation is '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')";

  const statusCases: [string, Record<string, unknown>[], Cause[]][] = [
    ['a Ready condition', [ready], []],
    ['a domain-prefixed type and a False status', [{ ...ready, type: 'example.com/Overlaps', status: 'False' }], []],
    ['Unknown status', [{ ...ready, status: 'Unknown' }], []],
    ['a status outside True, False, Unknown', [{ ...ready, status: 'Maybe' }], [
      { reason: 'FieldValueNotSupported', field: 'status.conditions[0].status', message: 'Unsupported value: "Maybe": supported values: "False", "True", "Unknown"' },
    ]],
    ['no reason', [{ ...ready, reason: '' }], [required('status.conditions[0].reason', 'must be set')]],
    ['a reason with spaces', [{ ...ready, reason: 'Not ready' }], [invalid('status.conditions[0].reason', 'Not ready', REASON_ERROR)]],
    ['no lastTransitionTime', [{ ...ready, lastTransitionTime: undefined }], [required('status.conditions[0].lastTransitionTime', 'must be set')]],
    ['a negative observedGeneration', [{ ...ready, observedGeneration: -1 }], [invalid('status.conditions[0].observedGeneration', -1, 'must be greater than or equal to zero')]],
    ['a type that is not a qualified name', [{ ...ready, type: 'Ready!' }], [
      invalid('status.conditions[0].type', 'Ready!', "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"),
    ]],
    // The schema's list-map keys first, then metav1's unique types.
    ['two conditions of one type', [ready, { ...ready, status: 'False' }], [
      { reason: 'FieldValueDuplicate', field: 'status.conditions[1]', message: 'Duplicate value: {"type":"Ready"}' },
      { reason: 'FieldValueDuplicate', field: 'status.conditions[1].type', message: 'Duplicate value: "Ready"' },
    ]],
  ];

  test.each(statusCases)('%s', (_name, conditions, expected) => {
    expect(write(conditions)).toEqual(expected);
  });

  test('a status write keeps the stored spec', () => {
    const { obj, causes } = updateStatusAs(serviceCIDRs, { ...stored, spec: { cidrs: ['192.168.0.0/16'] }, status: { conditions: [ready] } }, stored);
    expect(causes).toEqual([]);
    expect(obj.spec).toEqual({ cidrs: ['10.96.0.0/12'] });
    expect(obj.status).toEqual({ conditions: [ready] });
  });
});

describe('ServiceCIDR identity and table', () => {
  test('cluster-scoped beta kind of the networking group with a status sub-resource', () => {
    expect(serviceCIDRs).toEqual(expect.objectContaining({ groupPrefix: 'networking', version: 'v1beta1', namespaced: false, subresources: ['status'] }));
    expect((serviceCIDRs as KindStrategy).deleteReturnsObject).toBeUndefined();
  });

  test('NAME, CIDRS (joined by commas), AGE', () => {
    const t = serviceCIDRs.table;
    expect(t.columns.map((c) => c.name)).toEqual(['Name', 'CIDRs', 'Age']);
    const obj = { ...cidr(['10.96.0.0/12', 'fd00::/112']), metadata: { name: 'kubernetes', creationTimestamp: '2026-01-01T00:00:00Z' } };
    expect(t.cells(obj, new Date('2026-01-01T00:05:00Z'))).toEqual(['kubernetes', '10.96.0.0/12,fd00::/112', '5m']);
  });
});
