import { X509Certificate } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { goDefaultCipherSuites, insecureCipherSuiteNames, openSslCiphers, preferredCipherSuiteNames, validateCipherSuites } from './cipher-suites.js';
import { generateCa, generateServingCert } from './generate-certs.js';
import { parseNamedCertKey } from './named-cert-key.js';
import { toSan } from './sans.js';
import { buildNameMap, certificateNames, lookupServerName } from './sni-names.js';
import { needsSecurityLevel0, nodeTlsVersion, parseTlsVersion } from './tls-version.js';

const tls13 = 'TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_GCM_SHA256';

describe('TLS versions', () => {
  it('maps kube\'s names to Node\'s and needs security level 0 below TLS 1.2', () => {
    expect(parseTlsVersion('')).toBe('VersionTLS12');
    expect(['VersionTLS10', 'VersionTLS11', 'VersionTLS12', 'VersionTLS13'].map((n) => nodeTlsVersion(parseTlsVersion(n))))
      .toEqual(['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3']);
    expect(needsSecurityLevel0('VersionTLS11')).toBe(true);
    expect(needsSecurityLevel0('VersionTLS12')).toBe(false);
    expect(() => parseTlsVersion('VersionTLS1')).toThrow('unknown tls version "VersionTLS1"');
  });
});

describe('cipher suites', () => {
  it('lists kube 1.32\'s preferred and insecure names', () => {
    expect(preferredCipherSuiteNames()).toHaveLength(19);
    expect(insecureCipherSuiteNames()).toEqual([
      'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256', 'TLS_ECDHE_ECDSA_WITH_RC4_128_SHA', 'TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA',
      'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256', 'TLS_ECDHE_RSA_WITH_RC4_128_SHA', 'TLS_RSA_WITH_3DES_EDE_CBC_SHA',
      'TLS_RSA_WITH_AES_128_CBC_SHA256', 'TLS_RSA_WITH_RC4_128_SHA',
    ]);
    expect(() => validateCipherSuites(['TLS_RSA_WITH_AES_128_CBC_SHA', 'nope'])).toThrow("Cipher suite nope not supported or doesn't exist");
  });

  it('without the flag: Go\'s default suites, TLS 1.3 always on, and OpenSSL takes the list', () => {
    const c = openSslCiphers([]);
    expect(c.ciphers).toBe(`${tls13}:ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:`
      + 'ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:ECDHE-ECDSA-AES128-SHA:ECDHE-RSA-AES128-SHA:ECDHE-ECDSA-AES256-SHA:ECDHE-RSA-AES256-SHA');
    expect(goDefaultCipherSuites).toHaveLength(10);
    expect(c.insecure).toEqual([]);
    expect(() => createSecureContext({ ciphers: c.ciphers })).not.toThrow();
  });

  it('maps given names in order, drops duplicates (aliases), reports insecure and unavailable ones', () => {
    const c = openSslCiphers(['TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305', 'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256', 'TLS_RSA_WITH_RC4_128_SHA',
      'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256', 'TLS_AES_128_GCM_SHA256']);
    expect(c.ciphers).toBe(`${tls13}:ECDHE-RSA-CHACHA20-POLY1305:ECDHE-RSA-AES128-SHA256`);
    expect(c.insecure).toEqual(['TLS_RSA_WITH_RC4_128_SHA', 'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256']);
    // OpenSSL 3's default provider has no RC4.
    expect(c.unavailable).toEqual(['TLS_RSA_WITH_RC4_128_SHA']);
    expect(() => createSecureContext({ ciphers: c.ciphers })).not.toThrow();
  });

  it('TLS 1.3 names only: no TLS 1.2 suite (as Go), still a valid context; security level 0 for old minimums', () => {
    expect(openSslCiphers(['TLS_AES_128_GCM_SHA256']).ciphers).toBe(tls13);
    expect(() => createSecureContext({ ciphers: tls13 })).not.toThrow();
    expect(openSslCiphers(['TLS_RSA_WITH_AES_128_CBC_SHA'], { securityLevel0: true }).ciphers).toBe(`${tls13}:AES128-SHA:@SECLEVEL=0`);
  });
});

describe('--tls-sni-cert-key values', () => {
  it('parses kube\'s examples', () => {
    expect(parseNamedCertKey('example.crt,example.key')).toEqual({ certFile: 'example.crt', keyFile: 'example.key', names: [] });
    expect(parseNamedCertKey('foo.crt,foo.key:*.foo.com,foo.com')).toEqual({ certFile: 'foo.crt', keyFile: 'foo.key', names: ['*.foo.com', 'foo.com'] });
    expect(() => parseNamedCertKey('foo.crt:foo.com')).toThrow('expected comma separated certificate and key file paths');
    expect(() => parseNamedCertKey('a,b:  ')).toThrow('empty names list is not allowed');
  });
});

describe('SNI names', () => {
  let ca: Awaited<ReturnType<typeof generateCa>>;
  const cert = async (cn: string, sans: string[]) => new X509Certificate((await generateServingCert(ca, cn, sans.map(toSan))).certPem);
  beforeAll(async () => {
    ca = await generateCa('sni-test-ca');
  });

  it('takes the CN when it is a DNS name, then DNS SANs, then IP SANs', async () => {
    expect(certificateNames(await cert('api.foo.com', ['b.foo.com', '10.0.0.1', 'a.foo.com']))).toEqual(['api.foo.com', 'b.foo.com', 'a.foo.com', '10.0.0.1']);
    // An IP or a non-DNS CN is not a name.
    expect(certificateNames(await cert('10.0.0.9', ['x.foo.com']))).toEqual(['x.foo.com']);
    expect(certificateNames(await cert('Platform Server', []))).toEqual([]);
    expect(certificateNames(await cert('*.foo.com', []))).toEqual(['*.foo.com']);
  });

  it('explicit names beat extracted ones, earlier pairs beat later ones, exact beats wildcard', async () => {
    const a = await cert('a', ['x.foo.com', 'shared.foo.com']);
    const b = await cert('b', ['shared.foo.com', 'y.foo.com']);
    const c = await cert('c', ['z.foo.com']);
    const map = buildNameMap([
      { value: 'A', cert: a, explicitNames: [] },
      { value: 'B', cert: b, explicitNames: [] },
      { value: 'C', cert: c, explicitNames: ['*.foo.com', 'y.foo.com'] },
    ]);
    expect(lookupServerName(map, 'shared.foo.com')).toBe('A');
    expect(lookupServerName(map, 'y.foo.com')).toBe('C');
    expect(lookupServerName(map, 'X.Foo.COM')).toBe('A');
    expect(lookupServerName(map, 'other.foo.com')).toBe('C');
    // A wildcard stands for exactly one label.
    expect(lookupServerName(map, 'foo.com')).toBeUndefined();
    expect(lookupServerName(map, 'a.b.foo.com')).toBeUndefined();
    // The certificate's own names are not used once names are explicit.
    expect(lookupServerName(map, 'z.foo.com')).toBe('C');
    expect(buildNameMap([{ value: 'C', cert: c, explicitNames: ['only.bar.com'] }]).has('z.foo.com')).toBe(false);
  });
});
