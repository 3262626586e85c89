/**
 * What the access reviews share: kube's validation of their specs and metadata (messages as
 * kubernetes/pkg/apis/authorization/validation words them), the authorization attributes a spec asks
 * about, and the status an authorizer's answer becomes.
 */
import type { KubeObject } from '../../../api/object.js';
import type { UserInfo } from '../../../auth/user-info.js';
import type { AuthorizationAttributes, Authorizer } from '../../../authorization/authorizer.js';
import { invalidValue, type FieldError } from '../../../validation/field-error.js';

export interface ResourceAttributesValue {
  namespace?: string;
  verb?: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  name?: string;
}

export interface NonResourceAttributesValue {
  path?: string;
  verb?: string;
}

/** The spec of SelfSubjectAccessReview; SubjectAccessReview's adds the subject. */
export interface AttributesSpec {
  resourceAttributes?: ResourceAttributesValue;
  nonResourceAttributes?: NonResourceAttributesValue;
}

export interface SubjectSpec extends AttributesSpec {
  user?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export const specOf = <T extends AttributesSpec>(obj: KubeObject): T => (obj.spec ?? {}) as T;

/** Exactly one of resourceAttributes and nonResourceAttributes (both reviews). */
export function validateAttributesChoice(spec: AttributesSpec): FieldError[] {
  const errs: FieldError[] = [];
  if (spec.resourceAttributes !== undefined && spec.nonResourceAttributes !== undefined) {
    errs.push(invalidValue('spec.nonResourceAttributes', spec.nonResourceAttributes, 'cannot be specified in combination with resourceAttributes'));
  }
  if (spec.resourceAttributes === undefined && spec.nonResourceAttributes === undefined) {
    errs.push(invalidValue('spec.resourceAttributes', null, 'exactly one of nonResourceAttributes or resourceAttributes must be specified'));
  }
  return errs;
}

/** SubjectAccessReview and LocalSubjectAccessReview: the attributes, and a user or groups to ask about. */
export function validateSubjectSpec(spec: SubjectSpec): FieldError[] {
  const errs = validateAttributesChoice(spec);
  if ((spec.user ?? '') === '' && (spec.groups ?? []).length === 0) {
    errs.push(invalidValue('spec.user', spec.user ?? '', 'at least one of user or group must be specified'));
  }
  return errs;
}

const isEmptyValue = (v: unknown): boolean =>
  v === undefined || v === null || v === '' || v === 0 ||
  (Array.isArray(v) && v.length === 0) ||
  (typeof v === 'object' && !Array.isArray(v) && Object.keys(v as object).length === 0);

/**
 * A review's metadata must be empty (managedFields aside, and `namespace` for the local review), compared
 * as kube's semantic equality does: empty strings, lists and maps are the same as absent.
 */
export function validateEmptyMetadata(obj: KubeObject, exceptNamespace: boolean): FieldError[] {
  const meta = obj.metadata as Record<string, unknown>;
  const filled = Object.keys(meta).some((k) => k !== 'managedFields' && !(exceptNamespace && k === 'namespace') && !isEmptyValue(meta[k]));
  if (!filled) return [];
  return [invalidValue('metadata', meta, exceptNamespace ? 'must be empty except for namespace' : 'must be empty')];
}

/** The attributes a review asks about for `user` (an empty version is every version, `*`). */
export function attributesFor(user: UserInfo, spec: AttributesSpec): AuthorizationAttributes {
  const r = spec.resourceAttributes;
  if (r !== undefined) {
    return {
      user,
      verb: r.verb ?? '',
      isResourceRequest: true,
      path: '',
      namespace: r.namespace ?? '',
      apiGroup: r.group ?? '',
      apiVersion: (r.version ?? '') === '' ? '*' : r.version!,
      resource: r.resource ?? '',
      subresource: r.subresource ?? '',
      name: r.name ?? '',
    };
  }
  const n = spec.nonResourceAttributes ?? {};
  return {
    user,
    verb: n.verb ?? '',
    isResourceRequest: false,
    path: n.path ?? '',
    namespace: '',
    apiGroup: '',
    apiVersion: '',
    resource: '',
    subresource: '',
    name: '',
  };
}

/** The subject of a SubjectAccessReview spec, as a user. */
export function subjectOf(spec: SubjectSpec): UserInfo {
  return {
    name: spec.user ?? '',
    uid: spec.uid ?? '',
    groups: spec.groups ?? [],
    ...(spec.extra === undefined ? {} : { extra: spec.extra }),
  };
}

/** The authorizer's answer as a SubjectAccessReviewStatus (Go's JSON: `allowed` always, the rest when set). */
export function reviewStatus(authorizer: Authorizer, attributes: AuthorizationAttributes): Record<string, unknown> {
  const { decision, reason } = authorizer.authorize(attributes);
  return {
    allowed: decision === 'allow',
    ...(decision === 'deny' ? { denied: true } : {}),
    ...(reason === '' ? {} : { reason }),
  };
}

/** prepareForCreate of every review: a `status` sent in is output only, and replaced. */
export function dropStatus(obj: KubeObject): void {
  delete obj.status;
}
