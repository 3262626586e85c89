/**
 * Leader election through a Lease object in the store (DESIGN.md invariant 11), so that the controllers
 * running inside the server act once however many replicas run.
 *
 * The lease is a real `coordination.<domain>/v1` Lease at the key the Lease kind serves
 * (`<prefix>/leases/<namespace>/<name>`), in the registry's stored form (no resourceVersion; uid and
 * creationTimestamp set when it is created and kept afterwards, as are labels or annotations someone added),
 * so `kubectl get lease -n <system namespace>` shows the holder. Every write is a compare-and-swap on the
 * key's modRevision, so two replicas can never both believe they took the same lease.
 *
 * Records of earlier versions (the same shape without uid and creationTimestamp) are read as they are and
 * completed on the next write; a record that is not a JSON object (or a Lease deleted through the API)
 * counts as free, and the next write replaces it, still by compare-and-swap.
 *
 * Expiry is judged on the local clock, as client-go does: a candidate remembers when it last saw the
 * lease record change and considers it expired `leaseDurationMs` after that, whatever time the holder
 * wrote into it (clocks of replicas may disagree). A holder that cannot renew within `renewDeadlineMs`
 * stops leading (its `signal` aborts) before any other replica can consider the lease expired.
 */
import type { Store } from '../../storage/interface.js';
import { isStorageError } from '../../storage/errors.js';
import { microTimeOf } from '../registry/kinds/coordination/micro-time.js';
import { newUid, rfc3339 } from '../registry/generic/system-fields.js';
import { isObject } from '../api/json.js';

export interface LeaderElectionOptions {
  readonly store: Store;
  /** Full key of the lease, e.g. `/registry/leases/platform-system/platform-apiserver-namespace-controller`. */
  readonly key: string;
  readonly name: string;
  readonly namespace: string;
  /** The Lease's apiVersion, `coordination.<domain>/v1`; default `coordination.k8s.io/v1`. */
  readonly apiVersion?: string;
  /** This replica's identity (host name + a random suffix). */
  readonly identity: string;
  /** Default 15 s. */
  readonly leaseDurationMs?: number;
  /** Default 10 s; must be below leaseDurationMs. */
  readonly renewDeadlineMs?: number;
  /** Default 2 s. */
  readonly retryPeriodMs?: number;
  /** Called when this replica becomes the leader; `signal` aborts when it stops leading. */
  readonly onStartedLeading: (signal: AbortSignal) => void;
  readonly onStoppedLeading?: () => void;
  readonly onError?: (err: unknown) => void;
  /** Clock, for tests. */
  readonly now?: () => number;
}

export interface LeaderElector {
  readonly isLeader: boolean;
  /** Stops campaigning; a leader releases the lease so another replica takes over at once. */
  stop(): Promise<void>;
}

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

interface LeaseRecord {
  readonly modRevision: number;
  readonly spec: LeaseSpec;
  /** The stored object's metadata (kept on every write); empty for a record that did not parse. */
  readonly metadata: Record<string, unknown>;
  /** The stored object's other top-level fields, kept as they are. */
  readonly rest: Record<string, unknown>;
  readonly raw: string;
}

/** A stored value as a lease record; anything that is not a JSON object reads as a free lease. */
function parseRecord(raw: string, modRevision: number): LeaseRecord {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    parsed = undefined;
  }
  if (!isObject(parsed)) return { modRevision, spec: {}, metadata: {}, rest: {}, raw };
  const { apiVersion: _a, kind: _k, metadata, spec, ...rest } = parsed;
  return { modRevision, spec: isObject(spec) ? (spec as LeaseSpec) : {}, metadata: isObject(metadata) ? metadata : {}, rest, raw };
}

/** The record's transition count; a missing or malformed one counts as 0. */
function transitionsOf(record: LeaseRecord | undefined): number {
  const n = record?.spec.leaseTransitions;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : 0;
}

/** Starts campaigning at once; keeps trying until `stop()`. */
export function startLeaderElection(o: LeaderElectionOptions): LeaderElector {
  const leaseDurationMs = o.leaseDurationMs ?? 15_000;
  const renewDeadlineMs = o.renewDeadlineMs ?? 10_000;
  const retryPeriodMs = o.retryPeriodMs ?? 2_000;
  if (!(renewDeadlineMs < leaseDurationMs)) throw new Error('renewDeadlineMs must be less than leaseDurationMs');
  const now = o.now ?? Date.now;

  let observed: LeaseRecord | undefined;
  let observedAt = 0;
  let leading: AbortController | undefined;
  let lastRenew = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let round: Promise<void> = Promise.resolve();

  const apiVersion = o.apiVersion ?? 'coordination.k8s.io/v1';

  /** The stored form of the Lease with `spec`, keeping what `current` has besides (metadata, other fields). */
  const encode = (spec: LeaseSpec, current: LeaseRecord | undefined, t: number): Buffer => {
    const { resourceVersion: _rv, selfLink: _sl, ...kept } = current?.metadata ?? {};
    const metadata: Record<string, unknown> = {
      ...kept,
      name: o.name,
      namespace: o.namespace,
      uid: typeof kept.uid === 'string' && kept.uid !== '' ? kept.uid : newUid(),
      creationTimestamp: typeof kept.creationTimestamp === 'string' ? kept.creationTimestamp : rfc3339(new Date(t)),
    };
    return Buffer.from(JSON.stringify({ apiVersion, kind: 'Lease', metadata, ...current?.rest, spec }));
  };

  const read = async (): Promise<LeaseRecord | undefined> => {
    const { kv } = await o.store.get(o.key);
    if (kv === undefined) return undefined;
    return parseRecord(Buffer.from(kv.value).toString('utf8'), kv.modRevision);
  };

  const observe = (record: LeaseRecord | undefined): void => {
    if (record?.raw !== observed?.raw) observedAt = now();
    observed = record;
  };

  const stopLeading = (): void => {
    if (leading === undefined) return;
    leading.abort();
    leading = undefined;
    o.onStoppedLeading?.();
  };

  /** One attempt to acquire or renew. Returns true when this replica holds the lease afterwards. */
  const tryAcquireOrRenew = async (): Promise<boolean> => {
    const t = now();
    const current = await read();
    observe(current);
    const holder = typeof current?.spec.holderIdentity === 'string' ? current.spec.holderIdentity : '';
    const heldByOther = holder !== '' && holder !== o.identity;
    if (heldByOther && observedAt + leaseDurationMs > t) return false;

    const spec: LeaseSpec = {
      holderIdentity: o.identity,
      leaseDurationSeconds: Math.ceil(leaseDurationMs / 1000),
      acquireTime: holder === o.identity && typeof current?.spec.acquireTime === 'string' ? current.spec.acquireTime : microTimeOf(t),
      renewTime: microTimeOf(t),
      leaseTransitions: transitionsOf(current) + (holder === o.identity ? 0 : 1),
    };
    if (current === undefined) spec.leaseTransitions = 0;
    try {
      if (current === undefined) await o.store.create(o.key, encode(spec, undefined, t));
      else await o.store.update(o.key, encode(spec, current, t), current.modRevision);
    } catch (err) {
      // Another replica wrote first: it wins this round; we learn its record next round.
      if (isStorageError(err, 'Conflict') || isStorageError(err, 'AlreadyExists') || isStorageError(err, 'NotFound')) return false;
      throw err;
    }
    lastRenew = t;
    return true;
  };

  const tick = async (): Promise<void> => {
    let held = false;
    try {
      held = await tryAcquireOrRenew();
    } catch (err) {
      o.onError?.(err);
    }
    if (stopped) return;
    if (held) {
      if (leading === undefined) {
        leading = new AbortController();
        o.onStartedLeading(leading.signal);
      }
    } else if (leading !== undefined && now() - lastRenew >= renewDeadlineMs) {
      stopLeading();
    } else if (leading !== undefined && observed?.spec.holderIdentity !== o.identity) {
      // Someone else holds it now (we lost a race after our lease expired): stop at once.
      stopLeading();
    }
  };

  const schedule = (delay: number): void => {
    timer = setTimeout(() => {
      round = tick().finally(() => {
        if (!stopped) schedule(retryPeriodMs);
      });
    }, delay);
    timer.unref();
  };
  schedule(0);

  return {
    get isLeader() {
      return leading !== undefined;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      await round;
      if (leading === undefined) return;
      stopLeading();
      // Release: an empty holder lets the next candidate take over without waiting for expiry.
      try {
        const current = await read();
        if (current?.spec.holderIdentity === o.identity) {
          await o.store.update(o.key, encode({ ...current.spec, holderIdentity: '', leaseDurationSeconds: 1 }, current, now()), current.modRevision);
        }
      } catch (err) {
        o.onError?.(err);
      }
    },
  };
}
