/**
 * Schema validation: one walk over the value that checks types, required fields, enums, string, number,
 * array and map bounds, formats, list types and the logical junctors, producing Kubernetes field errors.
 *
 * Messages follow Kubernetes' apiextensions validation (kube-openapi): `spec.replicas in body must be of
 * type integer: "string"` (value: the actual type), `... in body should be greater than or equal to 0`.
 * With `{ style: 'builtin' }` the `<path> in body` prefix is dropped and `should` reads `must`, as the
 * hand-written validation of built-in kinds words it (`must be greater than or equal to 0`).
 *
 * Per-schema data (compiled patterns, enum sets) is compiled lazily and cached per schema node. Paths are
 * kept as a segment stack and rendered only when an error is reported. Values of the wrong type stop the
 * walk at that node (one error, nothing below it). `x-kubernetes-validations` (CEL) are evaluated after this
 * walk by validate-rules.ts (the registry's validation step), not here.
 *
 * Ratcheting (`ValidateOptions.ratchet`, ratcheting.ts): each node's errors (its own and those of the nodes
 * below it) are set aside when the node is correlated with an old value that it equals, as Kubernetes'
 * ratcheting schema validator does; the list-type, map-key and embedded-resource checks are Kubernetes'
 * separate steps and never ratchet.
 */
import { duplicate, invalidValue, notSupported, required, tooLong, tooMany, typeInvalid, type FieldError, type FieldPath } from '../validation/field-error.js';
import { checkFormat, isCheckedFormat } from './formats.js';
import type { Correlation } from './rule-correlation.js';
import type { Schema } from './schema.js';

export interface ValidateOptions {
  /** `crd` (default): kube-openapi wording; `builtin`: without the path prefix, `must` for `should`. */
  readonly style?: 'crd' | 'builtin';
  /**
   * Update ratcheting: `root` correlates the value with the old object (rule-correlation.ts); errors of
   * unchanged nodes are moved to `ratcheted` instead of being returned. See ratcheting.ts.
   */
  readonly ratchet?: { readonly root: Correlation; readonly ratcheted: FieldError[] };
}

interface Compiled {
  readonly pattern: RegExp | null;
  /** Primitive enum members, for O(1) lookups; `enumObjects` holds the others (compared structurally). */
  readonly enumPrimitives: ReadonlySet<unknown> | null;
  readonly enumObjects: readonly unknown[];
  readonly enumText: readonly string[];
  readonly checkedFormat: boolean;
}

const compiledCache = new WeakMap<Schema, Compiled>();

function compile(s: Schema): Compiled {
  let c = compiledCache.get(s);
  if (c !== undefined) return c;
  let pattern: RegExp | null = null;
  if (s.pattern !== undefined) {
    try {
      pattern = new RegExp(s.pattern, 'u');
    } catch {
      // A pattern JavaScript cannot compile (Go RE2 syntax differs slightly) is not enforced.
      pattern = null;
    }
  }
  let enumPrimitives: Set<unknown> | null = null;
  const enumObjects: unknown[] = [];
  const enumText: string[] = [];
  if (s.enum !== undefined) {
    enumPrimitives = new Set();
    for (const e of s.enum) {
      if (e !== null && typeof e === 'object') enumObjects.push(e);
      else enumPrimitives.add(e);
      enumText.push(typeof e === 'string' ? e : JSON.stringify(e));
    }
  }
  c = { pattern, enumPrimitives, enumObjects, enumText, checkedFormat: s.format !== undefined && isCheckedFormat(s.format) };
  compiledCache.set(s, c);
  return c;
}

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const hasOwn = Object.prototype.hasOwnProperty;

/** The JSON type name of a value, as kube-openapi names it in type errors. */
function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** Validates `value` against `schema`; `path` prefixes every field (e.g. `FieldPath.root('spec')`). */
export function validateValue(value: unknown, schema: Schema, path?: FieldPath, options?: ValidateOptions): FieldError[] {
  const v = new Validator(path === undefined ? '' : path.toString(), options?.style === 'builtin', options?.ratchet);
  v.visit(value, schema);
  return v.errors;
}

class Validator {
  readonly errors: FieldError[] = [];
  private readonly segs: (string | number)[] = [];
  /** Ratcheting: the current node's correlation (null: none), and the errors that never ratchet. */
  private corr: Correlation | null;
  private readonly pinned = new WeakSet<FieldError>();

  constructor(
    private readonly base: string,
    private readonly builtin: boolean,
    private readonly ratchet?: { readonly root: Correlation; readonly ratcheted: FieldError[] },
  ) {
    this.corr = ratchet?.root ?? null;
  }

  /** An error of Kubernetes' list-type and embedded-resource steps, outside the schema validator: never ratcheted. */
  private pin(e: FieldError): void {
    this.pinned.add(e);
    this.errors.push(e);
  }

  /** Moves the ratchetable errors from index `mark` on to the ratcheted list. */
  private ratchetFrom(mark: number): void {
    let w = mark;
    for (let r = mark; r < this.errors.length; r++) {
      const e = this.errors[r]!;
      if (this.pinned.has(e)) this.errors[w++] = e;
      else this.ratchet!.ratcheted.push(e);
    }
    this.errors.length = w;
  }

  /** Visits a child with its correlation: an object key (`apiVersion`/`kind` of the root never correlate) or a list index. */
  private visitChild(value: unknown, s: Schema, seg: string | number): void {
    const parent = this.corr;
    if (parent !== null) {
      if (typeof seg === 'number') this.corr = parent.index(seg);
      else this.corr = this.base === '' && this.segs.length === 1 && (seg === 'apiVersion' || seg === 'kind') ? null : parent.key(seg);
    }
    this.visit(value, s);
    this.corr = parent;
  }

  private path(): string {
    let out = this.base;
    for (const s of this.segs) {
      if (typeof s === 'number') out += `[${s}]`;
      else out += out === '' ? s : `.${s}`;
    }
    return out;
  }

  private childPath(name: string): string {
    const p = this.path();
    return p === '' ? name : `${p}.${name}`;
  }

  /** kube-openapi's `<path> in body <text>`, or the built-in wording. */
  private say(text: string): string {
    if (this.builtin) return text.startsWith('should') ? `must${text.slice(6)}` : text;
    const p = this.path();
    return `${p === '' ? '<root>' : p} in body ${text}`;
  }

  private invalid(value: unknown, text: string): void {
    this.errors.push(invalidValue(this.path(), value, this.say(text)));
  }

  private typeError(value: unknown, expected: string): void {
    const actual = typeName(value);
    this.errors.push(typeInvalid(this.path(), actual, this.say(`must be of type ${expected}: ${JSON.stringify(actual)}`)));
  }

  visit(value: unknown, s: Schema): void {
    const corr = this.corr;
    if (corr === null) return this.check(value, s);
    const mark = this.errors.length;
    this.check(value, s);
    // Kubernetes' rule: a node's errors ratchet when the node deep-equals its correlated old value.
    if (this.errors.length > mark && corr.unchanged()) this.ratchetFrom(mark);
  }

  private check(value: unknown, s: Schema): void {
    if (value === undefined) return;
    if (value === null) {
      if (s.nullable === true || (s.type === undefined && s['x-kubernetes-int-or-string'] !== true)) return;
      this.typeError(value, s['x-kubernetes-int-or-string'] === true ? 'integer,string' : s.type!);
      return;
    }
    if (s['x-kubernetes-int-or-string'] === true) {
      if (typeof value === 'string') this.string(value, s);
      else if (typeof value === 'number' && Number.isInteger(value)) this.number(value, s);
      else return this.typeError(value, 'integer,string');
    } else {
      switch (s.type) {
        case 'object':
          if (typeof value !== 'object' || Array.isArray(value)) return this.typeError(value, 'object');
          this.object(value as Record<string, unknown>, s);
          break;
        case 'array':
          if (!Array.isArray(value)) return this.typeError(value, 'array');
          this.array(value, s);
          break;
        case 'string':
          if (typeof value !== 'string') return this.typeError(value, 'string');
          this.string(value, s);
          break;
        case 'integer':
          if (typeof value !== 'number' || !Number.isInteger(value)) return this.typeError(value, 'integer');
          this.number(value, s);
          break;
        case 'number':
          if (typeof value !== 'number') return this.typeError(value, 'number');
          this.number(value, s);
          break;
        case 'boolean':
          if (typeof value !== 'boolean') return this.typeError(value, 'boolean');
          break;
        default:
          // Untyped (preserve-unknown-fields, or a junctor branch): only the generic keywords below.
          if (typeof value === 'string') this.string(value, s);
          else if (typeof value === 'number') this.number(value, s);
          else if (Array.isArray(value)) this.array(value, s);
          else if (typeof value === 'object') this.object(value as Record<string, unknown>, s);
      }
    }
    if (s.enum !== undefined) this.enumCheck(value, s);
    if (s.allOf !== undefined || s.anyOf !== undefined || s.oneOf !== undefined || s.not !== undefined) this.junctors(value, s);
  }

  private enumCheck(value: unknown, s: Schema): void {
    const c = compile(s);
    if (value === null || typeof value !== 'object') {
      if (c.enumPrimitives!.has(value)) return;
    } else if (c.enumObjects.some((e) => deepEqual(e, value))) {
      return;
    }
    this.errors.push(notSupported(this.path(), value, c.enumText));
  }

  private string(v: string, s: Schema): void {
    if (s.maxLength !== undefined && v.length > s.maxLength && runeLength(v) > s.maxLength) {
      this.errors.push(tooLong(this.path(), s.maxLength));
    }
    if (s.minLength !== undefined && v.length < 2 * s.minLength && runeLength(v) < s.minLength) this.invalid(v, `should be at least ${s.minLength} chars long`);
    if (s.pattern !== undefined) {
      const re = compile(s).pattern;
      if (re !== null && !re.test(v)) this.invalid(v, `should match '${s.pattern}'`);
    }
    if (s.format !== undefined && compile(s).checkedFormat && !checkFormat(s.format, v)) {
      // A built-in kind's bytes are mostly a Secret's data, and an undecodable value there is often the
      // secret typed without encoding it: never echo it (kube fails it in decoding, value not shown).
      if (this.builtin && s.format === 'byte') this.errors.push(invalidValue(this.path(), undefined, 'illegal base64 data'));
      else this.invalid(v, `must be of type ${s.format}: ${JSON.stringify(v)}`);
    }
  }

  private number(v: number, s: Schema): void {
    if (s.format === 'int32' && (v < INT32_MIN || v > INT32_MAX)) this.invalid(v, `must be of type int32: ${JSON.stringify(String(v))}`);
    else if (s.format === 'int64' && !Number.isSafeInteger(v)) this.invalid(v, `must be of type int64: ${JSON.stringify(String(v))}`);
    if (s.maximum !== undefined) {
      if (s.exclusiveMaximum === true ? v >= s.maximum : v > s.maximum) {
        this.invalid(v, s.exclusiveMaximum === true ? `should be less than ${s.maximum}` : `should be less than or equal to ${s.maximum}`);
      }
    }
    if (s.minimum !== undefined) {
      if (s.exclusiveMinimum === true ? v <= s.minimum : v < s.minimum) {
        this.invalid(v, s.exclusiveMinimum === true ? `should be greater than ${s.minimum}` : `should be greater than or equal to ${s.minimum}`);
      }
    }
    if (s.multipleOf !== undefined && s.multipleOf > 0) {
      const q = v / s.multipleOf;
      if (Math.abs(q - Math.round(q)) > 1e-9) this.invalid(v, `should be a multiple of ${s.multipleOf}`);
    }
  }

  private object(obj: Record<string, unknown>, s: Schema): void {
    const props = s.properties;
    if (s.required !== undefined) {
      for (const name of s.required) {
        if (!hasOwn.call(obj, name) || obj[name] === undefined) this.errors.push(required(this.childPath(name), ''));
      }
    }
    if (s.maxProperties !== undefined || s.minProperties !== undefined) {
      const n = Object.keys(obj).length;
      if (s.maxProperties !== undefined && n > s.maxProperties) this.errors.push(tooMany(this.path(), n, s.maxProperties));
      if (s.minProperties !== undefined && n < s.minProperties) this.invalid(obj, `should have at least ${s.minProperties} properties`);
    }
    const ap = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
    if (props === undefined && ap === undefined) {
      if (s['x-kubernetes-embedded-resource'] === true) this.embedded(obj);
      return;
    }
    for (const key in obj) {
      const child = props !== undefined && hasOwn.call(props, key) ? props[key] : ap;
      if (child === undefined) continue;
      this.segs.push(key);
      this.visitChild(obj[key], child, key);
      this.segs.pop();
    }
    if (s['x-kubernetes-embedded-resource'] === true) this.embedded(obj);
  }

  /** Embedded resources must name their apiVersion and kind. */
  private embedded(obj: Record<string, unknown>): void {
    for (const name of ['apiVersion', 'kind']) {
      const v = obj[name];
      if (typeof v !== 'string' || v === '') this.pin(required(this.childPath(name), 'must not be empty'));
    }
  }

  private array(arr: readonly unknown[], s: Schema): void {
    if (s.maxItems !== undefined && arr.length > s.maxItems) this.errors.push(tooMany(this.path(), arr.length, s.maxItems));
    if (s.minItems !== undefined && arr.length < s.minItems) this.invalid(arr, `should have at least ${s.minItems} items`);
    if (s.uniqueItems === true && hasDuplicates(arr)) this.invalid(arr, "shouldn't contain duplicates");
    const items = s.items;
    if (items !== undefined) {
      for (let i = 0; i < arr.length; i++) {
        this.segs.push(i);
        this.visitChild(arr[i], items, i);
        this.segs.pop();
      }
    }
    const listType = s['x-kubernetes-list-type'];
    if (listType === 'set') this.setList(arr);
    else if (listType === 'map') this.mapList(arr, s['x-kubernetes-list-map-keys'] ?? []);
  }

  private setList(arr: readonly unknown[]): void {
    const seen = new Set<string>();
    for (let i = 0; i < arr.length; i++) {
      const v = arr[i];
      const key = v !== null && typeof v === 'object' ? `o${canonical(v)}` : `${typeof v}:${String(v)}`;
      if (seen.has(key)) {
        this.segs.push(i);
        this.pin(duplicate(this.path(), v));
        this.segs.pop();
      } else {
        seen.add(key);
      }
    }
  }

  private mapList(arr: readonly unknown[], keys: readonly string[]): void {
    const seen = new Set<string>();
    for (let i = 0; i < arr.length; i++) {
      const el = arr[i];
      if (el === null || typeof el !== 'object' || Array.isArray(el)) continue;
      const rec = el as Record<string, unknown>;
      this.segs.push(i);
      let complete = true;
      for (const k of keys) {
        if (rec[k] === undefined || rec[k] === null) {
          this.pin(required(this.childPath(k), ''));
          complete = false;
        }
      }
      if (complete) {
        const tuple = keys.length === 1 ? keyText(rec[keys[0]!]) : keys.map((k) => keyText(rec[k])).join('\u0000');
        if (seen.has(tuple)) {
          const shown: Record<string, unknown> = {};
          for (const k of keys) shown[k] = rec[k];
          this.pin(duplicate(this.path(), shown));
        } else {
          seen.add(tuple);
        }
      }
      this.segs.pop();
    }
  }

  /** Junctor branches are validated silently (a throwaway validator) and summarised. */
  private junctors(value: unknown, s: Schema): void {
    const passes = (sub: Schema): boolean => {
      const v = new Validator('', true);
      v.visit(value, sub);
      return v.errors.length === 0;
    };
    if (s.allOf !== undefined) {
      for (const sub of s.allOf) this.visit(value, sub);
    }
    if (s.anyOf !== undefined && !s.anyOf.some(passes)) this.invalid(value, 'must validate at least one schema (anyOf)');
    if (s.oneOf !== undefined) {
      let n = 0;
      for (const sub of s.oneOf) if (passes(sub)) n++;
      if (n !== 1) this.invalid(value, 'must validate one and only one schema (oneOf)');
    }
    if (s.not !== undefined && passes(s.not)) this.invalid(value, 'must not validate the schema (not)');
  }
}

/** Length in Unicode code points (Go counts runes), cheaper than spreading the string. */
function runeLength(v: string): number {
  let n = v.length;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff && i > 0) {
      const p = v.charCodeAt(i - 1);
      if (p >= 0xd800 && p <= 0xdbff) n--;
    }
  }
  return n;
}

/** A map-list key value as set-member text: cheap for the usual string keys; 1 and "1" stay apart. */
const keyText = (v: unknown): string => (typeof v === 'string' ? `s${v}` : `j${canonical(v)}`);

/** JSON with sorted object keys: equal values give equal text. */
function canonical(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  const rec = v as Record<string, unknown>;
  return `{${Object.keys(rec)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical(rec[k])}`)
    .join(',')}}`;
}

function hasDuplicates(arr: readonly unknown[]): boolean {
  const seen = new Set<string>();
  for (const v of arr) {
    const key = canonical(v);
    if (seen.has(key)) return true;
    seen.add(key);
  }
  return false;
}

function deepEqual(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}
