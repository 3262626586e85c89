/**
 * Validation of `containers` and `initContainers` as Kubernetes' validateContainers /
 * validateInitContainers do it: names (required DNS labels, unique across both lists: `Duplicate value`),
 * image required, ports, env, mounts, pull and termination policies, resources, security context, probes
 * and hooks (forbidden on init containers unless they are sidecars with restartPolicy Always).
 */
import { type FieldError, type FieldPath, duplicate, forbidden, invalidValue, notSupported, required } from '../../../../validation/field-error.js';
import { isDNS1123Label, isValidPortName, isValidPortNum } from '../../../../validation/names.js';
import { type JsonObject, arrayAt, numberAt, objectAt, objectItems, stringAt } from './json-values.js';
import { validateEnv, validateEnvFrom } from './validate-env.js';
import { type ProbeKind, validateLifecycle, validateProbe } from './validate-probes.js';
import { validateResourceRequirements } from './validate-resources.js';
import { validateSecurityContext } from './validate-security-context.js';
import { validateVolumeDevices, validateVolumeMounts } from './validate-volumes.js';

const PROTOCOLS: readonly string[] = ['SCTP', 'TCP', 'UDP'];
const PULL_POLICIES: readonly string[] = ['Always', 'IfNotPresent', 'Never'];
const RESIZE_RESOURCES: readonly string[] = ['cpu', 'memory'];
const RESIZE_POLICIES: readonly string[] = ['NotRequired', 'RestartContainer'];
const PROBES: readonly ProbeKind[] = ['livenessProbe', 'readinessProbe', 'startupProbe'];

/** What every container is checked against: the pod's valid volumes and grace period. */
export interface ContainerContext {
  readonly volumes: ReadonlyMap<string, JsonObject>;
  readonly gracePeriod: number;
}

function validatePorts(container: JsonObject, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  for (const [i, port] of objectItems(arrayAt(container, 'ports'))) {
    const at = path.index(i);
    const name = stringAt(port, 'name');
    if (name !== '') {
      const msgs = isValidPortName(name);
      if (msgs.length > 0) for (const msg of msgs) errs.push(invalidValue(at.child('name'), name, msg));
      else if (names.has(name)) errs.push(duplicate(at.child('name'), name));
      else names.add(name);
    }
    const containerPort = numberAt(port, 'containerPort') ?? 0;
    if (containerPort === 0) errs.push(required(at.child('containerPort'), ''));
    else for (const msg of isValidPortNum(containerPort)) errs.push(invalidValue(at.child('containerPort'), containerPort, msg));
    const hostPort = numberAt(port, 'hostPort') ?? 0;
    if (hostPort !== 0) for (const msg of isValidPortNum(hostPort)) errs.push(invalidValue(at.child('hostPort'), hostPort, msg));
    const protocol = stringAt(port, 'protocol');
    if (protocol === '') errs.push(required(at.child('protocol'), ''));
    else if (!PROTOCOLS.includes(protocol)) errs.push(notSupported(at.child('protocol'), protocol, PROTOCOLS));
  }
  return errs;
}

function validateResizePolicy(container: JsonObject, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  for (const [i, p] of objectItems(arrayAt(container, 'resizePolicy'))) {
    const at = path.index(i);
    const resource = stringAt(p, 'resourceName');
    if (seen.has(resource)) errs.push(duplicate(at.child('resourceName'), resource));
    seen.add(resource);
    if (!RESIZE_RESOURCES.includes(resource)) errs.push(notSupported(at.child('resourceName'), resource, RESIZE_RESOURCES));
    const policy = stringAt(p, 'restartPolicy');
    if (!RESIZE_POLICIES.includes(policy)) errs.push(notSupported(at.child('restartPolicy'), policy, RESIZE_POLICIES));
  }
  return errs;
}

/** The checks every kind of container shares (validateContainerCommon). */
function validateContainerCommon(c: JsonObject, ctx: ContainerContext, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const name = stringAt(c, 'name');
  if (name === '') errs.push(required(path.child('name'), ''));
  else for (const msg of isDNS1123Label(name)) errs.push(invalidValue(path.child('name'), name, msg));
  if (stringAt(c, 'image') === '') errs.push(required(path.child('image'), ''));
  const tmp = stringAt(c, 'terminationMessagePolicy');
  if (tmp === '') errs.push(required(path.child('terminationMessagePolicy'), "must be 'File' or 'FallbackToLogsOnError'"));
  else if (tmp !== 'File' && tmp !== 'FallbackToLogsOnError') errs.push(notSupported(path.child('terminationMessagePolicy'), tmp, ['File', 'FallbackToLogsOnError']));
  errs.push(...validatePorts(c, path.child('ports')));
  errs.push(...validateEnv(c, path.child('env')));
  errs.push(...validateEnvFrom(c, path.child('envFrom')));
  errs.push(...validateVolumeMounts(c, ctx.volumes, path.child('volumeMounts')));
  errs.push(...validateVolumeDevices(c, ctx.volumes, path.child('volumeDevices')));
  const pull = stringAt(c, 'imagePullPolicy');
  if (pull === '') errs.push(required(path.child('imagePullPolicy'), ''));
  else if (!PULL_POLICIES.includes(pull)) errs.push(notSupported(path.child('imagePullPolicy'), pull, ['Always', 'IfNotPresent', 'Never']));
  errs.push(...validateResourceRequirements(c, path.child('resources')));
  errs.push(...validateResizePolicy(c, path.child('resizePolicy')));
  errs.push(...validateSecurityContext(c, path.child('securityContext')));
  return errs;
}

function validateProbesAndHooks(c: JsonObject, ctx: ContainerContext, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const lifecycle = objectAt(c, 'lifecycle');
  if (lifecycle !== undefined) errs.push(...validateLifecycle(lifecycle, ctx.gracePeriod, path.child('lifecycle')));
  for (const kind of PROBES) errs.push(...validateProbe(c, kind, ctx.gracePeriod, path));
  return errs;
}

/** Host ports must not collide (`<protocol>/<hostIP>/<hostPort>`), within the containers given. */
function checkHostPortConflicts(containers: readonly JsonObject[], path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  for (let ci = 0; ci < containers.length; ci++) {
    const portsPath = path.index(ci).child('ports');
    for (const [pi, port] of objectItems(arrayAt(containers[ci]!, 'ports'))) {
      const hostPort = numberAt(port, 'hostPort') ?? 0;
      if (hostPort === 0) continue;
      const key = `${stringAt(port, 'protocol')}/${stringAt(port, 'hostIP')}/${hostPort}`;
      if (seen.has(key)) errs.push(duplicate(portsPath.index(pi).child('hostPort'), key));
      else seen.add(key);
    }
  }
  return errs;
}

const objects = (list: readonly unknown[]): JsonObject[] => [...objectItems(list)].map(([, o]) => o);

/** `containers`: at least one; names unique among them. */
export function validateContainers(spec: JsonObject, ctx: ContainerContext, path: FieldPath): FieldError[] {
  const list = arrayAt(spec, 'containers');
  if (list.length === 0) return [required(path, '')];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  for (const [i, c] of objectItems(list)) {
    const at = path.index(i);
    errs.push(...validateContainerCommon(c, ctx, at));
    const name = stringAt(c, 'name');
    if (names.has(name)) errs.push(duplicate(at.child('name'), name));
    else names.add(name);
    errs.push(...validateProbesAndHooks(c, ctx, at));
    if (c.restartPolicy !== undefined && c.restartPolicy !== null) errs.push(forbidden(at.child('restartPolicy'), 'may not be set for non-init containers'));
  }
  errs.push(...checkHostPortConflicts(objects(list), path));
  return errs;
}

const NOT_SIDECAR = 'may not be set for init containers without restartPolicy=Always';

/** `initContainers`: names unique across init and regular containers; probes and hooks only for sidecars. */
export function validateInitContainers(spec: JsonObject, ctx: ContainerContext, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  for (const [, c] of objectItems(arrayAt(spec, 'containers'))) names.add(stringAt(c, 'name'));
  for (const [i, c] of objectItems(arrayAt(spec, 'initContainers'))) {
    const at = path.index(i);
    errs.push(...validateContainerCommon(c, ctx, at));
    let sidecar = false;
    if (c.restartPolicy !== undefined && c.restartPolicy !== null) {
      const policy = stringAt(c, 'restartPolicy');
      if (policy !== 'Always') errs.push(notSupported(at.child('restartPolicy'), policy, ['Always']));
      else sidecar = true;
    }
    const name = stringAt(c, 'name');
    if (names.has(name)) errs.push(duplicate(at.child('name'), name));
    else if (name !== '') names.add(name);
    // Init containers run one at a time, so only their own host ports can collide (reported at index 0, as upstream).
    errs.push(...checkHostPortConflicts([c], path));
    if (sidecar) {
      errs.push(...validateProbesAndHooks(c, ctx, at));
    } else {
      if (c.lifecycle !== undefined && c.lifecycle !== null) errs.push(forbidden(at.child('lifecycle'), NOT_SIDECAR));
      for (const kind of PROBES) if (c[kind] !== undefined && c[kind] !== null) errs.push(forbidden(at.child(kind), NOT_SIDECAR));
    }
    if (arrayAt(c, 'resizePolicy').length > 0) errs.push(invalidValue(at.child('resizePolicy'), c.resizePolicy, 'must not be set for init containers'));
  }
  return errs;
}
