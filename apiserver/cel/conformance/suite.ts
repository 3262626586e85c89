/**
 * The cel-spec "simple" conformance suite (cel-spec v0.25.1 as shipped by `@bufbuild/cel-spec`), flattened
 * to one list of cases named `file/section/test` — the names cel-go's conformance runner uses for its
 * skip lists — plus the canonical spelling of checked types (`cel.expr.Type`) that adapters compare
 * their checkers' answers with.
 */
import { getConformanceSuite, type IncrementalTestSuite } from '@bufbuild/cel-spec/testdata/tests.js';
import { getTestRegistry } from '@bufbuild/cel-spec/testdata/registry.js';
import type { SimpleTest } from '@bufbuild/cel-spec/cel/expr/conformance/test/simple_pb.js';
import { Type_PrimitiveType, Type_WellKnownType, type Type } from '@bufbuild/cel-spec/cel/expr/checked_pb.js';
import type { Registry } from '@bufbuild/protobuf';

export interface ConformanceCase {
  /** `file/section/test`, e.g. `basic/self_eval_zeroish/self_eval_int_zero`; `#2` ... on repeated names. */
  readonly path: string;
  /** The file's name, e.g. `basic`; the unit pass rates are reported by. */
  readonly file: string;
  readonly test: SimpleTest;
}

let cached: { cases: readonly ConformanceCase[]; registry: Registry } | undefined;

/** Every simple-suite test, in the data's order; loaded once per process. */
export function loadSimpleSuite(): { readonly cases: readonly ConformanceCase[]; readonly registry: Registry } {
  if (cached !== undefined) return cached;
  const cases: ConformanceCase[] = [];
  const seen = new Map<string, number>();
  const walk = (suite: IncrementalTestSuite, prefix: string, file: string): void => {
    for (const t of suite.tests) {
      // The data repeats a few names within a section; the second one is `name#2`, and so on.
      const base = `${prefix}/${t.name}`;
      const n = (seen.get(base) ?? 0) + 1;
      seen.set(base, n);
      cases.push({ path: n === 1 ? base : `${base}#${n}`, file, test: t.original });
    }
    for (const s of suite.suites) walk(s, `${prefix}/${s.name}`, file);
  };
  for (const f of getConformanceSuite().suites) walk(f, f.name, f.name);
  cached = { cases, registry: getTestRegistry() };
  return cached;
}

const PRIMITIVES: Partial<Record<Type_PrimitiveType, string>> = {
  [Type_PrimitiveType.BOOL]: 'bool',
  [Type_PrimitiveType.INT64]: 'int',
  [Type_PrimitiveType.UINT64]: 'uint',
  [Type_PrimitiveType.DOUBLE]: 'double',
  [Type_PrimitiveType.STRING]: 'string',
  [Type_PrimitiveType.BYTES]: 'bytes',
};

const WELL_KNOWN: Partial<Record<Type_WellKnownType, string>> = {
  [Type_WellKnownType.ANY]: 'any',
  [Type_WellKnownType.TIMESTAMP]: 'google.protobuf.Timestamp',
  [Type_WellKnownType.DURATION]: 'google.protobuf.Duration',
};

/**
 * The canonical text of a checked type: `int`, `list<string>`, `map<string, dyn>`, `wrapper<int>`,
 * `type<int>`, `optional_type<int>`, message names in full.
 */
export function formatCheckedType(t: Type | undefined): string {
  const kind = t?.typeKind;
  switch (kind?.case) {
    case 'dyn':
      return 'dyn';
    case 'null':
      return 'null_type';
    case 'primitive':
      return PRIMITIVES[kind.value] ?? `primitive(${kind.value})`;
    case 'wrapper':
      return `wrapper<${PRIMITIVES[kind.value] ?? kind.value}>`;
    case 'wellKnown':
      return WELL_KNOWN[kind.value] ?? `well_known(${kind.value})`;
    case 'listType':
      return `list<${formatCheckedType(kind.value.elemType)}>`;
    case 'mapType':
      return `map<${formatCheckedType(kind.value.keyType)}, ${formatCheckedType(kind.value.valueType)}>`;
    case 'messageType':
      return kind.value;
    case 'typeParam':
      return kind.value;
    case 'type':
      return kind.value.typeKind.case === undefined ? 'type' : `type<${formatCheckedType(kind.value)}>`;
    case 'abstractType':
      return kind.value.parameterTypes.length === 0
        ? kind.value.name
        : `${kind.value.name}<${kind.value.parameterTypes.map(formatCheckedType).join(', ')}>`;
    case 'function':
      return 'function';
    case 'error':
      return 'error';
    default:
      return 'unspecified';
  }
}
