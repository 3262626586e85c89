/**
 * Validation of probes and lifecycle hooks: exactly one handler (`must specify a handler type` / `may not
 * specify more than 1 handler type`), valid ports, non-negative timings, and the per-probe rules
 * (liveness and startup need successThreshold 1; readiness may not set terminationGracePeriodSeconds).
 */
import { type FieldError, type FieldPath, forbidden, invalidValue, notSupported, required } from '../../../../validation/field-error.js';
import { isValidPortName, isValidPortNum } from '../../../../validation/names.js';
import { type JsonObject, arrayAt, numberAt, objectAt, objectItems, stringAt } from './json-values.js';

const HTTP_HEADER_NAME = /^[-A-Za-z0-9]+$/;
const HTTP_HEADER_NAME_ERROR = "a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')";
const HTTP_SCHEMES: readonly string[] = ['HTTP', 'HTTPS'];

/** An IntOrString port: a number 1..65535 or an IANA_SVC_NAME. */
export function validatePortNumOrName(port: unknown, path: FieldPath): FieldError[] {
  if (typeof port === 'number') return isValidPortNum(port).map((msg) => invalidValue(path, port, msg));
  if (typeof port === 'string') return isValidPortName(port).map((msg) => invalidValue(path, port, msg));
  return isValidPortNum(0).map((msg) => invalidValue(path, 0, msg));
}

function validateHttpGet(action: JsonObject, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (stringAt(action, 'path') === '') errs.push(required(path.child('path'), ''));
  errs.push(...validatePortNumOrName(action.port, path.child('port')));
  const scheme = stringAt(action, 'scheme');
  if (!HTTP_SCHEMES.includes(scheme)) errs.push(notSupported(path.child('scheme'), scheme, HTTP_SCHEMES));
  for (const [, header] of objectItems(arrayAt(action, 'httpHeaders'))) {
    const name = stringAt(header, 'name');
    if (!HTTP_HEADER_NAME.test(name)) errs.push(invalidValue(path.child('httpHeaders'), name, HTTP_HEADER_NAME_ERROR));
  }
  return errs;
}

/**
 * One handler of a probe or hook. `gracePeriod` bounds a `sleep` action (the pod's
 * terminationGracePeriodSeconds).
 */
export function validateHandler(handler: JsonObject, gracePeriod: number, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  let handlers = 0;
  const one = (name: string, check: (action: JsonObject, at: FieldPath) => FieldError[]): void => {
    const action = objectAt(handler, name);
    if (action === undefined) return;
    if (handlers > 0) {
      errs.push(forbidden(path.child(name), 'may not specify more than 1 handler type'));
      return;
    }
    handlers++;
    errs.push(...check(action, path.child(name)));
  };
  one('exec', (a, at) => (arrayAt(a, 'command').length === 0 ? [required(at.child('command'), '')] : []));
  one('httpGet', validateHttpGet);
  one('tcpSocket', (a, at) => validatePortNumOrName(a.port, at.child('port')));
  one('grpc', (a, at) => {
    const port = numberAt(a, 'port') ?? 0;
    return isValidPortNum(port).map((msg) => invalidValue(at.child('port'), port, msg));
  });
  one('sleep', (a, at) => {
    const seconds = numberAt(a, 'seconds') ?? 0;
    return seconds <= 0 || seconds > gracePeriod
      ? [invalidValue(at, seconds, `must be greater than 0 and less than terminationGracePeriodSeconds (${gracePeriod})`)]
      : [];
  });
  if (handlers === 0) errs.push(required(path, 'must specify a handler type'));
  return errs;
}

const NEGATIVE = 'must be greater than or equal to 0';
const TIMINGS = ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold'] as const;

export type ProbeKind = 'livenessProbe' | 'readinessProbe' | 'startupProbe';

/** A probe of the container at `path` (its `livenessProbe`, `readinessProbe` or `startupProbe`). */
export function validateProbe(container: JsonObject, kind: ProbeKind, gracePeriod: number, path: FieldPath): FieldError[] {
  const probe = objectAt(container, kind);
  if (probe === undefined) return [];
  const at = path.child(kind);
  const errs = validateHandler(probe, gracePeriod, at);
  for (const name of TIMINGS) {
    const v = numberAt(probe, name) ?? 0;
    if (v < 0) errs.push(invalidValue(at.child(name), v, NEGATIVE));
  }
  const tgps = numberAt(probe, 'terminationGracePeriodSeconds');
  if (tgps !== undefined && tgps <= 0) errs.push(invalidValue(at.child('terminationGracePeriodSeconds'), tgps, 'must be greater than 0'));
  if (kind === 'readinessProbe') {
    if (tgps !== undefined) errs.push(invalidValue(at.child('terminationGracePeriodSeconds'), tgps, 'must not be set for readinessProbes'));
  } else {
    const success = numberAt(probe, 'successThreshold') ?? 0;
    if (success !== 1) errs.push(invalidValue(at.child('successThreshold'), success, 'must be 1'));
  }
  return errs;
}

/** `lifecycle`: each hook present has exactly one handler. */
export function validateLifecycle(lifecycle: JsonObject, gracePeriod: number, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const hook of ['postStart', 'preStop'] as const) {
    const handler = objectAt(lifecycle, hook);
    if (handler !== undefined) errs.push(...validateHandler(handler, gracePeriod, path.child(hook)));
  }
  return errs;
}
