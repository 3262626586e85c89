/**
 * The child spans of a sampled request, named and attributed as kube-apiserver's where kube has one:
 *  - `SerializeObject` (kube's response writer): the response's encoding and gzip;
 *  - the admission phases (`Admission mutating`, `Admission validating`: kube 1.32 has no span for its
 *    chain, only for webhook calls; these carry the operation, resource and the plugins that ran);
 *  - store calls (store-tracing.ts).
 * Callers make them only when the request is sampled (`ctx.state.trace` or the active trace is set).
 */
import { SpanStatusCode, type Span } from '@opentelemetry/api';
import type { AdmissionAttributes } from '../admission/attributes.js';
import type { AppContext } from '../server/request-state.js';
import { runInTrace } from './active-trace.js';
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
 * Runs one admission phase under its span (children, such as store calls of a plugin, go under it).
 * `run` calls `ran(name)` as each plugin that handles the operation starts: an event of that name on the
 * span (so each plugin's start is timed) and the span's `plugins` attribute.
 */
export async function tracedAdmission(
  trace: TraceScope,
  phase: AdmissionPhase,
  a: AdmissionAttributes,
  run: (ran: (plugin: string) => void) => Promise<void>,
): Promise<void> {
  const scope = trace.tracing.childScope(trace, phase === 'mutating' ? 'Admission mutating' : 'Admission validating', {
    operation: a.operation,
    group: a.resource.group,
    version: a.resource.version,
    resource: a.resource.resource,
    subresource: a.subresource,
    namespace: a.namespace,
    name: a.name,
    dryRun: a.dryRun,
  });
  const plugins: string[] = [];
  try {
    await runInTrace(scope, () => run((plugin) => {
      plugins.push(plugin);
      scope.span.addEvent(plugin);
    }));
  } catch (err) {
    markError(scope.span, err);
    throw err;
  } finally {
    scope.span.setAttribute('plugins', plugins);
    scope.span.end();
  }
}
