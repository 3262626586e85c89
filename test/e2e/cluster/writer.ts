/**
 * The sustained write workload of the chaos suite: `workers` loops, each owning its own names, each name
 * created, updated twice and (one in three) deleted, through the load balancer on a keep-alive pool (so
 * planned restarts meet reused sockets, the case that used to fail). Every answer is recorded for the history
 * checker: acknowledged writes with the resourceVersion returned; a failed write as indeterminate (its name
 * is then abandoned, the checker's contract), with the time and the error.
 *
 * Each worker issues one write every `intervalMs` at most: a steady rate, not a flood that would starve the
 * two cores the cluster, the clients and the checker share.
 */
import { Agent, request as httpsRequest } from 'node:https';
import type { Write } from '../../history/history.js';

export interface WriterOptions {
  readonly url: string;
  readonly caPem: string;
  readonly token: string;
  readonly namespace: string;
  readonly workers?: number;
  readonly intervalMs?: number;
  /** A write without an answer after this long counts as indeterminate. Default 15 s. */
  readonly timeoutMs?: number;
}

export interface Workload {
  readonly writes: Write[];
  /** Resolves once the workers stopped (each finishes the write in flight). */
  stop(): Promise<void>;
  /** Acknowledged writes so far. */
  acknowledged(): number;
  /** Waits until `n` more writes were acknowledged than when called (the workload makes progress). */
  progress(n: number, timeoutMs: number): Promise<void>;
}

interface Answer {
  readonly status: number;
  readonly json: { metadata?: { resourceVersion?: string }; message?: string } | undefined;
}

export function startWorkload(o: WriterOptions): Workload {
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const writes: Write[] = [];
  let stopping = false;
  let waiters: (() => void)[] = [];
  const wake = (): void => {
    for (const w of waiters.splice(0)) w();
  };
  const base = `/api/v1/namespaces/${o.namespace}/configmaps`;

  const send = (method: string, path: string, body?: unknown): Promise<Answer> => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers: Record<string, string> = { Authorization: `Bearer ${o.token}`, 'User-Agent': 'chaos-writer' };
    if (payload !== undefined) {
      headers['Content-Type'] = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
      headers['Content-Length'] = String(payload.length);
    }
    return new Promise((resolve, reject) => {
      const req = httpsRequest(new URL(path, o.url), { method, ca: o.caPem, agent, headers, timeout: o.timeoutMs ?? 15_000 }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          let json: Answer['json'];
          try {
            json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, json });
        });
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error('no answer in time')));
      req.on('error', reject);
      req.end(payload);
    });
  };

  /** One write, recorded; false when it failed (the name is then abandoned). */
  const write = async (op: Write['op'], name: string, v?: string): Promise<boolean> => {
    const data = v === undefined ? undefined : { v };
    let answer: Answer | undefined;
    let error: string | undefined;
    const sent = Date.now();
    try {
      if (op === 'create') answer = await send('POST', base, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });
      else if (op === 'update') answer = await send('PATCH', `${base}/${name}`, { data });
      else answer = await send('DELETE', `${base}/${name}`);
      if (answer.status < 200 || answer.status > 299) error = `HTTP ${answer.status} ${answer.json?.message ?? ''}`.trim();
    } catch (err) {
      error = String((err as Error).message ?? err);
    }
    const time = Date.now();
    if (error !== undefined) {
      writes.push({ op, name, time, sent, outcome: 'indeterminate', error, ...(data === undefined ? {} : { data }) });
    } else {
      const rv = op === 'delete' ? undefined : answer?.json?.metadata?.resourceVersion;
      writes.push({ op, name, time, sent, outcome: 'ok', ...(rv === undefined ? {} : { rv }), ...(data === undefined ? {} : { data }) });
    }
    wake();
    return error === undefined;
  };

  const pace = (since: number): Promise<void> => {
    const left = (o.intervalMs ?? 100) - (Date.now() - since);
    return left > 0 ? new Promise((r) => setTimeout(r, left)) : Promise.resolve();
  };

  const worker = async (k: number): Promise<void> => {
    for (let i = 0; !stopping; i++) {
      const name = `w${k}-${i}`;
      const steps: [Write['op'], string | undefined][] = [['create', `${name}.1`], ['update', `${name}.2`], ['update', `${name}.3`]];
      if (i % 3 === 0) steps.push(['delete', undefined]);
      for (const [op, v] of steps) {
        if (stopping) break;
        const t = Date.now();
        if (!(await write(op, name, v))) break;
        await pace(t);
      }
    }
  };
  const done = Promise.all(Array.from({ length: o.workers ?? 4 }, (_, k) => worker(k)));

  const acknowledged = (): number => writes.filter((w) => w.outcome === 'ok').length;
  return {
    writes,
    acknowledged,
    async stop() {
      stopping = true;
      await done;
      agent.destroy();
    },
    async progress(n, timeoutMs) {
      const target = acknowledged() + n;
      const deadline = Date.now() + timeoutMs;
      while (acknowledged() < target) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`the writer made no progress: ${acknowledged()} of ${target} acknowledged; last: ${JSON.stringify(writes.slice(-3))}`);
        await new Promise<void>((r) => {
          const t = setTimeout(r, left);
          waiters.push(() => {
            clearTimeout(t);
            r();
          });
        });
      }
      waiters = waiters.filter(() => true);
    },
  };
}
