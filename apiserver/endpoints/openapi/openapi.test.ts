import { createHash } from 'node:crypto';
import { naming, type Naming } from '../../naming/naming.js';
import { podTemplates } from '../../registry/kinds/core/podtemplate.js';
import { serviceAccounts } from '../../registry/kinds/core/serviceaccount.js';
import { parseRuntimeConfig } from '../../config/runtime-config.js';
import { startTestApp, type TestApp } from '../discovery/test-app.js';
import { csrKind, deploymentKind, namespaceKind, secretKind, testKinds } from '../discovery/test-kinds.js';
import { kindDefinitionName, metaDefinitionName, operationGroupVersion, operationTag } from './definition-names.js';
import { openapiDocuments } from './openapi-documents.js';
import { openapiEndpoints } from './openapi-endpoints.js';
import type { PathOptions } from './paths.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
const platform = naming('platform.io');
const k8s = naming('k8s.io');
const allStrategic: PathOptions = { strategicMergePatch: () => true };
const parse = (b: { bytes: Buffer }): any => JSON.parse(b.bytes.toString());
const body = (res: Response): Promise<any> => res.json();

function v3(n: Naming, key: string, o: PathOptions = allStrategic): any {
  return parse(openapiDocuments(testKinds, n, undefined, o).v3.get(key)!);
}

/** kubectl's `--validate=strict` support check (query_param_verifier_v3), restated. */
function supportsFieldValidation(doc: any, gvk: { group: string; version: string; kind: string }): boolean {
  for (const item of Object.values<any>(doc.paths)) {
    const op = item.patch;
    if (op === undefined) continue;
    const g = op['x-kubernetes-group-version-kind'];
    if (g?.group !== gvk.group || g?.version !== gvk.version || g?.kind !== gvk.kind) continue;
    return op.parameters.some((p: any) => p.name === 'fieldValidation' && p.in === 'query');
  }
  return false;
}

/** Every `$ref` in `doc` names an existing definition. */
function danglingRefs(doc: any, prefix: string, defs: Record<string, unknown>): string[] {
  const bad: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        if (k === '$ref' && (typeof child !== 'string' || !child.startsWith(prefix) || !(child.slice(prefix.length) in defs))) bad.push(String(child));
        else walk(child);
      }
    }
  };
  walk(doc);
  return bad;
}

/** Where kubectl explain finds a kind: the schema whose GVK extension lists it. */
function schemaOf(doc: any, group: string, version: string, kind: string): any {
  return Object.values<any>(doc.components.schemas).find((s) =>
    (s['x-kubernetes-group-version-kind'] ?? []).some((g: any) => g.group === group && g.version === version && g.kind === kind));
}

describe('definition names', () => {
  it('follow Kubernetes under k8s.io and reverse the platform domain otherwise', () => {
    expect(kindDefinitionName(k8s, '', 'v1', 'Secret')).toBe('io.k8s.api.core.v1.Secret');
    expect(kindDefinitionName(k8s, 'certificates.k8s.io', 'v1', 'CertificateSigningRequest')).toBe('io.k8s.api.certificates.v1.CertificateSigningRequest');
    expect(kindDefinitionName(k8s, 'rbac.authorization.k8s.io', 'v1', 'Role')).toBe('io.k8s.api.rbac.v1.Role');
    expect(kindDefinitionName(k8s, 'apps', 'v1', 'Deployment')).toBe('io.k8s.api.apps.v1.Deployment');
    expect(kindDefinitionName(platform, '', 'v1', 'Secret')).toBe('io.platform.api.core.v1.Secret');
    expect(kindDefinitionName(platform, 'certificates.platform.io', 'v1', 'X')).toBe('io.platform.api.certificates.v1.X');
    expect(kindDefinitionName(platform, 'stable.example.com', 'v1', 'CronTab')).toBe('com.example.stable.v1.CronTab');
    expect(metaDefinitionName(k8s, 'ObjectMeta')).toBe('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    expect(metaDefinitionName(platform, 'Status')).toBe('io.platform.apimachinery.pkg.apis.meta.v1.Status');
  });

  it('build operation ids and tags as Kubernetes does', () => {
    expect(operationGroupVersion(k8s, '', 'v1')).toBe('CoreV1');
    expect(operationGroupVersion(k8s, 'rbac.authorization.k8s.io', 'v1beta1')).toBe('RbacAuthorizationV1beta1');
    expect(operationGroupVersion(platform, 'certificates.platform.io', 'v1')).toBe('CertificatesV1');
    expect(operationTag(k8s, 'rbac.authorization.k8s.io', 'v1')).toBe('rbacAuthorization_v1');
    expect(operationTag(platform, '', 'v1')).toBe('core_v1');
  });
});

describe('OpenAPI v3 documents', () => {
  it('list every served group version in the root with its hash', () => {
    const docs = openapiDocuments(testKinds, platform, undefined, allStrategic);
    const root = parse(docs.v3Root);
    expect(Object.keys(root.paths)).toEqual(['api/v1', 'apis/apps/v1', 'apis/certificates.platform.io/v1', 'apis/certificates.platform.io/v1beta1']);
    const core = docs.v3.get('api/v1')!;
    const hash = createHash('sha512').update(core.bytes).digest('hex').toUpperCase();
    expect(root.paths['api/v1']).toEqual({ serverRelativeURL: `/openapi/v3/api/v1?hash=${hash}` });
  });

  it('leave out group versions --runtime-config disables', () => {
    const rc = parseRuntimeConfig('apps/v1=false');
    const root = parse(openapiDocuments(testKinds, platform, (g, v, r) => rc.enabled(g, v, r), allStrategic).v3Root);
    expect(Object.keys(root.paths)).toEqual(['api/v1', 'apis/certificates.platform.io/v1']);
  });

  it.each([['platform.io', platform], ['k8s.io', k8s]])('carry each kind with its GVK, list and the shared types (%s)', (_, n) => {
    const doc = v3(n, 'api/v1');
    expect(doc.openapi).toBe('3.0.0');
    const schemas = doc.components.schemas;
    const secretName = kindDefinitionName(n, '', 'v1', 'Secret');
    expect(schemas[secretName]['x-kubernetes-group-version-kind']).toEqual([{ group: '', version: 'v1', kind: 'Secret' }]);
    expect(schemaOf(doc, '', 'v1', 'SecretList').properties.items.items.allOf[0].$ref).toBe(`#/components/schemas/${secretName}`);
    for (const t of ['ObjectMeta', 'ListMeta', 'Status', 'StatusDetails', 'StatusCause', 'DeleteOptions', 'Preconditions', 'Patch', 'WatchEvent']) {
      expect(schemas[metaDefinitionName(n, t)]).toBeDefined();
    }
    expect(schemas[secretName].properties.metadata.allOf[0].$ref).toBe(`#/components/schemas/${metaDefinitionName(n, 'ObjectMeta')}`);
    expect(danglingRefs(doc, '#/components/schemas/', schemas)).toEqual([]);
  });

  it('let kubectl explain find secret.type', () => {
    const secret = schemaOf(v3(platform, 'api/v1'), '', 'v1', 'Secret');
    expect(secret.properties.type).toEqual({ type: 'string', description: 'Used to facilitate programmatic handling of secret data.' });
  });

  it('publish PATCH operations kubectl --validate=strict accepts, for every kind', () => {
    for (const n of [platform, k8s]) {
      const core = v3(n, 'api/v1');
      expect(supportsFieldValidation(core, { group: '', version: 'v1', kind: 'Secret' })).toBe(true);
      expect(supportsFieldValidation(core, { group: '', version: 'v1', kind: 'Namespace' })).toBe(true);
      expect(supportsFieldValidation(v3(n, 'apis/apps/v1'), { group: 'apps', version: 'v1', kind: 'Deployment' })).toBe(true);
      const g = n.group('certificates');
      expect(supportsFieldValidation(v3(n, `apis/${g}/v1`), { group: g, version: 'v1', kind: 'CertificateSigningRequest' })).toBe(true);
    }
  });

  it('describe operations with actions, parameters and patch content types', () => {
    const doc = v3(platform, 'api/v1');
    const item = doc.paths['/api/v1/namespaces/{namespace}/secrets/{name}'];
    expect(item.parameters.map((p: any) => [p.name, p.in])).toEqual([['name', 'path'], ['namespace', 'path'], ['pretty', 'query']]);
    expect(Object.keys(item).sort()).toEqual(['delete', 'get', 'parameters', 'patch', 'put']);
    const patch = item.patch;
    expect(patch).toMatchObject({
      operationId: 'patchCoreV1NamespacedSecret', tags: ['core_v1'], 'x-platform-action': 'patch',
      'x-kubernetes-group-version-kind': { group: '', version: 'v1', kind: 'Secret' },
    });
    expect(patch['x-kubernetes-action']).toBeUndefined();
    expect(patch.parameters.map((p: any) => p.name)).toEqual(['dryRun', 'fieldManager', 'fieldValidation', 'force']);
    expect(Object.keys(patch.requestBody.content)).toEqual([
      'application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml',
    ]);
    expect(Object.keys(patch.responses['200'].content)).toEqual(['application/json', 'application/yaml', 'application/vnd.platform.protobuf']);
    expect(Object.keys(patch.responses)).toEqual(['200', '201', '401']);
    expect(item.put.parameters.map((p: any) => p.name)).toEqual(['dryRun', 'fieldManager', 'fieldValidation']);
    expect(item.delete.parameters.map((p: any) => p.name)).toContain('propagationPolicy');

    const collection = doc.paths['/api/v1/namespaces/{namespace}/secrets'];
    expect(collection.get.operationId).toBe('listCoreV1NamespacedSecret');
    expect(collection.get.parameters.map((p: any) => p.name)).toEqual([
      'allowWatchBookmarks', 'continue', 'fieldSelector', 'labelSelector', 'limit', 'resourceVersion', 'resourceVersionMatch',
      'sendInitialEvents', 'timeoutSeconds', 'watch',
    ]);
    expect(collection.post.parameters.map((p: any) => p.name)).toEqual(['dryRun', 'fieldManager', 'fieldValidation']);
    expect(collection.delete.operationId).toBe('deleteCoreV1CollectionNamespacedSecret');
    expect(doc.paths['/api/v1/secrets'].get.operationId).toBe('listCoreV1SecretForAllNamespaces');
    expect(doc.paths['/api/v1/watch/namespaces/{namespace}/secrets'].get['x-platform-action']).toBe('watchlist');
  });

  it('publish only the verbs and sub-resources a kind serves', () => {
    const doc = v3(platform, 'api/v1');
    expect(doc.paths['/api/v1/namespaces'].delete).toBeUndefined();
    expect(doc.paths['/api/v1/namespaces'].parameters.map((p: any) => p.name)).toEqual(['pretty']);
    expect(doc.paths['/api/v1/namespaces/{name}/status'].patch.operationId).toBe('patchCoreV1NamespaceStatus');
    expect(doc.paths['/api/v1/namespaces/{namespace}/secrets/{name}/status']).toBeUndefined();
  });

  it("publish document 2's reduced query parameter sets for ServiceAccount and PodTemplate, Kubernetes' full sets under k8s.io", () => {
    const params = (doc: any, path: string, method: string): string[] => doc.paths[path][method].parameters.filter((p: any) => p.in === 'query').map((p: any) => p.name);
    for (const dialect of ['v3', 'v2'] as const) {
      const docs = openapiDocuments([serviceAccounts, podTemplates], platform, undefined, allStrategic);
      const doc = parse(dialect === 'v3' ? docs.v3.get('api/v1')! : docs.v2());
      const sa = '/api/v1/namespaces/{namespace}/serviceaccounts';
      expect(params(doc, sa, 'get')).toEqual(['continue', 'limit', 'sendInitialEvents', 'watch']);
      expect(params(doc, '/api/v1/serviceaccounts', 'get')).toEqual(['continue', 'limit', 'watch']);
      expect(params(doc, sa, 'post')).toEqual(['dryRun']);
      expect(params(doc, `${sa}/{name}`, 'patch')).toEqual(['dryRun', 'force']);
      expect(params(doc, `${sa}/{name}`, 'delete')).toEqual(['dryRun']);
      expect(params(doc, sa, 'delete')).toEqual(['continue', 'dryRun', 'limit', 'sendInitialEvents']);
      // The token sub-resource keeps TokenRequest's parameters.
      expect(params(doc, `${sa}/{name}/token`, 'post')).toEqual(['dryRun', 'fieldManager', 'fieldValidation']);
      const pt = '/api/v1/namespaces/{namespace}/podtemplates';
      expect(params(doc, pt, 'get')).toEqual(['continue', 'limit', 'watch']);
      expect(params(doc, `${pt}/{name}`, 'put')).toEqual(['dryRun']);
      expect(params(doc, pt, 'delete')).toEqual(['continue', 'dryRun', 'limit']);
      expect(doc.paths[pt].parameters.map((p: any) => p.name)).toEqual(['namespace', 'pretty']);

      const full = openapiDocuments([serviceAccounts, podTemplates], k8s, undefined, allStrategic);
      const kube = parse(dialect === 'v3' ? full.v3.get('api/v1')! : full.v2());
      expect(params(kube, sa, 'post')).toEqual(['dryRun', 'fieldManager', 'fieldValidation']);
      expect(params(kube, pt, 'get')).toContain('labelSelector');
    }
  });

  it('publish a connect sub-resource with its own kind (serviceaccounts/{name}/token takes and returns TokenRequest)', () => {
    for (const dialect of ['v3', 'v2'] as const) {
      const docs = openapiDocuments([serviceAccounts], k8s, undefined, allStrategic);
      const doc = parse(dialect === 'v3' ? docs.v3.get('api/v1')! : docs.v2());
      const item = doc.paths['/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token'];
      expect(Object.keys(item)).toEqual(['post', 'parameters']);
      expect(item.parameters.map((p: any) => p.name)).toEqual(['name', 'namespace', 'pretty']);
      expect(item.post).toMatchObject({
        operationId: 'createCoreV1NamespacedServiceAccountToken',
        description: 'create token of a ServiceAccount',
        'x-kubernetes-action': 'post',
        'x-kubernetes-group-version-kind': { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' },
      });
      expect(item.post.parameters.map((p: any) => p.name)).toEqual([...(dialect === 'v2' ? ['body'] : []), 'dryRun', 'fieldManager', 'fieldValidation']);
      const prefix = dialect === 'v3' ? '#/components/schemas/' : '#/definitions/';
      const defs = dialect === 'v3' ? doc.components.schemas : doc.definitions;
      const ref = { $ref: `${prefix}io.k8s.api.authentication.v1.TokenRequest` };
      expect(dialect === 'v3' ? item.post.responses['201'].content['application/json'].schema : item.post.responses['201'].schema).toEqual(ref);
      expect(defs['io.k8s.api.authentication.v1.TokenRequest']['x-kubernetes-group-version-kind']).toEqual([
        { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' },
      ]);
      expect(defs['io.k8s.api.authentication.v1.TokenRequest'].properties.spec).toBeDefined();
      expect(danglingRefs(doc, prefix, defs)).toEqual([]);
    }
  });

  it('omit strategic merge patch for kinds that do not take it', () => {
    const doc = v3(platform, 'apis/apps/v1', { strategicMergePatch: (k) => k !== deploymentKind });
    const op = doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'].patch;
    expect(Object.keys(op.requestBody.content)).not.toContain('application/strategic-merge-patch+json');
  });

  it('rename schema extensions with the domain, but never the GVK', () => {
    const containers = (n: Naming) => schemaOf(v3(n, 'apis/apps/v1'), 'apps', 'v1', 'Deployment').properties.spec.properties.containers;
    expect(containers(platform)).toMatchObject({ 'x-platform-list-type': 'map', 'x-platform-list-map-keys': ['name'], 'x-platform-patch-merge-key': 'name' });
    expect(containers(platform)['x-kubernetes-list-type']).toBeUndefined();
    // kubectl reads the strategic merge extensions under their Kubernetes names whatever the domain
    expect(containers(platform)).toMatchObject({ 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'name' });
    expect(containers(k8s)).toMatchObject({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-patch-strategy': 'merge' });
    const surge = schemaOf(v3(platform, 'apis/apps/v1'), 'apps', 'v1', 'Deployment').properties.spec.properties.strategy.properties.maxSurge;
    expect(surge).toEqual({ type: 'string', format: 'int-or-string', 'x-platform-int-or-string': true });
  });
});

describe('OpenAPI v2 document', () => {
  it('carries every group version, definitions by Kubernetes name, and resolvable refs', () => {
    const doc = parse(openapiDocuments(testKinds, k8s, undefined, allStrategic).v2());
    expect(doc.swagger).toBe('2.0');
    const defs = doc.definitions;
    expect(defs['io.k8s.api.core.v1.Secret']['x-kubernetes-group-version-kind']).toEqual([{ group: '', version: 'v1', kind: 'Secret' }]);
    expect(defs['io.k8s.api.certificates.v1beta1.CertificateSigningRequest']).toBeDefined();
    expect(danglingRefs(doc, '#/definitions/', defs)).toEqual([]);
    const patch = doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'].patch;
    expect(patch.consumes).toContain('application/strategic-merge-patch+json');
    expect(patch['x-kubernetes-action']).toBe('patch');
    expect(patch['x-kubernetes-group-version-kind']).toEqual({ group: 'apps', version: 'v1', kind: 'Deployment' });
    expect(patch.parameters[0]).toMatchObject({ name: 'body', in: 'body', required: true, schema: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch' } });
    expect(patch.parameters.find((p: any) => p.name === 'fieldValidation')).toMatchObject({ in: 'query', type: 'string' });
    const surge = defs['io.k8s.api.apps.v1.Deployment'].properties.spec.properties.strategy.properties.maxSurge;
    expect(surge).toEqual({ type: 'string', format: 'int-or-string' });
    expect(defs['io.k8s.api.core.v1.Secret'].properties.metadata).toMatchObject({ $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' });
  });
});

describe('produces and consumes', () => {
  const v2 = (o: PathOptions, n: Naming = k8s): any => parse(openapiDocuments(testKinds, n, undefined, o).v2());
  const secretPaths = (doc: any) => ({
    item: doc.paths['/api/v1/namespaces/{namespace}/secrets/{name}'],
    list: doc.paths['/api/v1/namespaces/{namespace}/secrets'].get,
    watch: doc.paths['/api/v1/watch/namespaces/{namespace}/secrets'].get,
  });

  it('list JSON, YAML and protobuf (the domain name), the watch streams, and kube-apiserver patch types', () => {
    for (const [n, pb] of [[k8s, 'application/vnd.kubernetes.protobuf'], [platform, 'application/vnd.platform.protobuf']] as const) {
      const { item, list, watch } = secretPaths(v2(allStrategic, n));
      expect(item.get.produces).toEqual(['application/json', 'application/yaml', pb]);
      expect(item.put.consumes).toEqual(['*/*']);
      expect(item.patch.consumes).toEqual([
        'application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml',
      ]);
      const stream = ['application/json', 'application/yaml', pb, 'application/json;stream=watch', `${pb};stream=watch`];
      expect(list.produces).toEqual(stream);
      expect(watch.produces).toEqual(stream);
    }
  });

  it('add the CBOR forms when CBOR is served, in v2 and v3 alike', () => {
    const { item, list } = secretPaths(v2({ ...allStrategic, cbor: true }));
    expect(item.get.produces).toEqual(['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf', 'application/cbor']);
    expect(item.patch.consumes).toEqual([
      'application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml',
      'application/apply-patch+cbor',
    ]);
    expect(list.produces).toEqual([
      'application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf', 'application/cbor',
      'application/json;stream=watch', 'application/vnd.kubernetes.protobuf;stream=watch', 'application/cbor-seq',
    ]);
    const doc3 = v3(k8s, 'api/v1', { ...allStrategic, cbor: true });
    const patch3 = doc3.paths['/api/v1/namespaces/{namespace}/secrets/{name}'].patch;
    expect(Object.keys(patch3.requestBody.content)).toContain('application/apply-patch+cbor');
    expect(Object.keys(patch3.responses['200'].content)).toContain('application/cbor');
  });

  it('leave protobuf out for kinds that have no protobuf form', () => {
    const { item, list } = secretPaths(v2({ ...allStrategic, protobuf: (k) => k !== secretKind }));
    expect(item.get.produces).toEqual(['application/json', 'application/yaml']);
    expect(list.produces).toEqual(['application/json', 'application/yaml', 'application/json;stream=watch']);
    const ns = v2({ ...allStrategic, protobuf: (k) => k !== secretKind }).paths['/api/v1/namespaces/{name}'].get;
    expect(ns.produces).toContain('application/vnd.kubernetes.protobuf');
  });

  it('reach the documents through the endpoint option', async () => {
    const app = await startTestApp(openapiEndpoints({ naming: k8s, kinds: [secretKind], cbor: true }));
    try {
      const doc = await body(await app.get('/openapi/v2'));
      expect(doc.paths['/api/v1/namespaces/{namespace}/secrets/{name}'].patch.consumes).toContain('application/apply-patch+cbor');
    } finally {
      await app.close();
    }
  });
});

describe('openapiEndpoints over HTTP', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(openapiEndpoints({ naming: platform, kinds: [secretKind, namespaceKind, deploymentKind, csrKind] }));
  });
  afterAll(() => app.close());

  it('serves the v3 root with an ETag and 304', async () => {
    const res = await app.get('/openapi/v3?timeout=32s');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('cache-control')).toBe('no-cache, private');
    const etag = res.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9A-F]{128}"$/);
    expect(Object.keys((await body(res)).paths)).toEqual(['api/v1', 'apis/apps/v1', 'apis/certificates.platform.io/v1']);
    expect((await app.get('/openapi/v3', { 'If-None-Match': etag })).status).toBe(304);
  });

  it('serves a hashed group version as immutable, redirects a stale hash, and revalidates an unhashed one', async () => {
    const root = await body(await app.get('/openapi/v3'));
    const url: string = root.paths['apis/apps/v1'].serverRelativeURL;
    const hashed = await app.get(url);
    expect(hashed.status).toBe(200);
    expect(hashed.headers.get('cache-control')).toBe('public, immutable');
    expect(Date.parse(hashed.headers.get('expires')!)).toBeGreaterThan(Date.now() + 300 * 24 * 3600 * 1000);
    expect(hashed.headers.get('etag')).toBe(`"${url.split('hash=')[1]}"`);
    expect(schemaOf(await body(hashed), 'apps', 'v1', 'Deployment')).toBeDefined();

    const stale = await app.get('/openapi/v3/apis/apps/v1?hash=0123', {}, { redirect: 'manual' });
    expect(stale.status).toBe(301);
    expect(stale.headers.get('location')).toBe(url);

    const plain = await app.get('/openapi/v3/apis/apps/v1');
    expect(plain.headers.get('cache-control')).toBe('no-cache, private');
    expect((await app.get('/openapi/v3/apis/apps/v1', { 'If-None-Match': hashed.headers.get('etag')! })).status).toBe(304);
  });

  it("lists strategic merge patch on PATCH from each kind's strategy (default yes; custom resources say no)", async () => {
    const other = await startTestApp(openapiEndpoints({ naming: platform, kinds: [secretKind, { ...deploymentKind, strategicMergePatch: false }] }));
    try {
      const consumes = async (a: TestApp, gv: string, path: string): Promise<string[]> =>
        Object.keys((await body(await a.get(`/openapi/v3/${gv}`))).paths[path].patch.requestBody.content);
      expect(await consumes(other, 'api/v1', '/api/v1/namespaces/{namespace}/secrets/{name}')).toContain('application/strategic-merge-patch+json');
      expect(await consumes(other, 'apis/apps/v1', '/apis/apps/v1/namespaces/{namespace}/deployments/{name}')).not.toContain('application/strategic-merge-patch+json');
      expect(await consumes(app, 'apis/apps/v1', '/apis/apps/v1/namespaces/{namespace}/deployments/{name}')).toContain('application/strategic-merge-patch+json');
    } finally {
      await other.close();
    }
  });

  it('answers 404 for an unknown group version, 406 for v3 in protobuf and for v2 in a type it does not serve', async () => {
    expect((await app.get('/openapi/v3/apis/nope/v1')).status).toBe(404);
    expect((await app.get('/openapi/v3/apis/certificates.platform.io/v1beta1')).status).toBe(404);
    const pb = await app.get('/openapi/v3/api/v1', { Accept: 'application/com.github.proto-openapi.spec.v3.v1.0+protobuf' });
    expect(pb.status).toBe(406);
    for (const accept of ['application/vnd.kubernetes.protobuf', 'text/html', 'application/json;q=0']) {
      const res = await app.get('/openapi/v2', { Accept: accept });
      expect(res.status).toBe(406);
      expect((await body(res)).message).toContain('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    }
  });

  it('serves /openapi/v2 in protobuf for both names, with the JSON ETag, Vary: Accept and 304', async () => {
    const json = await app.get('/openapi/v2');
    expect(json.headers.get('content-type')).toBe('application/json');
    for (const accept of [
      'application/com.github.proto-openapi.spec.v2@v1.0+protobuf',
      'application/com.github.proto-openapi.spec.v2.v1.0+protobuf',
      'application/json;q=0.5, application/com.github.proto-openapi.spec.v2@v1.0+protobuf',
    ]) {
      const res = await app.get('/openapi/v2', { Accept: accept });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
      expect(res.headers.get('etag')).toBe(json.headers.get('etag'));
      expect(res.headers.get('vary')).toContain('Accept');
      const bytes = Buffer.from(await res.arrayBuffer());
      // Field 1 (swagger, length-delimited) comes first: 0x0a, length 3, "2.0".
      expect([...bytes.subarray(0, 5)]).toEqual([0x0a, 3, ...Buffer.from('2.0')]);
      const again = await app.get('/openapi/v2', { Accept: accept, 'If-None-Match': res.headers.get('etag')! });
      expect(again.status).toBe(304);
    }
  });

  it('answers 503 for v2 in protobuf when the document has a keyword gnostic rejects; JSON is still served', async () => {
    const odd = { ...secretKind, schema: { ...secretKind.schema, properties: { ...secretKind.schema.properties, odd: { type: 'string', patternProperties: {} } as never } } };
    const other = await startTestApp(openapiEndpoints({ naming: platform, kinds: [odd] }));
    try {
      const res = await other.get('/openapi/v2', { Accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' });
      expect(res.status).toBe(503);
      expect((await body(res)).message).toContain('has invalid property: patternProperties');
      expect((await other.get('/openapi/v2')).status).toBe(200);
    } finally {
      await other.close();
    }
  });

  it('serves /openapi/v2 as JSON with an ETag', async () => {
    const res = await app.get('/openapi/v2', { Accept: 'application/json' });
    expect(res.status).toBe(200);
    const doc = await body(res);
    expect(doc.definitions['io.platform.api.core.v1.Secret']).toBeDefined();
    expect((await app.get('/openapi/v2', { 'If-None-Match': res.headers.get('etag')! })).status).toBe(304);
  });
});
