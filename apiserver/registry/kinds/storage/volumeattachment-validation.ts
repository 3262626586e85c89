/**
 * VolumeAttachment validation as Kubernetes v1.32 does it (pkg/apis/storage/validation and the v1
 * strategy's extra checks for new objects): the attacher is required and, as a CSI driver name, a DNS
 * subdomain of at most 63 characters (checked lower-cased); the source sets exactly one of
 * `persistentVolumeName` (a valid PersistentVolume name) and `inlineVolumeSpec`; the node name is
 * required; the status' attachment metadata is at most 256 KiB and each error message at most 1024
 * bytes. The spec never changes after creation.
 */
import type { KubeObject } from '../../../api/object.js';
import { forbidden, invalidValue, required, tooLong, type FieldError } from '../../../validation/field-error.js';
import { isDNS1123Subdomain } from '../../../validation/names.js';
import { jsonEqual } from '../../patch/json-value.js';

const MAX_METADATA_SIZE = 256 * 1024;
const MAX_ERROR_MESSAGE_SIZE = 1024;
const MAX_DRIVER_NAME = 63;
const EXACTLY_ONE = 'must specify exactly one of inlineVolumeSpec and persistentVolumeName';

type Rec = Record<string, unknown>;
const record = (v: unknown): Rec | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : undefined);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const set = (v: unknown): boolean => v !== undefined && v !== null;

function validateSource(source: Rec | undefined, errs: FieldError[]): void {
  const pv = source?.persistentVolumeName;
  const inline = source?.inlineVolumeSpec;
  if (!set(pv) && !set(inline)) errs.push(required('spec.source', EXACTLY_ONE));
  else if (set(pv) && set(inline)) errs.push(forbidden('spec.source', EXACTLY_ONE));
  else if (set(pv) && text(pv) === '') errs.push(required('spec.source.persistentVolumeName', 'must specify non empty persistentVolumeName'));
}

function validateStatus(status: Rec | undefined, errs: FieldError[]): void {
  let size = 0;
  for (const [k, v] of Object.entries(record(status?.attachmentMetadata) ?? {})) size += Buffer.byteLength(k) + Buffer.byteLength(text(v));
  if (size > MAX_METADATA_SIZE) errs.push(tooLong('status.attachmentMetadata', MAX_METADATA_SIZE));
  for (const name of ['attachError', 'detachError']) {
    const message = text(record(status?.[name])?.message);
    // Kubernetes checks 1024 bytes but names the metadata limit in the message; its cause says so too.
    if (Buffer.byteLength(message) > MAX_ERROR_MESSAGE_SIZE) errs.push(tooLong(`status.${name}.message`, MAX_METADATA_SIZE));
  }
}

/** The checks of every write: metadata aside (the registry checks it), spec and status. */
export function validateVolumeAttachment(va: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = record(va.spec);
  if (text(spec?.attacher) === '') errs.push(required('spec.attacher', ''));
  validateSource(record(spec?.source), errs);
  if (text(spec?.nodeName) === '') errs.push(required('spec.nodeName', ''));
  validateStatus(record(va.status), errs);
  return errs;
}

/**
 * The checks Kubernetes added for v1 objects, after the general ones: the attacher as a CSI driver name
 * and the persistent volume's name as a PersistentVolume name (a DNS subdomain). Only creates reach them
 * with a new spec, since the spec is immutable.
 */
export function validateVolumeAttachmentV1(va: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = record(va.spec);
  const attacher = text(spec?.attacher);
  if (attacher === '') errs.push(required('spec.attacher', ''));
  if (attacher.length > MAX_DRIVER_NAME) errs.push(tooLong('spec.attacher', MAX_DRIVER_NAME));
  for (const msg of isDNS1123Subdomain(attacher.toLowerCase())) errs.push(invalidValue('spec.attacher', attacher, msg));
  const pv = record(spec?.source)?.persistentVolumeName;
  if (typeof pv === 'string') for (const msg of isDNS1123Subdomain(pv)) errs.push(invalidValue('spec.source.persistentVolumeName', pv, msg));
  return errs;
}

/** The spec is read-only: any change is one `spec: Invalid value: ...: field is immutable`. */
export function validateSpecUnchanged(va: KubeObject, old: KubeObject): FieldError[] {
  return jsonEqual(va.spec, old.spec) ? [] : [invalidValue('spec', va.spec, 'field is immutable')];
}

