import { helpText } from './help.js';
import { parseFlags } from './parse-flags.js';
import { buildConfig } from './server-config.js';

const config = (...argv: string[]) => buildConfig(parseFlags(argv), '/cwd');

test('--proxy-client-cert-file and --proxy-client-key-file: absolute paths, together or not at all', () => {
  expect(config().proxyClient).toBeUndefined();
  expect(config('--proxy-client-cert-file=pki/proxy.crt', '--proxy-client-key-file', '/etc/proxy.key').proxyClient).toEqual({
    certFile: '/cwd/pki/proxy.crt',
    keyFile: '/etc/proxy.key',
  });
  expect(() => config('--proxy-client-cert-file=a.crt')).toThrow('--proxy-client-cert-file and --proxy-client-key-file must be given together');
  expect(() => config('--proxy-client-key-file=a.key')).toThrow('--proxy-client-cert-file and --proxy-client-key-file must be given together');
});

test('--help lists them', () => {
  expect(helpText('platform-apiserver')).toMatch(/--proxy-client-cert-file/);
  expect(helpText('platform-apiserver')).toMatch(/--proxy-client-key-file/);
});
