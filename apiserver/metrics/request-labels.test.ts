import { parseRequestInfo } from '../request/request-info.js';
import { DRY_RUNS, SCOPES, VERBS, dryRunIndex, scopeIndex, verbIndex } from './request-labels.js';
import { parseQuery } from '../request/go-query.js';

const info = (method: string, url: string) => {
  const q = url.indexOf('?');
  return q < 0 ? parseRequestInfo(method, url, new URLSearchParams()) : parseRequestInfo(method, url.slice(0, q), new URLSearchParams(url.slice(q + 1)));
};
const verb = (method: string, url: string, contentType = '') => VERBS[verbIndex(info(method, url), method, contentType)];
const scope = (method: string, url: string) => SCOPES[scopeIndex(info(method, url))];

describe('request labels (kube 1.32 CleanVerb / CleanScope / cleanDryRun)', () => {
  it.each([
    ['GET', '/api/v1/namespaces/a/pods/p', '', 'GET', 'resource'],
    ['HEAD', '/api/v1/namespaces/a/pods/p', '', 'GET', 'resource'],
    ['GET', '/api/v1/namespaces/a/pods', '', 'LIST', 'namespace'],
    ['GET', '/api/v1/pods', '', 'LIST', 'cluster'],
    ['GET', '/api/v1/pods?watch=true', '', 'WATCH', 'cluster'],
    ['GET', '/api/v1/namespaces/a/pods?watch=1', '', 'WATCH', 'namespace'],
    ['GET', '/api/v1/watch/namespaces/a/pods', '', 'WATCH', 'namespace'],
    ['GET', '/api/v1/namespaces/a/pods/p?watch=true', '', 'WATCH', 'resource'],
    ['POST', '/api/v1/namespaces/a/pods', '', 'POST', 'resource'],
    ['PUT', '/api/v1/namespaces/a/pods/p', '', 'PUT', 'resource'],
    ['PATCH', '/api/v1/namespaces/a/pods/p', 'application/merge-patch+json', 'PATCH', 'resource'],
    ['PATCH', '/api/v1/namespaces/a/pods/p', 'application/apply-patch+yaml', 'APPLY', 'resource'],
    ['PATCH', '/api/v1/namespaces/a/pods/p', 'application/apply-patch+cbor', 'APPLY', 'resource'],
    ['DELETE', '/api/v1/namespaces/a/pods/p', '', 'DELETE', 'resource'],
    // kube 1.32 reports a collection delete by its HTTP method.
    ['DELETE', '/api/v1/namespaces/a/pods', '', 'DELETE', 'namespace'],
    ['GET', '/api/v1/namespaces/a/pods/p/log', '', 'CONNECT', 'resource'],
    ['POST', '/api/v1/namespaces/a/pods/p/exec', '', 'CONNECT', 'resource'],
    ['GET', '/api/v1/namespaces/a/pods/p/status', '', 'GET', 'resource'],
    ['OPTIONS', '/api/v1/namespaces/a/pods', '', 'other', 'namespace'],
    ['GET', '/api/v1/namespaces/a', '', 'GET', 'resource'],
    ['GET', '/healthz', '', 'GET', ''],
    ['POST', '/apis', '', 'POST', ''],
    ['OPTIONS', '/version', '', 'other', ''],
  ])('%s %s %s -> %s, scope %j', (method, url, contentType, v, s) => {
    expect(verb(method, url, contentType)).toBe(v);
    expect(scope(method, url)).toBe(s);
  });

  it('dry_run is "", All or invalid', () => {
    expect(DRY_RUNS[dryRunIndex(parseQuery(''))]).toBe('');
    expect(DRY_RUNS[dryRunIndex(parseQuery('fieldManager=x'))]).toBe('');
    expect(DRY_RUNS[dryRunIndex(parseQuery('dryRunX=1'))]).toBe('');
    expect(DRY_RUNS[dryRunIndex(parseQuery('dryRun=All'))]).toBe('All');
    expect(DRY_RUNS[dryRunIndex(parseQuery('dryRun=All&dryRun=All'))]).toBe('All');
    expect(DRY_RUNS[dryRunIndex(parseQuery('dryRun=All&dryRun=Some'))]).toBe('invalid');
    expect(DRY_RUNS[dryRunIndex(parseQuery('dryRun='))]).toBe('invalid');
    expect(DRY_RUNS[dryRunIndex(parseQuery('dryRun=true'))]).toBe('invalid');
    expect(DRY_RUNS[dryRunIndex(parseQuery('dryRun=All%'))]).toBe('');
  });
});
