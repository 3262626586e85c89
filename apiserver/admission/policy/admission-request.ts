/**
 * The `request` variable of policy expressions: an admission.k8s.io/v1 AdmissionRequest built from the
 * attributes as Kubernetes' `CreateAdmissionRequest` does, then seen as JSON (omitempty fields left out,
 * so `has(request.subResource)` is false for a main-resource request):
 *
 * | field                              | value                                                           |
 * |------------------------------------|-----------------------------------------------------------------|
 * | kind, resource                     | what the policy's rules matched (an equivalent resource under   |
 * |                                    | matchPolicy Equivalent)                                         |
 * | requestKind, requestResource       | the request's own                                               |
 * | subResource, requestSubResource    | the request's sub-resource (omitted when none)                  |
 * | name, namespace                    | the request's (omitted when empty: a generateName create)       |
 * | operation                          | CREATE, UPDATE, DELETE, CONNECT                                 |
 * | userInfo                           | username, uid, groups, extra (empty fields omitted; `{}` for    |
 * |                                    | the server's own writes)                                        |
 * | dryRun                             | always present                                                  |
 * | options                            | the verb's options object as given (CreateOptions ...)          |
 *
 * `uid`, `object` and `oldObject` are not part of it (Kubernetes leaves them out of the CEL request).
 */
import type { AdmissionAttributes, GroupVersionKind, GroupVersionResource } from '../attributes.js';

type Json = Record<string, unknown>;

const gvk = (k: GroupVersionKind): Json => ({ group: k.group, version: k.version, kind: k.kind });
const gvr = (r: GroupVersionResource): Json => ({ group: r.group, version: r.version, resource: r.resource });

function userInfoOf(a: AdmissionAttributes): Json {
  const u = a.userInfo;
  if (u === undefined) return {};
  const out: Json = {};
  if (u.name !== '') out.username = u.name;
  if (u.uid !== '') out.uid = u.uid;
  if (u.groups.length > 0) out.groups = [...u.groups];
  const extra = u.extra ?? {};
  if (Object.keys(extra).length > 0) out.extra = Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, [...v]]));
  return out;
}

export function admissionRequest(a: AdmissionAttributes, matchedResource: GroupVersionResource, matchedKind: GroupVersionKind): Json {
  const r: Json = { kind: gvk(matchedKind), resource: gvr(matchedResource) };
  if (a.subresource !== '') r.subResource = a.subresource;
  r.requestKind = gvk(a.kind);
  r.requestResource = gvr(a.resource);
  if (a.subresource !== '') r.requestSubResource = a.subresource;
  if (a.name !== '') r.name = a.name;
  if (a.namespace !== '') r.namespace = a.namespace;
  r.operation = a.operation;
  r.userInfo = userInfoOf(a);
  r.dryRun = a.dryRun;
  if (Object.keys(a.options).length > 0) r.options = a.options;
  return r;
}
