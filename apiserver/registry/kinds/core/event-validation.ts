/**
 * Event validation, as Kubernetes v1.32 (`ValidateEventCreate`, `ValidateEventUpdate`), on the core v1
 * shape whichever API the event came through (events.k8s.io objects are converted first, so messages name
 * the core fields: `count`, `source`, `involvedObject.namespace`, as upstream's do).
 *
 * Every event passes the legacy checks: without `eventTime` (an old-style event) the namespace must agree
 * with `involvedObject.namespace` (an event about a cluster-scoped object lives in `default`); with one,
 * `reportingComponent`, `reportingInstance`, `action` and `reason` are required and bounded, and the note
 * at most 1024 bytes. Writes through events.k8s.io (`strict`) also need `eventTime`, a `type` of Normal or
 * Warning, a well-formed series, none of the deprecated core fields, a DNS-subdomain name; on update every
 * field but the series and metadata is frozen. Writes through core v1 keep their legacy freedom (Kubernetes
 * keeps it for backward compatibility), updates included.
 */
import type { KubeObject } from '../../../api/object.js';
import type { Naming } from '../../../naming/naming.js';
import { invalidValue, required, type FieldError } from '../../../validation/field-error.js';
import { isDNS1123Subdomain, isQualifiedName } from '../../../validation/names.js';
import { jsonEqual } from '../../patch/json-value.js';

export const REPORTING_INSTANCE_LENGTH_LIMIT = 128;
export const ACTION_LENGTH_LIMIT = 128;
export const REASON_LENGTH_LIMIT = 128;
export const NOTE_LENGTH_LIMIT = 1024;

export const EVENT_TYPE_NORMAL = 'Normal';
export const EVENT_TYPE_WARNING = 'Warning';

/** The namespace events about cluster-scoped objects are recorded in. */
export const DEFAULT_NAMESPACE = 'default';

type Fields = Record<string, unknown>;

const record = (v: unknown): Fields => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Fields) : {});
const text = (v: unknown): string => (typeof v === 'string' ? v : '');
/** Go's `len` of a string: its UTF-8 bytes. */
const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');
/** A Time or MicroTime field that is set (Go's zero time serializes as null, which decoding drops). */
const isSet = (v: unknown): boolean => typeof v === 'string' && v !== '';

const tooLongMsg = (n: number): string => `can have at most ${n} characters`;

/** The checks every event passes, whichever API wrote it. */
function legacyValidate(ev: KubeObject, naming: Naming): FieldError[] {
  const errs: FieldError[] = [];
  const namespace = ev.metadata.namespace ?? '';
  const involvedNamespace = text(record(ev.involvedObject).namespace);
  const namespaceMismatch = (): FieldError => invalidValue('involvedObject.namespace', involvedNamespace, 'does not match event.namespace');
  if (!isSet(ev.eventTime)) {
    if (involvedNamespace === '') {
      if (namespace !== '' && namespace !== DEFAULT_NAMESPACE) errs.push(namespaceMismatch());
    } else if (namespace !== involvedNamespace) {
      errs.push(namespaceMismatch());
    }
  } else {
    if (involvedNamespace === '' && namespace !== DEFAULT_NAMESPACE && namespace !== naming.systemNamespace) errs.push(namespaceMismatch());
    const controller = text(ev.reportingComponent);
    if (controller === '') errs.push(required('reportingController', ''));
    for (const msg of isQualifiedName(controller)) errs.push(invalidValue('reportingController', controller, msg));
    const instance = text(ev.reportingInstance);
    if (instance === '') errs.push(required('reportingInstance', ''));
    if (bytes(instance) > REPORTING_INSTANCE_LENGTH_LIMIT) errs.push(invalidValue('reportingInstance', '', tooLongMsg(REPORTING_INSTANCE_LENGTH_LIMIT)));
    const action = text(ev.action);
    if (action === '') errs.push(required('action', ''));
    if (bytes(action) > ACTION_LENGTH_LIMIT) errs.push(invalidValue('action', '', tooLongMsg(ACTION_LENGTH_LIMIT)));
    const reason = text(ev.reason);
    if (reason === '') errs.push(required('reason', ''));
    if (bytes(reason) > REASON_LENGTH_LIMIT) errs.push(invalidValue('reason', '', tooLongMsg(REASON_LENGTH_LIMIT)));
    if (bytes(text(ev.message)) > NOTE_LENGTH_LIMIT) errs.push(invalidValue('message', '', tooLongMsg(NOTE_LENGTH_LIMIT)));
  }
  for (const msg of isDNS1123Subdomain(namespace)) errs.push(invalidValue('namespace', namespace, msg));
  return errs;
}

function validateSeries(ev: KubeObject): FieldError[] {
  if (ev.series === undefined || ev.series === null) return [];
  const series = record(ev.series);
  const errs: FieldError[] = [];
  const count = typeof series.count === 'number' ? series.count : 0;
  if (count < 2) errs.push(invalidValue('series.count', '', 'should be at least 2'));
  if (!isSet(series.lastObservedTime)) errs.push(required('series.lastObservedTime', ''));
  return errs;
}

export interface EventValidationOptions {
  readonly naming: Naming;
  /** The write came through events.k8s.io (the new API): its stricter rules apply. */
  readonly strict: boolean;
}

/** Create (and the validation of every update): the legacy checks, plus the new API's when `strict`. */
export function validateEventCreate(ev: KubeObject, o: EventValidationOptions): FieldError[] {
  const errs = legacyValidate(ev, o.naming);
  if (!o.strict) return errs;
  const name = ev.metadata.name ?? '';
  for (const msg of isDNS1123Subdomain(name)) errs.push(invalidValue('metadata.name', name, msg));
  errs.push(...validateSeries(ev));
  // A missing eventTime is reported by the schema (events.k8s.io requires it), so not twice here.
  const type = text(ev.type);
  if (type !== EVENT_TYPE_NORMAL && type !== EVENT_TYPE_WARNING) errs.push(invalidValue('type', '', `has invalid value: ${type}`));
  if (isSet(ev.firstTimestamp)) errs.push(invalidValue('firstTimestamp', '', 'needs to be unset'));
  if (isSet(ev.lastTimestamp)) errs.push(invalidValue('lastTimestamp', '', 'needs to be unset'));
  if (typeof ev.count === 'number' && ev.count !== 0) errs.push(invalidValue('count', '', 'needs to be unset'));
  const source = record(ev.source);
  if (text(source.component) !== '' || text(source.host) !== '') errs.push(invalidValue('source', '', 'needs to be unset'));
  return errs;
}

/** A field's value as Go compares it: absent, null and the zero value are the same. */
function normalized(v: unknown): unknown {
  if (v === undefined || v === null || v === '' || v === 0) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) return v;
  const out: Fields = {};
  for (const [k, x] of Object.entries(v as Fields)) {
    const n = normalized(x);
    if (n !== undefined) out[k] = n;
  }
  return out;
}

/** The fields a strict update may not change, with the path upstream reports (reason is checked twice there too). */
const FROZEN: readonly [string, string][] = [
  ['involvedObject', 'involvedObject'],
  ['reason', 'reason'],
  ['message', 'message'],
  ['source', 'source'],
  ['firstTimestamp', 'firstTimestamp'],
  ['lastTimestamp', 'lastTimestamp'],
  ['count', 'count'],
  ['reason', 'reason'],
  ['type', 'type'],
  ['eventTime', 'eventTime'],
  ['action', 'action'],
  ['related', 'related'],
  ['reportingComponent', 'reportingController'],
  ['reportingInstance', 'reportingInstance'],
];

/**
 * Update: the new event passes the legacy checks; a strict update also validates a changed series and
 * freezes everything else. (ObjectMeta update rules are the registry's, for every kind.)
 */
export function validateEventUpdate(ev: KubeObject, old: KubeObject, o: EventValidationOptions): FieldError[] {
  const errs = legacyValidate(ev, o.naming);
  if (!o.strict) return errs;
  if (!jsonEqual(normalized(ev.series), normalized(old.series))) errs.push(...validateSeries(ev));
  for (const [field, path] of FROZEN) {
    const value = normalized(ev[field]);
    if (!jsonEqual(value, normalized(old[field]))) errs.push(invalidValue(path, ev[field] ?? '', 'field is immutable'));
  }
  return errs;
}
