/**
 * The plugin follows its sources: over the real registries and watch caches of the embedded store (the
 * served ValidatingAdmissionPolicy and binding kinds, ConfigMaps as params, Namespaces), a policy, a
 * binding, a param and their changes and deletions take effect without a restart, each within the
 * cache's delivery plus one event-loop turn; over an in-memory source, a watch that starts again replaces
 * the whole view, compiled policies are reused while their generation does not change, and requests
 * before the first sync wait (then 403).
 */
import { StatusError } from '../../errors/status-error.js';
import { naming } from '../../naming/naming.js';
import type { GenericRegistry } from '../../registry/generic/generic-registry.js';
import { openServedStore, type ServedStore } from '../../controllers/testing/served-store.js';
import { policyAdmission, type PolicyAdmission } from './policy-admission.js';
import type { PolicyIndex } from './policy-index.js';
import type { ObjectSource, SourceEvent } from './policy-source.js';
import { memorySource, registryNamespaces, registrySource, servedParams } from './sources.js';
import { binding, CONFIGMAPS_RULE, configMap, policy, request, testAuthorizer } from './testing.js';

/** Index changes, awaitable: `next(pred)` resolves with the first index (current or later) that satisfies `pred`. */
function indexWatcher(): { onIndexed: (i: PolicyIndex) => void; until: (pred: (i: PolicyIndex) => boolean) => Promise<PolicyIndex> } {
  let current: PolicyIndex | undefined;
  const waiters: { pred: (i: PolicyIndex) => boolean; resolve: (i: PolicyIndex) => void }[] = [];
  return {
    onIndexed(i) {
      current = i;
      for (const w of [...waiters]) if (w.pred(i)) (waiters.splice(waiters.indexOf(w), 1), w.resolve(i));
    },
    until(pred) {
      if (current !== undefined && pred(current)) return Promise.resolve(current);
      return new Promise((resolve) => waiters.push({ pred, resolve }));
    },
  };
}

const denial = async (plugin: PolicyAdmission, attrs = request()): Promise<string | undefined> => {
  try {
    await plugin.validate(attrs);
    return undefined;
  } catch (e) {
    if (e instanceof StatusError) return e.message;
    throw e;
  }
};

const policyNames = (i: PolicyIndex): string[] => i.hooks.map((h) => h.policy.name);

describe('over the real watch caches', () => {
  let store: ServedStore;
  let policies: GenericRegistry;
  let bindings: GenericRegistry;
  let configMaps: GenericRegistry;
  let plugin: PolicyAdmission;
  const watcher = indexWatcher();
  const errors: unknown[] = [];

  beforeAll(async () => {
    store = await openServedStore(naming('k8s.io'));
    const lookup = (resource: string, group = 'admissionregistration.k8s.io'): GenericRegistry => store.served.lookup(group, 'v1', resource)!.registry;
    policies = lookup('validatingadmissionpolicies');
    bindings = lookup('validatingadmissionpolicybindings');
    configMaps = lookup('configmaps', '');
    const namespaces = lookup('namespaces', '');
    await namespaces.create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default', labels: { env: 'dev' } } });
    plugin = policyAdmission({
      policies: registrySource(policies),
      bindings: registrySource(bindings),
      params: servedParams(store.served),
      namespaces: registryNamespaces(namespaces),
      authorizer: testAuthorizer(),
      naming: naming('k8s.io'),
      retryMs: 10,
      onError: (e) => errors.push(e),
      onIndexed: watcher.onIndexed,
    });
    plugin.start();
    await plugin.ready();
  });

  afterAll(async () => {
    await plugin.stop();
    await store.close();
  });

  test('no policies: admitted', async () => {
    expect(await denial(plugin)).toBeUndefined();
    expect(plugin.index?.hooks).toEqual([]);
  });

  test('a policy and binding written through the registries deny within one index swap', async () => {
    const started = Date.now();
    const p = policy('max-a', {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      validations: [{ expression: 'int(object.data.a) <= int(params.data.max)', messageExpression: "'a is at most ' + params.data.max" }],
    });
    await policies.create('', { apiVersion: p.apiVersion, kind: p.kind, metadata: { name: 'max-a' }, spec: p.spec });
    const b = binding('max-a-binding', 'max-a', { paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' } });
    await bindings.create('', { apiVersion: b.apiVersion, kind: b.kind, metadata: { name: 'max-a-binding' }, spec: b.spec });
    await watcher.until((i) => policyNames(i).includes('max-a'));
    expect(Date.now() - started).toBeLessThan(1000);
    // The param does not exist yet: Deny.
    expect(await denial(plugin)).toBe(
      "configmaps \"cm1\" is forbidden: ValidatingAdmissionPolicy 'max-a' with binding 'max-a-binding' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
    );
  });

  test('the param is read from the ConfigMaps watch cache', async () => {
    await configMaps.create('default', configMap('limits', { max: '0' }));
    const deadline = Date.now() + 2000;
    let got = await denial(plugin);
    // The param cache is read at each request: poll the request itself (bounded), no index change to await.
    while (got?.includes('no params found') === true && Date.now() < deadline) {
      await new Promise((r) => setImmediate(r));
      got = await denial(plugin);
    }
    expect(got).toBe("configmaps \"cm1\" is forbidden: ValidatingAdmissionPolicy 'max-a' with binding 'max-a-binding' denied request: a is at most 0");
  });

  test('a policy update (new generation) is compiled and in force', async () => {
    const current = await policies.get('', 'max-a');
    const spec = current.spec as Record<string, unknown>;
    await policies.update('', 'max-a', { ...current, spec: { ...spec, validations: [{ expression: 'true' }] } });
    const index = await watcher.until((i) => i.hooks.some((h) => h.policy.name === 'max-a' && h.policy.validations[0]?.expression === 'true'));
    expect(index.hooks[0]!.policy.identity).toBe(`${current.metadata.uid}/2`);
    expect(await denial(plugin)).toBeUndefined();
  });

  test('deleting the binding deactivates the policy', async () => {
    const current = await policies.get('', 'max-a');
    await policies.update('', 'max-a', { ...current, spec: { ...(current.spec as Record<string, unknown>), validations: [{ expression: 'false', message: 'no' }] } });
    await watcher.until((i) => i.hooks.some((h) => h.policy.validations[0]?.expression === 'false'));
    expect(await denial(plugin)).toMatch(/denied request: no$/);
    await bindings.delete('', 'max-a-binding');
    await watcher.until((i) => i.hooks.length === 0);
    expect(await denial(plugin)).toBeUndefined();
    expect(errors).toEqual([]);
  });
});

describe('over an in-memory source', () => {
  test('changes take effect; a compiled policy is reused while its generation stays', async () => {
    const policies = memorySource([policy('p', { validations: [{ expression: 'false', message: 'one' }] })]);
    const bindings = memorySource([binding('b', 'p')]);
    const watcher = indexWatcher();
    const plugin = policyAdmission({ policies, bindings, params: () => undefined, namespaces: async () => undefined, authorizer: testAuthorizer(), naming: naming('k8s.io'), onIndexed: watcher.onIndexed });
    plugin.start();
    try {
      await plugin.ready();
      expect(await denial(plugin, request({ namespace: '' }))).toMatch(/denied request: one$/);
      const first = plugin.index!.hooks[0]!.policy;

      // Same uid and generation (a status write): the compiled policy is kept.
      const p1 = first.policy;
      policies.set({ ...p1, status: { observedGeneration: 1 } });
      bindings.set(binding('b2', 'p'));
      await watcher.until((i) => i.hooks[0]?.bindings.length === 2);
      expect(plugin.index!.hooks[0]!.policy).toBe(first);

      // A new generation is compiled again.
      policies.set({ ...p1, metadata: { ...p1.metadata, generation: 2 }, spec: { ...p1.spec, validations: [{ expression: 'false', message: 'two' }] } });
      await watcher.until((i) => i.hooks[0]?.policy !== first);
      expect(await denial(plugin, request({ namespace: '' }))).toMatch(/denied request: two$/);

      policies.delete('p');
      await watcher.until((i) => i.hooks.length === 0);
      expect(await denial(plugin, request({ namespace: '' }))).toBeUndefined();
    } finally {
      await plugin.stop();
    }
  });

  test('a watch that starts again replaces the whole view (objects deleted meanwhile are gone)', async () => {
    let round = 0;
    const errors: unknown[] = [];
    const flaky: ObjectSource = {
      async *watch(signal): AsyncIterable<SourceEvent> {
        round++;
        if (round === 1) {
          yield { type: 'ADDED', object: policy('old', { matchConstraints: { resourceRules: [CONFIGMAPS_RULE] } }) };
          yield { type: 'SYNCED' };
          throw new Error('watch ended');
        }
        yield { type: 'ADDED', object: policy('new') };
        yield { type: 'SYNCED' };
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
      },
    };
    const watcher = indexWatcher();
    const plugin = policyAdmission({
      policies: flaky,
      bindings: memorySource([binding('b-old', 'old'), binding('b-new', 'new')]),
      params: () => undefined,
      namespaces: async () => undefined,
      authorizer: testAuthorizer(),
      naming: naming('k8s.io'),
      retryMs: 5,
      onError: (e) => errors.push(e),
      onIndexed: watcher.onIndexed,
    });
    plugin.start();
    const index = await watcher.until((i) => policyNames(i).includes('new'));
    expect(policyNames(index)).toEqual(['new']);
    expect(errors.map((e) => (e as Error).message)).toEqual(['watch ended']);
    await plugin.stop();
  });

  test('a policy the compiler cannot read is left out and reported; the others are in force', async () => {
    const errors: unknown[] = [];
    const broken = { ...policy('a-broken'), spec: { validations: 'not a list' } } as never;
    const plugin = policyAdmission({
      policies: memorySource([broken, policy('b-fine', { validations: [{ expression: 'false', message: 'fine' }] })]),
      bindings: memorySource([binding('x', 'a-broken'), binding('y', 'b-fine')]),
      params: () => undefined,
      namespaces: async () => undefined,
      authorizer: testAuthorizer(),
      naming: naming('k8s.io'),
      onError: (e) => errors.push(e),
    });
    plugin.start();
    try {
      await plugin.ready();
      expect(policyNames(plugin.index!)).toEqual(['b-fine']);
      expect(errors).toHaveLength(1);
      expect(await denial(plugin, request({ namespace: '' }))).toMatch(/'b-fine' with binding 'y' denied request: fine$/);
    } finally {
      await plugin.stop();
    }
  });

  test('before the first sync a request waits, then is refused with 403', async () => {
    const never: ObjectSource = {
      async *watch(signal) {
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
      },
    };
    const plugin = policyAdmission({ policies: never, bindings: never, params: () => undefined, namespaces: async () => undefined, authorizer: testAuthorizer(), naming: naming('k8s.io'), readyTimeoutMs: 20 });
    plugin.start();
    try {
      const out = await plugin.validate(request()).then(
        () => undefined,
        (e: unknown) => e as StatusError,
      );
      expect(out).toMatchObject({ code: 403, reason: 'Forbidden', message: 'configmaps "cm1" is forbidden: not yet ready to handle request' });
    } finally {
      await plugin.stop();
    }
  });

  test('the exempt kinds are admitted even before the first sync', async () => {
    const plugin = policyAdmission({ policies: memorySource(), bindings: memorySource(), params: () => undefined, namespaces: async () => undefined, authorizer: testAuthorizer(), naming: naming('k8s.io'), readyTimeoutMs: 1 });
    const attrs = request({ resource: { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingadmissionpolicies' }, kind: { group: 'admissionregistration.k8s.io', version: 'v1', kind: 'ValidatingAdmissionPolicy' }, namespace: '' });
    await expect(plugin.validate(attrs)).resolves.toBeUndefined();
  });
});
