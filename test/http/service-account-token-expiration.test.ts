/**
 * `--service-account-max-token-expiration` through HTTP: a TokenRequest for longer than the cap gets a
 * token of the cap's validity (spec, status and the token's own exp/iat agree) with kube's Warning; one
 * within the cap is left as asked. The flag's bounds are start-up errors (config tests).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseJws } from '../../apiserver/auth/service-account/jws.js';
import { buildConfig } from '../../apiserver/config/server-config.js';
import { parseFlags } from '../../apiserver/config/parse-flags.js';
import type { RunningServer } from '../../apiserver/server/start-server.js';
import { memoryLogger, startTestServer, stopAll, tempDir } from '../server/helpers.js';
import { apiRequest, type ApiRequestOptions, type ApiResponse } from './helpers.js';

const AUTH = 'authentication.platform.io';
let server: RunningServer;
let admin: string;
let logLines: () => string[];
const call = (method: string, path: string, o: ApiRequestOptions = {}): Promise<ApiResponse> =>
  apiRequest({ url: server.url, ca: server.caPem!, token: admin }, method, path, o);
const requestToken = (expirationSeconds: number) =>
  call('POST', '/api/v1/namespaces/capped/serviceaccounts/builder/token', { body: { apiVersion: `${AUTH}/v1`, kind: 'TokenRequest', spec: { expirationSeconds } } });

beforeAll(async () => {
  const dataDir = tempDir();
  const log = memoryLogger('info');
  logLines = log.lines;
  // Through the flags: the cap is parsed as the command line gives it.
  const config = buildConfig(parseFlags([`--data-dir=${dataDir}`, '--service-account-max-token-expiration=2h']));
  server = await startTestServer({ ...config, bindAddress: '127.0.0.1', securePort: 0, compactionIntervalMs: 0 }, { logger: log.logger });
  admin = readFileSync(join(dataDir, 'admin.token'), 'utf8').trim();
  expect((await call('POST', '/api/v1/namespaces', { body: { metadata: { name: 'capped' } } })).status).toBe(201);
  expect((await call('POST', '/api/v1/namespaces/capped/serviceaccounts', { body: { metadata: { name: 'builder' } } })).status).toBe(201);
});
afterAll(stopAll);

/** The token's validity (exp - iat) and the status' expiry relative to creation, in seconds. */
function validity(tr: any): { token: number; status: number } {
  const claims = parseJws(tr.status.token)!.payload as { exp: number; iat: number };
  return { token: claims.exp - claims.iat, status: (Date.parse(tr.status.expirationTimestamp) - Date.parse(tr.metadata.creationTimestamp)) / 1000 };
}

test('a request over the cap is shortened to it, with kube\'s Warning', async () => {
  const res = await requestToken(86_400);
  expect(res.status).toBe(201);
  expect(res.warnings()).toEqual(['299 - "requested expiration of 86400 seconds shortened to 7200 seconds"']);
  const tr = res.json();
  expect(tr.spec.expirationSeconds).toBe(7200);
  expect(validity(tr)).toEqual({ token: 7200, status: 7200 });
});

test('a request within the cap is issued as asked, without a warning', async () => {
  for (const asked of [600, 7200]) {
    const res = await requestToken(asked);
    expect(res.status).toBe(201);
    expect(res.warnings()).toEqual([]);
    expect(res.json().spec.expirationSeconds).toBe(asked);
    expect(validity(res.json())).toEqual({ token: asked, status: asked });
  }
});

test('the cap below a year with the extension on is warned about at start-up, as kube does', () => {
  const warnings = logLines().map((l) => JSON.parse(l)).filter((l) => l.level === 'warn').map((l) => l.msg);
  expect(warnings).toContain('service-account-extend-token-expiration is true, enabling tokens valid up to 31536000 seconds, which is longer than service-account-max-token-expiration set to 2h0m0s');
});
