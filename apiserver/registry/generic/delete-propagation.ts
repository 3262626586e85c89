/**
 * Delete propagation, as kube's generic store decides it (store.go: shouldOrphanDependents,
 * shouldDeleteDependents, deletionFinalizersForGarbageCollection): which of the garbage collector's two
 * finalizers a DELETE leaves on the object.
 *
 * - `orphan`: the collector removes the object's ownerReferences from its dependents, then the finalizer;
 * - `foregroundDeletion`: the collector deletes the dependents that block the owner
 *   (`blockOwnerDeletion: true`), then removes the finalizer;
 * - neither (Background): the object goes at once and the collector deletes its dependents afterwards.
 *
 * Priority, highest first: the deprecated `orphanDependents`, then `propagationPolicy`, then a GC finalizer
 * the object already carries (so a second DELETE without a policy keeps the first one's choice), then the
 * kind's default policy. Kinds whose policy is `Unsupported` (Events) never get either finalizer.
 *
 * Kinds' defaults (kube 1.32): `batch/v1` Jobs and core `v1` ReplicationControllers orphan (back
 * compatibility: kubectl always sends a policy; a Job deleted without one answers a Warning); Events are
 * Unsupported; every other kind, custom resources included, deletes dependents in the background.
 */
import type { KubeObject } from '../../api/object.js';
import type { DeleteOptions } from './options.js';
import type { RegistryContext } from './registry-context.js';

export const FINALIZER_ORPHAN = 'orphan';
export const FINALIZER_FOREGROUND = 'foregroundDeletion';

export type GarbageCollectionPolicy = 'DeleteDependents' | 'OrphanDependents' | 'Unsupported';

/** kube's warning for a Job DELETE (or deletecollection) that leaves the propagation to the v1 default. */
export const JOB_ORPHAN_WARNING =
  'child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning';

/** The kind's DefaultGarbageCollectionPolicy (kube 1.32), from the registry's group, version and resource. */
export function defaultGarbageCollectionPolicy(ctx: Pick<RegistryContext, 'group' | 'gr' | 'strategy' | 'naming'>): GarbageCollectionPolicy {
  const { group } = ctx;
  const { resource } = ctx.gr;
  const version = ctx.strategy.version;
  if (resource === 'events' && (group === '' || group === ctx.naming.group('events'))) return 'Unsupported';
  if (group === '' && version === 'v1' && resource === 'replicationcontrollers') return 'OrphanDependents';
  if (group === 'batch' && version === 'v1' && resource === 'jobs') return 'OrphanDependents';
  return 'DeleteDependents';
}

const hasPolicy = (opts: DeleteOptions): boolean => opts.propagationPolicy !== undefined && opts.propagationPolicy !== '';

function shouldOrphan(policy: GarbageCollectionPolicy, finalizers: readonly string[], opts: DeleteOptions): boolean {
  if (policy === 'Unsupported') return false;
  if (opts.orphanDependents !== undefined) return opts.orphanDependents;
  if (hasPolicy(opts)) return opts.propagationPolicy === 'Orphan';
  for (const f of finalizers) {
    if (f === FINALIZER_ORPHAN) return true;
    if (f === FINALIZER_FOREGROUND) return false;
  }
  return policy === 'OrphanDependents';
}

function shouldDeleteInForeground(policy: GarbageCollectionPolicy, finalizers: readonly string[], opts: DeleteOptions): boolean {
  if (policy === 'Unsupported') return false;
  if (opts.orphanDependents !== undefined) return false;
  if (hasPolicy(opts)) return opts.propagationPolicy === 'Foreground';
  for (const f of finalizers) {
    if (f === FINALIZER_FOREGROUND) return true;
    if (f === FINALIZER_ORPHAN) return false;
  }
  return false;
}

/**
 * The finalizers `current` should carry once this DELETE has been applied, or undefined when they stay as
 * they are (same set). The other finalizers keep their order; the GC ones go to the end.
 */
export function gcFinalizersAfterDelete(policy: GarbageCollectionPolicy, current: KubeObject, opts: DeleteOptions): string[] | undefined {
  const existing = current.metadata.finalizers ?? [];
  const next = existing.filter((f) => f !== FINALIZER_ORPHAN && f !== FINALIZER_FOREGROUND);
  if (shouldOrphan(policy, existing, opts)) next.push(FINALIZER_ORPHAN);
  if (shouldDeleteInForeground(policy, existing, opts)) next.push(FINALIZER_FOREGROUND);
  const before = new Set(existing);
  const after = new Set(next);
  if (before.size === after.size && [...after].every((f) => before.has(f))) return undefined;
  return next;
}

/** The Warning texts kube answers a DELETE or deletecollection with before deleting (the Job one). */
export function deleteWarnings(ctx: Pick<RegistryContext, 'group' | 'gr' | 'strategy' | 'naming'>, opts: DeleteOptions): string[] {
  const jobs = ctx.group === 'batch' && ctx.gr.resource === 'jobs';
  if (jobs && !hasPolicy(opts) && opts.orphanDependents === undefined && defaultGarbageCollectionPolicy(ctx) === 'OrphanDependents') {
    return [JOB_ORPHAN_WARNING];
  }
  return [];
}
