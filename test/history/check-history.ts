/**
 * The history checker: from a recorded `History` (history.ts) it finds every anomaly of these kinds.
 *
 * Writes and the final state
 * - `lost-write`: a name's final state is not what its last acknowledged write left (its object with that
 *   resourceVersion and data, or its absence after a delete), nor what a later indeterminate write on it
 *   would have left.
 * - `unexpected-object`: the final state holds a name nobody wrote.
 *
 * Events, per client. Every write with a known revision (acknowledged creates and updates; deletes and
 * indeterminate writes once a client's event revealed their revision) must reach each client exactly once,
 * in revision order, either as a watch event or "covered by a list". Precisely, the client has a position
 * p (the revision it has caught up to), starting at 0:
 * - a `list` at revision L covers every revision in (p, L] and sets p = L (a list older than p is
 *   `list-went-back`); the changes the list makes to the client's cache are list-derived and are not
 *   counted as events (each must still be a real state: `unknown-event` otherwise);
 * - a watch event at revision r > p sets p = r; it must be the write of that revision (same name, type
 *   ADDED/MODIFIED/DELETED for create/update/delete, same data), else `wrong-event`, or, when no write has
 *   that revision, `unknown-event`;
 * - a watch event at r <= p is a `duplicate-event` when r was already delivered, else `out-of-order`;
 * - at the end, a known revision <= p neither delivered nor covered by a list is a `missed-event`, and
 *   known revisions > p mean the client fell behind (`not-converged`).
 * So a re-list after a 410 excuses exactly the revisions between the client's last event and the list,
 * nothing before and nothing after.
 *
 * Convergence
 * - `not-converged`: a client's final cache differs from the final state (each differing name).
 *
 * Errors (client `error` lines, indeterminate writes, other errors, failed command attempts), by the fault
 * window they fall in:
 * - in an unplanned fault's window (plus `unplannedSlackMs`, never reaching into the next fault): allowed;
 * - else in a planned fault's window: `planned-restart-error`;
 * - in no window: `unexplained-error`.
 * A write or command that records when it started is blamed on any window its [start, end] overlapped (a
 * request that hung through a partition fails after the partition healed).
 * - `command-failed`: a command that never succeeded, failed outside an unplanned window, or failed more
 *   than once in one.
 */
import type { ClientHistory, ClientLine, Fault, History, ObjectState, Write } from './history.js';

export type AnomalyKind =
  | 'lost-write' | 'unexpected-object' | 'missed-event' | 'duplicate-event' | 'out-of-order' | 'unknown-event'
  | 'wrong-event' | 'list-went-back' | 'not-converged' | 'planned-restart-error' | 'unexplained-error'
  | 'command-failed';

export interface Anomaly {
  readonly kind: AnomalyKind;
  /** The client, writer or command concerned. */
  readonly who?: string;
  readonly detail: string;
}

export interface ClientSummary {
  readonly id: string;
  /** Watch events applied (changes not derived from a list). */
  readonly events: number;
  readonly lists: number;
  readonly listDerived: number;
  /** Known revisions the client's lists covered instead of events. */
  readonly coveredByLists: number;
  readonly watches: number;
  readonly errors: number;
}

export interface FaultSummary {
  readonly name: string;
  readonly planned: boolean;
  readonly durationMs: number;
  /** Errors seen in its window, by source (client id, `writer`, command id). */
  readonly errors: Readonly<Record<string, number>>;
  /** The first few errors in its window, as `who: what`. */
  readonly samples: readonly string[];
}

export interface Report {
  readonly writes: {
    readonly acknowledged: number;
    readonly creates: number;
    readonly updates: number;
    readonly deletes: number;
    readonly indeterminate: number;
    /** Indeterminate writes that, by the events or the final state, did happen. */
    readonly indeterminateApplied: number;
  };
  readonly finalObjects: number;
  readonly clients: readonly ClientSummary[];
  readonly faults: readonly FaultSummary[];
  readonly commands: { readonly total: number; readonly retried: number };
  readonly anomalies: readonly Anomaly[];
}

const eventType = { create: 'ADDED', update: 'MODIFIED', delete: 'DELETED' } as const;
const isChange = (t: string): boolean => t === 'ADDED' || t === 'MODIFIED' || t === 'DELETED';
const sameData = (a: Readonly<Record<string, string>> | undefined, b: Readonly<Record<string, string>> | undefined): boolean => {
  const x = a ?? {};
  const y = b ?? {};
  const kx = Object.keys(x);
  return kx.length === Object.keys(y).length && kx.every((k) => x[k] === y[k]);
};
const describe = (l: ClientLine): string => `${l.t} ${l.name ?? '?'} rv ${l.rv ?? '?'} ${JSON.stringify(l.data ?? {})}`;

export function checkHistory(h: History): Report {
  const anomalies: Anomaly[] = [];
  const add = (kind: AnomalyKind, detail: string, who?: string): void => {
    anomalies.push(who === undefined ? { kind, detail } : { kind, who, detail });
  };

  // --- Revisions of the writes: acknowledged ones, then those the clients' watch events reveal.
  const byName = new Map<string, Write[]>();
  for (const w of h.writes) byName.set(w.name, [...(byName.get(w.name) ?? []), w]);
  const rvOf = new Map<Write, number>();
  const writeAt = new Map<number, Write>();
  for (const w of h.writes) {
    if (w.outcome === 'ok' && w.rv !== undefined) {
      rvOf.set(w, Number(w.rv));
      writeAt.set(Number(w.rv), w);
    }
  }
  /** The write a watch event with an unknown revision stands for: a delete by name, else by content. */
  const candidate = (l: ClientLine): Write | undefined => {
    const writes = byName.get(l.name ?? '') ?? [];
    if (l.t === 'DELETED') return writes.find((w) => w.op === 'delete');
    return writes.find((w) => w.outcome === 'indeterminate' && eventType[w.op] === l.t && sameData(w.data, l.data));
  };
  for (const c of h.clients) {
    for (const l of watchEvents(c)) {
      const r = Number(l.rv);
      if (writeAt.has(r)) continue;
      const w = candidate(l);
      if (w === undefined) continue;
      const known = rvOf.get(w);
      if (known === undefined) {
        rvOf.set(w, r);
        writeAt.set(r, w);
      } else if (known !== r) {
        add('wrong-event', `${describe(l)}: the same ${w.op} of ${w.name} was delivered at rv ${known} elsewhere`, c.id);
      }
    }
  }
  // An indeterminate write the final state shows applied (every client may have covered it by a list).
  const appliedByFinal = new Set<Write>();
  for (const [name, state] of h.final) {
    const w = (byName.get(name) ?? []).find((x) => x.outcome === 'indeterminate' && x.op !== 'delete' && sameData(x.data, state.data));
    if (w !== undefined && !rvOf.has(w)) appliedByFinal.add(w);
  }

  // --- Final state: nothing acknowledged lost.
  for (const [name, writes] of byName) {
    const lastOk = writes.map((w, i) => ({ w, i })).filter((x) => x.w.outcome === 'ok').at(-1);
    const later = writes.slice(lastOk === undefined ? 0 : lastOk.i + 1).filter((w) => w.outcome === 'indeterminate');
    const got = h.final.get(name);
    const leaves = (w: Write | undefined): boolean => {
      if (w === undefined || w.op === 'delete') return got === undefined;
      if (got === undefined || !sameData(got.data, w.data)) return false;
      const r = rvOf.get(w);
      return r === undefined || Number(got.rv) === r;
    };
    if (!leaves(lastOk?.w) && !later.some(leaves)) {
      const want = lastOk === undefined ? 'absent (no acknowledged write)'
        : lastOk.w.op === 'delete' ? 'deleted' : `rv ${lastOk.w.rv} ${JSON.stringify(lastOk.w.data)}`;
      add('lost-write', `${name}: final ${got === undefined ? 'absent' : `rv ${got.rv} ${JSON.stringify(got.data)}`}, acknowledged ${want}`);
    }
  }
  for (const name of h.final.keys()) if (!byName.has(name)) add('unexpected-object', `${name} is in the final state but was never written`);

  // --- Events, per client.
  const known = [...writeAt.keys()].sort((a, b) => a - b);
  const clients: ClientSummary[] = h.clients.map((c) => checkClient(c, writeAt, candidate, known, h.final, add));

  // --- Errors against the fault windows.
  const slack = h.unplannedSlackMs ?? 3000;
  const faultErrors = h.faults.map(() => new Map<string, number>());
  const samples = h.faults.map((): string[] => []);
  const classify = (who: string, time: number, what: string, from = time): 'unplanned' | 'planned' | 'none' => {
    // An unplanned fault's slack never reaches into the next fault, so windows do not overlap; a failure
    // whose request overlapped an unplanned fault is blamed on it first.
    const nextStart = (f: Fault): number => Math.min(...h.faults.map((g) => g.start).filter((s) => s > f.start), Infinity);
    const until = (f: Fault): number => (f.planned ? f.end : Math.max(f.end, Math.min(f.end + slack, nextStart(f))));
    const overlaps = (f: Fault): boolean => from <= until(f) && time >= f.start;
    let i = h.faults.findIndex((f) => !f.planned && overlaps(f));
    if (i < 0) i = h.faults.findIndex((f) => f.planned && overlaps(f));
    if (i < 0) {
      add('unexplained-error', `${what} at ${iso(time)}, outside every fault`, who);
      return 'none';
    }
    const f = h.faults[i]!;
    faultErrors[i]!.set(who, (faultErrors[i]!.get(who) ?? 0) + 1);
    if (samples[i]!.length < 3) samples[i]!.push(`${who}: ${what}`);
    if (f.planned) {
      add('planned-restart-error', `${what} at ${iso(time)}, during planned fault "${f.name}"`, who);
      return 'planned';
    }
    return 'unplanned';
  };
  for (const c of h.clients) for (const l of c.lines) if (l.t === 'error') classify(c.id, l.time, ['error', l.code, l.msg].filter((x) => x !== undefined && x !== null && x !== '').join(' '));
  for (const w of h.writes) if (w.outcome === 'indeterminate') classify('writer', w.time, `${w.op} ${w.name} failed: ${w.error ?? '?'}`, w.sent);
  for (const e of h.otherErrors ?? []) classify(e.source, e.time, e.error);
  let retried = 0;
  for (const cmd of h.commands) {
    const failures = cmd.attempts.filter((a) => !a.ok);
    if (failures.length > 0) retried += 1;
    if (cmd.attempts.at(-1)?.ok !== true) add('command-failed', `never succeeded (${cmd.attempts.length} attempts: ${failures.at(-1)?.error ?? 'none run'})`, cmd.id);
    const kinds = failures.map((a) => classify(cmd.id, a.time, `attempt failed: ${a.error ?? '?'}`, a.start));
    if (kinds.filter((k) => k === 'unplanned').length > 1) add('command-failed', `failed ${failures.length} times during an unplanned fault (at most once allowed)`, cmd.id);
  }

  const acked = h.writes.filter((w) => w.outcome === 'ok');
  const indeterminate = h.writes.filter((w) => w.outcome === 'indeterminate');
  return {
    writes: {
      acknowledged: acked.length,
      creates: acked.filter((w) => w.op === 'create').length,
      updates: acked.filter((w) => w.op === 'update').length,
      deletes: acked.filter((w) => w.op === 'delete').length,
      indeterminate: indeterminate.length,
      indeterminateApplied: indeterminate.filter((w) => rvOf.has(w) || appliedByFinal.has(w)).length,
    },
    finalObjects: h.final.size,
    clients,
    faults: h.faults.map((f, i) => ({ name: f.name, planned: f.planned, durationMs: f.end - f.start, errors: Object.fromEntries(faultErrors[i]!), samples: samples[i]! })),
    commands: { total: h.commands.length, retried },
    anomalies,
  };
}

/** The change lines of a client that are watch events (not list-derived), in order. */
function watchEvents(c: ClientHistory): ClientLine[] {
  const out: ClientLine[] = [];
  let listRv: number | undefined;
  for (const l of c.lines) {
    if (l.t === 'list') listRv = Number(l.rv);
    else if (isChange(l.t)) {
      if (l.via === 'list') continue;
      if (listRv !== undefined && Number(l.rv) <= listRv && l.via !== 'watch') continue;
      listRv = undefined;
      out.push(l);
    }
  }
  return out;
}

function checkClient(
  c: ClientHistory, writeAt: ReadonlyMap<number, Write>, candidate: (l: ClientLine) => Write | undefined, known: readonly number[], final: ReadonlyMap<string, ObjectState>,
  add: (kind: AnomalyKind, detail: string, who?: string) => void,
): ClientSummary {
  let p = 0;
  let listRv: number | undefined;
  const delivered = new Set<number>();
  const covered: [number, number][] = [];
  let events = 0;
  let listDerived = 0;
  for (const l of c.lines) {
    if (l.t === 'list') {
      const at = Number(l.rv);
      if (at < p) add('list-went-back', `list at rv ${at} after the client had reached rv ${p}`, c.id);
      else covered.push([p, at]);
      p = at;
      listRv = at;
      continue;
    }
    if (!isChange(l.t)) continue;
    const r = Number(l.rv);
    const fromList = l.via === 'list' || (l.via !== 'watch' && listRv !== undefined && r <= listRv);
    if (fromList) {
      listDerived += 1;
      // A list shows real states only: the object at that revision is a write's (deletes show an old one).
      const w = writeAt.get(r) ?? candidate(l);
      if (l.t !== 'DELETED' && (w === undefined || w.name !== l.name || !sameData(w.data, l.data))) {
        add('unknown-event', `list-derived ${describe(l)} matches no write`, c.id);
      }
      continue;
    }
    listRv = undefined;
    events += 1;
    if (r <= p) {
      add(delivered.has(r) ? 'duplicate-event' : 'out-of-order', `${describe(l)} after the client had reached rv ${p}`, c.id);
      continue;
    }
    p = r;
    delivered.add(r);
    const w = writeAt.get(r);
    if (w === undefined) add('unknown-event', `${describe(l)}: no write has this revision`, c.id);
    else if (w.name !== l.name || eventType[w.op] !== l.t || (w.op !== 'delete' && !sameData(w.data, l.data))) {
      add('wrong-event', `${describe(l)}: the write at that revision is ${eventType[w.op]} ${w.name} ${JSON.stringify(w.data ?? {})}`, c.id);
    }
  }
  const isCovered = (r: number): boolean => covered.some(([from, to]) => r > from && r <= to);
  let coveredByLists = 0;
  const behind: number[] = [];
  for (const r of known) {
    if (delivered.has(r)) continue;
    if (isCovered(r)) {
      coveredByLists += 1;
      continue;
    }
    if (r > p) behind.push(r);
    else {
      const w = writeAt.get(r)!;
      add('missed-event', `${eventType[w.op]} ${w.name} at rv ${r} was never delivered (client reached rv ${p})`, c.id);
    }
  }
  if (behind.length > 0) add('not-converged', `stopped at rv ${p}: ${behind.length} later writes never delivered (first rv ${behind[0]})`, c.id);
  for (const d of diffStates(final, c.final)) add('not-converged', d, c.id);
  return {
    id: c.id,
    events,
    lists: c.lines.filter((l) => l.t === 'list').length,
    listDerived,
    coveredByLists,
    watches: c.lines.filter((l) => l.t === 'watch').length,
    errors: c.lines.filter((l) => l.t === 'error').length,
  };
}

/** Differences between the final state and a client's cache, one line per name. */
export function diffStates(want: ReadonlyMap<string, ObjectState>, got: ReadonlyMap<string, ObjectState>): string[] {
  const out: string[] = [];
  for (const [name, w] of want) {
    const g = got.get(name);
    if (g === undefined) out.push(`${name}: missing from the client's cache (final rv ${w.rv})`);
    else if (g.rv !== w.rv || !sameData(g.data, w.data)) out.push(`${name}: client has rv ${g.rv} ${JSON.stringify(g.data)}, final rv ${w.rv} ${JSON.stringify(w.data)}`);
  }
  for (const name of got.keys()) if (!want.has(name)) out.push(`${name}: in the client's cache, absent from the final state`);
  return out;
}

function iso(t: number): string {
  return new Date(t).toISOString();
}

