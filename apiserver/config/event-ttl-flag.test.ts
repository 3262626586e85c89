import { FlagError } from './flag-error.js';
import { helpText } from './help.js';
import { parseFlags } from './parse-flags.js';
import { buildConfig, defaultConfig } from './server-config.js';

const config = (...argv: string[]) => buildConfig(parseFlags(argv), '/cwd');

test('--event-ttl defaults to 1h, as kube-apiserver', () => {
  expect(config().eventTtlMs).toBe(3_600_000);
  expect(defaultConfig('/d').eventTtlMs).toBe(3_600_000);
});

test('--event-ttl takes a Go duration; 0 keeps events; negative is refused', () => {
  expect(config('--event-ttl=5m').eventTtlMs).toBe(300_000);
  expect(config('--event-ttl', '1h30m').eventTtlMs).toBe(5_400_000);
  expect(config('--event-ttl=0').eventTtlMs).toBe(0);
  expect(() => config('--event-ttl=-1s')).toThrow(FlagError);
  expect(() => config('--event-ttl=soon')).toThrow(/event-ttl/);
});

test('--help lists it', () => {
  expect(helpText('platform-apiserver')).toMatch(/--event-ttl[^\n]*\n?[^\n]*retain events/);
});
