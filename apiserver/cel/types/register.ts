/**
 * Declaring a DeclType tree to a cel-js `Environment` (the checker; evaluation is ours).
 *
 * How cel-js 8.0.0 declares schema types (read from its registry):
 *  - `registerType(name, {fields: {field: '<type string>'}})` declares an object (message) type whose
 *    fields the checker knows: `self.x` of an undeclared field is `No such key: x`, operands are typed.
 *    Field type strings may name object types not yet registered (they are parsed leniently), but without
 *    a `ctor` cel-js builds a runtime converter that looks the field types up, so children are
 *    registered before their parents here.
 *  - Type names must be at least two characters and, to take operator overloads, word characters and
 *    dots only.
 *  - An object type has no equality of its own (`self == oldSelf` is "no such overload"): `T == T` is
 *    registered for every object type (`!=` follows), as CEL has equality on every type. The handler is
 *    never run by our interpreter.
 *  - int-or-string is `dyn` (cel-js has no union types; Kubernetes declares it `dyn` as well).
 *  - Optional field access (`self.?x`) needs `enableOptionalTypes`; `has(self.x)` is a macro that cel-js
 *    checks only at its root identifier. Neither rejects an undeclared field, nor does cel-js refuse
 *    `self["x"]` on an object type: `field-check.ts` closes those gaps after `check()`.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { objectTypesOf, type DeclType, type ObjectDecl } from './decl-type.js';

const registered = new WeakMap<Environment, Set<string>>();

function neverEvaluated(): never {
  throw new Error('schema object types are evaluated by apiserver/cel/interpreter, not by cel-js');
}

/**
 * Declares every object type of `t` (once per environment: names already declared through this function
 * are skipped, so a tree shared by several variables, such as `self` and `oldSelf`, is declared once).
 * Returns the tree's object types by name (for `checkFieldSelections`).
 */
export function registerDeclTypes(env: Environment, t: DeclType): Map<string, ObjectDecl> {
  const types = objectTypesOf(t);
  let done = registered.get(env);
  if (!done) registered.set(env, (done = new Set()));
  // Children first: cel-js resolves a field's object type when it builds the parent's converter.
  const ordered = [...types.values()].reverse();
  for (const o of ordered) {
    if (done.has(o.name)) continue;
    const fields: Record<string, string> = {};
    for (const [name, f] of o.fields) fields[name] = f.type.celType;
    env.registerType(o.name, { fields });
    env.registerOperator(`${o.name} == ${o.name}`, neverEvaluated);
    done.add(o.name);
  }
  return types;
}

/** Declares the types of `t` and a variable of that type (`self`, `oldSelf`...). */
export function registerSchemaVariable(env: Environment, variable: string, t: DeclType): Map<string, ObjectDecl> {
  const types = registerDeclTypes(env, t);
  env.registerVariable(variable, t.celType);
  return types;
}
