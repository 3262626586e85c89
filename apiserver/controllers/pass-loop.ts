/**
 * The run loop the in-server controllers share: one pass at a time over the current state, a pass asked
 * for while one runs is done once right after it (requests coalesce), and with nothing asked a pass runs
 * again `intervalMs` after the last one ended (the resync). A failing pass goes to `onError` and the loop
 * goes on. `stop()` ends the loop and waits for a running pass.
 */
export interface PassLoop {
  /** Asks for a pass (now, or right after the running one). */
  kick(): void;
  /** Whether the loop was stopped (a pass may check it between items). */
  readonly stopped: boolean;
  stop(): Promise<void>;
}

export function passLoop(pass: () => Promise<void>, intervalMs: number, onError?: (err: unknown) => void): PassLoop {
  let stopped = false;
  let running: Promise<void> | undefined;
  let again = false;
  let timer: NodeJS.Timeout | undefined;

  const kick = (): void => {
    if (stopped) return;
    if (running !== undefined) {
      again = true;
      return;
    }
    if (timer !== undefined) clearTimeout(timer);
    running = pass()
      .catch((err: unknown) => onError?.(err))
      .finally(() => {
        running = undefined;
        if (stopped) return;
        if (again) {
          again = false;
          kick();
        } else {
          timer = setTimeout(kick, intervalMs);
          timer.unref();
        }
      });
  };

  return {
    kick,
    get stopped() {
      return stopped;
    },
    async stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      await running;
    },
  };
}
