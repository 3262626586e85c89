/**
 * End to end: the real-world CustomResourceDefinitions of `../shared/testdata/crds/` (Gateway API standard
 * v1.6.1, cert-manager v1.21.1, Argo CD v3.5.1, prometheus-operator v0.93.0; see its SOURCES.md), applied
 * unmodified with stock kubectl to the BUILT server in k8s.io mode, once with client-side `kubectl apply`
 * and once with `kubectl apply --server-side`, one server each:
 *
 * 1. every CRD file applies and every CRD becomes Established (`kubectl wait --for condition=established`);
 * 2. every valid example instance is accepted and stored;
 * 3. `kubectl get` prints each CRD's printer columns (priority 0, of the preferred version);
 * 4. `kubectl explain` works on them, deep paths and `--recursive` included;
 * 5. the Gateway API CEL rules reject what Gateway API's own CEL tests mark invalid, with the rules'
 *    messages, and accept the valid edge cases of the same tests (gateway-api-cel-cases.ts);
 * 6. the multi-version Gateway API kinds are read and written through v1beta1 (None conversion).
 *
 * The data files are never edited: the test reads them to know what to expect, and hands kubectl the
 * files themselves.
 */
import { join, relative } from 'node:path';
import { stringify } from 'yaml';
import { caseObjects, invalidCases, schemaBlockedCases, validCases, type CelCase } from './gateway-api-cel-cases.js';
import { yamlDocs, yamlFilesUnder, type Doc, type Json } from './testdata-files.js';
import { TESTDATA_CRDS } from '../../apiserver/registry/kinds/apiextensions/testing.js';
import { parseTable, requireBuild, startApiserver, type KubectlResult, type RunningApiserver } from './kubectl-helpers.js';

beforeAll(() => requireBuild());

/** The shared test data, where every test of the repository reads it (a clone may live anywhere). */
const DATA = TESTDATA_CRDS;
const PROJECTS = ['gateway-api-standard', 'cert-manager', 'argo-cd', 'prometheus-operator'] as const;

// ---- reading the data ----

const filesUnder = yamlFilesUnder;
const docsOf = (file: string): Doc[] => yamlDocs(file);

const crdFiles = PROJECTS.flatMap((p) => filesUnder(join(DATA, p, 'crds')));
const crds: Json[] = crdFiles.flatMap(docsOf).map((d) => d.object);
// prometheus-operator keeps its examples in `example/`, the others in `examples/`.
const exampleFiles = PROJECTS.flatMap((p) => filesUnder(join(DATA, p, p === 'prometheus-operator' ? 'example' : 'examples')));
const exampleDocs = exampleFiles.flatMap(docsOf);

/** Kubernetes' version priority: GA, then beta, then alpha, higher numbers first (the preferred version first). */
function versionRank(v: string): [number, number, number] {
  const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
  if (m === null) return [0, 0, 0];
  return [m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1, Number(m[1]), Number(m[3] ?? 0)];
}
function preferredVersion(crd: Json): Json {
  const served = (crd.spec.versions as Json[]).filter((v) => v.served);
  served.sort((a, b) => {
    const [x, y] = [versionRank(a.name), versionRank(b.name)];
    return y[0] - x[0] || y[1] - x[1] || y[2] - x[2];
  });
  return served[0]!;
}

const crdByKind = new Map(crds.map((c) => [`${c.spec.group}/${c.spec.names.kind}`, c]));
function crdOf(apiVersion: string, kind: string): Json | undefined {
  return crdByKind.get(`${apiVersion.split('/')[0]}/${kind}`);
}

/**
 * Example documents that are not valid instances, so no API server takes them as they are (Kubernetes
 * included):
 * - prometheus-operator's `user-guides/scrapeclass/scrapeclass-example-definition.yaml` (Prometheus) and
 *   `scrapeclass-example-podmonitor.yaml` (PodMonitor) are snippets from a user guide without
 *   `metadata.name`: kubectl itself refuses them ("resource name may not be empty") before any request;
 * - `scrapeclass-example-servicemonitor.yaml` has no `spec.selector`, which the ServiceMonitor CRD requires:
 *   the server rejects it with `spec.selector: Required value` (asserted below);
 * - Argo CD's annotated `applicationset.yaml` uses fields its v3.5.1 CRD does not declare
 *   (`spec.template.spec.source.parameters`, ...): kubectl's default strict field validation gets a 400
 *   listing them (asserted below); without strict validation those fields are pruned, but its matrix
 *   generator has `generators:` with no value, a null that Kubernetes prunes (the field is not nullable),
 *   leaving the required `generators` missing (asserted below).
 * No example object has a kind this server does not serve: besides the CRDs' kinds they hold only
 * Namespaces (asserted below), so nothing is skipped for its kind.
 */
const NAMELESS = ['scrapeclass-example-definition.yaml', 'scrapeclass-example-podmonitor.yaml'];
const INVALID_SERVICE_MONITOR = 'scrapeclass-example-servicemonitor.yaml';
const UNDECLARED_FIELDS = 'applicationset.yaml';
const invalidExampleFiles = exampleFiles.filter((f) => [...NAMELESS, INVALID_SERVICE_MONITOR, UNDECLARED_FIELDS].some((n) => f.endsWith(`/${n}`)));
const validExampleFiles = exampleFiles.filter((f) => !invalidExampleFiles.includes(f));
const validExampleDocs = exampleDocs.filter((d) => validExampleFiles.includes(d.file));

/** The `metadata.annotations` size limit; client-side apply copies the whole object into one annotation. */
const ANNOTATIONS_LIMIT = 262144;
/** Byte size of the last-applied annotation kubectl would write (Go's encoder escapes <, > and &). */
function lastAppliedSize(object: Json): number {
  return Buffer.byteLength(JSON.stringify(object).replace(/[<>&]/g, '\\u0000'));
}

// ---- kubectl ----

function ok(res: KubectlResult): string {
  if (res.status !== 0) throw new Error(`kubectl exited ${res.status}: ${res.stderr}${res.stdout}`);
  return res.stdout;
}
/** A multi-document YAML stream of `objects`. */
const manifest = (objects: readonly object[]): string => objects.map((o) => stringify(o)).join('---\n');
const fileArgs = (files: readonly string[]): string[] => files.flatMap((f) => ['-f', f]);
const resourceOf = (crd: Json): string => `${crd.spec.names.plural}.${crd.spec.group}`;

/** Header names of a kubectl table (split where the header has two or more spaces). */
const headerNames = (table: string): string[] => (table.split('\n')[0] ?? '').trim().split(/ {2,}/);

/** The header kubectl prints for `kubectl get <resource> -A`: the preferred version's priority-0 columns. */
function expectedHeader(crd: Json): string[] {
  const columns = ((preferredVersion(crd).additionalPrinterColumns ?? []) as Json[]).filter((c) => (c.priority ?? 0) === 0);
  const names = columns.length === 0 ? ['AGE'] : columns.map((c) => String(c.name).toUpperCase());
  return [...(crd.spec.scope === 'Namespaced' ? ['NAMESPACE'] : []), 'NAME', ...names];
}

/**
 * The error lines kubectl printed about the object `name` (in `namespace`): a Status message quotes the
 * name, server-side apply's typed-patch errors name `<namespace>/<name>;`.
 */
function errorsAbout(stderr: string, name: string, namespace = ''): string {
  return stderr
    .split('\n')
    .filter((l) => l.includes(`"${name}"`) || (namespace !== '' && l.includes(`(${namespace}/${name};`)))
    .join('\n');
}

// ---- the data is what this test expects ----

describe('the test data', () => {
  it('holds the 26 CRDs and examples of the four projects, with only Namespaces besides custom resources', () => {
    expect(crds).toHaveLength(26);
    expect(crds.every((c) => c.kind === 'CustomResourceDefinition' && c.apiVersion === 'apiextensions.k8s.io/v1')).toBe(true);
    const foreign = exampleDocs.filter((d) => crdOf(d.object.apiVersion, d.object.kind) === undefined).map((d) => `${d.object.apiVersion} ${d.object.kind}`);
    expect([...new Set(foreign)]).toEqual(['v1 Namespace']);
    const nameless = exampleDocs.filter((d) => d.object.metadata?.name === undefined).map((d) => relative(DATA, d.file));
    expect(nameless.map((f) => f.split('/').pop())).toEqual(NAMELESS);
    expect(invalidExampleFiles).toHaveLength(4);
  });
});

// ---- one server per apply mode ----

for (const mode of ['client-side', 'server-side'] as const) {
  describe(`real-world CRDs with kubectl apply (${mode}), --group-domain=k8s.io`, () => {
    let server: RunningApiserver;
    const kubectl = (...args: string[]): Promise<KubectlResult> => server.kubectl(args);
    const apply = (...args: string[]): Promise<KubectlResult> => server.kubectl(['apply', ...(mode === 'server-side' ? ['--server-side'] : []), ...args]);

    beforeAll(async () => {
      server = await startApiserver(['--group-domain=k8s.io']);
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
    });

    it('applies every CRD file; every CRD becomes Established', async () => {
      const res = await apply(...fileArgs(crdFiles));
      const tooLarge = crds.filter((c) => lastAppliedSize(c) > ANNOTATIONS_LIMIT);
      if (mode === 'client-side') {
        // Client-side apply stores the whole object in the last-applied annotation: for the four largest
        // CRDs that is over the 256 KiB annotation limit, and Kubernetes refuses them exactly so (the
        // reason these projects document `kubectl apply --server-side` or `kubectl create`).
        expect(tooLarge.map((c) => c.metadata.name).sort()).toEqual([
          'alertmanagerconfigs.monitoring.coreos.com',
          'alertmanagers.monitoring.coreos.com',
          'applicationsets.argoproj.io',
          'prometheuses.monitoring.coreos.com',
        ]);
        expect(res.status).toBe(1);
        for (const c of tooLarge) {
          expect(errorsAbout(res.stderr, c.metadata.name)).toContain(
            `CustomResourceDefinition.apiextensions.k8s.io "${c.metadata.name}" is invalid: metadata.annotations: Too long: must have at most ${ANNOTATIONS_LIMIT} bytes`,
          );
        }
        for (const c of crds.filter((x) => !tooLarge.includes(x))) {
          expect(res.stdout).toContain(`customresourcedefinition.apiextensions.k8s.io/${c.metadata.name} created\n`);
        }
        // ... and created as they are with `kubectl create`, which writes no annotation.
        const tooLargeNames = new Set(tooLarge.map((c) => c.metadata.name as string));
        const bigFiles = crdFiles.filter((f) => docsOf(f).some((d) => tooLargeNames.has(d.object.metadata.name)));
        const created = ok(await kubectl('create', ...fileArgs(bigFiles)));
        for (const c of tooLarge) expect(created).toContain(`customresourcedefinition.apiextensions.k8s.io/${c.metadata.name} created\n`);
      } else {
        ok(res);
        for (const c of crds) expect(res.stdout).toContain(`customresourcedefinition.apiextensions.k8s.io/${c.metadata.name} serverside-applied\n`);
      }

      const waited = ok(await kubectl('wait', '--for', 'condition=established', '--timeout=30s', ...crds.map((c) => `crd/${c.metadata.name}`)));
      for (const c of crds) expect(waited).toContain(`customresourcedefinition.apiextensions.k8s.io/${c.metadata.name} condition met\n`);

      // Every served version of every group is discoverable, alpha and beta ones included.
      const resources = ok(await kubectl('api-resources', '--no-headers', '-o', 'name'));
      for (const c of crds) expect(resources.split('\n')).toContain(resourceOf(c));
      const versions = ok(await kubectl('api-versions')).split('\n');
      for (const c of crds) {
        for (const v of (c.spec.versions as Json[]).filter((x) => x.served)) expect(versions).toContain(`${c.spec.group}/${v.name}`);
      }
    }, 120_000);

    it('accepts every valid example instance (namespaces first); rejects the invalid ones as Kubernetes does', async () => {
      // Namespaces first: Gateway API's `0-namespaces.yaml` files as they are, then the namespaces other
      // files define after their first user (listenerset.yaml) or only use (argocd).
      const namespaceFiles = validExampleFiles.filter((f) => f.endsWith('/0-namespaces.yaml'));
      expect(namespaceFiles).toHaveLength(3);
      const created = new Set(namespaceFiles.flatMap(docsOf).map((d) => d.object.metadata.name as string));
      const others = new Set(validExampleDocs.flatMap(({ object }) => (object.kind === 'Namespace' ? [object.metadata.name] : [object.metadata.namespace ?? 'default'])));
      for (const n of [...created, 'default']) others.delete(n);
      expect([...others].sort()).toEqual(['argocd', 'team-1-ns', 'team-2-ns']);
      ok(await apply(...fileArgs(namespaceFiles), '-f', server.file('namespaces.yaml', manifest([...others].map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }))))));

      const res = await apply(...fileArgs(validExampleFiles));
      ok(res);
      expect(res.stderr).toBe('');
      for (const { object } of validExampleDocs) {
        const crd = crdOf(object.apiVersion, object.kind);
        const prefix = crd === undefined ? 'namespace' : `${String(object.kind).toLowerCase()}.${crd.spec.group}`;
        expect(res.stdout).toMatch(new RegExp(`^${prefix.replace(/\./g, '\\.')}/${object.metadata.name} (created|configured|unchanged|serverside-applied)$`, 'm'));
      }

      // Every example object is stored (read back through the files themselves).
      const stored = JSON.parse(ok(await kubectl('get', ...fileArgs(validExampleFiles), '-o', 'json'))) as { items: Json[] };
      const keyOf = (o: Json, namespace: string): string => `${o.apiVersion} ${o.kind} ${namespace}/${o.metadata.name}`;
      const byKey = new Map(stored.items.map((o) => [keyOf(o, o.metadata.namespace ?? ''), o]));
      // The last document applied for each object (several examples reuse a name) is what is stored, with
      // the schema's defaults added.
      const last = new Map<string, Json>();
      for (const { object } of validExampleDocs) {
        const namespaced = object.kind === 'Namespace' ? false : crdOf(object.apiVersion, object.kind)?.spec.scope === 'Namespaced';
        last.set(keyOf(object, namespaced ? (object.metadata.namespace ?? 'default') : ''), object);
      }
      for (const [key, object] of last) {
        expect(byKey.has(key) ? key : `missing: ${key}`).toBe(key);
        if (object.spec !== undefined) expect({ key, spec: byKey.get(key)!.spec }).toMatchObject({ key, spec: object.spec });
      }

      const invalid = await apply('-f', invalidExampleFiles.find((f) => f.endsWith(INVALID_SERVICE_MONITOR))!);
      expect(invalid.status).toBe(1);
      // kubectl words a lone object's Invalid error itself ("The <Kind> ...").
      expect(invalid.stderr).toBe('The ServiceMonitor "servicemonitor-example" is invalid: spec.selector: Required value\n');

      const appSetFile = invalidExampleFiles.find((f) => f.endsWith(`/${UNDECLARED_FIELDS}`))!;
      const strict = await apply('-f', appSetFile);
      expect(strict.status).toBe(1);
      const undeclared = ['spec.generators[0].list.template.spec.source.revision', 'spec.template.spec.source.helm.useCredentials', 'spec.template.spec.source.parameters'];
      if (mode === 'client-side') {
        expect(strict.stderr).toContain('Error from server (BadRequest): error when creating');
        expect(strict.stderr).toContain('ApplicationSet in version "v1alpha1" cannot be handled as a ApplicationSet: strict decoding error: ');
        for (const f of undeclared) expect(strict.stderr).toContain(`unknown field "${f}"`);
      } else {
        expect(strict.stderr).toContain('Error from server (BadRequest): failed to create typed patch object (argocd/test-hello-world-appset; argoproj.io/v1alpha1, Kind=ApplicationSet): ');
        for (const f of undeclared) expect(strict.stderr).toContain(`.${f}: field not declared in schema`);
      }
      // Without strict validation the undeclared fields are pruned; the null left for a required list is
      // pruned too, so the object still lacks it.
      const lenient = await kubectl('create', '--validate=false', '-f', appSetFile);
      expect(lenient.status).toBe(1);
      expect(lenient.stderr).toBe('The ApplicationSet "test-hello-world-appset" is invalid: spec.generators[6].matrix.generators: Required value\n');
    }, 120_000);

    it('kubectl get prints every CRD\'s printer columns', async () => {
      // The well-known headers, as the projects' users see them.
      const known: Record<string, string[]> = {
        'gateways.gateway.networking.k8s.io': ['NAMESPACE', 'NAME', 'CLASS', 'ADDRESS', 'PROGRAMMED', 'AGE'],
        'certificates.cert-manager.io': ['NAMESPACE', 'NAME', 'READY', 'SECRET', 'AGE'],
        'applications.argoproj.io': ['NAMESPACE', 'NAME', 'SYNC STATUS', 'HEALTH STATUS'],
        'prometheuses.monitoring.coreos.com': ['NAMESPACE', 'NAME', 'VERSION', 'DESIRED', 'READY', 'RECONCILED', 'AVAILABLE', 'AGE'],
      };
      const withObjects = crds.filter((c) => validExampleDocs.some((d) => crdOf(d.object.apiVersion, d.object.kind) === c));
      expect(withObjects.length).toBeGreaterThanOrEqual(20);
      const tables = await Promise.all(withObjects.map((c) => kubectl('get', resourceOf(c), '-A')));
      withObjects.forEach((c, i) => {
        const table = ok(tables[i]!);
        const header = headerNames(table);
        expect({ resource: resourceOf(c), header }).toEqual({ resource: resourceOf(c), header: expectedHeader(c) });
        if (known[resourceOf(c)] !== undefined) expect(header).toEqual(known[resourceOf(c)]);
      });

      // Cells come from the columns' JSONPaths.
      const gateways = parseTable(ok(await kubectl('get', 'gateways.gateway.networking.k8s.io', '-n', 'default')));
      const gatewayDoc = validExampleDocs.find((d) => d.object.kind === 'Gateway' && d.object.metadata.name === 'wildcard-tls-gateway')!.object;
      expect(gateways.find((r) => r.NAME === 'wildcard-tls-gateway')).toMatchObject({ CLASS: gatewayDoc.spec.gatewayClassName, ADDRESS: '' });
      const certificates = parseTable(ok(await kubectl('get', 'certificates.cert-manager.io', '-n', 'default')));
      const certificateDocs = validExampleDocs.filter((d) => d.object.kind === 'Certificate').map((d) => d.object);
      for (const cert of certificateDocs) expect(certificates.find((r) => r.NAME === cert.metadata.name)).toMatchObject({ SECRET: cert.spec.secretName, READY: '' });
      // Status written through /status feeds the filter and wildcard columns; of several results only the
      // first is printed, as Kubernetes does.
      const condition = (type: string, status: string, message: string): Json => ({ type, status, reason: type, message, lastTransitionTime: '2024-01-01T00:00:00Z' });
      const gatewayStatus = {
        status: {
          addresses: [{ type: 'IPAddress', value: '10.0.0.1' }, { type: 'IPAddress', value: '10.0.0.2' }],
          conditions: [condition('Accepted', 'True', 'accepted'), condition('Programmed', 'False', 'pending')],
        },
      };
      ok(await kubectl('patch', 'gateways.gateway.networking.k8s.io', 'wildcard-tls-gateway', '-n', 'default', '--subresource=status', '--type=merge', '-p', JSON.stringify(gatewayStatus)));
      const programmed = parseTable(ok(await kubectl('get', 'gateways.gateway.networking.k8s.io', 'wildcard-tls-gateway', '-n', 'default')));
      expect(programmed).toEqual([expect.objectContaining({ NAME: 'wildcard-tls-gateway', CLASS: gatewayDoc.spec.gatewayClassName, ADDRESS: '10.0.0.1', PROGRAMMED: 'False' })]);
      const cert = certificateDocs[0]!;
      const certStatus = { status: { conditions: [condition('Issuing', 'False', 'idle'), condition('Ready', 'True', 'Certificate is up to date and has not expired')] } };
      ok(await kubectl('patch', 'certificates.cert-manager.io', cert.metadata.name, '-n', 'default', '--subresource=status', '--type=merge', '-p', JSON.stringify(certStatus)));
      const ready = parseTable(ok(await kubectl('get', 'certificates.cert-manager.io', cert.metadata.name, '-n', 'default', '-o', 'wide')));
      expect(ready).toEqual([
        expect.objectContaining({ NAME: cert.metadata.name, READY: 'True', SECRET: cert.spec.secretName, ISSUER: cert.spec.issuerRef.name, STATUS: 'Certificate is up to date and has not expired' }),
      ]);

      // Priority-1+ columns only with -o wide (Argo CD's REVISION and PROJECT).
      const wide = headerNames(ok(await kubectl('get', 'applications.argoproj.io', '-A', '-o', 'wide')));
      expect(wide).toEqual(['NAMESPACE', 'NAME', 'SYNC STATUS', 'HEALTH STATUS', 'REVISION', 'PROJECT']);
    }, 120_000);

    it('kubectl explain works for each project, deep paths and --recursive included', async () => {
      const specOf = (resource: string, version?: string): Json => {
        const crd = crds.find((c) => resourceOf(c) === resource)!;
        const v = version === undefined ? preferredVersion(crd) : (crd.spec.versions as Json[]).find((x) => x.name === version)!;
        return v.schema.openAPIV3Schema.properties.spec;
      };
      const cases: { args: string[]; resource: string; kind: string; version: string }[] = [
        { args: ['gateways.spec'], resource: 'gateways.gateway.networking.k8s.io', kind: 'Gateway', version: 'v1' },
        { args: ['certificates.spec'], resource: 'certificates.cert-manager.io', kind: 'Certificate', version: 'v1' },
        { args: ['applications.spec'], resource: 'applications.argoproj.io', kind: 'Application', version: 'v1alpha1' },
        { args: ['prometheuses.spec'], resource: 'prometheuses.monitoring.coreos.com', kind: 'Prometheus', version: 'v1' },
        { args: ['gateways.spec', '--api-version=gateway.networking.k8s.io/v1beta1'], resource: 'gateways.gateway.networking.k8s.io', kind: 'Gateway', version: 'v1beta1' },
      ];
      const outputs = await Promise.all(cases.map((c) => kubectl('explain', ...c.args)));
      cases.forEach((c, i) => {
        const out = ok(outputs[i]!);
        const spec = specOf(c.resource, c.version);
        expect(out).toContain(`KIND:       ${c.kind}\nVERSION:    ${c.version}\n\nFIELD: spec <Object>\n`);
        // The description's first words (kubectl wraps it at 80 columns).
        const firstWords = String(spec.description).split(/\s+/).slice(0, 4).join(' ');
        expect(out).toContain(`DESCRIPTION:\n    ${firstWords}`);
        for (const p of Object.keys(spec.properties)) expect(out).toMatch(new RegExp(`^  ${p}\\t<`, 'm'));
        for (const r of (spec.required ?? []) as string[]) expect(out).toMatch(new RegExp(`^  ${r}\\t<[^>]+> -required-$`, 'm'));
      });

      // A deep path, and the recursive tree of HTTPRoute rules.
      const rules = specOf('httproutes.gateway.networking.k8s.io').properties.rules;
      const path = rules.items.properties.matches.items.properties.path;
      const deep = ok(await kubectl('explain', 'httproute.spec.rules.matches.path'));
      expect(deep).toContain('KIND:       HTTPRoute\nVERSION:    v1\n\nFIELD: path <Object>\n');
      for (const p of Object.keys(path.properties)) expect(deep).toMatch(new RegExp(`^  ${p}\\t<string>$`, 'm'));

      const recursive = ok(await kubectl('explain', 'httproute.spec.rules', '--recursive'));
      expect(recursive).toContain('FIELD: rules <[]Object>\n');
      for (const p of Object.keys(rules.items.properties)) expect(recursive).toMatch(new RegExp(`^  ${p}\\t<`, 'm'));
      // Four levels down: rules.filters[].requestHeaderModifier.add[].name.
      expect(recursive).toMatch(/^ {4}requestHeaderModifier\t<Object>\n {6}add\t<\[\]Object>\n {8}name\t<string> -required-$/m);
      expect(recursive.split('\n').length).toBeGreaterThan(100);

      // Cluster-scoped kinds and other projects' deep paths.
      const issuer = ok(await kubectl('explain', 'clusterissuer.spec.acme.solvers.http01'));
      expect(issuer).toContain('KIND:       ClusterIssuer\nVERSION:    v1\n\nFIELD: http01 <Object>\n');
      const rule = ok(await kubectl('explain', 'prometheusrule.spec.groups.rules.expr'));
      // An int-or-string field of a CRD is published as written (anyOf, no type), which kubectl prints as
      // <Object>, as it does against Kubernetes (kubernetes/kubernetes#130946).
      expect(rule).toContain('KIND:       PrometheusRule\nVERSION:    v1\n\nFIELD: expr <Object>');
      expect(rule).toContain('DESCRIPTION:\n    expr defines the PromQL expression to evaluate.');
    }, 120_000);

    describe('the Gateway API CEL rules', () => {
      const namespace = 'gateway-cel';

      it(`reject the ${invalidCases.length} objects Gateway API's CEL tests mark invalid, with the rules' messages`, async () => {
        ok(await kubectl('create', 'namespace', namespace));
        const res = await apply(
          '-f', server.file('invalid.yaml', manifest(caseObjects(invalidCases, 'invalid', namespace))),
          '-f', server.file('blocked.yaml', manifest(caseObjects(schemaBlockedCases, 'blocked', namespace))),
        );
        expect(res.status).toBe(1);
        const failures: { upstream: string; missing: string[]; got: string }[] = [];
        const check = (c: CelCase, name: string): void => {
          const got = errorsAbout(res.stderr, name, namespace);
          const beforeValidation = mode === 'server-side' && c.serverSide !== undefined;
          const expected = beforeValidation ? c.serverSide!.map((m) => m.replace('<name>', `${namespace}/${name}`)) : c.messages;
          const missing = expected.filter((m) => !got.includes(m));
          const status = beforeValidation ? 'Error from server (BadRequest): ' : `${c.kind}.gateway.networking.k8s.io "${name}" is invalid: `;
          if (!got.includes(status)) missing.unshift(status);
          if (missing.length > 0) failures.push({ upstream: c.upstream, missing, got });
        };
        invalidCases.forEach((c, i) => check(c, `invalid-${i}`));
        schemaBlockedCases.forEach((c, i) => check(c, `blocked-${i}`));
        expect(failures).toEqual([]);
        expect(res.stdout).toBe('');
        // None of them was stored.
        expect(ok(await kubectl('get', 'httproutes.gateway.networking.k8s.io,gateways.gateway.networking.k8s.io,grpcroutes.gateway.networking.k8s.io', '-n', namespace, '-o', 'name'))).toBe('');
      }, 120_000);

      it(`accept the ${validCases.length} valid edge cases of the same tests`, async () => {
        const res = await apply('-f', server.file('valid.yaml', manifest(caseObjects(validCases, 'valid', namespace))));
        ok(res);
        validCases.forEach((c, i) => expect(res.stdout).toMatch(new RegExp(`^${c.kind.toLowerCase()}\\.gateway\\.networking\\.k8s\\.io/valid-${i} (created|serverside-applied)$`, 'm')));
      }, 120_000);
    });

    it('reads and writes the multi-version Gateway API kinds through v1beta1 (None conversion)', async () => {
      // Every stored Gateway (written as v1) read as v1beta1.
      const v1 = JSON.parse(ok(await kubectl('get', 'gateways.v1.gateway.networking.k8s.io', '-A', '-o', 'json'))) as { items: Json[] };
      const beta = JSON.parse(ok(await kubectl('get', 'gateways.v1beta1.gateway.networking.k8s.io', '-A', '-o', 'json'))) as { items: Json[] };
      expect(beta.items.length).toBe(v1.items.length);
      expect(beta.items.length).toBeGreaterThan(10);
      expect(new Set(beta.items.map((o) => o.apiVersion))).toEqual(new Set(['gateway.networking.k8s.io/v1beta1']));
      expect(beta.items.map((o) => o.spec)).toEqual(v1.items.map((o) => o.spec));
      const yaml = ok(await kubectl('get', 'gateways.v1beta1.gateway.networking.k8s.io', '-n', 'default', '-o', 'yaml'));
      expect(yaml).toMatch(/^- apiVersion: gateway\.networking\.k8s\.io\/v1beta1\n {2}kind: Gateway$/m);
      expect(yaml).not.toContain('apiVersion: gateway.networking.k8s.io/v1\n');

      // Written through v1beta1, read through v1 (and back).
      const ns = 'beta-written';
      const objects = [
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
        {
          apiVersion: 'gateway.networking.k8s.io/v1beta1',
          kind: 'Gateway',
          metadata: { name: 'beta-gateway', namespace: ns },
          spec: { gatewayClassName: 'example', listeners: [{ name: 'http', protocol: 'HTTP', port: 80 }] },
        },
        {
          apiVersion: 'gateway.networking.k8s.io/v1beta1',
          kind: 'HTTPRoute',
          metadata: { name: 'beta-route', namespace: ns },
          spec: { parentRefs: [{ name: 'beta-gateway' }], rules: [{ matches: [{ path: { type: 'PathPrefix', value: '/beta' } }], backendRefs: [{ name: 'svc', port: 8080 }] }] },
        },
      ];
      ok(await apply('-f', server.file('beta.yaml', manifest(objects))));
      const gw = JSON.parse(ok(await kubectl('get', 'gateways.v1.gateway.networking.k8s.io', 'beta-gateway', '-n', ns, '-o', 'json'))) as Json;
      expect(gw.apiVersion).toBe('gateway.networking.k8s.io/v1');
      // Defaults of the v1 schema applied (listeners[].allowedRoutes.namespaces.from: Same).
      expect(gw.spec.listeners[0]).toMatchObject({ name: 'http', protocol: 'HTTP', port: 80, allowedRoutes: { namespaces: { from: 'Same' } } });
      const route = JSON.parse(ok(await kubectl('get', 'httproutes.v1.gateway.networking.k8s.io', 'beta-route', '-n', ns, '-o', 'json'))) as Json;
      expect(route.apiVersion).toBe('gateway.networking.k8s.io/v1');
      expect(route.spec.rules[0].matches[0].path).toEqual({ type: 'PathPrefix', value: '/beta' });
      expect(route.spec.rules[0].backendRefs[0]).toMatchObject({ name: 'svc', port: 8080, group: '', kind: 'Service', weight: 1 });
      const back = JSON.parse(ok(await kubectl('get', 'httproutes.v1beta1.gateway.networking.k8s.io', 'beta-route', '-n', ns, '-o', 'json'))) as Json;
      expect(back.apiVersion).toBe('gateway.networking.k8s.io/v1beta1');
      expect(back.spec).toEqual(route.spec);
      // The table through v1beta1 uses v1beta1's columns.
      const gatewayCrd = crds.find((c) => c.metadata.name === 'gateways.gateway.networking.k8s.io')!;
      const betaColumns = ((gatewayCrd.spec.versions as Json[]).find((v) => v.name === 'v1beta1')!.additionalPrinterColumns as Json[])
        .filter((c) => (c.priority ?? 0) === 0)
        .map((c) => String(c.name).toUpperCase());
      expect(headerNames(ok(await kubectl('get', 'gateways.v1beta1.gateway.networking.k8s.io', '-n', ns)))).toEqual(['NAME', ...betaColumns]);
    }, 120_000);
  });
}
