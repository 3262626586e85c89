import { FlagError } from './flag-error.js';
import { helpText } from './help.js';
import { parseFlags } from './parse-flags.js';
import { buildConfig, defaultServiceAccountIssuer } from './server-config.js';

const config = (...argv: string[]) => buildConfig(parseFlags(argv), '/cwd');

test('defaults: kube\'s in-cluster issuer, audiences = the issuer, the generated key, no client CA', () => {
  const c = config();
  expect(c.serviceAccounts).toEqual({ keyFiles: [], issuers: [defaultServiceAccountIssuer], apiAudiences: [defaultServiceAccountIssuer] });
  expect(c.clientCaFile).toBeUndefined();
});

test('repeatable issuers and key files (the first issuer issues and is the default audience), absolute paths', () => {
  const c = config(
    '--service-account-issuer=https://a.example', '--service-account-issuer', 'https://b.example',
    '--service-account-key-file=k1.pem', '--service-account-key-file=/etc/k2.pem',
    '--service-account-signing-key-file=sign.key', '--client-ca-file=ca.crt', '--service-account-jwks-uri=https://x/jwks',
  );
  expect(c.serviceAccounts).toEqual({
    keyFiles: ['/cwd/k1.pem', '/etc/k2.pem'],
    signingKeyFile: '/cwd/sign.key',
    issuers: ['https://a.example', 'https://b.example'],
    jwksUri: 'https://x/jwks',
    apiAudiences: ['https://a.example'],
  });
  expect(c.clientCaFile).toBe('/cwd/ca.crt');
  expect(config('--api-audiences=api,vault').serviceAccounts!.apiAudiences).toEqual(['api', 'vault']);
});

test('an issuer with a colon must be a URL; a plain name is allowed', () => {
  expect(() => config('--service-account-issuer=not a url:x')).toThrow(FlagError);
  expect(config('--service-account-issuer=my-issuer').serviceAccounts!.issuers).toEqual(['my-issuer']);
});

test('--help lists the flags', () => {
  const help = helpText('platform-apiserver');
  for (const f of ['--client-ca-file', '--service-account-key-file', '--service-account-signing-key-file', '--service-account-issuer', '--service-account-jwks-uri', '--api-audiences']) {
    expect(help).toContain(f);
  }
});
