/**
 * Kubernetes' `ValidFieldPath` (apiextensions schema/cel): a relative JSON path of field and map accessors
 * (`.spec.replicas`, `.spec['a.b']`, `.labels['app']`) resolved against a structural schema. Used by the
 * rules' `fieldPath` and by `selectableFields` (there without array notation).
 *
 * Tokens are `.`, `[`, `]` and the text between them; a single-quoted string inside brackets may contain
 * delimiters and the escapes `\\ \' \a \b \f \n \r \t \v`. A step into an object with `properties` names a
 * property (which must exist); a step into a map (`additionalProperties`) is a key. The errors are
 * Kubernetes' texts (`does not refer to a valid field`, `expected [ or . but got: x`, ...).
 */
import { fieldPathTokens, unescapeQuoted } from '../../../schema/field-path-syntax.js';
import { FieldPath } from '../../../validation/field-error.js';
import { isSet, objectAt, type Json } from './json-schema-node.js';

export interface ResolvedFieldPath {
  /** The path in field-error form (`spec.labels[app]`); '' for an empty input. */
  readonly path: string;
  /** The first step's name ('' for an empty input). */
  readonly root: string;
  /** The schema at the end of the path (undefined past a map of untyped values). */
  readonly schema: Json | undefined;
}

export type FieldPathResult = { readonly ok: true; readonly value: ResolvedFieldPath } | { readonly ok: false; readonly error: string };

/** Resolves `jsonPath` against `schema` (see the file comment). */
export function validFieldPath(jsonPath: string, schema: Json, allowArrayNotation = true): FieldPathResult {
  const tokens = fieldPathTokens(jsonPath);
  let path: FieldPath | undefined;
  let root = '';
  let at: Json | undefined = schema;
  const fail = (error: string): FieldPathResult => ({ ok: false, error });

  const step = (name: string): string | undefined => {
    if (at === undefined) return 'does not refer to a valid field';
    if (at.properties !== undefined && at.properties !== null) {
      path = path === undefined ? FieldPath.root(name) : path.child(name);
      const next = objectAt(objectAt(at, 'properties') ?? {}, name);
      if (next === undefined) return 'does not refer to a valid field';
      at = next;
    } else if (isSet(at, 'additionalProperties')) {
      path = (path ?? FieldPath.root()).key(name);
      at = objectAt(at, 'additionalProperties');
    } else {
      return 'does not refer to a valid field';
    }
    if (root === '') root = name;
    return undefined;
  };

  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i]!;
    if (tok === '[') {
      if (!allowArrayNotation) return fail('array notation is not allowed');
      const quoted = tokens[++i];
      if (quoted === undefined) return fail('unexpected end of JSON path');
      if (quoted.length < 2 || !quoted.startsWith("'") || !quoted.endsWith("'")) return fail(`expected single quoted string but got ${quoted}`);
      const unquoted = unescapeQuoted(quoted.slice(1, -1));
      if ('badEscape' in unquoted) return fail(`invalid string literal: invalid escape char ${unquoted.badEscape}`);
      const name = unquoted.value;
      const problem = step(name);
      if (problem !== undefined) return fail(problem);
      const close = tokens[++i];
      if (close === undefined) return fail('unexpected end of JSON path');
      if (close !== ']') return fail(`expected ] but got ${close}`);
    } else if (tok === '.') {
      const name = tokens[++i];
      if (name === undefined) return fail('unexpected end of JSON path');
      const problem = step(name);
      if (problem !== undefined) return fail(problem);
    } else {
      return fail(`expected [ or . but got: ${tok}`);
    }
  }
  return { ok: true, value: { path: path?.toString() ?? '', root, schema: at } };
}
