/** Tables for the libraries with types of their own: quantity, url, ip, cidr, format, authorizer. */
import { CelEvalError } from '../errors.js';
import { CelOpaque, Optional, type CelValue } from '../values/value.js';
import { authzLibrary, authzSelectorsLibrary, CelAuthorizer, type AuthorizerLike, type AuthzAttributes } from './authz.js';
import { cidrLibrary } from './cidr.js';
import { formatLibrary } from './formats.js';
import { ipLibrary } from './ip.js';
import type { CelLibrary } from './library.js';
import { quantityLibrary } from './quantity.js';
import { urlsLibrary } from './urls.js';

const opaque = (v: CelValue): CelOpaque => v as CelOpaque;

function call(lib: CelLibrary, signature: string, ...args: CelValue[]): CelValue {
  const o = lib.overloads.find((x) => x.signature === signature);
  if (!o) throw new Error(`no overload ${signature}`);
  return o.impl(...args);
}
const Q = 'kubernetes.Quantity';
const q = (s: string) => call(quantityLibrary, `quantity(string): ${Q}`, s);
const qm = (recv: string, member: string, ...args: CelValue[]) => call(quantityLibrary, member, q(recv), ...args);

describe('quantity library', () => {
  // Sources: Kubernetes' quantity.go doc examples; overflow rows: Kubernetes' AsInt64 refusing values beyond int64.
  it.each([
    ['isQuantity(string): bool', '1.3G', true],
    ['isQuantity(string): bool', '1.3Gi', true],
    ['isQuantity(string): bool', '1,3G', false],
    ['isQuantity(string): bool', '10000k', true],
    ['isQuantity(string): bool', '200K', false],
    ['isQuantity(string): bool', 'Three', false],
    ['isQuantity(string): bool', 'Mi', false],
  ] as Array<[string, string, boolean]>)('%s %p', (sig, arg, want) => expect(call(quantityLibrary, sig, arg)).toBe(want));

  it('members', () => {
    expect(() => q('200K')).toThrow(CelEvalError);
    expect(qm('50k', `${Q}.isInteger(): bool`)).toBe(true);
    expect(qm('50', `${Q}.isInteger(): bool`)).toBe(true);
    expect(qm('50m', `${Q}.isInteger(): bool`)).toBe(false);
    expect(qm('9999999999999999999999999999999999999G', `${Q}.isInteger(): bool`)).toBe(false); // beyond int64
    expect(qm('50k', `${Q}.asInteger(): int`)).toBe(50000n);
    expect(() => qm('50m', `${Q}.asInteger(): int`)).toThrow(new CelEvalError('cannot convert value to integer'));
    expect(() => qm('9999999999999999999999999999999999999G', `${Q}.asInteger(): int`)).toThrow(new CelEvalError('cannot convert value to integer'));
    expect(qm('9223372036854775807', `${Q}.asInteger(): int`)).toBe(2n ** 63n - 1n);
    // Overflow by arithmetic: the sum is exact, only the conversion refuses it.
    const big = call(quantityLibrary, `${Q}.add(int): ${Q}`, q('9223372036854775807'), 1n);
    expect(call(quantityLibrary, `${Q}.isInteger(): bool`, big)).toBe(false);
    expect(() => call(quantityLibrary, `${Q}.asInteger(): int`, big)).toThrow(new CelEvalError('cannot convert value to integer'));
    expect(qm('50.703k', `${Q}.asApproximateFloat(): double`)).toBeCloseTo(50703);
    expect(qm('1Gi', `${Q}.sign(): int`)).toBe(1n);
    expect(qm('-1Gi', `${Q}.sign(): int`)).toBe(-1n);
    expect(qm('0', `${Q}.sign(): int`)).toBe(0n);
    expect(opaque(call(quantityLibrary, `${Q}.add(${Q}): ${Q}`, q('50k'), q('20'))).equals(opaque(q('50.02k')))).toBe(true);
    expect((call(quantityLibrary, `${Q}.sub(int): ${Q}`, q('50k'), 20n) as never as { toString(): string }).toString()).toBe('49980');
    expect(qm('50M', `${Q}.isGreaterThan(${Q}): bool`, q('100M'))).toBe(false);
    expect(qm('50M', `${Q}.isLessThan(${Q}): bool`, q('100M'))).toBe(true);
    expect(qm('200M', `${Q}.compareTo(${Q}): int`, q('0.2G'))).toBe(0n);
    expect(qm('50M', `${Q}.compareTo(${Q}): int`, q('50Mi'))).toBe(-1n);
    expect(opaque(q('1')).equals(opaque(q('1000m')))).toBe(true); // quantity('1') == quantity('1000m')
  });
});

describe('url library', () => {
  const u = (s: string) => call(urlsLibrary, 'url(string): kubernetes.URL', s);
  const get = (s: string, m: string) => call(urlsLibrary, `kubernetes.URL.${m}`, u(s));
  // Sources: Kubernetes' urls.go doc examples.
  it.each([
    ['https://example.com:80/path?query=val#fragment', true],
    ['/absolute-path', true],
    ['https://a:b:c/', false],
    ['../relative-path', false],
    ['', false],
    ['https://exa mple.com/', false],
    ['https://example.com/%zz', false],
  ])('isURL(%p) is %p', (s, want) => expect(call(urlsLibrary, 'isURL(string): bool', s)).toBe(want));

  it('accessors', () => {
    expect(get('https://example.com/', 'getScheme(): string')).toBe('https');
    expect(get('https://example.com:80/', 'getHost(): string')).toBe('example.com:80');
    expect(get('https://[::1]:80/', 'getHost(): string')).toBe('[::1]:80');
    expect(get('https://[::1]:80/', 'getHostname(): string')).toBe('::1');
    expect(get('https://example.com:80/', 'getPort(): string')).toBe('80');
    expect(get('https://example.com/', 'getPort(): string')).toBe('');
    expect(get('https://example.com/path with spaces/', 'getEscapedPath(): string')).toBe('/path%20with%20spaces/');
    expect(get('https://example.com/path#frag', 'getEscapedPath(): string')).toBe('/path');
    const query = get('https://example.com/path?k1=a&k2=b&k2=c&k3', 'getQuery(): map<string, list<string>>') as never as import('../values/value.js').CelMap;
    expect([...query.keys()]).toEqual(['k1', 'k2', 'k3']);
    expect(query.get('k2')).toEqual(['b', 'c']);
    expect(query.get('k3')).toEqual(['']);
    expect(() => u('../relative-path')).toThrow(new CelEvalError('URL parse error during conversion from string: parse "../relative-path": invalid URI for request'));
    expect(() => u('https://a:b:c/')).toThrow(new CelEvalError('URL parse error during conversion from string: parse "https://a:b:c/": invalid port ":c" after host'));
  });
});

describe('ip and cidr libraries', () => {
  const ip = (s: string) => call(ipLibrary, 'ip(string): net.IP', s);
  const cidr = (s: string) => call(cidrLibrary, 'cidr(string): net.CIDR', s);
  // Sources: Kubernetes' ip.go / cidr.go doc examples; strictness rows from their parse rules.
  it.each([
    ['127.0.0.1', true],
    ['1.2.3.4', true],
    ['::1', true],
    ['fe80::1%eth0', false], // zones refused
    ['::ffff:1.2.3.4', false], // IPv4-mapped refused
    ['01.2.3.4', false], // leading zero refused
    ['256.1.1.1', false],
    ['1.2.3', false],
    ['::1::2', false],
    ['1.2.3.4/24', false],
  ])('isIP(%p) is %p', (s, want) => expect(call(ipLibrary, 'isIP(string): bool', s)).toBe(want));

  it('ip members and messages', () => {
    expect(() => ip('fe80::1%eth0')).toThrow(new CelEvalError('IP address "fe80::1%eth0" with zone value is not allowed'));
    expect(() => ip('::ffff:1.2.3.4')).toThrow(new CelEvalError('IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed'));
    expect(() => ip('01.2.3.4')).toThrow(
      new CelEvalError('IP Address "01.2.3.4" parse error during conversion from string: ParseAddr("01.2.3.4"): IPv4 field has octet with leading zero'),
    );
    expect(call(ipLibrary, 'net.IP.family(): int', ip('127.0.0.1'))).toBe(4n);
    expect(call(ipLibrary, 'net.IP.family(): int', ip('::1'))).toBe(6n);
    expect(call(ipLibrary, 'net.IP.isLoopback(): bool', ip('127.0.0.1'))).toBe(true);
    expect(call(ipLibrary, 'net.IP.isUnspecified(): bool', ip('::'))).toBe(true);
    expect(call(ipLibrary, 'net.IP.isLinkLocalMulticast(): bool', ip('224.0.0.1'))).toBe(true);
    expect(call(ipLibrary, 'net.IP.isLinkLocalMulticast(): bool', ip('ff02::1'))).toBe(true);
    expect(call(ipLibrary, 'net.IP.isLinkLocalUnicast(): bool', ip('fe80::1'))).toBe(true);
    expect(call(ipLibrary, 'net.IP.isGlobalUnicast(): bool', ip('192.168.0.1'))).toBe(true);
    expect(call(ipLibrary, 'net.IP.isGlobalUnicast(): bool', ip('255.255.255.255'))).toBe(false);
    expect(call(ipLibrary, 'ip.isCanonical(string): bool', '2001:db8::abcd')).toBe(true);
    expect(call(ipLibrary, 'ip.isCanonical(string): bool', '2001:DB8::ABCD')).toBe(false);
    expect(call(ipLibrary, 'ip.isCanonical(string): bool', '2001:db8:0:0:0:0:0:abcd')).toBe(false);
    expect(call(ipLibrary, 'string(net.IP): string', ip('2001:0db8:0:0:1:0:0:1'))).toBe('2001:db8::1:0:0:1');
    expect(opaque(ip('::1')).equals(opaque(ip('0:0::1')))).toBe(true);
  });

  it('cidr members and messages', () => {
    expect(call(cidrLibrary, 'isCIDR(string): bool', '10.0.0.0/8')).toBe(true);
    expect(call(cidrLibrary, 'isCIDR(string): bool', '10.0.0.0')).toBe(false);
    expect(call(cidrLibrary, 'isCIDR(string): bool', '10.0.0.0/33')).toBe(false);
    expect(call(cidrLibrary, 'isCIDR(string): bool', '::ffff:1.2.3.4/120')).toBe(false);
    expect(() => cidr('10.0.0.0/08')).toThrow(
      new CelEvalError('network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("10.0.0.0/08"): bad bits after slash: "08"'),
    );
    expect(call(cidrLibrary, 'net.CIDR.containsIP(string): bool', cidr('192.168.0.0/24'), '192.168.0.1')).toBe(true);
    expect(call(cidrLibrary, 'net.CIDR.containsIP(string): bool', cidr('192.168.0.0/24'), '192.168.1.1')).toBe(false);
    expect(call(cidrLibrary, 'net.CIDR.containsIP(net.IP): bool', cidr('::/0'), ip('1.2.3.4'))).toBe(false); // families never mix
    expect(call(cidrLibrary, 'net.CIDR.containsCIDR(string): bool', cidr('192.168.0.0/24'), '192.168.0.0/25')).toBe(true);
    expect(call(cidrLibrary, 'net.CIDR.containsCIDR(string): bool', cidr('192.168.0.0/24'), '192.168.0.0/23')).toBe(false);
    expect(call(cidrLibrary, 'string(net.CIDR): string', call(cidrLibrary, 'net.CIDR.masked(): net.CIDR', cidr('192.168.0.1/24')))).toBe('192.168.0.0/24');
    expect(call(ipLibrary, 'string(net.IP): string', call(cidrLibrary, 'net.CIDR.ip(): net.IP', cidr('192.168.0.1/24')))).toBe('192.168.0.1');
    expect(call(cidrLibrary, 'net.CIDR.prefixLength(): int', cidr('::1/128'))).toBe(128n);
    const cost = cidrLibrary.overloads.find((o) => o.signature === 'net.CIDR.containsIP(string): bool')!.cost!;
    expect(cost([cidr('192.168.0.0/24'), '192.168.0.1'])).toBe(1 + 2); // ceil(2*3*0.1) + ceil(11*0.1)
  });
});

describe('format library', () => {
  const validate = (name: string, s: string) => {
    const fmt = call(formatLibrary, `format.${name}(): kubernetes.NamedFormat`);
    return call(formatLibrary, 'kubernetes.NamedFormat.validate(string): optional<list<string>>', fmt, s) as Optional;
  };
  // Sources: Kubernetes' format.go examples and the apimachinery validation messages.
  it('validates', () => {
    expect(validate('dns1123Label', 'my-label-name')).toBe(Optional.NONE);
    expect(validate('dns1123Label', 'My_Label').value).toEqual([
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ]);
    expect(validate('dns1123Subdomain', 'apiextensions.k8s.io')).toBe(Optional.NONE);
    expect(validate('qualifiedName', 'apiextensions.k8s.io/v1beta1')).toBe(Optional.NONE);
    expect(validate('dns1123LabelPrefix', 'my-label-prefix-')).toBe(Optional.NONE);
    expect(validate('labelValue', '')).toBe(Optional.NONE);
    expect(validate('uri', 'http://example.com')).toBe(Optional.NONE);
    expect(validate('uri', 'example')).toEqual(Optional.of(['parse "example": invalid URI for request']));
    expect(validate('uuid', '123e4567-e89b-12d3-a456-426614174000')).toBe(Optional.NONE);
    expect(validate('uuid', 'nope').value).toEqual(['does not match the UUID format']);
    expect(validate('byte', 'aGVsbG8=')).toBe(Optional.NONE);
    expect(validate('byte', 'aGVsbG8').value).toEqual(['invalid base64']);
    expect(validate('date', '2021-01-01')).toBe(Optional.NONE);
    expect(validate('date', '2021-02-30').value).toEqual(['invalid date']);
    expect(validate('datetime', '2021-01-01T00:00:00Z')).toBe(Optional.NONE);
    expect(validate('datetime', '2021-01-01').value).toEqual(['invalid datetime']);
    expect((call(formatLibrary, 'format.named(string): optional<kubernetes.NamedFormat>', 'dns1123Label') as Optional).hasValue).toBe(true);
    expect(call(formatLibrary, 'format.named(string): optional<kubernetes.NamedFormat>', 'nope')).toBe(Optional.NONE);
  });
});

describe('authorizer library', () => {
  // A fake authorizer: allows `get` of pods in ns1 to alice, errors for the "broken" group.
  const seen: AuthzAttributes[] = [];
  const fake: AuthorizerLike = {
    authorize(a) {
      seen.push(a);
      if (a.apiGroup === 'broken') return { decision: 'no-opinion', reason: '', error: 'webhook down' };
      if (!a.isResourceRequest) return a.path === '/healthz' && a.verb === 'get' ? { decision: 'allow', reason: 'health' } : { decision: 'deny', reason: 'no path' };
      const ok = a.user.name === 'alice' && a.resource === 'pods' && a.namespace === 'ns1' && a.verb === 'get';
      return { decision: ok ? 'allow' : 'no-opinion', reason: ok ? 'rbac: allowed' : '' };
    },
  };
  const A = 'kubernetes.authorization';
  const authz = new CelAuthorizer(fake, { name: 'alice', uid: '1', groups: ['system:authenticated'] });
  const c = (sig: string, ...args: CelValue[]) => call(authzLibrary, sig, ...args);
  const resourceCheck = (a: CelValue) =>
    c(`${A}.ResourceCheck.namespace(string): ${A}.ResourceCheck`, c(`${A}.GroupCheck.resource(string): ${A}.ResourceCheck`, c(`${A}.Authorizer.group(string): ${A}.GroupCheck`, a, ''), 'pods'), 'ns1');

  it('checks resources, paths and service accounts through the interface (Kubernetes authz.go semantics)', () => {
    const d = c(`${A}.ResourceCheck.check(string): ${A}.Decision`, resourceCheck(authz), 'get');
    expect(c(`${A}.Decision.allowed(): bool`, d)).toBe(true);
    expect(c(`${A}.Decision.reason(): string`, d)).toBe('rbac: allowed');
    expect(seen.at(-1)).toMatchObject({ isResourceRequest: true, apiGroup: '', apiVersion: '*', resource: 'pods', namespace: 'ns1', verb: 'get' });
    const sa = c(`${A}.Authorizer.serviceAccount(string, string): ${A}.Authorizer`, authz, 'ns1', 'builder');
    expect(c(`${A}.Decision.allowed(): bool`, c(`${A}.ResourceCheck.check(string): ${A}.Decision`, resourceCheck(sa), 'get'))).toBe(false);
    expect(seen.at(-1)!.user).toEqual({ name: 'system:serviceaccount:ns1:builder', uid: '', groups: ['system:serviceaccounts', 'system:serviceaccounts:ns1'] });
    const p = c(`${A}.PathCheck.check(string): ${A}.Decision`, c(`${A}.Authorizer.path(string): ${A}.PathCheck`, authz, '/healthz'), 'GET');
    expect(c(`${A}.Decision.allowed(): bool`, p)).toBe(true); // HTTP verb lower-cased
    const broken = c(`${A}.ResourceCheck.check(string): ${A}.Decision`, c(`${A}.GroupCheck.resource(string): ${A}.ResourceCheck`, c(`${A}.Authorizer.group(string): ${A}.GroupCheck`, authz, 'broken'), 'x'), 'get');
    expect(c(`${A}.Decision.errored(): bool`, broken)).toBe(true);
    expect(c(`${A}.Decision.error(): string`, broken)).toBe('webhook down');
    const withSel = call(authzSelectorsLibrary, `${A}.ResourceCheck.labelSelector(string): ${A}.ResourceCheck`, resourceCheck(authz), 'app=x');
    c(`${A}.ResourceCheck.check(string): ${A}.Decision`, withSel, 'list');
    expect(seen.at(-1)!.labelSelector).toBe('app=x');
    expect(authzLibrary.overloads.find((o) => o.signature.endsWith('.check(string): kubernetes.authorization.Decision'))!.cost!([])).toBe(350000);
  });
});
