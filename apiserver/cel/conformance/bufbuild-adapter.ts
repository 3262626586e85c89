/**
 * Conformance adapter for `@bufbuild/cel`: a protobuf-native evaluator without a public type checker
 * (0.6.1 ships a `Checker` that handles only constants and identifiers, and does not export it).
 *
 * One environment per case: the conformance registry (TestAllTypes and the well-known types), the
 * case's container as namespace, the strings extension; every case is evaluated unchecked, so cases
 * that expect a deduced type are unsupported for this engine (the runner decides that).
 */
import { isMessage, type Registry } from '@bufbuild/protobuf';
import { anyUnpack } from '@bufbuild/protobuf/wkt';
import { isReflectMessage } from '@bufbuild/protobuf/reflect';
import type { SimpleTest } from '@bufbuild/cel-spec/cel/expr/conformance/test/simple_pb.js';
import type { Value } from '@bufbuild/cel-spec/cel/expr/value_pb.js';
import {
  CelScalar,
  celEnv,
  celUint,
  isCelError,
  isCelList,
  isCelMap,
  isCelType,
  isCelUint,
  listType,
  mapType,
  objectType,
  parse,
  plan,
  type CelInput,
  type CelType,
} from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { canonicalTypeName, neutralScalar, fromMessage, UnsupportedValue, type NeutralValue } from './neutral-value.js';
import type { EngineAdapter, EngineOutcome } from './runner.js';

const SCALARS: Record<string, CelType> = {
  int: CelScalar.INT,
  uint: CelScalar.UINT,
  bool: CelScalar.BOOL,
  string: CelScalar.STRING,
  bytes: CelScalar.BYTES,
  double: CelScalar.DOUBLE,
  null_type: CelScalar.NULL,
  dyn: CelScalar.DYN,
  type: CelScalar.TYPE,
  list: listType(CelScalar.DYN),
  map: mapType(CelScalar.DYN, CelScalar.DYN),
};

/** A conformance value as a `@bufbuild/cel` input. */
export function toBuf(value: Value, registry: Registry): CelInput {
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
      return celUint(kind.value);
    case 'enumValue':
      return BigInt(kind.value.value);
    case 'typeValue': {
      const scalar = SCALARS[kind.value];
      if (scalar !== undefined) return scalar;
      const desc = registry.getMessage(kind.value);
      if (desc === undefined) throw new UnsupportedValue(`type value ${kind.value}`);
      return objectType(desc);
    }
    case 'listValue':
      return kind.value.values.map((v) => toBuf(v, registry));
    case 'mapValue':
      return new Map(kind.value.entries.map((e) => [toBuf(e.key!, registry) as string, toBuf(e.value!, registry)]));
    case 'objectValue': {
      const message = anyUnpack(kind.value, registry);
      if (message === undefined) throw new UnsupportedValue(`Any of ${kind.value.typeUrl}`);
      return message;
    }
    default:
      throw new UnsupportedValue('empty value');
  }
}

/** A `@bufbuild/cel` result as a neutral value; undefined for what it does not recognise. */
export function fromBuf(v: unknown): NeutralValue | undefined {
  const scalar = neutralScalar(v);
  if (scalar !== undefined) return scalar;
  if (typeof v !== 'object' || v === null) return undefined;
  if (isCelUint(v)) return { k: 'uint', v: v.value };
  if (isCelList(v)) {
    const items = [...v].map(fromBuf);
    return items.every((x) => x !== undefined) ? { k: 'list', v: items as NeutralValue[] } : undefined;
  }
  if (isCelMap(v)) {
    const out: (readonly [NeutralValue, NeutralValue])[] = [];
    for (const [k, x] of v) {
      const nk = fromBuf(k);
      const nx = fromBuf(x);
      if (nk === undefined || nx === undefined) return undefined;
      out.push([nk, nx]);
    }
    return { k: 'map', v: out };
  }
  if (isCelType(v)) return { k: 'type', name: canonicalTypeName(v.name) };
  if (isReflectMessage(v)) return fromMessage(v.message);
  if (isMessage(v)) return fromMessage(v);
  return undefined;
}

export function createBufAdapter(): EngineAdapter {
  return {
    name: '@bufbuild/cel 0.6.1',
    typeChecks: false,
    supportsMessages: true,
    execute(test: SimpleTest, registry: Registry): EngineOutcome {
      const bindings: Record<string, CelInput> = {};
      try {
        for (const [name, ev] of Object.entries(test.bindings)) {
          if (ev.kind.case !== 'value') return { kind: 'unsupported', reason: `binding of ${ev.kind.case}` };
          bindings[name] = toBuf(ev.kind.value, registry);
        }
      } catch (err) {
        if (err instanceof UnsupportedValue) return { kind: 'unsupported', reason: err.message };
        throw err;
      }
      if (test.checkOnly) return { kind: 'unsupported', reason: 'check-only case; engine has no type checker' };
      let program: ReturnType<typeof plan>;
      try {
        const env = celEnv({ namespace: test.container, registry, funcs: strings });
        program = plan(env, parse(test.expr));
      } catch (err) {
        return { kind: 'compile-error', message: err instanceof Error ? err.message.split('\n')[0]! : String(err) };
      }
      let result: unknown;
      try {
        result = program(bindings);
      } catch (err) {
        return { kind: 'crash', message: `eval threw ${err instanceof Error ? err.message : String(err)}` };
      }
      if (isCelError(result)) return { kind: 'eval-error', message: result.message.split('\n')[0]! };
      const value = fromBuf(result);
      if (value === undefined) return { kind: 'crash', message: `unrecognised result ${Object.prototype.toString.call(result)}` };
      return { kind: 'value', value };
    },
  };
}
