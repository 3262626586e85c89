/**
 * Bounds the number of Update entries, as Kubernetes' capManagersManager does after every Update: past
 * `max` (10), the oldest Update entries are folded, per apiVersion, into one `ancient-changes` Update entry
 * that takes the union of their fields and the time of the newest folded one. The first (oldest) entry of
 * a version becomes the bucket when no bucket of that version exists yet. Apply entries are never folded.
 */
import { managerId, type ManagerEntry, type Managers } from './managers.js';

export const DEFAULT_MAX_UPDATE_MANAGERS = 10;
export const ANCIENT_CHANGES_MANAGER = 'ancient-changes';

const seconds = (t: string | undefined): number => (t === undefined ? 0 : Math.floor(Date.parse(t) / 1000) || 0);

export function capUpdateManagers(m: Managers, max = DEFAULT_MAX_UPDATE_MANAGERS): void {
  const updaters = [...m.entries()].filter(([, e]) => e.operation === 'Update').map(([id]) => id);
  if (updaters.length <= max) return;
  updaters.sort((a, b) => {
    const d = seconds(m.get(a)!.time) - seconds(m.get(b)!.time);
    return d !== 0 ? d : a < b ? -1 : a > b ? 1 : 0;
  });
  const firstOfVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > max; i++) {
    const id = updaters[i]!;
    const e = m.get(id);
    if (e === undefined) continue;
    const bucketEntry = { manager: ANCIENT_CHANGES_MANAGER, operation: 'Update' as const, apiVersion: e.apiVersion, subresource: '' };
    const bucket = managerId(bucketEntry);
    const first = firstOfVersion.get(e.apiVersion);
    if (first === undefined) {
      firstOfVersion.set(e.apiVersion, id);
      continue;
    }
    // The bucket folding itself into itself would lose it (upstream deletes the merged id): skip that.
    if (id === bucket) continue;
    if (!m.has(bucket)) {
      const s = m.get(first)!;
      m.delete(first);
      m.set(bucket, { ...bucketEntry, ...(s.time === undefined ? {} : { time: s.time }), set: s.set });
    }
    const b: ManagerEntry = m.get(bucket)!;
    m.set(bucket, { ...b, set: e.set.union(b.set), ...(e.time === undefined ? {} : { time: e.time }) });
    m.delete(id);
    length--;
  }
}
