/**
 * The declared schema types in the cel-js checker, on real custom resource definitions
 * (/work/shared/testdata/crds, used as they are): every `x-kubernetes-validations` rule of the Gateway API
 * and cert-manager definitions (accepted by Kubernetes) checks with `self` (and `oldSelf`) typed from its
 * schema node; rules with type errors are refused with cel-go's kind of message.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Environment } from '@marcbachmann/cel-js';
import { parseAllDocuments } from 'yaml';
import { beforeCheck } from '../environment/validate.js';
import { CelCompileError } from '../errors.js';
import { schemaDeclType, type DeclType, type ObjectDecl } from './decl-type.js';
import { checkFieldSelections } from './field-check.js';
import { registerDeclTypes, registerSchemaVariable } from './register.js';
import type { SchemaNode } from './schema-node.js';

const CRDS = '/work/shared/testdata/crds';

type Json = Record<string, unknown>;

function loadCrd(path: string): Json {
  const docs = parseAllDocuments(readFileSync(join(CRDS, path), 'utf8')).map((d) => d.toJS() as Json);
  return docs.find((d) => d?.kind === 'CustomResourceDefinition')!;
}

function storageSchema(crd: Json): SchemaNode {
  const versions = (crd.spec as Json).versions as Json[];
  const v = versions.find((x) => x.storage === true)!;
  return (v.schema as Json).openAPIV3Schema as SchemaNode;
}

interface RuleSite {
  readonly path: string;
  readonly node: SchemaNode;
  readonly resourceRoot: boolean;
  readonly rules: readonly string[];
}

/** Every schema node carrying rules, with whether it is a resource root (the root or an embedded resource). */
function ruleSites(node: SchemaNode, path = '', root = true, out: RuleSite[] = []): RuleSite[] {
  const n = node as Json;
  const rules = ((n['x-kubernetes-validations'] as Json[] | undefined) ?? []).map((r) => r.rule as string);
  const embedded = n['x-kubernetes-embedded-resource'] === true;
  if (rules.length > 0) out.push({ path: path || '<root>', node, resourceRoot: root || embedded, rules });
  for (const [k, p] of Object.entries((n.properties as Record<string, SchemaNode> | undefined) ?? {})) ruleSites(p, `${path}.${k}`, false, out);
  if (n.items && typeof n.items === 'object') ruleSites(n.items as SchemaNode, `${path}[*]`, false, out);
  if (n.additionalProperties && typeof n.additionalProperties === 'object') ruleSites(n.additionalProperties as SchemaNode, `${path}[key]`, false, out);
  return out;
}

/**
 * An environment as the CRD issue will build it: optional types on, `self` and `oldSelf` of the node's
 * type. The Kubernetes libraries are another helper's work; the few members these rules call that cel-js
 * lacks are declared here by signature only (the checker needs no implementation).
 */
function envFor(decl: DeclType): { env: Environment; types: Map<string, ObjectDecl> } {
  const env = new Environment({ enableOptionalTypes: true });
  const types = registerSchemaVariable(env, 'self', decl);
  registerDeclTypes(env, decl);
  env.registerVariable('oldSelf', decl.celType);
  return { env, types };
}

/**
 * cel-js 8.0.0's `has()` checks only a chain of selections from an identifier; CEL allows any operand
 * (`has(self.matches[0].path)`, in the HTTPRoute and GRPCRoute rules). The environment layer's pass
 * before the check (environment/validate.ts) lifts that, as every compile of the server does.
 */
const FEATURES = { optionalTypes: true, crossTypeNumericComparisons: true, literalValidators: true, stringFormat: true };

function compile(env: Environment, types: Map<string, ObjectDecl>, rule: string): string {
  const parsed = env.parse(rule);
  beforeCheck(parsed.ast as never, { features: FEATURES });
  const r = parsed.check();
  if (!r.valid) throw r.error;
  checkFieldSelections(parsed.ast, types);
  return r.type!;
}

const CRD_FILES = [
  'gateway-api-standard/crds/gateway.networking.k8s.io_httproutes.yaml',
  'gateway-api-standard/crds/gateway.networking.k8s.io_gateways.yaml',
  'gateway-api-standard/crds/gateway.networking.k8s.io_grpcroutes.yaml',
  'gateway-api-standard/crds/gateway.networking.k8s.io_gatewayclasses.yaml',
  'gateway-api-standard/crds/gateway.networking.k8s.io_backendtlspolicies.yaml',
  'gateway-api-standard/crds/gateway.networking.k8s.io_listenersets.yaml',
  'cert-manager/crds/cert-manager.io_issuers.yaml',
];

describe('real CRD rules type-check against their schema types', () => {
  test.each(CRD_FILES)('%s: every rule checks to bool', (file) => {
    const schema = storageSchema(loadCrd(file));
    const sites = ruleSites(schema);
    expect(sites.length).toBeGreaterThan(0);
    const failures: string[] = [];
    let checked = 0;
    for (const site of sites) {
      const decl = schemaDeclType(site.node, { resourceRoot: site.resourceRoot });
      expect(decl).toBeDefined();
      const { env, types } = envFor(decl!);
      for (const rule of site.rules) {
        checked++;
        try {
          const type = compile(env, types, rule);
          if (type !== 'bool') failures.push(`${site.path}: ${rule}: type ${type}`);
        } catch (e) {
          failures.push(`${site.path}: ${rule}: ${(e as Error).message.split('\n')[0]}`);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(checked).toBeGreaterThan(0);
  });
});

describe('type errors on real schemas are refused', () => {
  const httpRoute = storageSchema(loadCrd('gateway-api-standard/crds/gateway.networking.k8s.io_httproutes.yaml'));
  const root = schemaDeclType(httpRoute, { resourceRoot: true })!;
  const { env, types } = envFor(root);

  test.each([
    // accepted
    ['self.spec.rules.all(r, r.matches.all(m, !has(m.path) || m.path.type != ""))', 'bool'],
    ['self.metadata.name.startsWith("a")', 'bool'],
    ['has(self.metadata.generateName)', 'bool'],
    ['self.kind == "HTTPRoute" && self.apiVersion.endsWith("/v1")', 'bool'],
    ['self.spec.hostnames.size() <= 16', 'bool'],
    ['self.?spec.?hostnames.orValue([]).size()', 'int'],
    ['self.spec.parentRefs.exists(p, p.port == 80)', 'bool'],
    ['self == oldSelf', 'bool'],
    ['self.spec.rules[0].backendRefs[0].weight > 1', 'bool'],
    ['type(self.spec.rules[0].timeouts) == type(self.spec.rules[0].timeouts)', 'bool'],
  ])('%s checks to %s', (rule, type) => {
    expect(compile(env, types, rule)).toBe(type);
  });

  test.each([
    // unknown fields
    ['self.spec.nope == 1', /No such key: nope/],
    ['self.metadata.labels.size() > 0', /No such key: labels/],
    ['self.spec.rules.all(r, r.nope)', /No such key: nope/],
    ['has(self.spec.nope)', /undefined field 'nope'/],
    ['has(self.metadata.namespace)', /undefined field 'namespace'/],
    ['self.?spec.?nope.hasValue()', /undefined field 'nope'/],
    ['has(self.spec.hostnames.x)', /type 'list<string>' does not support field selection/],
    ['self.spec["hostnames"].size() > 0', /found no matching overload for '_\[_\]' applied to '\(selfType.spec, string\)'/],
    // wrong operand types
    ['self.spec.hostnames.size() + "a" > 0', /no such overload/],
    ['self.metadata.name > 1', /no such overload/],
    ['self.spec.parentRefs.exists(p, p.port == "80")', /no such overload/],
    ['self.spec.hostnames.startsWith("a")', /found no matching overload/],
  ])('%s is refused', (rule, message) => {
    expect(() => compile(env, types, rule)).toThrow(message);
  });

  test('field-check errors carry the position of the selection, as cel-go reports it', () => {
    try {
      compile(env, types, 'has(self.spec.nope)');
      throw new Error('not refused');
    } catch (e) {
      expect(e).toBeInstanceOf(CelCompileError);
      expect((e as CelCompileError).message).toBe("ERROR: <input>:1:14: undefined field 'nope'");
      expect((e as CelCompileError).column).toBe(14);
    }
  });
});
