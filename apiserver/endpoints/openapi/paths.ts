/**
 * Renders the route model of `routes.ts` as OpenAPI path items, v2 (Swagger) or v3. Every operation
 * carries `x-kubernetes-action` (renamed with the domain) and `x-kubernetes-group-version-kind` (an
 * object, under that exact name: kubectl's `--validate=strict` looks for a PATCH operation with the kind's
 * GVK and a `fieldValidation` query parameter).
 */
import type { Naming } from '../../naming/naming.js';
import { groupOf, type KindStrategy, type PublishedAction } from '../../registry/kind-strategy.js';
import { definitionNames, type GroupVersionEntry } from './definitions.js';
import { operationTag } from './definition-names.js';
import type { Dialect, Published } from './publish-schema.js';
import { actionParams, queryParams, type ParamSpec, type QueryParamName } from './query-parameters.js';
import { patchTypes, resourceRoutes, responseTypes, type OperationModel, type Payload, type RouteModel } from './routes.js';

export interface PathOptions {
  /** Whether a kind accepts strategic merge patch (built-in kinds do; custom resources do not). */
  readonly strategicMergePatch: (k: KindStrategy) => boolean;
  /** Whether a kind is served in protobuf; default every kind (built-in kinds are; custom resources are not). */
  readonly protobuf?: (k: KindStrategy) => boolean;
  /** Whether CBOR is served (the CBORServingAndStorage feature gate); default false. */
  readonly cbor?: boolean;
}

const responseDescriptions: Readonly<Record<number, string>> = { 200: 'OK', 201: 'Created', 202: 'Accepted' };

export function buildPaths(naming: Naming, dialect: Dialect, entries: readonly GroupVersionEntry[], o: PathOptions): Record<string, Published> {
  const names = definitionNames(naming);
  const refPrefix = dialect === 'v2' ? '#/definitions/' : '#/components/schemas/';
  const action = naming.extension('action');
  const cbor = o.cbor === true;

  const queryParam = (p: ParamSpec): Published =>
    dialect === 'v2'
      ? { uniqueItems: true, type: p.type, description: p.description, name: p.name, in: 'query' }
      : { name: p.name, in: 'query', description: p.description, schema: { type: p.type, uniqueItems: true } };
  const pathParam = (name: string, description: string): Published =>
    dialect === 'v2'
      ? { uniqueItems: true, type: 'string', description, name, in: 'path', required: true }
      : { name, in: 'path', description, required: true, schema: { type: 'string', uniqueItems: true } };
  const pretty = queryParam(queryParams.pretty);
  const namespaceParam = pathParam('namespace', 'object name and auth scope, such as for teams and projects');
  const queryParamsOf = new Map<string, Published[]>(
    Object.entries(actionParams).map(([a, list]) => [a, list.map((n) => queryParam(queryParams[n]))]),
  );

  const out: Record<string, Published> = {};
  for (const { group, served } of entries) {
    const tags = [operationTag(naming, group, served.version)];
    for (const k of served.resources) {
      const gvk = { group, version: k.version, kind: k.kind };
      const refs: Record<Exclude<Payload, 'routeKind'>, string> = {
        object: names.kind(group, k),
        list: names.list(group, k),
        status: names.meta('Status'),
        watchEvent: names.meta('WatchEvent'),
        deleteOptions: names.meta('DeleteOptions'),
        patch: names.meta('Patch'),
      };
      const ref = (p: Payload, route: RouteModel) => ({
        $ref: refPrefix + (p === 'routeKind' ? names.kind(groupOf(route.kind!, naming), route.kind!) : refs[p]),
      });
      const patchConsumes = patchTypes(o.strategicMergePatch(k), cbor);
      const protobuf = o.protobuf === undefined || o.protobuf(k) ? naming.protobufMediaType : undefined;
      const objectTypes = responseTypes({ protobuf, cbor, stream: false });
      const streamTypes = responseTypes({ protobuf, cbor, stream: true });

      const operation = (op: OperationModel, route: RouteModel): Published => {
        const produces = op.action === 'list' || op.action === 'watch' || op.action === 'watchlist' ? streamTypes : objectTypes;
        const consumes = op.body === 'patch' ? patchConsumes : ['*/*'];
        const query = reducedParams(k, op, route) ?? queryParamsOf.get(op.action) ?? [];
        const responses: Published = {};
        for (const r of op.responses) {
          const description = responseDescriptions[r.code]!;
          responses[String(r.code)] =
            dialect === 'v2'
              ? { description, schema: ref(r.payload, route) }
              : { description, content: Object.fromEntries(produces.map((t) => [t, { schema: ref(r.payload, route) }])) };
        }
        responses['401'] = { description: 'Unauthorized' };
        const result: Published = { tags, description: op.description, operationId: op.operationId };
        if (dialect === 'v2') {
          result['consumes'] = consumes;
          result['produces'] = produces;
          result['schemes'] = ['https'];
          const body = op.body === undefined ? [] : [{ name: 'body', in: 'body', required: op.body !== 'deleteOptions', schema: ref(op.body, route) }];
          result['parameters'] = [...body, ...query];
        } else {
          result['parameters'] = query;
          if (op.body !== undefined) {
            result['requestBody'] = {
              content: Object.fromEntries(consumes.map((t) => [t, { schema: ref(op.body!, route) }])),
              ...(op.body === 'deleteOptions' ? {} : { required: true }),
            };
          }
        }
        result['responses'] = responses;
        result[action] = op.action;
        result['x-kubernetes-group-version-kind'] =
          route.kind === undefined ? gvk : { group: groupOf(route.kind, naming), version: route.kind.version, kind: route.kind.kind };
        return result;
      };

      /** The kind's reduced set for this operation (document 2), in the documents' names only. */
      function reducedParams(kind: KindStrategy, op: OperationModel, route: RouteModel): Published[] | undefined {
        const sets = kind.publishedQueryParameters;
        // Connect sub-resources (serviceaccounts/{name}/token) keep their own kind's parameters.
        if (sets === undefined || naming.domain === 'k8s.io' || route.kind !== undefined) return undefined;
        const listing = op.action === 'list' || op.action === 'watch' || op.action === 'watchlist';
        const names = listing ? ((route.namespaced ? sets.namespacedList : undefined) ?? sets.list) : sets[op.action as PublishedAction];
        return names?.map((n) => queryParam(queryParams[n as QueryParamName]));
      }

      for (const route of resourceRoutes(naming, group, k)) out[route.path] = pathItem(route);

      function pathItem(route: RouteModel): Published {
        const item: Published = {};
        for (const op of route.operations) item[op.method] = operation(op, route);
        item['parameters'] = [
          ...(route.named ? [pathParam('name', `name of the ${k.kind}`)] : []),
          ...(route.namespaced ? [namespaceParam] : []),
          pretty,
        ];
        return item;
      }
    }
  }
  return out;
}
