/**
 * Conformance adapter for `@marcbachmann/cel-js`: a type-checking engine without protobuf.
 *
 * One environment per case (a clone of a frozen base): heterogeneous aggregate literals allowed and
 * optional types on, as cel-go's (and so Kubernetes') defaults are; the test's `typeEnv` variables
 * declared with their types, bindings without a declaration declared `dyn` (they only occur in cases with
 * `disableCheck`). The engine has no containers, no protobuf messages (bar Timestamp and Duration) and
 * millisecond timestamps (a JS Date), so cases needing those are unsupported, never failed.
 */
import type { Registry } from '@bufbuild/protobuf';
import { anyUnpack } from '@bufbuild/protobuf/wkt';
import type { SimpleTest } from '@bufbuild/cel-spec/cel/expr/conformance/test/simple_pb.js';
import type { Value } from '@bufbuild/cel-spec/cel/expr/value_pb.js';
import { Type_PrimitiveType, Type_WellKnownType, type Type } from '@bufbuild/cel-spec/cel/expr/checked_pb.js';
import { Environment, EvaluationError, Optional, ParseError, TypeError as CelTypeError, parse as celParse } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { canonicalTypeName, neutralScalar, DURATION, fromMessage, TIMESTAMP, UnsupportedValue, type NeutralValue } from './neutral-value.js';
import type { EngineAdapter, EngineOutcome } from './runner.js';

const PRIMITIVE_NAMES: Partial<Record<Type_PrimitiveType, string>> = {
  [Type_PrimitiveType.BOOL]: 'bool',
  [Type_PrimitiveType.INT64]: 'int',
  [Type_PrimitiveType.UINT64]: 'uint',
  [Type_PrimitiveType.DOUBLE]: 'double',
  [Type_PrimitiveType.STRING]: 'string',
  [Type_PrimitiveType.BYTES]: 'bytes',
};

/** A checked type as cel-js's declaration syntax; throws UnsupportedValue for what it cannot declare. */
export function celJsTypeOf(t: Type | undefined): string {
  const kind = t?.typeKind;
  switch (kind?.case) {
    case 'dyn':
      return 'dyn';
    case 'null':
      return 'null_type';
    case 'primitive': {
      const name = PRIMITIVE_NAMES[kind.value];
      if (name === undefined) throw new UnsupportedValue(`primitive type ${kind.value}`);
      return name;
    }
    case 'wrapper':
      // No nullable wrapper types: dyn admits both the primitive and null.
      return 'dyn';
    case 'wellKnown':
      if (kind.value === Type_WellKnownType.TIMESTAMP) return TIMESTAMP;
      if (kind.value === Type_WellKnownType.DURATION) return DURATION;
      return 'dyn';
    case 'listType':
      return `list<${celJsTypeOf(kind.value.elemType)}>`;
    case 'mapType':
      return `map<${celJsTypeOf(kind.value.keyType)}, ${celJsTypeOf(kind.value.valueType)}>`;
    case 'type':
      return 'type';
    case 'abstractType':
      if (kind.value.name === 'optional_type' && kind.value.parameterTypes.length === 1) return `optional<${celJsTypeOf(kind.value.parameterTypes[0])}>`;
      throw new UnsupportedValue(`abstract type ${kind.value.name}`);
    case 'messageType':
      if (kind.value === TIMESTAMP || kind.value === DURATION) return kind.value;
      throw new UnsupportedValue(`protobuf message type ${kind.value}`);
    default:
      throw new UnsupportedValue(`declared type ${kind?.case ?? 'unspecified'}`);
  }
}

/** A conformance value as a cel-js input value. */
export function toCelJs(value: Value, registry: Registry): unknown {
  const kind = value.kind;
  switch (kind.case) {
    case 'nullValue':
      return null;
    case 'boolValue':
    case 'stringValue':
    case 'bytesValue':
    case 'doubleValue':
    case 'int64Value':
      return kind.value;
    case 'uint64Value':
      return new UnsignedInt(kind.value);
    case 'enumValue':
      return BigInt(kind.value.value); // legacy (int) enums: the engine has no enum types
    case 'typeValue':
      return typeValue(kind.value);
    case 'listValue':
      return kind.value.values.map((v) => toCelJs(v, registry));
    case 'mapValue':
      return new Map(kind.value.entries.map((e) => [toCelJs(e.key!, registry), toCelJs(e.value!, registry)]));
    case 'objectValue': {
      const message = anyUnpack(kind.value, registry);
      if (message === undefined) throw new UnsupportedValue(`Any of ${kind.value.typeUrl}`);
      return neutralToCelJs(fromMessage(message));
    }
    default:
      throw new UnsupportedValue('empty value');
  }
}

function neutralToCelJs(v: NeutralValue): unknown {
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
      return new UnsignedInt(v.v);
    case 'list':
      return v.v.map(neutralToCelJs);
    case 'map':
      return new Map(v.v.map(([k, x]) => [neutralToCelJs(k), neutralToCelJs(x)]));
    case 'timestamp':
      if (v.nanos % 1_000_000 !== 0) throw new UnsupportedValue('timestamp with sub-millisecond nanos (JS Date)');
      return new Date(Number(v.seconds) * 1000 + v.nanos / 1_000_000);
    case 'duration':
      return new Duration(v.seconds, v.nanos);
    default:
      throw new UnsupportedValue(`${v.k} input`);
  }
}

const typeValues = new Map<string, unknown>();
function typeValue(name: string): unknown {
  let t = typeValues.get(name);
  if (t === undefined) {
    const expr = name === 'null_type' ? 'type(null)' : name;
    try {
      t = celParse(expr)();
    } catch {
      throw new UnsupportedValue(`type value ${name}`);
    }
    typeValues.set(name, t);
  }
  return t;
}

/** A cel-js result as a neutral value; undefined for a value it does not recognise. */
export function fromCelJs(v: unknown): NeutralValue | undefined {
  const scalar = neutralScalar(v);
  if (scalar !== undefined) return scalar;
  if (typeof v !== 'object' || v === null) return undefined;
  if (v instanceof UnsignedInt) return { k: 'uint', v: v.value };
  if (v instanceof Date) {
    const ms = v.getTime();
    const seconds = Math.floor(ms / 1000);
    return { k: 'timestamp', seconds: BigInt(seconds), nanos: (ms - seconds * 1000) * 1_000_000 };
  }
  if (v instanceof Duration) return { k: 'duration', seconds: v.seconds, nanos: v.nanos };
  if (v instanceof Optional) {
    if (!v.hasValue()) return { k: 'optional', v: undefined };
    const inner = fromCelJs(v.value());
    return inner === undefined ? undefined : { k: 'optional', v: inner };
  }
  if (Array.isArray(v)) {
    const items = v.map(fromCelJs);
    return items.every((x) => x !== undefined) ? { k: 'list', v: items as NeutralValue[] } : undefined;
  }
  const entries: (readonly [unknown, unknown])[] =
    v instanceof Map ? [...v.entries()] : Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null ? Object.entries(v) : [];
  if (v instanceof Map || entries.length > 0 || Object.getPrototypeOf(v) === Object.prototype) {
    const out: (readonly [NeutralValue, NeutralValue])[] = [];
    for (const [k, x] of entries) {
      const nk = fromCelJs(k);
      const nx = fromCelJs(x);
      if (nk === undefined || nx === undefined) return undefined;
      out.push([nk, nx]);
    }
    return { k: 'map', v: out };
  }
  // cel-js's Type values (the class is not exported): `Type<name>`.
  if (v.constructor?.name === 'Type' && typeof (v as { name?: unknown }).name === 'string') {
    return { k: 'type', name: canonicalTypeName((v as { name: string }).name) };
  }
  return undefined;
}

/** cel-js's type text in the canonical spelling of `formatCheckedType`. */
export function canonicalCelJsType(t: string): string {
  if (t === 'list') return 'list<dyn>';
  if (t === 'map') return 'map<dyn, dyn>';
  return t
    .replace(/\boptional</g, 'optional_type<')
    .replace(/\bnull\b/g, 'null_type')
    .replace(/\b[A-Z]\b/g, 'dyn'); // unbound type parameters (`list<T>` of `[]`) end as dyn
}

const isCelError = (err: unknown): boolean => err instanceof EvaluationError || err instanceof ParseError || err instanceof CelTypeError;

const describe = (err: unknown): string => (err instanceof Error ? `${err.name}: ${err.message.split('\n')[0]}` : String(err));

export function createCelJsAdapter(): EngineAdapter {
  const base = new Environment({ unlistedVariablesAreDyn: false, homogeneousAggregateLiterals: false, enableOptionalTypes: true });
  // A throw-away clone freezes `base`, so every case's clone starts from the same registry.
  base.clone();
  return {
    name: '@marcbachmann/cel-js 8.0.0',
    typeChecks: true,
    supportsMessages: false,
    execute(test: SimpleTest, registry: Registry): EngineOutcome {
      if (test.container !== '') return { kind: 'unsupported', reason: 'containers (namespace resolution) not supported' };
      let env: Environment;
      let context: Record<string, unknown>;
      try {
        env = base.clone();
        const declared = new Set<string>();
        for (const decl of test.typeEnv) {
          if (decl.declKind.case !== 'ident') return { kind: 'unsupported', reason: `typeEnv ${decl.declKind.case} declaration` };
          env.registerVariable(decl.name, celJsTypeOf(decl.declKind.value.type));
          declared.add(decl.name);
        }
        context = {};
        for (const [name, ev] of Object.entries(test.bindings)) {
          if (ev.kind.case !== 'value') return { kind: 'unsupported', reason: `binding of ${ev.kind.case}` };
          context[name] = toCelJs(ev.kind.value, registry);
          if (!declared.has(name)) env.registerVariable(name, 'dyn');
        }
      } catch (err) {
        if (err instanceof UnsupportedValue) return { kind: 'unsupported', reason: err.message };
        return { kind: 'unsupported', reason: `environment: ${describe(err)}` };
      }
      let program: ReturnType<Environment['parse']>;
      try {
        program = env.parse(test.expr);
      } catch (err) {
        return isCelError(err) ? { kind: 'compile-error', message: describe(err) } : { kind: 'crash', message: `parse: ${describe(err)}` };
      }
      let type: string | undefined;
      if (!test.disableCheck) {
        const checked = program.check();
        if (!checked.valid) {
          return isCelError(checked.error) ? { kind: 'compile-error', message: describe(checked.error) } : { kind: 'crash', message: `check: ${describe(checked.error)}` };
        }
        type = canonicalCelJsType(checked.type ?? 'dyn');
        if (test.checkOnly) return { kind: 'checked', type };
      }
      let result: unknown;
      try {
        result = program(context);
      } catch (err) {
        return isCelError(err) ? { kind: 'eval-error', message: describe(err), ...(type === undefined ? {} : { type }) } : { kind: 'crash', message: `eval: ${describe(err)}` };
      }
      if (result instanceof Promise) return { kind: 'crash', message: 'evaluation returned a Promise' };
      const value = fromCelJs(result);
      if (value === undefined) return { kind: 'crash', message: `unrecognised result ${Object.prototype.toString.call(result)}` };
      return { kind: 'value', value, ...(type === undefined ? {} : { type }) };
    },
  };
}
