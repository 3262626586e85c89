/**
 * Pod (core/v1), namespaced, short name `po`, category `all`, with the `status` sub-resource and the
 * `binding` sub-resource schedulers use (pod-binding.ts). Kubernetes 1.32 behaviour:
 *
 * - defaults: the shared pod spec defaults (pod/pod-defaults.ts: restartPolicy Always, dnsPolicy
 *   ClusterFirst, schedulerName default-scheduler, terminationGracePeriodSeconds 30, pull policies ...) and
 *   the pod-only ones (pod/pod-object-defaults.ts: requests from limits, enableServiceLinks, host network
 *   ports); the ServiceAccount admission plugin names the `default` account and requires it to exist
 *   (admission/plugins/service-account.ts);
 * - create resets the status to `phase: Pending` and the computed `qosClass` (pod/pod-qos.ts), with the
 *   PodScheduled=False/SchedulingGated condition when scheduling gates are present; updates keep the status;
 * - validation: pod/validate-pod.ts (create, update, status);
 * - `/status` writes keep the spec and ownerReferences (metadata such as labels may change, as in kube),
 *   backfill a dropped qosClass, and reconcile podIP with podIPs;
 * - DELETE answers the pod; a pod bound to a node and not terminal is deleted gracefully (kube's
 *   CheckGracefulDelete): it stays with deletionTimestamp/deletionGracePeriodSeconds from the request's
 *   gracePeriodSeconds or the spec's terminationGracePeriodSeconds until deleted with 0;
 * - field selectors spec.nodeName, spec.restartPolicy, spec.schedulerName, spec.serviceAccountName,
 *   spec.hostNetwork, status.phase, status.podIP, status.nominatedNodeName (watch cache filters too);
 * - the table of kubectl get pods (pod-table.ts); a warning when the name is not a DNS label.
 * DefaultTolerationSeconds (a separate admission plugin) is not run, so tolerations get no defaults.
 */
import type { KubeObject } from '../../../api/object.js';
import { kindSchema } from '../../../schema/object-meta-schema.js';
import { isDNS1123Label } from '../../../validation/names.js';
import type { KindStrategy, StrategyContext } from '../../kind-strategy.js';
import { jsonClone } from '../../patch/json-value.js';
import { podBinding } from './pod-binding.js';
import { podTable } from './pod-table.js';
import { isObject, numberAt, stringAt } from './pod/json-values.js';
import { defaultPodSpec } from './pod/pod-defaults.js';
import { defaultPodObjectSpec, reconcilePodIPs } from './pod/pod-object-defaults.js';
import { computeQosClass } from './pod/pod-qos.js';
import { podSpecSchema } from './pod/pod-spec-schema.js';
import { podStatusSchema } from './pod/pod-status-schema.js';
import { validateMirrorAnnotationUpdate, validatePodCreate, validatePodStatusUpdate, validatePodUpdate } from './pod/validate-pod.js';
import { legacyKey } from '../shared/legacy-domain.js';

const schema = kindSchema(
  'Pod is a collection of containers that can run on a host. This resource is created by clients and scheduled onto hosts.',
  {
    spec: { ...podSpecSchema, description: 'Specification of the desired behavior of the pod.', default: {} },
    status: { ...podStatusSchema, description: 'Most recently observed status of the pod. Read-only; written by the system.' },
  },
  undefined,
  { spec: 2, status: 3 },
);

type Spec = Record<string, unknown>;
type Status = Record<string, unknown>;
const specOf = (pod: KubeObject): Spec => (isObject(pod.spec) ? pod.spec : {});
const statusOf = (pod: KubeObject): Status => (isObject(pod.status) ? pod.status : {});

function applyDefaults(pod: KubeObject): void {
  defaultPodSpec(pod.spec);
  defaultPodObjectSpec(pod.spec);
}

/** The status a new pod starts with (kube's PrepareForCreate and applySchedulingGatedCondition). */
function initialStatus(pod: KubeObject): Status {
  const status: Status = { phase: 'Pending', qosClass: computeQosClass(pod.spec) };
  const gates = specOf(pod).schedulingGates;
  if (Array.isArray(gates) && gates.length > 0) {
    status.conditions = [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated', message: 'Scheduling is blocked due to non-empty scheduling gates' }];
  }
  return status;
}

/** The podIP field selector: the first of podIPs (kube reads the internal list). */
function podIP(pod: KubeObject): string {
  const status = statusOf(pod);
  const ips = status.podIPs;
  if (Array.isArray(ips) && isObject(ips[0])) return stringAt(ips[0], 'ip');
  return stringAt(status, 'podIP');
}

export const pods = Object.freeze({
  group: '',
  version: 'v1',
  kind: 'Pod',
  resource: 'pods',
  singular: 'pod',
  namespaced: true,
  shortNames: Object.freeze(['po']),
  categories: Object.freeze(['all']),
  subresources: Object.freeze(['status'] as const),
  connectSubresources: Object.freeze([podBinding]),
  schema,
  deleteReturnsObject: true,
  table: podTable,
  selectableFields: Object.freeze({
    'spec.nodeName': (o: KubeObject) => stringAt(specOf(o), 'nodeName'),
    'spec.restartPolicy': (o: KubeObject) => stringAt(specOf(o), 'restartPolicy'),
    'spec.schedulerName': (o: KubeObject) => stringAt(specOf(o), 'schedulerName'),
    'spec.serviceAccountName': (o: KubeObject) => stringAt(specOf(o), 'serviceAccountName'),
    'spec.hostNetwork': (o: KubeObject) => String(specOf(o).hostNetwork === true),
    'status.phase': (o: KubeObject) => stringAt(statusOf(o), 'phase'),
    'status.podIP': podIP,
    'status.nominatedNodeName': (o: KubeObject) => stringAt(statusOf(o), 'nominatedNodeName'),
    // kube's v1 field label conversion also accepts these two: `spec.host` (old clients) means nodeName;
    // `status.podIPs` is accepted but has no value in the selectable set, so it reads as ''.
    'spec.host': (o: KubeObject) => stringAt(specOf(o), 'nodeName'),
    'status.podIPs': () => '',
  }),

  prepareForCreate(obj: KubeObject): void {
    applyDefaults(obj);
    obj.status = initialStatus(obj);
  },

  prepareForUpdate(obj: KubeObject): void {
    applyDefaults(obj);
  },

  validate(obj: KubeObject, ctx: StrategyContext) {
    // Update rules (which include the spec's) are validateUpdate's.
    return ctx.operation === 'create' ? validatePodCreate(obj) : [];
  },

  validateUpdate(obj: KubeObject, old: KubeObject, ctx: StrategyContext) {
    return [...validateMirrorAnnotationUpdate(obj, old, legacyKey(ctx.naming, 'config.mirror')), ...validatePodUpdate(obj, old)];
  },

  warnings(obj: KubeObject, old: KubeObject | undefined): string[] {
    // kube warns on create only (updates are a hot path of the node agent).
    if (old !== undefined) return [];
    const msgs = isDNS1123Label(obj.metadata.name ?? '');
    if (msgs.length === 0 || (obj.metadata.name ?? '') === '') return [];
    return [`metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS label is recommended: [${msgs.join(' ')}]`];
  },

  prepareForStatusUpdate(obj: KubeObject, old: KubeObject): void {
    // Copies: `old` is the registry's, never to be changed through `obj`.
    obj.spec = jsonClone(old.spec);
    if (old.metadata.ownerReferences === undefined) delete obj.metadata.ownerReferences;
    else obj.metadata.ownerReferences = jsonClone(old.metadata.ownerReferences);
    const status = (obj.status = isObject(obj.status) ? obj.status : {});
    if (stringAt(status, 'qosClass') === '' && stringAt(statusOf(old), 'qosClass') !== '') status.qosClass = statusOf(old).qosClass;
    reconcilePodIPs(status);
  },

  validateStatusUpdate(obj: KubeObject, old: KubeObject, ctx: StrategyContext) {
    return [...validateMirrorAnnotationUpdate(obj, old, legacyKey(ctx.naming, 'config.mirror')), ...validatePodStatusUpdate(obj, old)];
  },

  gracefulDeletion(obj: KubeObject, requested: number | undefined): number {
    const spec = specOf(obj);
    let period = requested ?? numberAt(spec, 'terminationGracePeriodSeconds') ?? 0;
    if (stringAt(spec, 'nodeName') === '') period = 0;
    const phase = stringAt(statusOf(obj), 'phase');
    if (phase === 'Failed' || phase === 'Succeeded') period = 0;
    return period;
  },
} satisfies KindStrategy);
