/**
 * DeleteOptions of delete and deletecollection, from the body when there is one (the query is then
 * ignored, as upstream) or else from the query, validated as upstream's `ValidateDeleteOptions`.
 */
import { badRequest, type FieldCause } from '../errors/constructors.js';
import { dryRunCauses, optionsInvalid, queryInt64, queryOptionalBool } from './query.js';

export type PropagationPolicy = 'Orphan' | 'Background' | 'Foreground';

export interface DeleteOptions {
  readonly gracePeriodSeconds?: number;
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
  readonly propagationPolicy?: PropagationPolicy;
  /** Deprecated; mutually exclusive with `propagationPolicy`. */
  readonly orphanDependents?: boolean;
  /** `dryRun: ["All"]`. */
  readonly dryRun: boolean;
}

/** Go's json error for a member of the wrong type. */
function typeError(got: unknown, field: string, goType: string): never {
  const kind = got === null ? 'null' : Array.isArray(got) ? 'array' : typeof got === 'object' ? 'object' : typeof got;
  throw badRequest(`json: cannot unmarshal ${kind} into Go struct field DeleteOptions.${field} of type ${goType}`);
}

interface Raw {
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: string;
  orphanDependents?: boolean;
  dryRun: string[];
}

function fromBody(body: unknown): Raw {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest('decoded object cannot be converted to DeleteOptions');
  }
  const b = body as Record<string, unknown>;
  // Any group's DeleteOptions is accepted (older clients send `apiVersion: <group>/<version>`).
  if (b.kind !== undefined && b.kind !== null && b.kind !== '' && b.kind !== 'DeleteOptions') {
    throw badRequest('decoded object cannot be converted to DeleteOptions');
  }
  const raw: Raw = { dryRun: [] };
  const g = b.gracePeriodSeconds;
  if (g !== undefined && g !== null) {
    if (typeof g !== 'number' || !Number.isInteger(g)) typeError(g, 'gracePeriodSeconds', 'int64');
    raw.gracePeriodSeconds = g;
  }
  const p = b.propagationPolicy;
  if (p !== undefined && p !== null) {
    if (typeof p !== 'string') typeError(p, 'propagationPolicy', 'v1.DeletionPropagation');
    raw.propagationPolicy = p;
  }
  const o = b.orphanDependents;
  if (o !== undefined && o !== null) {
    if (typeof o !== 'boolean') typeError(o, 'orphanDependents', 'bool');
    raw.orphanDependents = o;
  }
  const d = b.dryRun;
  if (d !== undefined && d !== null) {
    if (!Array.isArray(d)) typeError(d, 'dryRun', '[]string');
    for (const v of d) if (typeof v !== 'string') typeError(v, 'dryRun', 'string');
    raw.dryRun = d as string[];
  }
  const pre = b.preconditions;
  if (pre !== undefined && pre !== null) {
    if (typeof pre !== 'object' || Array.isArray(pre)) typeError(pre, 'preconditions', 'v1.Preconditions');
    const { uid, resourceVersion } = pre as Record<string, unknown>;
    const out: { uid?: string; resourceVersion?: string } = {};
    if (uid !== undefined && uid !== null) {
      if (typeof uid !== 'string') typeError(uid, 'preconditions.uid', 'types.UID');
      out.uid = uid;
    }
    if (resourceVersion !== undefined && resourceVersion !== null) {
      if (typeof resourceVersion !== 'string') typeError(resourceVersion, 'preconditions.resourceVersion', 'string');
      out.resourceVersion = resourceVersion;
    }
    raw.preconditions = out;
  }
  return raw;
}

function fromQuery(query: URLSearchParams): Raw {
  const raw: Raw = { dryRun: query.getAll('dryRun') };
  const g = queryInt64(query, 'gracePeriodSeconds');
  if (g !== undefined) raw.gracePeriodSeconds = g;
  const p = query.get('propagationPolicy');
  if (p !== null) raw.propagationPolicy = p;
  const o = queryOptionalBool(query, 'orphanDependents');
  if (o !== undefined) raw.orphanDependents = o;
  return raw;
}

/**
 * Decodes DeleteOptions. `body` is the decoded request body, or undefined when the request had none
 * (an empty body with `Content-Type: application/json` counts as none: client-node sends that).
 *
 * - Body of another kind, or not an object: 400 `decoded object cannot be converted to DeleteOptions`;
 *   a member of the wrong type: 400 `json: cannot unmarshal string into Go struct field
 *   DeleteOptions.gracePeriodSeconds of type int64`.
 * - Query values that do not convert: 400 (`strconv.ParseInt: ...`).
 * - 422 `DeleteOptions.meta.k8s.io "" is invalid: ...` for: `orphanDependents` together with
 *   `propagationPolicy`; a policy other than Foreground, Background, Orphan; a `dryRun` value other than
 *   `All`.
 */
export function decodeDeleteOptions(query: URLSearchParams, body: unknown): DeleteOptions {
  const raw = body === undefined ? fromQuery(query) : fromBody(body);
  const causes: FieldCause[] = [];
  if (raw.orphanDependents !== undefined && raw.propagationPolicy !== undefined) {
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'propagationPolicy',
      message: `Invalid value: ${JSON.stringify(raw.propagationPolicy)}: orphanDependents and deletionPropagation cannot be both set`,
    });
  }
  const p = raw.propagationPolicy;
  if (p !== undefined && p !== 'Foreground' && p !== 'Background' && p !== 'Orphan') {
    causes.push({
      reason: 'FieldValueNotSupported',
      field: 'propagationPolicy',
      message: `Unsupported value: ${JSON.stringify(p)}: supported values: "Foreground", "Background", "Orphan", "nil"`,
    });
  }
  causes.push(...dryRunCauses(raw.dryRun));
  if (causes.length > 0) throw optionsInvalid('DeleteOptions', causes);
  return {
    dryRun: raw.dryRun.length > 0,
    ...(raw.gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds: raw.gracePeriodSeconds }),
    ...(raw.preconditions === undefined ? {} : { preconditions: raw.preconditions }),
    ...(p === undefined ? {} : { propagationPolicy: p as PropagationPolicy }),
    ...(raw.orphanDependents === undefined ? {} : { orphanDependents: raw.orphanDependents }),
  };
}
