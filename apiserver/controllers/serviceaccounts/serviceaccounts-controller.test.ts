/**
 * The serviceaccount controller over the real registries on the embedded store: namespaces that exist at
 * start and namespaces created later get `default`; a deleted `default` comes back (with a new uid); a
 * Terminating namespace gets nothing; another service account's delete changes nothing.
 */
import type { KubeObject } from '../../api/object.js';
import { isStatusError } from '../../errors/status-error.js';
import { naming } from '../../naming/naming.js';
import type { GenericRegistry } from '../../registry/generic/generic-registry.js';
import { openServedStore, type ServedStore } from '../testing/served-store.js';
import { startServiceAccountsController, type ServiceAccountsController } from './serviceaccounts-controller.js';

let store: ServedStore;
let namespaces: GenericRegistry;
let accounts: GenericRegistry;
let controller: ServiceAccountsController | undefined;
let errors: unknown[];
/** Resolvers waiting for the controller's next create. */
let created: (() => void)[];

const ns = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });

function start(): void {
  controller = startServiceAccountsController({
    namespaces,
    serviceAccounts: accounts,
    retryMs: 10,
    onError: (err) => errors.push(err),
    onCreated: () => created.splice(0).forEach((w) => w()),
  });
}

/** The service account once it exists, re-reading after each of the controller's creates. */
async function untilExists(namespace: string, name = 'default', check: (sa: KubeObject) => boolean = () => true): Promise<KubeObject> {
  for (;;) {
    const next = new Promise<void>((resolve) => created.push(resolve));
    try {
      const sa = await accounts.get(namespace, name);
      if (check(sa)) return sa;
    } catch (err) {
      if (!isStatusError(err) || err.code !== 404) throw err;
    }
    await next;
  }
}

const exists = async (namespace: string, name: string): Promise<boolean> =>
  accounts.get(namespace, name).then(
    () => true,
    (err: unknown) => {
      if (isStatusError(err) && err.code === 404) return false;
      throw err;
    },
  );

beforeEach(async () => {
  store = await openServedStore(naming('k8s.io'));
  errors = [];
  created = [];
  namespaces = store.served.lookup('', 'v1', 'namespaces')!.registry;
  accounts = store.served.lookup('', 'v1', 'serviceaccounts')!.registry;
});

afterEach(async () => {
  await controller?.stop();
  controller = undefined;
  await store.close();
  expect(errors).toEqual([]);
});

test('namespaces present at start and created later get a default service account', async () => {
  await namespaces.create('', ns('before'));
  start();
  await untilExists('before');
  await namespaces.create('', ns('after'));
  await untilExists('after');
  expect((await accounts.list('before', {})).items.map((a) => a.metadata.name)).toEqual(['default']);
});

test('a deleted default comes back with a new uid; deleting another service account changes nothing', async () => {
  await namespaces.create('', ns('team'));
  start();
  const first = await untilExists('team');
  await accounts.create('team', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'builder' } });
  await accounts.delete('team', 'builder');
  await accounts.delete('team', 'default');
  const again = await untilExists('team', 'default', (sa) => sa.metadata.uid !== first.metadata.uid);
  expect(again.metadata.uid).not.toBe(first.metadata.uid);
  expect(await exists('team', 'builder')).toBe(false);
});

test('a terminating namespace gets no service account', async () => {
  await namespaces.create('', ns('leaving'));
  await namespaces.delete('', 'leaving'); // Terminating: the kubernetes finalizer holds it (no namespace controller here)
  expect((await namespaces.get('', 'leaving')).status).toMatchObject({ phase: 'Terminating' });
  await namespaces.create('', ns('staying'));
  start();
  // Namespaces are queued in cache order ('leaving' before 'staying'): once 'staying' has its account,
  // 'leaving' was looked at and passed over.
  await untilExists('staying');
  expect(await exists('leaving', 'default')).toBe(false);
});
