/**
 * The checker's report as text: writes, events per client, faults with the errors seen in each, and the
 * anomalies (each one, up to `maxPerKind` per kind, then a count of the rest).
 */
import type { Anomaly, Report } from './check-history.js';

export function formatReport(r: Report, maxPerKind = 20): string {
  const out: string[] = [];
  const w = r.writes;
  out.push(`writes: ${w.acknowledged} acknowledged (${w.creates} creates, ${w.updates} updates, ${w.deletes} deletes), `
    + `${w.indeterminate} indeterminate (${w.indeterminateApplied} of them applied); ${r.finalObjects} objects at the end`);
  out.push('clients:');
  for (const c of r.clients) {
    out.push(`  ${c.id}: ${c.events} watch events, ${c.lists} lists (${c.listDerived} list-derived changes, `
      + `${c.coveredByLists} writes covered by a re-list), ${c.watches} watches started, ${c.errors} errors`);
  }
  out.push('faults:');
  for (const f of r.faults) {
    const errs = Object.entries(f.errors).map(([who, n]) => `${who} ${n}`).join(', ');
    out.push(`  ${f.planned ? 'planned  ' : 'unplanned'} ${f.name}: ${(f.durationMs / 1000).toFixed(1)} s, errors: ${errs === '' ? 'none' : errs}`);
    for (const s of f.samples) out.push(`      ${s}`);
  }
  out.push(`commands: ${r.commands.total} run, ${r.commands.retried} needed a retry`);
  out.push(`anomalies: ${r.anomalies.length}`);
  const byKind = new Map<string, Anomaly[]>();
  for (const a of r.anomalies) byKind.set(a.kind, [...(byKind.get(a.kind) ?? []), a]);
  for (const [kind, list] of byKind) {
    out.push(`  ${kind}: ${list.length}`);
    for (const a of list.slice(0, maxPerKind)) out.push(`    ${a.who === undefined ? '' : `[${a.who}] `}${a.detail}`);
    if (list.length > maxPerKind) out.push(`    ... and ${list.length - maxPerKind} more`);
  }
  return out.join('\n');
}
