/**
 * The admission of a request's write, as the registry calls it (`WriteAdmission`): the chain's phases with
 * the request's attributes — resource, kind, sub-resource, the verb's options as Kubernetes puts them in an
 * AdmissionRequest, dry run, the user (after impersonation). Plugins' warnings become `Warning` headers and
 * their audit annotations are kept in `ctx.state.auditAnnotations`.
 */
import type { KubeObject } from '../../api/object.js';
import type { AdmissionAttributes, GroupVersionKind } from '../../admission/attributes.js';
import type { WriteAdmission } from '../../registry/generic/options.js';
import type { WriteOptions, WriteOptionsKind } from '../../request/query.js';
import type { RequestScope } from './request-scope.js';
import { addWarnings } from './respond.js';
import { tracedAdmission } from '../../tracing/spans.js';

/** The options of an AdmissionRequest: `kind` (`CreateOptions` ...), then the fields that are set. */
export function admissionOptions(kind: string, fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { kind, apiVersion: 'meta.k8s.io/v1' };
  for (const [k, v] of Object.entries(fields)) if (v !== undefined && v !== '' && v !== false) out[k] = v;
  return out;
}

/** The admission of a create, update or patch with its parsed query options. */
export function writeAdmissionOf(scope: RequestScope, kind: WriteOptionsKind, options: WriteOptions, view?: AdmissionView): WriteAdmission | undefined {
  const fields = { dryRun: options.dryRun ? ['All'] : undefined, force: options.force, fieldManager: options.fieldManager };
  return writeAdmission(scope, admissionOptions(kind, fields), options.dryRun, view);
}

/**
 * How a sub-resource with a kind of its own is admitted (Kubernetes admits `/scale` writes as the Scale and
 * `/token` as the TokenRequest, under the parent's resource): its kind, and its form of the objects.
 */
export interface AdmissionView {
  readonly kind: GroupVersionKind;
  /** The sub-resource's object for a parent object (changes a mutating plugin makes to it are not written back). */
  readonly object?: (parent: KubeObject) => KubeObject;
}

/** The request's admission; undefined when the server runs no admission plugins. */
export function writeAdmission(scope: RequestScope, options: Record<string, unknown>, dryRun: boolean, view?: AdmissionView): WriteAdmission | undefined {
  const chain = scope.admission;
  if (chain === undefined || chain.plugins.length === 0) return undefined;
  const { info, served, ctx } = scope;
  const strategy = served.strategy;
  const resource = { group: served.group, version: strategy.version, resource: strategy.resource };
  const kind = view?.kind ?? { group: served.group, version: strategy.version, kind: strategy.kind };
  const as = view?.object;
  const attributes = (parentObj: KubeObject | undefined, parentOld: KubeObject | undefined): AdmissionAttributes => {
    const obj = parentObj === undefined || as === undefined ? parentObj : as(parentObj);
    const old = parentOld === undefined || as === undefined ? parentOld : as(parentOld);
    const operation = obj === undefined ? 'DELETE' : old === undefined ? 'CREATE' : 'UPDATE';
    return {
      operation,
      object: obj,
      oldObject: old,
      // A generated name is known from the validating phase on, as Kubernetes passes it.
      name: obj?.metadata?.name || old?.metadata?.name || info.name,
      // A delete collection across namespaces admits each object in its own namespace.
      namespace: info.namespace || (served.strategy.namespaced ? (old?.metadata?.namespace ?? obj?.metadata?.namespace ?? '') : ''),
      resource,
      subresource: info.subresource,
      kind,
      // A PUT or apply that creates is a CREATE, with CreateOptions, as Kubernetes admits it.
      options: operation === 'CREATE' && options.kind !== 'CreateOptions' ? { ...options, kind: 'CreateOptions' } : options,
      dryRun,
      userInfo: ctx.state.user,
      addWarning: (text) => addWarnings(scope, [text]),
      addAuditAnnotation: (key, value) => {
        // The first value of a key stays, as Kubernetes' audit annotations keep it.
        (ctx.state.auditAnnotations ??= {})[key] ??= value;
      },
    };
  };
  return {
    // Sampled requests (ctx.state.trace) run each phase under a span (tracing/spans.ts).
    mutate: (obj, old) => tracedAdmission(ctx.state.trace, chain, 'mutating', attributes(obj, old)),
    validate: (obj, old) => tracedAdmission(ctx.state.trace, chain, 'validating', attributes(obj, old)),
  };
}
