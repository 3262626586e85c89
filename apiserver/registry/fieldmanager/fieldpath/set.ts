/**
 * A set of field paths, stored as a trie like structured-merge-diff's `fieldpath.Set`: at each level,
 * `members` are the elements whose path is in the set, `children` the elements with paths below them.
 * An element may be both (`f:spec` owned, and fields under it too): FieldsV1 writes that as `".": {}`.
 *
 * Sets are values: the operations return new sets and never change their operands (results share
 * unchanged subtrees with them). `insert` is the only mutation, for building a fresh set (`new FieldSet()`,
 * `FieldSet.of`) before it is shared; never insert into the result of an operation.
 */
import { comparePE, type Path, type PE } from './path-element.js';

export class FieldSet {
  private readonly members = new Set<PE>();
  private readonly children = new Map<PE, FieldSet>();

  /** A set of the given paths. */
  static of(...paths: Path[]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  /** Adds `path` (the empty path, the root, is never a member). */
  insert(path: Path): this {
    if (this === EMPTY) throw new Error('FieldSet: the shared empty set cannot be changed');
    if (path.length === 0) return this;
    let node: FieldSet = this;
    for (let i = 0; i < path.length - 1; i++) node = node.child(path[i]!);
    node.members.add(path[path.length - 1]!);
    return this;
  }

  /**
   * Makes `pe` a member at this level (fresh sets only, as `insert`): the schema-aware walks build a set
   * level by level with it and `level`, instead of inserting whole paths from the root.
   */
  addMember(pe: PE): void {
    if (this === EMPTY) throw new Error('FieldSet: the shared empty set cannot be changed');
    this.members.add(pe);
  }

  /** The level below `pe`, created when missing (fresh sets only, as `insert`). */
  level(pe: PE): FieldSet {
    if (this === EMPTY) throw new Error('FieldSet: the shared empty set cannot be changed');
    return this.child(pe);
  }

  private child(pe: PE): FieldSet {
    let c = this.children.get(pe);
    if (c === undefined) {
      c = new FieldSet();
      this.children.set(pe, c);
    }
    return c;
  }

  has(path: Path): boolean {
    if (path.length === 0) return false;
    let node: FieldSet | undefined = this;
    for (let i = 0; i < path.length - 1 && node !== undefined; i++) node = node.children.get(path[i]!);
    return node !== undefined && node.members.has(path[path.length - 1]!);
  }

  /** Whether `pe` is a member at this level. */
  hasMember(pe: PE): boolean {
    return this.members.has(pe);
  }

  /** The paths below `pe`, relative to it (empty when none). */
  withPrefix(pe: PE): FieldSet {
    return this.children.get(pe) ?? EMPTY;
  }

  /** The elements at this level that are members or have children, sorted as FieldsV1 writes them. */
  elements(): PE[] {
    const all = [...this.members];
    for (const [pe, c] of this.children) if (!this.members.has(pe) && !c.empty()) all.push(pe);
    if (all.length < 2) return all;
    // Field names only (most levels): plain code-unit order, which comparePE gives them too.
    for (const pe of all) if (!pe.startsWith('f:')) return all.sort(comparePE);
    return all.sort();
  }

  empty(): boolean {
    if (this.members.size > 0) return false;
    for (const c of this.children.values()) if (!c.empty()) return false;
    return true;
  }

  /** Number of paths in the set. */
  size(): number {
    let n = this.members.size;
    for (const c of this.children.values()) n += c.size();
    return n;
  }

  /** Every path, depth first in FieldsV1 order (a member before the paths below it). */
  paths(): Path[] {
    const out: Path[] = [];
    const walk = (s: FieldSet, prefix: PE[]): void => {
      for (const pe of s.elements()) {
        const p = [...prefix, pe];
        if (s.members.has(pe)) out.push(p);
        const c = s.children.get(pe);
        if (c !== undefined) walk(c, p);
      }
    };
    walk(this, []);
    return out;
  }

  equals(other: FieldSet): boolean {
    const a = this.paths().map((p) => p.join('\u0000'));
    const b = other.paths().map((p) => p.join('\u0000'));
    return a.length === b.length && a.every((x, i) => x === b[i]);
  }

  /** Paths in either set. */
  union(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) out.members.add(m);
    for (const m of other.members) out.members.add(m);
    for (const [pe, c] of this.children) {
      const o = other.children.get(pe);
      out.setChild(pe, o === undefined ? c : c.union(o));
    }
    for (const [pe, c] of other.children) if (!this.children.has(pe)) out.setChild(pe, c);
    return out;
  }

  /** Paths in both sets. */
  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) if (other.members.has(m)) out.members.add(m);
    for (const [pe, c] of this.children) {
      const o = other.children.get(pe);
      if (o !== undefined) out.setChild(pe, c.intersection(o));
    }
    return out;
  }

  /** Paths of this set that are not in `other` (a path of `other` removes only itself, not what is below). */
  difference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) if (!other.members.has(m)) out.members.add(m);
    for (const [pe, c] of this.children) {
      const o = other.children.get(pe);
      out.setChild(pe, o === undefined ? c : c.difference(o));
    }
    return out;
  }

  /** Like `difference`, but a path of `other` also removes every path below it. */
  recursiveDifference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) if (!other.members.has(m)) out.members.add(m);
    for (const [pe, c] of this.children) {
      if (other.members.has(pe)) continue;
      const o = other.children.get(pe);
      out.setChild(pe, o === undefined ? c : c.recursiveDifference(o));
    }
    return out;
  }

  /** The paths of this set that are `prefix` or below it (the rest dropped), still rooted at the top. */
  filterPrefix(prefix: PE): FieldSet {
    const out = new FieldSet();
    if (this.members.has(prefix)) out.members.add(prefix);
    const c = this.children.get(prefix);
    if (c !== undefined) out.setChild(prefix, c);
    return out;
  }

  /** Copy with `pe` made a member at this level (used by the schema-aware walks). */
  withMember(pe: PE): FieldSet {
    const out = this.union(EMPTY);
    out.members.add(pe);
    return out;
  }

  /** The children map, for schema-aware walks in this module. */
  childEntries(): [PE, FieldSet][] {
    return [...this.children].filter(([, c]) => !c.empty());
  }

  /** Builds a level from members and children (internal to fieldpath). */
  static from(members: Iterable<PE>, children: Iterable<[PE, FieldSet]>): FieldSet {
    const out = new FieldSet();
    for (const m of members) out.members.add(m);
    for (const [pe, c] of children) out.setChild(pe, c);
    return out;
  }

  /** The members at this level. */
  memberList(): PE[] {
    return [...this.members];
  }

  private setChild(pe: PE, c: FieldSet): void {
    if (!c.empty()) this.children.set(pe, c);
  }
}

const EMPTY = new FieldSet();
