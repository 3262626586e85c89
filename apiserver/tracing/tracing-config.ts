/**
 * `--tracing-config-file`: kube-apiserver's `TracingConfiguration` file (YAML or JSON), read once at
 * start-up and decoded strictly as kube does (unknown or duplicate fields are errors).
 *
 * Accepted `apiVersion`s: `apiserver.config.k8s.io/v1alpha1` and `/v1beta1` (what kube 1.32 registers),
 * and `/v1` (later kube releases); the same versions of `apiserver.config.<--group-domain>` too, as
 * `--authentication-config` names its group. `kind: TracingConfiguration`.
 *
 * Fields, as kube's component-base tracing API:
 *  - `samplingRatePerMillion` (int32, 0..1,000,000; unset is 0): requests without a sampled parent are
 *    traced at this rate; a request whose incoming `traceparent` is sampled is always traced (kube's
 *    ParentBased(TraceIDRatioBased)).
 *  - `endpoint`: where spans go. kube exports OTLP over gRPC and reads `host:port` (default
 *    `localhost:4317`, gRPC's port). This server exports OTLP over HTTP with protobuf bodies (no gRPC stack
 *    in the process; every OpenTelemetry collector serves OTLP/HTTP), so it reads:
 *      `host:port` (kube's form)             -> `http://host:port/v1/traces`
 *      `dns:///host:port` (gRPC naming)      -> `http://host:port/v1/traces`
 *      `http(s)://host[:port]` (no path)     -> that URL + `/v1/traces`
 *      `http(s)://host[:port]/some/path`     -> that URL as it is
 *    Unset: `localhost:4318` (OTLP/HTTP's port). `unix:` and `unix-abstract:` (which kube's gRPC dials) and
 *    any other scheme are refused.
 *
 * Errors carry kube's wording: `failed to read tracing config: ...` for a file that does not decode, and
 * `failed to validate tracing configuration: samplingRatePerMillion: Invalid value: ...` for bad values;
 * the caller turns them into a command-line error (exit 2).
 */
import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import { isObject } from '../api/json.js';

/** The decoded, validated configuration, ready for the exporter. */
export interface TracingConfig {
  /** The OTLP/HTTP traces URL (`http://localhost:4318/v1/traces` by default). */
  readonly url: string;
  /** As in the file; 0 when unset. */
  readonly samplingRatePerMillion: number;
}

export class TracingConfigError extends Error {
  override readonly name = 'TracingConfigError';
}

/** OTLP/HTTP's default port and path (the OpenTelemetry protocol specification). */
export const DEFAULT_ENDPOINT = 'localhost:4318';
const TRACES_PATH = '/v1/traces';
const MAX_RATE = 1_000_000;
const VERSIONS = ['v1alpha1', 'v1beta1', 'v1'];

/**
 * Reads and validates the file. `groupDomain` adds `apiserver.config.<domain>` to the accepted groups;
 * `tracingEnabled` is the APIServerTracing feature gate (kube refuses the file without it).
 */
export function readTracingConfigFile(path: string, groupDomain: string, tracingEnabled = true): TracingConfig {
  if (!tracingEnabled) throw new TracingConfigError('APIServerTracing feature is not enabled, but tracing config file was provided');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new TracingConfigError(`tracing-config-file ${path} does not exist`);
    throw new TracingConfigError(`failed to read tracing config: unable to read tracing configuration from "${path}": ${(err as Error).message}`);
  }
  return parseTracingConfig(text, groupDomain);
}

/** Parses and validates the file's text (see the file comment). */
export function parseTracingConfig(text: string, groupDomain: string): TracingConfig {
  const decodeError = (message: string): TracingConfigError =>
    new TracingConfigError(`failed to read tracing config: unable to decode tracing configuration data: ${message}`);
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) throw decodeError(doc.errors[0]!.message);
  const raw: unknown = doc.toJS();
  if (!isObject(raw)) throw decodeError(`Object 'Kind' is missing in '${text.trim()}'`);

  const groups = [...new Set(['apiserver.config.k8s.io', `apiserver.config.${groupDomain}`])];
  const apiVersion = typeof raw.apiVersion === 'string' ? raw.apiVersion : '';
  if (typeof raw.kind !== 'string' || raw.kind === '') throw decodeError(`Object 'Kind' is missing in '${JSON.stringify(raw)}'`);
  const slash = apiVersion.indexOf('/');
  const known = slash > 0 && groups.includes(apiVersion.slice(0, slash)) && VERSIONS.includes(apiVersion.slice(slash + 1));
  if (raw.kind !== 'TracingConfiguration' || !known) {
    throw decodeError(`no kind "${raw.kind}" is registered for version "${apiVersion}"`);
  }

  for (const k of Object.keys(raw)) {
    if (!['apiVersion', 'kind', 'endpoint', 'samplingRatePerMillion'].includes(k)) throw decodeError(`strict decoding error: unknown field "${k}"`);
  }
  // Go's json decoding into *string / *int32: null is unset, anything else must have the type.
  const endpoint = raw.endpoint ?? undefined;
  if (endpoint !== undefined && typeof endpoint !== 'string') {
    throw decodeError(`json: cannot unmarshal ${goJsonType(endpoint)} into Go struct field TracingConfiguration.endpoint of type string`);
  }
  const rate = raw.samplingRatePerMillion ?? undefined;
  if (rate !== undefined && (typeof rate !== 'number' || !Number.isInteger(rate) || rate < -(2 ** 31) || rate >= 2 ** 31)) {
    const what = typeof rate === 'number' ? `number ${rate}` : goJsonType(rate);
    throw decodeError(`json: cannot unmarshal ${what} into Go struct field TracingConfiguration.samplingRatePerMillion of type int32`);
  }

  const errs: string[] = [];
  if (rate !== undefined && rate < 0) errs.push(`samplingRatePerMillion: Invalid value: ${rate}: sampling rate must be positive`);
  if (rate !== undefined && rate > MAX_RATE) {
    errs.push(`samplingRatePerMillion: Invalid value: ${rate}: sampling rate per million must be less than or equal to one million`);
  }
  const url = endpointUrl(endpoint ?? DEFAULT_ENDPOINT);
  if (typeof url !== 'string') errs.push(`endpoint: Invalid value: ${JSON.stringify(url.value)}: ${url.problem}`);
  if (errs.length > 0) {
    // field.ErrorList's aggregate: one error as it is, several in brackets.
    throw new TracingConfigError(`failed to validate tracing configuration: ${errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`}`);
  }
  return { url: url as string, samplingRatePerMillion: rate ?? 0 };
}

/** The type word Go's encoding/json uses in an UnmarshalTypeError. */
function goJsonType(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  return Array.isArray(v) ? 'array' : 'object';
}

/** The traces URL an `endpoint` names, or why it names none (see the file comment). */
function endpointUrl(endpoint: string): string | { value: string; problem: string } {
  // As kube: without "//" the endpoint is a gRPC target `host:port`, read as a dns: URL.
  const value = endpoint.includes('//') ? endpoint : `dns://${endpoint}`;
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return { value, problem: `parse "${value}": invalid URL` };
  }
  const scheme = u.protocol.slice(0, -1);
  if (scheme === 'http' || scheme === 'https') {
    if (u.hostname === '') return { value, problem: 'missing host' };
    if (u.search !== '' || u.hash !== '') return { value, problem: 'must not have a query or fragment' };
    return u.pathname === '/' || u.pathname === '' ? `${u.origin}${TRACES_PATH}` : `${u.origin}${u.pathname}`;
  }
  if (scheme === 'dns') {
    // `dns://host:port` (kube's form above) or `dns://[authority]/host:port` (gRPC's naming).
    const target = u.pathname.length > 1 ? u.pathname.slice(1) : u.host;
    let hostPort: URL;
    try {
      hostPort = new URL(`http://${target}`);
    } catch {
      return { value, problem: `parse "${value}": invalid host:port` };
    }
    if (hostPort.hostname === '' || hostPort.pathname !== '/' || hostPort.search !== '' || hostPort.username !== '') {
      return { value, problem: `parse "${value}": invalid host:port` };
    }
    return `${hostPort.origin}${TRACES_PATH}`;
  }
  return {
    value,
    problem: `unsupported scheme: ${scheme}.  Options are none, dns, http or https (this server exports OTLP over HTTP; unix and unix-abstract are not supported)`,
  };
}
