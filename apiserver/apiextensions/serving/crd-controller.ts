/**
 * Custom resources on every replica, as kube-apiserver's apiextensions controllers run in each server:
 * one follower of the CustomResourceDefinitions' watch cache that
 *
 * 1. serves: a definition whose Established condition is True is served (its kinds from
 *    `customResourceKinds`, with the accepted names) as one set of `ServedResources`, keyed by its name,
 *    stored under `<etcd-prefix>/<group>/<plural>/`; a changed definition is served anew (the watch cache of
 *    its prefix and the watchers on it stay); a removed one stops being served (its cache stops and its
 *    watchers end). Discovery and OpenAPI follow the served set. While the definition is Terminating its
 *    resources are still read, watched and deleted, but create is 405, as Kubernetes answers. A definition
 *    whose documents cannot be built is not served (publishable.ts), so it cannot break `/apis` or
 *    `/openapi` for everyone;
 * 2. keeps the status (a queue worker): the accepted names with NamesAccepted and Established
 *    (accepted-names.ts), and, for a definition being deleted, the cleanup finalizer: Terminating
 *    InstanceDeletionInProgress, every instance deleted (instance-cleanup.ts), the finalizer removed, which
 *    removes the definition. Every replica does this work, as in Kubernetes: the writes are conditional on
 *    the resourceVersion read, so a replica that loses a race (409) just sees the winner's result arrive.
 *
 * `synced()` resolves once the definitions present at start are served (the server listens after it, as
 * kube-apiserver's readiness waits for its CRD informer).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeObject } from '../../api/object.js';
import type { ServedResources } from '../../registry/served-resources.js';
import { StatusError } from '../../errors/status-error.js';
import type { Naming } from '../../naming/naming.js';
import type { GenericRegistry } from '../../registry/generic/generic-registry.js';
import type { KindStrategy } from '../../registry/kind-strategy.js';
import { cleanupFinalizer, findCondition, isConditionTrue, setCondition, type CrdCondition } from '../../registry/kinds/apiextensions/crd-conditions.js';
import { CUSTOM_RESOURCE_VALIDATION_STYLE, customResourceKinds } from '../../registry/kinds/apiextensions/custom-resource-kinds.js';
import { isObject, stringAt, type Json } from '../../registry/kinds/apiextensions/json-schema-node.js';
import { acceptedNamesOf, decideNames, namesAt, usedNames } from './accepted-names.js';
import { deleteInstances, type CleanupOptions } from './instance-cleanup.js';
import { checkPublishable } from './publishable.js';

/** The field manager of the controller's status writes (Kubernetes': the API server's own). */
export const CRD_CONTROLLER_FIELD_MANAGER = 'kube-apiserver';

export interface CustomResourceControllerOptions {
  /** The CustomResourceDefinitions registry, with its watch cache. */
  readonly crds: GenericRegistry;
  readonly resources: ServedResources;
  readonly naming: Naming;
  /** The kinds a definition serves (given with its accepted names); default `customResourceKinds`. */
  readonly kindsOf?: (crd: KubeObject) => readonly KindStrategy[];
  /** Called when a definition is served (again) or stops being served (`versions` empty). */
  readonly onServing?: (crd: string, versions: readonly string[]) => void;
  readonly onError?: (err: unknown, crd?: string) => void;
  /** Wait before retrying a failed status sync or watching again. Default 1 s. */
  readonly retryMs?: number;
  /** See CleanupOptions. */
  readonly cleanup?: Omit<CleanupOptions, 'signal'>;
}

export interface CustomResourceController {
  /** Resolves once the definitions present when it started are served. */
  synced(): Promise<void>;
  stop(): Promise<void>;
}

export function startCustomResourceController(o: CustomResourceControllerOptions): CustomResourceController {
  const cache = o.crds.context.cache;
  if (cache === undefined) throw new Error('the CRD controller needs the customresourcedefinitions watch cache');
  const keyPrefix = o.crds.context.keys.collectionPrefix('');
  const kindsOf = o.kindsOf ?? ((crd: KubeObject) => customResourceKinds(crd, o.naming));
  const finalizer = cleanupFinalizer(o.naming);
  const retryMs = o.retryMs ?? 1000;
  const abort = new AbortController();

  /** The definitions as last seen (the cache's shared objects: never changed here). */
  const known = new Map<string, KubeObject>();
  /** What each served definition was served from, to skip rebuilding on status-only changes. */
  const servedFrom = new Map<string, string>();

  let markSynced!: () => void;
  const syncedPromise = new Promise<void>((resolve) => (markSynced = resolve));

  // ---- serving ----

  const serve = (name: string): void => {
    const crd = known.get(name);
    if (crd === undefined || !isConditionTrue(crd, 'Established')) {
      if (servedFrom.delete(name)) {
        o.resources.removeSet(name);
        o.onServing?.(name, []);
      }
      return;
    }
    const spec = isObject(crd.spec) ? crd.spec : {};
    const terminating = crd.metadata.deletionTimestamp != null;
    const accepted = acceptedNamesOf(crd);
    const fingerprint = JSON.stringify([spec, accepted, terminating]);
    if (servedFrom.get(name) === fingerprint) return;
    try {
      // Served under the accepted names (Kubernetes serves status.acceptedNames), the spec's plural keys.
      const names = isObject(spec.names) ? spec.names : {};
      const servingForm = { ...crd, spec: { ...spec, names: { ...names, ...accepted, plural: stringAt(names, 'plural') } } } as KubeObject;
      let kinds = kindsOf(servingForm);
      if (terminating) kinds = kinds.map(refusingCreate);
      else checkPublishable(kinds, o.naming);
      o.resources.serveSet(name, kinds, {
        resourcePrefix: `${stringAt(spec, 'group')}/${stringAt(names, 'plural')}`,
        validationStyle: CUSTOM_RESOURCE_VALIDATION_STYLE,
      });
      servedFrom.set(name, fingerprint);
      o.onServing?.(name, kinds.map((k) => k.version));
    } catch (err) {
      o.onError?.(err, name);
    }
  };

  // ---- status ----

  const queue = new Set<string>();
  let draining: Promise<void> | undefined;

  const writeStatus = async (crd: KubeObject): Promise<KubeObject | undefined> => {
    try {
      return (await o.crds.update('', crd.metadata.name!, crd, { subresource: 'status', fieldManager: CRD_CONTROLLER_FIELD_MANAGER })).object;
    } catch (err) {
      // Changed or deleted meanwhile: the watch brings the new state, which is looked at again.
      if (err instanceof StatusError && (err.reason === 'Conflict' || err.reason === 'NotFound')) return undefined;
      throw err;
    }
  };

  const syncNames = async (crd: KubeObject): Promise<void> => {
    const name = crd.metadata.name!;
    const group = stringAt(isObject(crd.spec) ? crd.spec : {}, 'group');
    const builtins = o.resources.all.filter((r) => r.set === '' && r.group === group).map((r) => r.strategy);
    const decision = decideNames(crd, usedNames(name, group, known.values(), builtins));
    const same = (c: CrdCondition): boolean => {
      const old = findCondition(crd, c.type);
      return old !== undefined && old.status === c.status && old.reason === c.reason && old.message === c.message;
    };
    if (JSON.stringify(acceptedNamesOf(crd)) === JSON.stringify(namesAt(decision.acceptedNames as Json)) && same(decision.namesAccepted) && same(decision.established)) return;
    const next = structuredClone(crd);
    (next.status as Record<string, unknown>).acceptedNames = decision.acceptedNames;
    setCondition(next, decision.namesAccepted);
    setCondition(next, decision.established);
    await writeStatus(next);
  };

  const finalize = async (crd: KubeObject): Promise<void> => {
    const name = crd.metadata.name!;
    const progress = structuredClone(crd);
    setCondition(progress, { type: 'Terminating', status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' });
    const inProgress = await writeStatus(progress);
    if (inProgress === undefined) return;
    let outcome: CrdCondition;
    const served = o.resources.all.find((r) => r.set === name);
    if (isConditionTrue(inProgress, 'Established') && served !== undefined) {
      const result = await deleteInstances(served.registry, { ...o.cleanup, signal: abort.signal });
      if (result.failed) {
        const failed = structuredClone(inProgress);
        setCondition(failed, result.condition);
        await writeStatus(failed);
        throw new Error(`${name}: ${result.condition.message}`);
      }
      outcome = result.condition;
    } else {
      outcome = { type: 'Terminating', status: 'False', reason: 'NeverEstablished', message: 'resource was never established' };
    }
    const done = structuredClone(inProgress);
    setCondition(done, outcome);
    const recorded = await writeStatus(done);
    if (recorded === undefined) return;
    // Removing the last finalizer of a definition marked for deletion removes it.
    const release = structuredClone(recorded);
    release.metadata.finalizers = (release.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    try {
      await o.crds.update('', name, release, { fieldManager: CRD_CONTROLLER_FIELD_MANAGER });
    } catch (err) {
      if (!(err instanceof StatusError && (err.reason === 'Conflict' || err.reason === 'NotFound'))) throw err;
    }
  };

  const sync = async (name: string): Promise<void> => {
    const crd = known.get(name);
    if (crd === undefined) return;
    if (crd.metadata.deletionTimestamp != null) {
      if ((crd.metadata.finalizers ?? []).includes(finalizer)) await finalize(crd);
      return;
    }
    await syncNames(crd);
  };

  const drain = async (): Promise<void> => {
    for (const name of queue) {
      queue.delete(name);
      if (abort.signal.aborted) return;
      try {
        await sync(name);
      } catch (err) {
        if (abort.signal.aborted) return;
        o.onError?.(err, name);
        void sleep(retryMs, undefined, { signal: abort.signal, ref: false }).then(() => enqueue(name), () => undefined);
      }
    }
  };

  const enqueue = (name: string): void => {
    if (abort.signal.aborted) return;
    queue.add(name);
    draining ??= drain().finally(() => {
      draining = undefined;
      if (queue.size > 0) enqueue(queue.values().next().value!);
    });
  };

  // ---- following the definitions ----

  const seen = (crd: KubeObject): void => {
    const name = crd.metadata.name ?? '';
    known.set(name, crd);
    serve(name);
    enqueue(name);
  };
  const gone = (name: string): void => {
    known.delete(name);
    serve(name);
    // Names the definition held are free now: others of its group may take what they asked for.
    for (const other of known.keys()) enqueue(other);
  };

  const following = (async () => {
    while (!abort.signal.aborted) {
      /** Names in the state sent at (re)start, to drop those deleted while no watch ran. */
      let initial: Set<string> | undefined = new Set();
      try {
        const watcher = cache.watch({ keyPrefix, start: { kind: 'state', revision: 0 }, initialEventsEndBookmark: true, signal: abort.signal });
        for await (const ev of watcher) {
          if (ev.type === 'BOOKMARK') {
            if (initial !== undefined) {
              for (const name of [...known.keys()]) if (!initial.has(name)) gone(name);
              initial = undefined;
              markSynced();
            }
            continue;
          }
          const crd = ev.object.object;
          initial?.add(crd.metadata.name ?? '');
          if (ev.type === 'DELETED') gone(crd.metadata.name ?? '');
          else seen(crd);
        }
      } catch (err) {
        if (abort.signal.aborted) break;
        o.onError?.(err);
      }
      if (abort.signal.aborted) break;
      await sleep(retryMs, undefined, { signal: abort.signal, ref: false }).catch(() => undefined);
    }
  })();

  return {
    synced: () => syncedPromise,
    async stop() {
      abort.abort();
      markSynced();
      await following;
      await draining;
    },
  };
}

/** The kind as served while its definition is Terminating: create is 405 with Kubernetes' message. */
function refusingCreate(kind: KindStrategy): KindStrategy {
  return Object.freeze({
    ...kind,
    admit(obj: KubeObject, old: KubeObject | undefined, ctx: Parameters<NonNullable<KindStrategy['admit']>>[2]) {
      if (old === undefined) {
        throw new StatusError('MethodNotAllowed', 'create not allowed while custom resource definition is terminating', { group: kind.group, kind: kind.resource });
      }
      kind.admit?.(obj, old, ctx);
    },
  });
}
