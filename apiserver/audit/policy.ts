/**
 * The audit Policy file (`--audit-policy-file`): kube-apiserver 1.32's `audit.k8s.io/v1` Policy, decoded
 * and validated as kube's policy reader does, so a kube policy file works unchanged.
 *
 * - YAML or JSON; `apiVersion` `audit.<group-domain>/v1` (also `audit.k8s.io/v1` under any domain, so
 *   policies written for Kubernetes load) and `kind: Policy`. Unknown fields are ignored (kube's decoder
 *   is not strict); a field of the wrong type is a decoding error.
 * - Validation with kube's field paths and wording: a rule's level is required and one of the four;
 *   non-resource URLs start with `/` (or are `*`) and have `*` only at the end; a rule cannot have both
 *   non-resource URLs and resources or namespaces; a group is a DNS subdomain; `resourceNames` needs
 *   resources; omitted stages are among the four stages (also checked at the policy level, which kube 1.32
 *   does not: a misspelt stage there would be silently ignored).
 * - A policy without rules is refused (`loaded illegal policy with 0 rules`), as kube does.
 */
import type { Naming } from '../naming/naming.js';
import { parseYamlStrict } from '../schema/yaml-strict.js';
import { errorString, invalidValue, notSupported, required, type FieldError } from '../validation/field-error.js';
import { isObject } from '../api/json.js';

export type AuditLevel = 'None' | 'Metadata' | 'Request' | 'RequestResponse';
export type AuditStage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic';

export const auditLevels: readonly AuditLevel[] = ['None', 'Metadata', 'Request', 'RequestResponse'];
export const auditStages: readonly AuditStage[] = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'];

export interface GroupResources {
  /** '' is the core group. */
  readonly group: string;
  /** Empty: every resource of the group. `*`, `res`, `res/sub`, `*\/sub`, `res/*`. */
  readonly resources: readonly string[];
  readonly resourceNames: readonly string[];
}

export interface PolicyRule {
  readonly level: AuditLevel;
  readonly users: readonly string[];
  readonly userGroups: readonly string[];
  readonly verbs: readonly string[];
  readonly resources: readonly GroupResources[];
  readonly namespaces: readonly string[];
  readonly nonResourceURLs: readonly string[];
  readonly omitStages: readonly AuditStage[];
  /** undefined: the policy's `omitManagedFields` decides. */
  readonly omitManagedFields?: boolean;
}

export interface AuditPolicy {
  readonly rules: readonly PolicyRule[];
  readonly omitStages: readonly AuditStage[];
  readonly omitManagedFields: boolean;
}

/** A policy that cannot be loaded; the message is one line (the flag layer prefixes the file). */
export class PolicyError extends Error {
  override readonly name = 'PolicyError';
}

/** Decodes and validates a policy document (YAML or JSON text). Throws `PolicyError`. */
export function decodePolicy(text: string, naming: Naming): AuditPolicy {
  let value: unknown;
  try {
    value = parseYamlStrict(text, false).value;
  } catch (err) {
    throw new PolicyError(`failed decoding: ${(err as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new PolicyError('failed decoding: the policy is not an object');
  const doc = value as Record<string, unknown>;
  const accepted = [...new Set([`audit.${naming.domain}/v1`, 'audit.k8s.io/v1'])];
  if (doc.kind === undefined || doc.kind === '') throw new PolicyError('failed decoding: Object \'Kind\' is missing');
  if (doc.apiVersion === undefined || doc.apiVersion === '') throw new PolicyError('failed decoding: Object \'apiVersion\' is missing');
  if (doc.kind !== 'Policy' || typeof doc.apiVersion !== 'string' || !accepted.includes(doc.apiVersion)) {
    throw new PolicyError(`failed decoding: no kind "${String(doc.kind)}" is registered for version "${String(doc.apiVersion)}" (accepted: kind Policy in ${accepted.join(', ')})`);
  }
  const errors: FieldError[] = [];
  const policy = decodeBody(doc, errors);
  if (errors.length > 0) throw new PolicyError(aggregate(errors));
  if (policy.rules.length === 0) throw new PolicyError('loaded illegal policy with 0 rules');
  return policy;
}

/** kube's aggregate error text: one error bare, several in brackets. */
function aggregate(errors: readonly FieldError[]): string {
  const texts = errors.map(errorString);
  return texts.length === 1 ? texts[0]! : `[${texts.join(', ')}]`;
}

/** A decoding problem (wrong type), reported like a validation error so all problems are listed at once. */
function typeError(path: string, expected: string, got: unknown, errors: FieldError[]): void {
  errors.push({ type: 'FieldValueTypeInvalid', field: path, value: got, detail: `failed decoding: expected ${expected}` });
}

function stringList(v: unknown, path: string, errors: FieldError[]): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) {
    typeError(path, 'a list of strings', v, errors);
    return [];
  }
  const out: string[] = [];
  v.forEach((item, i) => {
    if (typeof item === 'string') out.push(item);
    else typeError(`${path}[${i}]`, 'a string', item, errors);
  });
  return out;
}

function optionalBool(v: unknown, path: string, errors: FieldError[]): boolean | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'boolean') return v;
  typeError(path, 'a boolean', v, errors);
  return undefined;
}

function objectOf(v: unknown, path: string, errors: FieldError[]): Record<string, unknown> | undefined {
  if (isObject(v)) return v;
  typeError(path, 'an object', v, errors);
  return undefined;
}

function stages(v: unknown, path: string, errors: FieldError[]): AuditStage[] {
  const list = stringList(v, path, errors);
  list.forEach((s, i) => {
    if (!(auditStages as readonly string[]).includes(s)) {
      errors.push(invalidValue(`${path}[${i}]`, s, `allowed stages are ${auditStages.join(',')}`));
    }
  });
  return list as AuditStage[];
}

function decodeBody(doc: Record<string, unknown>, errors: FieldError[]): AuditPolicy {
  const rules: PolicyRule[] = [];
  const rawRules = doc.rules;
  if (rawRules !== undefined && rawRules !== null && !Array.isArray(rawRules)) typeError('rules', 'a list', rawRules, errors);
  else if (Array.isArray(rawRules)) rawRules.forEach((r, i) => {
    const rule = decodeRule(r, `rules[${i}]`, errors);
    if (rule !== undefined) rules.push(rule);
  });
  return {
    rules,
    omitStages: stages(doc.omitStages, 'omitStages', errors),
    omitManagedFields: optionalBool(doc.omitManagedFields, 'omitManagedFields', errors) ?? false,
  };
}

const dnsSubdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function decodeRule(raw: unknown, path: string, errors: FieldError[]): PolicyRule | undefined {
  const r = objectOf(raw, path, errors);
  if (r === undefined) return undefined;
  const level = r.level;
  if (level === undefined || level === null || level === '') errors.push(required(`${path}.level`, ''));
  else if (typeof level !== 'string' || !(auditLevels as readonly string[]).includes(level)) {
    errors.push(notSupported(`${path}.level`, level, auditLevels));
  }
  const nonResourceURLs = stringList(r.nonResourceURLs, `${path}.nonResourceURLs`, errors);
  nonResourceURLs.forEach((url, i) => {
    if (url === '*') return;
    if (!url.startsWith('/')) errors.push(invalidValue(`${path}.nonResourceURLs[${i}]`, url, 'non-resource URL rules must begin with a \'/\' character'));
    if (url !== '' && url.slice(0, -1).includes('*')) {
      errors.push(invalidValue(`${path}.nonResourceURLs[${i}]`, url, 'non-resource URL wildcards \'*\' must be the final character of the rule'));
    }
  });
  const resources: GroupResources[] = [];
  const rawResources = r.resources;
  if (rawResources !== undefined && rawResources !== null && !Array.isArray(rawResources)) typeError(`${path}.resources`, 'a list', rawResources, errors);
  else if (Array.isArray(rawResources)) rawResources.forEach((g, i) => {
    const gp = `${path}.resources[${i}]`;
    const o = objectOf(g, gp, errors);
    if (o === undefined) return;
    const group = o.group ?? '';
    if (typeof group !== 'string') {
      typeError(`${gp}.group`, 'a string', group, errors);
      return;
    }
    // kube's path here is `resources.group` (no index): kept for identical messages.
    if (group !== '' && (group.length > 253 || !dnsSubdomain.test(group))) {
      errors.push(invalidValue(`${path}.resources.group`, group, 'a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')'));
    }
    const names = stringList(o.resourceNames, `${gp}.resourceNames`, errors);
    const res = stringList(o.resources, `${gp}.resources`, errors);
    if (names.length > 0 && res.length === 0) {
      errors.push(invalidValue(`${path}.resources.resourceNames`, names, 'using resourceNames requires at least one resource'));
    }
    resources.push({ group, resources: res, resourceNames: names });
  });
  const namespaces = stringList(r.namespaces, `${path}.namespaces`, errors);
  if (nonResourceURLs.length > 0 && (resources.length > 0 || namespaces.length > 0)) {
    errors.push(invalidValue(`${path}.nonResourceURLs`, nonResourceURLs, 'rules cannot apply to both regular resources and non-resource URLs'));
  }
  const omitManagedFields = optionalBool(r.omitManagedFields, `${path}.omitManagedFields`, errors);
  return {
    level: level as AuditLevel,
    users: stringList(r.users, `${path}.users`, errors),
    userGroups: stringList(r.userGroups, `${path}.userGroups`, errors),
    verbs: stringList(r.verbs, `${path}.verbs`, errors),
    resources,
    namespaces,
    nonResourceURLs,
    omitStages: stages(r.omitStages, `${path}.omitStages`, errors),
    ...(omitManagedFields === undefined ? {} : { omitManagedFields }),
  };
}
