/**
 * The bounded poll of the controller tests: calls `check` every `everyMs` until it yields something other
 * than `undefined` or `false`, and returns that; after `ms` it throws `timed out waiting for <what>`.
 */
export async function until<T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>, ms = 10_000, everyMs = 20): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
