/**
 * Serves resource requests: resolves the request info to a served resource, checks scope, sub-resource and
 * verb, and hands the request to the verb's handler. Requests for anything not served fall through to the
 * chain's 404.
 */
import type { Verb } from '../../api/object.js';
import { negotiateResponse, notAcceptableError, objectOffers, resourceConversions, type Negotiated } from '../../codec/negotiate.js';
import { servesProtobuf } from '../../codec/protobuf/protobuf-codec.js';
import { parseIncludeObject } from '../table/to-table.js';
import { methodNotAllowed, notAcceptable, notFound } from '../../errors/constructors.js';
import type { FeatureGates } from '../../features/feature-gates.js';
import type { Naming } from '../../naming/naming.js';
import type { ServerServices } from '../../registry/kind-strategy.js';
import { genericSubresourceOf } from '../../registry/kind-strategy.js';
import type { AdmissionChain } from '../../admission/chain.js';
import { queryOf, requestInfoOf, type AppContext, type Filter } from '../../request/request-state.js';
import { handleCreate } from '../handlers/create.js';
import { handleConnectCreate } from '../handlers/connect.js';
import { handleDelete, handleDeleteCollection } from '../handlers/delete.js';
import { handleGet } from '../handlers/get.js';
import { handleList } from '../handlers/list.js';
import { handleWatch } from '../handlers/watch.js';
import { handlePatch } from '../handlers/patch.js';
import type { RequestScope } from '../handlers/request-scope.js';
import { handleUpdate } from '../handlers/update.js';
import { handleScale, scaleScope, scaleVerbs } from '../handlers/scale.js';
import { recordWarnings } from '../handlers/warnings.js';
import type { ServedResource, ServedResources } from '../../registry/served-resources.js';
import { tracedResource } from '../../tracing/traced-resource.js';
import { deprecationOf } from './deprecation.js';

const handlers: Record<Verb, (scope: RequestScope) => Promise<void>> = {
  get: handleGet,
  list: handleList,
  watch: handleWatch,
  create: handleCreate,
  update: handleUpdate,
  patch: handlePatch,
  delete: handleDelete,
  deletecollection: handleDeleteCollection,
};

/** Verbs of the status sub-resource. */
const statusVerbs = new Set<string>(['get', 'update', 'patch']);

export interface ResourceRouterOptions {
  readonly naming: Naming;
  readonly features: FeatureGates;
  readonly resources: ServedResources;
  /** Lent to virtual kinds' create (see KindStrategy.virtual). */
  readonly services?: ServerServices;
  /** The admission chain every write passes through. */
  readonly admission?: AdmissionChain;
}

/** What the handler of a sampled request uses: the resource with its store calls traced (tracing/traced-resource.ts). */
const tracedFor = (ctx: AppContext, served: ServedResource): ServedResource =>
  ctx.state.trace === undefined ? served : tracedResource(served, ctx.state.trace);

/**
 * A PartialObjectMetadataList conversion of a verb that answers one object (or PartialObjectMetadata of a
 * list) cannot be served: 406 before the handler runs, so a write never happens behind a 406 (respond.ts
 * would refuse it only after the write). Likewise a Table's `includeObject` is checked first (400).
 */
function checkConversionFits(negotiated: Negotiated, answersList: boolean, query: URLSearchParams): void {
  const t = negotiated.target;
  if (t === undefined) return;
  if (t.kind === 'Table') parseIncludeObject(query.get('includeObject'));
  if ((t.kind === 'PartialObjectMetadataList' && !answersList) || (t.kind === 'PartialObjectMetadata' && answersList)) {
    throw notAcceptable([`application/json;as=${answersList ? 'PartialObjectMetadataList' : 'PartialObjectMetadata'};g=${t.group};v=${t.version}`]);
  }
}

export function resourceRouter(o: ResourceRouterOptions): Filter {
  return async function resourceRequests(ctx, next) {
    const info = requestInfoOf(ctx);
    if (!info.isResourceRequest) return next();
    const served = o.resources.lookup(info.apiGroup, info.apiVersion, info.resource);
    if (served === undefined) return next();
    const { strategy } = served;
    const gr = served.registry.context.gr;
    ctx.state.served = served;
    // A deprecated version signals every request of the resource, errors included (as kube's handlers):
    // a Warning header and the audit annotations (spec 1 "Signals on deprecated REST endpoints"; the
    // metric is the metrics filter's).
    const deprecation = deprecationOf(served, o.naming);
    if (deprecation !== undefined) {
      recordWarnings(ctx, [deprecation.warning]);
      const annotations = (ctx.state.auditAnnotations ??= {});
      annotations[o.naming.key('deprecated')] = 'true';
      if (deprecation.removedRelease !== '') annotations[o.naming.key('removed-release')] = deprecation.removedRelease;
    }
    const offers = objectOffers(o.naming, servesProtobuf(strategy.schema), o.features.enabled('CBORServingAndStorage'));
    // Errors of this request are rendered in the client's preferred representation among these.
    ctx.state.responseOffers = offers;

    // Scope: a namespaced kind is addressed inside a namespace, except list and watch across all of them;
    // a cluster-scoped kind has none (a Namespace's own name arrives as the request's namespace).
    if (strategy.namespaced && info.namespace === '' && info.verb !== 'list' && info.verb !== 'watch') throw notFound();
    if (!strategy.namespaced && info.namespace !== '' && info.resource !== 'namespaces') throw notFound();

    const connect = info.subresource === '' ? undefined : strategy.connectSubresources?.find((c) => c.name === info.subresource);
    if (connect !== undefined) {
      // A kind's own sub-resource handler (registry/connect-subresource.ts): its kind's representations.
      if (info.name === '') throw notFound();
      if (info.verb !== 'create' || !connect.verbs.includes('create')) throw methodNotAllowed(gr, info.verb);
      const subOffers = objectOffers(o.naming, servesProtobuf(connect.kind.schema), o.features.enabled('CBORServingAndStorage'));
      ctx.state.responseOffers = subOffers;
      if (negotiateResponse(ctx.get('Accept') || undefined, subOffers, resourceConversions(o.naming)) === undefined) throw notAcceptableError(subOffers);
      const query = queryOf(ctx);
      const scoped = strategy.namespaced ? info : { ...info, namespace: '' };
      await handleConnectCreate({ ctx, info: scoped, served: tracedFor(ctx, served), resources: o.resources, naming: o.naming, query, features: o.features, ...(o.services ? { services: o.services } : {}), ...(o.admission ? { admission: o.admission } : {}) }, connect);
      return;
    }
    if (info.subresource === 'scale' && strategy.scale !== undefined) {
      // autoscaling/v1 Scale bodies (endpoints/handlers/scale.ts), negotiated before any work.
      if (info.name === '') throw notFound();
      if (!scaleVerbs.has(info.verb)) throw methodNotAllowed(gr, info.verb);
      const query = queryOf(ctx);
      const scoped = strategy.namespaced ? info : { ...info, namespace: '' };
      const scope = { ctx, info: scoped, served: tracedFor(ctx, served), resources: o.resources, naming: o.naming, query, features: o.features, ...(o.services ? { services: o.services } : {}), ...(o.admission ? { admission: o.admission } : {}) };
      const scale = scaleScope(scope);
      const subOffers = objectOffers(o.naming, servesProtobuf(scale.served.strategy.schema), o.features.enabled('CBORServingAndStorage'));
      ctx.state.responseOffers = subOffers;
      const negotiatedScale = negotiateResponse(ctx.get('Accept') || undefined, subOffers, resourceConversions(o.naming));
      if (negotiatedScale === undefined) throw notAcceptableError(subOffers);
      checkConversionFits(negotiatedScale, false, queryOf(ctx));
      await handleScale(scope, strategy.scale);
      return;
    }
    if (info.subresource !== '') {
      // `status` and `approval` (KindStrategy.subresources): the object's own kind, get / update / patch.
      const sub = genericSubresourceOf(info.subresource);
      if (sub === '' || !(strategy.subresources ?? []).includes(sub)) throw notFound();
      if (!statusVerbs.has(info.verb)) throw methodNotAllowed(gr, info.verb);
    }
    const verb = info.verb as Verb;
    // A `/watch/` path names the verb whatever the method (kube's request info does the same), but kube
    // routes watches for GET only: another method there is 405, not a stream that never ends.
    if (verb === 'watch' && ctx.method !== 'GET') {
      throw methodNotAllowed(gr, ({ POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' } as Record<string, string>)[ctx.method] ?? ctx.method.toLowerCase());
    }
    const handler = handlers[verb];
    if (handler === undefined || !(strategy.verbs ?? Object.keys(handlers)).includes(verb)) {
      throw methodNotAllowed(gr, info.verb);
    }
    // As kube's handlers, negotiate the response type first: a 406 must come before any work (a POST with
    // an unacceptable Accept creates nothing). Watch negotiates its own stream types first thing.
    if (verb !== 'watch') {
      const negotiated = negotiateResponse(ctx.get('Accept') || undefined, offers, resourceConversions(o.naming));
      if (negotiated === undefined) throw notAcceptableError(offers);
      checkConversionFits(negotiated, verb === 'list' || verb === 'deletecollection', queryOf(ctx));
    }
    const query = queryOf(ctx);
    const scoped = strategy.namespaced ? info : { ...info, namespace: '' };
    await handler({ ctx, info: scoped, served: tracedFor(ctx, served), resources: o.resources, naming: o.naming, query, features: o.features, ...(o.services ? { services: o.services } : {}), ...(o.admission ? { admission: o.admission } : {}) });
  };
}
