/**
 * Base environments by version (Kubernetes' `environment.MustBaseEnvSet`): every CEL expression of the
 * server is compiled in an extension of one of these.
 *
 * Kubernetes adds each library and language option at an "introduced version" (base.go) and builds two
 * environments per compatibility version:
 *  - **new expressions** (an expression written now: a create, or an update that changes it): only what
 *    was introduced at or before the compatibility version;
 *  - **stored expressions** (an expression already persisted, unchanged by the update, or evaluated at
 *    admission): everything, so an expression written on a newer server keeps compiling and evaluating
 *    after a rollback.
 * The compatibility version of a server is the minor before its own (`MinCompatibilityVersion`): a 1.32
 * server accepts in new expressions what 1.31 introduced, so a rollback to 1.31 still understands them.
 * Hence the spec's "quantity, optionals and cross-type numeric comparisons are usable from 1.29": base.go
 * introduces them at 1.28.
 *
 * | introduced | what (base.go)                                                                          |
 * |------------|-----------------------------------------------------------------------------------------|
 * | always     | homogeneous aggregate literals, default UTC time zone, eager declaration validation,     |
 * |            | standard library and macros, strings ext v0, lists, regex (`find`, `findAll`), url       |
 * | 1.27       | authorizer library                                                                     |
 * | 1.28       | cross-type numeric comparisons, optional types, quantity                               |
 * | 1.29       | AST validators (duration, timestamp and regex literals), strings ext v2 (`format`,     |
 * |            | `strings.quote`, with its literal format check), sets                                  |
 * | 1.30       | ip, cidr                                                                               |
 * | 1.31       | format library; authorizer selectors (only with the AuthorizeWithSelectors gate, beta  |
 * |            | and on by default in 1.32)                                                             |
 * | 1.32       | two-variable comprehensions (kubernetes/kubernetes#128593): a 1.32 server refuses them |
 * |            | in new expressions (compatibility 1.31) and compiles them in stored ones; here neither |
 * |            | environment has them (the engine's parser has no two-variable macros)                  |
 *
 * Libraries come from `library/libraries.ts` with their `since` (= base.go's introduced version); the
 * language options are gated by the AST passes of `validate.ts`. Our checker always has optional types
 * and cross-type comparisons on; an environment where they are not introduced yet refuses them with
 * cel-go's messages.
 *
 * Homogeneous aggregate literals are checked by validate.ts (as cel-go's validator: the literals inside
 * `format` calls are exempt). Time accessors without a zone use UTC (interpreter), and declarations are
 * validated once, when the environment is built (`registerFunction` refuses a broken signature).
 *
 * Every environment is built once per (mode, version, gate) and cached.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { CelEnvironment } from '../interpreter/environment.js';
import { authzSelectorsLibrary, KUBERNETES_LIBRARIES } from '../library/libraries.js';
import type { CelLibrary } from '../library/library.js';
import { stringFormatLibrary } from '../library/string-format.js';

/** The Kubernetes minor version this server implements. */
export const SERVER_MINOR_VERSION = 32;
/** The default compatibility version: the minor before the server's (Kubernetes' MinCompatibilityVersion). */
export const DEFAULT_COMPATIBILITY_VERSION = SERVER_MINOR_VERSION - 1;

/** Language options by the version base.go introduces them. */
export const OPTIONAL_TYPES_SINCE = 28;
export const CROSS_TYPE_NUMERIC_COMPARISONS_SINCE = 28;
export const LITERAL_VALIDATORS_SINCE = 29;

export type ExpressionMode = 'new' | 'stored';

/** What the AST passes allow (validate.ts). */
export interface LanguageFeatures {
  readonly optionalTypes: boolean;
  readonly crossTypeNumericComparisons: boolean;
  /** cel-go's ValidateDurationLiterals, ValidateTimestampLiterals, ValidateRegexLiterals. */
  readonly literalValidators: boolean;
  /** The strings ext v2 `format` and its literal format-string validator. */
  readonly stringFormat: boolean;
}

export interface BaseEnvironment {
  readonly env: CelEnvironment;
  readonly mode: ExpressionMode;
  /** The compatibility version the environment was built for (a stored environment has everything). */
  readonly compatibilityVersion: number;
  readonly features: LanguageFeatures;
  /** Names of the libraries it contains. */
  readonly libraries: readonly string[];
  /** A key unique to this base environment, for caches of environments built on it. */
  readonly key: string;
}

/** Kubernetes' EnvSet: the two environments of one compatibility version. */
export interface EnvironmentSet {
  readonly newExpressions: BaseEnvironment;
  readonly storedExpressions: BaseEnvironment;
  readonly compatibilityVersion: number;
}

export interface BaseEnvironmentOptions {
  /** Kubernetes minor version (1.x); default DEFAULT_COMPATIBILITY_VERSION. */
  readonly compatibilityVersion?: number;
  /** The AuthorizeWithSelectors feature gate (beta in 1.32, on by default). */
  readonly authorizeWithSelectors?: boolean;
}

const cache = new Map<string, BaseEnvironment>();

/**
 * What cel-go gives every registered library type and the checker lacks (declared for the library types
 * of the environment, `kubernetes.Quantity`, `net.IP`, `net.CIDR`, `kubernetes.URL`,
 * `kubernetes.NamedFormat`, the authorizer types):
 *  - equality: cel-go's `_==_` and `_!=_` take any two values of one type, so `quantity('1') ==
 *    quantity('1000m')` checks; `T == T` is declared (cel-js derives `!=`) and the interpreter compares
 *    through `CelOpaque.equals` (Quantity by value, IP by address, CIDR by prefix, URL by its text,
 *    NamedFormat by name; authorizer values by identity);
 *  - the type name as a type value: `type(ip('1.2.3.4')) == net.IP` (Kubernetes' ip_test.go and
 *    cidr_test.go: a library's `cel.Types(...)` registers the name, which cel-go's checker resolves as an
 *    identifier). cel-js resolves a dotted name only through a constant of its first segment (as it does
 *    for `google.protobuf.Timestamp`), so each first segment (`net`, `kubernetes`) is a constant map of
 *    the type values under it; the planner resolves a known qualified type name to the type value
 *    itself. A first segment that is already declared (a variable or a namespace) is left alone.
 */
function declareLibraryTypes(libraries: readonly CelLibrary[]): (checker: Environment) => void {
  const types = [...new Set(libraries.flatMap((l) => l.types ?? []))];
  return (checker) => {
    for (const t of types) checker.registerOperator(`${t} == ${t}`, neverEvaluated);
    // cel-js's type value class (not exported): the class of the constant `int`.
    const TypeValue = (checker.evaluate('int') as object).constructor as new (name: string) => object;
    const roots = new Map<string, Record<string, unknown>>();
    for (const t of types) {
      const parts = t.split('.');
      if (parts.length < 2) continue;
      let node = roots.get(parts[0]!);
      if (node === undefined) roots.set(parts[0]!, (node = {}));
      for (const p of parts.slice(1, -1)) node = (node[p] ??= {}) as Record<string, unknown>;
      node[parts[parts.length - 1]!] = new TypeValue(t);
    }
    for (const [root, value] of roots) if (!checker.hasVariable(root)) checker.registerConstant(root, 'map<string, dyn>', value);
  };
}

function neverEvaluated(): never {
  throw new Error('evaluated by apiserver/cel/interpreter');
}

function checkVersion(v: number): void {
  if (!Number.isInteger(v) || v < 0) throw new Error(`compatibility version must be a non-negative Kubernetes minor version, got ${v}`);
}

/** The base environment for new or stored expressions (cached). */
export function baseEnvironment(mode: ExpressionMode, options: BaseEnvironmentOptions = {}): BaseEnvironment {
  const version = options.compatibilityVersion ?? DEFAULT_COMPATIBILITY_VERSION;
  checkVersion(version);
  const selectors = options.authorizeWithSelectors ?? true;
  // A stored environment does not depend on the version: everything is in it.
  const key = mode === 'stored' ? `stored/${selectors}` : `new/${version}/${selectors}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const upTo = mode === 'stored' ? Number.POSITIVE_INFINITY : version;
  const libraries: CelLibrary[] = KUBERNETES_LIBRARIES.filter((l) => l.since <= upTo);
  if (selectors && authzSelectorsLibrary.since <= upTo) libraries.push(authzSelectorsLibrary);
  const base: BaseEnvironment = {
    // Homogeneous aggregate literals are enforced by validate.ts as cel-go does (an AST validator that
    // exempts the list and map literals of `format` calls), not by the checker, which would refuse
    // `'%d %s'.format([1, 'a'])`.
    env: CelEnvironment.create({ libraries, homogeneousAggregateLiterals: false, configureChecker: declareLibraryTypes(libraries) }),
    mode,
    compatibilityVersion: mode === 'stored' ? Number.POSITIVE_INFINITY : version,
    features: {
      optionalTypes: OPTIONAL_TYPES_SINCE <= upTo,
      crossTypeNumericComparisons: CROSS_TYPE_NUMERIC_COMPARISONS_SINCE <= upTo,
      literalValidators: LITERAL_VALIDATORS_SINCE <= upTo,
      stringFormat: libraries.includes(stringFormatLibrary),
    },
    libraries: libraries.map((l) => l.name),
    key,
  };
  cache.set(key, base);
  return base;
}

/** The environments for new and stored expressions of one compatibility version (each cached). */
export function environmentSet(options: BaseEnvironmentOptions = {}): EnvironmentSet {
  const compatibilityVersion = options.compatibilityVersion ?? DEFAULT_COMPATIBILITY_VERSION;
  return {
    newExpressions: baseEnvironment('new', options),
    storedExpressions: baseEnvironment('stored', options),
    compatibilityVersion,
  };
}
