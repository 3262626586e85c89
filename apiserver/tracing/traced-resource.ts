/**
 * A served resource as one sampled request sees it: the same registry over a copy of its context whose
 * store is the resource's store seen through the instrumented store's hook (storage/instrumented-store.ts,
 * the wrapper the metrics use) with the request's span as the parent of each call's span. The resource
 * router hands it to the verb handler only for sampled requests (`ctx.state.trace`); it costs a few
 * objects per such request and nothing otherwise.
 */
import { qualifiedResource } from '../errors/constructors.js';
import { genericRegistryOver } from '../registry/generic/generic-registry.js';
import type { ServedResource } from '../registry/served-resources.js';
import { instrumentStore } from '../../storage/instrumented-store.js';
import type { TraceScope } from './request-tracing.js';
import { storeTracingHook } from './store-tracing.js';

export function tracedResource(served: ServedResource, trace: TraceScope): ServedResource {
  const context = served.registry.context;
  const store = instrumentStore(context.store, qualifiedResource(context.gr), { hook: storeTracingHook(trace, trace.tracing.storeBackend) });
  return { ...served, registry: genericRegistryOver(Object.freeze({ ...context, store })) };
}
