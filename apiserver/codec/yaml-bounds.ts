/**
 * Bounds on a YAML request body, checked before anything builds its value, as Kubernetes' YAML decoder
 * bounds it (sigs.k8s.io/yaml's go-yaml refuses documents nested too deep and "excessive aliasing"):
 *
 * - nesting: the `yaml` library composes documents recursively, and a deep enough document exhausts the
 *   stack inside it (from about 700 levels; inside a regular expression that is a fatal abort of the whole
 *   process, not an exception). The parser producing the concrete syntax tree is iterative, so the depth is
 *   measured on that tree, before composing (`cstShape`). That parser is slow on deep flow collections
 *   (superlinear: 65,536 nested `[` take 1.5 s), so a single pass over the text first refuses a body
 *   whose nesting is certainly too deep (`textDepthBound`) without parsing it.
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

const SPACE = 0x20;
const TAB = 0x09;
const NL = 0x0a;
const CR = 0x0d;

/**
 * An upper bound of a YAML text's nesting, from one pass over its characters, meant to catch the deeply
 * nested bodies that are slow to parse before parsing them: a line in block context can be at most as deep
 * as the indentation levels open around it plus its compact `- ` / `? ` indicators plus its `key:`, and a
 * flow collection adds one level per `[` or `{` open around a position (counted at scalar starts in block
 * context, everywhere inside flow context, where plain scalars cannot hold them). Quoted scalars that start
 * at a scalar position, comments, and the content lines of block scalars (`|`, `>`) are skipped. Returns
 * true as soon as the bound passes `max`.
 *
 * It can over-count (a `[` that opens a plain scalar at a value position), which only matters past `max`
 * unbalanced ones; a text it under-counts is still measured exactly by `cstShape`.
 */
export function textDepthBound(text: string, max: number): boolean {
  const n = text.length;
  let flow = 0;
  /** The bound of the block context where the outermost open flow collection started. */
  let block = 0;
  /** Indentation of the line that opened a block scalar, while its content lines are skipped; else -1. */
  let blockScalarParent = -1;
  const indents: number[] = [];
  let i = 0;
  while (i < n) {
    // A line start: indentation and compact indicators (only in block context).
    let indent = 0;
    while (i < n && text.charCodeAt(i) === SPACE) {
      indent++;
      i++;
    }
    const c0 = text.charCodeAt(i);
    const blank = i >= n || c0 === NL || c0 === CR || c0 === 0x23; /* '#' */
    if (blockScalarParent >= 0) {
      if (blank || indent > blockScalarParent) {
        i = lineEnd(text, i) + 1;
        continue;
      }
      blockScalarParent = -1;
    }
    if (flow === 0) {
      let compact = 0;
      while (i + 1 < n && (text[i] === '-' || text[i] === '?') && (text.charCodeAt(i + 1) === SPACE || text.charCodeAt(i + 1) === TAB)) {
        compact++;
        i += 2;
        while (i < n && text.charCodeAt(i) === SPACE) i++;
      }
      // The open indentation levels, as YAML's scanner keeps them: each more deeply indented line opens
      // (at most) one level below the first, a less indented one closes those deeper than it. Plus the compact
      // indicators, and a `key:` on the line adds its map (below).
      if (!blank) {
        while (indents.length > 0 && indents[indents.length - 1]! > indent) indents.pop();
        if (indents.length === 0 || indents[indents.length - 1]! < indent) indents.push(indent);
      }
      block = Math.max(0, indents.length - 1) + compact;
      if (block > max) return true;
    }
    // The rest of the line; `start`: at a position where a scalar or collection may begin.
    let start = true;
    while (i < n) {
      const c = text[i]!;
      if (c === '\n') {
        i++;
        break;
      }
      if (c === ' ' || c === '\t' || c === '\r') {
        i++;
        continue;
      }
      if (c === '#' && (i === 0 || text[i - 1] === ' ' || text[i - 1] === '\t')) {
        i = lineEnd(text, i);
        continue;
      }
      if (start && (c === '"' || c === "'")) {
        i = quotedEnd(text, i);
        start = false;
        continue;
      }
      if ((c === '[' || c === '{') && (start || flow > 0)) {
        flow++;
        if (block + flow > max) return true;
        start = true;
        i++;
        continue;
      }
      if ((c === ']' || c === '}') && flow > 0) {
        flow--;
        start = false;
        i++;
        continue;
      }
      if (c === ',' && flow > 0) {
        start = true;
        i++;
        continue;
      }
      if ((c === ':' || c === '-' || c === '?') && (i + 1 >= n || text[i + 1] === ' ' || text[i + 1] === '\t' || text[i + 1] === '\n' || text[i + 1] === '\r')) {
        if (c === ':' && flow === 0 && ++block > max) return true;
        start = true;
        i++;
        continue;
      }
      if (start && flow === 0 && (c === '|' || c === '>')) {
        blockScalarParent = indent;
        i = lineEnd(text, i);
        break;
      }
      start = false;
      i++;
    }
  }
  return false;
}

/** Index of the newline ending the line at `i` (or the end). */
function lineEnd(text: string, i: number): number {
  const nl = text.indexOf('\n', i);
  return nl < 0 ? text.length : nl;
}

/** Index just past the quoted scalar opening at `i` (`''` escapes a single quote, `\` in double quotes). */
function quotedEnd(text: string, i: number): number {
  const q = text[i]!;
  let j = i + 1;
  for (;;) {
    const k = text.indexOf(q, j);
    if (k < 0) return text.length;
    if (q === "'") {
      if (text[k + 1] === "'") {
        j = k + 2;
        continue;
      }
      return k + 1;
    }
    let slashes = 0;
    for (let m = k - 1; text[m] === '\\'; m--) slashes++;
    if ((slashes & 1) === 0) return k + 1;
    j = k + 1;
  }
}

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
