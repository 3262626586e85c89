/**
 * ValidatingAdmissionPolicy validation with Kubernetes v1.32's rules, messages and field paths
 * (`ValidateValidatingAdmissionPolicy` and `...Update`); `metadata` is the registry's (DNS subdomain name).
 *
 * - failurePolicy Fail or Ignore; paramKind `group/version` (DNS subdomain group, DNS-1035 version) and a
 *   kind that is a DNS-1035 label once lower-cased;
 * - matchConstraints required, with resourceRules (they give the type information);
 * - matchConditions (skipped on an update that keeps them and the paramKind): at most 64, names required,
 *   qualified and unique, expressions required and compiled;
 * - variables: names valid CEL identifiers, expressions required and compiled in order;
 * - validations or auditAnnotations required; each validation's expression compiled (bool), its
 *   messageExpression compiled (string), message non-blank and one line, reason Forbidden, Invalid or
 *   RequestEntityTooLarge (`Unauthorized` is documented upstream but refused by its validation, so here);
 * - auditAnnotations: at most 20, keys unique and qualified under the policy name, valueExpression at
 *   most 5 KiB, compiled (string or null).
 *
 * Expressions compile as policy-expressions.ts says. Duplicate variable names are the schema's error
 * (a list-map keyed by name).
 */
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '../../../api/object.js';
import type { PolicyVariable } from '../../../cel/environment/admission.js';
import { FieldPath, duplicate, invalidValue, notSupported, required, tooMany, type FieldError } from '../../../validation/field-error.js';
import { isDNS1035Label, isDNS1123Subdomain, isQualifiedName } from '../../../validation/names.js';
import { arrayAt, isObject, objectAt, objectItems, stringAt, type JsonObject } from '../core/pod/json-values.js';
import { goStructs, invalidRendered } from './go-values.js';
import { validateMatchResources } from './match-validation.js';
import { compilationErrors, NO_PREEXISTING, PolicyCompiler, type PreexistingExpressions } from './policy-expressions.js';

const FAILURE_POLICIES = ['Fail', 'Ignore'];
const REASONS = ['Forbidden', 'Invalid', 'RequestEntityTooLarge'];
const MAX_MATCH_CONDITIONS = 64;
const MAX_AUDIT_ANNOTATIONS = 20;
const MAX_VALUE_EXPRESSION_LENGTH = 5 * 1024;
const CEL_IDENTIFIER = /^[_a-zA-Z][_a-zA-Z0-9]*$/;
const CEL_RESERVED = new Set([
  'true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace',
  'return', 'var', 'void', 'while',
]);

interface Options {
  readonly ignoreMatchConditions: boolean;
  readonly preexisting: PreexistingExpressions;
}

const blank = (s: string): boolean => s.trim() === '';
const hasNewlines = (s: string): boolean => /[\n\r]/.test(s);

/** `group/version` as Kubernetes parses it (no slash: core group; more than one: an error). */
function parseGroupVersion(gv: string): { group: string; version: string } | string {
  if (gv === '' || gv === '/') return { group: '', version: '' };
  const parts = gv.split('/');
  if (parts.length === 1) return { group: '', version: gv };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! };
  return `unexpected GroupVersion string: ${gv}`;
}

function validateParamKind(pk: JsonObject, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersion = stringAt(pk, 'apiVersion');
  const at = path.child('apiVersion');
  if (apiVersion === '') errs.push(required(at, ''));
  else {
    const gv = parseGroupVersion(apiVersion);
    if (typeof gv === 'string') errs.push(invalidValue(at, apiVersion, gv));
    else {
      if (gv.group !== '') {
        const problems = isDNS1123Subdomain(gv.group);
        if (problems.length > 0) errs.push(invalidValue(at, gv.group, problems.join(',')));
      }
      if (gv.version === '') errs.push(invalidValue(at, apiVersion, 'version must be specified'));
      else {
        const problems = isDNS1035Label(gv.version);
        if (problems.length > 0) errs.push(invalidValue(at, gv.version, problems.join(',')));
      }
    }
  }
  const kind = stringAt(pk, 'kind');
  if (kind === '') errs.push(required(path.child('kind'), ''));
  else {
    const problems = isDNS1035Label(kind.toLowerCase());
    if (problems.length > 0) errs.push(invalidValue(path.child('kind'), kind, `may have mixed case, but should otherwise match: ${problems.join(',')}`));
  }
  return errs;
}

function validateMatchConditions(conditions: readonly unknown[], compiler: PolicyCompiler, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (conditions.length > MAX_MATCH_CONDITIONS) errs.push(tooMany(path, conditions.length, MAX_MATCH_CONDITIONS));
  const names = new Set<string>();
  for (const [i, c] of objectItems(conditions)) {
    const at = path.index(i);
    const expression = stringAt(c, 'expression').trim();
    if (expression === '') errs.push(required(at.child('expression'), ''));
    else errs.push(...compilationErrors(compiler.matchCondition(expression), at.child('expression')));
    const name = stringAt(c, 'name');
    if (name === '') errs.push(required(at.child('name'), ''));
    else for (const msg of isQualifiedName(name)) errs.push(invalidValue(at.child('name'), name, msg));
    if (name !== '') {
      if (names.has(name)) errs.push(duplicate(at.child('name'), name));
      else names.add(name);
    }
  }
  return errs;
}

function validateVariable(v: JsonObject, composed: PolicyVariable | undefined, compiler: PolicyCompiler, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const name = stringAt(v, 'name');
  if (blank(name)) errs.push(required(path.child('name'), 'name is not specified'));
  else if (!CEL_IDENTIFIER.test(name) || CEL_RESERVED.has(name)) errs.push(invalidValue(path.child('name'), name, 'name is not a valid CEL identifier'));
  if (composed === undefined) errs.push(required(path.child('expression'), 'expression is not specified'));
  else {
    const result = compiler.variable(composed);
    if (result !== undefined) errs.push(...compilationErrors(result, path.child('expression')));
  }
  return errs;
}

function validateValidation(v: JsonObject, compiler: PolicyCompiler, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const expression = stringAt(v, 'expression');
  if (blank(expression)) errs.push(required(path.child('expression'), 'expression is not specified'));
  else errs.push(...compilationErrors(compiler.validation(expression), path.child('expression')));
  const messageExpression = stringAt(v, 'messageExpression');
  if (messageExpression !== '' && blank(messageExpression)) errs.push(invalidValue(path.child('messageExpression'), messageExpression, 'must be non-empty if specified'));
  // The untrimmed text, so that positions in errors match what was written.
  else if (messageExpression !== '') errs.push(...compilationErrors(compiler.messageExpression(messageExpression), path.child('messageExpression')));
  const message = stringAt(v, 'message');
  if (message !== '' && blank(message)) errs.push(invalidValue(path.child('message'), message, 'message must be non-empty if specified'));
  else if (hasNewlines(message.trim())) errs.push(invalidValue(path.child('message'), message, 'message must not contain line breaks'));
  if (typeof v.reason === 'string' && !REASONS.includes(v.reason)) errs.push(notSupported(path.child('reason'), v.reason, REASONS));
  return errs;
}

function validateAuditAnnotation(a: JsonObject, policyName: string, compiler: PolicyCompiler, preexisting: PreexistingExpressions, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const key = stringAt(a, 'key');
  if (policyName !== '') {
    const qualified = `${policyName}/${key}`;
    for (const msg of isQualifiedName(qualified)) errs.push(invalidValue(path.child('key'), qualified, msg));
  } else errs.push(invalidValue(path.child('key'), key, 'requires metadata.name be non-empty'));
  const raw = stringAt(a, 'valueExpression');
  const valueExpression = raw.trim();
  const at = path.child('valueExpression');
  if (valueExpression === '') errs.push(required(at, 'valueExpression is not specified'));
  // Kubernetes reports the length as a Required error.
  else if (Buffer.byteLength(valueExpression) > MAX_VALUE_EXPRESSION_LENGTH) errs.push(required(at, `must not exceed ${MAX_VALUE_EXPRESSION_LENGTH} bytes in length`));
  else errs.push(...compilationErrors(compiler.auditAnnotation(valueExpression, preexisting.auditAnnotations.has(raw)), at, raw));
  return errs;
}

function validateSpec(obj: KubeObject, spec: JsonObject, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  const path = FieldPath.root('spec');
  if (typeof spec.failurePolicy !== 'string') errs.push(required(path.child('failurePolicy'), ''));
  else if (!FAILURE_POLICIES.includes(spec.failurePolicy)) errs.push(notSupported(path.child('failurePolicy'), spec.failurePolicy, FAILURE_POLICIES));
  const paramKind = objectAt(spec, 'paramKind');
  if (paramKind !== undefined) errs.push(...validateParamKind(paramKind, path.child('paramKind')));
  const constraints = objectAt(spec, 'matchConstraints');
  if (constraints === undefined) errs.push(required(path.child('matchConstraints'), ''));
  else {
    errs.push(...validateMatchResources(constraints, path.child('matchConstraints')));
    if (arrayAt(constraints, 'resourceRules').length === 0) errs.push(required(path.child('matchConstraints').child('resourceRules'), ''));
  }

  // Variables with an expression, composed in order; blank ones are never compiled.
  const variableObjects = [...objectItems(arrayAt(spec, 'variables'))];
  const composed = new Map<number, PolicyVariable>();
  for (const [i, v] of variableObjects) {
    const expression = stringAt(v, 'expression');
    if (!blank(expression)) composed.set(i, { name: stringAt(v, 'name'), expression });
  }
  const compiler = new PolicyCompiler(paramKind !== undefined, [...composed.values()], opts.preexisting);

  if (!opts.ignoreMatchConditions) errs.push(...validateMatchConditions(arrayAt(spec, 'matchConditions'), compiler, path.child('matchConditions')));
  for (const [i, v] of variableObjects) errs.push(...validateVariable(v, composed.get(i), compiler, path.child('variables').index(i)));

  const validations = arrayAt(spec, 'validations');
  const audit = arrayAt(spec, 'auditAnnotations');
  if (validations.length === 0 && audit.length === 0) {
    errs.push(required(path.child('validations'), 'validations or auditAnnotations must contain at least one item'));
    errs.push(required(path.child('auditAnnotations'), 'validations or auditAnnotations must contain at least one item'));
    return errs;
  }
  for (const [i, v] of objectItems(validations)) errs.push(...validateValidation(v, compiler, path.child('validations').index(i)));
  if (audit.length > MAX_AUDIT_ANNOTATIONS) {
    const rendered = goStructs(
      'admissionregistration.AuditAnnotation',
      audit.map((a) => (isObject(a) ? { Key: stringAt(a, 'key'), ValueExpression: stringAt(a, 'valueExpression') } : { Key: '', ValueExpression: '' })),
    );
    errs.push(invalidRendered(path.child('auditAnnotations'), rendered, `must not have more than ${MAX_AUDIT_ANNOTATIONS} auditAnnotations`));
  }
  const keys = new Set<string>();
  for (const [i, a] of objectItems(audit)) {
    const at = path.child('auditAnnotations').index(i);
    errs.push(...validateAuditAnnotation(a, obj.metadata.name ?? '', compiler, opts.preexisting, at));
    const key = stringAt(a, 'key');
    if (keys.has(key)) errs.push(duplicate(at.child('key'), key));
    keys.add(key);
  }
  return errs;
}

const specOf = (obj: KubeObject): JsonObject => (isObject(obj.spec) ? obj.spec : {});

/** ValidateValidatingAdmissionPolicy (create). */
export function validatePolicy(obj: KubeObject): FieldError[] {
  return validateSpec(obj, specOf(obj), { ignoreMatchConditions: false, preexisting: NO_PREEXISTING });
}

/** The expressions of the stored policy, which compile in the environment for stored expressions. */
function preexistingOf(old: KubeObject): PreexistingExpressions {
  const spec = specOf(old);
  const matchConditions = new Set<string>();
  const validations = new Set<string>();
  const messageExpressions = new Set<string>();
  const auditAnnotations = new Set<string>();
  for (const [, c] of objectItems(arrayAt(spec, 'matchConditions'))) matchConditions.add(stringAt(c, 'expression'));
  for (const [, v] of objectItems(arrayAt(spec, 'validations'))) {
    validations.add(stringAt(v, 'expression'));
    if (stringAt(v, 'messageExpression') !== '') messageExpressions.add(stringAt(v, 'messageExpression'));
  }
  for (const [, a] of objectItems(arrayAt(spec, 'auditAnnotations'))) auditAnnotations.add(stringAt(a, 'valueExpression'));
  return { matchConditions, validations, messageExpressions, auditAnnotations };
}

/**
 * ValidateValidatingAdmissionPolicyUpdate: the whole policy again, lenient toward the stored expressions;
 * matchConditions are not checked again when they and the paramKind are unchanged.
 */
export function validatePolicyUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const spec = specOf(obj);
  const oldSpec = specOf(old);
  const ignoreMatchConditions = isDeepStrictEqual(spec.paramKind, oldSpec.paramKind) && isDeepStrictEqual(spec.matchConditions, oldSpec.matchConditions);
  return validateSpec(obj, spec, { ignoreMatchConditions, preexisting: preexistingOf(old) });
}
