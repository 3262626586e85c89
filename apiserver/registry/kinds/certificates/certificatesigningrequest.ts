/**
 * CertificateSigningRequest (`certificates.<domain>/v1`, cluster-scoped, short name `csr`): a PKCS#10
 * request for a signer, approved or denied through `/approval`, issued through `/status`. As Kubernetes
 * v1.32 (pkg/registry/certificates/certificates/strategy.go):
 *
 * - create: `spec.username`, `uid`, `groups` and `extra` are the requester's (after impersonation), never
 *   the body's; the status starts empty (no pre-approved requests);
 * - main resource updates keep the stored spec and status (changes to them are dropped, not refused, as
 *   Kubernetes does): only metadata changes there;
 * - `/approval` writes only the Approved and Denied conditions; `/status` writes the certificate and the
 *   other conditions (each keeps the other's part of the stored object); lastUpdateTime is defaulted to
 *   now when unset, lastTransitionTime to the stored one of the same type and status, else now;
 * - validation in csr-validation.ts; the writers' authority (approve / sign on `signers`) is checked by
 *   the admission plugins (admission/plugins/certificates.ts).
 *
 * `spec.signerName` is a field selector (lists and watches). Delete answers with a Status.
 */
import type { KubeObject } from '../../../api/object.js';
import { kindSchema } from '../../../schema/object-meta-schema.js';
import type { FieldError } from '../../../validation/field-error.js';
import type { KindStrategy, StrategyContext } from '../../kind-strategy.js';
import { isObject, objectAt, stringAt, type JsonObject } from '../core/pod/json-values.js';
import { rfc3339 } from '../../generic/system-fields.js';
import { CSR_FIELDS, CSR_PROPERTIES } from './csr-schema.js';
import { csrTable } from './csr-table.js';
import { APPROVED, conditionsOf, DENIED, validateCsrCreate, validateCsrUpdate, type Condition } from './csr-validation.js';

const schema = kindSchema(
  'CertificateSigningRequest objects provide a mechanism to obtain x509 certificates by submitting a certificate signing request, and having it asynchronously approved and issued.',
  CSR_PROPERTIES,
  ['spec'],
  CSR_FIELDS,
);

const isApprovalType = (c: Condition): boolean => c.type === APPROVED || c.type === DENIED;

/**
 * The conditions a sub-resource write stores: the stored ones it does not own, then the written ones it
 * owns (`/approval` owns Approved and Denied, `/status` every other type).
 */
export function mergeConditions(stored: readonly Condition[], written: readonly Condition[], owns: (c: Condition) => boolean): Condition[] {
  return [...stored.filter((c) => !owns(c)).map((c) => structuredClone(c)), ...written.filter(owns)];
}

/** Kubernetes' populateConditionTimestamps. */
export function populateConditionTimestamps(conditions: Condition[], stored: readonly Condition[], now: string): void {
  for (const c of conditions) {
    if (c.lastUpdateTime === undefined || c.lastUpdateTime === '') c.lastUpdateTime = now;
    if (c.lastTransitionTime === undefined || c.lastTransitionTime === '') {
      const same = stored.find((o) => o.type === c.type && o.status === c.status && (o.lastTransitionTime ?? '') !== '');
      c.lastTransitionTime = same?.lastTransitionTime ?? now;
    }
  }
}

function statusRecord(obj: KubeObject): JsonObject {
  return isObject(obj.status) ? obj.status : (obj.status = {});
}

export const certificateSigningRequests = Object.freeze({
  groupPrefix: 'certificates',
  group: '',
  version: 'v1',
  kind: 'CertificateSigningRequest',
  resource: 'certificatesigningrequests',
  singular: 'certificatesigningrequest',
  namespaced: false,
  shortNames: Object.freeze(['csr']),
  subresources: Object.freeze(['approval', 'status'] as const),
  nameRule: 'path-segment',
  schema,
  table: csrTable,
  selectableFields: Object.freeze({
    'spec.signerName': (csr: KubeObject): string => stringAt(objectAt(csr, 'spec') ?? {}, 'signerName'),
  }),

  prepareForCreate(csr: KubeObject, ctx: StrategyContext): void {
    const spec: JsonObject = isObject(csr.spec) ? csr.spec : (csr.spec = {});
    delete spec.username;
    delete spec.uid;
    delete spec.groups;
    delete spec.extra;
    const user = ctx.requester?.user;
    if (user !== undefined) {
      if (user.name !== '') spec.username = user.name;
      if (user.uid !== '') spec.uid = user.uid;
      if (user.groups.length > 0) spec.groups = [...user.groups];
      const extra = Object.entries(user.extra ?? {});
      if (extra.length > 0) spec.extra = Object.fromEntries(extra.map(([k, v]) => [k, [...v]]));
    }
    // Users cannot create pre-approved requests.
    csr.status = {};
  },

  prepareForUpdate(csr: KubeObject, old: KubeObject): void {
    // A copy: `old` may be shared with the watch cache. (The registry keeps the stored status.)
    if (old.spec === undefined) delete csr.spec;
    else csr.spec = structuredClone(old.spec);
  },

  prepareForStatusUpdate(csr: KubeObject, old: KubeObject, ctx: StrategyContext): void {
    if (old.spec === undefined) delete csr.spec;
    else csr.spec = structuredClone(old.spec);
    const stored = conditionsOf(old);
    const written = conditionsOf(csr);
    const approval = ctx.subresource === 'approval';
    const conditions = mergeConditions(stored, written, approval ? isApprovalType : (c) => !isApprovalType(c));
    populateConditionTimestamps(conditions, stored, rfc3339(new Date()));
    const status = statusRecord(csr);
    if (approval) {
      // Only the conditions: the certificate stays as stored.
      const oldCert = (old.status as { certificate?: unknown } | undefined)?.certificate;
      if (oldCert === undefined) delete status.certificate;
      else status.certificate = oldCert;
    }
    if (conditions.length > 0) status.conditions = conditions;
    else delete status.conditions;
  },

  validate: (csr: KubeObject, ctx: StrategyContext): FieldError[] => (ctx.operation === 'create' ? validateCsrCreate(csr, ctx.naming) : []),
  validateUpdate: (csr: KubeObject, old: KubeObject, ctx: StrategyContext): FieldError[] => validateCsrUpdate(csr, old, 'main', ctx.naming),
  validateStatusUpdate: (csr: KubeObject, old: KubeObject, ctx: StrategyContext): FieldError[] =>
    validateCsrUpdate(csr, old, ctx.subresource === 'approval' ? 'approval' : 'status', ctx.naming),
} satisfies KindStrategy);
