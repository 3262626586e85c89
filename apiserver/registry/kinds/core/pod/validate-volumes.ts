/**
 * Validation of `volumes` (names: DNS labels, unique; exactly one source; the common sources' own rules,
 * the in-tree ones' in validate-in-tree-volumes.ts) and of a container's `volumeMounts` / `volumeDevices`
 * against them (`Not found` for an unknown volume).
 */
import { type FieldError, type FieldPath, duplicate, forbidden, invalidValue, notFoundField, notSupported, required } from '../../../../validation/field-error.js';
import { isDNS1123Label, isDNS1123Subdomain } from '../../../../validation/names.js';
import { type JsonObject, arrayAt, isObject, objectAt, objectItems, stringAt } from './json-values.js';
import { isNegative, parseQuantity, QUANTITY_FORMAT_ERROR } from '../../shared/quantity.js';
import { validateObjectFieldSelector, validateResourceFieldSelector } from './validate-env.js';
import { type SourceCheck, type SourceContext, inTreeSourceChecks } from './validate-in-tree-volumes.js';
import { validateFileMode, validateLocalDescendingPath, validateLocalNonReservedPath, validatePathNoBacksteps } from './validate-paths.js';

/** Sources in the order Kubernetes checks them: a second one present is reported at its own path. */
const SOURCE_ORDER: readonly string[] = [
  'emptyDir', 'hostPath', 'gitRepo', 'gcePersistentDisk', 'awsElasticBlockStore', 'secret', 'nfs', 'iscsi', 'glusterfs',
  'flocker', 'persistentVolumeClaim', 'rbd', 'cinder', 'cephfs', 'quobyte', 'downwardAPI', 'fc', 'flexVolume', 'configMap',
  'azureFile', 'vsphereVolume', 'photonPersistentDisk', 'portworxVolume', 'azureDisk', 'storageos', 'projected', 'scaleIO',
  'csi', 'ephemeral', 'image',
];

/** Kubernetes' own path spellings: where a second source is refused, and where a source's rules report. */
const FORBIDDEN_AT: Readonly<Record<string, string>> = { cephfs: 'cephFS', downwardAPI: 'downwarAPI' };
const CHECKED_AT: Readonly<Record<string, string>> = { gcePersistentDisk: 'persistentDisk' };

/** Options of the pod spec being validated. */
export interface VolumeValidationOptions {
  /** A Pod rather than a template (stricter image volumes). Default false. */
  readonly resourceIsPod?: boolean;
}

const HOST_PATH_TYPES: readonly string[] = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'];
/** Pod fields a downward API volume file may read. */
const VOLUME_FIELD_PATHS: readonly string[] = ['metadata.annotations', 'metadata.labels', 'metadata.name', 'metadata.namespace', 'metadata.uid'];
const VOLUME_FIELD_PATH_SET = new Set(VOLUME_FIELD_PATHS);

function validateKeyToPaths(source: JsonObject, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const [i, item] of objectItems(arrayAt(source, 'items'))) {
    const at = path.index(i);
    if (stringAt(item, 'key') === '') errs.push(required(at.child('key'), ''));
    const p = stringAt(item, 'path');
    if (p === '') errs.push(required(at.child('path'), ''));
    errs.push(...validateLocalNonReservedPath(p, at.child('path')));
    errs.push(...validateFileMode(item.mode, at.child('mode')));
  }
  return errs;
}

function validateDownwardAPIFiles(source: JsonObject, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const [i, file] of objectItems(arrayAt(source, 'items'))) {
    const at = path.index(i);
    const p = stringAt(file, 'path');
    if (p === '') errs.push(required(at.child('path'), ''));
    errs.push(...validateLocalNonReservedPath(p, at.child('path')));
    errs.push(...validateFileMode(file.mode, at.child('mode')));
    const fieldRef = objectAt(file, 'fieldRef');
    const resourceFieldRef = objectAt(file, 'resourceFieldRef');
    if (fieldRef !== undefined) {
      errs.push(...validateObjectFieldSelector(fieldRef, VOLUME_FIELD_PATHS, VOLUME_FIELD_PATH_SET, at.child('fieldRef')));
      if (resourceFieldRef !== undefined) errs.push(invalidValue(at, 'resource', 'fieldRef and resourceFieldRef can not be specified simultaneously'));
    } else if (resourceFieldRef !== undefined) {
      errs.push(...validateResourceFieldSelector(resourceFieldRef, at.child('resourceFieldRef'), true));
    } else {
      errs.push(required(at, 'one of fieldRef and resourceFieldRef is required'));
    }
  }
  return errs;
}

const sourceChecks: Readonly<Record<string, SourceCheck>> = {
  ...inTreeSourceChecks,
  emptyDir: (s, at) => {
    if (s.sizeLimit === undefined || s.sizeLimit === null) return [];
    const q = parseQuantity(s.sizeLimit);
    if (q === undefined) return [invalidValue(at.child('sizeLimit'), s.sizeLimit, QUANTITY_FORMAT_ERROR)];
    return isNegative(q) ? [forbidden(at.child('sizeLimit'), 'SizeLimit field must be a valid resource quantity')] : [];
  },
  hostPath: (s, at) => {
    const errs: FieldError[] = [];
    const p = stringAt(s, 'path');
    if (p === '') errs.push(required(at.child('path'), ''));
    else errs.push(...validatePathNoBacksteps(p, at.child('path')));
    const type = stringAt(s, 'type');
    if (!HOST_PATH_TYPES.includes(type)) errs.push(notSupported(at.child('type'), type, HOST_PATH_TYPES));
    return errs;
  },
  secret: (s, at) => {
    const errs: FieldError[] = [];
    if (stringAt(s, 'secretName') === '') errs.push(required(at.child('secretName'), ''));
    errs.push(...validateFileMode(s.defaultMode, at.child('defaultMode')));
    errs.push(...validateKeyToPaths(s, at.child('items')));
    return errs;
  },
  configMap: (s, at) => {
    const errs: FieldError[] = [];
    if (stringAt(s, 'name') === '') errs.push(required(at.child('name'), ''));
    errs.push(...validateFileMode(s.defaultMode, at.child('defaultMode')));
    errs.push(...validateKeyToPaths(s, at.child('items')));
    return errs;
  },
  nfs: (s, at) => {
    const errs: FieldError[] = [];
    if (stringAt(s, 'server') === '') errs.push(required(at.child('server'), ''));
    const p = stringAt(s, 'path');
    if (p === '') errs.push(required(at.child('path'), ''));
    else if (!p.startsWith('/')) errs.push(invalidValue(at.child('path'), p, 'must be an absolute path'));
    return errs;
  },
  persistentVolumeClaim: (s, at) => (stringAt(s, 'claimName') === '' ? [required(at.child('claimName'), '')] : []),
  downwardAPI: (s, at) => [...validateFileMode(s.defaultMode, at.child('defaultMode')), ...validateDownwardAPIFiles(s, at.child('items'))],
  csi: (s, at) => {
    const driver = stringAt(s, 'driver');
    if (driver === '') return [required(at.child('driver'), '')];
    return isDNS1123Subdomain(driver.toLowerCase()).map((msg) => invalidValue(at.child('driver'), driver, msg));
  },
  projected: (s, at) => {
    const errs = validateFileMode(s.defaultMode, at.child('defaultMode'));
    for (const [i, src] of objectItems(arrayAt(s, 'sources'))) {
      const srcAt = at.child('sources').index(i);
      let count = 0;
      for (const kind of ['secret', 'configMap', 'downwardAPI', 'serviceAccountToken', 'clusterTrustBundle'] as const) {
        const p = objectAt(src, kind);
        if (p === undefined) continue;
        count++;
        const pAt = srcAt.child(kind);
        if (kind === 'secret' || kind === 'configMap') {
          if (stringAt(p, 'name') === '') errs.push(required(pAt.child('name'), ''));
          errs.push(...validateKeyToPaths(p, pAt.child('items')));
        } else if (kind === 'downwardAPI') {
          errs.push(...validateDownwardAPIFiles(p, pAt.child('items')));
        } else if (kind === 'serviceAccountToken') {
          const seconds = typeof p.expirationSeconds === 'number' ? p.expirationSeconds : 0;
          if (seconds < 10 * 60) errs.push(invalidValue(pAt.child('expirationSeconds'), seconds, 'may not specify a duration less than 10 minutes'));
          if (seconds > 2 ** 32) errs.push(invalidValue(pAt.child('expirationSeconds'), seconds, 'may not specify a duration larger than 2^32 seconds'));
          errs.push(...validateLocalNonReservedPath(stringAt(p, 'path'), pAt.child('path')));
        } else {
          const p2 = stringAt(p, 'path');
          if (p2 === '') errs.push(required(pAt.child('path'), ''));
          errs.push(...validateLocalNonReservedPath(p2, pAt.child('path')));
        }
      }
      if (count > 1) errs.push(forbidden(srcAt, 'may not specify more than 1 volume type per source'));
    }
    return errs;
  },
  ephemeral: (s, at) => {
    const template = objectAt(s, 'volumeClaimTemplate');
    if (template === undefined) return [required(at.child('volumeClaimTemplate'), '')];
    const specAt = at.child('volumeClaimTemplate').child('spec');
    const spec = objectAt(template, 'spec') ?? {};
    const errs: FieldError[] = [];
    if (arrayAt(spec, 'accessModes').length === 0) errs.push(required(specAt.child('accessModes'), 'at least 1 access mode is required'));
    const requests = objectAt(objectAt(spec, 'resources') ?? {}, 'requests');
    if (requests === undefined || requests.storage === undefined) errs.push(required(specAt.child('resources').key('storage'), ''));
    return errs;
  },
};

function validateVolumeSource(vol: JsonObject, path: FieldPath, opts: VolumeValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  const ctx: SourceContext = { volumeName: stringAt(vol, 'name'), volumePath: path, resourceIsPod: opts.resourceIsPod === true };
  let sources = 0;
  for (const name of SOURCE_ORDER) {
    const source = vol[name];
    if (source === undefined || source === null) continue;
    if (sources > 0) {
      errs.push(forbidden(path.child(FORBIDDEN_AT[name] ?? name), 'may not specify more than 1 volume type'));
      continue;
    }
    sources++;
    const check = sourceChecks[name];
    if (check !== undefined && isObject(source)) errs.push(...check(source, path.child(CHECKED_AT[name] ?? name), ctx));
  }
  if (sources === 0) errs.push(required(path, 'must specify a volume type'));
  return errs;
}

/** The valid volumes by name (what mounts may refer to), and the errors. */
export function validateVolumes(
  spec: JsonObject,
  path: FieldPath,
  opts: VolumeValidationOptions = {},
): { volumes: Map<string, JsonObject>; errors: FieldError[] } {
  const volumes = new Map<string, JsonObject>();
  const errors: FieldError[] = [];
  for (const [i, vol] of objectItems(arrayAt(spec, 'volumes'))) {
    const at = path.index(i);
    const namePath = at.child('name');
    const name = stringAt(vol, 'name');
    const errs = validateVolumeSource(vol, at, opts);
    if (name === '') errs.push(required(namePath, ''));
    else for (const msg of isDNS1123Label(name)) errs.push(invalidValue(namePath, name, msg));
    if (volumes.has(name)) errs.push(duplicate(namePath, name));
    if (errs.length === 0) volumes.set(name, vol);
    else errors.push(...errs);
  }
  return { volumes, errors };
}

const MOUNT_PROPAGATIONS: readonly string[] = ['Bidirectional', 'HostToContainer', 'None'];
const RECURSIVE_READ_ONLY: readonly string[] = ['Disabled', 'Enabled', 'IfPossible'];

/** `volumeMounts` of one container. */
export function validateVolumeMounts(container: JsonObject, volumes: ReadonlyMap<string, JsonObject>, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const devices = new Map<string, string>();
  for (const [, d] of objectItems(arrayAt(container, 'volumeDevices'))) devices.set(stringAt(d, 'name'), stringAt(d, 'devicePath'));
  const devicePaths = new Set(devices.values());
  const mountPoints = new Set<string>();
  const privileged = objectAt(container, 'securityContext')?.privileged === true;
  for (const [i, m] of objectItems(arrayAt(container, 'volumeMounts'))) {
    const at = path.index(i);
    const name = stringAt(m, 'name');
    const mountPath = stringAt(m, 'mountPath');
    if (name === '') errs.push(required(at.child('name'), ''));
    if (!volumes.has(name)) errs.push(notFoundField(at.child('name'), name));
    if (mountPath === '') errs.push(required(at.child('mountPath'), ''));
    if (mountPoints.has(mountPath)) errs.push(invalidValue(at.child('mountPath'), mountPath, 'must be unique'));
    mountPoints.add(mountPath);
    if (devices.has(name)) errs.push(invalidValue(at.child('name'), name, 'must not already exist in volumeDevices'));
    if (devicePaths.has(mountPath)) errs.push(invalidValue(at.child('mountPath'), mountPath, 'must not already exist as a path in volumeDevices'));
    // Kubernetes reports sub-path problems at the list's path, not the entry's.
    const subPath = stringAt(m, 'subPath');
    if (subPath !== '') errs.push(...validateLocalDescendingPath(subPath, path.child('subPath')));
    const subPathExpr = stringAt(m, 'subPathExpr');
    if (subPathExpr !== '') {
      if (subPath !== '') errs.push(invalidValue(at.child('subPathExpr'), subPathExpr, 'subPathExpr and subPath are mutually exclusive'));
      errs.push(...validateLocalDescendingPath(subPathExpr, path.child('subPathExpr')));
    }
    if (typeof m.mountPropagation === 'string') {
      const mp = m.mountPropagation;
      if (!MOUNT_PROPAGATIONS.includes(mp)) errs.push(notSupported(path.child('mountPropagation'), mp, MOUNT_PROPAGATIONS));
      else if (mp === 'Bidirectional' && !privileged) {
        errs.push(forbidden(path.child('mountPropagation'), 'Bidirectional mount propagation is available only to privileged containers'));
      }
    }
    if (typeof m.recursiveReadOnly === 'string') {
      const rro = m.recursiveReadOnly;
      if (!RECURSIVE_READ_ONLY.includes(rro)) errs.push(notSupported(path.child('recursiveReadOnly'), rro, RECURSIVE_READ_ONLY));
      else if (rro !== 'Disabled' && m.readOnly !== true) errs.push(forbidden(path.child('recursiveReadOnly'), 'may only be specified when readOnly is true'));
    }
  }
  return errs;
}

/** `volumeDevices` of one container: only persistentVolumeClaim or ephemeral volumes. */
export function validateVolumeDevices(container: JsonObject, volumes: ReadonlyMap<string, JsonObject>, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const mounts = new Map<string, string>();
  for (const [, m] of objectItems(arrayAt(container, 'volumeMounts'))) mounts.set(stringAt(m, 'name'), stringAt(m, 'mountPath'));
  const mountPaths = new Set(mounts.values());
  const names = new Set<string>();
  const paths = new Set<string>();
  for (const [i, d] of objectItems(arrayAt(container, 'volumeDevices'))) {
    const at = path.index(i);
    const name = stringAt(d, 'name');
    const devicePath = stringAt(d, 'devicePath');
    const vol = volumes.get(name);
    if (name === '') errs.push(required(at.child('name'), ''));
    if (names.has(name)) errs.push(invalidValue(at.child('name'), name, 'must be unique'));
    if (vol !== undefined && vol.persistentVolumeClaim === undefined && vol.ephemeral === undefined) {
      errs.push(invalidValue(at.child('name'), name, 'can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode'));
    }
    if (vol === undefined) errs.push(notFoundField(at.child('name'), name));
    if (devicePath === '') errs.push(required(at.child('devicePath'), ''));
    if (paths.has(devicePath)) errs.push(invalidValue(at.child('devicePath'), devicePath, 'must be unique'));
    if (devicePath !== '' && validatePathNoBacksteps(devicePath, at).length > 0) {
      errs.push(invalidValue(at.child('devicePath'), devicePath, "can not contain backsteps ('..')"));
    } else {
      paths.add(devicePath);
    }
    if (mounts.has(name)) errs.push(invalidValue(at.child('name'), name, 'must not already exist in volumeMounts'));
    if (mountPaths.has(devicePath)) errs.push(invalidValue(at.child('devicePath'), devicePath, 'must not already exist as a path in volumeMounts'));
    if (name !== '') names.add(name);
  }
  return errs;
}
