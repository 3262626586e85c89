/**
 * Typed query parameters of the resource verbs, decoded and validated as upstream's parameter codec and
 * `apimachinery/pkg/api/validation` do: a value that does not convert (`limit=abc`) is 400 BadRequest with
 * Go's conversion message; a value that converts but is not allowed (`dryRun=Foo`) is 422 Invalid against
 * the options kind (`CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ...`).
 * Unknown parameters are ignored, and only the first value of a repeated one counts (except `dryRun`).
 */
import { badRequest, invalid, type FieldCause } from '../errors/constructors.js';
import type { StatusError } from '../errors/status-error.js';
import { parseFieldSelector } from '../selectors/field-selector.js';
import { parseLabelSelector } from '../selectors/label-selector.js';
import type { FieldSelector, LabelSelector } from '../selectors/selector.js';
import { queryBoolValue } from './parse-bool.js';

/** Boolean parameter by Kubernetes' rule: absent is false; only `0`/`false` (any case) are false. */
export function queryBool(query: URLSearchParams, name: string): boolean {
  const v = query.get(name);
  return v !== null && queryBoolValue(v);
}

/** Like `queryBool` for pointer fields (`sendInitialEvents`): undefined when absent. */
export function queryOptionalBool(query: URLSearchParams, name: string): boolean | undefined {
  const v = query.get(name);
  return v === null ? undefined : queryBoolValue(v);
}

const decimalRe = /^[+-]?[0-9]+$/;
const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

/**
 * An int64 parameter (`limit`, `timeoutSeconds`, `gracePeriodSeconds`): undefined when absent; 400
 * `strconv.ParseInt: parsing "abc": invalid syntax` or `...: value out of range` otherwise (the empty
 * value is invalid syntax too, as upstream). Values beyond 2^53 lose precision.
 */
export function queryInt64(query: URLSearchParams, name: string): number | undefined {
  const v = query.get(name);
  if (v === null) return undefined;
  return parseInt64Param(v);
}

export function parseInt64Param(v: string): number {
  if (!decimalRe.test(v)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  if (v.length > 15) {
    const b = BigInt(v);
    if (b > INT64_MAX || b < INT64_MIN) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: value out of range`);
  }
  return Number(v);
}

/** A Go `%#v` of a string slice, as upstream prints slice values in field errors. */
export const goStringSlice = (values: readonly string[]): string => `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;

/** 422 Invalid against an options kind of `meta.k8s.io`, with an empty name (as upstream). */
export function optionsInvalid(kind: string, causes: readonly FieldCause[]): StatusError {
  return invalid({ group: 'meta.k8s.io', kind }, '', causes);
}

/** `dryRun: Unsupported value: []string{"Foo"}: supported values: "All"` unless every value is `All`. */
export function dryRunCauses(values: readonly string[]): FieldCause[] {
  if (values.every((v) => v === 'All')) return [];
  return [{ reason: 'FieldValueNotSupported', field: 'dryRun', message: `Unsupported value: ${goStringSlice(values)}: supported values: "All"` }];
}

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

const FIELD_MANAGER_MAX = 128;
/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const printableRe = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

function fieldManagerCauses(fm: string): FieldCause[] {
  const out: FieldCause[] = [];
  if (fm.length > FIELD_MANAGER_MAX) {
    out.push({ reason: 'FieldValueTooLong', field: 'fieldManager', message: `Too long: may not be more than ${FIELD_MANAGER_MAX} bytes` });
  }
  let pos = 0;
  for (const ch of fm) {
    const cp = ch.codePointAt(0)!;
    if (!printableRe.test(ch)) {
      const hex = cp.toString(16).toUpperCase().padStart(4, '0');
      out.push({
        reason: 'FieldValueInvalid',
        field: 'fieldManager',
        message: `Invalid value: ${JSON.stringify(fm)}: invalid character U+${hex} (at position ${pos})`,
      });
    }
    pos += Buffer.byteLength(ch);
  }
  return out;
}

function fieldValidationCauses(v: string): FieldCause[] {
  if (v === '' || v === 'Strict' || v === 'Warn' || v === 'Ignore') return [];
  return [{ reason: 'FieldValueNotSupported', field: 'fieldValidation', message: `Unsupported value: ${JSON.stringify(v)}: supported values: "", "Ignore", "Strict", "Warn"` }];
}

export interface WriteOptions {
  /** `dryRun=All`. */
  readonly dryRun: boolean;
  /** '' when not given (the registry derives one from the User-Agent, as upstream). */
  readonly fieldManager: string;
  /** Defaults to `Warn`, as upstream. */
  readonly fieldValidation: FieldValidation;
  /** PATCH only: `force` (server-side apply); undefined when absent. */
  readonly force?: boolean;
}

export type WriteOptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions';

/**
 * The options of create, update and patch: `dryRun` (every value must be `All`), `fieldManager` (at most
 * 128 bytes of printable characters), `fieldValidation` (`Strict`, `Warn`, `Ignore` or empty) and, for
 * patches, `force` — which only an apply patch may carry (`force: Forbidden: may not be specified for
 * non-apply patch`) and which requires a `fieldManager` (`fieldManager: Required value: is required for
 * apply patch`). All problems are reported together in one 422.
 */
export function parseWriteOptions(query: URLSearchParams, kind: WriteOptionsKind, isApplyPatch = false): WriteOptions {
  const dryRun = query.getAll('dryRun');
  const fieldManager = query.get('fieldManager') ?? '';
  const fv = query.get('fieldValidation') ?? '';
  const force = kind === 'PatchOptions' ? queryOptionalBool(query, 'force') : undefined;
  const causes: FieldCause[] = [];
  if (kind === 'PatchOptions') {
    if (!isApplyPatch && force !== undefined) {
      causes.push({ reason: 'FieldValueForbidden', field: 'force', message: 'Forbidden: may not be specified for non-apply patch' });
    }
    if (isApplyPatch && fieldManager === '') {
      causes.push({ reason: 'FieldValueRequired', field: 'fieldManager', message: 'Required value: is required for apply patch' });
    }
  }
  causes.push(...fieldManagerCauses(fieldManager), ...dryRunCauses(dryRun), ...fieldValidationCauses(fv));
  if (causes.length > 0) throw optionsInvalid(kind, causes);
  const fieldValidation: FieldValidation = fv === '' ? 'Warn' : (fv as FieldValidation);
  const base = { dryRun: dryRun.length > 0, fieldManager, fieldValidation };
  return force === undefined ? base : { ...base, force };
}

export type ResourceVersionMatch = '' | 'Exact' | 'NotOlderThan';

export interface ListOptions {
  readonly labelSelector: LabelSelector;
  readonly fieldSelector: FieldSelector;
  readonly watch: boolean;
  readonly allowWatchBookmarks: boolean;
  /** '' when absent. */
  readonly resourceVersion: string;
  readonly resourceVersionMatch: ResourceVersionMatch;
  readonly timeoutSeconds?: number;
  /** 0 when absent; a zero or negative limit means no limit, as upstream. */
  readonly limit: number;
  /** '' when absent. */
  readonly continue: string;
  readonly sendInitialEvents?: boolean;
}

export interface ParseListOptions {
  /** The request is a watch whatever the query says (the `/watch/` path prefix). */
  readonly forceWatch?: boolean;
  /** The WatchList feature gate (`config.features.enabled('WatchList')`): may a watch carry `sendInitialEvents`. */
  readonly watchListEnabled: boolean;
}

/**
 * The options of list and watch. Selectors are parsed (400 on syntax errors; field labels are checked by
 * the caller against the kind with `checkFieldLabels`). `watch` is read from the query; the caller may
 * also know it from the `/watch/` path prefix (`forceWatch`). The combination rules are upstream's
 * `ValidateListOptions`, each a 422 against `ListOptions`:
 * - list: `resourceVersionMatch` needs `resourceVersion`, is forbidden with `continue`, must be `Exact` or
 *   `NotOlderThan`, and `Exact` is forbidden with `resourceVersion=0`; `sendInitialEvents` is forbidden.
 * - watch: `sendInitialEvents` requires `resourceVersionMatch=NotOlderThan` and the WatchList feature gate
 *   (`watchListEnabled`; off: `sendInitialEvents: Forbidden: ... unless the WatchList feature gate is
 *   enabled`, reported with the other causes); `resourceVersionMatch` is only allowed with
 *   `sendInitialEvents`, only as `NotOlderThan`, and never with `continue`.
 */
export function parseListOptions(query: URLSearchParams, opts: ParseListOptions): ListOptions {
  const labelSelector = parseLabelSelector(query.get('labelSelector') ?? '');
  const fieldSelector = parseFieldSelector(query.get('fieldSelector') ?? '');
  const watch = opts.forceWatch === true || queryBool(query, 'watch');
  const resourceVersion = query.get('resourceVersion') ?? '';
  const match = query.get('resourceVersionMatch') ?? '';
  const cont = query.get('continue') ?? '';
  const sendInitialEvents = queryOptionalBool(query, 'sendInitialEvents');
  const timeoutSeconds = queryInt64(query, 'timeoutSeconds');
  const limit = queryInt64(query, 'limit') ?? 0;

  const causes: FieldCause[] = [];
  const forbid = (field: string, detail: string): void => {
    causes.push({ reason: 'FieldValueForbidden', field, message: `Forbidden: ${detail}` });
  };
  const unsupported = (supported: readonly string[]): void => {
    causes.push({
      reason: 'FieldValueNotSupported',
      field: 'resourceVersionMatch',
      message: `Unsupported value: ${JSON.stringify(match)}: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`,
    });
  };
  if (watch) {
    if (sendInitialEvents !== undefined) {
      if (match !== 'NotOlderThan') forbid('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan');
      if (!opts.watchListEnabled) forbid('sendInitialEvents', 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled');
    }
    if (match !== '') {
      if (sendInitialEvents === undefined) forbid('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided');
      if (match !== 'NotOlderThan') unsupported(['NotOlderThan']);
      if (cont !== '') forbid('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided');
    }
  } else {
    if (match !== '') {
      if (resourceVersion === '') forbid('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided');
      if (cont !== '') forbid('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided');
      if (match !== 'Exact' && match !== 'NotOlderThan') unsupported(['Exact', 'NotOlderThan', '']);
      if (match === 'Exact' && resourceVersion === '0') forbid('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
    }
    if (sendInitialEvents !== undefined) forbid('sendInitialEvents', 'sendInitialEvents is forbidden for list');
  }
  if (causes.length > 0) throw optionsInvalid('ListOptions', causes);

  const out: ListOptions = {
    labelSelector,
    fieldSelector,
    watch,
    allowWatchBookmarks: queryBool(query, 'allowWatchBookmarks'),
    resourceVersion,
    resourceVersionMatch: match as ResourceVersionMatch,
    limit,
    continue: cont,
    ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }),
    ...(sendInitialEvents === undefined ? {} : { sendInitialEvents }),
  };
  return out;
}
