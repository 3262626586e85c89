/**
 * CertificateSigningRequest validation as Kubernetes v1.32 (pkg/apis/certificates/validation): the
 * request's PEM and signature, usages, signer name, expirationSeconds, the condition rules and
 * `status.certificate`, with the leniencies Kubernetes keeps for problems already stored (an update may
 * keep what the old object had). `mode` is the path of the write: the main resource, `/status` (may set the
 * certificate) or `/approval` (may add Approved / Denied).
 *
 * Beyond Kubernetes (document 2: the certificate is set "after the Approved condition exists"): a
 * certificate set through `/status` on a request that is not Approved is refused.
 */
import type { KubeObject } from '../../../api/object.js';
import type { Naming } from '../../../naming/naming.js';
import { isDNS1123Label, isDNS1123Subdomain } from '../../../validation/names.js';
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
import { invalidRendered } from '../admissionregistration/go-values.js';
import { checkCsrSignature, CsrError, parseCsr } from './parse-csr.js';
import { bytesOf, goBytes, pemBlocks } from './pem-blocks.js';
import { signerNames } from './signer-names.js';
import { x509 } from '../../../tls/crypto-provider.js';

export type CsrWriteMode = 'create' | 'main' | 'status' | 'approval';

/** Kubernetes' key usages (certificates/v1 KeyUsage values), sorted as its NotSupported list. */
export const KEY_USAGES: readonly string[] = Object.freeze(
  [
    'signing', 'digital signature', 'content commitment', 'key encipherment', 'key agreement', 'data encipherment',
    'cert sign', 'crl sign', 'encipher only', 'decipher only', 'any', 'server auth', 'client auth', 'code signing',
    'email protection', 's/mime', 'ipsec end system', 'ipsec tunnel', 'ipsec user', 'timestamping', 'ocsp signing',
    'microsoft sgc', 'netscape sgc',
  ].sort(),
);
const usageSet = new Set(KEY_USAGES);

export const APPROVED = 'Approved';
export const DENIED = 'Denied';
export const FAILED = 'Failed';
/** The condition types whose status may only be `True`. */
const TRUE_ONLY = new Set([APPROVED, DENIED, FAILED]);
const ALL_STATUSES = ['False', 'True', 'Unknown'];

export interface Condition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
}

interface Spec {
  request?: string;
  signerName?: string;
  expirationSeconds?: number;
  usages?: string[];
}

export const specOf = (csr: KubeObject): Spec => (csr.spec ?? {}) as Spec;
export const conditionsOf = (csr: KubeObject | undefined): Condition[] => {
  const c = (csr?.status as { conditions?: unknown } | undefined)?.conditions;
  return Array.isArray(c) ? (c as Condition[]) : [];
};
export const certificateOf = (csr: KubeObject | undefined): string => {
  const c = (csr?.status as { certificate?: unknown } | undefined)?.certificate;
  return typeof c === 'string' ? c : '';
};
export const hasCondition = (csr: KubeObject | undefined, type: string): boolean => conditionsOf(csr).some((c) => c.type === type);

interface Options {
  allowSettingApprovalConditions: boolean;
  allowSettingCertificate: boolean;
  allowBothApprovedAndDenied: boolean;
  allowLegacySignerName: boolean;
  allowDuplicateConditionTypes: boolean;
  allowEmptyConditionType: boolean;
  allowArbitraryCertificate: boolean;
  allowUnknownUsages: boolean;
  allowDuplicateUsages: boolean;
}

function duplicates(values: readonly unknown[]): boolean {
  return new Set(values).size !== values.length;
}

function optionsOf(csr: KubeObject, old: KubeObject | undefined, mode: CsrWriteMode, naming: Naming): Options {
  const oldSpec = old === undefined ? undefined : specOf(old);
  const oldConds = conditionsOf(old);
  const oldUsages = oldSpec?.usages ?? [];
  return {
    allowSettingApprovalConditions: mode === 'approval',
    allowSettingCertificate: mode === 'status',
    allowBothApprovedAndDenied: old !== undefined && hasCondition(old, APPROVED) && hasCondition(old, DENIED),
    allowLegacySignerName: oldSpec?.signerName === signerNames(naming).legacyUnknown,
    allowDuplicateConditionTypes: old !== undefined && duplicates(oldConds.map((c) => c.type)),
    allowEmptyConditionType: oldConds.some((c) => (c.type ?? '') === ''),
    allowArbitraryCertificate:
      old !== undefined && (certificateOf(csr) === certificateOf(old) || certificateProblem(bytesOf(certificateOf(old))) !== undefined),
    allowUnknownUsages: oldUsages.some((u) => !usageSet.has(u)),
    allowDuplicateUsages: duplicates(oldUsages),
  };
}

/** Kubernetes' ValidateSignerName (`example.com/signer-name`, bounded lengths). */
export function validateSignerName(path: string, name: string | undefined): FieldError[] {
  if (name === undefined || name === '') return [required(path, '')];
  const segments = name.split('/');
  if (segments.length !== 2) return [invalidValue(path, name, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  const errs: FieldError[] = [];
  const [domain, rest] = segments as [string, string];
  if (domain.length > 253) errs.push(tooLong(path, 253));
  const labels = domain.split('.');
  for (const l of labels) {
    const problems = isDNS1123Label(l);
    if (problems.length > 0) {
      for (const p of problems) errs.push(invalidValue(path, domain, `validating label "${l}": ${p}`));
      break;
    }
  }
  if (labels.length < 2) errs.push(invalidValue(path, domain, 'should be a domain with at least two segments separated by dots'));
  for (const l of rest.split('.')) {
    const problems = isDNS1123Subdomain(l);
    if (problems.length > 0) {
      for (const p of problems) errs.push(invalidValue(path, rest, `validating label "${l}": ${p}`));
      break;
    }
  }
  if (name.length > 253 + 253 + 63 + 1 + 1) errs.push(tooLong(path, 571));
  return errs;
}

/**
 * Kubernetes' validateCertificate of `status.certificate` (PEM bytes): undefined when fine (or empty),
 * else its message.
 */
export function certificateProblem(pem: Buffer | undefined): string | undefined {
  if (pem === undefined || pem.length === 0) return undefined;
  const blocks = pemBlocks(pem.toString('latin1'));
  for (const b of blocks) {
    if (b.type !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found "${b.type}"`;
    if (b.headers !== 0) return 'no PEM block headers are permitted';
    try {
      new x509.X509Certificate(b.bytes);
    } catch {
      return 'x509: malformed certificate';
    }
  }
  if (blocks.length === 0) return 'must contain at least one CERTIFICATE PEM block';
  return undefined;
}

function validateConditions(csr: KubeObject, o: Options): FieldError[] {
  const errs: FieldError[] = [];
  const path = FieldPath.root('status').child('conditions');
  const seen = new Set<string>();
  let approved = false;
  let denied = false;
  conditionsOf(csr).forEach((c, i) => {
    const type = c.type ?? '';
    const status = c.status ?? '';
    // An absent type is the schema's (the list's map key): reported once, there.
    if (!o.allowEmptyConditionType && c.type === '') errs.push(required(path.index(i).child('type'), ''));
    const allowed = TRUE_ONLY.has(type) ? ['True'] : ALL_STATUSES;
    if (status === '') errs.push(required(path.index(i).child('status'), ''));
    else if (!allowed.includes(status)) errs.push(notSupported(path.index(i).child('status'), status, allowed));
    if (!o.allowBothApprovedAndDenied) {
      if (type === APPROVED) {
        approved = true;
        if (denied) errs.push(invalidValue(path.index(i).child('type'), type, 'Approved and Denied conditions are mutually exclusive'));
      } else if (type === DENIED) {
        denied = true;
        if (approved) errs.push(invalidValue(path.index(i).child('type'), type, 'Approved and Denied conditions are mutually exclusive'));
      }
    }
    if (!o.allowDuplicateConditionTypes) {
      if (seen.has(type)) errs.push(duplicate(path.index(i).child('type'), type));
      seen.add(type);
    }
  });
  return errs;
}

function validateCsr(csr: KubeObject, o: Options, naming: Naming): FieldError[] {
  const errs: FieldError[] = [];
  const spec = specOf(csr);
  const specPath = FieldPath.root('spec');
  const request = bytesOf(spec.request);
  try {
    checkCsrSignature(parseCsr(request));
  } catch (err) {
    if (!(err instanceof CsrError)) throw err;
    errs.push(invalidRendered(specPath.child('request'), goBytes(request), err.message));
  }
  const usages = Array.isArray(spec.usages) ? spec.usages : [];
  if (usages.length === 0) errs.push(required(specPath.child('usages'), ''));
  if (!o.allowUnknownUsages) {
    usages.forEach((u, i) => {
      if (!usageSet.has(u)) errs.push(notSupported(specPath.child('usages').index(i), u, KEY_USAGES));
    });
  }
  if (!o.allowDuplicateUsages) {
    const seen = new Set<string>();
    usages.forEach((u, i) => {
      if (seen.has(u)) errs.push(duplicate(specPath.child('usages').index(i), u));
      seen.add(u);
    });
  }
  if (!o.allowLegacySignerName && spec.signerName === signerNames(naming).legacyUnknown) {
    errs.push(invalidValue(specPath.child('signerName'), spec.signerName, 'the legacy signerName is not allowed via this API version'));
  } else {
    errs.push(...validateSignerName(specPath.child('signerName').toString(), spec.signerName));
  }
  if (typeof spec.expirationSeconds === 'number' && spec.expirationSeconds < 600) {
    errs.push(invalidValue(specPath.child('expirationSeconds'), spec.expirationSeconds, 'may not specify a duration less than 600 seconds (10 minutes)'));
  }
  errs.push(...validateConditions(csr, o));
  if (!o.allowArbitraryCertificate) {
    const problem = certificateProblem(bytesOf(certificateOf(csr)));
    if (problem !== undefined) errs.push(invalidValue(FieldPath.root('status').child('certificate'), '<certificate data>', problem));
  }
  return errs;
}

/** Create (Kubernetes' ValidateCertificateSigningRequestCreate). */
export function validateCsrCreate(csr: KubeObject, naming: Naming): FieldError[] {
  return validateCsr(csr, optionsOf(csr, undefined, 'create', naming), naming);
}

const conditionKey = (c: Condition): string =>
  JSON.stringify([c.type ?? '', c.status ?? '', c.reason ?? '', c.message ?? '', c.lastUpdateTime ?? '', c.lastTransitionTime ?? '']);

/** An update through the main resource, `/status` or `/approval`. */
export function validateCsrUpdate(csr: KubeObject, old: KubeObject, mode: Exclude<CsrWriteMode, 'create'>, naming: Naming): FieldError[] {
  const o = optionsOf(csr, old, mode, naming);
  const errs = validateCsr(csr, o, naming);
  const path = FieldPath.root('status').child('conditions');
  const of = (x: KubeObject, t: string): Condition[] => conditionsOf(x).filter((c) => c.type === t);
  for (const t of [APPROVED, DENIED, FAILED]) {
    if (of(csr, t).length < of(old, t).length) errs.push(forbidden(path, `updates may not remove a condition of type "${t}"`));
  }
  if (!o.allowSettingApprovalConditions) {
    for (const t of [APPROVED, DENIED]) {
      const before = of(old, t);
      const after = of(csr, t);
      if (after.length > before.length) errs.push(forbidden(path, `updates may not add a condition of type "${t}"`));
      else if (after.length === before.length && after.map(conditionKey).join() !== before.map(conditionKey).join()) {
        errs.push(forbidden(path, `updates may not modify a condition of type "${t}"`));
      }
    }
  }
  const cert = certificateOf(csr);
  const oldCert = certificateOf(old);
  const certPath = FieldPath.root('status').child('certificate');
  if (cert !== oldCert) {
    if (!o.allowSettingCertificate) errs.push(forbidden(certPath, 'updates may not set certificate content'));
    else if (oldCert !== '') errs.push(forbidden(certPath, 'updates may not modify existing certificate content'));
    else if (!hasCondition(csr, APPROVED)) errs.push(forbidden(certPath, 'updates may not set certificate content before the request is Approved'));
  }
  return errs;
}
