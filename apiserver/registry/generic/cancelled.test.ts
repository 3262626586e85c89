/**
 * A request cancelled while its write is under way (the deadline passed during admission or a conversion:
 * the client already got 504) never reaches the store: every write verb checks the request's signal right
 * before the store write, and on every retry of the update loop. Against the real embedded store.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../../api/object.js';
import { StatusError } from '../../errors/status-error.js';
import { naming } from '../../naming/naming.js';
import { openMemoryStore, type MemoryStore } from '../../../storage/memory/memory-store.js';
import { createGenericRegistry, type GenericRegistry } from './generic-registry.js';
import type { WriteAdmission } from './options.js';
import { widgetStrategy } from './testing/widget-strategy.js';

let dir: string;
let store: MemoryStore;
let widgets: GenericRegistry;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cancelled-'));
  store = await openMemoryStore({ dataDir: dir });
  widgets = createGenericRegistry({ store, strategy: widgetStrategy, naming: naming('platform.io') });
});

afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const widget = (name: string, replicas = 1): KubeObject => ({ apiVersion: 'v1', kind: 'Widget', metadata: { name }, spec: { replicas } });

/** An admission whose validating phase is where the deadline passes: it aborts the request's signal. */
function deadlineDuringAdmission(): { admission: WriteAdmission; signal: AbortSignal; calls: () => number } {
  const controller = new AbortController();
  let calls = 0;
  return {
    admission: {
      mutate: async () => undefined,
      validate: async () => {
        calls++;
        controller.abort(new Error('request deadline exceeded'));
      },
    },
    signal: controller.signal,
    calls: () => calls,
  };
}

async function timeoutError(p: Promise<unknown>): Promise<StatusError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof StatusError) return err;
    throw err;
  }
  throw new Error('expected a StatusError');
}

const revision = async (): Promise<number> => (await store.get('/registry/none')).revision;

describe('a write whose request was cancelled', () => {
  it('create stores nothing and fails with 504 Timeout', async () => {
    const c = deadlineDuringAdmission();
    const before = await revision();
    const err = await timeoutError(widgets.create('ns', widget('a'), { admission: c.admission, signal: c.signal }));
    expect(err.reason).toBe('Timeout');
    expect(err.code).toBe(504);
    expect(c.calls()).toBe(1);
    expect(await revision()).toBe(before);
    await expect(widgets.get('ns', 'a')).rejects.toMatchObject({ reason: 'NotFound' });
  });

  it('update and patch leave the stored object as it was', async () => {
    await widgets.create('ns', widget('a', 1));
    const before = await revision();
    const u = deadlineDuringAdmission();
    expect((await timeoutError(widgets.update('ns', 'a', widget('a', 5), { admission: u.admission, signal: u.signal }))).code).toBe(504);
    const p = deadlineDuringAdmission();
    const patch = (o: KubeObject): KubeObject => ({ ...o, spec: { replicas: 7 } });
    expect((await timeoutError(widgets.patch('ns', 'a', patch, { admission: p.admission, signal: p.signal }))).code).toBe(504);
    expect(await revision()).toBe(before);
    expect((await widgets.get('ns', 'a') as { spec?: { replicas?: number } }).spec?.replicas).toBe(1);
  });

  it('delete keeps the object', async () => {
    await widgets.create('ns', widget('a'));
    const d = deadlineDuringAdmission();
    expect((await timeoutError(widgets.delete('ns', 'a', { admission: d.admission, signal: d.signal }))).code).toBe(504);
    expect((await widgets.get('ns', 'a')).metadata.name).toBe('a');
  });

  it('an update retried after a conflict stops at the retry once cancelled', async () => {
    await widgets.create('ns', widget('a', 1));
    const controller = new AbortController();
    let attempts = 0;
    const admission: WriteAdmission = {
      mutate: async () => undefined,
      validate: async () => {
        attempts++;
        if (attempts === 1) {
          // Another writer wins the first round; the deadline passes before the retry writes.
          await widgets.update('ns', 'a', widget('a', 2));
          controller.abort();
        }
      },
    };
    expect((await timeoutError(widgets.update('ns', 'a', widget('a', 9), { admission, signal: controller.signal }))).code).toBe(504);
    expect((await widgets.get('ns', 'a') as { spec?: { replicas?: number } }).spec?.replicas).toBe(2);
  });

  it('a signal that never aborts changes nothing', async () => {
    const signal = new AbortController().signal;
    await widgets.create('ns', widget('a', 1), { signal });
    await widgets.update('ns', 'a', widget('a', 3), { signal });
    expect((await widgets.get('ns', 'a') as { spec?: { replicas?: number } }).spec?.replicas).toBe(3);
    await widgets.delete('ns', 'a', { signal });
    await expect(widgets.get('ns', 'a')).rejects.toMatchObject({ reason: 'NotFound' });
  });
});
