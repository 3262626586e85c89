/**
 * The REST routes of one resource as a neutral model (path, path parameters, operations with their
 * action, id, query parameters, body and responses), rendered by the v2 and v3 document builders. The
 * shapes follow kube-apiserver's installer: collection, item, `/watch/` paths, all-namespaces list and
 * the `status` and `scale` sub-resources, each operation only when the kind serves its verb (`scale`
 * takes and returns an autoscaling/v1 Scale whatever the parent's verbs, as Kubernetes serves it).
 */
import type { Verb } from '../../api/object.js';
import type { Naming } from '../../naming/naming.js';
import type { KindStrategy } from '../../registry/kind-strategy.js';
import { scaleKind } from '../../registry/kinds/autoscaling/scale.js';
import { resourceVerbs } from '../discovery/resource-verbs.js';
import { operationGroupVersion } from './definition-names.js';
import type { Action } from './query-parameters.js';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
/**
 * What a body or response carries: the kind, its list, a Status, a watch event, DeleteOptions, a patch, or
 * the route's own kind (`RouteModel.kind`: TokenRequest for `serviceaccounts/{name}/token`).
 */
export type Payload = 'object' | 'list' | 'status' | 'watchEvent' | 'deleteOptions' | 'patch' | 'routeKind';

export interface OperationModel {
  readonly method: Method;
  readonly action: Action;
  readonly operationId: string;
  readonly description: string;
  readonly body?: Payload;
  readonly responses: readonly { readonly code: 200 | 201 | 202; readonly payload: Payload }[];
}

export interface RouteModel {
  readonly path: string;
  readonly namespaced: boolean;
  readonly named: boolean;
  readonly operations: readonly OperationModel[];
  /** The kind a connect sub-resource takes and returns, when it is not the resource's own. */
  readonly kind?: KindStrategy;
}

/** Build the routes of `k` (served as `group`/`version`). */
export function resourceRoutes(naming: Naming, group: string, k: KindStrategy): RouteModel[] {
  const verbs = new Set<Verb>(resourceVerbs(k));
  const prefix = group === '' ? `/api/${k.version}` : `/apis/${group}/${k.version}`;
  const gv = operationGroupVersion(naming, group, k.version);
  const scoped = k.namespaced ? `Namespaced${k.kind}` : k.kind;
  const nsPath = k.namespaced ? '/namespaces/{namespace}' : '';
  const objectResponse = k.deleteReturnsObject === true ? 'object' : 'status';
  const routes: RouteModel[] = [];
  const add = (path: string, named: boolean, ops: (OperationModel | false)[], namespaced = k.namespaced, kind?: KindStrategy) => {
    const operations = ops.filter((o): o is OperationModel => o !== false);
    if (operations.length > 0) routes.push({ path, namespaced, named, operations, ...(kind === undefined ? {} : { kind }) });
  };

  add(`${prefix}${nsPath}/${k.resource}`, false, [
    verbs.has('list') && {
      method: 'get', action: 'list', operationId: `list${gv}${scoped}`, description: `list or watch objects of kind ${k.kind}`,
      responses: [{ code: 200, payload: 'list' }],
    },
    verbs.has('create') && {
      method: 'post', action: 'post', operationId: `create${gv}${scoped}`, description: `create a ${k.kind}`, body: 'object',
      responses: [{ code: 200, payload: 'object' }, { code: 201, payload: 'object' }, { code: 202, payload: 'object' }],
    },
    verbs.has('deletecollection') && {
      method: 'delete', action: 'deletecollection', operationId: `delete${gv}Collection${scoped}`,
      description: `delete collection of ${k.kind}`, body: 'deleteOptions', responses: [{ code: 200, payload: 'status' }],
    },
  ]);
  add(`${prefix}${nsPath}/${k.resource}/{name}`, true, [
    verbs.has('get') && {
      method: 'get', action: 'get', operationId: `read${gv}${scoped}`, description: `read the specified ${k.kind}`,
      responses: [{ code: 200, payload: 'object' }],
    },
    verbs.has('update') && {
      method: 'put', action: 'put', operationId: `replace${gv}${scoped}`, description: `replace the specified ${k.kind}`, body: 'object',
      responses: [{ code: 200, payload: 'object' }, { code: 201, payload: 'object' }],
    },
    verbs.has('patch') && {
      method: 'patch', action: 'patch', operationId: `patch${gv}${scoped}`, description: `partially update the specified ${k.kind}`,
      body: 'patch', responses: [{ code: 200, payload: 'object' }, { code: 201, payload: 'object' }],
    },
    verbs.has('delete') && {
      method: 'delete', action: 'delete', operationId: `delete${gv}${scoped}`, description: `delete a ${k.kind}`, body: 'deleteOptions',
      responses: [{ code: 200, payload: objectResponse }, { code: 202, payload: objectResponse }],
    },
  ]);
  // `status` and `approval` (CertificateSigningRequest), in Kubernetes' order: approval before status.
  for (const name of [...(k.subresources ?? [])].sort()) {
    const sub = name.charAt(0).toUpperCase() + name.slice(1);
    add(`${prefix}${nsPath}/${k.resource}/{name}/${name}`, true, [
      verbs.has('get') && {
        method: 'get', action: 'get', operationId: `read${gv}${scoped}${sub}`, description: `read ${name} of the specified ${k.kind}`,
        responses: [{ code: 200, payload: 'object' }],
      },
      verbs.has('update') && {
        method: 'put', action: 'put', operationId: `replace${gv}${scoped}${sub}`, description: `replace ${name} of the specified ${k.kind}`,
        body: 'object', responses: [{ code: 200, payload: 'object' }, { code: 201, payload: 'object' }],
      },
      verbs.has('patch') && {
        method: 'patch', action: 'patch', operationId: `patch${gv}${scoped}${sub}`,
        description: `partially update ${name} of the specified ${k.kind}`, body: 'patch',
        responses: [{ code: 200, payload: 'object' }, { code: 201, payload: 'object' }],
      },
    ]);
  }
  if (k.scale !== undefined) {
    add(`${prefix}${nsPath}/${k.resource}/{name}/scale`, true, [
      {
        method: 'get', action: 'get', operationId: `read${gv}${scoped}Scale`, description: `read scale of the specified ${k.kind}`,
        responses: [{ code: 200, payload: 'routeKind' }],
      },
      {
        method: 'put', action: 'put', operationId: `replace${gv}${scoped}Scale`, description: `replace scale of the specified ${k.kind}`,
        body: 'routeKind', responses: [{ code: 200, payload: 'routeKind' }, { code: 201, payload: 'routeKind' }],
      },
      {
        method: 'patch', action: 'patch', operationId: `patch${gv}${scoped}Scale`,
        description: `partially update scale of the specified ${k.kind}`, body: 'patch',
        responses: [{ code: 200, payload: 'routeKind' }, { code: 201, payload: 'routeKind' }],
      },
    ], k.namespaced, scaleKind);
  }
  for (const c of k.connectSubresources ?? []) {
    const sub = c.name.charAt(0).toUpperCase() + c.name.slice(1);
    add(`${prefix}${nsPath}/${k.resource}/{name}/${c.name}`, true, [
      c.verbs.includes('create') && {
        method: 'post', action: 'post', operationId: `create${gv}${scoped}${sub}`, description: `create ${c.name} of a ${k.kind}`,
        body: 'routeKind', responses: [{ code: 200, payload: 'routeKind' }, { code: 201, payload: 'routeKind' }, { code: 202, payload: 'routeKind' }],
      },
    ], k.namespaced, c.kind);
  }
  if (k.namespaced && verbs.has('list')) {
    add(`${prefix}/${k.resource}`, false, [{
      method: 'get', action: 'list', operationId: `list${gv}${k.kind}ForAllNamespaces`, description: `list or watch objects of kind ${k.kind}`,
      responses: [{ code: 200, payload: 'list' }],
    }], false);
  }
  if (verbs.has('watch')) {
    // The deprecated `/watch/` paths, still published (and served) by Kubernetes.
    add(`${prefix}/watch${nsPath}/${k.resource}`, false, [{
      method: 'get', action: 'watchlist', operationId: `watch${gv}${scoped}List`,
      description: `watch individual changes to a list of ${k.kind}. deprecated: use the 'watch' parameter with a list operation instead.`,
      responses: [{ code: 200, payload: 'watchEvent' }],
    }]);
    add(`${prefix}/watch${nsPath}/${k.resource}/{name}`, true, [{
      method: 'get', action: 'watch', operationId: `watch${gv}${scoped}`,
      description: `watch changes to an object of kind ${k.kind}. deprecated: use the 'watch' parameter with a list operation instead, filtered to a single item with the 'fieldSelector' parameter.`,
      responses: [{ code: 200, payload: 'watchEvent' }],
    }]);
    if (k.namespaced) {
      add(`${prefix}/watch/${k.resource}`, false, [{
        method: 'get', action: 'watchlist', operationId: `watch${gv}${k.kind}ListForAllNamespaces`,
        description: `watch individual changes to a list of ${k.kind}. deprecated: use the 'watch' parameter with a list operation instead.`,
        responses: [{ code: 200, payload: 'watchEvent' }],
      }], false);
    }
  }
  return routes;
}

/**
 * The patch media types a PATCH operation accepts, in kube-apiserver's order: JSON Patch, merge patch,
 * strategic merge patch (built-in kinds only), apply as YAML, and apply as CBOR when CBOR is served.
 */
export function patchTypes(strategic: boolean, cbor = false): string[] {
  return [
    'application/json-patch+json',
    'application/merge-patch+json',
    ...(strategic ? ['application/strategic-merge-patch+json'] : []),
    'application/apply-patch+yaml',
    ...(cbor ? ['application/apply-patch+cbor'] : []),
  ];
}

/**
 * What an operation's responses come in, as kube-apiserver lists its serializers: JSON, YAML, protobuf
 * (built-in kinds only: custom resources have no protobuf form), CBOR when served; list and watch
 * operations add the streaming forms (JSON and protobuf watch streams, CBOR sequences).
 */
export function responseTypes(o: { readonly protobuf: string | undefined; readonly cbor: boolean; readonly stream: boolean }): string[] {
  const types = ['application/json', 'application/yaml'];
  if (o.protobuf !== undefined) types.push(o.protobuf);
  if (o.cbor) types.push('application/cbor');
  if (!o.stream) return types;
  types.push('application/json;stream=watch');
  if (o.protobuf !== undefined) types.push(`${o.protobuf};stream=watch`);
  if (o.cbor) types.push('application/cbor-seq');
  return types;
}
