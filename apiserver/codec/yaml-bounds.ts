/**
 * Bounds on a YAML request body, checked before anything builds its value, as Kubernetes' YAML decoder
 * bounds it (sigs.k8s.io/yaml's go-yaml refuses documents nested too deep and "excessive aliasing"):
 *
 * - nesting: the `yaml` library composes documents recursively, and a deep enough document exhausts the
 *   stack inside it (from about 700 levels; inside a regular expression that is a fatal abort of the whole
 *   process, not an exception). The parser producing the concrete syntax tree is iterative, so the depth is
 *   measured on that tree, before composing (`cstShape`).
 * - aliases: an alias is a reference, so `a: &a [..]`, `b: [*a, *a, ...]` builds a value far larger than
 *   its text ("billion laughs"), and `&a [*a]` builds a cycle that every later walk of the value follows
 *   forever. `checkAliases` walks the composed document once, in document order (aliases resolved as it
 *   goes, each node measured once), and refuses an anchor that contains itself, a value deeper than the
 *   limit once aliases are expanded, and a value whose expanded size passes the limit.
 */
import { isAlias, isMap, isPair, isScalar, isSeq, type Node } from 'yaml';
import type { CST } from 'yaml';

/** A body the bounds refuse; the message is meant for a 400 (`error decoding YAML: <message>`). */
export class YamlBoundsError extends Error {}

export interface CstShape {
  /** The offset of the first collection nested deeper than the limit, or -1. */
  readonly tooDeepAt: number;
  /** Whether the documents hold an alias (only then is `checkAliases` needed). */
  readonly aliases: boolean;
}

/**
 * Whether the syntax tree of `tokens` nests collections deeper than `max`, and whether it holds aliases.
 * A flow sequence's `key: value` item is a one-pair map inside it and counts one more level. Iterative,
 * and stops at the first level past `max`.
 */
export function cstShape(tokens: readonly CST.Token[], max: number): CstShape {
  const stack: { t: CST.Token; d: number }[] = [];
  for (const t of tokens) if (t.type === 'document' && t.value !== undefined) stack.push({ t: t.value, d: 0 });
  let aliases = false;
  while (stack.length > 0) {
    const { t, d } = stack.pop()!;
    if (t.type === 'alias') aliases = true;
    if (t.type !== 'block-map' && t.type !== 'block-seq' && t.type !== 'flow-collection') continue;
    const depth = d + 1;
    if (depth > max) return { tooDeepAt: t.offset, aliases };
    const pairsNest = t.type === 'flow-collection' && t.start.source === '[';
    for (const item of t.items as CST.CollectionItem[]) {
      const inner = pairsNest && (item.key != null || item.sep !== undefined) ? depth + 1 : depth;
      if (inner > max) return { tooDeepAt: t.offset, aliases };
      if (item.key != null) stack.push({ t: item.key, d: inner });
      if (item.value !== undefined) stack.push({ t: item.value, d: inner });
    }
  }
  return { tooDeepAt: -1, aliases };
}

interface Measure {
  /** Collections on the deepest path (a scalar is 0). */
  readonly depth: number;
  /** About the size of the value with every alias expanded: its text's length when it has no alias. */
  readonly size: number;
}

/**
 * Refuses aliases that make the document's value unbounded: an anchor containing itself, a value nested
 * deeper than `maxDepth` or larger than `maxSize` (about its JSON size) once aliases are expanded. The
 * document's own nesting must already be bounded (`cstShape`): the walk recurses along it.
 */
export function checkAliases(root: unknown, maxDepth: number, maxSize: number): void {
  const anchors = new Map<string, Node>();
  const memo = new Map<Node, Measure>();
  const open = new Set<Node>();
  const measure = (node: unknown): Measure => {
    if (node === null || typeof node !== 'object') return { depth: 0, size: 4 };
    if (isAlias(node)) {
      const target = anchors.get(node.source);
      // An unknown anchor is the composer's error already (reported before this walk runs).
      if (target === undefined) return { depth: 0, size: 4 };
      if (open.has(target)) throw new YamlBoundsError(`anchor '${node.source}' value contains itself`);
      return memo.get(target) ?? measure(target);
    }
    const n = node as Node;
    const known = memo.get(n);
    if (known !== undefined) return known;
    if (n.anchor !== undefined) anchors.set(n.anchor, n);
    let result: Measure;
    if (isScalar(n)) {
      const range = n.range;
      result = { depth: 0, size: range == null ? 4 : Math.max(1, range[1] - range[0]) };
    } else if (isMap(n) || isSeq(n)) {
      open.add(n);
      let depth = 0;
      let size = 2;
      for (const item of n.items as unknown[]) {
        const parts = isPair(item) ? [item.key, item.value] : [item];
        for (const p of parts) {
          const m = measure(p);
          if (m.depth > depth) depth = m.depth;
          size += m.size + 1;
        }
      }
      open.delete(n);
      result = { depth: depth + 1, size };
    } else {
      result = { depth: 0, size: 4 };
    }
    if (result.depth > maxDepth) throw new YamlBoundsError(`exceeded max depth of ${maxDepth}`);
    if (result.size > maxSize) throw new YamlBoundsError('document contains excessive aliasing');
    memo.set(n, result);
    return result;
  };
  measure(root);
}
