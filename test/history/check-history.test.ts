/**
 * The history checker on hand-made histories: a clean one (with a re-list after 410, an indeterminate write,
 * a delete known only by its event, errors inside an unplanned fault) passes; each broken variant fails with
 * exactly the anomaly it plants.
 */
import { checkHistory } from './check-history.js';
import { formatReport } from './format-report.js';
import type { ClientHistory, ClientLine, Command, Fault, History, ObjectState, Write } from './history.js';

const T = 1_000_000;
const ok = (op: Write['op'], name: string, rv: string | undefined, v: string | undefined, time: number): Write => ({
  op, name, time, outcome: 'ok', ...(rv === undefined ? {} : { rv }), ...(v === undefined ? {} : { data: { v } }),
});
const ev = (t: string, name: string, rv: string, v: string | undefined, time: number, via?: string): ClientLine => ({
  t, name, rv, data: v === undefined ? {} : { v }, time, ...(via === undefined ? {} : { via }),
});
const st = (rv: string, v: string): ObjectState => ({ rv, data: { v } });

/**
 * a: created rv 2, updated rv 3; b: created rv 4, deleted (Status answer, no rv) at rv 5; c: created rv 6,
 * then an update that failed on a reset connection (indeterminate) and did happen, at rv 7.
 */
const writes: Write[] = [
  ok('create', 'a', '2', 'a1', T + 10),
  ok('update', 'a', '3', 'a2', T + 20),
  ok('create', 'b', '4', 'b1', T + 30),
  ok('delete', 'b', undefined, undefined, T + 40),
  ok('create', 'c', '6', 'c1', T + 50),
  { op: 'update', name: 'c', data: { v: 'c2' }, time: T + 1060, outcome: 'indeterminate', error: 'ECONNRESET' },
];
const final = new Map([['a', st('3', 'a2')], ['c', st('7', 'c2')]]);
const faults: Fault[] = [
  { name: 'SIGKILL replica-0', planned: false, start: T + 1000, end: T + 2000 },
  { name: 'rolling restart', planned: true, start: T + 3000, end: T + 4000 },
];

/** Sees every event on its watch (starting from an empty list at rv 1). */
const watcher: ClientHistory = {
  id: 'informer',
  lines: [
    { t: 'watch', rv: '', time: T },
    { t: 'list', rv: '1', time: T + 1 },
    ev('ADDED', 'a', '2', 'a1', T + 11),
    ev('MODIFIED', 'a', '3', 'a2', T + 21),
    ev('ADDED', 'b', '4', 'b1', T + 31),
    ev('DELETED', 'b', '5', 'b1', T + 41),
    ev('ADDED', 'c', '6', 'c1', T + 51),
    { t: 'error', code: null, msg: 'socket hang up', time: T + 1001 },
    { t: 'watch', rv: '6', time: T + 1100 },
    ev('MODIFIED', 'c', '7', 'c2', T + 1101),
  ],
  final,
};
/** Loses its watch after rv 3, gets 410 and lists again at rv 6 (list-derived changes marked), then watches. */
const relister: ClientHistory = {
  id: 'python',
  lines: [
    { t: 'list', rv: '1', time: T },
    { t: 'watch', rv: '1', time: T + 1 },
    ev('ADDED', 'a', '2', 'a1', T + 11, 'watch'),
    ev('MODIFIED', 'a', '3', 'a2', T + 21, 'watch'),
    { t: 'error', code: 410, msg: 'Gone', time: T + 1200 },
    { t: 'list', rv: '6', time: T + 1300 },
    ev('ADDED', 'c', '6', 'c1', T + 1301, 'list'),
    { t: 'watch', rv: '6', time: T + 1302 },
    ev('MODIFIED', 'c', '7', 'c2', T + 1303, 'watch'),
  ],
  final,
};
const commands: Command[] = [
  { id: 'kubectl get ns', attempts: [{ time: T + 1500, ok: false, error: 'EOF' }, { time: T + 1600, ok: true }] },
  { id: 'kubectl apply', attempts: [{ time: T + 3500, ok: true }] },
];
const clean: History = { writes, clients: [watcher, relister], faults, commands, final };

const kinds = (h: History): string[] => checkHistory(h).anomalies.map((a) => a.kind);
const withLines = (c: ClientHistory, edit: (lines: ClientLine[]) => ClientLine[]): ClientHistory => ({ ...c, lines: edit([...c.lines]) });

describe('checkHistory', () => {
  it('passes a clean history and reports its figures', () => {
    const r = checkHistory(clean);
    expect(r.anomalies).toEqual([]);
    expect(r.writes).toEqual({ acknowledged: 5, creates: 3, updates: 1, deletes: 1, indeterminate: 1, indeterminateApplied: 1 });
    expect(r.clients).toEqual([
      { id: 'informer', events: 6, lists: 1, listDerived: 0, coveredByLists: 0, watches: 2, errors: 1 },
      // The re-list at rv 6 covers rv 4 (b created), 5 (b deleted, learned from the informer) and 6.
      { id: 'python', events: 3, lists: 2, listDerived: 1, coveredByLists: 3, watches: 2, errors: 1 },
    ]);
    expect(r.faults[0]!.errors).toEqual({ informer: 1, python: 1, writer: 1, 'kubectl get ns': 1 });
    expect(r.faults[0]!.samples).toEqual(['informer: error socket hang up', 'python: error 410 Gone', 'writer: update c failed: ECONNRESET']);
    expect(formatReport(r)).toContain('      writer: update c failed: ECONNRESET');
    expect(r.commands).toEqual({ total: 2, retried: 1 });
    expect(formatReport(r)).toContain('anomalies: 0');
  });

  it('finds a lost acknowledged write', () => {
    const older = new Map([['a', st('2', 'a1')], ['c', st('7', 'c2')]]);
    const h = { ...clean, final: older, clients: clean.clients.map((c) => ({ ...c, final: older })) };
    expect(kinds(h)).toEqual(['lost-write']);
    // A deleted object that comes back is lost too (its delete was acknowledged).
    const back = new Map([...final, ['b', st('4', 'b1')]]);
    expect(kinds({ ...clean, final: back, clients: clean.clients.map((c) => ({ ...c, final: back })) })).toEqual(['lost-write']);
  });

  it('accepts an indeterminate write that did not happen, but not an unknown state', () => {
    const notApplied = new Map([['a', st('3', 'a2')], ['c', st('6', 'c1')]]);
    const informer = withLines(watcher, (l) => l.slice(0, -1));
    const h: History = { ...clean, final: notApplied, clients: [{ ...informer, final: notApplied }] };
    expect(kinds(h)).toEqual([]);
    expect(checkHistory(h).writes.indeterminateApplied).toBe(0);
    const strange = new Map([['a', st('3', 'a2')], ['c', st('9', 'zzz')]]);
    expect(kinds({ ...h, final: strange, clients: [{ ...informer, final: strange }] })).toEqual(['lost-write']);
  });

  it('finds a duplicated event', () => {
    const dup = withLines(watcher, (l) => [...l, ev('MODIFIED', 'c', '7', 'c2', T + 1102)]);
    expect(kinds({ ...clean, clients: [dup, relister] })).toEqual(['duplicate-event']);
    // The same revision again after a re-watch from an older resourceVersion is a duplicate too.
    const replay = withLines(watcher, (l) => [...l.slice(0, 6), { t: 'watch', rv: '4', time: T + 42 }, ev('DELETED', 'b', '5', 'b1', T + 43), ...l.slice(6)]);
    expect(kinds({ ...clean, clients: [replay, relister] })).toEqual(['duplicate-event']);
  });

  it('finds a gap (an event missed without a re-list)', () => {
    const gap = withLines(watcher, (l) => l.filter((x) => x.rv !== '3'));
    const r = checkHistory({ ...clean, clients: [gap, relister] });
    expect(r.anomalies.map((a) => `${a.kind} ${a.who}`)).toEqual(['missed-event informer']);
    expect(r.anomalies[0]!.detail).toContain('MODIFIED a at rv 3');
  });

  it('counts a re-list as covering only the revisions between the last event and the list', () => {
    // The re-list at rv 3 covers nothing the client had not seen; rv 4..6 after it are then missing.
    const early = withLines(relister, (l) => [...l.slice(0, 4), { t: 'list', rv: '3', time: T + 22 }, ...l.slice(8)]);
    expect(kinds({ ...clean, clients: [watcher, early] })).toEqual(['missed-event', 'missed-event', 'missed-event']);
    // A list older than what the client had seen is itself an anomaly.
    const back = withLines(relister, (l) => [...l.slice(0, 4), { t: 'list', rv: '2', time: T + 22 }, ...l.slice(4)]);
    expect(kinds({ ...clean, clients: [watcher, back] })).toEqual(['list-went-back']);
  });

  it('finds events out of order, of unknown writes, and wrong content', () => {
    const swapped = withLines(watcher, (l) => [...l.slice(0, 2), l[3]!, l[2]!, ...l.slice(4)]);
    expect(kinds({ ...clean, clients: [swapped, relister] })).toEqual(['out-of-order', 'missed-event']);
    const phantom = withLines(watcher, (l) => [...l, ev('ADDED', 'zzz', '8', 'x', T + 2000)]);
    expect(kinds({ ...clean, clients: [phantom, relister] })).toEqual(['unknown-event']);
    const wrong = withLines(watcher, (l) => l.map((x) => (x.rv === '3' ? { ...x, data: { v: 'other' } } : x)));
    expect(kinds({ ...clean, clients: [wrong, relister] })).toEqual(['wrong-event']);
  });

  it('finds a client that diverges from the final state or falls behind', () => {
    const diverged = { ...watcher, final: new Map([['a', st('3', 'a2')], ['c', st('6', 'c1')]]) };
    expect(kinds({ ...clean, clients: [diverged, relister] })).toEqual(['not-converged']);
    // Stopped after rv 3: rv 4, 6 and 7 never arrived (rv 5, b's delete, no client revealed), c is missing.
    const behind = { ...withLines(watcher, (l) => l.slice(0, 4)), final: new Map([['a', st('3', 'a2')]]) };
    const r = checkHistory({ ...clean, clients: [behind, relister] });
    expect(r.anomalies.map((a) => a.kind)).toEqual(['not-converged', 'not-converged']);
    expect(r.anomalies[0]!.detail).toContain('3 later writes never delivered (first rv 4)');
    expect(r.anomalies[1]!.detail).toContain('c: missing from the client\'s cache');
  });

  it('refuses errors during a planned restart or outside every fault', () => {
    const planned = withLines(watcher, (l) => [...l, { t: 'error', code: null, msg: 'premature close', time: T + 3500 }]);
    const r = checkHistory({ ...clean, clients: [planned, relister] });
    expect(r.anomalies.map((a) => `${a.kind} ${a.who}`)).toEqual(['planned-restart-error informer']);
    expect(r.anomalies[0]!.detail).toContain('rolling restart');
    const stray = withLines(watcher, (l) => [...l, { t: 'error', code: 500, msg: 'boom', time: T + 9000 }]);
    expect(kinds({ ...clean, clients: [stray, relister] })).toEqual(['unexplained-error']);
    // The unplanned fault's slack: 3 s after its end by default.
    const late = withLines(watcher, (l) => [...l, { t: 'error', code: null, msg: 'reset', time: T + 2000 + 2999 }]);
    expect(kinds({ ...clean, faults: [faults[0]!], clients: [late, relister] })).toEqual([]);
    const failedWrite: Write = { op: 'create', name: 'd', data: { v: 'd1' }, time: T + 3600, outcome: 'indeterminate', error: 'socket hang up' };
    expect(kinds({ ...clean, writes: [...writes, failedWrite] })).toEqual(['planned-restart-error']);
    // A write sent during the unplanned fault that timed out long after it is blamed on it; one sent after it is not.
    const hung: Write = { op: 'create', name: 'e', data: { v: 'e1' }, sent: T + 1900, time: T + 16_900, outcome: 'indeterminate', error: 'no answer in time' };
    expect(kinds({ ...clean, faults: [faults[0]!], writes: [...writes, hung] })).toEqual([]);
    expect(kinds({ ...clean, faults: [faults[0]!], writes: [...writes, { ...hung, sent: T + 5500 }] })).toEqual(['unexplained-error']);
  });

  it('allows a command one failure in an unplanned fault, not two, and none elsewhere', () => {
    const twice: Command = { id: 'kubectl get cm', attempts: [{ time: T + 1100, ok: false, error: 'EOF' }, { time: T + 1200, ok: false, error: 'EOF' }, { time: T + 1300, ok: true }] };
    expect(kinds({ ...clean, commands: [twice] })).toEqual(['command-failed']);
    const never: Command = { id: 'kubectl delete', attempts: [{ time: T + 1100, ok: false, error: 'EOF' }] };
    expect(kinds({ ...clean, commands: [never] })).toEqual(['command-failed']);
    const inPlanned: Command = { id: 'kubectl get', attempts: [{ time: T + 3100, ok: false, error: 'EOF' }, { time: T + 3200, ok: true }] };
    expect(kinds({ ...clean, commands: [inPlanned] })).toEqual(['planned-restart-error']);
  });

  it('prints each anomaly in the report', () => {
    const gap = withLines(watcher, (l) => l.filter((x) => x.rv !== '3'));
    const text = formatReport(checkHistory({ ...clean, clients: [gap, relister] }));
    expect(text).toContain('anomalies: 1');
    expect(text).toContain('missed-event: 1');
    expect(text).toContain('[informer] MODIFIED a at rv 3 was never delivered');
  });
});
