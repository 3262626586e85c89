/** How leases are shared between writes with a ttl (kube-apiserver's defaults). */
export interface LeaseManagerOptions {
  /** A lease is reused for at most this many seconds after it was asked for. Default 60. */
  readonly reuseSeconds?: number;
  /** ... and at most this fraction of the ttl, whichever is shorter. Default 0.05. */
  readonly reuseFraction?: number;
  /** ... and for at most this many writes. Default 1,000. */
  readonly maxKeysPerLease?: number;
}

interface CachedLease {
  /** The lease's id; a grant still in flight is shared by every write that reuses it. */
  readonly id: Promise<string>;
  /** The id once granted. */
  granted: string | undefined;
  /** The earliest the lease can expire, epoch ms: its ttl counted from BEFORE the grant was asked for. */
  readonly expiresAt: number;
  attached: number;
}

/**
 * Hands out etcd leases for writes with a ttl, after kube-apiserver's lease manager: one lease per write
 * would cost a grant round trip per write and leave etcd with one lease per key to track and revoke, so a
 * lease is reused by the writes of a short window. To keep every key alive at least as long as asked,
 * the lease is granted with the ttl PLUS that window (min(`reuseSeconds`, `reuseFraction` x ttl)), and it
 * is reused only while it still outlives the new write's ttl. So a key lives between its ttl and its ttl
 * plus the window: with `--event-ttl` 1h, 60 to 61 minutes; a ttl under 20 s gets no window and its own
 * lease each time.
 *
 * Only the newest lease is kept (all writes with a ttl are Events in practice, all with the same ttl); a
 * write with a different ttl that the cached lease does not suit gets a new one. Leases are never revoked
 * or kept alive by this process: they expire on their own in etcd, deleting their keys.
 */
export class LeaseManager {
  private cached: CachedLease | undefined;
  private readonly reuseSeconds: number;
  private readonly reuseFraction: number;
  private readonly maxKeys: number;

  constructor(
    /** Grants a lease of `ttlSeconds` and resolves with its id. */
    private readonly grant: (ttlSeconds: number) => Promise<string>,
    options: LeaseManagerOptions = {},
    private readonly now: () => number = Date.now,
  ) {
    this.reuseSeconds = options.reuseSeconds ?? 60;
    this.reuseFraction = options.reuseFraction ?? 0.05;
    this.maxKeys = options.maxKeysPerLease ?? 1_000;
  }

  /** A lease that lives at least `ttlSeconds` (> 0) from now. Rejects when the grant fails. */
  leaseFor(ttlSeconds: number): Promise<string> {
    const now = this.now();
    const window = Math.min(Math.floor(this.reuseFraction * ttlSeconds), this.reuseSeconds);
    const c = this.cached;
    if (
      c !== undefined &&
      c.attached < this.maxKeys &&
      // Outlives this write's ttl ...
      now + ttlSeconds * 1000 < c.expiresAt &&
      // ... and not by more than the window (a 1 h lease is no home for a 2 s key).
      now + (ttlSeconds + window) * 1000 >= c.expiresAt
    ) {
      c.attached++;
      return c.id;
    }
    const ttl = ttlSeconds + window;
    const id = this.grant(ttl);
    const fresh: CachedLease = { id, granted: undefined, expiresAt: now + ttl * 1000, attached: 1 };
    this.cached = fresh;
    id.then(
      (granted) => {
        fresh.granted = granted;
      },
      () => {
        // A failed grant must not be handed to later writes.
        if (this.cached === fresh) this.cached = undefined;
      },
    );
    return id;
  }

  /**
   * Stops reusing the lease `id` (etcd answered that it does not exist: revoked, or expired earlier than
   * this process's clock expected).
   */
  forget(id: string): void {
    if (this.cached?.granted === id) this.cached = undefined;
  }
}
