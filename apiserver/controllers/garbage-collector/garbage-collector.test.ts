/**
 * The garbage collector over the built-in kinds on an embedded store with watch caches (and a custom
 * resource served from a CRD as the CRD controller serves it): a table of owner graphs (chains, diamonds,
 * cross-namespace, cluster-scoped owners, custom resources) × the three policies, each ending in the state
 * Kubernetes reaches; blockOwnerDeletion; dangling and replaced owners; unknown kinds; a cluster-scoped
 * dependent of a namespaced owner; and collectors stopped and started mid-way (a leader change) that lose
 * nothing and delete nothing they should not.
 */
import type { KubeObject, OwnerReference } from '../../api/object.js';
import { createEventRecorder } from '../../events/event-recorder.js';
import { naming } from '../../naming/naming.js';
import { openServedStore, type ServedStore } from '../testing/served-store.js';
import { startGarbageCollector, type GarbageCollector } from './garbage-collector.js';
import { RestMappingError } from './owner-resolver.js';
import { transientObject } from '../../../storage/cache/cache-entry.js';
import { createObject, crdOf, dropFinalizer, KINDS, live, refTo, registryOf, serveCrd, until, type KindName } from './testing.js';

const names = naming('k8s.io');
const HOLD = 'example.com/hold';
let store: ServedStore;
let collectors: GarbageCollector[];
let errors: unknown[];

beforeEach(async () => {
  store = await openServedStore(names);
  collectors = [];
  errors = [];
});
afterEach(async () => {
  for (const gc of collectors) await gc.stop();
  await store.close();
});

/** Starts a collector (a new leader term). */
function startCollector(workers?: number): GarbageCollector {
  const events = store.served.lookup('', 'v1', 'events')!.registry;
  const gc = startGarbageCollector({
    resources: store.served,
    rewatchDelayMs: 20,
    naming: names,
    recorder: createEventRecorder({ events, component: 'garbage-collector-controller' }),
    onError: (err) => errors.push(err),
    resyncPeriodMs: 20,
    baseDelayMs: 5,
    maxDelayMs: 100,
    ...(workers === undefined ? {} : { workers }),
  });
  collectors.push(gc);
  return gc;
}

async function stopCollector(gc: GarbageCollector): Promise<void> {
  collectors.splice(collectors.indexOf(gc), 1);
  await gc.stop();
}

const observed = (gc: GarbageCollector, obj: KubeObject): boolean => gc.graph.nodes.get(obj.metadata.uid!)?.observed === true;

/**
 * Proves the collector took up work after everything before: a dependent of an owner that never existed,
 * created now, is collected.
 */
async function sentinel(name: string): Promise<void> {
  await createObject(store.served, KINDS.ConfigMap, 'sentinel', name, [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'never', uid: `never-${name}` }]);
  await until(`sentinel ${name} collected`, async () => (await live(store.served, KINDS.ConfigMap, 'sentinel', name)) === undefined);
}

interface NodeSpec {
  readonly key: string;
  readonly kind: KindName;
  readonly ns?: 'a' | 'b';
  readonly owners?: readonly string[];
  /** Names its owner from another namespace: collected whatever the policy. */
  readonly invalid?: boolean;
}

interface GraphCase {
  readonly name: string;
  readonly crd?: boolean;
  /** The first node is the one deleted; owners come before their dependents. */
  readonly nodes: readonly NodeSpec[];
}

const GRAPHS: readonly GraphCase[] = [
  {
    name: 'chain',
    nodes: [
      { key: 'a', kind: 'ConfigMap' },
      { key: 'b', kind: 'Secret', owners: ['a'] },
      { key: 'c', kind: 'ConfigMap', owners: ['b'] },
      { key: 'd', kind: 'Secret', owners: ['c'] },
    ],
  },
  {
    name: 'diamond',
    nodes: [
      { key: 'a', kind: 'ConfigMap' },
      { key: 'b', kind: 'Secret', owners: ['a'] },
      { key: 'c', kind: 'ConfigMap', owners: ['a'] },
      { key: 'd', kind: 'Secret', owners: ['b', 'c'] },
      { key: 'k', kind: 'ConfigMap' },
      // Owned by the diamond's sides and by an independent owner: survives, losing the sides' references.
      { key: 'e', kind: 'ConfigMap', owners: ['b', 'c', 'k'] },
    ],
  },
  {
    name: 'cross-namespace',
    nodes: [
      { key: 'a', kind: 'ConfigMap' },
      { key: 'b', kind: 'Secret', owners: ['a'] },
      { key: 'x', kind: 'ConfigMap', ns: 'b', owners: ['a'], invalid: true },
    ],
  },
  {
    name: 'cluster-owner',
    nodes: [
      { key: 'r', kind: 'ClusterRole' },
      { key: 'b', kind: 'ConfigMap', owners: ['r'] },
      { key: 'c', kind: 'ConfigMap', ns: 'b', owners: ['r'] },
      { key: 'd', kind: 'Secret', ns: 'b', owners: ['c'] },
    ],
  },
  {
    name: 'custom-resources',
    crd: true,
    nodes: [
      { key: 'a', kind: 'CronTab' },
      { key: 'b', kind: 'CronTab', owners: ['a'] },
      { key: 'c', kind: 'ConfigMap', owners: ['b'] },
      { key: 'd', kind: 'Secret', owners: ['a'] },
    ],
  },
];

type Policy = 'Background' | 'Foreground' | 'Orphan';

/** What Kubernetes leaves: the nodes collected, and the owner keys each survivor still names. */
function expected(g: GraphCase, policy: Policy): { collected: Set<string>; owners: Map<string, string[]> } {
  const root = g.nodes[0]!.key;
  const collected = new Set<string>([root]);
  for (const n of g.nodes.slice(1)) {
    if (n.invalid === true) collected.add(n.key);
    else if (policy !== 'Orphan' && (n.owners ?? []).length > 0 && n.owners!.every((o) => collected.has(o))) collected.add(n.key);
  }
  const owners = new Map<string, string[]>();
  for (const n of g.nodes) {
    if (collected.has(n.key)) continue;
    owners.set(n.key, (n.owners ?? []).filter((o) => (policy === 'Orphan' ? o !== root : !collected.has(o))));
  }
  return { collected, owners };
}

test('the monitors keep no copy of the objects: one only the collector reads stays undecoded in the watch cache', async () => {
  const owner = await createObject(store.served, KINDS.ConfigMap, 'ns', 'owner');
  const dep = await createObject(store.served, KINDS.Secret, 'ns', 'dep', [refTo(owner, KINDS.ConfigMap)]);
  const gc = startCollector();
  await gc.synced();
  const later = await createObject(store.served, KINDS.ConfigMap, 'ns', 'later');
  await until('later observed', () => observed(gc, later));
  const node = gc.graph.nodes.get(dep.metadata.uid!)!;
  expect(node.identity).toEqual({ apiVersion: 'v1', kind: 'Secret', name: 'dep', namespace: 'ns', uid: dep.metadata.uid });
  expect(node.owners).toEqual([refTo(owner, KINDS.ConfigMap)]);
  expect([...gc.graph.nodes.get(owner.metadata.uid!)!.dependents]).toEqual([node]);
  // Each transient read decodes anew: the cache still holds bytes, for objects seen at the first state and after it.
  for (const [k, name] of [[KINDS.ConfigMap, 'owner'], [KINDS.Secret, 'dep'], [KINDS.ConfigMap, 'later']] as const) {
    const registry = registryOf(store.served, k);
    const cached = registry.context.cache!.peek(registry.context.keys.objectKey('ns', name))!;
    expect(transientObject(cached)).not.toBe(transientObject(cached));
  }
});

describe.each(GRAPHS)('graph $name', (g) => {
  test.each<Policy>(['Background', 'Foreground', 'Orphan'])('deleted with %s ends as Kubernetes ends', async (policy) => {
    if (g.crd === true) serveCrd(store.served, crdOf('stable.example.com', 'CronTab', 'crontabs'), names);
    const gc = startCollector();
    const nsOf = (n: NodeSpec): string => `${g.name}-${n.ns ?? 'a'}`;
    const objs = new Map<string, KubeObject>();
    const refsByUid = new Map<string, string>();
    for (const n of g.nodes) {
      const refs = (n.owners ?? []).map((o) => refTo(objs.get(o)!, KINDS[g.nodes.find((x) => x.key === o)!.kind]));
      const obj = await createObject(store.served, KINDS[n.kind], nsOf(n), `${g.name}-${n.key}`, refs);
      objs.set(n.key, obj);
      refsByUid.set(obj.metadata.uid!, n.key);
    }
    const get = (n: NodeSpec) => live(store.served, KINDS[n.kind], nsOf(n), `${g.name}-${n.key}`);

    // A dependent naming an owner of another namespace is collected at once, and reported.
    for (const n of g.nodes.filter((x) => x.invalid === true)) {
      await until(`${n.key} collected`, async () => (await get(n)) === undefined);
      const owner = objs.get(n.owners![0]!)!;
      const message = `ownerRef [v1/ConfigMap, namespace: ${nsOf(n)}, name: ${owner.metadata.name}, uid: ${owner.metadata.uid}] does not exist in namespace "${nsOf(n)}"`;
      await until('OwnerRefInvalidNamespace event', async () => {
        const events = await store.served.lookup('', 'v1', 'events')!.registry.list(nsOf(n));
        return events.items.some((e) => e.reason === 'OwnerRefInvalidNamespace' && e.type === 'Warning' && e.message === message
          && (e.involvedObject as { uid?: string }).uid === objs.get(n.key)!.metadata.uid);
      });
    }
    await until('graph observed', () => g.nodes.every((n) => n.invalid === true || observed(gc, objs.get(n.key)!)));

    const root = g.nodes[0]!;
    const answer = await registryOf(store.served, KINDS[root.kind]).delete(nsOf(root), `${g.name}-${root.key}`, { propagationPolicy: policy });
    expect(answer.deleted).toBe(policy === 'Background');
    if (policy !== 'Background') {
      expect((await get(root))?.metadata.finalizers).toEqual([policy === 'Orphan' ? 'orphan' : 'foregroundDeletion']);
    }

    const want = expected(g, policy);
    await until(`${root.key} gone`, async () => (await get(root)) === undefined);
    if (policy === 'Foreground') {
      // The owner went last: every dependent collected through blocking references was gone before it.
      for (const n of g.nodes.filter((x) => x.key !== root.key && want.collected.has(x.key))) expect(await get(n)).toBeUndefined();
    }
    const settled = async (): Promise<boolean> => {
      for (const n of g.nodes) {
        const obj = await get(n);
        if (want.collected.has(n.key)) {
          if (obj !== undefined) return false;
          continue;
        }
        if (obj === undefined || obj.metadata.deletionTimestamp !== undefined) return false;
        const keys = (obj.metadata.ownerReferences ?? []).map((r) => refsByUid.get(r.uid));
        if (JSON.stringify(keys) !== JSON.stringify(want.owners.get(n.key))) return false;
      }
      return true;
    };
    await until(`${policy} settled`, settled);
    await sentinel('after');
    expect(await settled()).toBe(true);
    expect(errors).toEqual([]);
  });
});

test('Foreground waits for blocking dependents only; the owner goes once they are gone', async () => {
  const gc = startCollector();
  const cm = KINDS.ConfigMap;
  const owner = await createObject(store.served, cm, 'ns', 'owner');
  const blocking = await createObject(store.served, KINDS.Secret, 'ns', 'blocking', [refTo(owner, cm, true)], [HOLD]);
  const loose = await createObject(store.served, cm, 'ns', 'loose', [refTo(owner, cm, false)], [HOLD]);
  await until('observed', () => [owner, blocking, loose].every((o) => observed(gc, o)));
  await registryOf(store.served, cm).delete('ns', 'owner', { propagationPolicy: 'Foreground' });
  // Both dependents are deleted (each kept by its own finalizer).
  await until('dependents marked', async () => (await live(store.served, KINDS.Secret, 'ns', 'blocking'))?.metadata.deletionTimestamp !== undefined
    && (await live(store.served, cm, 'ns', 'loose'))?.metadata.deletionTimestamp !== undefined);
  await dropFinalizer(store.served, cm, 'ns', 'loose', HOLD);
  await until('loose gone', async () => (await live(store.served, cm, 'ns', 'loose')) === undefined);
  await sentinel('s1');
  expect((await live(store.served, cm, 'ns', 'owner'))?.metadata.finalizers).toEqual(['foregroundDeletion']);
  await dropFinalizer(store.served, KINDS.Secret, 'ns', 'blocking', HOLD);
  await until('owner gone', async () => (await live(store.served, cm, 'ns', 'owner')) === undefined);
});

test('a non-blocking dependent does not hold a foreground deletion', async () => {
  const gc = startCollector();
  const cm = KINDS.ConfigMap;
  const owner = await createObject(store.served, cm, 'ns', 'owner');
  const loose = await createObject(store.served, cm, 'ns', 'loose', [refTo(owner, cm, false)], [HOLD]);
  await until('observed', () => observed(gc, owner) && observed(gc, loose));
  await registryOf(store.served, cm).delete('ns', 'owner', { propagationPolicy: 'Foreground' });
  await until('owner gone', async () => (await live(store.served, cm, 'ns', 'owner')) === undefined);
  expect((await live(store.served, cm, 'ns', 'loose'))?.metadata.deletionTimestamp).toBeDefined();
});

test('a second DELETE with Orphan turns a waiting foreground deletion into orphaning', async () => {
  const gc = startCollector();
  const cm = KINDS.ConfigMap;
  const owner = await createObject(store.served, cm, 'ns', 'owner');
  const held = await createObject(store.served, cm, 'ns', 'held', [refTo(owner, cm)], [HOLD]);
  await until('observed', () => observed(gc, owner) && observed(gc, held));
  await registryOf(store.served, cm).delete('ns', 'owner', { propagationPolicy: 'Foreground' });
  await until('held marked', async () => (await live(store.served, cm, 'ns', 'held'))?.metadata.deletionTimestamp !== undefined);
  await registryOf(store.served, cm).delete('ns', 'owner', { propagationPolicy: 'Orphan' });
  await until('owner gone', async () => (await live(store.served, cm, 'ns', 'owner')) === undefined);
  expect((await live(store.served, cm, 'ns', 'held'))?.metadata.ownerReferences).toBeUndefined();
});

test('deletecollection with Orphan orphans the dependents of each item', async () => {
  const gc = startCollector();
  const cm = KINDS.ConfigMap;
  const o1 = await createObject(store.served, cm, 'owners', 'o1');
  const o2 = await createObject(store.served, cm, 'owners', 'o2');
  const d1 = await createObject(store.served, KINDS.Secret, 'owners', 'd1', [refTo(o1, cm)]);
  const d2 = await createObject(store.served, KINDS.Secret, 'owners', 'd2', [refTo(o2, cm)]);
  await until('observed', () => [o1, o2, d1, d2].every((o) => observed(gc, o)));
  await registryOf(store.served, cm).deleteCollection('owners', {}, { propagationPolicy: 'Orphan' });
  await until('owners gone', async () => (await registryOf(store.served, cm).list('owners')).items.length === 0);
  await sentinel('s1');
  for (const d of [d1, d2]) {
    const now = await live(store.served, KINDS.Secret, 'owners', d.metadata.name!);
    expect(now?.metadata.uid).toBe(d.metadata.uid);
    expect(now?.metadata.ownerReferences).toBeUndefined();
  }
});

describe('owners that do not exist', () => {
  test('an owner never created, or another object under its name, leaves the dependent collected', async () => {
    startCollector();
    const cm = KINDS.ConfigMap;
    const other = await createObject(store.served, cm, 'ns', 'owner');
    await createObject(store.served, cm, 'ns', 'never', [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'ghost', uid: 'ghost-uid' }]);
    await createObject(store.served, cm, 'ns', 'replaced', [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: 'old-uid' }]);
    await until('both collected', async () => (await live(store.served, cm, 'ns', 'never')) === undefined && (await live(store.served, cm, 'ns', 'replaced')) === undefined);
    expect((await live(store.served, cm, 'ns', 'owner'))?.metadata.uid).toBe(other.metadata.uid);
  });

  test('with another owner alive, only the dangling reference goes', async () => {
    startCollector();
    const cm = KINDS.ConfigMap;
    const owner = await createObject(store.served, cm, 'ns', 'owner');
    await createObject(store.served, cm, 'ns', 'dep', [refTo(owner, cm), { apiVersion: 'v1', kind: 'ConfigMap', name: 'ghost', uid: 'ghost-uid' }]);
    await until('dangling reference removed', async () => (await live(store.served, cm, 'ns', 'dep'))?.metadata.ownerReferences?.length === 1);
    expect((await live(store.served, cm, 'ns', 'dep'))!.metadata.ownerReferences).toEqual([refTo(owner, cm)]);
  });

  test('an unknown kind is retried, never collected, until it is served (a CRD created later)', async () => {
    startCollector();
    const ghostRef: OwnerReference = { apiVersion: 'ghosts.example.com/v1', kind: 'Ghost', name: 'g', uid: 'g-uid' };
    await createObject(store.served, KINDS.ConfigMap, 'ns', 'haunted', [ghostRef]);
    await until('mapping error reported', () => errors.some((e) => e instanceof RestMappingError && /kind: Ghost, version: ghosts.example.com\/v1/.test(e.message)));
    await sentinel('s1');
    expect(await live(store.served, KINDS.ConfigMap, 'ns', 'haunted')).toBeDefined();
    serveCrd(store.served, crdOf('ghosts.example.com', 'Ghost', 'ghosts'), names);
    await until('collected once Ghost is served', async () => (await live(store.served, KINDS.ConfigMap, 'ns', 'haunted')) === undefined);
  });

  test('a cluster-scoped dependent seen before its namespaced owner, and a name no object can have: no errors, kube\'s outcome', async () => {
    const owner = await createObject(store.served, KINDS.ConfigMap, 'ns', 'owner');
    await createObject(store.served, KINDS.ClusterRole, '', 'early', [refTo(owner, KINDS.ConfigMap)]);
    await createObject(store.served, KINDS.ConfigMap, 'ns', 'odd', [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'a/b', uid: 'odd-uid' }]);
    // Started afterwards: whichever informer loads first, nothing is retried in error.
    startCollector();
    await until('odd collected', async () => (await live(store.served, KINDS.ConfigMap, 'ns', 'odd')) === undefined);
    await sentinel('s1');
    expect(await live(store.served, KINDS.ClusterRole, '', 'early')).toBeDefined();
    expect(errors).toEqual([]);
  });

  test('a cluster-scoped dependent of a namespaced owner kind is reported, never collected', async () => {
    startCollector();
    const owner = await createObject(store.served, KINDS.ConfigMap, 'ns', 'owner');
    const dep = await createObject(store.served, KINDS.ClusterRole, '', 'dep', [refTo(owner, KINDS.ConfigMap)]);
    const message = `ownerRef [v1/ConfigMap, namespace: , name: owner, uid: ${owner.metadata.uid}] does not exist in namespace ""`;
    await until('OwnerRefInvalidNamespace event', async () => {
      const events = await store.served.lookup('', 'v1', 'events')!.registry.list('default');
      return events.items.some((e) => e.reason === 'OwnerRefInvalidNamespace' && e.message === message && (e.involvedObject as { uid?: string }).uid === dep.metadata.uid);
    });
    // Its owner deleted too: still not collected.
    await registryOf(store.served, KINDS.ConfigMap).delete('ns', 'owner', {});
    await sentinel('s1');
    expect(await live(store.served, KINDS.ClusterRole, '', 'dep')).toBeDefined();
  });
});

describe('leader changes (a collector stopped, another started)', () => {
  test('work left half-done, and deletions made while no collector ran, are finished; nothing else is deleted', async () => {
    const cm = KINDS.ConfigMap;
    const first = startCollector();
    // Bystanders: dependents of a live owner, which must survive everything below.
    const keeper = await createObject(store.served, cm, 'ns', 'keeper');
    const bystanders = await Promise.all([1, 2, 3].map((i) => createObject(store.served, KINDS.Secret, 'ns', `bystander-${i}`, [refTo(keeper, cm)])));
    // A foreground deletion held by a dependent's finalizer: half-done when the first collector stops.
    const fg = await createObject(store.served, cm, 'ns', 'fg');
    const fgHeld = await createObject(store.served, KINDS.Secret, 'ns', 'fg-held', [refTo(fg, cm)], [HOLD]);
    const fgOther = await createObject(store.served, cm, 'ns', 'fg-other', [refTo(fg, cm)]);
    await until('observed', () => [keeper, ...bystanders, fg, fgHeld, fgOther].every((o) => observed(first, o)));
    await registryOf(store.served, cm).delete('ns', 'fg', { propagationPolicy: 'Foreground' });
    await until('foreground under way', async () => (await live(store.served, KINDS.Secret, 'ns', 'fg-held'))?.metadata.deletionTimestamp !== undefined);
    await stopCollector(first);

    // No collector: the held dependent goes, an orphaning and a background deletion are asked for.
    await dropFinalizer(store.served, KINDS.Secret, 'ns', 'fg-held', HOLD);
    const orphanOwner = await createObject(store.served, cm, 'ns', 'or');
    const orphans = await Promise.all([1, 2, 3, 4].map((i) => createObject(store.served, cm, 'ns', `orphan-${i}`, [refTo(orphanOwner, cm)])));
    // As if the old leader had orphaned one already.
    await registryOf(store.served, cm).patch('ns', 'orphan-1', (cur) => {
      delete cur.metadata.ownerReferences;
      return cur;
    });
    await registryOf(store.served, cm).delete('ns', 'or', { propagationPolicy: 'Orphan' });
    const bg = await createObject(store.served, cm, 'ns', 'bg');
    await Promise.all([1, 2].map((i) => createObject(store.served, KINDS.Secret, 'ns', `bg-${i}`, [refTo(bg, cm)])));
    await registryOf(store.served, cm).delete('ns', 'bg', { propagationPolicy: 'Background' });

    startCollector();
    const gone = async (k: KindName, name: string): Promise<boolean> => (await live(store.served, KINDS[k], 'ns', name)) === undefined;
    await until('foreground finished', async () => (await gone('ConfigMap', 'fg')) && (await gone('ConfigMap', 'fg-other')));
    await until('orphaning finished', () => gone('ConfigMap', 'or'));
    await until('background finished', async () => (await gone('Secret', 'bg-1')) && (await gone('Secret', 'bg-2')));
    await sentinel('s1');
    for (const o of orphans) {
      const now = await live(store.served, cm, 'ns', o.metadata.name!);
      expect(now?.metadata.uid).toBe(o.metadata.uid);
      expect(now?.metadata.ownerReferences).toBeUndefined();
    }
    for (const b of bystanders) expect((await live(store.served, KINDS.Secret, 'ns', b.metadata.name!))?.metadata.ownerReferences).toEqual([refTo(keeper, cm)]);
    expect(await live(store.served, cm, 'ns', 'keeper')).toBeDefined();
  });

  test('a collector that starts before an owner\'s kind is served deletes nothing on that account', async () => {
    const crd = crdOf('stable.example.com', 'CronTab', 'crontabs');
    serveCrd(store.served, crd, names);
    const owner = await createObject(store.served, KINDS.CronTab, 'ns', 'owner');
    await createObject(store.served, KINDS.ConfigMap, 'ns', 'dep', [refTo(owner, KINDS.CronTab)]);
    // The kind stops being served (its objects stay stored), and a collector starts meanwhile.
    store.served.removeSet(crd.metadata.name!);
    startCollector();
    await until('mapping error reported', () => errors.some((e) => e instanceof RestMappingError));
    await sentinel('s1');
    expect(await live(store.served, KINDS.ConfigMap, 'ns', 'dep')).toBeDefined();
    serveCrd(store.served, crd, names);
    await until('owner observed', () => collectors[0]!.graph.nodes.get(owner.metadata.uid!)?.observed === true);
    await sentinel('s2');
    expect((await live(store.served, KINDS.ConfigMap, 'ns', 'dep'))?.metadata.ownerReferences).toEqual([refTo(owner, KINDS.CronTab)]);
    // And once the owner goes, the dependent follows.
    await registryOf(store.served, KINDS.CronTab).delete('ns', 'owner', {});
    await until('dependent collected', async () => (await live(store.served, KINDS.ConfigMap, 'ns', 'dep')) === undefined);
  });
});
