/**
 * IPAddress through the registry's create and update paths (no store): Kubernetes v1.32's name rule (a
 * canonical IP address, with Go netip's parse errors), the required parent reference and its members'
 * rules, the immutable parent reference, the table, and the helper the ClusterIP allocator builds its
 * IPAddress objects with.
 */
import type { KubeObject } from '../../../api/object.js';
import type { KindStrategy } from '../../kind-strategy.js';
import { naming } from '../../../naming/naming.js';
import { createAs, updateAs, type Cause } from '../storage/testing.js';
import { canonicalIP, ipAddressForService } from './ip-address-object.js';
import { ipAddresses } from './ipaddress.js';

const SERVICE_REF = { resource: 'services', namespace: 'default', name: 'web' };
const ip = (name: string, parentRef: Record<string, unknown> | null = SERVICE_REF): KubeObject => ({
  apiVersion: 'networking.platform.io/v1beta1',
  kind: 'IPAddress',
  metadata: { name },
  spec: parentRef === null ? {} : { parentRef },
});

const invalid = (field: string, value: unknown, detail: string): Cause => ({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${JSON.stringify(value)}: ${detail}` });
const required = (field: string): Cause => ({ reason: 'FieldValueRequired', field, message: 'Required value' });
const badName = (name: string, detail: string): Cause => invalid('metadata.name', name, detail);
const NOT_CANONICAL = 'must be a canonical format IP address';
const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

const cases: [string, KubeObject, Cause[]][] = [
  ['an IPv4 address of a Service', ip('10.96.0.10'), []],
  ['an IPv6 address', ip('2001:db8::1'), []],
  ['a full IPv6 address', ip('2001:db8:aaaa:bbbb:cccc:dddd:eeee:1'), []],
  ['the unspecified IPv6 address', ip('::'), []],
  ['two equal zero runs: the first is shortened', ip('2001:db8::1:0:0:1'), []],
  ['an IPv4-mapped IPv6 address (canonical for netip)', ip('::ffff:10.0.0.1'), []],
  ['a parent of another group, cluster-scoped', ip('10.0.0.2', { group: 'gateway.networking.example.com', resource: 'gateways', name: 'gw' }), []],
  ['an octet with a leading zero', ip('10.01.2.3'), [badName('10.01.2.3', 'ParseAddr("10.01.2.3"): IPv4 field has octet with leading zero')]],
  ['five octets', ip('10.0.0.1.5'), [badName('10.0.0.1.5', 'ParseAddr("10.0.0.1.5"): IPv4 address too long')]],
  ['not an address', ip('web'), [badName('web', 'ParseAddr("web"): unable to parse IP')]],
  ['an empty IPv4 field', ip('10..0.1'), [badName('10..0.1', 'ParseAddr("10..0.1"): IPv4 field must have at least one digit (at ".0.1")')]],
  ['nine IPv6 groups', ip('1:2:3:4:5:6:7:8:9'), [badName('1:2:3:4:5:6:7:8:9', 'ParseAddr("1:2:3:4:5:6:7:8:9"): trailing garbage after address (at "9")')]],
  ['two ellipses', ip('2001::db8::1'), [badName('2001::db8::1', 'ParseAddr("2001::db8::1"): multiple :: in address (at ":1")')]],
  ['zeros written out', ip('2001:db8:0:0:0::1'), [badName('2001:db8:0:0:0::1', NOT_CANONICAL)]],
  ['capital hex digits', ip('2001:DB8::1'), [badName('2001:DB8::1', NOT_CANONICAL)]],
  ['the shorter zero run shortened', ip('2001:db8:0:0:1::1'), [badName('2001:db8:0:0:1::1', NOT_CANONICAL)]],
  ['a single zero group shortened', ip('2001:db8::1:1:1:1:1'), [badName('2001:db8::1:1:1:1:1', NOT_CANONICAL)]],
  ['an IPv4-mapped address in hex', ip('::ffff:a00:1'), [badName('::ffff:a00:1', NOT_CANONICAL)]],
  ['no parent reference', ip('10.0.0.3', null), [required('spec.parentRef')]],
  ['an empty parent reference', ip('10.0.0.3', {}), [required('spec.parentRef.resource'), required('spec.parentRef.name')]],
  ['a group that is not a DNS subdomain', ip('10.0.0.3', { ...SERVICE_REF, group: 'Apps' }), [invalid('spec.parentRef.group', 'Apps', SUBDOMAIN_MSG)]],
  ['a resource of ..', ip('10.0.0.3', { ...SERVICE_REF, resource: '..' }), [invalid('spec.parentRef.resource', '..', "may not be '..'")]],
  ['a name with a slash', ip('10.0.0.3', { ...SERVICE_REF, name: 'a/b' }), [invalid('spec.parentRef.name', 'a/b', "may not contain '/'")]],
  ['a namespace with a percent sign', ip('10.0.0.3', { ...SERVICE_REF, namespace: 'a%b' }), [invalid('spec.parentRef.namespace', 'a%b', "may not contain '%'")]],
  ['a bad name and no parent', ip('10.0.0.03', null), [
    badName('10.0.0.03', 'ParseAddr("10.0.0.03"): IPv4 field has octet with leading zero'),
    required('spec.parentRef'),
  ]],
];

describe('IPAddress validation on create', () => {
  test.each(cases)('%s', (_name, obj, expected) => {
    expect(createAs(ipAddresses, obj).causes).toEqual(expected);
  });

  test('the object is stored as sent (no defaults added to the parent reference)', () => {
    expect(createAs(ipAddresses, ip('10.0.0.4')).obj.spec).toEqual({ parentRef: SERVICE_REF });
  });
});

describe('IPAddress updates', () => {
  const stored = createAs(ipAddresses, ip('10.0.0.5')).obj;

  test('labels may change', () => {
    expect(updateAs(ipAddresses, { ...stored, metadata: { ...stored.metadata, labels: { a: 'b' } } }, stored).causes).toEqual([]);
  });

  test('the parent reference is immutable', () => {
    const moved = { ...SERVICE_REF, name: 'other' };
    expect(updateAs(ipAddresses, { ...stored, spec: { parentRef: moved } }, stored).causes).toEqual([invalid('spec.parentRef', moved, 'field is immutable')]);
  });

  test('the parent reference cannot be removed', () => {
    expect(updateAs(ipAddresses, { ...stored, spec: {} }, stored).causes).toEqual([required('spec.parentRef'), invalid('spec.parentRef', null, 'field is immutable')]);
  });
});

describe('IPAddress identity and table', () => {
  test('cluster-scoped beta kind of the networking group without status', () => {
    expect(ipAddresses).toEqual(expect.objectContaining({ groupPrefix: 'networking', version: 'v1beta1', namespaced: false }));
    expect((ipAddresses as KindStrategy).subresources).toBeUndefined();
  });

  test('NAME and PARENTREF columns; the row also carries the age, as Kubernetes', () => {
    const t = ipAddresses.table;
    expect(t.columns.map((c) => c.name)).toEqual(['Name', 'ParentRef']);
    const at = (o: KubeObject): KubeObject => ({ ...o, metadata: { ...o.metadata, creationTimestamp: '2026-01-01T00:00:00Z' } });
    const now = new Date('2026-01-01T00:00:30Z');
    expect(t.cells(at(ip('10.0.0.6')), now)).toEqual(['10.0.0.6', 'services/default/web', '30s']);
    expect(t.cells(at(ip('10.0.0.7', { group: 'Gateway.Example.com', resource: 'Gateways', name: 'gw' })), now)).toEqual(['10.0.0.7', 'gateways.gateway.example.com/gw', '30s']);
    expect(t.cells(at(ip('10.0.0.8', null)), now)).toEqual(['10.0.0.8', '<none>', '30s']);
  });
});

describe('the allocator helper', () => {
  test('canonicalIP rewrites IPv6 to RFC 5952 and refuses what is not an address', () => {
    expect(canonicalIP('10.96.0.1')).toBe('10.96.0.1');
    expect(canonicalIP('2001:DB8:0:0:0:0:0:1')).toBe('2001:db8::1');
    expect(canonicalIP('fd00:0:0:1:0:0:0:0')).toBe('fd00:0:0:1::');
    expect(canonicalIP('010.0.0.1')).toBeUndefined();
    expect(canonicalIP('fe80::1%eth0')).toBeUndefined();
    expect(canonicalIP('')).toBeUndefined();
  });

  test('ipAddressForService builds a valid IPAddress of the naming\'s group', () => {
    const obj = ipAddressForService(naming('k8s.io'), '2001:db8:0::a', { namespace: 'default', name: 'kubernetes' });
    expect(obj).toEqual({
      apiVersion: 'networking.k8s.io/v1beta1',
      kind: 'IPAddress',
      metadata: { name: '2001:db8::a' },
      spec: { parentRef: { resource: 'services', namespace: 'default', name: 'kubernetes' } },
    });
    expect(createAs(ipAddresses, obj).causes).toEqual([]);
    expect(() => ipAddressForService(naming('platform.io'), 'nope', { namespace: 'a', name: 'b' })).toThrow(TypeError);
  });
});
