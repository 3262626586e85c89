/**
 * The `serviceaccount` controller (kube-controller-manager's, run in-server): every active namespace has a
 * ServiceAccount named `default`, so pods, `kubectl create token default` and clients that assume it find
 * it. A namespace that appears (or comes back to Active) gets one; a `default` that is deleted is created
 * again. A Terminating namespace is left alone (the write would be refused, and the namespace controller is
 * emptying it).
 *
 * Event-driven, like kube's informers: it follows the namespaces' and the service accounts' watch caches
 * (the current state first, then changes) and queues the namespaces to look at; one worker drains the
 * queue, reading the service account from the cache and creating it only when it is missing there (the
 * namespace is then read from the store, so a lagging cache never fills a namespace being deleted). A
 * create that loses a race (AlreadyExists), or meets a namespace being deleted or already gone, is not an
 * error. A watch that ends starts again from the current state, which looks at every namespace again.
 *
 * Runs on the leader replica only (leader-election.ts); `stop()` ends the watches and waits for the worker.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeObject } from '../../api/object.js';
import { StatusError } from '../../errors/status-error.js';
import type { GenericRegistry } from '../../registry/generic/generic-registry.js';

/** The service accounts every namespace gets (kube's default list). */
export const DEFAULT_SERVICE_ACCOUNTS: readonly string[] = Object.freeze(['default']);

/** The field manager of the controller's creates (kube-controller-manager's; an account with only a name gets no managedFields entry). */
export const SERVICE_ACCOUNTS_FIELD_MANAGER = 'kube-controller-manager';

export interface ServiceAccountsControllerOptions {
  /** The namespaces registry (with its watch cache). */
  readonly namespaces: GenericRegistry;
  /** The serviceaccounts registry (with its watch cache). */
  readonly serviceAccounts: GenericRegistry;
  /** Default DEFAULT_SERVICE_ACCOUNTS. */
  readonly names?: readonly string[];
  readonly onCreated?: (namespace: string, name: string) => void;
  readonly onError?: (err: unknown) => void;
  /** Wait before watching again after a watch failed. Default 1 s. */
  readonly retryMs?: number;
}

export interface ServiceAccountsController {
  stop(): Promise<void>;
}

const isActive = (ns: KubeObject): boolean =>
  ns.metadata.deletionTimestamp == null && (ns.status as { phase?: string } | undefined)?.phase !== 'Terminating';

/** Refusals that mean "nothing to do": created meanwhile, namespace terminating (403) or gone (404). */
const benign = (err: unknown): boolean =>
  err instanceof StatusError && (err.reason === 'AlreadyExists' || err.reason === 'Forbidden' || err.reason === 'NotFound');

export function startServiceAccountsController(o: ServiceAccountsControllerOptions): ServiceAccountsController {
  const nsCache = o.namespaces.context.cache;
  const saCache = o.serviceAccounts.context.cache;
  if (nsCache === undefined || saCache === undefined) throw new Error('the serviceaccount controller needs the namespaces and serviceaccounts watch caches');
  const nsKeys = o.namespaces.context.keys;
  const saKeys = o.serviceAccounts.context.keys;
  const wanted = o.names ?? DEFAULT_SERVICE_ACCOUNTS;
  const abort = new AbortController();

  /** Namespaces to look at, in arrival order, each once. */
  const queue = new Set<string>();
  let draining: Promise<void> | undefined;

  const sync = async (namespace: string): Promise<void> => {
    const ns = (await nsCache.get(nsKeys.objectKey('', namespace), 0)).object?.object;
    if (ns === undefined || !isActive(ns)) return;
    let checked = false;
    for (const name of wanted) {
      if (abort.signal.aborted) return;
      if ((await saCache.get(saKeys.objectKey(namespace, name), 0)).object !== undefined) continue;
      try {
        // The registry has no namespace lifecycle check (that is the create handler's), so the namespace
        // is read from the store before the first create: a lagging cache must not recreate content in a
        // namespace that is already being deleted or gone.
        if (!checked && !isActive(await o.namespaces.get('', namespace, { resourceVersion: '' }))) return;
        checked = true;
        await o.serviceAccounts.create(
          namespace,
          { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } },
          { fieldManager: SERVICE_ACCOUNTS_FIELD_MANAGER },
        );
        o.onCreated?.(namespace, name);
      } catch (err) {
        if (!benign(err)) throw err;
      }
    }
  };

  const drain = async (): Promise<void> => {
    for (const namespace of queue) {
      queue.delete(namespace);
      if (abort.signal.aborted) return;
      try {
        await sync(namespace);
      } catch (err) {
        if (!abort.signal.aborted) o.onError?.(err);
      }
    }
  };

  const enqueue = (namespace: string): void => {
    if (namespace === '' || abort.signal.aborted) return;
    queue.add(namespace);
    draining ??= drain().finally(() => (draining = undefined));
  };

  /** Follows one watch cache from its current state; `onEvent` sees every change; restarts when the watch ends. */
  const follow = async (cache: typeof nsCache, keyPrefix: string, onEvent: (type: string, obj: KubeObject) => void): Promise<void> => {
    while (!abort.signal.aborted) {
      try {
        for await (const ev of cache.watch({ keyPrefix, start: { kind: 'state', revision: 0 }, signal: abort.signal })) {
          if (ev.type !== 'BOOKMARK') onEvent(ev.type, ev.object.object);
        }
      } catch (err) {
        if (abort.signal.aborted) return;
        o.onError?.(err);
      }
      if (abort.signal.aborted) return;
      await sleep(o.retryMs ?? 1000, undefined, { signal: abort.signal, ref: false }).catch(() => undefined);
    }
  };

  const following = Promise.all([
    follow(nsCache, nsKeys.collectionPrefix(''), (type, ns) => {
      if (type !== 'DELETED') enqueue(ns.metadata.name ?? '');
    }),
    follow(saCache, saKeys.collectionPrefix(''), (type, sa) => {
      if (type === 'DELETED' && wanted.includes(sa.metadata.name ?? '')) enqueue(sa.metadata.namespace ?? '');
    }),
  ]);

  return {
    async stop() {
      abort.abort();
      await following;
      await draining;
    },
  };
}
