import type { Store } from '../interface.js';

/**
 * The store's compacted revision for watch starts, with concurrent callers coalesced: every watch start
 * must check it (invariant 10), and on etcd it costs round trips, so a reconnect storm of a thousand
 * informers should not cost a thousand probes. A caller never gets an answer read before it asked (that
 * could miss a compaction it must honour): it joins the probe that starts after the one in flight.
 */
export class CompactionProbe {
  private inFlight: Promise<number> | undefined;
  private next: Promise<number> | undefined;

  constructor(private readonly store: Store) {}

  compactedRevision(): Promise<number> {
    if (this.inFlight === undefined) {
      const probe = this.store.compactedRevision().finally(() => {
        if (this.inFlight === probe) this.inFlight = undefined;
      });
      this.inFlight = probe;
      return probe;
    }
    this.next ??= this.inFlight.then(
      () => this.startNext(),
      () => this.startNext(),
    );
    return this.next;
  }

  private startNext(): Promise<number> {
    this.next = undefined;
    return this.compactedRevision();
  }
}
