/**
 * Structural schema rules (Kubernetes v1.32 apiextensions `ValidateStructural`), on a JSONSchemaProps as
 * written in a CustomResourceDefinition, with Kubernetes' messages and paths:
 *
 * - every node states its type (`must not be empty at the root` / `for specified array items` / `for
 *   specified object fields`), unless int-or-string or preserve-unknown-fields stand in for it; the root is
 *   an object; an array has `items`;
 * - under the logical junctors (`allOf`, `anyOf`, `oneOf`, `not`) only value validation: no type, default,
 *   title, description, nullable, externalDocs, additionalProperties, no extension (`must be empty / false /
 *   undefined to be structural`), and no `metadata` property; the int-or-string pattern (`anyOf: [{type:
 *   integer}, {type: string}]`, also as the first `allOf` entry) is the one exception;
 * - a property or items named inside a junctor must also exist outside it (checked from the root's
 *   junctors, as Kubernetes does: `Required value: because it is defined in ...`);
 * - `additionalProperties` never at the root nor beside embedded-resource; `kind` and `apiVersion` of a
 *   resource are strings; the root `metadata` may restrict nothing but `name` and `generateName`;
 * - int-or-string excludes preserve-unknown-fields and embedded-resource; embedded resources are objects
 *   with properties unless they preserve unknown fields;
 * - `pattern` compiles as an RE2 expression (Go's message).
 *
 * As Kubernetes does, the errors come back sorted by their text.
 */
import { validateRe2 } from '../../../cel/library/re2.js';
import { errorString, FieldPath, forbidden, invalidValue, required, type FieldError } from '../../../validation/field-error.js';
import { Extensions, isObject, isSet, objectAt, schemaList, schemaMap, stringAt, truthy, type Json } from './json-schema-node.js';

type Level = 'root' | 'item' | 'field';

/** All structural-schema errors of `root` (a definition's `openAPIV3Schema`) under `path`, sorted. */
export function validateStructural(root: Json, path: FieldPath, x: Extensions): FieldError[] {
  const errs = [...invariants(root, 'root', path, x), ...valueCompleteness(root, root, path, path)];
  return errs.sort((a, b) => (errorString(a) < errorString(b) ? -1 : errorString(a) > errorString(b) ? 1 : 0));
}

function invariants(s: Json, lvl: Level, p: FieldPath, x: Extensions): FieldError[] {
  const errs: FieldError[] = [];
  const type = stringAt(s, 'type');
  const items = objectAt(s, 'items');
  if (type === 'array' && items === undefined) errs.push(required(p.child('items'), 'must be specified'));
  if (items !== undefined) errs.push(...invariants(items, 'item', p.child('items'), x));
  for (const [k, v] of schemaMap(s, 'properties')) errs.push(...invariants(v, 'field', p.child('properties').key(k), x));
  if (isSet(s, 'additionalProperties')) {
    if (lvl === 'root') errs.push(forbidden(p.child('additionalProperties'), 'must not be used at the root'));
    const ap = objectAt(s, 'additionalProperties');
    if (ap !== undefined) errs.push(...invariants(ap, 'field', p.child('additionalProperties'), x));
  }

  const intOrString = truthy(s, x.intOrString);
  const preserve = truthy(s, x.preserveUnknownFields);
  const embedded = truthy(s, x.embeddedResource);
  if (intOrString && preserve) errs.push(invalidValue(p.child(x.preserveUnknownFields), true, `must be false if ${x.intOrString} is true`));
  if (intOrString && embedded) errs.push(invalidValue(p.child(x.embeddedResource), true, `must be false if ${x.intOrString} is true`));

  errs.push(...valueValidation(s, isIntOrStringAnyOf(s), isIntOrStringAllOf(s), lvl, p, x));

  const checkMetadata = lvl === 'root' || embedded;
  if (embedded && type !== 'object') {
    const detail = `must be object if ${x.embeddedResource} is true`;
    errs.push(type === '' ? required(p.child('type'), detail) : invalidValue(p.child('type'), type, detail));
  } else if (type === '' && !intOrString && !preserve) {
    const detail = { root: 'must not be empty at the root', item: 'must not be empty for specified array items', field: 'must not be empty for specified object fields' }[lvl];
    errs.push(required(p.child('type'), detail));
  }
  if (embedded && isSet(s, 'additionalProperties')) errs.push(forbidden(p.child('additionalProperties'), `must not be used if ${x.embeddedResource} is set`));
  if (lvl === 'root' && type !== '' && type !== 'object') errs.push(invalidValue(p.child('type'), type, 'must be object at the root'));

  const props = objectAt(s, 'properties') ?? {};
  for (const name of ['kind', 'apiVersion']) {
    const f = props[name];
    if (checkMetadata && isObject(f) && stringAt(f, 'type') !== 'string') {
      errs.push(invalidValue(p.child('properties').key(name).child('type'), stringAt(f, 'type'), 'must be string'));
    }
  }
  const metadata = props.metadata;
  if (isObject(metadata)) errs.push(...metadataInvariants(metadata, checkMetadata, lvl, p.child('properties').key('metadata')));

  if (embedded && !preserve && schemaMap(s, 'properties').length === 0) {
    errs.push(required(p.child('properties'), `must not be empty if ${x.embeddedResource} is true without ${x.preserveUnknownFields}`));
  }
  return errs;
}

/** Members of a metadata schema that a structural schema does not keep (so they never count). */
const NOT_STRUCTURAL = new Set(['type', 'default', 'example', '$schema']);

/** Go's zero values: what `reflect.DeepEqual` with an empty schema ignores. */
const isZero = (v: unknown): boolean =>
  v === undefined || v === null || v === false || v === '' || (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0);

function metadataInvariants(m: Json, checkMetadata: boolean, lvl: Level, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (checkMetadata && stringAt(m, 'type') !== 'object') errs.push(invalidValue(p.child('type'), stringAt(m, 'type'), 'must be object'));
  if (lvl !== 'root') return errs;
  const names = Object.keys(objectAt(m, 'properties') ?? {});
  const onlyNames = names.every((n) => n === 'name' || n === 'generateName');
  const restricted = Object.entries(m).some(([k, v]) => {
    if (NOT_STRUCTURAL.has(k) || isZero(v)) return false;
    return !(k === 'properties' && onlyNames);
  });
  if (restricted) errs.push(forbidden(p, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
  return errs;
}

/** A junctor entry that states only a type. */
const onlyType = (s: unknown, type: string): boolean =>
  isObject(s) && s.type === type && Object.entries(s).every(([k, v]) => k === 'type' || isZero(v));

const intOrStringAnyOf = (anyOf: unknown): boolean => Array.isArray(anyOf) && anyOf.length === 2 && onlyType(anyOf[0], 'integer') && onlyType(anyOf[1], 'string');

function isIntOrStringAnyOf(s: Json): boolean {
  return intOrStringAnyOf(s.anyOf);
}

function isIntOrStringAllOf(s: Json): boolean {
  const allOf = schemaList(s, 'allOf');
  return allOf.length >= 1 && intOrStringAnyOf(allOf[0]!.anyOf);
}

function valueValidation(v: Json, skipAnyOf: boolean, skipFirstAllOfAnyOf: boolean, lvl: Level, p: FieldPath, x: Extensions): FieldError[] {
  const errs: FieldError[] = [];
  if (!skipAnyOf) schemaList(v, 'anyOf').forEach((s, i) => errs.push(...nested(s, false, lvl, p.child('anyOf').index(i), x)));
  schemaList(v, 'allOf').forEach((s, i) => errs.push(...nested(s, skipFirstAllOfAnyOf && i === 0, lvl, p.child('allOf').index(i), x)));
  schemaList(v, 'oneOf').forEach((s, i) => errs.push(...nested(s, false, lvl, p.child('oneOf').index(i), x)));
  const not = objectAt(v, 'not');
  if (not !== undefined) errs.push(...nested(not, false, lvl, p.child('not'), x));
  const pattern = stringAt(v, 'pattern');
  if (pattern !== '') {
    const problem = validateRe2(pattern);
    if (problem !== undefined) errs.push(invalidValue(p.child('pattern'), pattern, `must be a valid regular expression, but isn't: ${problem}`));
  }
  return errs;
}

/** A schema under a logical junctor: value validation only. */
function nested(v: Json, skipAnyOf: boolean, lvl: Level, p: FieldPath, x: Extensions): FieldError[] {
  const errs = valueValidation(v, skipAnyOf, false, lvl, p, x);
  const items = objectAt(v, 'items');
  if (items !== undefined) errs.push(...nested(items, false, lvl, p.child('items'), x));
  for (const [k, s] of schemaMap(v, 'properties')) errs.push(...nested(s, false, 'field', p.child('properties').key(k), x));

  const mustBe = (key: string, word: string): void => void errs.push(forbidden(p.child(key), `must be ${word} to be structural`));
  if (stringAt(v, 'type') !== '') mustBe('type', 'empty');
  if (isSet(v, 'additionalProperties')) mustBe('additionalProperties', 'undefined');
  if (isSet(v, 'default')) mustBe('default', 'undefined');
  if (stringAt(v, 'title') !== '') mustBe('title', 'empty');
  if (stringAt(v, 'description') !== '') mustBe('description', 'empty');
  if (truthy(v, 'nullable')) mustBe('nullable', 'false');
  if (isSet(v, 'externalDocs')) mustBe('externalDocs', 'undefined');
  if (truthy(v, x.preserveUnknownFields)) mustBe(x.preserveUnknownFields, 'false');
  if (truthy(v, x.embeddedResource)) mustBe(x.embeddedResource, 'false');
  if (truthy(v, x.intOrString)) mustBe(x.intOrString, 'false');
  if (Array.isArray(v[x.listMapKeys]) && (v[x.listMapKeys] as unknown[]).length > 0) mustBe(x.listMapKeys, 'empty');
  if (isSet(v, x.listType)) mustBe(x.listType, 'undefined');
  if (isSet(v, x.mapType)) mustBe(x.mapType, 'undefined');
  if (Array.isArray(v[x.validations]) && (v[x.validations] as unknown[]).length > 0) mustBe(x.validations, 'empty');
  if (isObject(objectAt(v, 'properties')?.metadata)) {
    errs.push(forbidden(p.child('properties').key('metadata'), 'must not be specified in a nested context'));
  }
  return errs;
}

// ---- completeness: fields named under junctors exist outside them ------------------------------------

const definedIn = (sPath: FieldPath, vPath: FieldPath): FieldError => required(sPath, `because it is defined in ${vPath.toString()}`);

function valueCompleteness(v: Json, s: Json | undefined, sPath: FieldPath, vPath: FieldPath): FieldError[] {
  if (s === undefined) return [definedIn(sPath, vPath)];
  const errs: FieldError[] = [];
  const not = objectAt(v, 'not');
  if (not !== undefined) errs.push(...nestedCompleteness(not, s, sPath, vPath.child('not')));
  for (const key of ['allOf', 'anyOf', 'oneOf']) {
    schemaList(v, key).forEach((n, i) => errs.push(...nestedCompleteness(n, s, sPath, vPath.child(key).index(i))));
  }
  return errs;
}

function nestedCompleteness(v: Json, s: Json | undefined, sPath: FieldPath, vPath: FieldPath): FieldError[] {
  if (s === undefined) return [definedIn(sPath, vPath)];
  const errs = valueCompleteness(v, s, sPath, vPath);
  const items = objectAt(v, 'items');
  if (items !== undefined) errs.push(...nestedCompleteness(items, objectAt(s, 'items'), sPath.child('items'), vPath.child('items')));
  const sProps = objectAt(s, 'properties') ?? {};
  for (const [k, vFld] of schemaMap(v, 'properties')) {
    const sFld = sProps[k];
    if (!isObject(sFld)) errs.push(definedIn(sPath.child('properties').key(k), vPath.child('properties').key(k)));
    else errs.push(...nestedCompleteness(vFld, sFld, sPath.child('properties').key(k), vPath.child('properties').key(k)));
  }
  return errs;
}
