/**
 * A CEL library as data: the overloads it declares (for the checker) with their implementations (for the
 * interpreter) and their costs. Environments are assembled from libraries per server version
 * (environment/), so a function introduced in 1.29 is accepted in new expressions only by a 1.29+ server
 * while stored expressions keep evaluating.
 */
import type { CallEstimate, EstimateContext } from '../cost/call-estimate.js';
import type { CelValue } from '../values/value.js';

export interface Overload {
  /**
   * The declaration in the checker's (cel-js) syntax: `name(type, ...): result` for a global function,
   * `type.name(type, ...): result` for a member function (`string.charAt(int): string`,
   * `list<int>.sum(): int`). One overload per signature; overloads of one name must not overlap.
   *
   * cel-js spellings: type parameters are single capital letters (`list<A>.indexOf(A): int`), lists
   * `list<T>`, maps `map<K, V>`, optionals `optional<T>`, timestamps and durations
   * `google.protobuf.Timestamp` / `google.protobuf.Duration`, library types by their registered names
   * (`kubernetes.Quantity`, `net.IP`). A receiver type cannot contain spaces or commas (so no
   * `map<K, V>.f()` receivers).
   *
   * Namespaced global functions (`sets.contains(...)`, `strings.quote(...)`, `format.named(...)`,
   * `ip.isCanonical(...)`) are written with their CEL name; the prefix is one of the library's
   * `namespaces`. cel-js reads the prefix as a receiver type, so the environment declares each namespace
   * as a type and a constant of that name (`registerType(ns, Ctor)`, `registerConstant(ns, ns, new
   * Ctor())`); the call then checks as a member call on that constant. The implementation receives the
   * arguments only, never the namespace value.
   */
  readonly signature: string;
  /**
   * cel-js already declares this exact signature as a built-in (and refuses a second declaration of an
   * overlapping one): the environment must not register the declaration, only dispatch the call to this
   * implementation (cel-js' own runtime is not used). Default false.
   */
  readonly checkerBuiltin?: boolean;
  /**
   * The implementation: the receiver first for a member function, then the arguments, already evaluated.
   * Returns a CEL value or throws a `CelEvalError` (never another error: the interpreter turns anything
   * else into an internal error, never a crash of the request).
   */
  readonly impl: (...args: CelValue[]) => CelValue;
  /**
   * Kubernetes' runtime cost of one call from the actual arguments (receiver first), in cost units.
   * Default 1 (a constant-time function).
   */
  readonly cost?: (args: readonly CelValue[]) => number;
  /**
   * Kubernetes' static estimate of one call (`EstimateCallCost` in k8s.io/apiserver/pkg/cel/library/cost.go,
   * or cel-go's estimator of an extension), used when a rule is written to refuse rules too expensive
   * in the worst case. Returns the call's own cost and result size; undefined (or no hook) means cel-go's
   * built-in rule or the default of 1. Optional: added compatibly, an overload without it keeps working.
   */
  readonly estimate?: (ctx: EstimateContext) => CallEstimate | undefined;
}

export interface CelLibrary {
  readonly name: string;
  /** The Kubernetes minor version (1.x) that introduced the library; its functions are accepted in writes from then on. */
  readonly since: number;
  readonly overloads: readonly Overload[];
  /** Opaque types the library introduces (by their CEL names: `kubernetes.Quantity`, `net.IP`...). */
  readonly types?: readonly string[];
  /** Namespaces of its global functions (`sets`, `strings`, `format`, `ip`): see `Overload.signature`. */
  readonly namespaces?: readonly string[];
}
