/**
 * Conformance adapter for our own CEL environment (apiserver/cel/interpreter): cel-js parses and checks,
 * our planner evaluates. One environment per case, extended from a base built once: the standard library
 * plus the Kubernetes libraries given, heterogeneous aggregate literals allowed (cel-go's conformance
 * default), the case's `typeEnv` variables declared, bindings without a declaration declared `dyn`.
 * Protobuf messages, enums types and containers are not part of the environment: such cases are
 * unsupported, never failed.
 */
import type { Registry } from '@bufbuild/protobuf';
import type { SimpleTest } from '@bufbuild/cel-spec/cel/expr/conformance/test/simple_pb.js';
import type { Value } from '@bufbuild/cel-spec/cel/expr/value_pb.js';
import { CelCompileError, CelEvalError } from '../errors.js';
import { CelEnvironment } from '../interpreter/environment.js';
import type { CelLibrary } from '../library/library.js';
import { EntryMap } from '../values/entry-map.js';
import { CelOpaque, CelType, CelUint, Duration, Optional, Timestamp, type CelMap, type CelObject, type CelValue } from '../values/value.js';
import { canonicalCelJsType, celJsTypeOf } from './cel-js-adapter.js';
import { canonicalTypeName, neutralScalar, fromExprValue, UnsupportedValue, type NeutralValue } from './neutral-value.js';
import type { EngineAdapter, EngineOutcome } from './runner.js';

/** A neutral value as a CEL value of ours. */
export function neutralToCel(v: NeutralValue): CelValue {
  switch (v.k) {
    case 'null':
      return null;
    case 'bool':
    case 'int':
    case 'double':
    case 'string':
    case 'bytes':
      return v.v;
    case 'uint':
      return new CelUint(v.v);
    case 'list':
      return v.v.map(neutralToCel);
    case 'map':
      return EntryMap.of(v.v.map(([k, x]) => [neutralToCel(k), neutralToCel(x)] as const));
    case 'timestamp':
      return new Timestamp(v.seconds, v.nanos);
    case 'duration':
      return new Duration(v.seconds, v.nanos);
    case 'type':
      return new CelType(v.name);
    case 'enum':
      return BigInt(v.v); // legacy (int) enums: no enum types in the environment
    case 'optional':
      return v.v === undefined ? Optional.NONE : Optional.of(neutralToCel(v.v));
    case 'message':
      throw new UnsupportedValue(`protobuf message ${v.typeName}`);
  }
}

export const toCel = (value: Value, registry: Registry): CelValue => neutralToCel(fromExprValue(value, registry));

/** A CEL value of ours as a neutral value; undefined for one it cannot represent (opaque library values). */
export function fromCel(v: CelValue): NeutralValue | undefined {
  const scalar = neutralScalar(v);
  if (scalar !== undefined) return scalar;
  if (v instanceof CelUint) return { k: 'uint', v: v.value };
  if (Array.isArray(v)) {
    const items = (v as CelValue[]).map(fromCel);
    return items.every((x) => x !== undefined) ? { k: 'list', v: items as NeutralValue[] } : undefined;
  }
  if (v instanceof Timestamp) return { k: 'timestamp', seconds: v.seconds, nanos: v.nanos };
  if (v instanceof Duration) return { k: 'duration', seconds: v.seconds, nanos: v.nanos };
  if (v instanceof CelType) return { k: 'type', name: canonicalTypeName(v.name) };
  if (v instanceof Optional) {
    if (v.value === undefined) return { k: 'optional', v: undefined };
    const inner = fromCel(v.value);
    return inner === undefined ? undefined : { k: 'optional', v: inner };
  }
  if (v instanceof CelOpaque) return undefined;
  const kind = (v as { kind?: unknown }).kind;
  if (kind === 'map') {
    const m = v as CelMap;
    const out: (readonly [NeutralValue, NeutralValue])[] = [];
    for (const k of m.keys()) {
      const nk = fromCel(k);
      const nx = fromCel(m.get(k)!);
      if (nk === undefined || nx === undefined) return undefined;
      out.push([nk, nx]);
    }
    return { k: 'map', v: out };
  }
  if (kind === 'object') {
    const o = v as CelObject;
    const out: (readonly [NeutralValue, NeutralValue])[] = [];
    for (const f of o.fieldNames()) {
      const nx = fromCel(o.field(f)!);
      if (nx === undefined) return undefined;
      out.push([{ k: 'string', v: f }, nx]);
    }
    return { k: 'map', v: out };
  }
  return undefined;
}

const describe = (err: unknown): string => (err instanceof Error ? `${err.name}: ${err.message.split('\n')[0]}` : String(err));

/** The adapter; `libraries` are the Kubernetes libraries added to the standard one (strings ext...). */
export function createPlatformAdapter(libraries: readonly CelLibrary[] = []): EngineAdapter {
  const base = CelEnvironment.create({ homogeneousAggregateLiterals: false, libraries });
  return {
    name: 'platform (cel-js checker + our interpreter)',
    typeChecks: true,
    supportsMessages: false,
    execute(test: SimpleTest, registry: Registry): EngineOutcome {
      if (test.container !== '') return { kind: 'unsupported', reason: 'containers (namespace resolution) not supported' };
      const variables: Record<string, string> = {};
      const activation: Record<string, CelValue> = {};
      try {
        for (const decl of test.typeEnv) {
          if (decl.declKind.case !== 'ident') return { kind: 'unsupported', reason: `typeEnv ${decl.declKind.case} declaration` };
          variables[decl.name] = celJsTypeOf(decl.declKind.value.type).replace(/\bnull_type\b/g, 'null');
        }
        for (const [name, ev] of Object.entries(test.bindings)) {
          if (ev.kind.case !== 'value') return { kind: 'unsupported', reason: `binding of ${ev.kind.case}` };
          activation[name] = toCel(ev.kind.value, registry);
          variables[name] ??= 'dyn';
        }
      } catch (err) {
        if (err instanceof UnsupportedValue) return { kind: 'unsupported', reason: err.message };
        return { kind: 'unsupported', reason: `environment: ${describe(err)}` };
      }
      let program;
      try {
        program = base.extend({ variables }).compile(test.expr, { check: !test.disableCheck });
      } catch (err) {
        if (err instanceof CelCompileError) return { kind: 'compile-error', message: err.message };
        return { kind: 'crash', message: `compile: ${describe(err)}` };
      }
      const type = program.type === undefined ? undefined : canonicalCelJsType(program.type);
      if (test.checkOnly && type !== undefined) return { kind: 'checked', type };
      let result: CelValue;
      try {
        result = program.evaluate(activation);
      } catch (err) {
        if (err instanceof CelEvalError) return { kind: 'eval-error', message: describe(err), ...(type === undefined ? {} : { type }) };
        return { kind: 'crash', message: `eval: ${describe(err)}` };
      }
      const value = fromCel(result);
      if (value === undefined) return { kind: 'crash', message: `unrecognised result ${Object.prototype.toString.call(result)}` };
      return { kind: 'value', value, ...(type === undefined ? {} : { type }) };
    },
  };
}
