/**
 * The store after the fuzz is the store before it plus what 2xx answers acknowledged, and nothing else.
 *
 * Both backends keep every revision (compaction is off, server-process.ts), so the check reads the history
 * itself through the Store contract (storage/interface.ts), the same code for etcd and the embedded store:
 * the keys at the revision the fuzz started from, the keys at the end, and every event in between. A key
 * without events is byte-identical (that is what a revision-based store promises, and the before/after
 * listings confirm it); every event must be explained:
 *
 * - `acknowledged`: a 2xx write (not a dry run) of the same object whose answer carried the event's
 *   revision as its resourceVersion (or, when the answer could not be read, a 2xx write of the object);
 * - `acknowledged delete`: a 2xx DELETE of the object, or a 2xx deletecollection of its collection;
 * - a follow-up of the server's own controllers, each rule named (leader election lease renewals; the
 *   `default` ServiceAccount of a namespace the fuzz created; the namespace controller emptying a
 *   namespace the fuzz deleted, and its Events; status written by a controller on an object the fuzz
 *   wrote; service IP and port allocations of a Service the fuzz wrote; the workload controllers and the
 *   garbage collector, by the rules of controller-rules.ts).
 *
 * Anything else is a finding: a write that a 4xx answered but the store kept, or one no request made.
 * Acknowledged writes must also be in the history (no answer claims a revision the store does not hold).
 */
import { openStore, type StoreConfig } from '../../storage/open-store.js';
import type { KeyValue, Store } from '../../storage/interface.js';
import type { Ack, Attempt } from './runner.js';
import { controllerRule, History } from './controller-rules.js';

/** Kinds an in-server controller writes after a client's write (in-server-controllers.ts, apiextensions/, aggregator/). */
const CONTROLLED = new Set(['customresourcedefinitions', 'apiservices', 'validatingadmissionpolicies', 'certificatesigningrequests', 'namespaces', 'clusterroles', 'serviceaccounts',
  // Workload status, and the `/scale` the HPA controller writes to its targets (issue 19).
  'jobs', 'replicationcontrollers', 'statefulsets', 'horizontalpodautoscalers', 'persistentvolumeclaims']);

export interface KeyId {
  readonly resource: string;
  readonly namespace?: string;
  readonly name: string;
}

/** `<prefix>/<resource>/[<ns>/]<name>`, custom resources `<prefix>/<group>/<resource>/[<ns>/]<name>`. */
export function keyId(prefix: string, key: string, namespaced: (resource: string) => boolean | undefined): KeyId | undefined {
  const segs = key.slice(prefix.length + 1).split('/');
  let rest = segs;
  let resource = segs[0]!;
  if (resource.includes('.') && segs.length >= 3) {
    resource = segs[1]!;
    rest = segs.slice(2);
  } else rest = segs.slice(1);
  const ns = namespaced(resource);
  if (rest.length === 2 && ns !== false) return { resource, namespace: rest[0]!, name: rest[1]! };
  if (rest.length === 1 && ns !== true) return { resource, name: rest[0]! };
  return undefined;
}

const idString = (id: KeyId): string => `${id.resource}|${id.namespace ?? ''}|${id.name}`;

async function listAll(store: Store, prefix: string, revision?: number): Promise<Map<string, KeyValue>> {
  const out = new Map<string, KeyValue>();
  let startKey: string | undefined;
  let at = revision;
  for (;;) {
    const page = await store.list(`${prefix}/`, { ...(at === undefined ? {} : { revision: at }), ...(startKey === undefined ? {} : { startKey }), limit: 1000 });
    for (const kv of page.items) out.set(kv.key, kv);
    at = page.revision;
    if (!page.more || page.items.length === 0) return out;
    startKey = `${page.items[page.items.length - 1]!.key}\u0000`;
  }
}

export interface StoreCheckResult {
  readonly startRevision: number;
  readonly endRevision: number;
  readonly keysBefore: number;
  readonly keysAfter: number;
  /** Keys whose bytes differ (or that appeared / disappeared) between the start and the end. */
  readonly changedKeys: number;
  readonly events: number;
  /** Events per explanation. */
  readonly explained: Map<string, number>;
  readonly unexplained: string[];
  /** Acknowledged revisions the history does not hold for that object. */
  readonly phantomAcks: string[];
  /** Changed keys without any event (cannot happen in a revision store; checked anyway). */
  readonly changedWithoutEvents: string[];
}

interface Event {
  readonly type: 'put' | 'delete';
  readonly key: string;
  readonly revision: number;
  readonly value: Uint8Array;
  readonly prev?: Uint8Array;
}

function decodeJson(value: Uint8Array | undefined): any {
  if (value === undefined || value.length === 0 || value[0] !== 0x7b) return undefined;
  try {
    return JSON.parse(Buffer.from(value).toString('utf8'));
  } catch {
    return undefined;
  }
}

export async function checkStore(
  config: StoreConfig,
  prefix: string,
  startRevision: number,
  acks: readonly Ack[],
  attempts: readonly Attempt[],
  namespaced: (resource: string) => boolean | undefined,
  systemNamespace: string,
): Promise<StoreCheckResult> {
  const store = await openStore(config);
  try {
    const endRevision = await store.currentRevision();
    const before = await listAll(store, prefix, startRevision);
    const after = await listAll(store, prefix, endRevision);
    const events: Event[] = [];
    if (endRevision > startRevision) {
      // The last revisions may be outside the prefix: progress batches say when the watch has caught up.
      const progress = setInterval(() => void store.requestProgress().catch(() => undefined), 300);
      try {
        for await (const batch of store.watch(`${prefix}/`, { fromRevision: startRevision + 1 })) {
          for (const e of batch.events) {
            if (e.kv.modRevision > endRevision) continue;
            events.push({ type: e.type, key: e.kv.key, revision: e.kv.modRevision, value: e.kv.value, ...(e.prev === undefined ? {} : { prev: e.prev.value }) });
          }
          if (batch.revision >= endRevision) break;
        }
      } finally {
        clearInterval(progress);
      }
    }

    // What the 2xx answers acknowledged, by object and by collection.
    const byId = new Map<string, Ack[]>();
    const collections = new Map<string, Ack[]>();
    const deletedNamespaces = new Set<string>();
    const createdNamespaces = new Set<string>(['fz-ns-0', 'fz-ns-1', 'fz-0']);
    for (const a of acks) {
      const t = a.target;
      if (t === undefined) continue;
      const namespace = t.namespace;
      if (t.collection && a.method === 'DELETE') {
        const k = `${t.resource}|${namespace ?? ''}`;
        collections.set(k, [...(collections.get(k) ?? []), a]);
        continue;
      }
      const name = t.collection ? a.name : t.name;
      if (name === undefined) {
        // A create whose answer could not be read: any object of the collection.
        const k = `${t.resource}|${namespace ?? ''}`;
        collections.set(k, [...(collections.get(k) ?? []), a]);
        continue;
      }
      const id = idString({ resource: t.resource, ...(namespace === undefined ? {} : { namespace }), name });
      byId.set(id, [...(byId.get(id) ?? []), a]);
      if (t.resource === 'namespaces' && a.method === 'DELETE') deletedNamespaces.add(name);
      if (t.resource === 'namespaces' && a.method !== 'DELETE') createdNamespaces.add(name);
    }

    // Service writes allocate and release cluster IPs and node ports in their own keys (and the repair
    // controller frees leftovers); custom resources go when their definition is deleted.
    const servicesWritten = acks.some((a) => a.target?.resource === 'services');
    const deletedCrds = new Set<string>();
    const allCrdsMayGo = acks.some((a) => a.target?.resource === 'customresourcedefinitions' && a.method === 'DELETE' && a.target.collection);
    for (const a of acks) if (a.target?.resource === 'customresourcedefinitions' && a.method === 'DELETE' && a.target.name !== undefined) deletedCrds.add(a.target.name);
    if (allCrdsMayGo) deletedCrds.add('widgets.suite.example.com');
    // The requests to an object around a revision: between the acknowledged writes just before and just
    // after it (their request indexes bracket the unexplained write's request), with a margin for concurrency.
    const ackedRevisions = acks.filter((a) => a.resourceVersion !== undefined && Number.isInteger(Number(a.resourceVersion)))
      .map((a) => ({ rv: Number(a.resourceVersion), index: a.index })).sort((a, b) => a.rv - b.rv);
    const requestsTo = (id: KeyId, revision: number): string => {
      const before = ackedRevisions.filter((a) => a.rv < revision).at(-1)?.index ?? 0;
      const after = ackedRevisions.find((a) => a.rv > revision)?.index ?? Number.MAX_SAFE_INTEGER;
      const [lo, hi] = [Math.min(before, after) - 100, Math.max(before, after) + 100];
      return attempts
        .filter((t) => t.index >= lo && t.index <= hi && t.target?.resource === id.resource && (t.target.namespace ?? '') === (id.namespace ?? '') && (t.target.name === id.name || t.target.collection))
        .map((t) => `#${t.index} ${t.method}${t.target?.collection ? ' (collection)' : ''}${t.dryRun ? ' dryRun' : ''} -> ${t.status}`).join(', ');
    };
    // Every version of every object, for the rules that ask what an owner looked like at a revision.
    const history = new History();
    for (const kv of before.values()) {
      const id = keyId(prefix, kv.key, namespaced);
      const v = decodeJson(kv.value);
      if (id !== undefined && typeof v?.metadata?.uid === 'string') history.record(id.resource, v.metadata.uid, 0, v);
    }
    for (const e of events) {
      const id = keyId(prefix, e.key, namespaced);
      const v = decodeJson(e.type === 'put' ? e.value : e.prev);
      if (id !== undefined && typeof v?.metadata?.uid === 'string') history.record(id.resource, v.metadata.uid, e.revision, e.type === 'put' ? v : undefined);
    }

    const explained = new Map<string, number>();
    const unexplained: string[] = [];
    const touchedByAck = new Set<string>();
    const count = (why: string): void => {
      explained.set(why, (explained.get(why) ?? 0) + 1);
    };
    for (const e of events) {
      const id = keyId(prefix, e.key, namespaced);
      const ids = id === undefined ? undefined : idString(id);
      const own = ids === undefined ? [] : byId.get(ids) ?? [];
      const inCollection = id === undefined ? [] : collections.get(`${id.resource}|${id.namespace ?? ''}`) ?? [];
      const value = decodeJson(e.type === 'put' ? e.value : e.prev);
      const why = ((): string | undefined => {
        if (id === undefined) return undefined;
        if (e.type === 'put') {
          if (own.some((a) => a.resourceVersion === String(e.revision))) return 'acknowledged';
          if (own.some((a) => a.resourceVersion === undefined && a.method !== 'DELETE')) return 'acknowledged (answer not read)';
          if (own.some((a) => a.method === 'DELETE') || inCollection.length > 0) {
            // A graceful delete writes deletionTimestamp first (the answer is the object with it).
            if (value?.metadata?.deletionTimestamp !== undefined) return 'acknowledged delete (marked for deletion)';
          }
          if (inCollection.some((a) => a.method === 'POST' && a.resourceVersion === String(e.revision))) return 'acknowledged';
          if (inCollection.some((a) => a.method === 'POST' && a.resourceVersion === undefined)) return 'acknowledged (answer not read)';
        } else {
          if (own.some((a) => a.method === 'DELETE')) return 'acknowledged delete';
          if (inCollection.some((a) => a.method === 'DELETE' && (a.items === undefined || a.items.some((i) => i.name === id.name)))) return 'acknowledged delete';
        }
        // The server's own writes.
        if (id.resource === 'leases' && id.namespace === systemNamespace) return 'controller: leader election';
        if (id.resource === 'masterleases') return 'controller: this replica\'s identity record';
        if (id.resource === 'ranges' && servicesWritten) return 'controller: service IP and port allocation';
        if (e.type === 'delete' && deletedCrds.has(`${e.key.slice(prefix.length + 1).split('/')[1]}.${e.key.slice(prefix.length + 1).split('/')[0]}`)) {
          return 'controller: custom resources of a deleted definition';
        }
        if (id.namespace !== undefined && deletedNamespaces.has(id.namespace)) return 'controller: namespace deletion empties it';
        if (id.resource === 'namespaces' && deletedNamespaces.has(id.name)) return 'controller: namespace deletion finalizes it';
        if (id.resource === 'serviceaccounts' && id.name === 'default' && id.namespace !== undefined && createdNamespaces.has(id.namespace)) return 'controller: default ServiceAccount';
        if (id.resource === 'events' && value?.source?.component !== undefined && value?.reportingComponent !== 'fuzz') {
          if (id.namespace !== undefined && (createdNamespaces.has(id.namespace) || deletedNamespaces.has(id.namespace))) return 'controller: event recorded';
          // Events about a namespace (cluster-scoped: recorded in `default`) the fuzz created or deleted.
          const about = value?.involvedObject;
          if (about?.kind === 'Namespace' && (createdNamespaces.has(about.name) || deletedNamespaces.has(about.name))) return 'controller: event recorded';
        }
        // Status the in-server controllers write on objects the fuzz wrote (conditions, approval, signing,
        // aggregation, finalization): only for kinds that have such a controller.
        if (own.length > 0 && e.type === 'put' && touchedByAck.has(ids!) && CONTROLLED.has(id.resource)) return `controller: status of an acknowledged ${id.resource}`;
        return controllerRule({
          type: e.type, resource: id.resource, ...(id.namespace === undefined ? {} : { namespace: id.namespace }), name: id.name, revision: e.revision,
          value, prev: e.type === 'put' ? decodeJson(e.prev) : undefined,
        }, history);
      })();
      if (why === undefined) {
        const v = e.type === 'put' ? e.value : e.prev;
        // The owners first: a controller's write is judged by them, and they may be past the cut.
        const owners = value?.metadata?.ownerReferences === undefined ? '' : ` (ownerReferences ${JSON.stringify(value.metadata.ownerReferences)})`;
        unexplained.push(`${e.type} ${e.key} at ${e.revision}${owners} (requests around it: ${id === undefined ? '?' : requestsTo(id, e.revision) || 'none'}): ${Buffer.from(v ?? new Uint8Array()).subarray(0, 600).toString('utf8')}`);
      } else count(why);
      if (ids !== undefined && why !== undefined && why.startsWith('acknowledged')) touchedByAck.add(ids);
    }

    // Every acknowledged revision newer than the start is an event of that object.
    const eventAt = new Map<number, Event[]>();
    for (const e of events) eventAt.set(e.revision, [...(eventAt.get(e.revision) ?? []), e]);
    const phantomAcks: string[] = [];
    for (const a of acks) {
      if (a.resourceVersion === undefined || a.method === 'DELETE' || a.target === undefined || a.target.collection && a.method !== 'POST') continue;
      const rv = Number(a.resourceVersion);
      if (!Number.isInteger(rv) || rv <= startRevision) continue;
      const name = a.target.collection ? a.name : a.target.name;
      const match = (eventAt.get(rv) ?? []).some((e) => {
        const id = keyId(prefix, e.key, namespaced);
        return id !== undefined && id.resource === a.target!.resource && id.name === name;
      });
      if (!match) {
        const there = (eventAt.get(rv) ?? []).map((e) => `${e.type} ${e.key}`).join(', ') || 'no event';
        phantomAcks.push(`#${a.index} ${a.method} ${a.path} -> ${a.status} ${a.kind ?? ''} ${a.namespace ?? ''}/${a.name ?? ''} resourceVersion ${a.resourceVersion} (at that revision: ${there})`);
      }
    }

    const changed = new Set<string>();
    for (const [k, kv] of before) {
      const now = after.get(k);
      if (now === undefined || Buffer.compare(Buffer.from(now.value), Buffer.from(kv.value)) !== 0) changed.add(k);
    }
    for (const k of after.keys()) if (!before.has(k)) changed.add(k);
    const withEvents = new Set(events.map((e) => e.key));
    return {
      startRevision, endRevision, keysBefore: before.size, keysAfter: after.size, changedKeys: changed.size, events: events.length,
      explained, unexplained, phantomAcks, changedWithoutEvents: [...changed].filter((k) => !withEvents.has(k)),
    };
  } finally {
    await store.close();
  }
}
