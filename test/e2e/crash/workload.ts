/**
 * The crash tests' load generator and what it remembers: `workers` concurrent writers, each with names of
 * its own (one writer per name, its writes issued one after the other), creating a ConfigMap, updating it
 * a few times with a resourceVersion precondition, and deleting it or leaving it. Every write carries data
 * unique to it. A write answered 2xx is ACKNOWLEDGED and recorded with its resourceVersion; a write whose
 * answer never came (the server was killed) is IN FLIGHT: it may or may not have happened.
 *
 * `verify` (after a restart) compares the server's list with that record: every acknowledged write is
 * there with its value and resourceVersion (or gone, for a delete), unless a later in-flight write on the
 * same name took effect (recognised by its unique data); no name or value appears that no write sent; the
 * list's revision is not below any acknowledged one nor below the previous restart's. The observed state
 * then becomes the new baseline (in-flight writes resolved), so the next round continues from it.
 */
import { call, type RunningServer } from './server-runner.js';

export const NAMESPACE = 'default';
const BASE = `/api/v1/namespaces/${NAMESPACE}/configmaps`;

interface Version {
  readonly rv: string;
  readonly data: Readonly<Record<string, string>>;
}

/** What is known about one name: its acknowledged state (undefined: deleted or never created) and an in-flight write. */
interface NameState {
  acked: Version | undefined;
  inFlight: { op: 'create' | 'update' | 'delete'; data?: Record<string, string> } | undefined;
}

export interface RoundStats {
  readonly acknowledged: number;
  readonly inFlight: number;
}

/** A small deterministic PRNG (mulberry32), so a failing seed can be replayed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class CrashWorkload {
  private readonly names = new Map<string, NameState>();
  private counter = 0;
  /** The highest resourceVersion ever acknowledged or listed. */
  maxRevision = 0;
  acknowledgedTotal = 0;

  constructor(
    private readonly random: () => number,
    private readonly workers = 8,
  ) {}

  /**
   * Runs the writers against `server` until `stop` resolves and every writer's current request has ended
   * (the kill makes them fail). Non-2xx answers other than the expected ones throw.
   */
  async run(server: RunningServer, stop: Promise<void>): Promise<RoundStats> {
    let stopped = false;
    void stop.then(() => (stopped = true));
    let acknowledged = 0;
    let inFlight = 0;
    const worker = async (w: number): Promise<void> => {
      while (!stopped) {
        const name = `crash-w${w}-${this.counter++}`;
        const st: NameState = { acked: undefined, inFlight: undefined };
        this.names.set(name, st);
        const updates = 1 + Math.floor(this.random() * 4);
        const remove = this.random() < 0.5;
        for (let i = 0; i <= updates + (remove ? 1 : 0) && !stopped; i++) {
          const op = i === 0 ? 'create' : i <= updates ? 'update' : 'delete';
          const data = op === 'delete' ? undefined : { v: `${name}-${i}`, pad: 'x'.repeat(Math.floor(this.random() * 512)) };
          st.inFlight = { op, data };
          let answer;
          try {
            answer =
              op === 'create'
                ? await call(server, 'POST', BASE, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data })
                : op === 'update'
                  ? await call(server, 'PUT', `${BASE}/${name}`, {
                      apiVersion: 'v1',
                      kind: 'ConfigMap',
                      metadata: { name, resourceVersion: st.acked!.rv },
                      data,
                    })
                  : await call(server, 'DELETE', `${BASE}/${name}`, { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { resourceVersion: st.acked!.rv } });
          } catch {
            inFlight++;
            return; // no answer: the server is gone; this name's write stays in flight
          }
          if (answer.status >= 300) {
            if (stopped && answer.status >= 500) {
              inFlight++;
              return;
            }
            throw new Error(`${op} ${name}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
          }
          st.inFlight = undefined;
          acknowledged++;
          this.acknowledgedTotal++;
          if (op === 'delete') {
            st.acked = undefined;
          } else {
            const rv = String((answer.body.metadata as { resourceVersion?: string } | undefined)?.resourceVersion);
            st.acked = { rv, data: data! };
            this.maxRevision = Math.max(this.maxRevision, Number(rv));
          }
        }
      }
    };
    await Promise.all(Array.from({ length: this.workers }, (_, w) => worker(w)));
    return { acknowledged, inFlight };
  }

  /** Checks the restarted server against the record (see the file comment); returns the problems found. */
  async verify(server: RunningServer): Promise<string[]> {
    const list = await call(server, 'GET', BASE);
    if (list.status !== 200) return [`list: ${list.status} ${JSON.stringify(list.body).slice(0, 300)}`];
    const listRv = Number((list.body.metadata as { resourceVersion: string }).resourceVersion);
    const problems: string[] = [];
    if (!(listRv >= this.maxRevision)) problems.push(`the revision went back: listed at ${listRv}, acknowledged ${this.maxRevision}`);
    const seen = new Map<string, Version>();
    for (const item of list.body.items as { metadata: { name: string; resourceVersion: string }; data?: Record<string, string> }[]) {
      if (!item.metadata.name.startsWith('crash-')) continue;
      seen.set(item.metadata.name, { rv: item.metadata.resourceVersion, data: item.data ?? {} });
    }
    for (const name of seen.keys()) if (!this.names.has(name)) problems.push(`${name}: listed, but no write ever sent it`);
    for (const [name, st] of this.names) {
      const got = seen.get(name);
      const want = st.acked;
      const same = (a: Version | undefined, b: Version | undefined): boolean =>
        a === undefined ? b === undefined : b !== undefined && a.rv === b.rv && JSON.stringify(a.data) === JSON.stringify(b.data);
      if (same(want, got)) {
        st.inFlight = undefined;
        continue;
      }
      // Not the acknowledged state: only the in-flight write's effect is allowed, newer than the ack.
      const f = st.inFlight;
      const newer = got === undefined || want === undefined || Number(got.rv) > Number(want.rv);
      const landed =
        f !== undefined &&
        newer &&
        (f.op === 'delete' ? got === undefined : got !== undefined && JSON.stringify(got.data) === JSON.stringify(f.data));
      if (!landed) {
        problems.push(
          `${name}: acknowledged ${want === undefined ? 'absent' : `rv ${want.rv} v=${want.data.v}`}` +
            `${f === undefined ? '' : ` (in flight: ${f.op} ${f.data?.v ?? ''})`}, found ${got === undefined ? 'absent' : `rv ${got.rv} v=${got.data.v}`}`,
        );
        continue;
      }
      st.acked = got; // the in-flight write happened: it is the baseline now
      st.inFlight = undefined;
    }
    this.maxRevision = Math.max(this.maxRevision, listRv);
    // Names whose last state is absent are finished: forget them, so the record stays small.
    for (const [name, st] of this.names) if (st.acked === undefined && st.inFlight === undefined && !seen.has(name)) this.names.delete(name);
    return problems;
  }

  /** Names alive (acknowledged) now. */
  get liveNames(): number {
    let n = 0;
    for (const st of this.names.values()) if (st.acked !== undefined) n++;
    return n;
  }
}
