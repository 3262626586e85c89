import { StatusError } from '../errors/status-error.js';
import { parseBool, queryBoolValue } from './parse-bool.js';
import { parseRequestInfo, type RequestInfo } from './request-info.js';

/** Splits by hand: `new URL` would resolve `..` and `//` before the parser sees them. */
const info = (method: string, url: string): RequestInfo => {
  const q = url.indexOf('?');
  return q < 0
    ? parseRequestInfo(method, url, new URLSearchParams())
    : parseRequestInfo(method, url.slice(0, q), new URLSearchParams(url.slice(q + 1)));
};

/** The interesting fields in one line: verb group/version ns resource/name/sub. */
const brief = (i: RequestInfo): string =>
  `${i.verb} ${i.apiPrefix}:${i.apiGroup}/${i.apiVersion} ns=${i.namespace} ${i.resource}/${i.name}/${i.subresource}`;

describe('parseRequestInfo: resource requests', () => {
  it.each([
    ['GET', '/api/v1/pods', 'list api:/v1 ns= pods//'],
    ['GET', '/api/v1/namespaces/default/pods', 'list api:/v1 ns=default pods//'],
    ['GET', '/api/v1/namespaces/default/pods/p1', 'get api:/v1 ns=default pods/p1/'],
    ['HEAD', '/api/v1/namespaces/default/pods/p1', 'get api:/v1 ns=default pods/p1/'],
    ['GET', '/api/v1/namespaces/default/pods/p1/log', 'get api:/v1 ns=default pods/p1/log'],
    ['PUT', '/api/v1/namespaces/default/pods/p1/status', 'update api:/v1 ns=default pods/p1/status'],
    ['POST', '/api/v1/namespaces/default/pods', 'create api:/v1 ns=default pods//'],
    ['POST', '/api/v1/namespaces/default/pods/p1/eviction', 'create api:/v1 ns=default pods/p1/eviction'],
    ['PUT', '/api/v1/namespaces/default/secrets/s', 'update api:/v1 ns=default secrets/s/'],
    ['PATCH', '/api/v1/namespaces/default/secrets/s', 'patch api:/v1 ns=default secrets/s/'],
    ['DELETE', '/api/v1/namespaces/default/secrets/s', 'delete api:/v1 ns=default secrets/s/'],
    ['DELETE', '/api/v1/namespaces/default/secrets', 'deletecollection api:/v1 ns=default secrets//'],
    ['GET', '/api/v1/nodes', 'list api:/v1 ns= nodes//'],
    ['GET', '/api/v1/nodes/n1', 'get api:/v1 ns= nodes/n1/'],
    ['PATCH', '/api/v1/nodes/n1/status', 'patch api:/v1 ns= nodes/n1/status'],
    ['GET', '/apis/apps/v1/deployments', 'list apis:apps/v1 ns= deployments//'],
    ['GET', '/apis/apps/v1/namespaces/ns1/deployments', 'list apis:apps/v1 ns=ns1 deployments//'],
    ['GET', '/apis/apps/v1/namespaces/ns1/deployments/d', 'get apis:apps/v1 ns=ns1 deployments/d/'],
    ['PUT', '/apis/apps/v1/namespaces/ns1/deployments/d/scale', 'update apis:apps/v1 ns=ns1 deployments/d/scale'],
    ['GET', '/apis/certificates.platform.io/v1/certificatesigningrequests/c', 'get apis:certificates.platform.io/v1 ns= certificatesigningrequests/c/'],
    ['PUT', '/apis/certificates.platform.io/v1/certificatesigningrequests/c/approval', 'update apis:certificates.platform.io/v1 ns= certificatesigningrequests/c/approval'],
    ['DELETE', '/apis/rbac/v1/clusterroles', 'deletecollection apis:rbac/v1 ns= clusterroles//'],
    // Namespaces are cluster-scoped; their own sub-resources address the Namespace.
    ['GET', '/api/v1/namespaces', 'list api:/v1 ns= namespaces//'],
    ['GET', '/api/v1/namespaces/ns1', 'get api:/v1 ns=ns1 namespaces/ns1/'],
    ['DELETE', '/api/v1/namespaces/ns1', 'delete api:/v1 ns=ns1 namespaces/ns1/'],
    ['PUT', '/api/v1/namespaces/ns1/status', 'update api:/v1 ns=ns1 namespaces/ns1/status'],
    ['PUT', '/api/v1/namespaces/ns1/finalize', 'update api:/v1 ns=ns1 namespaces/ns1/finalize'],
    ['DELETE', '/api/v1/namespaces', 'deletecollection api:/v1 ns= namespaces//'],
    // The deprecated watch prefix.
    ['GET', '/api/v1/watch/pods', 'watch api:/v1 ns= pods//'],
    ['GET', '/api/v1/watch/namespaces/default/pods', 'watch api:/v1 ns=default pods//'],
    ['GET', '/api/v1/watch/namespaces/default/pods/p1', 'watch api:/v1 ns=default pods/p1/'],
    ['GET', '/api/v1/watch/namespaces', 'watch api:/v1 ns= namespaces//'],
    ['GET', '/api/v1/watch/namespaces/ns1', 'watch api:/v1 ns=ns1 namespaces/ns1/'],
    ['GET', '/apis/apps/v1/watch/namespaces/ns1/deployments', 'watch apis:apps/v1 ns=ns1 deployments//'],
    ['GET', '/apis/apps/v1/watch/deployments', 'watch apis:apps/v1 ns= deployments//'],
    // Slashes at the ends do not matter.
    ['GET', '/api/v1/namespaces/default/pods/', 'list api:/v1 ns=default pods//'],
    ['GET', '//api/v1/pods//', 'list api:/v1 ns= pods//'],
    // Methods without a verb.
    ['OPTIONS', '/api/v1/pods', ' api:/v1 ns= pods//'],
  ])('%s %s', (method, url, want) => {
    const i = info(method, url);
    expect(i.isResourceRequest).toBe(true);
    expect(brief(i)).toBe(want);
  });

  it('keeps the parts after the resource', () => {
    expect(info('GET', '/api/v1/namespaces/a/pods/p/proxy/some/path').parts).toEqual(['pods', 'p', 'proxy', 'some', 'path']);
    expect(info('GET', '/api/v1/namespaces/a/pods/p/proxy/some/path').subresource).toBe('proxy');
    expect(info('GET', '/api/v1/namespaces/n/status').parts).toEqual(['namespaces', 'n', 'status']);
    expect(info('GET', '/api/v1/namespaces/a/pods').path).toBe('/api/v1/namespaces/a/pods');
  });

  it.each([
    ['watch=true', 'watch'],
    ['watch=1', 'watch'],
    ['watch=True', 'watch'],
    ['watch=TRUE', 'watch'],
    ['watch=t', 'watch'],
    ['watch=', 'watch'],
    ['watch', 'watch'],
    ['watch=false', 'list'],
    ['watch=FALSE', 'list'],
    ['watch=False', 'list'],
    ['watch=0', 'list'],
    ['watch=false&watch=true', 'list'],
    ['', 'list'],
    ['resourceVersion=5', 'list'],
  ])('GET collection ?%s is %s', (q, verb) => {
    expect(info('GET', `/api/v1/namespaces/a/pods?${q}`).verb).toBe(verb);
    expect(info('GET', `/apis/apps/v1/deployments?${q}`).verb).toBe(verb);
  });

  it('GET of one object with watch=true is watch, otherwise get', () => {
    expect(info('GET', '/api/v1/namespaces/a/pods/p?watch=true').verb).toBe('watch');
    expect(info('GET', '/api/v1/namespaces/a/pods/p?watch=0').verb).toBe('get');
    expect(info('GET', '/api/v1/namespaces/a/pods/p').verb).toBe('get');
    // The query does not turn other methods into watches.
    expect(info('DELETE', '/api/v1/namespaces/a/pods?watch=true').verb).toBe('deletecollection');
    expect(info('POST', '/api/v1/namespaces/a/pods?watch=true').verb).toBe('create');
  });

  it('decodes each segment on its own', () => {
    const i = info('GET', '/api/v1/namespaces/a/configmaps/my%3Aname');
    expect(i.name).toBe('my:name');
    expect(i.path).toBe('/api/v1/namespaces/a/configmaps/my%3Aname');
  });
});

describe('parseRequestInfo: non-resource requests', () => {
  it.each([
    ['GET', '/'],
    ['GET', ''],
    ['GET', '/api'],
    ['GET', '/api/v1'],
    ['GET', '/apis'],
    ['GET', '/apis/apps'],
    ['GET', '/apis/apps/v1'],
    ['GET', '/apis/apps/v1/'],
    ['GET', '/openapi/v2'],
    ['GET', '/openapi/v3/apis/apps/v1'],
    ['GET', '/version'],
    ['GET', '/healthz'],
    ['GET', '/livez/ping'],
    ['POST', '/metrics'],
    ['GET', '/foo/v1/pods'],
  ])('%s %s', (method, path) => {
    const i = parseRequestInfo(method, path, new URLSearchParams());
    expect(i.isResourceRequest).toBe(false);
    expect(i.verb).toBe(method.toLowerCase());
    expect(i.path).toBe(path);
    expect([i.apiPrefix, i.apiGroup, i.apiVersion, i.namespace, i.resource, i.name, i.subresource]).toEqual(['', '', '', '', '', '', '']);
  });
});

describe('parseRequestInfo: errors', () => {
  const bad = (method: string, url: string): StatusError => {
    try {
      info(method, url);
    } catch (e) {
      if (e instanceof StatusError) return e;
      throw e;
    }
    throw new Error('expected a StatusError');
  };

  it('rejects a watch prefix without a resource', () => {
    const e = bad('GET', '/api/v1/watch');
    expect(e.code).toBe(400);
    expect(e.message).toBe('unable to determine kind and namespace from url, /api/v1/watch');
  });

  it.each([
    ['/api/v1/namespaces/default/pods/..', 'Name parameter invalid: "..": may not be \'..\''],
    ['/api/v1/namespaces/default/pods/.', 'Name parameter invalid: ".": may not be \'.\''],
    ['/api/v1/namespaces/../pods', 'Namespace parameter invalid: "..": may not be \'..\''],
    ['/api/v1/namespaces/..', 'Name parameter invalid: "..": may not be \'..\''],
    ['/api/v1/namespaces/a/pods/x%2Fy', 'Name parameter invalid: "x/y": may not contain \'/\''],
    ['/api/v1/namespaces/a/pods/x%25y', 'Name parameter invalid: "x%y": may not contain \'%\''],
    ['/api/v1/namespaces/a/pods/%E0%A4%A', 'invalid URL escape in path segment "%E0%A4%A"'],
  ])('rejects %s', (url, message) => {
    const e = bad('GET', url);
    expect(e.code).toBe(400);
    expect(e.reason).toBe('BadRequest');
    expect(e.message).toBe(message);
  });
});

describe('parseBool / queryBoolValue', () => {
  it('follows Go strconv.ParseBool', () => {
    for (const t of ['1', 't', 'T', 'TRUE', 'true', 'True']) expect(parseBool(t)).toBe(true);
    for (const f of ['0', 'f', 'F', 'FALSE', 'false', 'False']) expect(parseBool(f)).toBe(false);
    for (const x of ['', 'yes', 'tRUE', ' true', '2']) {
      expect(() => parseBool(x)).toThrow(`strconv.ParseBool: parsing ${JSON.stringify(x)}: invalid syntax`);
    }
  });

  it('reads query booleans as Kubernetes does', () => {
    for (const t of ['1', 't', 'true', 'True', 'TRUE', '', 'yes', 'f']) expect(queryBoolValue(t)).toBe(true);
    for (const f of ['0', 'false', 'False', 'FALSE', 'fAlSe']) expect(queryBoolValue(f)).toBe(false);
  });
});
