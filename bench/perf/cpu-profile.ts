/**
 * Reading V8 CPU profiles (`node --cpu-prof`, `.cpuprofile` JSON): self time by stage of the request's
 * journey, and a flame graph as a standalone SVG. Written here rather than taken from a flame graph package:
 * the profile format is a plain call tree and the stage table needs our own classification of frames, which no
 * package offers; the SVG is ~60 lines.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly hitCount?: number;
  readonly children?: readonly number[];
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** A call tree with inclusive and self microseconds per node (frames merged by name and place). */
export interface Tree {
  readonly name: string;
  readonly stage: string;
  selfUs: number;
  totalUs: number;
  readonly children: Map<string, Tree>;
}

export interface ProfileSummary {
  readonly totalUs: number;
  /** Self microseconds by stage, largest first. */
  readonly stages: readonly { readonly stage: string; readonly us: number }[];
  /** Self microseconds by function, largest first. */
  readonly functions: readonly { readonly name: string; readonly stage: string; readonly us: number }[];
  readonly tree: Tree;
}

/**
 * The stage a frame belongs to: the project's folder (`apiserver/request`, `storage/etcd`, ...), a
 * dependency (`koa`, `@grpc/grpc-js`), node's own subsystem (`node:tls`, `node:http`), or V8's pseudo
 * frames (`(garbage collector)`, `(idle)`, `(program)`).
 */
export function stageOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + '/node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (url.startsWith('node:')) {
    const mod = url.slice('node:'.length).replace(/^internal\//, '');
    const first = mod.split('/')[0]!.replace(/^_/, '').replace(/_.*$/, '');
    return `node:${first}`;
  }
  const m = /\/(?:dist\/)?((?:apiserver|storage)\/[^/]+)\//.exec(url);
  if (m !== null) return m[1]!;
  const f = /\/(?:dist\/)?((?:apiserver|storage)\/[^/]+\.js)$/.exec(url);
  return f !== null ? f[1]! : url.replace(/^file:\/\//, '');
}

/**
 * `window`: only samples taken within [from, to], in microseconds of CLOCK_MONOTONIC (V8's profile clock on
 * Linux, the same as `process.hrtime` in any process), so start-up and preparation stay out.
 */
export function readProfile(file: string, window?: { readonly fromUs: number; readonly toUs: number }): ProfileSummary {
  const p = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map<number, ProfileNode>(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // Self time from the samples and their deltas (hitCount x interval is coarser).
  const selfUs = new Map<number, number>();
  let at = p.startTime;
  for (let i = 0; i < p.samples.length; i++) {
    at += p.timeDeltas[i] ?? 0;
    if (window !== undefined && (at < window.fromUs || at > window.toUs)) continue;
    const next = p.timeDeltas[i + 1] ?? 0;
    selfUs.set(p.samples[i]!, (selfUs.get(p.samples[i]!) ?? 0) + Math.max(0, next));
  }
  const root: Tree = { name: 'all', stage: 'all', selfUs: 0, totalUs: 0, children: new Map() };
  const stageUs = new Map<string, number>();
  const fnUs = new Map<string, { name: string; stage: string; us: number }>();
  let totalUs = 0;
  for (const [id, us] of selfUs) {
    if (us === 0) continue;
    const path: ProfileNode[] = [];
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) path.push(byId.get(cur)!);
    path.reverse();
    const leaf = path[path.length - 1]!;
    if (leaf.callFrame.functionName === '(idle)') continue;
    totalUs += us;
    const leafStage = stageOf(leaf.callFrame.url, leaf.callFrame.functionName);
    stageUs.set(leafStage, (stageUs.get(leafStage) ?? 0) + us);
    const fnKey = frameName(leaf);
    const f = fnUs.get(fnKey) ?? { name: fnKey, stage: leafStage, us: 0 };
    f.us += us;
    fnUs.set(fnKey, f);
    let node = root;
    node.totalUs += us;
    for (const frame of path) {
      if (frame.callFrame.functionName === '(root)') continue;
      const name = frameName(frame);
      let child = node.children.get(name);
      if (child === undefined) {
        child = { name, stage: stageOf(frame.callFrame.url, frame.callFrame.functionName), selfUs: 0, totalUs: 0, children: new Map() };
        node.children.set(name, child);
      }
      child.totalUs += us;
      node = child;
    }
    node.selfUs += us;
  }
  return {
    totalUs,
    stages: [...stageUs].map(([stage, us]) => ({ stage, us })).sort((a, b) => b.us - a.us),
    functions: [...fnUs.values()].sort((a, b) => b.us - a.us),
    tree: root,
  };
}

function frameName(n: ProfileNode): string {
  const { functionName, url, lineNumber } = n.callFrame;
  if (url === '') return functionName || '(anonymous)';
  const file = url.replace(/^.*\/node_modules\//, '').replace(/^file:\/\/.*\/dist\//, '').replace(/^file:\/\//, '');
  return `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`;
}

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A colour per stage family: the project warm, dependencies green, node blue, V8 grey. */
function colour(stage: string): string {
  let h = 0;
  for (let i = 0; i < stage.length; i++) h = (h * 31 + stage.charCodeAt(i)) >>> 0;
  const shade = 45 + (h % 30);
  if (stage.startsWith('apiserver/') || stage.startsWith('storage/')) return `hsl(${20 + (h % 30)},85%,${shade}%)`;
  if (stage.startsWith('node:')) return `hsl(${200 + (h % 30)},60%,${shade + 10}%)`;
  if (stage.startsWith('(')) return `hsl(0,0%,${shade + 15}%)`;
  return `hsl(${100 + (h % 40)},50%,${shade + 5}%)`;
}

/** The call tree as a flame graph (root at the bottom), frames narrower than `minPx` left out. */
export function flameGraphSvg(tree: Tree, title: string, width = 1600, minPx = 0.5): string {
  const rowH = 16;
  let depth = 0;
  const rects: string[] = [];
  const walk = (node: Tree, x: number, level: number, scale: number): void => {
    const w = node.totalUs * scale;
    if (w < minPx) return;
    depth = Math.max(depth, level);
    rects.push(`<g><title>${esc(node.name)} [${node.stage}]: ${(node.totalUs / 1000).toFixed(1)} ms (${((100 * node.totalUs) / tree.totalUs).toFixed(1)}%)</title>`
      + `<rect x="${x.toFixed(1)}" y="LEVEL${level}" width="${w.toFixed(1)}" height="${rowH - 1}" fill="${colour(node.stage)}"/>`
      + (w > 40 ? `<text x="${(x + 3).toFixed(1)}" y="TEXT${level}" font-size="11" font-family="monospace">${esc(node.name.slice(0, Math.floor(w / 7)))}</text>` : '')
      + '</g>');
    let cx = x;
    for (const c of [...node.children.values()].sort((a, b) => a.name.localeCompare(b.name))) {
      walk(c, cx, level + 1, scale);
      cx += c.totalUs * scale;
    }
  };
  walk(tree, 0, 0, width / Math.max(1, tree.totalUs));
  const height = (depth + 1) * rowH + 30;
  const body = rects.join('\n')
    .replace(/y="LEVEL(\d+)"/g, (_m, l: string) => `y="${height - (Number(l) + 1) * rowH}"`)
    .replace(/y="TEXT(\d+)"/g, (_m, l: string) => `y="${height - (Number(l) + 1) * rowH + 12}"`);
  return `<?xml version="1.0" standalone="no"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">\n`
    + `<text x="4" y="16" font-size="14" font-family="sans-serif">${esc(title)} (hover a frame for its time)</text>\n${body}\n</svg>\n`;
}
