/**
 * Controller expectations (kube's ControllerExpectations and the job controller's finalizer
 * expectations): after creating or deleting pods, a job is not managed again until the informer has seen
 * those creations and deletions, so a pass never creates pods twice from a stale cache. Expectations
 * expire after `ttlMs` (kube's 5 minutes) so a lost event cannot wedge a job. Finalizer expectations hold
 * the UIDs of pods whose tracking finalizer the controller removed and the cache still shows.
 */
export class Expectations {
  private readonly pods = new Map<string, { add: number; del: number; at: number }>();
  private readonly finalizers = new Map<string, Set<string>>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {}

  satisfied(key: string): boolean {
    const e = this.pods.get(key);
    if (e === undefined) return true;
    if ((e.add <= 0 && e.del <= 0) || this.now() - e.at > this.ttlMs) return true;
    return false;
  }

  expect(key: string, add: number, del: number): void {
    this.pods.set(key, { add, del, at: this.now() });
  }

  observed(key: string, kind: 'add' | 'del'): void {
    const e = this.pods.get(key);
    if (e !== undefined) e[kind]--;
  }

  expectFinalizersRemoved(key: string, uids: readonly string[]): void {
    let set = this.finalizers.get(key);
    if (set === undefined) this.finalizers.set(key, (set = new Set()));
    for (const uid of uids) set.add(uid);
  }

  finalizerRemovalObserved(key: string, uid: string): void {
    this.finalizers.get(key)?.delete(uid);
  }

  expectedFinalizerRemovals(key: string): ReadonlySet<string> {
    return this.finalizers.get(key) ?? new Set();
  }

  forget(key: string): void {
    this.pods.delete(key);
    this.finalizers.delete(key);
  }
}
