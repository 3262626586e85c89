/**
 * StorageClass validation as Kubernetes v1.32 does it (pkg/apis/storage/validation): the provisioner is a
 * qualified name (checked lower-cased), parameters at most 512 entries and 256 KiB of keys and values,
 * the two policies from their supported sets, and the allowed topologies' terms (label keys, non-empty and
 * distinct values, distinct keys within a term, distinct terms). Updates may not change parameters,
 * provisioner, reclaimPolicy or volumeBindingMode.
 */
import type { KubeObject } from '../../../api/object.js';
import {
  duplicate,
  FieldPath,
  forbidden,
  invalidValue,
  notSupported,
  required,
  tooLong,
  type FieldError,
} from '../../../validation/field-error.js';
import { isQualifiedName } from '../../../validation/names.js';

const MAX_PARAMETERS = 512;
const MAX_PARAMETERS_SIZE = 256 * 1024;
const RECLAIM_POLICIES = Object.freeze(['Delete', 'Retain']);
const BINDING_MODES = Object.freeze(['Immediate', 'WaitForFirstConsumer']);

type Rec = Record<string, unknown>;
const record = (v: unknown): Rec | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : undefined);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

function validateProvisioner(provisioner: string, errs: FieldError[]): void {
  if (provisioner === '') {
    errs.push(required('provisioner', ''));
    return;
  }
  for (const msg of isQualifiedName(provisioner.toLowerCase())) errs.push(invalidValue('provisioner', provisioner, msg));
}

function validateParameters(params: Rec | undefined, errs: FieldError[]): void {
  if (params === undefined) return;
  const entries = Object.entries(params);
  if (entries.length > MAX_PARAMETERS) {
    errs.push(tooLong('parameters', MAX_PARAMETERS));
    return;
  }
  let size = 0;
  for (const [k, v] of entries) {
    if (k === '') errs.push(invalidValue('parameters', k, 'field can not be empty.'));
    // Go counts bytes.
    size += Buffer.byteLength(k) + Buffer.byteLength(text(v));
  }
  if (size > MAX_PARAMETERS_SIZE) errs.push(tooLong('parameters', MAX_PARAMETERS_SIZE));
}

/** One term's requirements, each key with its set of values; `undefined` marks a term with errors only in shape. */
function validateTerm(term: Rec | undefined, path: FieldPath, errs: FieldError[]): Map<string, Set<string>> {
  const exprs = new Map<string, Set<string>>();
  const exprPath = path.child('matchLabelExpressions');
  list(term?.matchLabelExpressions).forEach((r, i) => {
    const req = record(r);
    const at = exprPath.index(i);
    const values = new Set<string>();
    const vals = list(req?.values);
    if (vals.length === 0) errs.push(required(at.child('values'), ''));
    vals.forEach((v, j) => {
      const value = text(v);
      if (values.has(value)) errs.push(duplicate(at.child('values').index(j), value));
      values.add(value);
    });
    const key = text(req?.key);
    for (const msg of isQualifiedName(key)) errs.push(invalidValue(at.child('key'), key, msg));
    if (exprs.has(key)) errs.push(duplicate(at.child('key'), key));
    exprs.set(key, values);
  });
  return exprs;
}

const sameTerm = (a: Map<string, Set<string>>, b: Map<string, Set<string>>): boolean =>
  a.size === b.size && [...a].every(([k, vs]) => {
    const other = b.get(k);
    return other !== undefined && other.size === vs.size && [...vs].every((v) => other.has(v));
  });

function validateAllowedTopologies(terms: unknown[], errs: FieldError[]): void {
  if (terms.length === 0) return;
  // Kubernetes compares each term with the ones before it, in a list that starts with one empty entry per
  // term (its Go code preallocates them, and nil and empty maps compare equal): a term without
  // expressions is therefore reported once for each term of the list and each empty term before it.
  const seen: Map<string, Set<string>>[] = terms.map(() => new Map());
  terms.forEach((t, i) => {
    const path = FieldPath.root('allowedTopologies').index(i);
    const exprs = validateTerm(record(t), path, errs);
    for (const earlier of seen) if (sameTerm(exprs, earlier)) errs.push(duplicate(path.child('matchLabelExpressions'), ''));
    seen.push(exprs);
  });
}

export function validateStorageClass(sc: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  validateProvisioner(text(sc.provisioner), errs);
  validateParameters(record(sc.parameters), errs);
  const reclaimPolicy = sc.reclaimPolicy;
  if (typeof reclaimPolicy === 'string' && reclaimPolicy !== '' && !RECLAIM_POLICIES.includes(reclaimPolicy)) {
    errs.push(notSupported('reclaimPolicy', reclaimPolicy, RECLAIM_POLICIES));
  }
  const mode = sc.volumeBindingMode;
  if (mode === undefined || mode === null) errs.push(required('volumeBindingMode', ''));
  else if (!BINDING_MODES.includes(text(mode))) errs.push(notSupported('volumeBindingMode', mode, BINDING_MODES));
  validateAllowedTopologies(list(sc.allowedTopologies), errs);
  return errs;
}

/** Parameters compare as maps: absent and `{}` are the same (JSON cannot tell Go's nil and empty apart here). */
function sameParameters(a: unknown, b: unknown): boolean {
  const x = Object.entries(record(a) ?? {});
  const y = record(b) ?? {};
  return x.length === Object.keys(y).length && x.every(([k, v]) => Object.hasOwn(y, k) && y[k] === v);
}

export function validateStorageClassUpdate(sc: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (!sameParameters(sc.parameters, old.parameters)) errs.push(forbidden('parameters', 'updates to parameters are forbidden.'));
  if (text(sc.provisioner) !== text(old.provisioner)) errs.push(forbidden('provisioner', 'updates to provisioner are forbidden.'));
  if (text(sc.reclaimPolicy) !== text(old.reclaimPolicy)) errs.push(forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
  if (sc.volumeBindingMode !== old.volumeBindingMode) errs.push(invalidValue('volumeBindingMode', sc.volumeBindingMode, 'field is immutable'));
  return errs;
}
