/**
 * For the job controller's tests: the built-in kinds over an embedded store, the job controller (and
 * optionally ttl-after-finished) running on them with short timers, and the test as node agent: it writes
 * pod status through the pods' `status` subresource and removes terminating pods (delete with grace 0).
 * Every wait is a bounded poll of a condition.
 */
import type { KubeObject } from '../../api/object.js';
import { createEventRecorder } from '../../events/event-recorder.js';
import { isStatusError } from '../../errors/status-error.js';
import { naming, type Naming } from '../../naming/naming.js';
import type { GenericRegistry } from '../../registry/generic/generic-registry.js';
import { rfc3339 } from '../../registry/generic/system-fields.js';
import type { ConnectContext } from '../../registry/connect-subresource.js';
import { podBinding } from '../../registry/kinds/core/pod-binding.js';
import { createInformerFactory, type InformerFactory } from '../informer.js';
import { openServedStore, type ServedStore } from '../testing/served-store.js';
import { startJobController, type JobControllerOptions } from './job-controller.js';
import { jobControllerNames, type JobControllerNames } from './job-pod-names.js';
import type { JobCondition, JobStatus } from './job-types.js';
import { until } from '../../../test/harness/until.js';

export const NS = 'default';

export interface Harness {
  readonly jobs: GenericRegistry;
  readonly pods: GenericRegistry;
  readonly events: GenericRegistry;
  readonly informers: InformerFactory;
  readonly names: JobControllerNames;
  readonly naming: Naming;
  close(): Promise<void>;
}

export async function openHarness(
  o: Partial<Omit<JobControllerOptions, 'jobs' | 'pods' | 'informers' | 'naming'>> & { domain?: string; controller?: boolean } = {},
): Promise<Harness> {
  const n = naming(o.domain ?? 'platform.io');
  const store: ServedStore = await openServedStore(n);
  const registry = (group: string, resource: string): GenericRegistry => store.served.lookup(group, 'v1', resource)!.registry;
  const jobs = registry('batch', 'jobs');
  const pods = registry('', 'pods');
  const events = registry('', 'events');
  const informers = createInformerFactory({ rewatchDelayMs: 10 });
  const controller =
    o.controller === false
      ? undefined
      : startJobController({
          jobs,
          pods,
          informers,
          naming: n,
          recorder: createEventRecorder({ events, component: 'job-controller' }),
          syncBatchPeriodMs: 0,
          apiBackoffMs: 10,
          maxApiBackoffMs: 200,
          podFailureBackoffMs: 0,
          ...o,
        });
  return {
    jobs,
    pods,
    events,
    informers,
    names: jobControllerNames(n),
    naming: n,
    async close() {
      await controller?.stop();
      await informers.stop();
      await store.close();
    },
  };
}


export const container = { name: 'work', image: 'busybox' };

export function jobObject(name: string, spec: Record<string, unknown>, templateSpec: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: NS },
    spec: { ...spec, template: { spec: { restartPolicy: 'Never', containers: [container], ...templateSpec } } },
  };
}

export async function createJob(h: Harness, name: string, spec: Record<string, unknown>, templateSpec: Record<string, unknown> = {}): Promise<KubeObject> {
  return (await h.jobs.create(NS, jobObject(name, spec, templateSpec))).object;
}

export const getJob = (h: Harness, name: string): Promise<KubeObject> => h.jobs.get(NS, name);
export const statusOf = (job: KubeObject): JobStatus => (job.status ?? {}) as JobStatus;
export const condition = (job: KubeObject, type: string): JobCondition | undefined => statusOf(job).conditions?.find((c) => c.type === type);

/** The pods controlled by `job` (every phase, terminating ones included), oldest first. */
export async function podsOf(h: Harness, job: KubeObject): Promise<KubeObject[]> {
  const list = await h.pods.list(NS);
  return list.items.filter((p) => p.metadata.ownerReferences?.some((r) => r.uid === job.metadata.uid));
}

export const phaseOf = (pod: KubeObject): string => ((pod.status as { phase?: string } | undefined)?.phase ?? '');
export const activeOf = (pods: readonly KubeObject[]): KubeObject[] =>
  pods.filter((p) => p.metadata.deletionTimestamp === undefined && phaseOf(p) !== 'Succeeded' && phaseOf(p) !== 'Failed');

/** Waits until `job` has exactly `n` active pods and returns them. */
export async function activePods(h: Harness, job: KubeObject, n: number): Promise<KubeObject[]> {
  return until(`${n} active pods of ${job.metadata.name}`, async () => {
    const a = activeOf(await podsOf(h, job));
    return a.length === n ? a : undefined;
  });
}

export interface Termination {
  readonly exitCode?: number;
  readonly container?: string;
  readonly conditions?: readonly { type: string; status: string }[];
  readonly finishedAt?: Date;
  readonly restartCount?: number;
}

/** The node agent: writes `phase` (and a terminated container, a Ready condition ...) through pods/status. */
export async function setPodStatus(h: Harness, pod: KubeObject, phase: string, t: Termination & { ready?: boolean } = {}): Promise<KubeObject> {
  for (let attempt = 0; ; attempt++) {
    const current = await h.pods.get(NS, pod.metadata.name ?? '');
    const at = rfc3339(t.finishedAt ?? new Date());
    const terminal = phase === 'Succeeded' || phase === 'Failed';
    const exitCode = t.exitCode ?? (phase === 'Failed' ? 1 : 0);
    const containerStatus = {
      name: t.container ?? 'work',
      image: 'busybox',
      imageID: '',
      ready: t.ready === true,
      restartCount: t.restartCount ?? 0,
      state: terminal ? { terminated: { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', startedAt: at, finishedAt: at } } : { running: { startedAt: at } },
    };
    const conditions = [
      ...(t.ready === undefined ? [] : [{ type: 'Ready', status: t.ready ? 'True' : 'False', lastTransitionTime: at }]),
      ...(t.conditions ?? []).map((c) => ({ ...c, lastTransitionTime: at })),
    ];
    const status = { ...(current.status as Record<string, unknown>), phase, containerStatuses: [containerStatus], ...(conditions.length > 0 ? { conditions } : {}) };
    try {
      return (await h.pods.update(NS, current.metadata.name ?? '', { ...current, status }, { subresource: 'status' })).object;
    } catch (err) {
      if (attempt < 20 && isStatusError(err) && err.code === 409) continue;
      throw err;
    }
  }
}

/** The scheduler binds a pod through pods/binding (so that deleting it is graceful: it stays terminating until removed). */
export async function bind(h: Harness, pod: KubeObject): Promise<void> {
  const ctx = { naming: h.naming, namespace: NS, dryRun: false, user: undefined, parent: h.pods, registry: () => undefined } as unknown as ConnectContext;
  const name = pod.metadata.name ?? '';
  await podBinding.create(name, { apiVersion: 'v1', kind: 'Binding', metadata: { name }, target: { kind: 'Node', name: 'node-1' } }, ctx);
}

/**
 * The node agent stops every terminating pod: like a kubelet it first reports the terminal phase (Failed)
 * and then deletes the pod with grace 0 (the job controller's finalizer may keep it a while).
 */
export async function removeTerminating(h: Harness, job: KubeObject): Promise<number> {
  let n = 0;
  for (const p of await podsOf(h, job)) {
    if (p.metadata.deletionTimestamp === undefined) continue;
    n++;
    if (phaseOf(p) !== 'Succeeded' && phaseOf(p) !== 'Failed') await setPodStatus(h, p, 'Failed', { exitCode: 137 });
    await h.pods.delete(NS, p.metadata.name ?? '', { gracePeriodSeconds: 0 }).catch((err: unknown) => {
      if (!(isStatusError(err) && err.code === 404)) throw err;
    });
  }
  return n;
}

/** The events recorded about `name` (reason: message), oldest first. */
export async function eventsAbout(h: Harness, name: string): Promise<string[]> {
  const list = await h.events.list(NS);
  return list.items
    .filter((e) => (e.involvedObject as { name?: string; kind?: string }).name === name && (e.involvedObject as { kind?: string }).kind === 'Job')
    .map((e) => `${e.type as string} ${e.reason as string}: ${e.message as string}`);
}

export async function waitForEvent(h: Harness, name: string, prefix: string): Promise<string> {
  return until(`event ${prefix} about ${name}`, async () => (await eventsAbout(h, name)).find((e) => e.startsWith(prefix)));
}

export async function waitForCondition(h: Harness, name: string, type: string, status = 'True'): Promise<KubeObject> {
  return until(`condition ${type}=${status} on ${name}`, async () => {
    const job = await getJob(h, name);
    return condition(job, type)?.status === status ? job : undefined;
  });
}

/** Patches the job's spec (retrying conflicts with the controller's status writes). */
export async function patchSpec(h: Harness, name: string, change: Record<string, unknown>): Promise<KubeObject> {
  return (await h.jobs.patch(NS, name, (current) => ({ ...current, spec: { ...(current.spec as object), ...change } }))).object;
}

export { until };
