/**
 * One fuzz request from (seed, index): a served kind, a verb (or a sub-resource verb, or a malformed path),
 * a body, query parameters and headers. Objects live in namespaces and under names the suite controls
 * (`fz-ns-*`, `fz-*`), so the store check knows what could change; reads also look elsewhere.
 */
import type { FuzzRequest } from './client.js';
import type { ServedKind } from './discovery.js';
import { damageBytes, encodeObject, expandMarkers, jsonPatch, mergePatch, mutate, oddString, protobufBody } from './bodies.js';
import { Random } from './random.js';
import { encodeCbor } from '../../apiserver/codec/cbor/encode.js';

/** Namespaces the suite creates before the fuzz; `fz-0` is also in the namespace kind's name pool. */
export const FUZZ_NAMESPACES = ['fz-ns-0', 'fz-ns-1', 'fz-0'] as const;
export const NAME_POOL = ['fz-0', 'fz-1', 'fz-2', 'fz-3'] as const;

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch-json' | 'patch-merge' | 'patch-strategic' | 'apply' | 'delete' | 'deletecollection';
/** Watches hold a connection for their timeout (about a second): rarer, so the run keeps its pace. */
export const VERB_WEIGHTS: readonly (readonly [number, Verb])[] = [[10, 'get'], [10, 'list'], [1.5, 'watch'], [12, 'create'], [10, 'update'], [8, 'patch-json'],
  [8, 'patch-merge'], [8, 'patch-strategic'], [10, 'apply'], [8, 'delete'], [5, 'deletecollection']];

export interface GeneratedRequest extends FuzzRequest {
  /** What it exercises, for the report: `<verb> <resource>[/<sub>]` or `path`. */
  readonly label: string;
  /** A write the store may show when answered 2xx (not a dry run). */
  readonly mutating: boolean;
  readonly dryRun: boolean;
  /** The object or collection the request addresses, as the store check identifies keys. */
  readonly target?: { readonly resource: string; readonly group: string; readonly namespace?: string; readonly name?: string; readonly collection: boolean };
}

export interface GeneratorContext {
  readonly kinds: readonly ServedKind[];
  readonly token: string;
  /** Valid protobuf bodies captured from GETs, per resource (damaged before use). */
  readonly protobufSeeds: Map<string, Buffer>;
}

/** The protobuf media type of the default group domain (`application/vnd.<word>.protobuf`, naming.ts). */
export const PROTOBUF = 'application/vnd.platform.protobuf';

const ACCEPTS: readonly string[] = [
  'application/json', 'application/yaml', PROTOBUF, PROTOBUF, `${PROTOBUF};as=Table;v=v1;g=meta.k8s.io`, `${PROTOBUF};stream=watch`, 'application/vnd.kubernetes.protobuf', 'application/cbor', '*/*', '',
  'application/json;as=Table;v=v1;g=meta.k8s.io', 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json',
  'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io', 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io',
  'application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io', 'application/json;as=Table;v=v2;g=x', 'text/html',
  'application/json;q=0', 'application/*;q=0.5, application/yaml;q=1', 'application/json;stream=watch',
  'application/vnd.kubernetes.protobuf;stream=watch', 'application/json;pretty=true', 'application/json; charset=utf-8',
  'a/b;;;=', ';', ',,,', 'application/json;as=Table;v=v1;g=meta.k8s.io;includeObject=Object', 'application/json;q=abc',
];

const CONTENT_TYPES: readonly string[] = [
  'application/json', 'application/yaml', PROTOBUF, 'application/vnd.kubernetes.protobuf', 'application/cbor', 'text/plain', '',
  'application/json; charset=utf-8', 'application/json; charset=latin1', 'application/json-patch+json',
  'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml',
  'application/apply-patch+cbor', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', 'a/b;c', '*/*', 'application/json;;',
];

/** A label or field selector from a small random grammar (valid and not). */
export function selector(r: Random, field: boolean): string {
  const key = (): string => (field
    ? r.pick(['metadata.name', 'metadata.namespace', 'status.phase', 'spec.nodeName', 'type', 'involvedObject.name', 'spec.signerName', 'x.y', oddString(r)])
    : r.pick(['app', 'fuzz', 'a.b/c', 'k8s.io/x', 'x', oddString(r), '']));
  const value = (): string => r.pick(['web', 'fz-0', 'true', '', 'a,b', oddString(r)]);
  const term = (): string => r.weighted<() => string>(field
    ? [[3, () => `${key()}=${value()}`], [2, () => `${key()}!=${value()}`], [1, () => `${key()}==${value()}`], [1, () => key()], [1, () => `${key()} in (a)`]]
    : [[3, () => `${key()}=${value()}`], [2, () => `${key()}!=${value()}`], [2, () => `${key()} in (${value()},${value()})`], [1, () => `${key()} notin (${value()})`],
      [1, () => key()], [1, () => `!${key()}`], [1, () => `${key()} > ${r.pick(['1', 'x', '-1'])}`], [1, () => `${key()} in ()`], [1, () => `(${key()})`]])();
  return Array.from({ length: 1 + r.int(r.chance(0.05) ? 200 : 3) }, term).join(r.pick([',', ',', ', ', ',,', ' ']));
}

function garbageBase64(r: Random): string {
  return r.pick([
    Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: r.int(1_000_000), start: r.pick(['fz-0', '../x', '\u0000', '']) })).toString('base64'),
    Buffer.from(r.bytes(r.int(40))).toString('base64'), '!!!', '', 'eyJ2IjoibWV0YS5rOHMuaW8vdjEi', 'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTEsInN0YXJ0IjoiIn0',
    Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: 1e300, start: 'x' })).toString('base64'), Buffer.from('{').toString('base64'),
  ]);
}

function queryValue(r: Random, name: string): string {
  switch (name) {
    case 'labelSelector': return selector(r, false);
    case 'fieldSelector': return selector(r, true);
    // A revision the server has not reached is kube's 504 after a 3 s wait: rare, so it does not dominate the run.
    case 'resourceVersion': return r.chance(0.01) ? r.pick(['99999999999', '18446744073709551615', String(10_000_000 + r.int(1000))]) : r.pick(['0', '1', '', '-1', 'abc', '18446744073709551616', '1.5', ' 1', '0x10', '+1', String(1 + r.int(20))]);
    case 'resourceVersionMatch': return r.pick(['NotOlderThan', 'Exact', '', 'exact', 'bogus']);
    case 'limit': return r.pick(['0', '1', '2', '-1', '500', 'abc', '99999999999999999999', '1e3']);
    case 'continue': return garbageBase64(r);
    case 'timeoutSeconds': return r.pick(['1', '0', '-1', 'x', '1.5', '99999999999']);
    case 'dryRun': return r.pick(['All', 'All', 'all', '', 'None', 'x']);
    case 'fieldManager': return r.pick(['fuzz', '', 'x'.repeat(200), oddString(r)]);
    case 'fieldValidation': return r.pick(['Strict', 'Warn', 'Ignore', '', 'strict', 'bogus']);
    case 'propagationPolicy': return r.pick(['Orphan', 'Background', 'Foreground', '', 'bogus']);
    case 'gracePeriodSeconds': return r.pick(['0', '1', '-1', 'x', '99999999999999']);
    case 'orphanDependents': return r.pick(['true', 'false', 'x']);
    case 'watch': return r.pick(['true', 'false', '1', 'x']);
    case 'allowWatchBookmarks': return r.pick(['true', 'false', 'x']);
    case 'sendInitialEvents': return r.pick(['true', 'false', 'x']);
    case 'force': return r.pick(['true', 'false', 'x', '']);
    case 'pretty': return r.pick(['true', '1', 'x']);
    case 'includeObject': return r.pick(['Object', 'Metadata', 'None', 'x']);
    default: return oddString(r);
  }
}

const QUERY_NAMES = ['labelSelector', 'fieldSelector', 'resourceVersion', 'resourceVersionMatch', 'limit', 'continue', 'timeoutSeconds',
  'dryRun', 'fieldManager', 'fieldValidation', 'propagationPolicy', 'gracePeriodSeconds', 'orphanDependents', 'watch', 'allowWatchBookmarks',
  'sendInitialEvents', 'force', 'pretty', 'includeObject', 'x', ''];

/** encodeURIComponent over the UTF-8 bytes (a lone surrogate becomes U+FFFD instead of throwing). */
function pct(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    // A lone surrogate: fall through to the byte-wise encoding.
  }
  return [...Buffer.from(s, 'utf8')].map((b) => (/[A-Za-z0-9\-_.~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');
}

/**
 * The parameters a server reads from an encoded `query` (`?...`, maybe with a `#fragment`), as Go's
 * url.ParseQuery does and kube-apiserver therefore sees them: a pair holding a `;` or a malformed
 * percent-escape is dropped (so `dryRun=All%` is no dry run, and the write is real).
 */
function sentParams(query: string): [string, string][] {
  let q = query.startsWith('?') ? query.slice(1) : query;
  const hash = q.indexOf('#');
  if (hash >= 0) q = q.slice(0, hash);
  const decode = (x: string): string => {
    try {
      return decodeURIComponent(x.replace(/\+/g, ' '));
    } catch {
      return x;
    }
  };
  const out: [string, string][] = [];
  for (const pair of q.split('&')) {
    if (pair === '' || pair.includes(';') || /%(?![0-9A-Fa-f]{2})/.test(pair)) continue;
    const eq = pair.indexOf('=');
    out.push(eq < 0 ? [decode(pair), ''] : [decode(pair.slice(0, eq)), decode(pair.slice(eq + 1))]);
  }
  return out;
}

function encodeQuery(r: Random, params: [string, string][]): string {
  if (params.length === 0) return '';
  const enc = (s: string): string => (r.chance(0.05) ? s.replace(/[^\x21-\x7e]|[#?]/g, pct) : pct(s));
  return `?${params.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&')}${r.chance(0.03) ? r.pick(['&', '&&', '&=', '&a', '%', '%zz', '#frag']) : ''}`;
}

/** A name for a path segment: from the pool mostly, else odd (long, encoded, traversal). */
function pathName(r: Random): string {
  if (r.chance(0.9)) return r.pick(NAME_POOL);
  return r.pick<() => string>([() => '..', () => '.', () => '%2e%2e', () => 'a%2Fb', () => '%00', () => 'x'.repeat(r.pick([254, 300, 5000])), () => '%F0%9F%98%80',
    () => '%ZZ', () => 'A', () => 'fz-0%20', () => pct(oddString(r)) || 'x'])();
}

function headersFor(r: Random, ctx: GeneratorContext, accept: string): Record<string, string> {
  const h: Record<string, string> = {};
  const auth = r.weighted<string | undefined>([[94, `Bearer ${ctx.token}`], [1, undefined], [1, 'Bearer '], [1, `Bearer ${ctx.token}x`], [1, 'Basic YTpi'], [1, `bearer ${ctx.token}`], [1, 'Bearer a.b.c']]);
  if (auth !== undefined) h.Authorization = auth;
  if (accept !== '') h.Accept = accept;
  if (r.chance(0.05)) {
    h['Impersonate-User'] = r.pick(['system:admin', 'nobody', '', 'system:serviceaccount:fz-ns-0:default', oddString(r).replace(/[^\x20-\x7e]/g, '') || 'x']);
    if (r.chance(0.5)) h['Impersonate-Group'] = r.pick(['system:masters', 'system:authenticated', 'g']);
    if (r.chance(0.3)) h['Impersonate-Uid'] = r.pick(['1', '']);
    if (r.chance(0.3)) h[`Impersonate-Extra-${r.pick(['scopes', 'a%20b', 'x'])}`] = r.pick(['v', '']);
  }
  if (r.chance(0.05)) h['Accept-Encoding'] = r.pick(['gzip', 'deflate', 'br', 'gzip;q=0', '*', 'identity', 'x']);
  if (r.chance(0.02)) h['Content-Encoding'] = r.pick(['gzip', 'x']);
  if (r.chance(0.02)) h['User-Agent'] = r.pick(['', 'kubectl/v1.32.0 (linux/amd64)', 'x'.repeat(2000)]);
  if (r.chance(0.02)) h.traceparent = r.pick(['00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', 'garbage', '00-00000000000000000000000000000000-0000000000000000-01']);
  if (r.chance(0.02)) h['X-Remote-User'] = 'system:admin';
  return h;
}

function namespaceFor(r: Random, verb: Verb): string {
  const reads = verb === 'get' || verb === 'list' || verb === 'watch';
  if (reads && r.chance(0.1)) return r.pick(['default', 'kube-system', 'fz-missing', 'All', '%2e%2e']);
  if (!reads && r.chance(0.02)) return r.pick(['fz-missing', 'A', '%2e%2e']);
  return r.pick(FUZZ_NAMESPACES);
}

const MALFORMED_PATHS: readonly string[] = [
  '/', '//', '/api', '/api/', '/apis', '/apis/', '/api/v1/', '/api/v2', '/apis/apps', '/apis/apps/v2', '/apis/x/y/z', '/api/v1/namespaces//pods',
  '/api/v1/namespaces/fz-ns-0/pods/../secrets', '/api/v1/../v1/pods', '/api//v1/pods', '/api/v1/pods/', '/api/v1/namespaces/fz-ns-0/pods/fz-0/bogus',
  '/api/v1/namespaces/fz-ns-0/pods/fz-0/status/x', '/api/v1/watch', '/api/v1/watch/', '/api/v1/watch/namespaces', '/api/v1/watch/namespaces/fz-ns-0/pods/fz-0',
  '/version', '/version/', '/healthz', '/livez?verbose', '/readyz/etcd', '/readyz/x', '/metrics', '/openapi/v2', '/openapi/v3', '/openapi/v3/apis/apps/v1',
  '/openapi/v3/x', '/.well-known/openid-configuration', '/openid/v1/jwks', '/logs', '/%2e%2e/%2e%2e/etc/passwd', '/api/%76%31/namespaces',
  '/apis/apps/v1/namespaces/fz-ns-0/statefulsets/fz-0/scale/x', '/api/v1/namespaces/fz-ns-0', '/api/v1/namespaces/fz-ns-0/status', '/api/v1/namespaces/fz-ns-0/finalize',
  '/apis/apiextensions.platform.io/v1/customresourcedefinitions/x/status', '/api/v1/namespaces/fz-ns-0/serviceaccounts/fz-0/token', '/api/v1/namespaces/fz-ns-0/pods/fz-0/binding',
  '/apis/suite.example.com/v1/namespaces/fz-ns-0/widgets', '/apis/aggregated.x/v1', '/api/v1/namespaces/fz-ns-0/pods?watch=true&timeoutSeconds=1',
];

/** A malformed or unusual path with a random method. */
function pathChaos(r: Random, ctx: GeneratorContext): GeneratedRequest {
  let path = r.pick(MALFORMED_PATHS);
  if (r.chance(0.3)) {
    const k = r.pick(ctx.kinds);
    path = r.pick([`${k.root}/${k.resource}`, `${k.root}/namespaces/fz-ns-0/${k.resource}`, `${k.root}/${k.resource}/fz-0`]);
    path = r.weighted<() => string>([
      [2, () => path.replace(/\//g, () => (r.chance(0.2) ? '//' : '/'))], [2, () => path.replace(/[a-z]/, (c) => `%${c.charCodeAt(0).toString(16)}`)],
      [1, () => `${path}/${'a'.repeat(r.pick([1000, 8000, 20000]))}`], [1, () => `${path}/%2F%2F`], [1, () => path.toUpperCase()],
      [1, () => `${path}/${pct(oddString(r)) || 'x'}/${pct(oddString(r)) || 'y'}`], [1, () => `${path}/./..`],
    ])();
  }
  const method = r.pick(['GET', 'GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'CONNECT', 'PROPFIND', 'get']);
  const body = method === 'GET' || method === 'HEAD' ? undefined : r.chance(0.5) ? Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'fz-path' } })) : r.bytes(r.int(64));
  const headers = headersFor(r, ctx, r.pick(ACCEPTS));
  if (body !== undefined) headers['Content-Type'] = r.pick(CONTENT_TYPES) || 'application/json';
  const query = encodeQuery(r, Array.from({ length: r.int(3) }, () => { const n = r.pick(QUERY_NAMES); return [n, queryValue(r, n)] as [string, string]; }));
  return { method, path: `${path}${query}`, headers, ...(body === undefined ? {} : { body }), label: 'path', mutating: method !== 'GET' && method !== 'HEAD', dryRun: sentParams(query).some(([n]) => n === 'dryRun'), watch: (method === 'GET' || method === 'get') && /watch/.test(path + query) };
}

/** The request number `index` of the run seeded `seed`. */
export function generate(seed: number, index: number, ctx: GeneratorContext): GeneratedRequest {
  const r = Random.forRequest(seed, index);
  if (r.chance(0.03)) return pathChaos(r, ctx);
  const k = r.pick(ctx.kinds);
  const subs = k.subresources.filter((s) => s.name !== 'token' || r.chance(0.3));
  const sub = subs.length > 0 && r.chance(0.15) ? r.pick(subs) : undefined;
  const verb: Verb = sub === undefined
    ? r.weighted(VERB_WEIGHTS)
    : r.pick<Verb>(sub.verbs.includes('create') ? ['create', 'create', 'get'] : ['get', 'update', 'patch-json', 'patch-merge', 'patch-strategic', 'apply']);
  const namespace = k.namespaced ? namespaceFor(r, verb) : undefined;
  const name = pathName(r);
  const nsPath = namespace === undefined ? '' : `/namespaces/${namespace}`;
  const collection = `${k.root}${nsPath}/${k.resource}`;
  const objectPath = `${collection}/${name}${sub === undefined ? '' : `/${sub.name}`}`;

  // The body: the kind's valid template (or the sub-resource's kind), named, then mutated 0-3 times.
  let obj: any = structuredClone(k.template);
  obj.metadata = { ...(obj.metadata ?? {}), name: sub !== undefined || verb !== 'create' || r.chance(0.85) ? (/%|\.\./.test(name) ? 'fz-0' : name) : r.pick(NAME_POOL) };
  if (k.namespaced) obj.metadata.namespace = namespace;
  if (k.resource === 'namespaces' || k.namespaced === false) obj.metadata.labels = { ...(obj.metadata.labels ?? {}), fuzz: 'true' };
  if (sub !== undefined && sub.kind !== k.kind) {
    obj = { apiVersion: sub.group === undefined || sub.group === '' ? (sub.version ?? 'v1') : `${sub.group}/${sub.version}`, kind: sub.kind, metadata: { name: obj.metadata.name, ...(namespace === undefined ? {} : { namespace }) },
      spec: sub.kind === 'Scale' ? { replicas: r.pick([0, 1, 3, -1, 2 ** 31]) } : sub.kind === 'TokenRequest' ? { audiences: ['a'], expirationSeconds: r.pick([600, 3600, 1, -1]) } : {},
      ...(sub.kind === 'Binding' ? { target: { apiVersion: 'v1', kind: 'Node', name: r.pick(['fz-0', 'n1', '']) } } : {}) };
  }
  const mutations = r.weighted([[30, 0], [40, 1], [20, 2], [10, 3]]);
  for (let i = 0; i < mutations; i += 1) obj = mutate(r, obj, namespace ?? '');

  const params: [string, string][] = [];
  const add = (n: string, v = queryValue(r, n)): void => { params.push([n, v]); };
  let method = 'GET';
  let path = objectPath;
  let body: Buffer | undefined;
  let contentType: string | undefined;
  let forceAccept: string | undefined;
  const bodyFormat = (): 'json' | 'yaml' | 'protobuf' | 'cbor' | 'garbage' => r.weighted([[65, 'json'], [15, 'yaml'], [10, 'protobuf'], [5, 'cbor'], [5, 'garbage']] as const);
  const encodeBody = (o: unknown): void => {
    const f = bodyFormat();
    if (f === 'protobuf') {
      body = protobufBody(r, String(obj?.apiVersion ?? ''), String(obj?.kind ?? ''), ctx.protobufSeeds.get(k.resource));
      contentType = r.chance(0.9) ? PROTOBUF : 'application/vnd.kubernetes.protobuf';
    } else if (f === 'cbor') {
      // CBOR (the CBORServingAndStorage gate; 415 without it): the object encoded, sometimes damaged.
      let cbor: Buffer;
      try {
        cbor = encodeCbor(o);
      } catch {
        cbor = r.bytes(16);
      }
      body = r.chance(0.3) ? damageBytes(r, cbor) : cbor;
      contentType = 'application/cbor';
    } else if (f === 'garbage') {
      body = r.pick([Buffer.alloc(0), r.bytes(r.int(200)), Buffer.from('null'), Buffer.from('{'), Buffer.from('\ufeff{}'), Buffer.from([0xc3, 0x28])]);
      contentType = r.pick(CONTENT_TYPES);
    } else {
      ({ body, contentType } = encodeObject(r, o, f));
    }
  };
  switch (verb) {
    case 'get':
      if (r.chance(0.3)) add('resourceVersion');
      // Valid protobuf objects captured from these answers seed the protobuf bodies (runner.ts).
      if (r.chance(0.3)) forceAccept = PROTOBUF;
      break;
    case 'list':
    case 'watch':
      path = r.chance(0.2) && k.namespaced ? `${k.root}/${k.resource}` : collection;
      if (verb === 'watch') {
        if (r.chance(0.3)) path = path.replace(k.root, `${k.root}/watch`);
        else add('watch', 'true');
        add('timeoutSeconds', r.pick(['1', '1', '0', 'x']));
      }
      for (const n of ['labelSelector', 'fieldSelector', 'resourceVersion', 'resourceVersionMatch', 'limit', 'continue', 'allowWatchBookmarks', 'sendInitialEvents']) if (r.chance(0.2)) add(n);
      break;
    case 'create':
      method = 'POST';
      path = sub === undefined ? collection : objectPath;
      encodeBody(obj);
      break;
    case 'update':
      method = 'PUT';
      encodeBody(obj);
      break;
    case 'patch-json':
      method = 'PATCH';
      body = Buffer.from(expandMarkers(JSON.stringify(jsonPatch(r, obj)) ?? 'null'));
      contentType = 'application/json-patch+json';
      break;
    case 'patch-merge':
    case 'patch-strategic': {
      method = 'PATCH';
      const patch = mergePatch(r, obj, namespace ?? '', verb === 'patch-strategic');
      const f = r.weighted([[85, 'json'], [10, 'yaml'], [5, 'protobuf']] as const);
      if (f === 'protobuf') body = protobufBody(r, 'v1', 'Patch', undefined);
      else body = encodeObject(r, patch, f === 'yaml' ? 'yaml' : 'json').body;
      contentType = verb === 'patch-merge' ? 'application/merge-patch+json' : 'application/strategic-merge-patch+json';
      break;
    }
    case 'apply':
      method = 'PATCH';
      ({ body } = encodeObject(r, obj, r.chance(0.7) ? 'yaml' : 'json'));
      contentType = 'application/apply-patch+yaml';
      if (r.chance(0.9)) add('fieldManager', r.chance(0.8) ? 'fuzz' : queryValue(r, 'fieldManager'));
      if (r.chance(0.3)) add('force');
      break;
    case 'delete':
      method = 'DELETE';
      if (r.chance(0.3)) {
        const opts = { apiVersion: 'v1', kind: 'DeleteOptions', ...(r.chance(0.5) ? { propagationPolicy: r.pick(['Orphan', 'Background', 'Foreground', 'x']) } : {}),
          ...(r.chance(0.3) ? { gracePeriodSeconds: r.pick([0, 1, -1, 30]) } : {}), ...(r.chance(0.3) ? { preconditions: { uid: r.pick(['x', '']), resourceVersion: r.pick(['1', 'x']) } } : {}),
          ...(r.chance(0.2) ? { dryRun: r.pick([['All'], ['x'], 'All']) } : {}) };
        if (r.chance(0.2)) encodeBody(opts); else body = Buffer.from(JSON.stringify(opts)), contentType = 'application/json';
      }
      for (const n of ['propagationPolicy', 'gracePeriodSeconds', 'orphanDependents']) if (r.chance(0.15)) add(n);
      break;
    case 'deletecollection':
      method = 'DELETE';
      path = collection;
      // Cluster-scoped collections hold the server's own objects too: only the fuzz's are in reach.
      if (!k.namespaced || r.chance(0.5)) add('labelSelector', k.namespaced ? selector(r, false) : `fuzz=true${r.chance(0.3) ? `,${selector(r, false)}` : ''}`);
      if (r.chance(0.2)) add('fieldSelector');
      if (r.chance(0.2)) add('limit');
      if (r.chance(0.2)) add('resourceVersion');
      break;
  }
  // Random extra parameters (dry runs, validation, managers, odd names).
  for (let i = r.weighted([[50, 0], [30, 1], [15, 2], [5, 4]]); i > 0; i -= 1) {
    const n = r.pick(QUERY_NAMES);
    // Keep cluster-scoped deletecollections confined to the fuzz's label (another labelSelector would widen them).
    if (verb === 'deletecollection' && !k.namespaced && n === 'labelSelector') continue;
    add(n);
  }
  const dryRunBody = body !== undefined && verb === 'delete' && /dryRun/.test(body.toString('latin1'));
  // What the request means to do (it weighs the Accept header); what it does is decided below from the query sent.
  const meantDryRun = params.some(([n]) => n === 'dryRun') || dryRunBody;
  const mutating = method !== 'GET';
  const accept = mutating && !meantDryRun ? r.weighted([[85, 'application/json'], [10, 'application/yaml'], [5, r.pick(ACCEPTS)]]) : r.weighted([[60, 'application/json'], [40, r.pick(ACCEPTS)]]);
  const headers = headersFor(r, ctx, forceAccept ?? accept);
  if (contentType !== undefined) {
    headers['Content-Type'] = r.chance(0.05) ? r.pick(CONTENT_TYPES) : contentType;
    if (headers['Content-Type'] === '') delete headers['Content-Type'];
  }
  const query = encodeQuery(r, params);
  const sent = sentParams(query);
  const dryRun = sent.some(([n]) => n === 'dryRun') || dryRunBody;
  return {
    method, path: `${path}${query}`, headers, ...(body === undefined ? {} : { body }),
    label: `${verb} ${k.resource}${sub === undefined ? '' : `/${sub.name}`}`, mutating, dryRun,
    watch: verb === 'watch' || (method === 'GET' && sent.some(([n, v]) => n === 'watch' && v !== 'false' && v !== '0')),
    target: {
      resource: k.resource, group: k.group,
      ...(namespace === undefined ? {} : { namespace: decodeURIComponentSafe(namespace) }),
      ...(path === objectPath ? { name: decodeURIComponentSafe(name) } : {}),
      collection: path !== objectPath,
    },
  };
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
