/**
 * `EntryMap`: the CelMap of maps built by expressions (map literals, conformance bindings, library
 * results). Keys follow CEL's numeric key rules: int, uint and integral double keys of equal value find
 * the same entry (`m[1]`, `m[1u]`, `m[1.0]`); string and bool keys are themselves. Insertion order is kept.
 */
import { CelEvalError } from '../errors.js';
import { CelUint, type CelMap, type CelMapKey, type CelValue } from './value.js';

type Slot = string | bigint | boolean;

/** The lookup slot of a key; undefined for a value that can never be a key present in a map (a fractional double). */
export function mapSlot(key: CelValue): Slot | undefined {
  switch (typeof key) {
    case 'string':
    case 'bigint':
    case 'boolean':
      return key;
    case 'number':
      return Number.isInteger(key) ? BigInt(key) : undefined;
    default:
      return key instanceof CelUint ? key.value : undefined;
  }
}

/** Whether a value may be a map key (int, uint, bool, string). */
export const isMapKey = (v: CelValue): v is CelMapKey => typeof v === 'string' || typeof v === 'bigint' || typeof v === 'boolean' || v instanceof CelUint;

export class EntryMap implements CelMap {
  readonly kind = 'map' as const;
  private readonly entries = new Map<Slot, readonly [CelMapKey, CelValue]>();

  /** Builds from entries; a repeated key (by CEL key equality) is an error, as in cel-go. */
  static of(entries: Iterable<readonly [CelValue, CelValue]>): EntryMap {
    const m = new EntryMap();
    for (const [k, v] of entries) m.add(k, v);
    return m;
  }

  /** Adds an entry; throws CelEvalError on an unsupported key type or a repeated key. */
  add(key: CelValue, value: CelValue): void {
    if (!isMapKey(key)) throw new CelEvalError(`unsupported key type: ${describeKey(key)}`);
    const slot = mapSlot(key) as Slot;
    if (this.entries.has(slot)) throw new CelEvalError(`Failed with repeated key: ${String(key)}`);
    this.entries.set(slot, [key, value]);
  }

  /** Sets an entry, replacing one with an equal key (for library results built incrementally). */
  set(key: CelMapKey, value: CelValue): void {
    this.entries.set(mapSlot(key) as Slot, [key, value]);
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: CelMapKey | number): CelValue | undefined {
    const slot = mapSlot(key);
    return slot === undefined ? undefined : this.entries.get(slot)?.[1];
  }

  has(key: CelMapKey | number): boolean {
    const slot = mapSlot(key);
    return slot !== undefined && this.entries.has(slot);
  }

  *keys(): Iterable<CelMapKey> {
    for (const e of this.entries.values()) yield e[0];
  }
}

function describeKey(v: CelValue): string {
  if (v === null) return 'null';
  if (typeof v === 'number') return 'double';
  if (Array.isArray(v)) return 'list';
  return typeof v === 'object' ? ((v as { kind?: string }).kind ?? v.constructor.name) : typeof v;
}
