/**
 * A kind whose objects are stored in one version of several and served in the kind's own version: the
 * served versions of a custom resource, after Kubernetes' storage codec for them (decode, prune and
 * default in the object's own version, convert, prune in the target version; on write convert to the
 * storage version and prune there). Stored objects keep the apiVersion they were written in, so a key may
 * hold an older storage version; reading converts from the object's own apiVersion.
 *
 * A conversion may be a webhook call, so `read` and `write` answer synchronously when they can (same
 * version, strategy `None`) and with a promise when they cannot. The generic registry awaits only then
 * (registry/generic/versioned-shape.ts), memoizes the served form of each watch cache object per version,
 * and converts a list's objects in one `read`.
 *
 * Failures are StatusErrors for the request that needed the conversion (500 with the conversion's message,
 * as Kubernetes answers a failed conversion); they never touch the watch cache, which holds stored objects.
 */
import type { KubeObject } from '../api/object.js';

export type MaybePromise<T> = T | Promise<T>;

export interface VersionedStorage {
  /**
   * The kind's form of stored objects, in order (each in any version of the resource). The objects are
   * the caller's: they are changed in place and may be returned.
   */
  read(stored: KubeObject[]): MaybePromise<KubeObject[]>;
  /**
   * The kind's form of one stored object (owned, changed in place) when no webhook has to be called, else
   * undefined. Throws like `read`. Used where nothing can wait (the watch cache's selector predicates).
   */
  readNow(stored: KubeObject): KubeObject | undefined;
  /**
   * The stored form of an object in the kind's version. `obj` is not changed (the result may be `obj`
   * itself, or share nested values with it).
   */
  write(obj: KubeObject): MaybePromise<KubeObject>;
}

export function isPromise<T>(v: MaybePromise<T>): v is Promise<T> {
  return v instanceof Promise;
}

/** `f(v)`, after `v` settles when it is a promise (no microtask otherwise). */
export function thenMaybe<T, U>(v: MaybePromise<T>, f: (t: T) => MaybePromise<U>): MaybePromise<U> {
  return v instanceof Promise ? v.then(f) : f(v);
}
