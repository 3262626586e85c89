import { FlagError } from './flag-error.js';
import { helpText } from './help.js';
import { parseFlags } from './parse-flags.js';
import { buildConfig } from './server-config.js';

const config = (...argv: string[]) => buildConfig(parseFlags(argv), '/cwd');
const refused = (argv: string[], message: string): void => {
  let thrown: unknown;
  try {
    config(...argv);
  } catch (err) {
    thrown = err;
  }
  expect(thrown).toBeInstanceOf(FlagError);
  expect((thrown as Error).message).toBe(message);
};

describe('--tls-min-version', () => {
  it('defaults to VersionTLS12 and takes kube\'s four names', () => {
    expect(config().tlsServing?.minVersion).toBe('VersionTLS12');
    for (const v of ['VersionTLS10', 'VersionTLS11', 'VersionTLS12', 'VersionTLS13']) {
      expect(config(`--tls-min-version=${v}`).tlsServing?.minVersion).toBe(v);
    }
  });

  it('refuses anything else with kube\'s message (names are case sensitive)', () => {
    refused(['--tls-min-version=VersionTLS14'], '--tls-min-version: unknown tls version "VersionTLS14"');
    refused(['--tls-min-version=versiontls12'], '--tls-min-version: unknown tls version "versiontls12"');
    refused(['--tls-min-version=TLSv1.2'], '--tls-min-version: unknown tls version "TLSv1.2"');
  });
});

describe('--tls-cipher-suites', () => {
  it('takes kube\'s names, secure, insecure, TLS 1.3 and the legacy ChaCha20 aliases, in order', () => {
    expect(config().tlsServing?.cipherSuites).toEqual([]);
    expect(config('--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_RSA_WITH_RC4_128_SHA,TLS_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305')
      .tlsServing?.cipherSuites).toEqual(['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_RSA_WITH_RC4_128_SHA', 'TLS_AES_128_GCM_SHA256', 'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305']);
  });

  it('refuses an unknown name (OpenSSL spellings included) with kube\'s message', () => {
    refused(['--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,ECDHE-RSA-AES128-GCM-SHA256'],
      '--tls-cipher-suites: Cipher suite ECDHE-RSA-AES128-GCM-SHA256 not supported or doesn\'t exist');
    refused(['--tls-cipher-suites=TLS_FOO'], '--tls-cipher-suites: Cipher suite TLS_FOO not supported or doesn\'t exist');
  });
});

describe('--tls-sni-cert-key', () => {
  it('is repeatable, keeps commas inside a value, resolves paths and splits the names', () => {
    const c = config('--tls-sni-cert-key=a.crt,a.key', '--tls-sni-cert-key', '/b.crt, /b.key : *.foo.com, foo.com');
    expect(c.tlsServing?.sniCertKeys).toEqual([
      { certFile: '/cwd/a.crt', keyFile: '/cwd/a.key', names: [] },
      { certFile: '/b.crt', keyFile: '/b.key', names: ['*.foo.com', 'foo.com'] },
    ]);
    expect(config().tlsServing?.sniCertKeys).toEqual([]);
  });

  it('refuses malformed values with pflag\'s and kube\'s wording', () => {
    refused(['--tls-sni-cert-key=a.crt'], 'invalid argument "a.crt" for "--tls-sni-cert-key" flag: expected comma separated certificate and key file paths');
    refused(['--tls-sni-cert-key=a.crt,a.key,c'], 'invalid argument "a.crt,a.key,c" for "--tls-sni-cert-key" flag: expected comma separated certificate and key file paths');
    refused(['--tls-sni-cert-key=a.crt,a.key:'], 'invalid argument "a.crt,a.key:" for "--tls-sni-cert-key" flag: empty names list is not allowed');
  });
});

test('--help lists the three flags with kube\'s possible values', () => {
  const help = helpText('platform-apiserver');
  expect(help).toMatch(/--tls-min-version string +Minimum TLS version supported\. Possible values: VersionTLS10, VersionTLS11, VersionTLS12, VersionTLS13 \(default VersionTLS12\)/);
  expect(help).toMatch(/Insecure values: TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256, /);
  expect(help).toMatch(/--tls-sni-cert-key cert,key\[:names\]/);
});
