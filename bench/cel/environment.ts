/**
 * Issue 11 `make bench` (part `cel`, after the engines comparison): OUR CEL environment measured as the
 * server uses it.
 *
 * - Compile time per rule: parse + check + plan (`compileSchemaRule` / `compileValidation`, the
 *   environment already built and cached, as it is for every rule after the first of a schema node), the
 *   one-off environment build of the rule's schema node, and the static cost estimate (`estimateCost`)
 *   apart. 10 CRD rules from the real definitions in /work/shared/testdata/crds (schemas as they are) and
 *   5 validations from the real policies in /work/shared/testdata/policies (with their variables and
 *   paramKind).
 * - Evaluations per second of each, from JSON as the server does it: `evaluateSchemaRule` adapts `self`
 *   (types/adapt.ts) on every evaluation; admission builds its activation (`admissionActivation`, lazy
 *   variables) on every evaluation. A fresh `{cost, limit: PER_CALL_LIMIT}` tracker per evaluation, as
 *   `CostBudget` does. The same evaluation without a tracker, in alternating rounds of the same run: the
 *   tracker's overhead.
 * - The headline, `self.replicas <= self.maxReplicas` with cost tracking on (issue 11's target: at least
 *   1,000,000/s), against the raw cel-js evaluator (its own runtime, `self` a `map<string, int>`) as the
 *   baseline in the same run.
 *
 * Every figure is the median of several timed rounds after a calibrating warm-up; each case's result is
 * checked once before it is timed. Run alone: `node --import tsx bench/cel/environment.ts [--scale=1]`.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Environment } from '@marcbachmann/cel-js';
import { parseAllDocuments } from 'yaml';
import { declTypeSizeEstimator } from '../../apiserver/cel/cost/decl-sizes.js';
import { estimateCost } from '../../apiserver/cel/cost/estimator.js';
import { PER_CALL_LIMIT } from '../../apiserver/cel/cost/limits.js';
import {
  admissionActivation,
  admissionEnvironment,
  compileValidation,
  composeVariables,
  evaluateAdmission,
  type AdmissionCompilation,
  type AdmissionInput,
  type PolicyVariable,
  type VariableComposition,
} from '../../apiserver/cel/environment/admission.js';
import { compileSchemaRule, evaluateSchemaRule, ruleActivation, schemaRuleEnvironment, type CompiledRule, type RuleInput } from '../../apiserver/cel/environment/schema-rules.js';
import type { CostTracker } from '../../apiserver/cel/interpreter/plan.js';
import type { SchemaNode } from '../../apiserver/cel/types/schema-node.js';
import { applyDefaults } from '../../apiserver/schema/defaults.js';
import type { Schema } from '../../apiserver/schema/schema.js';
import { fmt, table } from '../measure.js';

type Json = Record<string, unknown>;

const CRDS = '/work/shared/testdata/crds';
const POLICIES = '/work/shared/testdata/policies';

// ---- timing ------------------------------------------------------------------------------------------

const ROUNDS = 5;

/** Iterations of `fn` that take about `ms` milliseconds (the warm-up: the JIT settles while it runs). */
function calibrate(fn: (i: number) => unknown, ms: number): number {
  let n = 0;
  const t0 = performance.now();
  let elapsed = 0;
  while (elapsed < ms) {
    for (let k = 0; k < 64; k++) fn(n++);
    elapsed = performance.now() - t0;
  }
  return Math.max(64, Math.round((n / elapsed) * ms));
}

function timeRound(fn: (i: number) => unknown, n: number): number {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) fn(i);
  return n / ((performance.now() - t0) / 1000);
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Operations per second of each function: one calibrating warm-up each, then ROUNDS rounds in which the
 * functions take turns (so drift on a shared machine hits them alike); the median round of each.
 */
function rates(fns: readonly ((i: number) => unknown)[], scale: number): number[] {
  const roundMs = 150 * scale;
  const ns = fns.map((fn) => calibrate(fn, roundMs));
  const samples = fns.map(() => [] as number[]);
  for (let r = 0; r < ROUNDS; r++) fns.forEach((fn, k) => samples[k]!.push(timeRound(fn, ns[k]!)));
  return samples.map(median);
}

const rate = (fn: (i: number) => unknown, scale: number): number => rates([fn], scale)[0]!;
/** A static estimate; the saturated maximum (2^64 - 1) means unbounded. */
const costText = (c: bigint): string => (c === (1n << 64n) - 1n ? '2^64−1 (unbounded)' : c.toLocaleString('en-US'));
const micros = (opsPerSecond: number): string => fmt(1e6 / opsPerSecond, 1);
const perSecond = (opsPerSecond: number): string => fmt(opsPerSecond);
/** The tracker's share of the time of one evaluation, from the two rates. */
const overhead = (on: number, off: number): string => `${fmt((off / on - 1) * 100, 0)}%`;

// ---- CRD rules ----------------------------------------------------------------------------------------

interface CrdRuleCase {
  readonly label: string;
  /** Under /work/shared/testdata/crds. */
  readonly file: string;
  /** Schema path of the node carrying the rule, in the storage version: `.spec.rules[*].timeouts`. */
  readonly path: string;
  /** A piece of the rule's text that picks it among the node's rules. */
  readonly match: string;
  /** The node's data (JSON, defaulted with the node's schema before use), and the old one for transition rules. */
  readonly self: unknown;
  readonly oldSelf?: unknown;
}

const PARENT_REFS = [
  { name: 'example-gateway', namespace: 'infra', sectionName: 'http' },
  { name: 'example-gateway', namespace: 'infra', sectionName: 'https' },
  { name: 'internal-gateway', namespace: 'infra' },
];

const LISTENERS = [
  { name: 'http', port: 80, protocol: 'HTTP', hostname: '*.example.com' },
  { name: 'https', port: 443, protocol: 'HTTPS', hostname: '*.example.com', tls: { mode: 'Terminate', certificateRefs: [{ kind: 'Secret', name: 'example-com' }] } },
  { name: 'https-default-tls-mode', port: 8443, protocol: 'HTTPS', hostname: '*.foo.com', tls: { certificateRefs: [{ kind: 'Secret', name: 'foo-com' }] } },
];

/** Ten typical rules: data shaped like the definitions' published examples. */
const CRD_RULES: readonly CrdRuleCase[] = [
  {
    label: 'cert-manager Issuer `.spec.venafi`',
    file: 'cert-manager/crds/cert-manager.io_issuers.yaml',
    path: '.spec.venafi',
    match: 'has(self.tpp)',
    self: { zone: 'DevOps\\cert-manager', tpp: { url: 'https://tpp.example.com/vedsdk', credentialsRef: { name: 'tpp-secret' } } },
  },
  {
    label: 'prometheus-operator Alertmanager `.spec.updateStrategy`',
    file: 'prometheus-operator/crds/monitoring.coreos.com_alertmanagers.yaml',
    path: '.spec.updateStrategy',
    match: 'RollingUpdate',
    self: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%' } },
  },
  {
    label: 'GatewayClass `.spec.controllerName` (transition rule)',
    file: 'gateway-api-standard/crds/gateway.networking.k8s.io_gatewayclasses.yaml',
    path: '.spec.controllerName',
    match: 'self == oldSelf',
    self: 'example.net/gateway-controller',
    oldSelf: 'example.net/gateway-controller',
  },
  {
    label: 'Gateway `.spec.listeners` (3 listeners)',
    file: 'gateway-api-standard/crds/gateway.networking.k8s.io_gateways.yaml',
    path: '.spec.listeners',
    match: 'self.all(l1, self.exists_one(l2, l1.name == l2.name))',
    self: LISTENERS,
  },
  {
    label: 'Gateway `.spec.addresses[*]` (hostname regex)',
    file: 'gateway-api-standard/crds/gateway.networking.k8s.io_gateways.yaml',
    path: '.spec.addresses[*]',
    match: 'self.value.matches',
    self: { type: 'Hostname', value: 'gateway.example.com' },
  },
  {
    label: 'HTTPRoute `.spec.rules[*].matches[*].path` (startsWith)',
    file: 'gateway-api-standard/crds/gateway.networking.k8s.io_httproutes.yaml',
    path: '.spec.rules[*].matches[*].path',
    match: "self.value.startsWith('/')",
    self: { type: 'PathPrefix', value: '/orders/v1' },
  },
  {
    label: 'HTTPRoute `.spec.rules[*].matches[*].path` (path regex)',
    file: 'gateway-api-standard/crds/gateway.networking.k8s.io_httproutes.yaml',
    path: '.spec.rules[*].matches[*].path',
    match: 'self.value.matches(',
    self: { type: 'PathPrefix', value: '/orders/v1' },
  },
  {
    label: 'HTTPRoute `.spec.rules[*].filters` (filter().size())',
    file: 'gateway-api-standard/crds/gateway.networking.k8s.io_httproutes.yaml',
    path: '.spec.rules[*].filters',
    match: "self.filter(f, f.type == 'RequestHeaderModifier').size() <= 1",
    self: [
      { type: 'RequestHeaderModifier', requestHeaderModifier: { set: [{ name: 'X-Env', value: 'prod' }], remove: ['X-Debug'] } },
      { type: 'ResponseHeaderModifier', responseHeaderModifier: { add: [{ name: 'X-Served-By', value: 'gw' }] } },
    ],
  },
  {
    label: 'HTTPRoute `.spec.rules[*].timeouts` (durations)',
    file: 'gateway-api-standard/crds/gateway.networking.k8s.io_httproutes.yaml',
    path: '.spec.rules[*].timeouts',
    match: 'duration(self.request)',
    self: { request: '10s', backendRequest: '2s' },
  },
  {
    label: 'HTTPRoute `.spec.parentRefs` (exists_one over 3 refs)',
    file: 'gateway-api-standard/crds/gateway.networking.k8s.io_httproutes.yaml',
    path: '.spec.parentRefs',
    match: 'self.all(p1, self.exists_one(p2',
    self: PARENT_REFS,
  },
];

function yamlDocs(path: string): Json[] {
  return parseAllDocuments(readFileSync(path, 'utf8'))
    .map((d) => d.toJS() as Json)
    .filter((d) => d !== null && typeof d === 'object');
}

/** The storage version's schema node at `path` (`.a.b[*].c`, `[key]` for additionalProperties). */
function schemaNodeAt(file: string, path: string): SchemaNode {
  const crd = yamlDocs(`${CRDS}/${file}`).find((d) => d.kind === 'CustomResourceDefinition');
  if (crd === undefined) throw new Error(`${file}: no CustomResourceDefinition`);
  const versions = (crd.spec as Json).versions as Json[];
  const storage = versions.find((v) => v.storage === true) ?? versions[0]!;
  let node = (storage.schema as Json).openAPIV3Schema as Json;
  for (const step of path.match(/\.[^.[]+|\[\*\]|\[key\]/g) ?? []) {
    const next = step === '[*]' ? node.items : step === '[key]' ? node.additionalProperties : (node.properties as Json | undefined)?.[step.slice(1)];
    if (next === undefined || next === null || typeof next !== 'object') throw new Error(`${file}: no schema at ${path} (${step})`);
    node = next as Json;
  }
  return node as SchemaNode;
}

interface PreparedRule {
  readonly c: CrdRuleCase;
  readonly node: SchemaNode;
  readonly ruleText: string;
  readonly compiled: CompiledRule;
  readonly input: RuleInput;
}

function prepareRule(c: CrdRuleCase): PreparedRule {
  const node = schemaNodeAt(c.file, c.path);
  const rules = ((node as Json)['x-kubernetes-validations'] as { rule: string }[] | undefined) ?? [];
  const picked = rules.filter((r) => r.rule.includes(c.match));
  if (picked.length !== 1) throw new Error(`${c.file} ${c.path}: ${picked.length} rules match ${c.match}`);
  const ruleText = picked[0]!.rule;
  const compiled = compileSchemaRule(node, { rule: ruleText }, { resourceRoot: false });
  if (compiled.error !== undefined) throw new Error(`${c.label}: ${compiled.error.detail}`);
  // Kubernetes validates defaulted objects (Gateway API rules read fields that only defaults set).
  const defaulted = (v: unknown): unknown => {
    const copy = structuredClone(v);
    applyDefaults(copy, node as Schema);
    return copy;
  };
  const input: RuleInput = c.oldSelf === undefined ? { self: defaulted(c.self) } : { self: defaulted(c.self), oldSelf: defaulted(c.oldSelf) };
  const result = evaluateSchemaRule(compiled, input, { cost: 0, limit: PER_CALL_LIMIT });
  if (result !== true) throw new Error(`${c.label}: the rule gives ${String(result)} on the benchmark data`);
  return { c, node, ruleText, compiled, input };
}

// ---- admission policies ---------------------------------------------------------------------------------

interface PolicyCase {
  readonly label: string;
  /** Under /work/shared/testdata/policies. */
  readonly file: string;
  /** Index of the validation in `spec.validations`. */
  readonly validation: number;
  readonly input: AdmissionInput;
}

const REQUEST = (kind: { group: string; version: string; kind: string }, resource: string, name: string, namespace: string): Json => ({
  kind,
  resource: { group: kind.group, version: kind.version, resource },
  requestKind: kind,
  requestResource: { group: kind.group, version: kind.version, resource },
  name,
  namespace,
  operation: 'CREATE',
  userInfo: { username: 'alice', uid: '42', groups: ['devs', 'system:authenticated'] },
  dryRun: false,
  options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' },
});

const container = (name: string, image: string, extra: Json = {}): Json => ({
  name,
  image,
  ports: [{ containerPort: 8080, protocol: 'TCP' }],
  resources: { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '128Mi' } },
  ...extra,
});

const DEPLOYMENT: Json = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'prod', labels: { app: 'web', env: 'prod' } },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [container('web', 'nginx:1.27'), container('sidecar', 'envoyproxy/envoy:v1.31')] } },
  },
};

const POD: Json = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web-0', namespace: 'prod', labels: { app: 'web' } },
  spec: {
    containers: [
      container('web', 'public.ecr.aws/docker/library/nginx:latest', { securityContext: { capabilities: { add: ['NET_BIND_SERVICE', 'FOO'], drop: ['ALL'] } } }),
      container('sidecar', 'envoyproxy/envoy:v1.31', { securityContext: { capabilities: { add: ['CHOWN'] } } }),
    ],
  },
};

/** A real CustomResourceDefinition from the test data, as the Gateway API's safe-upgrade policy sees it. */
const gatewayCrd = (): Json => {
  const crd = yamlDocs(`${CRDS}/gateway-api-standard/crds/gateway.networking.k8s.io_httproutes.yaml`).find((d) => d.kind === 'CustomResourceDefinition')!;
  return crd;
};

const PODS = { group: '', version: 'v1', kind: 'Pod' };
const DEPLOYMENTS = { group: 'apps', version: 'v1', kind: 'Deployment' };
const CRDS_KIND = { group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition' };

const POLICY_CASES: readonly PolicyCase[] = [
  {
    label: 'kubernetes website `replicalimit-policy` (params)',
    file: 'kubernetes-website/validatingadmissionpolicy/policy-with-param.yaml',
    validation: 0,
    input: {
      object: DEPLOYMENT,
      oldObject: null,
      params: { apiVersion: 'rules.example.com/v1', kind: 'ReplicaLimit', metadata: { name: 'replica-limit-test.example.com' }, maxReplicas: 3 },
      request: REQUEST(DEPLOYMENTS, 'deployments', 'web', 'prod'),
    },
  },
  {
    label: 'kyverno `vpol-check-deployment-labels` (a variable)',
    file: 'kyverno/generated-vap/validatingpolicy/check-deployment-labels/validatingadmissionpolicy.yaml',
    validation: 0,
    input: { object: DEPLOYMENT, oldObject: null, request: REQUEST(DEPLOYMENTS, 'deployments', 'web', 'prod') },
  },
  {
    label: 'kubescape C-0009 (Pod containers have limits)',
    file: 'kubescape-cel-admission-library/controls/C-0009/policy.yaml',
    validation: 0,
    input: { object: POD, oldObject: null, params: null, request: REQUEST(PODS, 'pods', 'web-0', 'prod') },
  },
  {
    label: 'kyverno `vpol-allow-specific-values` (optionals, 3 variables)',
    file: 'kyverno/generated-vap/validatingpolicy/with-finegrained-exception/validatingadmissionpolicy.yaml',
    validation: 0,
    input: { object: POD, oldObject: null, request: REQUEST(PODS, 'pods', 'web-0', 'prod') },
  },
  {
    label: 'Gateway API `safe-upgrades` #2 (matches on an annotation of a real CRD)',
    file: 'gateway-api/standard/gateway.networking.k8s.io_vap_safeupgrades.yaml',
    validation: 1,
    input: { object: gatewayCrd(), oldObject: null, request: REQUEST(CRDS_KIND, 'customresourcedefinitions', 'httproutes.gateway.networking.k8s.io', '') },
  },
];

interface PreparedPolicy {
  readonly c: PolicyCase;
  readonly expression: string;
  readonly composition: VariableComposition;
  readonly compiled: AdmissionCompilation;
  readonly result: unknown;
}

function preparePolicy(c: PolicyCase): PreparedPolicy {
  const policy = yamlDocs(`${POLICIES}/${c.file}`).find((d) => d.kind === 'ValidatingAdmissionPolicy');
  if (policy === undefined) throw new Error(`${c.file}: no ValidatingAdmissionPolicy`);
  const spec = policy.spec as Json;
  const expression = ((spec.validations as Json[])[c.validation]!.expression as string).trim();
  const variables = ((spec.variables as PolicyVariable[] | undefined) ?? []).map((v) => ({ name: v.name, expression: v.expression }));
  const base = admissionEnvironment({ hasParams: spec.paramKind !== undefined });
  const composition = composeVariables(base, variables);
  const compiled = compileValidation(composition.environment, expression);
  if (compiled.error !== undefined) throw new Error(`${c.label}: ${compiled.error.detail}`);
  const tracker: CostTracker = { cost: 0, limit: PER_CALL_LIMIT };
  const result = evaluateAdmission(compiled, admissionActivation(c.input, composition, tracker), tracker);
  if (typeof result !== 'boolean') throw new Error(`${c.label}: evaluates to ${String(result)}`);
  return { c, expression, composition, compiled, result };
}

// ---- the headline ---------------------------------------------------------------------------------------

const HEADLINE = 'self.replicas <= self.maxReplicas';
const HEADLINE_SCHEMA: SchemaNode = {
  type: 'object',
  properties: { replicas: { type: 'integer', format: 'int32' }, maxReplicas: { type: 'integer', format: 'int32' } },
} as SchemaNode;

function headline(scale: number): string[][] {
  const inputs: RuleInput[] = [{ self: { replicas: 3, maxReplicas: 5 } }, { self: { replicas: 7, maxReplicas: 5 } }];
  const rule = compileSchemaRule(HEADLINE_SCHEMA, { rule: HEADLINE }, { resourceRoot: false });
  if (rule.compiled === undefined) throw new Error(`headline: ${rule.error?.detail}`);
  const program = rule.compiled.program;
  const acts = inputs.map((i) => ruleActivation(rule, i)!);

  const celJs = new Environment({ homogeneousAggregateLiterals: false, enableOptionalTypes: true }).registerVariable('self', 'map<string, int>');
  const raw = celJs.parse(HEADLINE);
  if (!raw.check().valid) throw new Error('cel-js refused the headline rule');
  const rawContexts = [{ self: new Map([['replicas', 3n], ['maxReplicas', 5n]]) }, { self: new Map([['replicas', 7n], ['maxReplicas', 5n]]) }];

  // The same answers from every path before timing.
  for (let k = 0; k < 2; k++) {
    const want = k === 0;
    const got = [evaluateSchemaRule(rule, inputs[k]!, { cost: 0, limit: PER_CALL_LIMIT }), program.evaluate(acts[k]!, { cost: 0, limit: PER_CALL_LIMIT }), program.evaluate(acts[k]!), raw(rawContexts[k])];
    if (got.some((g) => g !== want)) throw new Error(`headline paths disagree: ${String(got)}`);
  }

  const [fromJsonOn, fromJsonOff, adaptedOn, adaptedOff, celJsRaw] = rates(
    [
      (i) => evaluateSchemaRule(rule, inputs[i & 1]!, { cost: 0, limit: PER_CALL_LIMIT }),
      (i) => evaluateSchemaRule(rule, inputs[i & 1]!),
      (i) => program.evaluate(acts[i & 1]!, { cost: 0, limit: PER_CALL_LIMIT }),
      (i) => program.evaluate(acts[i & 1]!),
      (i) => raw(rawContexts[i & 1]),
    ],
    scale,
  );
  const vs = (x: number): string => `${fmt(x / celJsRaw!, 2)}×`;
  return [
    ['**ours, from JSON (`evaluateSchemaRule`: adapt `self`, evaluate), cost tracking on**', `**${perSecond(fromJsonOn!)}**`, vs(fromJsonOn!)],
    ['ours, from JSON, no tracker', perSecond(fromJsonOff!), vs(fromJsonOff!)],
    ['ours, `self` adapted once (`CelProgram.evaluate` alone), cost tracking on', perSecond(adaptedOn!), vs(adaptedOn!)],
    ['ours, `self` adapted once, no tracker', perSecond(adaptedOff!), vs(adaptedOff!)],
    ['baseline: raw cel-js 8.0.0 evaluator, `self` a checked `map<string, int>` (no cost tracking possible)', perSecond(celJsRaw!), '1.00×'],
  ];
}

/**
 * Builds per second of a schema node's rule environment (DeclType, checker declarations): on new copies
 * of the node, made outside the timed loop, since the environment is cached on the node object.
 */
function environmentBuildRate(node: SchemaNode, scale: number): number {
  const k = Math.max(5, Math.round(40 * scale));
  const samples: number[] = [];
  for (let r = 0; r <= ROUNDS; r++) {
    const copies = Array.from({ length: k }, () => structuredClone(node));
    const t0 = performance.now();
    for (const c of copies) schemaRuleEnvironment(c, { resourceRoot: false });
    if (r > 0) samples.push(k / ((performance.now() - t0) / 1000)); // round 0 is the warm-up
  }
  return median(samples);
}

// ---- the section ------------------------------------------------------------------------------------------

/** The markdown section of our environment (see the file comment). */
export async function benchCelEnvironment({ scale }: { readonly scale: number }): Promise<string> {
  const rules = CRD_RULES.map(prepareRule);
  const policies = POLICY_CASES.map(preparePolicy);

  const headlineRows = headline(scale);

  // One untimed pass over every compile first, so the first expression measured does not pay for the JIT.
  for (let k = 0; k < Math.max(20, Math.round(300 * scale)); k++) {
    for (const p of rules) compileSchemaRule(p.node, { rule: p.ruleText }, { resourceRoot: false });
    for (const p of policies) compileValidation(p.composition.environment, p.expression);
  }

  // Compile: the environment of the rule's node is cached after the first rule, so a compile is parse +
  // check + plan; the environment build is timed apart on fresh copies of the node (a new definition is
  // a new schema object, hence a new environment).
  const ruleRows = rules.map((p) => {
    const compileRate = rate(() => compileSchemaRule(p.node, { rule: p.ruleText }, { resourceRoot: false }), scale);
    const envRate = environmentBuildRate(p.node, scale);
    const env = schemaRuleEnvironment(p.node, { resourceRoot: false });
    const target = p.compiled.optionalOldSelf ? env.withOptionalOldSelf! : env.withOldSelf!;
    const sizes = declTypeSizeEstimator(p.compiled.declType!);
    const ast = p.compiled.compiled!.ast;
    const estimate = estimateCost(ast, target.env, { sizes });
    const estimateRate = rate(() => estimateCost(ast, target.env, { sizes }), scale);
    const probe: CostTracker = { cost: 0, limit: PER_CALL_LIMIT };
    evaluateSchemaRule(p.compiled, p.input, probe);
    const [on, off] = rates([() => evaluateSchemaRule(p.compiled, p.input, { cost: 0, limit: PER_CALL_LIMIT }), () => evaluateSchemaRule(p.compiled, p.input)], scale);
    return {
      compile: [p.c.label, `\`${p.ruleText.length > 90 ? `${p.ruleText.slice(0, 87)}...` : p.ruleText}\``, micros(compileRate), micros(estimateRate), micros(envRate), costText(estimate.max)],
      evaluate: [p.c.label, perSecond(on!), fmt(probe.cost), perSecond(off!), overhead(on!, off!)],
    };
  });

  const policyRows = policies.map((p) => {
    const env = p.composition.environment;
    const compileRate = rate(() => compileValidation(env, p.expression), scale);
    const ast = p.compiled.compiled!.ast;
    const estimate = estimateCost(ast, env.env);
    const estimateRate = rate(() => estimateCost(ast, env.env), scale);
    const once = (tracker?: CostTracker): unknown => evaluateAdmission(p.compiled, admissionActivation(p.c.input, p.composition, tracker), tracker);
    const probe: CostTracker = { cost: 0, limit: PER_CALL_LIMIT };
    once(probe);
    const [on, off] = rates([() => once({ cost: 0, limit: PER_CALL_LIMIT }), () => once()], scale);
    const expr = p.expression.replace(/\s+/g, ' ');
    return {
      compile: [p.c.label, `\`${expr.length > 90 ? `${expr.slice(0, 87)}...` : expr}\``, micros(compileRate), micros(estimateRate), costText(estimate.max)],
      evaluate: [p.c.label, perSecond(on!), fmt(probe.cost), perSecond(off!), overhead(on!, off!), String(p.result)],
    };
  });

  const totalOn = (rows: { evaluate: string[] }[]): string => `${fmt(rows.length)} expressions`;
  return [
    '### CEL environment (issue 11): our environment as the server uses it',
    '',
    `Every figure: a calibrating warm-up, then ${ROUNDS} timed rounds of about ${fmt(150 * scale)} ms each (the compared variants in alternating rounds), the median round. Single thread.`,
    '',
    `Headline: \`${HEADLINE}\` over \`{replicas, maxReplicas}\` integers, two alternating inputs (true, false); the issue's target is 1,000,000 evaluations/s with cost tracking on.`,
    '',
    table(['path', 'evals/s', 'vs raw cel-js'], headlineRows),
    '',
    `Compile time of ${totalOn(ruleRows)} from the real definitions (/work/shared/testdata/crds, storage version, schemas as they are): parse + check + plan with the node's environment cached (\`compileSchemaRule\`), the static cost estimate (\`estimateCost\` with the node's sizes) apart, and the one-off environment build of a schema node (\`schemaRuleEnvironment\` on a new copy). Estimate: the rule's worst-case cost in cel-go units, before the cardinality factor.`,
    '',
    table(['rule', 'text', 'compile µs', 'estimate µs', 'node environment µs (once)', 'estimated max cost'], ruleRows.map((r) => r.compile)),
    '',
    'Evaluations per second from JSON (`evaluateSchemaRule`: `self` adapted per evaluation as the server does, a fresh tracker with the per-call limit each time), the runtime cost one evaluation charges, and the same without a tracker in alternating rounds: the tracker overhead is the extra time per evaluation.',
    '',
    table(['rule', 'evals/s, tracking on', 'runtime cost', 'evals/s, tracking off', 'tracker overhead'], ruleRows.map((r) => r.evaluate)),
    '',
    `${totalOn(policyRows)} of the real ValidatingAdmissionPolicies (/work/shared/testdata/policies), compiled as \`validations[].expression\` in the policy's environment (its variables composed, \`params\` declared when it has a paramKind; untyped objects, so the estimate has no sizes: unbounded lists and strings):`,
    '',
    table(['policy', 'expression', 'compile µs', 'estimate µs', 'estimated max cost'], policyRows.map((r) => r.compile)),
    '',
    'Evaluations per second, each building the activation from JSON (`admissionActivation`: `object`, `request`, `params`, lazily evaluated `variables`) and evaluating, with a fresh tracker and without:',
    '',
    table(['policy', 'evals/s, tracking on', 'runtime cost', 'evals/s, tracking off', 'tracker overhead', 'result'], policyRows.map((r) => r.evaluate)),
  ].join('\n');
}

// Run alone with tsx: print the section.
if (process.argv[1] !== undefined && /environment\.ts$/.test(process.argv[1])) {
  const arg = process.argv.find((x) => x.startsWith('--scale='));
  const scale = arg === undefined ? 1 : Number(arg.slice('--scale='.length));
  benchCelEnvironment({ scale })
    .then((md) => process.stdout.write(`${md}\n`))
    .catch((err: unknown) => {
      process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    });
}
