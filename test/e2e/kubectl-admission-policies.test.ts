/**
 * End to end: ValidatingAdmissionPolicy with stock kubectl against the BUILT server in k8s.io mode (one
 * server for the whole file; the cases build on each other in order):
 *
 * 1. `kubectl apply -f` of every policy file of `../shared/testdata/policies/` (read, never edited; see its
 *    SOURCES.md): everything a Kubernetes v1.32 server accepts is created, and what it refuses is refused
 *    with its messages — the website's `binding-with-param-prod.yaml` (paramRef without
 *    parameterNotFoundAction), kyverno's CLI-only `match-namespaces` policy (a rule without operations), the
 *    website's v1alpha1 file (not served: kubectl's resource-mapping error). Kyverno's `generated-vap` files
 *    are chainsaw assertions: as written their ownerReferences have no uid (refused by ObjectMeta
 *    validation); with ownerReferences removed (copies in a temporary directory, as SOURCES.md says) the
 *    complete ones are created, the bare `spec: {}` shapes are refused with the required fields, and one
 *    holds chainsaw's JMESPath keys (a strict decoding error). Of the files that are not policies, the kinds
 *    this server serves are applied (the Namespaces of kyverno's match-namespaces case, which nothing denies
 *    since its policy was refused; kubescape's ControlConfiguration CRD and its parameter object);
 *    Deployments, Pods, kyverno's CLI Test/UserInfo files and the website's ReplicaLimit (no CRD published)
 *    are not;
 * 2. Gateway API's `safe-upgrades.gateway.networking.k8s.io` policy and binding (applied in 1) deny installing
 *    a Gateway API CRD whose bundle-version annotation is before v1.5.0 (create and update) and an
 *    experimental-channel CRD over a standard one, with Kubernetes' message as kubectl prints it (a denial is
 *    an Invalid Status whose details name the resource and carry the message as a cause without a field:
 *    `The customresourcedefinitions "<name>" is invalid: : ValidatingAdmissionPolicy '<p>' with binding '<b>'
 *    denied request: <message>`). The CRDs are copies of Gateway API's own with the annotation changed;
 * 3. a policy of this test on ConfigMaps: with `validationActions: [Warn]` kubectl prints `Warning: Validation
 *    failed for ValidatingAdmissionPolicy '<p>' with binding '<b>': <msg>` and the object is created; with
 *    [Deny] it is refused (Invalid, and Forbidden when the validation's reason says so, in each of kubectl's
 *    forms); with a ConfigMap param (paramKind v1 ConfigMap, binding paramRef) the limit comes from the param,
 *    follows its changes, and a missing param denies under parameterNotFoundAction Deny;
 * 4. `kubectl get validatingadmissionpolicies` / `validatingadmissionpolicybindings` print Kubernetes'
 *    columns.
 *
 * Policies take effect through watch caches: before relying on one, a case waits (bounded poll, server-side
 * dry runs) until it is in force.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { yamlDocs, yamlFilesUnder, type Doc, type Json } from './testdata-files.js';
import { TESTDATA_POLICIES } from '../../apiserver/registry/kinds/admissionregistration/testing.js';
import { TESTDATA_CRDS } from '../../apiserver/registry/kinds/apiextensions/testing.js';
import { parseTable, requireBuild, startApiserver, type KubectlResult, type RunningApiserver } from './kubectl-helpers.js';

beforeAll(() => requireBuild());

// ---- the test data ----

const filesUnder = yamlFilesUnder;
/** Documents named by their path relative to the policies folder. */
const docsOf = (path: string): Doc[] => yamlDocs(path, TESTDATA_POLICIES);

const abs = (file: string): string => join(TESTDATA_POLICIES, file);
const POLICY_KINDS = ['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding'];
const allDocs = filesUnder(TESTDATA_POLICIES).flatMap(docsOf);
const isPolicy = (d: Doc): boolean => POLICY_KINDS.includes(d.object.kind);
const policyFiles = [...new Set(allDocs.filter(isPolicy).map((d) => d.file))];
const GENERATED = 'kyverno/generated-vap/';
const plainPolicyFiles = policyFiles.filter((f) => !f.startsWith(GENERATED));
const generatedFiles = policyFiles.filter((f) => f.startsWith(GENERATED));
const docsIn = (files: readonly string[]): Doc[] => allDocs.filter((d) => files.includes(d.file));

/** The website's pre-GA object: v1alpha1 is not served by a v1.32 server (nor by this one). */
const V1ALPHA1_FILE = 'kubernetes-website/access/deployment-replicas-policy.yaml';
/** Complete v1 objects a Kubernetes v1.32 server refuses, with its field errors (see testdata.test.ts). */
const REFUSED: readonly { file: string; kind: string; name: string; error: string }[] = [
  {
    file: 'kubernetes-website/validatingadmissionpolicy/binding-with-param-prod.yaml',
    kind: 'ValidatingAdmissionPolicyBinding',
    name: 'replicalimit-binding-nontest',
    error: 'spec.paramRef.parameterNotFoundAction: Required value',
  },
  {
    file: 'kyverno/cli/test-validating-admission-policy/match-namespaces/policy.yaml',
    kind: 'ValidatingAdmissionPolicy',
    name: 'validate-namespace-name',
    error: 'spec.matchConstraints.resourceRules[0].operations: Required value',
  },
];
const isRefused = (d: Doc): boolean => d.file === V1ALPHA1_FILE || REFUSED.some((r) => r.file === d.file && r.kind === d.object.kind && r.name === d.object.metadata.name);

/** The kyverno assertion holding chainsaw's JMESPath keys (`(matchConditions[?name == '...'])`) in its spec. */
const JMESPATH_FILE = `${GENERATED}validatingpolicy/with-multiple-exceptions/validatingadmissionpolicy.yaml`;
const JMESPATH_ERROR =
  'ValidatingAdmissionPolicy in version "v1" cannot be handled as a ValidatingAdmissionPolicy: strict decoding error: ' +
  `unknown field "spec.(matchConditions[?name == 'check-name'])", unknown field "spec.(matchConditions[?name == 'check-namespace'])"`;
const bare = (d: Doc): boolean => JSON.stringify(d.object.spec) === '{}';
/** Kubernetes' errors for a bare assertion shape (`spec: {}`). */
const bareErrors = (kind: string): string[] =>
  kind === 'ValidatingAdmissionPolicy'
    ? [
        'spec.matchConstraints: Required value',
        'spec.validations: Required value: validations or auditAnnotations must contain at least one item',
        'spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item',
      ]
    : ['spec.policyName: Required value', 'spec.validationActions: Required value: at least one validation action is required'];

/** Files besides the policies whose kinds the server serves, applied in case 1. */
const NAMESPACES_FILE = 'kyverno/cli/test-validating-admission-policy/match-namespaces/resources.yaml';
const KUBESCAPE_CRD_FILE = 'kubescape-cel-admission-library/configuration/policy-configuration-definition.yaml';
const KUBESCAPE_PARAM_FILE = 'kubescape-cel-admission-library/configuration/basic-control-configuration.yaml';

/** The Gateway API CRD the safe-upgrades cases copy (small, and no other test of this server installs it). */
const GATEWAY_CRD = join(TESTDATA_CRDS, 'gateway-api-standard', 'crds', 'gateway.networking.k8s.io_referencegrants.yaml');
const SAFE_UPGRADES = 'safe-upgrades.gateway.networking.k8s.io';

// ---- kubectl ----

function ok(res: KubectlResult): string {
  if (res.status !== 0) throw new Error(`kubectl exited ${res.status}: ${res.stderr}${res.stdout}`);
  return res.stdout;
}
const fileArgs = (files: readonly string[]): string[] => files.flatMap((f) => ['-f', f]);
const lines = (text: string): string[] => text.split('\n').filter((l) => l !== '');
/** How kubectl prints one object's Status error among several: `Error from server (<reason>): error when creating "<file>": <message>`. */
const creatingError = (reason: string, file: string, message: string): string => `Error from server (${reason}): error when creating "${file}": ${message}`;
/** A Status message of field errors: one as is, several in brackets. */
const invalidMessage = (kind: string, name: string, errors: readonly string[]): string =>
  `${kind}.admissionregistration.k8s.io "${name}" is invalid: ${errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`}`;
const appliedLine = (o: Json, suffix = ''): RegExp =>
  new RegExp(`^${String(o.kind).toLowerCase()}\\.admissionregistration\\.k8s\\.io/${o.metadata.name.replace(/\./g, '\\.')} (created|configured|unchanged)${suffix.replace(/[()]/g, '\\$&')}$`);

/** The message of a policy denial (Kubernetes' shape). */
const denied = (policy: string, binding: string, message: string): string => `ValidatingAdmissionPolicy '${policy}' with binding '${binding}' denied request: ${message}`;
const warned = (policy: string, binding: string, message: string): string => `Warning: Validation failed for ValidatingAdmissionPolicy '${policy}' with binding '${binding}': ${message}`;

describe('ValidatingAdmissionPolicy with kubectl, --group-domain=k8s.io', () => {
  let server: RunningApiserver;
  let work: string;
  const kubectl = (...args: string[]): Promise<KubectlResult> => server.kubectl(args);

  /** Runs kubectl until `done` holds for its result (at most `limitMs`), without pausing between runs. */
  async function kubectlUntil(args: readonly string[], done: (r: KubectlResult) => boolean, what: string, limitMs = 10_000): Promise<KubectlResult> {
    const deadline = Date.now() + limitMs;
    for (;;) {
      const res = await server.kubectl(args);
      if (done(res)) return res;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: kubectl exited ${res.status}: ${res.stderr}${res.stdout}`);
    }
  }

  /** Writes `text` to `name` in this test's temporary directory; returns the path. */
  const write = (name: string, text: string): string => {
    const path = join(work, name);
    writeFileSync(path, text);
    return path;
  };

  beforeAll(async () => {
    server = await startApiserver(['--group-domain=k8s.io']);
    work = mkdtempSync(join(tmpdir(), 'e2e-policies-'));
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  describe('the test data', () => {
    it('holds 62 policies and 25 bindings; besides them, kinds this server serves and kinds it does not', () => {
      expect(allDocs.filter((d) => d.object.kind === 'ValidatingAdmissionPolicy')).toHaveLength(62);
      expect(allDocs.filter((d) => d.object.kind === 'ValidatingAdmissionPolicyBinding')).toHaveLength(25);
      const others = [...new Set(allDocs.filter((d) => !isPolicy(d)).map((d) => `${d.object.apiVersion} ${d.object.kind}`))].sort();
      // Served, and applied in case 1: the Namespaces, kubescape's CRD and (once it is established) its
      // ControlConfiguration. Not served, never applied: Deployments and Pods (not kinds of this server),
      // kyverno's CLI files (not API objects), ReplicaLimit (its CRD is not published).
      expect(others).toEqual([
        'apiextensions.k8s.io/v1 CustomResourceDefinition',
        'apps/v1 Deployment',
        'cli.kyverno.io/v1alpha1 Test',
        'cli.kyverno.io/v1alpha1 UserInfo',
        'kubescape.io/v1 ControlConfiguration',
        'rules.example.com/v1 ReplicaLimit',
        'v1 Namespace',
        'v1 Pod',
      ]);
      expect([NAMESPACES_FILE, KUBESCAPE_CRD_FILE, KUBESCAPE_PARAM_FILE].flatMap((f) => docsIn([f])).map((d) => d.object.kind)).toEqual([
        'Namespace',
        'Namespace',
        'CustomResourceDefinition',
        'ControlConfiguration',
      ]);
      // No file mixes policies with other kinds.
      for (const f of policyFiles) expect({ f, kinds: docsIn([f]).filter((d) => !isPolicy(d)).length }).toEqual({ f, kinds: 0 });
      expect(generatedFiles).toHaveLength(34);
      expect(docsIn(generatedFiles).filter(bare)).toHaveLength(6);
    });
  });

  describe('1. kubectl apply -f of the policies', () => {
    it('creates every policy and binding Kubernetes v1.32 accepts, and refuses the others with its messages', async () => {
      const res = await kubectl('apply', ...fileArgs(plainPolicyFiles.map(abs)));
      expect(res.status).toBe(1);
      const alpha = docsIn([V1ALPHA1_FILE])[0]!.object;
      expect(lines(res.stderr).sort()).toEqual(
        [
          `resource mapping not found for name: "${alpha.metadata.name}" namespace: "" from "${abs(V1ALPHA1_FILE)}": ` +
            'no matches for kind "ValidatingAdmissionPolicy" in version "admissionregistration.k8s.io/v1alpha1"',
          'ensure CRDs are installed first',
          ...REFUSED.map((r) => creatingError('Invalid', abs(r.file), invalidMessage(r.kind, r.name, [r.error]))),
        ].sort(),
      );
      const accepted = docsIn(plainPolicyFiles).filter((d) => !isRefused(d));
      // One line per document (a name several files share is created once, then configured or unchanged).
      expect(lines(res.stdout)).toHaveLength(accepted.length);
      for (const d of accepted) expect(res.stdout.split('\n')).toContainEqual(expect.stringMatching(appliedLine(d.object)));

      // Stored: exactly the accepted names.
      const stored = JSON.parse(ok(await kubectl('get', 'validatingadmissionpolicies,validatingadmissionpolicybindings', '-o', 'json'))) as { items: Json[] };
      const key = (o: Json): string => `${o.kind}/${o.metadata.name}`;
      expect(stored.items.map(key).sort()).toEqual([...new Set(accepted.map((d) => key(d.object)))].sort());
      // The last document applied for each name is what is stored (spec as written, plus defaults).
      const last = new Map(accepted.map((d) => [key(d.object), d.object]));
      for (const o of stored.items) expect({ key: key(o), spec: o.spec }).toMatchObject({ key: key(o), spec: last.get(key(o))!.spec });
    }, 60_000);

    it("refuses kyverno's generated-vap assertion files as written: their ownerReferences have no uid", async () => {
      const res = await kubectl('apply', ...fileArgs(generatedFiles.map(abs)));
      expect(res.status).toBe(1);
      expect(res.stdout).toBe('');
      const expected = docsIn(generatedFiles).map((d) => {
        if (d.file === JMESPATH_FILE) return creatingError('BadRequest', abs(d.file), JMESPATH_ERROR);
        // ObjectMeta's errors first (one per owner reference without uid), then the spec's.
        const refs = (d.object.metadata.ownerReferences as Json[]).filter((r) => r.uid === undefined);
        expect(refs.length).toBeGreaterThan(0);
        const errors = [...refs.map(() => 'metadata.ownerReferences.uid: Invalid value: "": uid must not be empty'), ...(bare(d) ? bareErrors(d.object.kind) : [])];
        return creatingError('Invalid', abs(d.file), invalidMessage(d.object.kind, d.object.metadata.name, errors));
      });
      expect(lines(res.stderr)).toEqual(expected);
    }, 60_000);

    it('with ownerReferences removed (copies), creates the complete generated shapes and refuses the bare ones', async () => {
      // Copies without ownerReferences, one per file, named after the file.
      const copies = generatedFiles.map((f) => {
        const objects = docsIn([f]).map(({ object }) => {
          const { ownerReferences: _dropped, ...metadata } = object.metadata;
          return { ...object, metadata };
        });
        return { file: f, path: write(f.replace(/\//g, '_'), objects.map((o) => stringify(o)).join('---\n')) };
      });
      // A server-side dry run first: each file is judged on its own (names repeat across the files).
      const dry = await kubectl('apply', '--dry-run=server', ...fileArgs(copies.map((c) => c.path)));
      expect(dry.status).toBe(1);
      const expectedErrors: string[] = [];
      const acceptedCopies: string[] = [];
      for (const c of copies) {
        for (const d of docsIn([c.file])) {
          if (c.file === JMESPATH_FILE) expectedErrors.push(creatingError('BadRequest', c.path, JMESPATH_ERROR));
          else if (bare(d)) expectedErrors.push(creatingError('Invalid', c.path, invalidMessage(d.object.kind, d.object.metadata.name, bareErrors(d.object.kind))));
          else {
            expect(dry.stdout.split('\n')).toContainEqual(`${String(d.object.kind).toLowerCase()}.admissionregistration.k8s.io/${d.object.metadata.name} created (server dry run)`);
            if (!acceptedCopies.includes(c.path)) acceptedCopies.push(c.path);
          }
        }
      }
      expect(lines(dry.stderr)).toEqual(expectedErrors);
      expect(lines(dry.stdout)).toHaveLength(docsIn(generatedFiles).length - expectedErrors.length);

      // Then the accepted copies for real.
      const res = await kubectl('apply', ...fileArgs(acceptedCopies));
      expect(res.stderr).toBe('');
      ok(res);
      const created = docsIn(copies.filter((c) => acceptedCopies.includes(c.path)).map((c) => c.file));
      for (const d of created) expect(res.stdout.split('\n')).toContainEqual(expect.stringMatching(appliedLine(d.object)));
      const names = ok(await kubectl('get', 'validatingadmissionpolicies,validatingadmissionpolicybindings', '-o', 'name')).split('\n');
      for (const d of created) expect(names).toContain(`${String(d.object.kind).toLowerCase()}.admissionregistration.k8s.io/${d.object.metadata.name}`);
    }, 60_000);

    it("applies the served kinds among the other files: kyverno's Namespaces (its policy was refused) and kubescape's parameter CRD and object", async () => {
      const ns = await kubectl('apply', '-f', abs(NAMESPACES_FILE));
      ok(ns);
      // kyverno's CLI expects `invalid-namespace` to fail, but Kubernetes refused the policy, so nothing denies
      // it (the binding names a policy that does not exist, which matches nothing).
      expect(ns.stdout).toBe('namespace/valid-namespace created\nnamespace/invalid-namespace created\n');

      const crd = docsIn([KUBESCAPE_CRD_FILE])[0]!.object;
      expect(ok(await kubectl('apply', '-f', abs(KUBESCAPE_CRD_FILE)))).toBe(`customresourcedefinition.apiextensions.k8s.io/${crd.metadata.name} created\n`);
      ok(await kubectl('wait', '--for', 'condition=established', '--timeout=30s', `crd/${crd.metadata.name}`));
      const param = docsIn([KUBESCAPE_PARAM_FILE])[0]!.object;
      // Discovery of the new group may lag the Established condition in kubectl's cache: retried briefly.
      const applied = await kubectlUntil(['apply', '-f', abs(KUBESCAPE_PARAM_FILE)], (r) => r.status === 0, 'the ControlConfiguration to apply');
      expect(applied.stdout).toBe(`controlconfiguration.kubescape.io/${param.metadata.name} created\n`);
    }, 60_000);
  });

  describe('2. Gateway API safe-upgrades', () => {
    const crd = docsOf(GATEWAY_CRD)[0]!.object;
    const name = crd.metadata.name as string;
    /** A copy of the Gateway API CRD with annotations changed. */
    const copy = (file: string, annotations: Record<string, string>): string =>
      write(file, stringify({ ...crd, metadata: { ...crd.metadata, annotations: { ...crd.metadata.annotations, ...annotations } } }));
    const denial = (message: string): string => `The customresourcedefinitions "${name}" is invalid: : ${denied(SAFE_UPGRADES, SAFE_UPGRADES, message)}\n`;
    const OLD_VERSION =
      'Installing CRDs with version before v1.5.0 is prohibited by default. Uninstall ValidatingAdmissionPolicy safe-upgrades.gateway.networking.k8s.io to install older versions.';
    const EXPERIMENTAL =
      'Installing experimental CRDs on top of standard channel CRDs is prohibited by default. Uninstall ValidatingAdmissionPolicy safe-upgrades.gateway.networking.k8s.io to install experimental CRDs on top of standard channel CRDs.';

    it('the data: the CRD is a standard-channel v1.6.1 one', () => {
      expect(crd.metadata.annotations).toMatchObject({ 'gateway.networking.k8s.io/bundle-version': 'v1.6.1', 'gateway.networking.k8s.io/channel': 'standard' });
      expect(crd.spec.group).toBe('gateway.networking.k8s.io');
    });

    it('denies installing a CRD whose bundle version is before v1.5.0', async () => {
      const old = copy('old-referencegrants.yaml', { 'gateway.networking.k8s.io/bundle-version': 'v1.4.0' });
      // In force (applied in case 1, through the watch caches) once a server-side dry run is denied.
      const dry = await kubectlUntil(['create', '--dry-run=server', '-f', old], (r) => r.status !== 0, 'the safe-upgrades policy to deny');
      expect(dry.stderr).toBe(denial(OLD_VERSION));
      const res = await kubectl('apply', '-f', old);
      expect(res.status).toBe(1);
      expect(res.stdout).toBe('');
      expect(res.stderr).toBe(denial(OLD_VERSION));
      const get = await kubectl('get', 'crd', name);
      expect(get.stderr).toBe(`Error from server (NotFound): customresourcedefinitions.apiextensions.k8s.io "${name}" not found\n`);
    });

    it('installs the v1.6.1 standard CRD as it is; then denies an experimental one over it, and an older version', async () => {
      expect(ok(await kubectl('apply', '-f', GATEWAY_CRD))).toBe(`customresourcedefinition.apiextensions.k8s.io/${name} created\n`);

      const experimental = await kubectl('apply', '-f', copy('experimental-referencegrants.yaml', { 'gateway.networking.k8s.io/channel': 'experimental' }));
      expect(experimental.status).toBe(1);
      expect(experimental.stderr).toBe(denial(EXPERIMENTAL));

      // An update to an older version: the version rule applies to updates too.
      const downgrade = await kubectl('apply', '-f', copy('downgrade-referencegrants.yaml', { 'gateway.networking.k8s.io/bundle-version': 'v1.3.0' }));
      expect(downgrade.status).toBe(1);
      expect(downgrade.stderr).toBe(denial(OLD_VERSION));

      // Nothing changed; the same standard CRD re-applied (an update the policy allows) is unchanged.
      const stored = JSON.parse(ok(await kubectl('get', 'crd', name, '-o', 'json')));
      expect(stored.metadata.annotations).toMatchObject({ 'gateway.networking.k8s.io/bundle-version': 'v1.6.1', 'gateway.networking.k8s.io/channel': 'standard' });
      expect(ok(await kubectl('apply', '-f', GATEWAY_CRD))).toBe(`customresourcedefinition.apiextensions.k8s.io/${name} unchanged\n`);
    });
  });

  describe('3. a policy on ConfigMaps: Warn, Deny, params', () => {
    const POLICY = 'configmap-keys.example.com';
    const BINDING = 'configmap-keys-binding';
    const NS = 'vap-e2e';
    const MESSAGE = 'a ConfigMap holds at most 2 keys';
    const threeKeys = ['--from-literal=a=1', '--from-literal=b=2', '--from-literal=c=3'];
    const bindingOf = (actions: string[]): Json => ({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: BINDING },
      spec: { policyName: POLICY, validationActions: actions, matchResources: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': NS } } } },
    });
    const policy = (reason?: string): Json => ({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: POLICY },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] }] },
        validations: [{ expression: '!has(object.data) || size(object.data) <= 2', message: MESSAGE, ...(reason === undefined ? {} : { reason }) }],
      },
    });

    it('Warn: kubectl shows the warning and the object is created', async () => {
      ok(await kubectl('create', 'namespace', NS));
      const res = await kubectl('apply', '-f', write('warn-policy.yaml', [policy(), bindingOf(['Warn'])].map((o) => stringify(o)).join('---\n')));
      expect(ok(res)).toBe(
        `validatingadmissionpolicy.admissionregistration.k8s.io/${POLICY} created\nvalidatingadmissionpolicybinding.admissionregistration.k8s.io/${BINDING} created\n`,
      );
      await kubectlUntil(['create', 'configmap', 'probe', '-n', NS, ...threeKeys, '--dry-run=server'], (r) => r.stderr.includes('Warning:'), 'the Warn policy');

      const created = await kubectl('create', 'configmap', 'warned', '-n', NS, ...threeKeys);
      expect(created.status).toBe(0);
      expect(created.stdout).toBe('configmap/warned created\n');
      expect(created.stderr).toBe(`${warned(POLICY, BINDING, MESSAGE)}\n`);
      expect(JSON.parse(ok(await kubectl('get', 'configmap', 'warned', '-n', NS, '-o', 'json'))).data).toEqual({ a: '1', b: '2', c: '3' });
      // What the validation allows gets no warning.
      const quiet = await kubectl('create', 'configmap', 'small', '-n', NS, '--from-literal=a=1');
      expect([quiet.status, quiet.stdout, quiet.stderr]).toEqual([0, 'configmap/small created\n', '']);
      // Outside the binding's namespace nothing is checked.
      const elsewhere = await kubectl('create', 'configmap', 'elsewhere', '-n', 'default', ...threeKeys);
      expect([elsewhere.status, elsewhere.stderr]).toEqual([0, '']);
    });

    it('Deny: refused with Kubernetes message in each of kubectl forms (Invalid by default, Forbidden by reason)', async () => {
      ok(await kubectl('apply', '-f', write('deny-binding.yaml', stringify(bindingOf(['Deny'])))));
      await kubectlUntil(['create', 'configmap', 'probe', '-n', NS, ...threeKeys, '--dry-run=server'], (r) => r.status !== 0, 'the Deny binding');

      // `kubectl create configmap` words any error as `failed to create configmap: <message>`.
      const generated = await kubectl('create', 'configmap', 'refused', '-n', NS, ...threeKeys);
      expect(generated.status).toBe(1);
      expect(generated.stderr).toBe(`error: failed to create configmap: configmaps "refused" is forbidden: ${denied(POLICY, BINDING, MESSAGE)}\n`);
      // `kubectl apply -f` of one object words an Invalid Status from its details: kind (the resource), name, causes.
      const manifest = write('refused.yaml', stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'refused', namespace: NS }, data: { a: '1', b: '2', c: '3' } }));
      const applied = await kubectl('apply', '-f', manifest);
      expect(applied.status).toBe(1);
      expect(applied.stderr).toBe(`The configmaps "refused" is invalid: : ${denied(POLICY, BINDING, MESSAGE)}\n`);
      expect((await kubectl('get', 'configmap', 'refused', '-n', NS)).stderr).toBe('Error from server (NotFound): configmaps "refused" not found\n');
      // An update that breaks the rule is refused too (the rule covers UPDATE).
      const update = await kubectl('patch', 'configmap', 'small', '-n', NS, '--type=merge', '-p', '{"data":{"b":"2","c":"3"}}');
      expect(update.status).toBe(1);
      expect(update.stderr).toBe(`The configmaps "small" is invalid: : ${denied(POLICY, BINDING, MESSAGE)}\n`);

      // reason Forbidden: 403, which kubectl prints as the Status message.
      ok(await kubectl('apply', '-f', write('forbidden-policy.yaml', stringify(policy('Forbidden')))));
      const forbidden = await kubectlUntil(['apply', '-f', manifest], (r) => r.stderr.includes('(Forbidden)'), 'the Forbidden reason');
      expect(forbidden.status).toBe(1);
      expect(forbidden.stderr).toBe(`Error from server (Forbidden): error when creating "${manifest}": configmaps "refused" is forbidden: ${denied(POLICY, BINDING, MESSAGE)}\n`);
    });

    it('params: the limit comes from a ConfigMap named by the binding, follows it, and a missing one denies', async () => {
      const P_POLICY = 'configmap-max-keys.example.com';
      const P_BINDING = 'configmap-max-keys-binding';
      const PARAMS_NS = 'vap-params';
      const BOUND_NS = 'vap-e2e-params';
      ok(await kubectl('create', 'namespace', PARAMS_NS));
      ok(await kubectl('create', 'namespace', BOUND_NS));
      ok(await kubectl('create', 'configmap', 'limits', '-n', PARAMS_NS, '--from-literal=maxKeys=1'));
      const objects = [
        {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingAdmissionPolicy',
          metadata: { name: P_POLICY },
          spec: {
            paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
            matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] }] },
            validations: [
              {
                expression: '!has(object.data) || size(object.data) <= int(params.data.maxKeys)',
                messageExpression: "'at most ' + params.data.maxKeys + ' keys, not ' + string(size(object.data))",
              },
            ],
          },
        },
        {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingAdmissionPolicyBinding',
          metadata: { name: P_BINDING },
          spec: {
            policyName: P_POLICY,
            validationActions: ['Deny'],
            paramRef: { name: 'limits', namespace: PARAMS_NS, parameterNotFoundAction: 'Deny' },
            matchResources: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': BOUND_NS } } },
          },
        },
      ];
      ok(await kubectl('apply', '-f', write('param-policy.yaml', objects.map((o) => stringify(o)).join('---\n'))));
      const twoKeys = ['-n', BOUND_NS, '--from-literal=a=1', '--from-literal=b=2'];
      const dryTwo = ['create', 'configmap', 'two', ...twoKeys, '--dry-run=server'];
      const first = await kubectlUntil(dryTwo, (r) => r.status !== 0, 'the param policy');
      expect(first.stderr).toBe(`error: failed to create configmap: configmaps "two" is forbidden: ${denied(P_POLICY, P_BINDING, 'at most 1 keys, not 2')}\n`);
      expect(ok(await kubectl('create', 'configmap', 'one', '-n', BOUND_NS, '--from-literal=a=1'))).toBe('configmap/one created\n');

      // A new limit in the param: two keys pass once the param's change is seen.
      ok(await kubectl('patch', 'configmap', 'limits', '-n', PARAMS_NS, '--type=merge', '-p', '{"data":{"maxKeys":"3"}}'));
      await kubectlUntil(dryTwo, (r) => r.status === 0, 'the new limit');
      expect(ok(await kubectl('create', 'configmap', 'two', ...twoKeys))).toBe('configmap/two created\n');
      const five = await kubectl('create', 'configmap', 'five', '-n', BOUND_NS, ...['a', 'b', 'c', 'd', 'e'].map((k) => `--from-literal=${k}=1`));
      expect(five.stderr).toBe(`error: failed to create configmap: configmaps "five" is forbidden: ${denied(P_POLICY, P_BINDING, 'at most 3 keys, not 5')}\n`);

      // No param: parameterNotFoundAction Deny refuses every matched request.
      ok(await kubectl('delete', 'configmap', 'limits', '-n', PARAMS_NS));
      const missing = await kubectlUntil(
        ['create', 'configmap', 'any', '-n', BOUND_NS, '--from-literal=a=1', '--dry-run=server'],
        (r) => r.status !== 0,
        'the missing param to deny',
      );
      expect(missing.stderr).toBe(
        `error: failed to create configmap: configmaps "any" is forbidden: ${denied(P_POLICY, P_BINDING, 'failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction')}\n`,
      );
    });
  });

  describe('4. kubectl get', () => {
    it('validatingadmissionpolicies: NAME, VALIDATIONS, PARAMKIND, AGE', async () => {
      const table = ok(await kubectl('get', 'validatingadmissionpolicies'));
      expect(table.split('\n')[0]!.trim().split(/ {2,}/)).toEqual(['NAME', 'VALIDATIONS', 'PARAMKIND', 'AGE']);
      const rows = new Map(parseTable(table).map((r) => [r.NAME, r]));
      const stored = (JSON.parse(ok(await kubectl('get', 'validatingadmissionpolicies', '-o', 'json'))) as { items: Json[] }).items;
      expect([...rows.keys()].sort()).toEqual(stored.map((o) => o.metadata.name).sort());
      for (const o of stored) {
        const pk = o.spec.paramKind;
        expect(rows.get(o.metadata.name)).toMatchObject({
          VALIDATIONS: String((o.spec.validations ?? []).length),
          PARAMKIND: pk === undefined ? '<unset>' : `${pk.apiVersion}/${pk.kind}`,
          AGE: expect.stringMatching(/^\d+(s|m(\d+s)?)$/),
        });
      }
      expect(rows.get(SAFE_UPGRADES)).toMatchObject({ VALIDATIONS: '2', PARAMKIND: '<unset>' });
      expect(rows.get('configmap-max-keys.example.com')).toMatchObject({ VALIDATIONS: '1', PARAMKIND: 'v1/ConfigMap' });
      expect(rows.get('replicalimit-policy.example.com')).toMatchObject({ PARAMKIND: 'rules.example.com/v1/ReplicaLimit' });
      expect(rows.get('kubescape-c-0001-deny-forbidden-container-registries')).toMatchObject({ PARAMKIND: 'kubescape.io/v1/ControlConfiguration' });
    });

    it('validatingadmissionpolicybindings: NAME, POLICYNAME, PARAMREF, AGE', async () => {
      const table = ok(await kubectl('get', 'validatingadmissionpolicybindings'));
      expect(table.split('\n')[0]!.trim().split(/ {2,}/)).toEqual(['NAME', 'POLICYNAME', 'PARAMREF', 'AGE']);
      const rows = new Map(parseTable(table).map((r) => [r.NAME, r]));
      const stored = (JSON.parse(ok(await kubectl('get', 'validatingadmissionpolicybindings', '-o', 'json'))) as { items: Json[] }).items;
      expect([...rows.keys()].sort()).toEqual(stored.map((o) => o.metadata.name).sort());
      for (const o of stored) {
        const ref = o.spec.paramRef;
        // No binding of this test or the data selects its params by label.
        expect(ref?.selector).toBeUndefined();
        expect(rows.get(o.metadata.name)).toMatchObject({
          POLICYNAME: o.spec.policyName,
          PARAMREF: ref === undefined ? '<unset>' : `${ref.namespace ?? '*'}/${ref.name}`,
          AGE: expect.stringMatching(/^\d+(s|m(\d+s)?)$/),
        });
      }
      expect(rows.get('configmap-max-keys-binding')).toMatchObject({ POLICYNAME: 'configmap-max-keys.example.com', PARAMREF: 'vap-params/limits' });
      expect(rows.get('replicalimit-binding-test.example.com')).toMatchObject({ PARAMREF: 'default/replica-limit-test.example.com' });
      expect(rows.get(SAFE_UPGRADES)).toMatchObject({ POLICYNAME: SAFE_UPGRADES, PARAMREF: '<unset>' });
    });
  });
});
