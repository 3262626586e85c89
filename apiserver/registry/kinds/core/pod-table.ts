/**
 * The Pod table as kube-apiserver 1.32 prints it (printers.go printPod): NAME, READY (ready/total
 * containers, sidecar init containers counted), STATUS (the phase, or the status reason, refined by
 * scheduling gates, init container progress `Init:x/y` / `Init:<reason>`, container waiting or terminated
 * reasons such as CrashLoopBackOff or Completed, and `Terminating` while a deletion is pending),
 * RESTARTS (`n (<age> ago)` after the last termination), AGE; with `-o wide` IP, NODE, NOMINATED NODE and
 * READINESS GATES (`true/total`).
 */
import type { KubeObject } from '../../../api/object.js';
import { humanDuration } from '../shared/human-duration.js';
import { ageCell, ageColumn, column, nameCell, nameColumn, table } from '../shared/table.js';
import { type JsonObject, arrayAt, isObject, numberAt, objectAt, objectItems, stringAt } from './pod/json-values.js';

const state = (c: JsonObject, which: 'state' | 'lastState'): JsonObject => objectAt(c, which) ?? {};

/** The later of `date` and the container's last termination time (ms since epoch, 0 when none). */
function lastTermination(c: JsonObject, date: number): number {
  const terminated = objectAt(state(c, 'lastState'), 'terminated');
  const finished = terminated === undefined ? Number.NaN : Date.parse(stringAt(terminated, 'finishedAt'));
  return !Number.isNaN(finished) && finished > date ? finished : date;
}

const isSidecar = (c: JsonObject | undefined): boolean => c !== undefined && c.restartPolicy === 'Always';

function conditionTrue(status: JsonObject, type: string): boolean {
  return [...objectItems(arrayAt(status, 'conditions'))].some(([, c]) => c.type === type && c.status === 'True');
}

function terminatedReason(t: JsonObject, prefix: string): string {
  const reason = stringAt(t, 'reason');
  if (reason !== '') return prefix + reason;
  const signal = numberAt(t, 'signal') ?? 0;
  return signal !== 0 ? `${prefix}Signal:${signal}` : `${prefix}ExitCode:${numberAt(t, 'exitCode') ?? 0}`;
}

interface PodCells {
  ready: string;
  reason: string;
  restarts: string;
}

export function podCells(pod: KubeObject, now: Date): PodCells {
  const spec: JsonObject = isObject(pod.spec) ? pod.spec : {};
  const status: JsonObject = isObject(pod.status) ? pod.status : {};
  const phase = stringAt(status, 'phase');
  let reason = stringAt(status, 'reason') !== '' ? stringAt(status, 'reason') : phase;
  for (const [, c] of objectItems(arrayAt(status, 'conditions'))) {
    if (c.type === 'PodScheduled' && c.reason === 'SchedulingGated') reason = 'SchedulingGated';
  }
  let total = arrayAt(spec, 'containers').length;
  let ready = 0;
  let restarts = 0;
  let sidecarRestarts = 0;
  let lastRestart = 0;
  let lastSidecarRestart = 0;

  const inits = new Map<string, JsonObject>();
  const initSpecs = [...objectItems(arrayAt(spec, 'initContainers'))];
  for (const [, c] of initSpecs) {
    inits.set(stringAt(c, 'name'), c);
    if (isSidecar(c)) total++;
  }

  let initializing = false;
  const initStatuses = [...objectItems(arrayAt(status, 'initContainerStatuses'))];
  for (let i = 0; i < initStatuses.length; i++) {
    const c = initStatuses[i]![1];
    const sidecar = isSidecar(inits.get(stringAt(c, 'name')));
    restarts += numberAt(c, 'restartCount') ?? 0;
    lastRestart = lastTermination(c, lastRestart);
    if (sidecar) {
      sidecarRestarts += numberAt(c, 'restartCount') ?? 0;
      lastSidecarRestart = lastTermination(c, lastSidecarRestart);
    }
    const terminated = objectAt(state(c, 'state'), 'terminated');
    const waiting = objectAt(state(c, 'state'), 'waiting');
    if (terminated !== undefined && (numberAt(terminated, 'exitCode') ?? 0) === 0) continue;
    if (sidecar && c.started === true) {
      if (c.ready === true) ready++;
      continue;
    }
    if (terminated !== undefined) reason = terminatedReason(terminated, 'Init:');
    else if (waiting !== undefined && stringAt(waiting, 'reason') !== '' && stringAt(waiting, 'reason') !== 'PodInitializing') reason = `Init:${stringAt(waiting, 'reason')}`;
    else reason = `Init:${i}/${initSpecs.length}`;
    initializing = true;
    break;
  }

  if (!initializing || conditionTrue(status, 'Initialized')) {
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let hasRunning = false;
    const statuses = [...objectItems(arrayAt(status, 'containerStatuses'))];
    for (let i = statuses.length - 1; i >= 0; i--) {
      const c = statuses[i]![1];
      restarts += numberAt(c, 'restartCount') ?? 0;
      lastRestart = lastTermination(c, lastRestart);
      const waiting = objectAt(state(c, 'state'), 'waiting');
      const terminated = objectAt(state(c, 'state'), 'terminated');
      if (waiting !== undefined && stringAt(waiting, 'reason') !== '') reason = stringAt(waiting, 'reason');
      else if (terminated !== undefined) reason = terminatedReason(terminated, '');
      else if (c.ready === true && objectAt(state(c, 'state'), 'running') !== undefined) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === 'Completed' && hasRunning) reason = conditionTrue(status, 'Ready') ? 'Running' : 'NotReady';
  }

  if (pod.metadata.deletionTimestamp !== undefined && stringAt(status, 'reason') === 'NodeLost') reason = 'Unknown';
  else if (pod.metadata.deletionTimestamp !== undefined && phase !== 'Succeeded' && phase !== 'Failed') reason = 'Terminating';

  const restartText = restarts !== 0 && lastRestart !== 0 ? `${restarts} (${humanDuration(now.getTime() - lastRestart)} ago)` : String(restarts);
  return { ready: `${ready}/${total}`, reason, restarts: restartText };
}

function wideCells(pod: KubeObject): string[] {
  const spec: JsonObject = isObject(pod.spec) ? pod.spec : {};
  const status: JsonObject = isObject(pod.status) ? pod.status : {};
  const podIPs = arrayAt(status, 'podIPs');
  const ip = isObject(podIPs[0]) ? stringAt(podIPs[0], 'ip') : '';
  const gates = [...objectItems(arrayAt(spec, 'readinessGates'))];
  let readinessGates = '<none>';
  if (gates.length > 0) {
    const conditions = [...objectItems(arrayAt(status, 'conditions'))].map(([, c]) => c);
    const trueCount = gates.filter(([, g]) => conditions.find((c) => c.type === g.conditionType)?.status === 'True').length;
    readinessGates = `${trueCount}/${gates.length}`;
  }
  const orNone = (s: string): string => (s === '' ? '<none>' : s);
  return [orNone(ip), orNone(stringAt(spec, 'nodeName')), orNone(stringAt(status, 'nominatedNodeName')), readinessGates];
}

export const podTable = table(
  [
    nameColumn,
    column('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
    column('Status', 'string', 'The aggregate status of the containers in this pod.'),
    column('Restarts', 'string', 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.'),
    ageColumn,
    column('IP', 'string', 'IP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.', 1),
    column('Node', 'string', 'NodeName is a request to schedule this pod onto a specific node.', 1),
    column('Nominated Node', 'string', 'nominatedNodeName is set only when this pod preempts other pods on the node.', 1),
    column('Readiness Gates', 'string', 'If specified, all readiness gates will be evaluated for pod readiness.', 1),
  ],
  (obj, now) => {
    const c = podCells(obj, now);
    return [nameCell(obj), c.ready, c.reason, c.restarts, ageCell(obj, now), ...wideCells(obj)];
  },
);
