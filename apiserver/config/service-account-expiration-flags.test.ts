import { FlagError } from './flag-error.js';
import { helpText } from './help.js';
import { parseFlags } from './parse-flags.js';
import { buildConfig } from './server-config.js';

const config = (...argv: string[]) => buildConfig(parseFlags(argv), '/cwd');

test('defaults: no cap, extension on (neither field set)', () => {
  const sa = config().serviceAccounts!;
  expect(sa.maxTokenExpirationSeconds).toBeUndefined();
  expect(sa.extendTokenExpiration).toBeUndefined();
});

test('--service-account-max-token-expiration: whole seconds, between 1h and 2^32 s, 0 = no cap', () => {
  expect(config('--service-account-max-token-expiration=1h').serviceAccounts!.maxTokenExpirationSeconds).toBe(3600);
  expect(config('--service-account-max-token-expiration=48h30m').serviceAccounts!.maxTokenExpirationSeconds).toBe(174_600);
  expect(config(`--service-account-max-token-expiration=${2 ** 32}s`).serviceAccounts!.maxTokenExpirationSeconds).toBe(2 ** 32);
  expect(config('--service-account-max-token-expiration=0').serviceAccounts!.maxTokenExpirationSeconds).toBeUndefined();
  for (const bad of ['59m59s', '10m', `${2 ** 32 + 1}s`]) {
    const run = () => config(`--service-account-max-token-expiration=${bad}`);
    expect(run).toThrow(FlagError);
    expect(run).toThrow('the service-account-max-token-expiration must be between 1 hour and 2^32 seconds');
  }
});

test('--service-account-extend-token-expiration=false is kept; --help lists both flags', () => {
  expect(config('--service-account-extend-token-expiration=false').serviceAccounts!.extendTokenExpiration).toBe(false);
  expect(config('--service-account-extend-token-expiration').serviceAccounts!.extendTokenExpiration).toBeUndefined();
  const help = helpText('platform-apiserver');
  expect(help).toContain('--service-account-max-token-expiration');
  expect(help).toContain('--service-account-extend-token-expiration');
});
