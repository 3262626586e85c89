/**
 * The review APIs over HTTP (issue 10): SelfSubjectReview, TokenReview, SubjectAccessReview,
 * SelfSubjectAccessReview, LocalSubjectAccessReview and SelfSubjectRulesReview on an in-process server
 * with static tokens and an Authorizer of the test's own (a small table standing in for RBAC; the reviews
 * must answer whatever the server's authorizer says). JSON and protobuf bodies (protobuf built and read by
 * protobufjs from the .proto text below, written from Kubernetes' generated.proto numbers, not by the
 * server's codec), kube's validation messages, and that nothing is stored: 405 for every other verb, the
 * store's revision unchanged by any number of reviews, discovery listing only `create`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import protobuf from 'protobufjs';
import type { AuthorizationAttributes, Authorizer } from '../../apiserver/authorization/authorizer.js';
import type { RunningServer } from '../../apiserver/server/start-server.js';
import { startTestServer, stopAll, tempDir } from '../server/helpers.js';
import { apiRequest, type ApiRequestOptions, type ApiResponse } from './helpers.js';

const PROTO = `
syntax = "proto2";
package t;
message TypeMeta { optional string apiVersion = 1; optional string kind = 2; }
message Unknown { optional TypeMeta typeMeta = 1; optional bytes raw = 2; optional string contentEncoding = 3; optional string contentType = 4; }
message Time { optional int64 seconds = 1; optional int32 nanos = 2; }
message ObjectMeta { optional string name = 1; optional string generateName = 2; optional string namespace = 3; optional Time creationTimestamp = 8; }
message Status { optional string status = 2; optional string message = 3; optional string reason = 4; optional int32 code = 6; }
message ExtraValue { repeated string items = 1; }
message UserInfo { optional string username = 1; optional string uid = 2; repeated string groups = 3; map<string, ExtraValue> extra = 4; }
message SelfSubjectReviewStatus { optional UserInfo userInfo = 1; }
message SelfSubjectReview { optional ObjectMeta metadata = 1; optional SelfSubjectReviewStatus status = 2; }
message TokenReviewSpec { optional string token = 1; repeated string audiences = 2; }
message TokenReviewStatus { optional bool authenticated = 1; optional UserInfo user = 2; optional string error = 3; repeated string audiences = 4; }
message TokenReview { optional ObjectMeta metadata = 1; optional TokenReviewSpec spec = 2; optional TokenReviewStatus status = 3; }
message ResourceAttributes { optional string namespace = 1; optional string verb = 2; optional string group = 3; optional string version = 4; optional string resource = 5; optional string subresource = 6; optional string name = 7; }
message NonResourceAttributes { optional string path = 1; optional string verb = 2; }
message SubjectAccessReviewStatus { optional bool allowed = 1; optional string reason = 2; optional string evaluationError = 3; optional bool denied = 4; }
message SelfSubjectAccessReviewSpec { optional ResourceAttributes resourceAttributes = 1; optional NonResourceAttributes nonResourceAttributes = 2; }
message SelfSubjectAccessReview { optional ObjectMeta metadata = 1; optional SelfSubjectAccessReviewSpec spec = 2; optional SubjectAccessReviewStatus status = 3; }
message SubjectAccessReviewSpec { optional ResourceAttributes resourceAttributes = 1; optional NonResourceAttributes nonResourceAttributes = 2; optional string user = 3; repeated string groups = 4; map<string, ExtraValue> extra = 5; optional string uid = 6; }
message SubjectAccessReview { optional ObjectMeta metadata = 1; optional SubjectAccessReviewSpec spec = 2; optional SubjectAccessReviewStatus status = 3; }
message SelfSubjectRulesReviewSpec { optional string namespace = 1; }
message ResourceRule { repeated string verbs = 1; repeated string apiGroups = 2; repeated string resources = 3; repeated string resourceNames = 4; }
message NonResourceRule { repeated string verbs = 1; repeated string nonResourceURLs = 2; }
message SubjectRulesReviewStatus { repeated ResourceRule resourceRules = 1; repeated NonResourceRule nonResourceRules = 2; optional bool incomplete = 3; optional string evaluationError = 4; }
message SelfSubjectRulesReview { optional ObjectMeta metadata = 1; optional SelfSubjectRulesReviewSpec spec = 2; optional SubjectRulesReviewStatus status = 3; }
`;
const root = protobuf.parse(PROTO).root;
const T = (name: string) => root.lookupType(`t.${name}`);
const PB = 'application/vnd.kubernetes.protobuf';
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

function envelope(apiVersion: string, kind: string, value: object): Buffer {
  const raw = T(kind).encode(T(kind).fromObject(value)).finish();
  return Buffer.concat([MAGIC, T('Unknown').encode({ typeMeta: { apiVersion, kind }, raw, contentEncoding: '', contentType: '' }).finish()]);
}

function open(body: Buffer, message: string): { apiVersion: string; kind: string; object: any } {
  expect(body.subarray(0, 4).equals(MAGIC)).toBe(true);
  const u = T('Unknown').decode(body.subarray(4)) as any;
  return { apiVersion: u.typeMeta.apiVersion, kind: u.typeMeta.kind, object: T(message).toObject(T(message).decode(u.raw), { longs: Number, defaults: false }) };
}

/** Grants of the test's authorizer: who may do what; `deny` answers an explicit deny with that reason. */
interface Grant {
  readonly user?: string;
  readonly group?: string;
  readonly verb: string;
  readonly resource?: string;
  readonly namespace?: string;
  readonly path?: string;
  readonly deny?: string;
}

const grants: readonly Grant[] = [
  { group: 'system:masters', verb: '*' },
  // As kube's system:basic-user: everyone may ask about themselves.
  { group: 'system:authenticated', verb: 'create', resource: 'selfsubjectreviews' },
  { group: 'system:authenticated', verb: 'create', resource: 'selfsubjectaccessreviews' },
  { group: 'system:authenticated', verb: 'create', resource: 'selfsubjectrulesreviews' },
  { user: 'alice', verb: 'get', resource: 'pods', namespace: 'ns1' },
  { user: 'alice', verb: 'get', path: '/healthz' },
  { user: 'bob', verb: 'delete', resource: 'pods', deny: 'bob never deletes' },
  { group: 'auditors', verb: 'list', resource: 'secrets' },
];

function tableAuthorizer(): Authorizer & { readonly seen: AuthorizationAttributes[] } {
  const seen: AuthorizationAttributes[] = [];
  return {
    seen,
    authorize(a) {
      seen.push(a);
      for (const g of grants) {
        if (g.user !== undefined && g.user !== a.user.name) continue;
        if (g.group !== undefined && !a.user.groups.includes(g.group)) continue;
        if (g.verb !== '*' && g.verb !== a.verb) continue;
        if (g.resource !== undefined && (!a.isResourceRequest || g.resource !== a.resource)) continue;
        if (g.namespace !== undefined && g.namespace !== a.namespace) continue;
        if (g.path !== undefined && (a.isResourceRequest || g.path !== a.path)) continue;
        return g.deny === undefined ? { decision: 'allow', reason: 'granted by the table' } : { decision: 'deny', reason: g.deny };
      }
      return { decision: 'no-opinion', reason: '' };
    },
  };
}

const TOKENS = {
  admin: 'admin-token-0123456789',
  alice: 'alice-token-0123456789',
  bob: 'bob-token-0123456789',
};

const domain = 'platform.io';
const authn = `/apis/authentication.${domain}/v1`;
const authz = `/apis/authorization.${domain}/v1`;

let server: RunningServer;
let authorizer: ReturnType<typeof tableAuthorizer>;
let base: { url: string; ca: string; token: string };

beforeAll(async () => {
  const dir = tempDir('reviews-');
  const tokenFile = join(dir, 'tokens.csv');
  writeFileSync(
    tokenFile,
    [`${TOKENS.admin},admin,uid-admin,"system:masters"`, `${TOKENS.alice},alice,uid-alice,"devs,auditors"`, `${TOKENS.bob},bob,uid-bob`].join('\n'),
  );
  authorizer = tableAuthorizer();
  server = await startTestServer({ tokenAuthFile: tokenFile, groupDomain: domain }, { authorizer });
  base = { url: server.url, ca: server.caPem!, token: TOKENS.admin };
});
afterAll(stopAll);

const req = (method: string, path: string, o: ApiRequestOptions = {}): Promise<ApiResponse> => apiRequest(base, method, path, o);
const post = (path: string, body: unknown, token = TOKENS.admin): Promise<ApiResponse> => req('POST', path, { body, token });
const postPb = (path: string, apiVersion: string, kind: string, value: object, token = TOKENS.admin): Promise<ApiResponse> =>
  req('POST', path, { body: envelope(apiVersion, kind, value), token, headers: { 'Content-Type': PB, Accept: `${PB},application/json` } });

/** Every key in the store (the server's leader lease changes its revision in the background, keys stay). */
async function storedKeys(): Promise<string[]> {
  return (await server.store.list('/')).items.map((kv) => kv.key);
}

describe('SelfSubjectReview', () => {
  it('answers the requester (JSON), with a creationTimestamp and nothing of the body', async () => {
    const res = await post(`${authn}/selfsubjectreviews`, { apiVersion: `authentication.${domain}/v1`, kind: 'SelfSubjectReview', metadata: { name: 'ignored' } }, TOKENS.alice);
    expect(res.status).toBe(201);
    const o = res.json();
    expect([o.apiVersion, o.kind]).toEqual([`authentication.${domain}/v1`, 'SelfSubjectReview']);
    expect(o.status.userInfo).toEqual({ username: 'alice', uid: 'uid-alice', groups: ['devs', 'auditors', 'system:authenticated'] });
    expect(o.metadata.name).toBeUndefined();
    expect(Date.parse(o.metadata.creationTimestamp)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('answers a protobuf body in protobuf', async () => {
    const res = await postPb(`${authn}/selfsubjectreviews`, `authentication.${domain}/v1`, 'SelfSubjectReview', { metadata: {} }, TOKENS.bob);
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toBe(PB);
    const got = open(res.raw, 'SelfSubjectReview');
    expect([got.apiVersion, got.kind]).toEqual([`authentication.${domain}/v1`, 'SelfSubjectReview']);
    expect(got.object.status.userInfo).toEqual({ username: 'bob', uid: 'uid-bob', groups: ['system:authenticated'] });
    expect(got.object.metadata.creationTimestamp.seconds).toBeGreaterThan(1.7e9);
  });
});

describe('TokenReview', () => {
  const path = `${authn}/tokenreviews`;
  const review = (spec: object) => ({ apiVersion: `authentication.${domain}/v1`, kind: 'TokenReview', spec });

  it('authenticates a valid token as its user and echoes the spec; no audiences asked means the server\'s', async () => {
    const res = await post(path, review({ token: TOKENS.alice }));
    expect(res.status).toBe(201);
    const o = res.json();
    // --api-audiences defaults to the service account issuer; a static token is valid for the server's own.
    expect(o.status).toEqual({
      authenticated: true,
      user: { username: 'alice', uid: 'uid-alice', groups: ['devs', 'auditors', 'system:authenticated'] },
      audiences: ['https://kubernetes.default.svc.cluster.local'],
    });
    expect(o.spec.token).toBe(TOKENS.alice);
  });

  it('reports an unknown token as not authenticated with kube\'s error, without the token anywhere in the status', async () => {
    const res = await post(path, review({ token: 'no-such-token-abcdef' }));
    expect(res.status).toBe(201);
    const o = res.json();
    expect(o.status).toEqual({ user: {}, error: 'invalid bearer token' });
    expect(JSON.stringify(o.status)).not.toContain('no-such-token');
  });

  it('refuses audiences a static (audience-agnostic) token cannot serve: the server has no API audiences yet', async () => {
    const res = await post(path, review({ token: TOKENS.alice, audiences: ['https://vault.example'] }));
    expect(res.status).toBe(201);
    expect(res.json().status.authenticated).toBeUndefined();
    expect(res.json().status.error).toBe('invalid bearer token');
  });

  it('is a 400 without a token (kube\'s message), JSON and protobuf', async () => {
    for (const body of [review({}), { apiVersion: `authentication.${domain}/v1`, kind: 'TokenReview' }]) {
      const res = await post(path, body);
      expect(res.status).toBe(400);
      expect(res.json()).toMatchObject({ kind: 'Status', reason: 'BadRequest', message: 'token is required for TokenReview in authentication' });
    }
    const pb = await postPb(path, `authentication.${domain}/v1`, 'TokenReview', { spec: {} });
    expect(pb.status).toBe(400);
    expect(open(pb.raw, 'Status').object).toMatchObject({ reason: 'BadRequest', code: 400, message: 'token is required for TokenReview in authentication' });
  });

  it('answers a protobuf body in protobuf', async () => {
    const res = await postPb(path, `authentication.${domain}/v1`, 'TokenReview', { spec: { token: TOKENS.bob } });
    expect(res.status).toBe(201);
    const got = open(res.raw, 'TokenReview');
    expect(got.object.status.authenticated).toBe(true);
    expect(got.object.status.user).toEqual({ username: 'bob', uid: 'uid-bob', groups: ['system:authenticated'] });
  });

  it('is not served in a namespace and refuses unknown fields when asked to (Strict)', async () => {
    expect((await post(`/apis/authentication.${domain}/v1/namespaces/default/tokenreviews`, review({ token: 'x' }))).status).toBe(404);
    const res = await req('POST', path, { body: review({ token: 'x', tokn: 'y' }), query: { fieldValidation: 'Strict' } });
    expect(res.status).toBe(400);
    expect(res.json().message).toContain('unknown field "spec.tokn"');
  });
});

describe('SubjectAccessReview', () => {
  const path = `${authz}/subjectaccessreviews`;
  const sar = (spec: object, metadata: object = {}) => ({ apiVersion: `authorization.${domain}/v1`, kind: 'SubjectAccessReview', metadata, spec });

  it('answers allowed for a granted subject, with the authorizer\'s reason; the attributes reach the authorizer as kube builds them', async () => {
    authorizer.seen.length = 0;
    const res = await post(path, sar({ user: 'alice', uid: 'u1', groups: ['devs'], extra: { scopes: ['a', 'b'] }, resourceAttributes: { namespace: 'ns1', verb: 'get', resource: 'pods', name: 'p' } }));
    expect(res.status).toBe(201);
    expect(res.json().status).toEqual({ allowed: true, reason: 'granted by the table' });
    const asked = authorizer.seen.find((a) => a.user.name === 'alice' && a.resource === 'pods');
    expect(asked).toMatchObject({
      user: { name: 'alice', uid: 'u1', groups: ['devs'], extra: { scopes: ['a', 'b'] } },
      verb: 'get',
      isResourceRequest: true,
      namespace: 'ns1',
      apiGroup: '',
      apiVersion: '*',
      resource: 'pods',
      subresource: '',
      name: 'p',
    });
  });

  it('answers denied with the reason for an explicit deny, and neither for no opinion', async () => {
    const denied = await post(path, sar({ user: 'bob', resourceAttributes: { namespace: 'x', verb: 'delete', resource: 'pods' } }));
    expect(denied.json().status).toEqual({ allowed: false, denied: true, reason: 'bob never deletes' });
    const none = await post(path, sar({ user: 'bob', resourceAttributes: { namespace: 'ns1', verb: 'get', resource: 'pods' } }));
    expect(none.json().status).toEqual({ allowed: false });
  });

  it('checks groups alone, and non-resource paths', async () => {
    expect((await post(path, sar({ groups: ['auditors'], resourceAttributes: { verb: 'list', resource: 'secrets' } }))).json().status.allowed).toBe(true);
    expect((await post(path, sar({ user: 'alice', nonResourceAttributes: { path: '/healthz', verb: 'get' } }))).json().status.allowed).toBe(true);
    expect((await post(path, sar({ user: 'alice', nonResourceAttributes: { path: '/metrics', verb: 'get' } }))).json().status.allowed).toBe(false);
  });

  it.each([
    [
      'both attribute kinds',
      { user: 'a', resourceAttributes: { verb: 'get' }, nonResourceAttributes: { path: '/x', verb: 'get' } },
      {},
      'SubjectAccessReview.authorization.platform.io "" is invalid: spec.nonResourceAttributes: Invalid value: {"path":"/x","verb":"get"}: cannot be specified in combination with resourceAttributes',
    ],
    [
      'neither attribute kind',
      { user: 'a' },
      {},
      'SubjectAccessReview.authorization.platform.io "" is invalid: spec.resourceAttributes: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified',
    ],
    [
      'no user nor groups',
      { resourceAttributes: { verb: 'get' } },
      {},
      'SubjectAccessReview.authorization.platform.io "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified',
    ],
    [
      'metadata that is not empty',
      { user: 'a', resourceAttributes: { verb: 'get' } },
      { labels: { a: 'b' } },
      'SubjectAccessReview.authorization.platform.io "" is invalid: metadata: Invalid value: {"labels":{"a":"b"}}: must be empty',
    ],
  ])('refuses %s (422, kube\'s message)', async (_what, spec, metadata, message) => {
    const res = await post(path, sar(spec, metadata));
    expect(res.status).toBe(422);
    expect(res.json()).toMatchObject({ reason: 'Invalid', message });
  });

  it('answers a protobuf body in protobuf', async () => {
    const res = await postPb(path, `authorization.${domain}/v1`, 'SubjectAccessReview', {
      spec: { user: 'alice', groups: ['devs'], extra: { k: { items: ['v'] } }, resourceAttributes: { namespace: 'ns1', verb: 'get', resource: 'pods' } },
    });
    expect(res.status).toBe(201);
    const got = open(res.raw, 'SubjectAccessReview');
    expect(got.kind).toBe('SubjectAccessReview');
    expect(got.object.status).toEqual({ allowed: true, reason: 'granted by the table' });
    expect(got.object.spec.extra).toEqual({ k: { items: ['v'] } });
  });
});

describe('SelfSubjectAccessReview', () => {
  const path = `${authz}/selfsubjectaccessreviews`;

  it('asks about the requester (protobuf, as kubectl auth can-i sends it)', async () => {
    const value = { spec: { resourceAttributes: { namespace: 'ns1', verb: 'get', resource: 'pods' } } };
    const yes = open((await postPb(path, `authorization.${domain}/v1`, 'SelfSubjectAccessReview', value, TOKENS.alice)).raw, 'SelfSubjectAccessReview');
    expect(yes.object.status.allowed).toBe(true);
    const no = open((await postPb(path, `authorization.${domain}/v1`, 'SelfSubjectAccessReview', value, TOKENS.bob)).raw, 'SelfSubjectAccessReview');
    expect(no.object.status.allowed).toBeFalsy();
    expect(no.object.spec.resourceAttributes).toEqual({ namespace: 'ns1', verb: 'get', resource: 'pods' });
  });

  it('asks about the requester (JSON); a status sent in is replaced', async () => {
    const res = await post(path, { kind: 'SelfSubjectAccessReview', apiVersion: `authorization.${domain}/v1`, spec: { nonResourceAttributes: { path: '/healthz', verb: 'get' } }, status: { allowed: false, denied: true } }, TOKENS.alice);
    expect(res.status).toBe(201);
    expect(res.json().status).toEqual({ allowed: true, reason: 'granted by the table' });
  });

  it('refuses a spec with neither attribute kind (422)', async () => {
    const res = await post(path, { spec: {} }, TOKENS.alice);
    expect(res.status).toBe(422);
    expect(res.json().message).toBe(
      `SelfSubjectAccessReview.authorization.${domain} "" is invalid: spec.resourceAttributes: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified`,
    );
  });
});

describe('LocalSubjectAccessReview', () => {
  const path = (ns: string) => `${authz}/namespaces/${ns}/localsubjectaccessreviews`;
  const lsar = (spec: object, metadata: object = {}) => ({ apiVersion: `authorization.${domain}/v1`, kind: 'LocalSubjectAccessReview', metadata, spec });

  it('reviews inside the URL namespace (which need not exist: nothing is written)', async () => {
    const res = await post(path('ns1'), lsar({ user: 'alice', resourceAttributes: { namespace: 'ns1', verb: 'get', resource: 'pods' } }));
    expect(res.status).toBe(201);
    expect(res.json().metadata.namespace).toBe('ns1');
    expect(res.json().status.allowed).toBe(true);
  });

  it('refuses spec.resourceAttributes.namespace other than the URL\'s (422, kube\'s message)', async () => {
    const res = await post(path('ns1'), lsar({ user: 'alice', resourceAttributes: { namespace: 'ns2', verb: 'get', resource: 'pods' } }));
    expect(res.status).toBe(422);
    expect(res.json().message).toBe(
      `LocalSubjectAccessReview.authorization.${domain} "" is invalid: spec.resourceAttributes.namespace: Invalid value: "ns2": must match metadata.namespace`,
    );
  });

  it('refuses a metadata.namespace other than the URL\'s (400), non-resource attributes and other metadata (422)', async () => {
    const other = await post(path('ns1'), lsar({ user: 'a', resourceAttributes: { namespace: 'ns1', verb: 'get' } }, { namespace: 'ns2' }));
    expect(other.status).toBe(400);
    expect(other.json().message).toBe('the namespace of the provided object does not match the namespace sent on the request');
    const nonResource = await post(path('ns1'), lsar({ user: 'a', nonResourceAttributes: { path: '/x', verb: 'get' } }));
    expect(nonResource.status).toBe(422);
    expect(nonResource.json().message).toContain('spec.nonResourceAttributes: Invalid value: {"path":"/x","verb":"get"}: disallowed on this kind of request');
    const named = await post(path('ns1'), lsar({ user: 'a', resourceAttributes: { namespace: 'ns1', verb: 'get' } }, { name: 'n' }));
    expect(named.status).toBe(422);
    expect(named.json().message).toContain('must be empty except for namespace');
  });

  it('is not served outside a namespace', async () => {
    expect((await post(`${authz}/localsubjectaccessreviews`, lsar({ user: 'a', resourceAttributes: { verb: 'get' } }))).status).toBe(404);
  });
});

describe('SelfSubjectRulesReview', () => {
  const path = `${authz}/selfsubjectrulesreviews`;

  it('answers incomplete with no rules while the server lists none (JSON and protobuf)', async () => {
    const res = await post(path, { spec: { namespace: 'ns1' } }, TOKENS.alice);
    expect(res.status).toBe(201);
    expect(res.json()).toMatchObject({ kind: 'SelfSubjectRulesReview', spec: {}, status: { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'the authorizer does not list rules' } });
    const pb = await postPb(path, `authorization.${domain}/v1`, 'SelfSubjectRulesReview', { spec: { namespace: 'ns1' } }, TOKENS.alice);
    expect(pb.status).toBe(201);
    expect(open(pb.raw, 'SelfSubjectRulesReview').object.status).toEqual({ incomplete: true, evaluationError: 'the authorizer does not list rules' });
  });

  it('is a 400 without a namespace (kube\'s message)', async () => {
    const res = await post(path, { spec: {} }, TOKENS.alice);
    expect(res.status).toBe(400);
    expect(res.json().message).toBe('no namespace on request');
  });
});

describe('nothing is stored', () => {
  const all: [string, boolean][] = [
    [`${authn}/selfsubjectreviews`, false],
    [`${authn}/tokenreviews`, false],
    [`${authz}/subjectaccessreviews`, false],
    [`${authz}/selfsubjectaccessreviews`, false],
    [`${authz}/selfsubjectrulesreviews`, false],
    [`${authz}/namespaces/ns1/localsubjectaccessreviews`, true],
  ];

  it('answers 405 to get, list, watch, update, patch, delete and deletecollection', async () => {
    for (const [collection] of all) {
      const calls: [string, string, ApiRequestOptions?][] = [
        ['GET', collection],
        ['GET', collection, { query: { watch: 'true' } }],
        ['GET', `${collection}/x`],
        ['PUT', `${collection}/x`, { body: {} }],
        ['PATCH', `${collection}/x`, { body: {} }],
        ['DELETE', `${collection}/x`],
        ['DELETE', collection],
      ];
      for (const [method, p, o] of calls) {
        const res = await req(method, p, o);
        expect([collection, method, p, res.status]).toEqual([collection, method, p, 405]);
        expect(res.json()).toMatchObject({ kind: 'Status', reason: 'MethodNotAllowed' });
      }
    }
  });

  it('leaves the store untouched however many reviews are made', async () => {
    const before = await storedKeys();
    for (let i = 0; i < 3; i++) {
      expect((await post(`${authn}/selfsubjectreviews`, {})).status).toBe(201);
      expect((await post(`${authn}/tokenreviews`, { spec: { token: TOKENS.bob } })).status).toBe(201);
      expect((await post(`${authz}/selfsubjectaccessreviews`, { spec: { resourceAttributes: { verb: 'get' } } })).status).toBe(201);
      expect((await post(`${authz}/subjectaccessreviews`, { spec: { user: 'x', resourceAttributes: { verb: 'get' } } })).status).toBe(201);
      expect((await post(`${authz}/namespaces/ns1/localsubjectaccessreviews`, { spec: { user: 'x', resourceAttributes: { namespace: 'ns1', verb: 'get' } } })).status).toBe(201);
      expect((await post(`${authz}/selfsubjectrulesreviews`, { spec: { namespace: 'ns1' } })).status).toBe(201);
    }
    const after = await storedKeys();
    expect(after).toEqual(before);
    expect(after.filter((k) => /review/i.test(k))).toEqual([]);
  });

  it('discovery lists the reviews with the create verb only', async () => {
    for (const [group, resources] of [
      [`authentication.${domain}`, ['selfsubjectreviews', 'tokenreviews']],
      [`authorization.${domain}`, ['localsubjectaccessreviews', 'selfsubjectaccessreviews', 'selfsubjectrulesreviews', 'subjectaccessreviews']],
    ] as const) {
      const doc = (await req('GET', `/apis/${group}/v1`)).json();
      const listed = (doc.resources as { name: string; verbs: string[]; namespaced: boolean }[]).filter((r) => !r.name.includes('/'));
      expect(listed.map((r) => r.name).sort()).toEqual([...resources]);
      for (const r of listed) {
        expect(r.verbs).toEqual(['create']);
        expect(r.namespaced).toBe(r.name === 'localsubjectaccessreviews');
      }
    }
  });
});
