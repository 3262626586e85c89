/**
 * The child spans of a sampled request, named and attributed as kube-apiserver's where kube has one:
 *  - `SerializeObject` (kube's response writer): the response's encoding and gzip;
 *  - the admission phases (`Admission mutating`, `Admission validating`: kube 1.32 has no span for its
 *    chain, only for webhook calls; these carry the operation, resource and the plugins that handle it);
 *  - store calls (store-tracing.ts).
 * Callers make them only when the request is sampled (`ctx.state.trace` is set).
 */
import { SpanStatusCode, type Span } from '@opentelemetry/api';
import type { AdmissionAttributes } from '../admission/attributes.js';
import type { AdmissionChain } from '../admission/chain.js';
import type { AppContext } from '../request/request-state.js';
import type { TraceScope } from './request-tracing.js';

/** kube's `SerializeObject` span; `encoding` becomes `gzip` when the body is compressed. */
export function serializeSpan(ctx: AppContext, mediaType: string): Span | undefined {
  const trace = ctx.state.trace;
  if (trace === undefined) return undefined;
  return trace.tracing.child(trace, 'SerializeObject', {
    method: ctx.method,
    url: ctx.path,
    protocol: `HTTP/${ctx.req.httpVersion}`,
    mediaType,
    encoding: '',
  });
}

/** Marks `span` failed with `err` (an exception event and an error status); the caller ends it. */
export function markError(span: Span, err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  span.recordException(err instanceof Error ? err : message);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}

export type AdmissionPhase = 'mutating' | 'validating';

/**
 * One admission phase of `chain` for `a`, under its span when the request is sampled (`trace`). The span's
 * `plugins` are the phase's plugins that handle the operation. (What plugins read comes from watch caches:
 * no store-call spans under it.)
 */
export function tracedAdmission(trace: TraceScope | undefined, chain: AdmissionChain, phase: AdmissionPhase, a: AdmissionAttributes): Promise<void> {
  if (trace === undefined) return phase === 'mutating' ? chain.admit(a) : chain.validate(a);
  return admissionSpan(trace, chain, phase, a);
}

async function admissionSpan(trace: TraceScope, chain: AdmissionChain, phase: AdmissionPhase, a: AdmissionAttributes): Promise<void> {
  const plugins = chain.plugins
    .filter((p) => (phase === 'mutating' ? p.admit : p.validate) !== undefined && (p.operations === undefined || p.operations.includes(a.operation)))
    .map((p) => p.name);
  const scope = trace.tracing.childScope(trace, phase === 'mutating' ? 'Admission mutating' : 'Admission validating', {
    operation: a.operation,
    group: a.resource.group,
    version: a.resource.version,
    resource: a.resource.resource,
    subresource: a.subresource,
    namespace: a.namespace,
    name: a.name,
    dryRun: a.dryRun,
    plugins,
  });
  try {
    await (phase === 'mutating' ? chain.admit(a) : chain.validate(a));
  } catch (err) {
    markError(scope.span, err);
    throw err;
  } finally {
    scope.span.end();
  }
}
