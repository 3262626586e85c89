/**
 * ttl-after-finished over the real job registry (embedded store): a finished job is deleted
 * ttlSecondsAfterFinished after its finish (Foreground, uid precondition), not before; unfinished jobs and
 * jobs without a TTL stay; a TTL raised before expiry is honoured (the fresh job is checked again).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeObject } from '../../api/object.js';
import { isStatusError } from '../../errors/status-error.js';
import { naming } from '../../naming/naming.js';
import type { GenericRegistry } from '../../registry/generic/generic-registry.js';
import { rfc3339 } from '../../registry/generic/system-fields.js';
import { createInformerFactory, type InformerFactory } from '../informer.js';
import { openServedStore, type ServedStore } from '../testing/served-store.js';
import { startTtlAfterFinishedController } from './ttl-after-finished-controller.js';
import { until } from '../../../test/harness/until.js';

let store: ServedStore;
let jobs: GenericRegistry;
let informers: InformerFactory;
let controller: { stop(): Promise<void> };

beforeEach(async () => {
  store = await openServedStore(naming('platform.io'));
  jobs = store.served.lookup('batch', 'v1', 'jobs')!.registry;
  informers = createInformerFactory({ rewatchDelayMs: 10 });
  controller = startTtlAfterFinishedController({ jobs, informers });
});
afterEach(async () => {
  await controller.stop();
  await informers.stop();
  await store.close();
});

async function job(name: string, ttl: number | undefined): Promise<KubeObject> {
  const spec: Record<string, unknown> = { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } };
  if (ttl !== undefined) spec.ttlSecondsAfterFinished = ttl;
  return (await jobs.create('default', { apiVersion: 'batch/v1', kind: 'Job', metadata: { name }, spec })).object;
}

/** Writes a Complete status (as the job controller would) finished at `at`. */
async function finish(name: string, at: Date): Promise<void> {
  const current = await jobs.get('default', name);
  const t = rfc3339(at);
  const cond = (type: string) => ({ type, status: 'True', lastProbeTime: t, lastTransitionTime: t });
  await jobs.update('default', name, { ...current, status: { startTime: t, completionTime: t, succeeded: 1, conditions: [cond('SuccessCriteriaMet'), cond('Complete')] } }, { subresource: 'status' });
}

/** Deleted: gone, or marked with the foregroundDeletion finalizer (the garbage collector finishes it). */
async function deleted(name: string): Promise<boolean> {
  try {
    const j = await jobs.get('default', name);
    return j.metadata.deletionTimestamp !== undefined && j.metadata.finalizers?.includes('foregroundDeletion') === true;
  } catch (err) {
    if (isStatusError(err) && err.code === 404) return true;
    throw err;
  }
}


test('ttl 0: deleted as soon as it finishes (Foreground); unfinished and TTL-less jobs stay', async () => {
  await job('zero', 0);
  await job('no-ttl', undefined);
  await job('running', 0);
  await finish('zero', new Date());
  await finish('no-ttl', new Date());
  await until('zero deleted', () => deleted('zero'));
  expect(await deleted('no-ttl')).toBe(false);
  expect(await deleted('running')).toBe(false);
});

test('a TTL counts from the finish time: not deleted before it expires', async () => {
  await job('later', 2);
  const finishedAt = Date.now();
  await finish('later', new Date(finishedAt));
  await until('later deleted', () => deleted('later'));
  // rfc3339 keeps whole seconds: the TTL runs from the second the job finished in.
  expect(Date.now()).toBeGreaterThanOrEqual(Math.floor(finishedAt / 1000) * 1000 + 2000);
});

test('a job finished long ago is deleted at once; a TTL raised before expiry is honoured', async () => {
  await job('old', 60);
  await finish('old', new Date(Date.now() - 120_000));
  await until('old deleted', () => deleted('old'));

  await job('extended', 1);
  await finish('extended', new Date());
  await jobs.patch('default', 'extended', (j) => ({ ...j, spec: { ...(j.spec as object), ttlSecondsAfterFinished: 3600 } }));
  await sleep(1500);
  expect(await deleted('extended')).toBe(false);
});
