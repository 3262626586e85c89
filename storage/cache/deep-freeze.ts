/**
 * Frozen cached objects (DESIGN.md invariant 8: what the watch cache hands out is shared by every list, get
 * and watcher, and never mutated). With the switch on, each object is deep-frozen once, when it is decoded
 * into the cache, so a handler that writes into a shared object throws a TypeError (ES modules are strict)
 * at the line at fault instead of silently changing what every other reader and watcher sees.
 *
 * The switch: `WatchCacheOptions.freeze`, defaulting to the environment variable `PLATFORM_FREEZE_CACHE`
 * (`1`/`true` on). The test suite sets it for every run (test/harness/global-setup.cjs), so every in-process
 * cache and every spawned server freezes. Production leaves it off (docs/BENCHMARKS.md, "Frozen watch cache
 * objects": a quarter to a third of each object's decode, for a check the suite already makes), as
 * Kubernetes keeps client-go's cache mutation detector to its CI; an operator may turn it on.
 */

/** True when `PLATFORM_FREEZE_CACHE` asks for frozen cache objects. Read at each cache's creation. */
export function freezeFromEnvironment(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env.PLATFORM_FREEZE_CACHE;
  return v === '1' || v === 'true';
}

/**
 * Freezes `value` and every object and array reachable from it, in place; returns `value`. Meant for
 * decoded JSON (plain objects, arrays, primitives). Typed arrays and other ArrayBuffer views cannot be
 * frozen (their elements stay writable) and are left alone; objects already frozen are not walked again,
 * so freezing a tree that shares an already frozen subtree costs nothing for that subtree.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value) || ArrayBuffer.isView(value)) return value;
  // An explicit stack: a deeply nested object (bounded by the decoders, but still) cannot overflow the call stack.
  const stack: object[] = [value];
  Object.freeze(value);
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (Array.isArray(node)) {
      for (const child of node) push(child, stack);
    } else {
      for (const key in node) push((node as Record<string, unknown>)[key], stack);
    }
  }
  return value;
}

function push(child: unknown, stack: object[]): void {
  if (typeof child !== 'object' || child === null || Object.isFrozen(child) || ArrayBuffer.isView(child)) return;
  Object.freeze(child);
  stack.push(child);
}
