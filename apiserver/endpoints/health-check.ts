/** One named health check. `check` resolves when healthy and throws (any error) when not. */
export interface HealthCheck {
  readonly name: string;
  check(): Promise<void>;
}

/** Always healthy: the server answers HTTP at all. */
export const pingCheck: HealthCheck = { name: 'ping', check: async () => undefined };

/**
 * A check with a deadline and single flight: concurrent probes share one run, and a run that takes
 * longer than `timeoutMs` fails (the underlying call is left to finish on its own). So a hung store
 * neither hangs probes nor piles up calls.
 */
export function withDeadline(name: string, timeoutMs: number, run: () => Promise<void>): HealthCheck {
  let inFlight: Promise<void> | undefined;
  return {
    name,
    check() {
      if (inFlight !== undefined) return inFlight;
      let timer: NodeJS.Timeout | undefined;
      const attempt = run();
      attempt.catch(() => undefined);
      const current = Promise.race([
        attempt,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`${name} check timed out after ${timeoutMs} ms`)), timeoutMs);
        }),
      ]).finally(() => {
        clearTimeout(timer);
        inFlight = undefined;
      });
      inFlight = current;
      return current;
    },
  };
}
