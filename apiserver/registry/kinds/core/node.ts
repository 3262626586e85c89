/**
 * Node (core/v1): cluster-scoped, with a `status` sub-resource. Unlike most kinds, the whole object,
 * status included, may be set on create (the node agent registers itself that way); afterwards the main
 * endpoint keeps the old status and `/status` keeps the old spec. Validation follows Kubernetes v1.32
 * (`ValidateNode`, `ValidateNodeUpdate`): taints, pod CIDRs (valid, at most one per IP family, set once),
 * `providerID` and `externalID` set once, resource quantities, unique addresses on update. Document 2's
 * rules on top: `podCIDRs[0]` equals `podCIDR` when both are given (the server fills in a missing one but
 * never rewrites a given one), address types are the listed ones, condition statuses are True, False or
 * Unknown, `nodeInfo` members are required (schema), and allocatable defaults to capacity.
 *
 * The node agent's member names follow the naming (`nodesFor`, shared/node-schema.ts): `nodeagentVersion`
 * in the documents' names, `kubeletVersion` under `k8s.io`.
 */
import type { KubeObject } from '../../../api/object.js';
import type { Naming } from '../../../naming/naming.js';
import { duplicate, forbidden, FieldPath, invalidValue, notSupported, required, type FieldError } from '../../../validation/field-error.js';
import { isQualifiedName, isValidLabelValue } from '../../../validation/names.js';
import type { KindStrategy, StrategyContext } from '../../kind-strategy.js';
import { cidrFamily } from '../shared/cidr.js';
import { TAINT_EFFECTS } from '../shared/common-schemas.js';
import { nodeSchemaFor } from '../shared/node-schema.js';
import { validateResourceList } from '../shared/quantity-checks.js';
import { ageCell, ageColumn, column, nameCell, nameColumn, table } from '../shared/table.js';

type Rec = Record<string, unknown>;
const record = (v: unknown): Rec | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : undefined);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

const EFFECTS: readonly string[] = TAINT_EFFECTS;

/** The pod CIDRs, `spec.podCIDRs` winning over `spec.podCIDR` as Kubernetes' conversion decides. */
function podCIDRs(spec: Rec | undefined): string[] {
  const many = list(spec?.podCIDRs).filter((c): c is string => typeof c === 'string');
  if (many.length > 0) return many;
  const one = text(spec?.podCIDR);
  return one === '' ? [] : [one];
}

/**
 * Fills in whichever of `podCIDR` and `podCIDRs` is missing from the other (entry 0 is `podCIDR`). Given
 * values are never rewritten: two that disagree are refused by validation.
 */
function syncPodCIDRs(node: KubeObject): void {
  const spec = record(node.spec);
  if (spec === undefined) return;
  const many = list(spec.podCIDRs);
  const one = text(spec.podCIDR);
  if (many.length === 0 && one !== '') spec.podCIDRs = [one];
  else if (one === '' && typeof many[0] === 'string') spec.podCIDR = many[0];
}

/** Document 2: allocatable defaults to capacity. */
function defaultAllocatable(node: KubeObject): void {
  const status = record(node.status);
  if (status?.capacity !== undefined && status.allocatable === undefined) status.allocatable = structuredClone(status.capacity);
}

/** The address types document 2 lists; Kubernetes' node agents also report the two DNS types. */
const ADDRESS_TYPES = Object.freeze(['ExternalIP', 'Hostname', 'InternalIP']);
const KUBERNETES_ADDRESS_TYPES = Object.freeze(['ExternalDNS', 'ExternalIP', 'Hostname', 'InternalDNS', 'InternalIP']);
const CONDITION_STATUSES = Object.freeze(['False', 'True', 'Unknown']);

/** The status rules of document 2 that Kubernetes leaves unchecked: address types, condition statuses. */
function validateStatusValues(node: KubeObject, naming: Naming, errs: FieldError[]): void {
  const status = record(node.status);
  const types = naming.nodeAgent === 'kubelet' ? KUBERNETES_ADDRESS_TYPES : ADDRESS_TYPES;
  const addresses = FieldPath.root('status').child('addresses');
  list(status?.addresses).forEach((a, i) => {
    const type = text(record(a)?.type);
    if (type !== '' && !types.includes(type)) errs.push(notSupported(addresses.index(i).child('type'), type, types));
  });
  const conditions = FieldPath.root('status').child('conditions');
  list(status?.conditions).forEach((c, i) => {
    const value = text(record(c)?.status);
    if (value !== '' && !CONDITION_STATUSES.includes(value)) errs.push(notSupported(conditions.index(i).child('status'), value, CONDITION_STATUSES));
  });
}

// Kubernetes reports taint errors under `metadata.taints` (its ValidateNode passes the metadata path);
// kept so clients see the same messages.
const taintsPath = FieldPath.root('metadata').child('taints');

function validateTaints(taints: unknown[], errs: FieldError[]): void {
  const seen = new Map<string, Set<string>>();
  taints.forEach((t, i) => {
    const taint = record(t) ?? {};
    const at = taintsPath.index(i);
    const key = text(taint.key);
    const effect = text(taint.effect);
    for (const msg of isQualifiedName(key)) errs.push(invalidValue(at.child('key'), key, msg));
    const value = text(taint.value);
    const valueErrs = isValidLabelValue(value);
    if (valueErrs.length > 0) errs.push(invalidValue(at.child('value'), value, valueErrs.join(';')));
    if (effect === '') errs.push(required(at.child('effect'), ''));
    else if (!EFFECTS.includes(effect)) errs.push(notSupported(at.child('effect'), effect, EFFECTS));
    const keys = seen.get(effect);
    if (keys?.has(key)) {
      errs.push({ ...duplicate(at, taint), detail: 'taints must be unique by key and effect pair' });
      return;
    }
    if (keys === undefined) seen.set(effect, new Set([key]));
    else keys.add(key);
  });
}

function validatePodCIDRs(spec: Rec | undefined, errs: FieldError[]): void {
  const cidrs = list(spec?.podCIDRs);
  if (cidrs.length === 0) return;
  const path = FieldPath.root('spec').child('podCIDRs');
  const one = text(spec?.podCIDR);
  if (one !== '' && cidrs[0] !== one) errs.push(invalidValue(path.index(0), cidrs[0], `must equal spec.podCIDR ("${one}")`));
  const families: (4 | 6 | undefined)[] = cidrs.map((c, i) => {
    const family = typeof c === 'string' ? cidrFamily(c) : undefined;
    if (family === undefined) errs.push(invalidValue(path.index(i), c, 'must be valid CIDR'));
    return family;
  });
  if (cidrs.length < 2 || families.includes(undefined)) return;
  if (cidrs.length > 2 || families[0] === families[1]) errs.push(invalidValue(path, cidrs, 'may specify no more than one CIDR for each IP family'));
  const seen = new Set<unknown>();
  cidrs.forEach((c, i) => {
    if (seen.has(c)) errs.push(duplicate(path.index(i), c));
    seen.add(c);
  });
}

/** What both node update paths check (ValidateNodeUpdate): unique addresses, set-once spec fields. */
function validateNodeUpdate(node: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  list(record(node.status)?.addresses).forEach((a, i) => {
    const addr = record(a) ?? {};
    const id = `${text(addr.type)}\u0000${text(addr.address)}`;
    if (seen.has(id)) errs.push(duplicate(FieldPath.root('status').child('addresses').index(i), a));
    seen.add(id);
  });
  const spec = record(node.spec);
  const oldSpec = record(old.spec);
  // The controller manager may assign CIDRs and provider IDs once; they never change afterwards.
  const oldCIDRs = podCIDRs(oldSpec);
  if (oldCIDRs.length > 0) {
    const cidrs = podCIDRs(spec);
    const msg = 'node updates may not change podCIDR except from "" to valid';
    if (cidrs.length !== oldCIDRs.length) errs.push(forbidden('spec.podCIDRs', msg));
    else oldCIDRs.forEach((c, i) => c !== cidrs[i] && errs.push(forbidden('spec.podCIDRs', msg)));
  }
  const oldProvider = text(oldSpec?.providerID);
  if (oldProvider !== '' && oldProvider !== text(spec?.providerID)) {
    errs.push(forbidden('spec.providerID', 'node updates may not change providerID except from "" to valid'));
  }
  if (text(spec?.externalID) !== text(oldSpec?.externalID)) errs.push(forbidden('spec.externalID', 'may not be updated'));
  const status = record(node.status);
  validateResourceList(status?.capacity, 'status.capacity', errs);
  validateResourceList(status?.allocatable, 'status.allocatable', errs);
  return errs;
}

/** The node role labels kubectl shows: `node-role.<domain>/<role>` keys and the legacy `<domain>/role`. */
function roles(node: KubeObject): string {
  const found = new Set<string>();
  for (const [key, value] of Object.entries(node.metadata.labels ?? {})) {
    const slash = key.indexOf('/');
    if (slash < 0) continue;
    const prefix = key.slice(0, slash);
    const name = key.slice(slash + 1);
    if (prefix.startsWith('node-role.')) {
      if (name !== '') found.add(name);
    } else if (name === 'role' && value !== '' && (prefix === 'kubernetes.io' || prefix.split('.').length === 2)) {
      found.add(value);
    }
  }
  return found.size === 0 ? '<none>' : [...found].sort().join(',');
}

/** STATUS: Ready / NotReady / Unknown, plus SchedulingDisabled when cordoned. */
function nodeStatus(node: KubeObject): string {
  const ready = list(record(node.status)?.conditions)
    .map(record)
    .find((c) => c?.type === 'Ready');
  const parts = [ready === undefined ? 'Unknown' : ready.status === 'True' ? 'Ready' : 'NotReady'];
  if (record(node.spec)?.unschedulable === true) parts.push('SchedulingDisabled');
  return parts.join(',');
}

function address(node: KubeObject, type: string): string {
  const a = list(record(node.status)?.addresses)
    .map(record)
    .find((x) => x?.type === type);
  return a === undefined ? '<none>' : text(a.address);
}

const orUnknown = (v: unknown): string => (typeof v === 'string' && v !== '' ? v : '<unknown>');

/** Drops the removed dynamic-configuration fields, except where an existing node still uses them. */
function dropRemovedFields(node: KubeObject, old: KubeObject | undefined): void {
  const spec = record(node.spec);
  if (spec !== undefined && (old === undefined || record(old.spec)?.configSource === undefined)) delete spec.configSource;
  if (old === undefined) {
    const status = record(node.status);
    if (status !== undefined) delete status.config;
  }
}

const strategies = new Map<Naming['nodeAgent'], KindStrategy>();

/** The Node kind under `naming` (its schema spells the node agent's members per the naming). */
export function nodesFor(naming: Naming): KindStrategy {
  let s = strategies.get(naming.nodeAgent);
  if (s === undefined) {
    s = Object.freeze({ ...nodes, schema: nodeSchemaFor(naming) });
    strategies.set(naming.nodeAgent, s);
  }
  return s;
}

/** The Node kind in the documents' names (`nodeagentVersion`); `nodesFor` gives the other spelling. */
export const nodes = Object.freeze({
  group: '',
  version: 'v1',
  kind: 'Node',
  resource: 'nodes',
  singular: 'node',
  namespaced: false,
  shortNames: Object.freeze(['no']),
  subresources: Object.freeze(['status'] as const),
  schema: nodeSchemaFor({ nodeAgent: 'nodeagent' }),
  table: table(
    [
      nameColumn,
      column('Status', 'string', 'The status of the node.'),
      column('Roles', 'string', 'The roles of the node.'),
      ageColumn,
      column('Version', 'string', 'Node agent version reported by the node.'),
      column('Internal-IP', 'string', 'The first InternalIP address of the node.', 1),
      column('External-IP', 'string', 'The first ExternalIP address of the node.', 1),
      column('OS-Image', 'string', 'OS image reported by the node.', 1),
      column('Kernel-Version', 'string', 'Kernel version reported by the node.', 1),
      column('Container-Runtime', 'string', 'Container runtime version reported by the node.', 1),
    ],
    (node, now) => {
      const info = record(record(node.status)?.nodeInfo);
      return [
        nameCell(node),
        nodeStatus(node),
        roles(node),
        ageCell(node, now),
        // Only one of the two survives decoding, per the naming.
        text(info?.kubeletVersion ?? info?.nodeagentVersion),
        address(node, 'InternalIP'),
        address(node, 'ExternalIP'),
        orUnknown(info?.osImage),
        orUnknown(info?.kernelVersion),
        orUnknown(info?.containerRuntimeVersion),
      ];
    },
  ),
  selectableFields: Object.freeze({
    'spec.unschedulable': (node: KubeObject) => String(record(node.spec)?.unschedulable === true),
  }),

  prepareForCreate(node: KubeObject): void {
    dropRemovedFields(node, undefined);
    syncPodCIDRs(node);
  },

  prepareForUpdate(node: KubeObject, old: KubeObject): void {
    // A copy: `old` may be shared with the store's cache, and later hooks may change `node`.
    if (old.status === undefined) delete node.status;
    else node.status = structuredClone(old.status);
    dropRemovedFields(node, old);
    syncPodCIDRs(node);
  },

  validate(node: KubeObject, ctx: StrategyContext): FieldError[] {
    const errs: FieldError[] = [];
    const spec = record(node.spec);
    validateTaints(list(spec?.taints), errs);
    const status = record(node.status);
    validateResourceList(status?.capacity, 'status.capacity', errs);
    validateResourceList(status?.allocatable, 'status.allocatable', errs);
    validatePodCIDRs(spec, errs);
    validateStatusValues(node, ctx.naming, errs);
    return errs;
  },

  validateUpdate(node: KubeObject, old: KubeObject): FieldError[] {
    // Capacity and allocatable were checked by validate already.
    const errs = validateNodeUpdate(node, old);
    return errs.filter((e) => !e.field.startsWith('status.capacity.') && !e.field.startsWith('status.allocatable.'));
  },

  validateStatusUpdate(node: KubeObject, old: KubeObject, ctx: StrategyContext): FieldError[] {
    const errs = validateNodeUpdate(node, old);
    validateStatusValues(node, ctx.naming, errs);
    return errs;
  },

  // A default the schema cannot state, applied to whatever status is about to be stored (create, and
  // `/status` writes; the main endpoint keeps the stored status).
  canonicalize: defaultAllocatable,
} satisfies KindStrategy);
