/**
 * Runs `count` generated requests with `concurrency` in flight on keep-alive connections, and records what
 * the checks need: counts by status code, every 5xx / hang / connection failure with the request that
 * caused it (seed and index replay it), and every acknowledged write (2xx, not a dry run) for the store
 * check.
 */
import { parse as parseYaml } from 'yaml';
import type { FuzzClient, FuzzResponse } from './client.js';
import { generate, type GeneratedRequest, type GeneratorContext } from './generator.js';

export interface Ack {
  readonly index: number;
  readonly label: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly target: GeneratedRequest['target'];
  /** From the response object, when it could be read (JSON or YAML). */
  readonly resourceVersion?: string;
  readonly name?: string;
  readonly namespace?: string;
  readonly kind?: string;
  /** A deletecollection's deleted items, when the response lists them. */
  readonly items?: readonly { readonly name: string; readonly namespace?: string; readonly resourceVersion?: string }[];
}

/** Every mutating request that got an answer, whatever its status: the store check names them when it finds a write nobody acknowledged. */
export interface Attempt {
  readonly index: number;
  readonly method: string;
  readonly status: number;
  readonly dryRun: boolean;
  readonly target: GeneratedRequest['target'];
}

export interface Finding {
  readonly index: number;
  readonly what: string;
  readonly request: string;
  readonly response: string;
}

export interface FuzzResult {
  readonly seed: number;
  readonly sent: number;
  /** Status code (or `error:<code>` for no response) -> count. */
  readonly byStatus: Map<string, number>;
  readonly byLabel: Map<string, Map<string, number>>;
  /** Every `<verb> <resource>[/<sub>]` label sent (the coverage check). */
  readonly labels: Set<string>;
  readonly findings: Finding[];
  /** Reads answered 503 "storage backend unavailable" whose repeat was answered (see the runner). */
  readonly transientStorage: string[];
  readonly acks: Ack[];
  readonly attempts: Attempt[];
  readonly elapsedMs: number;
}

export function describeRequest(seed: number, index: number, req: GeneratedRequest): string {
  const body = req.body === undefined ? '' : req.body.length > 2000 ? `${req.body.subarray(0, 2000).toString('utf8')}... (${req.body.length} bytes)` : req.body.toString('utf8');
  const headers = Object.entries(req.headers).map(([k, v]) => `${k}: ${k === 'Authorization' ? v.replace(/Bearer \S{8}\S*/, 'Bearer <admin token...>') : v.slice(0, 300)}`).join('\n  ');
  return `FUZZ_SEED=${seed} index=${index} (${req.label})\n  ${req.method} ${req.path.slice(0, 2000)}\n  ${headers}\n  body: ${JSON.stringify(body)}`;
}

/** A 5xx Kubernetes answers the same way by contract (see the runner). */
function kubeContract5xx(res: FuzzResponse): boolean {
  if (res.status === 504) return res.body.includes('ResourceVersionTooLarge');
  return res.status === 500 && /the spec replicas field \\?"[^"\\]*\\?" does not exist/.test(res.body.toString('utf8'));
}

function parseBody(res: FuzzResponse): any {
  const type = String(res.headers['content-type'] ?? '');
  const text = res.body.toString('utf8');
  try {
    if (type.startsWith('application/json')) return JSON.parse(text);
    // Without the library's duplicate-key check: it is quadratic in a map's size, and a deletecollection of
    // definitions with large schemas answered in YAML then took the client over a minute (the server had answered).
    if (type.startsWith('application/yaml')) return parseYaml(text, { uniqueKeys: false });
  } catch {
    return undefined;
  }
  return undefined;
}

function ackOf(index: number, req: GeneratedRequest, res: FuzzResponse): Ack {
  const o = parseBody(res);
  // A Table (or PartialObjectMetadata) answer: the object's name is in its row (or its own metadata).
  const row = o?.kind === 'Table' && Array.isArray(o.rows) && o.rows.length === 1 ? o.rows[0] : undefined;
  const meta = row === undefined ? o?.metadata ?? {} : { ...(row.object?.metadata ?? { name: row.cells?.[0] }), resourceVersion: o.metadata?.resourceVersion ?? row.object?.metadata?.resourceVersion };
  const items = Array.isArray(o?.items)
    ? (o.items as any[]).map((i) => ({ name: String(i?.metadata?.name), ...(i?.metadata?.namespace === undefined ? {} : { namespace: String(i.metadata.namespace) }), ...(i?.metadata?.resourceVersion === undefined ? {} : { resourceVersion: String(i.metadata.resourceVersion) }) }))
    : undefined;
  return {
    index, label: req.label, method: req.method, path: req.path, status: res.status, target: req.target,
    ...(typeof meta.resourceVersion === 'string' && meta.resourceVersion !== '' ? { resourceVersion: meta.resourceVersion } : {}),
    ...(typeof meta.name === 'string' ? { name: meta.name } : {}),
    ...(typeof meta.namespace === 'string' ? { namespace: meta.namespace } : {}),
    ...(typeof o?.kind === 'string' ? { kind: o.kind } : {}),
    ...(items === undefined ? {} : { items }),
  };
}

export interface RunOptions {
  readonly seed: number;
  readonly count: number;
  readonly concurrency: number;
  readonly client: FuzzClient;
  readonly ctx: GeneratorContext;
  /** Stop early (e.g. the server died). */
  readonly stop?: () => boolean;
  readonly onProgress?: (done: number) => void;
}

export async function runFuzz(o: RunOptions): Promise<FuzzResult> {
  const byStatus = new Map<string, number>();
  const byLabel = new Map<string, Map<string, number>>();
  const findings: Finding[] = [];
  const transientStorage: string[] = [];
  const acks: Ack[] = [];
  const attempts: Attempt[] = [];
  const labels = new Set<string>();
  const started = Date.now();
  let next = 0;
  let sent = 0;
  const worker = async (): Promise<void> => {
    while (next < o.count && !(o.stop?.() ?? false)) {
      const index = next;
      next += 1;
      const req = generate(o.seed, index, o.ctx);
      const res = await o.client.send(req, req.watch ? 2_500 : 30_000);
      sent += 1;
      labels.add(req.label);
      if (sent % 10_000 === 0) o.onProgress?.(sent);
      const key = res.status === 0 ? `error:${(res.error ?? 'unknown').split(':')[0]}` : String(res.status);
      byStatus.set(key, (byStatus.get(key) ?? 0) + 1);
      const perLabel = byLabel.get(req.label.split(' ')[0]!) ?? new Map<string, number>();
      perLabel.set(key, (perLabel.get(key) ?? 0) + 1);
      byLabel.set(req.label.split(' ')[0]!, perLabel);
      // A watch the client ends is not the server failing.
      // A request the server took for a watch (kube reads any `watch` value but "false" and "0" as true, and a
      // malformed escape as part of the value) streams events until the client ends it.
      const streamed = res.status === 200 && /^\{"type":"/.test(res.body.subarray(0, 10).toString('latin1'));
      const watchEnded = (req.watch === true || streamed) && (res.error === 'timeout' || res.error === 'aborted' || res.error === 'ECONNRESET');
      // kube's own 5xx answers, counted but not failures: 504 for a resourceVersion the store has not reached
      // (after its 3 s wait), and 500 for the /scale of a custom resource without the spec replicas field (kube's
      // InternalError). A HEAD has no body to tell them by, so the same request is asked again as a GET.
      let contract = kubeContract5xx(res);
      if (!contract && res.status >= 500 && req.method === 'HEAD') {
        const again = await o.client.send({ ...req, method: 'GET' }, 30_000);
        contract = again.status === res.status && kubeContract5xx(again);
      }
      // A read answered 503 "storage backend unavailable" is the store's state, not the request's: on a loaded
      // machine etcd can stall past the server's call deadline. The same read asked again must then be answered
      // (counted as `transientStorage` and printed); a write's 503, or one that persists, is a finding.
      if (!contract && res.status === 503 && !req.mutating && res.body.includes('storage backend is unavailable')) {
        const again = await o.client.send(req, 30_000);
        if (again.status > 0 && again.status < 500) {
          contract = true;
          transientStorage.push(describeRequest(o.seed, index, req));
        }
      }
      const problem = res.status >= 500 && !contract ? `status ${res.status}`
        : res.status === 0 && !watchEnded && !(res.error ?? '').startsWith('not-sent') ? `no response (${res.error})`
          : res.error !== undefined && res.status !== 0 && !watchEnded ? `response broken (${res.error})` : undefined;
      if (problem !== undefined) {
        findings.push({ index, what: problem, request: describeRequest(o.seed, index, req), response: `${res.status} ${JSON.stringify(res.headers['content-type'] ?? '')} ${res.body.subarray(0, 1500).toString('utf8')}` });
      }
      if (req.mutating && req.target !== undefined) attempts.push({ index, method: req.method, status: res.status, dryRun: req.dryRun, target: req.target });
      if (res.status >= 200 && res.status < 300) {
        if (req.mutating && !req.dryRun) acks.push(ackOf(index, req, res));
        const type = String(res.headers['content-type'] ?? '');
        if (req.method === 'GET' && /^application\/vnd\.[a-z]+\.protobuf/.test(type) && req.target?.name !== undefined && !req.watch && res.body.length > 4) {
          o.ctx.protobufSeeds.set(req.target.resource, res.body);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: o.concurrency }, worker));
  return { seed: o.seed, sent, byStatus, byLabel, labels, findings, transientStorage, acks, attempts, elapsedMs: Date.now() - started };
}

/** The counts by status code as a Markdown table (codes ascending, errors last). */
export function statusTable(result: FuzzResult, title: string): string {
  const rows = [...result.byStatus.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const lines = [`${title}: ${result.sent} requests in ${(result.elapsedMs / 1000).toFixed(1)} s (${Math.round(result.sent / (result.elapsedMs / 1000))}/s), seed ${result.seed}`, '', '| status | count |', '|---|---|'];
  for (const [code, n] of rows) lines.push(`| ${code} | ${n} |`);
  lines.push('', '| verb | ' + rows.map(([c]) => c).join(' | ') + ' |', '|---|' + rows.map(() => '---|').join(''));
  for (const [label, m] of [...result.byLabel.entries()].sort()) lines.push(`| ${label} | ${rows.map(([c]) => m.get(c) ?? 0).join(' | ')} |`);
  return lines.join('\n');
}
