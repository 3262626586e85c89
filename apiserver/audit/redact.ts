/**
 * What an audit event may carry of a request or response object (levels Request and RequestResponse):
 *
 * - `omitManagedFields`: `metadata.managedFields` dropped from the object, each item of a list and each
 *   row object of a Table (as kube's copyWithoutManagedFields);
 * - sensitive values never reach the log, whatever the policy says (kube leaves this to its default
 *   policies, which log these resources at Metadata only; here the guarantee does not depend on the policy
 *   file): the values of a core Secret's `data` and `stringData` (keys kept) and its
 *   `kubectl.kubernetes.io/last-applied-configuration` annotation (a copy of the data); every `value` of a
 *   JSON patch of a Secret; the issued `status.token` of a TokenRequest (`serviceaccounts/token`); the
 *   `spec.token` of a TokenReview. Each is replaced by `<redacted>`.
 *
 * Objects are copied along the changed path only (shallow copies); the input, often a watch cache's shared
 * object, is never mutated.
 */
import type { Naming } from '../naming/naming.js';
import type { RequestInfo } from '../request/request-info.js';
import { isObject } from '../api/json.js';

export const REDACTED = '<redacted>';
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** Which redaction a request's objects need. */
export type Sensitivity = 'none' | 'secret' | 'token-request' | 'token-review';

export function sensitivityOf(info: RequestInfo, naming: Naming): Sensitivity {
  if (!info.isResourceRequest) return 'none';
  if (info.apiGroup === '') {
    if (info.resource === 'secrets') return 'secret';
    if (info.resource === 'serviceaccounts' && info.subresource === 'token') return 'token-request';
    return 'none';
  }
  if (info.resource === 'tokenreviews' && info.apiGroup === naming.group('authentication')) return 'token-review';
  return 'none';
}

type Obj = Record<string, unknown>;

function mapValues(m: unknown): unknown {
  if (!isObject(m)) return m;
  const out: Obj = {};
  for (const k of Object.keys(m)) out[k] = REDACTED;
  return out;
}

function withoutManagedFieldsOne(o: Obj): Obj {
  const meta = o.metadata;
  if (!isObject(meta) || !('managedFields' in meta)) return o;
  const { managedFields: _dropped, ...rest } = meta;
  return { ...o, metadata: rest };
}

function redactSecret(o: Obj): Obj {
  const out: Obj = { ...o };
  if ('data' in o) out.data = mapValues(o.data);
  if ('stringData' in o) out.stringData = mapValues(o.stringData);
  const meta = o.metadata;
  if (isObject(meta) && isObject(meta.annotations) && LAST_APPLIED in meta.annotations) {
    out.metadata = { ...meta, annotations: { ...meta.annotations, [LAST_APPLIED]: REDACTED } };
  }
  return out;
}

function redactAt(o: Obj, field: 'spec' | 'status'): Obj {
  const part = o[field];
  if (!isObject(part) || !('token' in part)) return o;
  return { ...o, [field]: { ...part, token: REDACTED } };
}

function one(o: Obj, omitManagedFields: boolean, sensitivity: Sensitivity): Obj {
  let out = omitManagedFields ? withoutManagedFieldsOne(o) : o;
  if (sensitivity === 'secret') out = redactSecret(out);
  else if (sensitivity === 'token-request') out = redactAt(out, 'status');
  else if (sensitivity === 'token-review') out = redactAt(redactAt(out, 'spec'), 'status');
  return out;
}

/**
 * The value to encode for the audit log. `value` is an object, a list (`items`), a Table (`rows[].object`),
 * a Status, or a patch document (a JSON patch is an array of operations).
 */
export function auditView(value: unknown, omitManagedFields: boolean, sensitivity: Sensitivity): unknown {
  if (!omitManagedFields && sensitivity === 'none') return value;
  if (Array.isArray(value)) {
    // A JSON patch: its values are parts of the object, any of which may be secret data.
    if (sensitivity !== 'secret') return value;
    return value.map((op) => (isObject(op) && 'value' in op ? { ...op, value: REDACTED } : op));
  }
  if (!isObject(value)) return value;
  if (value.kind === 'Status') return value;
  if (Array.isArray(value.items)) {
    return { ...value, items: value.items.map((item) => (isObject(item) ? one(item, omitManagedFields, sensitivity) : item)) };
  }
  if (value.kind === 'Table' && Array.isArray(value.rows)) {
    return {
      ...value,
      rows: value.rows.map((row) => (isObject(row) && isObject(row.object) ? { ...row, object: one(row.object, omitManagedFields, sensitivity) } : row)),
    };
  }
  return one(value, omitManagedFields, sensitivity);
}
