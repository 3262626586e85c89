/**
 * CRD validation rules through the environment layer, on real definitions and their published examples
 * (/work/shared/testdata/crds, used as they are): every rule compiles with `self` typed from its node,
 * every rule holds on the valid examples, transition rules see `oldSelf`, errors use Kubernetes' words.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { naming } from '../../naming/naming.js';
import { applyDefaults } from '../../schema/defaults.js';
import type { Schema } from '../../schema/schema.js';
import { CelCostError } from '../errors.js';
import type { SchemaNode } from '../types/schema-node.js';
import {
  compileSchemaRule,
  compileSchemaRules,
  evaluateRuleMessage,
  evaluateSchemaRule,
  schemaRuleEnvironment,
  type CompiledRule,
} from './schema-rules.js';

const CRDS = '/work/shared/testdata/crds';
type Json = Record<string, unknown>;

function yamlDocs(path: string): Json[] {
  return parseAllDocuments(readFileSync(path, 'utf8'))
    .map((d) => d.toJS() as Json)
    .filter((d) => d !== null && typeof d === 'object');
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? filesUnder(p) : /\.ya?ml$/.test(f) ? [p] : [];
  });
}

interface Site {
  readonly path: string;
  readonly node: SchemaNode;
  readonly root: boolean;
}

/** Every node of a schema with rules (the root is a resource root). */
function sites(node: SchemaNode, path = '', root = true, out: Site[] = []): Site[] {
  const n = node as Json;
  if (Array.isArray(n['x-kubernetes-validations']) && (n['x-kubernetes-validations'] as unknown[]).length > 0) out.push({ path: path || '<root>', node, root });
  for (const [k, p] of Object.entries((n.properties as Record<string, SchemaNode> | undefined) ?? {})) sites(p, `${path}.${k}`, false, out);
  if (n.items && typeof n.items === 'object') sites(n.items as SchemaNode, `${path}[*]`, false, out);
  if (n.additionalProperties && typeof n.additionalProperties === 'object') sites(n.additionalProperties as SchemaNode, `${path}[key]`, false, out);
  return out;
}

const CRD_FILES = filesUnder(CRDS).filter((f) => f.includes('/crds/') && readFileSync(f, 'utf8').includes('x-kubernetes-validations'));

function crdOf(file: string): Json {
  return yamlDocs(file).find((d) => d.kind === 'CustomResourceDefinition')!;
}

const versionsOf = (crd: Json): Json[] => (crd.spec as Json).versions as Json[];
const schemaOf = (v: Json): SchemaNode => (v.schema as Json).openAPIV3Schema as SchemaNode;

describe('every rule of the real definitions compiles (has() on any operand included)', () => {
  test.each(CRD_FILES.map((f) => f.slice(CRDS.length + 1)))('%s', (file) => {
    const crd = crdOf(join(CRDS, file));
    let count = 0;
    const failures: string[] = [];
    for (const v of versionsOf(crd)) {
      for (const site of sites(schemaOf(v))) {
        for (const r of compileSchemaRules(site.node, { resourceRoot: site.root })) {
          count++;
          if (r.error !== undefined || r.compiled === undefined) failures.push(`${String(v.name)} ${site.path}: ${r.rule.rule}: ${r.error?.detail}`);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(count).toBeGreaterThan(0);
  });

  test('the Gateway API rules that test presence under an index (cel-js refuses has() there) compile and evaluate', () => {
    const crd = crdOf(join(CRDS, 'gateway-api-standard/crds/gateway.networking.k8s.io_httproutes.yaml'));
    const storage = versionsOf(crd).find((v) => v.storage === true)!;
    const withIndexedHas = sites(schemaOf(storage)).flatMap((s) =>
      compileSchemaRules(s.node, { resourceRoot: s.root }).filter((r) => /has\([^)]*\]/.test(r.rule.rule)),
    );
    expect(withIndexedHas.length).toBeGreaterThanOrEqual(4);
    for (const r of withIndexedHas) expect(r.error).toBeUndefined();
  });
});

/** Rules of `node` over `data`, recursively (properties, items, additionalProperties), collected as results. */
function evaluateAll(node: SchemaNode, data: unknown, root: boolean, path: string, out: string[], counter: { n: number }): void {
  if (data === null || data === undefined) return;
  const n = node as Json;
  for (const r of compileSchemaRules(node, { resourceRoot: root || n['x-kubernetes-embedded-resource'] === true })) {
    counter.n++;
    let result: boolean | undefined;
    try {
      result = evaluateSchemaRule(r, { self: data });
    } catch (e) {
      out.push(`${path}: ${r.rule.rule}: ${(e as Error).message}`);
      continue;
    }
    if (result === false) out.push(`${path}: ${r.rule.rule}: false`);
  }
  const props = n.properties as Record<string, SchemaNode> | undefined;
  if (props && typeof data === 'object' && !Array.isArray(data)) {
    for (const [k, p] of Object.entries(props)) evaluateAll(p, (data as Json)[k], false, `${path}.${k}`, out, counter);
  }
  if (n.items && typeof n.items === 'object' && Array.isArray(data)) data.forEach((d, i) => evaluateAll(n.items as SchemaNode, d, false, `${path}[${i}]`, out, counter));
  if (n.additionalProperties && typeof n.additionalProperties === 'object' && typeof data === 'object' && !Array.isArray(data)) {
    for (const [k, d] of Object.entries(data as Json)) evaluateAll(n.additionalProperties as SchemaNode, d, false, `${path}[${k}]`, out, counter);
  }
}

describe('the published examples (defaulted) satisfy every rule', () => {
  const schemas = new Map<string, SchemaNode>(); // `group/version/kind` -> schema
  for (const file of CRD_FILES) {
    const crd = crdOf(file);
    const spec = crd.spec as Json;
    const kind = (spec.names as Json).kind as string;
    for (const v of versionsOf(crd)) schemas.set(`${String(spec.group)}/${String(v.name)}/${kind}`, schemaOf(v));
  }
  const examples = filesUnder(CRDS)
    .filter((f) => /\/examples?\//.test(f))
    .flatMap((f) => yamlDocs(f).map((doc) => ({ file: f.slice(CRDS.length + 1), doc })))
    .filter(({ doc }) => schemas.has(`${String(doc.apiVersion)}/${String(doc.kind)}`));

  let evaluated = 0;

  test('there are examples for the definitions with rules', () => {
    expect(examples.length).toBeGreaterThan(20);
  });

  test.each(examples.map((e, i) => [`${e.file} #${i} ${String(e.doc.kind)} ${String((e.doc.metadata as Json | undefined)?.name)}`, e.doc] as const))('%s', (_, doc) => {
    const schema = schemas.get(`${String(doc.apiVersion)}/${String(doc.kind)}`)!;
    const failures: string[] = [];
    const counter = { n: 0 };
    // Kubernetes validates defaulted objects (rules read fields that only defaults set).
    const data = structuredClone(doc);
    applyDefaults(data, schema as Schema);
    evaluateAll(schema, data, true, '', failures, counter);
    evaluated += counter.n;
    expect(failures).toEqual([]);
  });

  test('the examples exercised many rule evaluations', () => {
    expect(evaluated).toBeGreaterThan(300);
  });
});

describe('transition rules', () => {
  const schema: SchemaNode = {
    type: 'object',
    properties: {
      name: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'name is immutable' }] },
      replicas: { type: 'integer' },
    },
  };
  const env = { resourceRoot: false };

  test('a rule with oldSelf is a transition rule, evaluated only with an old value', () => {
    const r = compileSchemaRule(schema, { rule: 'self.replicas >= oldSelf.replicas' }, env);
    expect(r.error).toBeUndefined();
    expect(r.usesOldSelf).toBe(true);
    expect(evaluateSchemaRule(r, { self: { replicas: 3 } })).toBeUndefined();
    expect(evaluateSchemaRule(r, { self: { replicas: 3 }, oldSelf: { replicas: 2 } })).toBe(true);
    expect(evaluateSchemaRule(r, { self: { replicas: 1 }, oldSelf: { replicas: 2 } })).toBe(false);
    expect(compileSchemaRule(schema, { rule: 'self.replicas >= 0' }, env).usesOldSelf).toBe(false);
  });

  test('an immutable scalar (the GatewayClass controllerName rule shape)', () => {
    const [r] = compileSchemaRules((schema as Json).properties ? ((schema as Json).properties as Json).name as SchemaNode : schema);
    expect(r!.usesOldSelf).toBe(true);
    expect(evaluateSchemaRule(r!, { self: 'a', oldSelf: 'a' })).toBe(true);
    expect(evaluateSchemaRule(r!, { self: 'b', oldSelf: 'a' })).toBe(false);
  });

  test('optionalOldSelf: oldSelf is an optional, none on create', () => {
    const r = compileSchemaRule(schema, { rule: 'oldSelf.hasValue() ? self.replicas >= oldSelf.value().replicas : self.replicas == 1', optionalOldSelf: true }, env);
    expect(r.error).toBeUndefined();
    expect(r.optionalOldSelf).toBe(true);
    expect(evaluateSchemaRule(r, { self: { replicas: 1 } })).toBe(true);
    expect(evaluateSchemaRule(r, { self: { replicas: 2 } })).toBe(false);
    expect(evaluateSchemaRule(r, { self: { replicas: 2 }, oldSelf: { replicas: 1 } })).toBe(true);
    // Without optionalOldSelf, oldSelf is the object itself: optional members do not check.
    expect(compileSchemaRule(schema, { rule: 'oldSelf.hasValue()' }, env).error?.detail).toBe(
      "compilation failed: ERROR: <input>:1:17: found no matching overload for 'hasValue' applied to 'selfType.()'\n | oldSelf.hasValue()\n | ................^",
    );
  });

  test('equality of whole objects compares their data', () => {
    const r = compileSchemaRule(schema, { rule: 'self == oldSelf' }, env);
    expect(evaluateSchemaRule(r, { self: { name: 'a', replicas: 1 }, oldSelf: { replicas: 1, name: 'a' } })).toBe(true);
    expect(evaluateSchemaRule(r, { self: { name: 'a', replicas: 1 }, oldSelf: { name: 'a', replicas: 2 } })).toBe(false);
  });
});

describe('compile errors in Kubernetes wording', () => {
  const schema: SchemaNode = { type: 'object', properties: { spec: { type: 'object', properties: { replicas: { type: 'integer' }, name: { type: 'string' } } } } };

  test.each([
    ['self.spec.nope > 0', "compilation failed: ERROR: <input>:1:10: undefined field 'nope'\n | self.spec.nope > 0\n | .........^"],
    ['foo == 1', "compilation failed: ERROR: <input>:1:1: undeclared reference to 'foo' (in container '')\n | foo == 1\n | ^"],
    ['self.spec.replicas', 'cel expression must evaluate to a bool'],
    ['has(self.spec.nope)', "compilation failed: ERROR: <input>:1:14: undefined field 'nope'\n | has(self.spec.nope)\n | .............^"],
    ['size(self.spec.replicas) > 0', "compilation failed: ERROR: <input>:1:5: found no matching overload for 'size' applied to '(int)'\n | size(self.spec.replicas) > 0\n | ....^"],
    ['self.spec.replicas + "a" > 0', "compilation failed: ERROR: <input>:1:20: found no matching overload for '_+_' applied to '(int, string)'\n | self.spec.replicas + \"a\" > 0\n | ...................^"],
    ['has(self)', 'compilation failed: ERROR: <input>:1:5: invalid argument to has() macro\n | has(self)\n | ....^'],
  ])('%s', (rule, detail) => {
    const r = compileSchemaRule(schema, { rule });
    expect(r.compiled).toBeUndefined();
    expect(r.error?.detail).toBe(detail);
  });

  test('a blank rule compiles to nothing, without an error (as Kubernetes)', () => {
    const r = compileSchemaRule(schema, { rule: '  ' });
    expect(r.compiled).toBeUndefined();
    expect(r.error).toBeUndefined();
  });

  test('messageExpression: compiled apart, must be a string', () => {
    const ok = compileSchemaRule(schema, { rule: 'self.spec.replicas < 10', messageExpression: "'too many: ' + string(self.spec.replicas)" });
    expect(ok.messageExpression?.type).toBe('string');
    expect(evaluateSchemaRule(ok, { self: { spec: { replicas: 12 } } })).toBe(false);
    expect(evaluateRuleMessage(ok, { self: { spec: { replicas: 12 } } })).toBe('too many: 12');

    const notString = compileSchemaRule(schema, { rule: 'self.spec.replicas < 10', messageExpression: 'self.spec.replicas' });
    expect(notString.compiled).toBeDefined();
    expect(notString.messageExpressionError?.detail).toBe('messageExpression must evaluate to a string');

    const bad = compileSchemaRule(schema, { rule: 'self.spec.replicas < 10', messageExpression: 'self.nope' });
    expect(bad.messageExpressionError?.detail).toBe("messageExpression compilation failed: ERROR: <input>:1:5: undefined field 'nope'\n | self.nope\n | ....^");
  });

  test('a node that cannot carry rules', () => {
    const r = compileSchemaRule({ 'x-kubernetes-preserve-unknown-fields': true }, { rule: 'true' });
    expect(r.error?.detail).toBe("rule declared on schema that does not support validation rules type: '' x-kubernetes-preserve-unknown-fields: 'true'");
  });

  test('a caret under a multi-byte character is full-width, as cel-go prints it', () => {
    const r = compileSchemaRule(schema, { rule: "'é' == self.nope" });
    expect(r.error?.detail).toBe("compilation failed: ERROR: <input>:1:12: undefined field 'nope'\n | 'é' == self.nope\n | .．.........^");
  });
});

describe('environments are built once per schema node', () => {
  test('the same schema object gives the same environment; another object another one', () => {
    const schema: SchemaNode = { type: 'object', properties: { a: { type: 'integer' } } };
    const e1 = schemaRuleEnvironment(schema);
    expect(schemaRuleEnvironment(schema)).toBe(e1);
    expect(e1.withOldSelf).toBe(schemaRuleEnvironment(schema).withOldSelf);
    expect(e1.withOptionalOldSelf).toBe(e1.withOptionalOldSelf);
    expect(schemaRuleEnvironment({ ...schema })).not.toBe(e1);
    // stored expressions and other versions have their own environments on the same node
    expect(schemaRuleEnvironment(schema, { mode: 'stored' })).not.toBe(e1);
    expect(schemaRuleEnvironment(schema, { compatibilityVersion: 28 })).not.toBe(e1);
  });
});

describe('the platform.io extension spelling', () => {
  test('x-platform-* schemas read through the naming prefix', () => {
    const schema: SchemaNode = {
      type: 'object',
      properties: {
        items: { type: 'array', 'x-platform-list-type': 'set', items: { type: 'string' } },
        blob: { 'x-platform-int-or-string': true },
      },
      'x-platform-validations': [{ rule: 'self.items == ["b", "a"] && (type(self.blob) == int || self.blob.startsWith("x"))' }],
    };
    const [r] = compileSchemaRules(schema, { naming: naming('platform.io') });
    expect(r!.error).toBeUndefined();
    expect(evaluateSchemaRule(r!, { self: { items: ['a', 'b'], blob: 3 } })).toBe(true);
    expect(evaluateSchemaRule(r!, { self: { items: ['a', 'b'], blob: 'xy' } })).toBe(true);
    expect(evaluateSchemaRule(r!, { self: { items: ['a', 'c'], blob: 3 } })).toBe(false);
    // With Kubernetes' spelling the same schema has no rules.
    expect(compileSchemaRules(schema)).toEqual([]);
  });
});

describe('evaluation limits', () => {
  test('a runaway rule stops at the tracker limit with a cost error', () => {
    const schema: SchemaNode = { type: 'array', items: { type: 'integer' } };
    const r: CompiledRule = compileSchemaRule(schema, { rule: 'self.all(x, self.all(y, self.all(z, x + y + z >= 0)))' });
    expect(r.error).toBeUndefined();
    const big = Array.from({ length: 200 }, (_, i) => i);
    expect(() => evaluateSchemaRule(r, { self: big }, { cost: 0, limit: 100_000 })).toThrow(CelCostError);
  });
});
