/**
 * The defaults inside a definition's schema, checked as Kubernetes v1.32 checks them at write time
 * (apiextensions `defaulting.ValidateDefaults`, run once the schema is structural), with its messages and
 * paths (`<node>.default`):
 *
 * - the walk follows `properties` and `items` only (defaults are forbidden under `additionalProperties`
 *   inside metadata and never followed elsewhere); the schema root, and every embedded resource, is a
 *   resource root;
 * - a default of a resource's own `apiVersion`, `kind` or `metadata` (inside an embedded resource: the
 *   root's are forbidden outright by the schema checks) is placed into the object it would default, typed
 *   `validation/v1` `Validation`, and that object must have valid metadata: `Invalid value: <default>: must
 *   result in valid metadata: <errors>`; then the default must validate against its node;
 * - any other default must be pruned (`must not have unknown fields`, when the definition requires it:
 *   see update-leniency.ts), an embedded resource default must have valid apiVersion, kind and metadata,
 *   and the default must validate against its node's schema and CEL rules (evaluated with `oldSelf` =
 *   the default, then, when they pass, without an old value, for `optionalOldSelf` rules), all runs
 *   sharing one runtime budget. Schema errors name the node's default and word the value's own paths
 *   relative to it (`<root> in body ...`), as Kubernetes validates the default on its own.
 */
import type { ObjectMeta } from '../../../api/object.js';
import { CostBudget } from '../../../cel/cost/budget.js';
import { RUNTIME_CEL_COST_BUDGET } from '../../../cel/cost/limits.js';
import { deepEqual } from '../../../schema/rule-correlation.js';
import { prune } from '../../../schema/prune.js';
import type { Schema } from '../../../schema/schema.js';
import { validateValue } from '../../../schema/validate.js';
import { validateRules } from '../../../schema/validate-rules.js';
import { errorString, invalidValue, required, type FieldError, type FieldPath } from '../../../validation/field-error.js';
import { isDNS1035Label } from '../../../validation/names.js';
import { validateObjectMeta } from '../../../validation/object-meta.js';
import { engineSchemaOf } from './engine-schema.js';
import { isObject, type Json } from './json-schema-node.js';

const META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);
const EMBEDDED = 'x-kubernetes-embedded-resource';

/** The errors of the defaults in `schema` (a definition's `openAPIV3Schema` at `path`). */
export function validateDefaults(schema: Json, path: FieldPath, extensionPrefix: string, requirePrunedDefaults: boolean): FieldError[] {
  const s = engineSchemaOf(schema, extensionPrefix);
  const root: Schema = s[EMBEDDED] === true ? s : { ...s, [EMBEDDED]: true };
  const walk = new DefaultsWalk(requirePrunedDefaults);
  walk.visit(root, path, root, [], false);
  return walk.errors;
}

class DefaultsWalk {
  readonly errors: FieldError[] = [];
  private readonly budget = new CostBudget(RUNTIME_CEL_COST_BUDGET);

  constructor(private readonly requirePruned: boolean) {}

  /** `surround`: the keys and indexes from the enclosing resource root to `s`. */
  visit(s: Schema, p: FieldPath, resourceRoot: Schema, surround: readonly (string | number)[], insideMeta: boolean): void {
    if (this.budget.remaining < 0) return;
    // A null schema node (`properties: {x: null}`) decodes in Go to an empty schema: no default under it.
    if (s === null || typeof s !== 'object') return;
    const embedded = s[EMBEDDED] === true;
    if (embedded) {
      insideMeta = false;
      surround = [];
      resourceRoot = s;
    }
    // A JSON null default is no default (Go decodes it to a nil object).
    if (s.default !== undefined && s.default !== null) this.checkDefault(s, p.child('default'), resourceRoot, surround, insideMeta);

    if (s.items !== undefined) this.visit(s.items, p.child('items'), resourceRoot, [...surround, 0], insideMeta);
    for (const [k, prop] of Object.entries(s.properties ?? {})) {
      this.visit(prop, p.child('properties').key(k), resourceRoot, [...surround, k], insideMeta || (embedded && META_FIELDS.has(k)));
    }
  }

  private checkDefault(s: Schema, at: FieldPath, resourceRoot: Schema, surround: readonly (string | number)[], insideMeta: boolean): void {
    const value = s.default;
    const isResourceRoot = s === resourceRoot;
    if (insideMeta) {
      const metaErrs = embeddedResourceProblems('', surroundingObject(surround, structuredClone(value)), resourceRoot);
      if (metaErrs.length > 0) {
        this.errors.push(invalidValue(at, value, `must result in valid metadata: ${aggregate(metaErrs)}`));
        return;
      }
    } else {
      if (this.requirePruned) {
        const pruned = structuredClone(value);
        prune(pruned, s);
        if (!deepEqual(pruned, value)) this.errors.push(invalidValue(at, value, 'must not have unknown fields'));
      }
      const metaErrs = embeddedResourceProblems(at.toString(), value, s);
      if (metaErrs.length > 0) {
        this.errors.push(...metaErrs);
        return;
      }
    }
    const schemaErrs = validateValue(value, s, undefined, { style: 'crd' });
    if (schemaErrs.length > 0) {
      this.errors.push(...schemaErrs.map((e) => ({ ...e, field: under(at.toString(), e.field) })));
      return;
    }
    this.rules(s, at, value, isResourceRoot);
  }

  /** The node's CEL rules over the default: as an unchanged update, then (when clean) as a new value. */
  private rules(s: Schema, at: FieldPath, value: unknown, resourceRoot: boolean): void {
    const run = (old: unknown): FieldError[] =>
      validateRules(value, s, { path: at, old, ratcheting: false, resourceRoot, budget: this.budget }).errors.filter(
        // A rule that does not compile is reported by the schema's own rule checks (crd-rules.ts).
        (e) => !(e.detail ?? '').startsWith('rule compile error'),
      );
    const first = run(value);
    this.errors.push(...first);
    if (first.length === 0) this.errors.push(...run(undefined));
  }
}

/** Kubernetes' `field.ErrorList.ToAggregate().Error()`: one message, or `[a, b]`, repeats dropped. */
function aggregate(errs: readonly FieldError[]): string {
  const msgs = [...new Set(errs.map(errorString))];
  return msgs.length === 1 ? msgs[0]! : `[${msgs.join(', ')}]`;
}

/** `child` (a path relative to a default) under the default's path `base`. */
const under = (base: string, child: string): string => (child === '' ? base : child.startsWith('[') ? base + child : `${base}.${child}`);

/** The object a meta default would default: `validation/v1` `Validation` with the value placed at `surround`. */
function surroundingObject(surround: readonly (string | number)[], value: unknown): Json {
  let v = value;
  for (let i = surround.length - 1; i >= 1; i--) {
    const seg = surround[i]!;
    v = typeof seg === 'number' ? [v] : { [seg]: v };
  }
  const top: Json = { apiVersion: 'validation/v1', kind: 'Validation' };
  if (surround.length > 0) top[surround[0] as string] = v;
  return top;
}

/**
 * Kubernetes' objectmeta `Coerce` and `Validate` over `value` with schema `s`: every embedded resource in
 * it needs apiVersion and kind (strings, not empty, a group version and a DNS-1035 kind) and valid
 * metadata (as a path-segment name; `fakename` when it has none).
 */
function embeddedResourceProblems(path: string, value: unknown, s: Schema | undefined): FieldError[] {
  if (s === undefined || value === null || typeof value !== 'object') return [];
  const errs: FieldError[] = [];
  const at = (k: string): string => (path === '' ? k : `${path}.${k}`);
  if (Array.isArray(value)) {
    value.forEach((v, i) => errs.push(...embeddedResourceProblems(`${path}[${i}]`, v, s.items)));
    return errs;
  }
  const obj = value as Json;
  if (s[EMBEDDED] === true) errs.push(...embeddedResource(obj, at));
  const ap = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
  for (const [k, v] of Object.entries(obj)) {
    const prop = s.properties?.[k];
    if (prop !== undefined) errs.push(...embeddedResourceProblems(at(k), v, prop));
    else if (ap !== undefined) errs.push(...embeddedResourceProblems(`${path}[${k}]`, v, ap));
  }
  return errs;
}

function embeddedResource(obj: Json, at: (k: string) => string): FieldError[] {
  const errs: FieldError[] = [];
  if (!('apiVersion' in obj)) errs.push(required(at('apiVersion'), 'must not be empty'));
  if (!('kind' in obj)) errs.push(required(at('kind'), 'must not be empty'));
  const apiVersion = obj.apiVersion;
  if ('apiVersion' in obj) {
    if (typeof apiVersion !== 'string') errs.push(invalidValue(at('apiVersion'), apiVersion, 'must be a string'));
    else if (apiVersion === '') errs.push(invalidValue(at('apiVersion'), apiVersion, 'must not be empty'));
    else if (apiVersion.split('/').length > 2) errs.push(invalidValue(at('apiVersion'), apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
  }
  const kind = obj.kind;
  if ('kind' in obj) {
    if (typeof kind !== 'string') errs.push(invalidValue(at('kind'), kind, 'must be a string'));
    else if (kind === '') errs.push(invalidValue(at('kind'), kind, 'must not be empty'));
    else {
      const problems = isDNS1035Label(kind.toLowerCase());
      if (problems.length > 0) errs.push(invalidValue(at('kind'), kind, `may have mixed case, but should otherwise match: ${problems.join(',')}`));
    }
  }
  if ('metadata' in obj) {
    const m = obj.metadata;
    const decoded = decodeObjectMeta(m);
    if (typeof decoded === 'string') errs.push(invalidValue(at('metadata'), m, decoded));
    else {
      const meta: ObjectMeta = decoded.name === undefined || decoded.name === '' ? { ...decoded, name: 'fakename' } : decoded;
      const namespaced = typeof meta.namespace === 'string' && meta.namespace !== '';
      for (const e of validateObjectMeta(meta, { namespaced, nameRule: 'path-segment' })) errs.push({ ...e, field: at(e.field) });
    }
  }
  return errs;
}

const META_STRINGS = ['name', 'generateName', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp', 'deletionTimestamp'];
const META_STRING_MAPS = ['labels', 'annotations'];

/**
 * ObjectMeta as Go's JSON decoding would read it, or the decoding error (Kubernetes: `GetObjectMeta`):
 * the members whose JSON type is wrong are the ones it refuses.
 */
function decodeObjectMeta(m: unknown): ObjectMeta | string {
  if (m === null) return {} as ObjectMeta;
  if (!isObject(m)) return `json: cannot unmarshal ${goJsonKind(m)} into Go value of type v1.ObjectMeta`;
  for (const k of META_STRINGS) {
    if (m[k] !== undefined && m[k] !== null && typeof m[k] !== 'string') {
      return `json: cannot unmarshal ${goJsonKind(m[k])} into Go struct field ObjectMeta.${k} of type ${k.endsWith('Timestamp') ? 'v1.Time' : 'string'}`;
    }
  }
  for (const k of META_STRING_MAPS) {
    const v = m[k];
    if (v === undefined || v === null) continue;
    if (!isObject(v)) return `json: cannot unmarshal ${goJsonKind(v)} into Go struct field ObjectMeta.${k} of type map[string]string`;
    for (const x of Object.values(v)) {
      if (typeof x !== 'string') return `json: cannot unmarshal ${goJsonKind(x)} into Go struct field ObjectMeta.${k} of type string`;
    }
  }
  if (m.finalizers !== undefined && m.finalizers !== null && (!Array.isArray(m.finalizers) || m.finalizers.some((f) => typeof f !== 'string'))) {
    return `json: cannot unmarshal ${goJsonKind(m.finalizers)} into Go struct field ObjectMeta.finalizers of type []string`;
  }
  return m as unknown as ObjectMeta;
}

/** The JSON kind Go's decoder names in its errors. */
function goJsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number' || typeof v === 'bigint') return 'number';
  return typeof v === 'string' ? 'string' : 'object';
}
