/**
 * Validation of the in-tree volume sources (in-tree-volume-schema.ts), rule for rule and message for
 * message as Kubernetes' ValidateVolumes checks them: required fields, iSCSI names and LUNs, Fibre
 * Channel target/wwid choice, Quobyte registries, Flocker datasets, azureDisk caching modes, kinds and
 * disk URIs, FlexVolume option namespaces, StorageOS DNS labels, gitRepo directories, image pull policies.
 *
 * A list field that is absent is reported by the schema (its `required`), so these checks report it only
 * when present and empty: together they give Kubernetes' single "Required value".
 */
import { type FieldError, type FieldPath, invalidValue, notSupported, required } from '../../../../validation/field-error.js';
import { isDNS1123Label } from '../../../../validation/names.js';
import { type JsonObject, arrayAt, isObject, numberAt, objectAt, stringAt } from './json-values.js';
import { validateLocalDescendingPath } from './validate-paths.js';

/** What a source check may need beyond its own object. */
export interface SourceContext {
  /** The volume's `name` and its path (`volumes[i]`): some rules report at the volume's name. */
  readonly volumeName: string;
  readonly volumePath: FieldPath;
  /** A Pod (not a template): an image volume must then name its reference. */
  readonly resourceIsPod: boolean;
}

export type SourceCheck = (source: JsonObject, at: FieldPath, ctx: SourceContext) => FieldError[];

const PARTITION_ERROR = 'must be between 1 and 255, inclusive';
const LUN_ERROR = 'must be between 0 and 255, inclusive';

// Kubernetes' patterns; the iqn one is not anchored at the start, as upstream.
const IQN = /iqn\.\d{4}-\d{2}\.([A-Za-z0-9.-]+)(:[^,;*&$|\t\n\v\f\r ]+)$/;
const EUI = /^eui.[A-Za-z0-9]{16}$/;
const NAA = /^naa.[A-Za-z0-9]{32}$/;

const CACHING_MODES: readonly string[] = ['None', 'ReadOnly', 'ReadWrite'];
const DISK_KINDS: readonly string[] = ['Dedicated', 'Managed', 'Shared'];
const MANAGED_DISK_URI = ['/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}'];
const BLOB_DISK_URI = ['https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd'];
const PULL_POLICIES: readonly string[] = ['Always', 'IfNotPresent', 'Never'];
const QUOBYTE_REGISTRY_ERROR = 'must be a host:port pair or multiple pairs separated by commas';

/** `Required value` at `at.<name>` for each named string field that is empty or absent. */
function requireStrings(s: JsonObject, at: FieldPath, ...names: string[]): FieldError[] {
  return names.filter((n) => stringAt(s, n) === '').map((n) => required(at.child(n), ''));
}

/** A list the schema requires: empty when present is the hook's to report. */
function requireNonEmptyList(s: JsonObject, at: FieldPath, name: string): FieldError[] {
  return Array.isArray(s[name]) && s[name].length === 0 ? [required(at.child(name), '')] : [];
}

/** A secretRef, when set, must name its Secret. */
function secretRefName(s: JsonObject, at: FieldPath): FieldError[] {
  const ref = objectAt(s, 'secretRef');
  return ref !== undefined && stringAt(ref, 'name') === '' ? [required(at.child('secretRef').child('name'), '')] : [];
}

function partitionRange(s: JsonObject, at: FieldPath): FieldError[] {
  const p = numberAt(s, 'partition') ?? 0;
  return p < 0 || p > 255 ? [invalidValue(at.child('partition'), p, PARTITION_ERROR)] : [];
}

/** The iqn/eui/naa formats of an iSCSI name (a target's iqn or an initiator name). */
function iscsiNameErrors(name: string, path: FieldPath): FieldError[] {
  if (!name.startsWith('iqn') && !name.startsWith('eui') && !name.startsWith('naa')) {
    return [invalidValue(path, name, 'must be valid format starting with iqn, eui, or naa')];
  }
  const re = name.startsWith('iqn') ? IQN : name.startsWith('eui') ? EUI : NAA;
  return re.test(name) ? [] : [invalidValue(path, name, 'must be valid format')];
}

/** Go's net.SplitHostPort succeeds: a port after the last colon, a bracketed host if it has colons. */
function isHostPort(hp: string): boolean {
  const i = hp.lastIndexOf(':');
  if (i < 0) return false;
  let hostStart = 0;
  let portStart = i + 1;
  if (hp.startsWith('[')) {
    const end = hp.indexOf(']');
    if (end < 0 || end + 1 !== i) return false;
    hostStart = 1;
    portStart = end + 1;
  } else if (hp.slice(0, i).includes(':')) {
    return false;
  }
  return !hp.slice(hostStart).includes('[') && !hp.slice(portStart).includes(']');
}

/** Option keys in the kubernetes.io or k8s.io namespaces (the part before the first '/'). */
function reservedOptionKey(key: string): boolean {
  const slash = key.indexOf('/');
  const ns = `.${(slash < 0 ? key : key.slice(0, slash)).toLowerCase()}`;
  return ns.endsWith('.kubernetes.io') || ns.endsWith('.k8s.io');
}

function dns1123Label(value: string, path: FieldPath): FieldError[] {
  return isDNS1123Label(value).map((msg) => invalidValue(path, value, msg));
}

/** Checks by source name; `at` is the source's path (gcePersistentDisk's is `persistentDisk`, as upstream). */
export const inTreeSourceChecks: Readonly<Record<string, SourceCheck>> = {
  awsElasticBlockStore: (s, at) => [...requireStrings(s, at, 'volumeID'), ...partitionRange(s, at)],
  azureDisk: (s, at) => {
    const errs = requireStrings(s, at, 'diskName', 'diskURI');
    const caching = s.cachingMode;
    if (typeof caching === 'string' && !CACHING_MODES.includes(caching)) errs.push(notSupported(at.child('cachingMode'), caching, CACHING_MODES));
    const kind = s.kind;
    if (typeof kind === 'string') {
      if (!DISK_KINDS.includes(kind)) errs.push(notSupported(at.child('kind'), kind, DISK_KINDS));
      const uri = stringAt(s, 'diskURI');
      if (kind === 'Managed' && !uri.startsWith('/subscriptions/')) errs.push(notSupported(at.child('diskURI'), uri, MANAGED_DISK_URI));
      if (kind !== 'Managed' && !uri.startsWith('https://')) errs.push(notSupported(at.child('diskURI'), uri, BLOB_DISK_URI));
    }
    return errs;
  },
  azureFile: (s, at) => requireStrings(s, at, 'secretName', 'shareName'),
  cephfs: (s, at) => requireNonEmptyList(s, at, 'monitors'),
  cinder: (s, at) => [...requireStrings(s, at, 'volumeID'), ...secretRefName(s, at)],
  fc: (s, at) => {
    const errs: FieldError[] = [];
    const wwns = arrayAt(s, 'targetWWNs');
    const wwids = arrayAt(s, 'wwids');
    if (wwns.length === 0 && wwids.length === 0) errs.push(required(at.child('targetWWNs'), 'must specify either targetWWNs or wwids, but not both'));
    if (wwns.length > 0 && wwids.length > 0) errs.push(invalidValue(at.child('targetWWNs'), wwns, 'targetWWNs and wwids can not be specified simultaneously'));
    if (wwns.length > 0) {
      const lun = numberAt(s, 'lun');
      if (lun === undefined) errs.push(required(at.child('lun'), 'lun is required if targetWWNs is specified'));
      else if (lun < 0 || lun > 255) errs.push(invalidValue(at.child('lun'), lun, LUN_ERROR));
    }
    return errs;
  },
  flexVolume: (s, at) => {
    const errs = requireStrings(s, at, 'driver');
    for (const key of Object.keys(objectAt(s, 'options') ?? {})) {
      if (reservedOptionKey(key)) errs.push(invalidValue(at.child('options').key(key), key, 'kubernetes.io and k8s.io namespaces are reserved'));
    }
    return errs;
  },
  flocker: (s, at) => {
    const errs: FieldError[] = [];
    const name = stringAt(s, 'datasetName');
    const uuid = stringAt(s, 'datasetUUID');
    if (name === '' && uuid === '') errs.push(required(at, 'one of datasetName and datasetUUID is required'));
    if (name !== '' && uuid !== '') errs.push(invalidValue(at, 'resource', 'datasetName and datasetUUID can not be specified simultaneously'));
    if (name.includes('/')) errs.push(invalidValue(at.child('datasetName'), name, "must not contain '/'"));
    return errs;
  },
  gcePersistentDisk: (s, at) => [...requireStrings(s, at, 'pdName'), ...partitionRange(s, at)],
  gitRepo: (s, at) => [...requireStrings(s, at, 'repository'), ...validateLocalDescendingPath(stringAt(s, 'directory'), at.child('directory'))],
  glusterfs: (s, at) => requireStrings(s, at, 'endpoints', 'path'),
  image: (s, at, ctx) => {
    const errs = ctx.resourceIsPod ? requireStrings(s, at, 'reference') : [];
    const policy = stringAt(s, 'pullPolicy');
    if (policy === '') errs.push(required(at.child('pullPolicy'), ''));
    else if (!PULL_POLICIES.includes(policy)) errs.push(notSupported(at.child('pullPolicy'), policy, PULL_POLICIES));
    return errs;
  },
  iscsi: (s, at, ctx) => {
    const errs = requireStrings(s, at, 'targetPortal');
    const iqn = stringAt(s, 'iqn');
    if (iqn === '') errs.push(required(at.child('iqn'), ''));
    else errs.push(...iscsiNameErrors(iqn, at.child('iqn')));
    const lun = numberAt(s, 'lun') ?? 0;
    if (lun < 0 || lun > 255) errs.push(invalidValue(at.child('lun'), lun, LUN_ERROR));
    if ((s.chapAuthDiscovery === true || s.chapAuthSession === true) && !isObject(s.secretRef)) errs.push(required(at.child('secretRef'), ''));
    const initiator = s.initiatorName;
    if (typeof initiator === 'string') {
      // Kubernetes reports the initiator at a lower-case `initiatorname`.
      errs.push(...iscsiNameErrors(initiator, at.child('initiatorname')));
      if (`${ctx.volumeName}:${stringAt(s, 'targetPortal')}`.length > 64) {
        errs.push(
          invalidValue(
            ctx.volumePath.child('name'),
            ctx.volumeName,
            'Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified.',
          ),
        );
      }
    }
    return errs;
  },
  photonPersistentDisk: (s, at) => requireStrings(s, at, 'pdID'),
  portworxVolume: (s, at) => requireStrings(s, at, 'volumeID'),
  quobyte: (s, at) => {
    const errs: FieldError[] = [];
    const registry = stringAt(s, 'registry');
    if (registry === '') errs.push(required(at.child('registry'), QUOBYTE_REGISTRY_ERROR));
    else if (stringAt(s, 'tenant').length >= 65) errs.push(required(at.child('tenant'), 'must be a UUID and may not exceed a length of 64 characters'));
    else for (const pair of registry.split(',')) if (!isHostPort(pair)) errs.push(invalidValue(at.child('registry'), registry, QUOBYTE_REGISTRY_ERROR));
    errs.push(...requireStrings(s, at, 'volume'));
    return errs;
  },
  rbd: (s, at) => [...requireNonEmptyList(s, at, 'monitors'), ...requireStrings(s, at, 'image')],
  scaleIO: (s, at) => requireStrings(s, at, 'gateway', 'system', 'volumeName'),
  storageos: (s, at) => {
    const name = stringAt(s, 'volumeName');
    const errs = name === '' ? [required(at.child('volumeName'), '')] : dns1123Label(name, at.child('volumeName'));
    const ns = stringAt(s, 'volumeNamespace');
    if (ns !== '') errs.push(...dns1123Label(ns, at.child('volumeNamespace')));
    errs.push(...secretRefName(s, at));
    return errs;
  },
  vsphereVolume: (s, at) => requireStrings(s, at, 'volumePath'),
};
