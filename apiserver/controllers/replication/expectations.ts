/**
 * kube's controller expectations (ControllerExpectations + UIDTrackingControllerExpectations): what a
 * controller has asked for and not yet seen in its informer, so that a sync running before the informer
 * caught up never creates or deletes the same pods again.
 *
 * - `expectCreations(key, n)` after deciding to create n pods; every pod seen added (with the controller's
 *   reference) lowers the count by one, and so does every create that was not made or failed;
 * - `expectDeletions(key, podKeys)` after deciding which pods to delete; a pod seen deleted or marked for
 *   deletion lowers the count only if it is one of those (a pod deleted twice is not counted twice);
 * - `satisfied(key)`: nothing outstanding, or no record (a controller never synced, or one whose record
 *   was removed), or the record is older than the timeout (kube: 5 minutes; a lost event must not block
 *   the controller forever).
 */
export interface Expectations {
  satisfied(key: string): boolean;
  expectCreations(key: string, n: number): void;
  creationObserved(key: string): void;
  expectDeletions(key: string, podKeys: readonly string[]): void;
  deletionObserved(key: string, podKey: string): void;
  /** Forgets the controller (deleted). */
  delete(key: string): void;
}

interface Record {
  add: number;
  del: number;
  readonly deleting: Set<string>;
  timestamp: number;
}

export function createExpectations(o: { readonly timeoutMs?: number; readonly now?: () => number } = {}): Expectations {
  const timeout = o.timeoutMs ?? 5 * 60_000;
  const now = o.now ?? Date.now;
  const records = new Map<string, Record>();
  const record = (key: string): Record => {
    let r = records.get(key);
    if (r === undefined) records.set(key, (r = { add: 0, del: 0, deleting: new Set(), timestamp: now() }));
    return r;
  };
  return {
    satisfied(key) {
      const r = records.get(key);
      if (r === undefined) return true;
      if (r.add <= 0 && r.del <= 0) return true;
      return now() - r.timestamp > timeout;
    },
    expectCreations(key, n) {
      const r = record(key);
      // kube's SetExpectations: a fresh expectation replaces what was left (which was satisfied or expired).
      r.add = n;
      r.del = 0;
      r.deleting.clear();
      r.timestamp = now();
    },
    creationObserved(key) {
      const r = records.get(key);
      if (r !== undefined) r.add--;
    },
    expectDeletions(key, podKeys) {
      const r = record(key);
      r.add = 0;
      r.deleting.clear();
      for (const k of podKeys) r.deleting.add(k);
      r.del = r.deleting.size;
      r.timestamp = now();
    },
    deletionObserved(key, podKey) {
      const r = records.get(key);
      if (r !== undefined && r.deleting.delete(podKey)) r.del--;
    },
    delete(key) {
      records.delete(key);
    },
  };
}
