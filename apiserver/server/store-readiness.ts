import type { HealthCheck } from '../endpoints/health-check.js';

export interface StoreReadinessOptions {
  /** One probe of the store (`Store.check()`): resolves when it serves a linearizable read now. */
  readonly probe: () => Promise<void>;
  /** Pause between the end of one probe and the start of the next. Default 1 s (kube probes etcd at most every 1 s). */
  readonly intervalMs?: number;
  /** Deadline of one probe (kube's `--etcd-readycheck-timeout` default, 2 s); a slower probe counts as a failure. */
  readonly probeTimeoutMs?: number;
  /**
   * How long the store may stay unreachable before the check fails. Default 5 s: longer than an etcd leader
   * election (a follower waits a randomized 1-2 s, etcd's default `--election-timeout` of 1 s doubled at most,
   * then campaigns in a few round trips) plus a client's fail-over to another member, so a planned or
   * unplanned election never marks every replica unready at once; short enough that a replica cut off from
   * etcd leaves the load balancer's pool within seconds.
   */
  readonly graceMs?: number;
  /** Told every failed probe (the readiness check itself stays green within the grace). */
  readonly onProbeError?: (err: unknown) => void;
  /** Clock, for tests. */
  readonly now?: () => number;
}

export interface StoreReadiness {
  /** The health check (`etcd`): answers at once from the last probes, never waits on the store. */
  readonly check: HealthCheck;
  /** Stops probing (shutdown). Idempotent. */
  stop(): void;
}

/**
 * The store's readiness as a background monitor, so `/readyz` answers in microseconds whatever the store
 * does: a probe runs every `intervalMs` (one at a time, each bounded by `probeTimeoutMs`), and the check
 * fails only when no probe has succeeded for longer than `graceMs`. A blip shorter than the grace (an etcd
 * election, a member restart) is invisible to load balancers; a longer outage fails every replica's
 * readiness, as it should. The first success after an outage makes it ready again at once (within one
 * interval plus the probe).
 *
 * kube-apiserver instead probes inline with a 2 s deadline rate-limited to one probe per second, so a
 * probe during an election waits up to 2 s and fails; this keeps kube's probe and timeout but not the
 * inline wait.
 */
export function startStoreReadiness(options: StoreReadinessOptions): StoreReadiness {
  const intervalMs = options.intervalMs ?? 1000;
  const probeTimeoutMs = options.probeTimeoutMs ?? 2000;
  const graceMs = options.graceMs ?? 5000;
  const now = options.now ?? Date.now;
  // The server touched the store while starting (bootstrap namespaces, RBAC): it was reachable just now.
  let lastSuccessAt = now();
  let lastError: unknown;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const probeOnce = async (): Promise<void> => {
    let deadline: NodeJS.Timeout | undefined;
    try {
      const attempt = options.probe();
      attempt.catch(() => undefined);
      await Promise.race([
        attempt,
        new Promise<never>((_, reject) => {
          deadline = setTimeout(() => reject(new Error(`store probe timed out after ${probeTimeoutMs} ms`)), probeTimeoutMs).unref();
        }),
      ]);
      lastSuccessAt = now();
      lastError = undefined;
    } catch (err) {
      lastError = err;
      options.onProbeError?.(err);
    } finally {
      clearTimeout(deadline);
    }
  };
  const loop = (): void => {
    if (stopped) return;
    void probeOnce().then(() => {
      // Unreferenced: the monitor alone never keeps a process alive.
      if (!stopped) timer = setTimeout(loop, intervalMs).unref();
    });
  };
  loop();

  return {
    check: {
      name: 'etcd',
      check: async () => {
        const unreachableMs = now() - lastSuccessAt;
        if (unreachableMs > graceMs) {
          throw new Error(`the store has been unreachable for ${unreachableMs} ms (last error: ${String(lastError)})`);
        }
      },
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
