/**
 * The function table: overloads by name, receiver-ness and arity, with the parameter types of their
 * declarations (cel-js syntax) compiled twice — to a runtime predicate over CEL values (dispatch of calls
 * whose argument types are only known at run time, `dyn`) and to a tree matched against the checker's
 * deduced types at plan time (a call whose argument types are all known is bound to its overload once).
 */
import type { Overload } from '../library/library.js';
import { TIMESTAMP_TYPE_NAME, DURATION_TYPE_NAME } from '../values/type-of.js';
import { CelOpaque, CelType, CelUint, Duration, Optional, Timestamp, type CelValue } from '../values/value.js';

/** A type in declaration syntax as a tree: `map<string, list<int>>` → map(string, list(int)). */
export interface TypeTree {
  readonly name: string;
  readonly params: readonly TypeTree[];
}

export function parseTypeTree(text: string): TypeTree {
  const s = text.trim();
  const lt = s.indexOf('<');
  if (lt < 0 || !s.endsWith('>')) return { name: s, params: [] };
  const inner = s.slice(lt + 1, -1);
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of inner) {
    if (ch === '<') depth++;
    else if (ch === '>') depth--;
    else if (ch === ',' && depth === 0) {
      parts.push(cur);
      cur = '';
      continue;
    }
    cur += ch;
  }
  parts.push(cur);
  return { name: s.slice(0, lt), params: parts.map(parseTypeTree) };
}

const isAny = (t: TypeTree): boolean => t.name === 'dyn' || /^[A-Z]$/.test(t.name);

export type Predicate = ((v: CelValue) => boolean) | null;

/** A runtime test of a value against a declared type; null when anything matches. */
export function predicateOf(t: TypeTree): Predicate {
  if (isAny(t)) return null;
  switch (t.name) {
    case 'int':
      return (v) => typeof v === 'bigint';
    case 'uint':
      return (v) => v instanceof CelUint;
    case 'double':
      return (v) => typeof v === 'number';
    case 'string':
      return (v) => typeof v === 'string';
    case 'bool':
      return (v) => typeof v === 'boolean';
    case 'bytes':
      return (v) => v instanceof Uint8Array;
    case 'null':
    case 'null_type':
      return (v) => v === null;
    case 'type':
      return (v) => v instanceof CelType;
    case TIMESTAMP_TYPE_NAME:
      return (v) => v instanceof Timestamp;
    case DURATION_TYPE_NAME:
      return (v) => v instanceof Duration;
    case 'optional':
      return (v) => v instanceof Optional;
    case 'list': {
      const elem = t.params[0] === undefined ? null : predicateOf(t.params[0]);
      // Only the first item is tested: enough to tell `list<int>` from `list<double>` overloads apart.
      return elem === null ? (v) => Array.isArray(v) : (v) => Array.isArray(v) && (v.length === 0 || elem(v[0] as CelValue));
    }
    case 'map':
      return (v) => v !== null && typeof v === 'object' && (v as { kind?: unknown }).kind === 'map';
    default: {
      const name = t.name;
      return (v) => v !== null && typeof v === 'object' && (v instanceof CelOpaque || (v as { kind?: unknown }).kind === 'object') && (v as { typeName: string }).typeName === name;
    }
  }
}

/** 'yes': the checked type always fits; 'maybe': it may (dyn somewhere); 'no': it never does. */
export type StaticFit = 'yes' | 'maybe' | 'no';

const NAME_ALIASES: Record<string, string> = { null_type: 'null' };

export function staticFit(declared: TypeTree, checked: TypeTree): StaticFit {
  if (isAny(declared)) return 'yes';
  if (checked.name === 'dyn' || isAny(checked)) return 'maybe';
  const dn = NAME_ALIASES[declared.name] ?? declared.name;
  const cn = NAME_ALIASES[checked.name] ?? checked.name;
  if (dn !== cn) return 'no';
  let fit: StaticFit = 'yes';
  for (let i = 0; i < declared.params.length; i++) {
    const c = checked.params[i];
    if (c === undefined) {
      fit = 'maybe';
      continue;
    }
    const f = staticFit(declared.params[i]!, c);
    if (f === 'no') return 'no';
    if (f === 'maybe') fit = 'maybe';
  }
  return fit;
}

/** One overload ready for dispatch. */
export interface TableEntry {
  readonly signature: string;
  /** Receiver first for a member function. */
  readonly params: readonly TypeTree[];
  readonly predicates: readonly Predicate[];
  readonly impl: (...args: CelValue[]) => CelValue;
  readonly cost: ((args: readonly CelValue[]) => number) | undefined;
  /** The static estimate hook of the overload (cost/estimator.ts), if it has one. */
  readonly estimate: Overload['estimate'];
}

export interface ParsedSignature {
  readonly receiver: string | undefined;
  readonly name: string;
  readonly params: readonly string[];
  readonly result: string;
}

const SIGNATURE = /^\s*(?:([A-Za-z0-9_.<>]+)\.)?(\w+)\(([^)]*)\)\s*:\s*(.+)$/;

export function parseSignature(signature: string): ParsedSignature {
  const m = SIGNATURE.exec(signature);
  if (m === null) throw new Error(`invalid overload signature: ${signature}`);
  const params = m[3]!.trim() === '' ? [] : splitTop(m[3]!);
  return { receiver: m[1], name: m[2]!, params, result: m[4]!.trim() };
}

function splitTop(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '<') depth++;
    else if (ch === '>') depth--;
    else if (ch === ',' && depth === 0) {
      out.push(cur.trim());
      cur = '';
      continue;
    }
    cur += ch;
  }
  out.push(cur.trim());
  return out;
}

/** `r:name:argc` for member functions (argc without the receiver), `g:name:argc` for global ones. */
export const tableKey = (member: boolean, name: string, argc: number): string => `${member ? 'r' : 'g'}:${name}:${argc}`;

export class FunctionTable {
  private readonly entries = new Map<string, TableEntry[]>();

  /**
   * Adds an overload. `namespaces` are receiver names that denote a namespace, not a type
   * (`optional.of(A)`, `strings.quote(string)`): such an overload is a global function named `ns.name`.
   * A later overload with the same signature replaces the earlier one (libraries override built-ins).
   */
  add(overload: Overload, namespaces: ReadonlySet<string> = NO_NAMESPACES): void {
    const sig = parseSignature(overload.signature);
    const namespaced = sig.receiver !== undefined && namespaces.has(sig.receiver);
    const member = sig.receiver !== undefined && !namespaced;
    const name = namespaced ? `${sig.receiver}.${sig.name}` : sig.name;
    const paramTexts = member ? [sig.receiver!, ...sig.params] : sig.params;
    const params = paramTexts.map(parseTypeTree);
    const entry: TableEntry = { signature: overload.signature, params, predicates: params.map(predicateOf), impl: overload.impl, cost: overload.cost, estimate: overload.estimate };
    const key = tableKey(member, name, sig.params.length);
    const list = this.entries.get(key) ?? [];
    const same = list.findIndex((e) => e.signature.replace(/\s/g, '') === overload.signature.replace(/\s/g, ''));
    if (same >= 0) list[same] = entry;
    else list.push(entry);
    this.entries.set(key, list);
  }

  get(key: string): readonly TableEntry[] | undefined {
    return this.entries.get(key);
  }

  /** A copy to extend (environments derived from another keep the parent's table unchanged). */
  clone(): FunctionTable {
    const t = new FunctionTable();
    for (const [k, v] of this.entries) t.entries.set(k, [...v]);
    return t;
  }
}

const NO_NAMESPACES: ReadonlySet<string> = new Set();

/** The first entry whose predicates accept the arguments (receiver first), or undefined. */
export function selectAtRuntime(entries: readonly TableEntry[], args: readonly CelValue[]): TableEntry | undefined {
  outer: for (const e of entries) {
    for (let i = 0; i < e.predicates.length; i++) {
      const p = e.predicates[i];
      if (p != null && !p(args[i]!)) continue outer;
    }
    return e;
  }
  return undefined;
}
