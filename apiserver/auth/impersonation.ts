/**
 * User impersonation (kube-apiserver 1.32's rules, without Koa): a caller with the `impersonate` verb may act
 * as another user by sending, beside its own credentials,
 *
 *   Impersonate-User            the user name (first value; an empty one counts as absent)
 *   Impersonate-Group           a group; repeatable, each value one group
 *   Impersonate-Uid             the uid (first value)
 *   Impersonate-Extra-<key>     an extra value; repeatable; `<key>` lower-cased, then percent-decoded (a
 *                               malformed escape keeps the key as sent, as kube does)
 *
 * Groups, uid and extras without a user are a 400. Each requested value is one authorization check with verb
 * `impersonate`, the value as the resource name (so `resourceNames` restrict it), cluster-wide:
 *
 *   user                                 users             core group
 *   user `system:serviceaccount:<ns>:<n>` serviceaccounts   core group, namespace <ns>, name <n>
 *   group                                groups            core group
 *   extra                                userextras/<key>  authentication.<domain>
 *   uid                                  uids              authentication.<domain>
 *
 * Checks run in that order (user, groups, extras in header order, uid); the first refusal is a 403 naming
 * what was refused, in kube's wording (authorization/forbidden.ts: `users "bob" is forbidden: User "alice"
 * cannot impersonate resource "users" in API group "" at the cluster scope`). The impersonated user gets only what was asked for, plus:
 * - a service account without Impersonate-Group gets `system:serviceaccounts` and
 *   `system:serviceaccounts:<ns>`;
 * - `system:authenticated`, unless the groups already hold it or `system:unauthenticated`; for
 *   `system:anonymous`, `system:unauthenticated` instead (unless present).
 *
 * Header values arrive from Node decoded as latin1; they are bytes, so non-ASCII values are re-read as UTF-8
 * (what a Go server sees).
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { AuthorizationAttributes, Authorizer } from '../authorization/authorizer.js';
import { forbiddenError } from '../authorization/forbidden.js';
import { badRequest } from '../errors/constructors.js';
import type { Naming } from '../naming/naming.js';
import { isDNS1123Label, isDNS1123Subdomain } from '../validation/names.js';
import { anonymousUser, authenticatedGroup, unauthenticatedGroup, type UserInfo } from './user-info.js';

export const impersonateUserHeader = 'impersonate-user';
export const impersonateGroupHeader = 'impersonate-group';
export const impersonateUidHeader = 'impersonate-uid';
export const impersonateExtraHeaderPrefix = 'impersonate-extra-';

const serviceAccountUserPrefix = 'system:serviceaccount:';
const allServiceAccountsGroup = 'system:serviceaccounts';

/** One value the caller asks to impersonate; each is authorized on its own. */
export type ImpersonationRequest =
  | { readonly kind: 'User'; readonly name: string }
  | { readonly kind: 'ServiceAccount'; readonly namespace: string; readonly name: string }
  | { readonly kind: 'Group'; readonly name: string }
  | { readonly kind: 'UserExtra'; readonly key: string; readonly value: string }
  | { readonly kind: 'UID'; readonly uid: string };

/** Node's `req.headersDistinct`: every header, lower-cased, with each of its values. */
export type DistinctHeaders = Readonly<Record<string, readonly string[] | undefined>>;

/**
 * The impersonation the headers ask for, in check order; empty when there is none. Throws a 400 when
 * groups, extras or a uid come without a user.
 */
export function impersonationRequests(headers: DistinctHeaders, naming: Naming): ImpersonationRequest[] {
  const requests: ImpersonationRequest[] = [];
  const userName = bytesAsUtf8(headers[impersonateUserHeader]?.[0] ?? '');
  if (userName !== '') {
    const sa = splitServiceAccountUserName(userName);
    requests.push(sa === undefined ? { kind: 'User', name: userName } : { kind: 'ServiceAccount', ...sa });
  }
  const groups = headers[impersonateGroupHeader] ?? [];
  for (const g of groups) requests.push({ kind: 'Group', name: bytesAsUtf8(g) });
  let extras = false;
  for (const [header, values] of Object.entries(headers)) {
    if (!header.startsWith(impersonateExtraHeaderPrefix) || values === undefined) continue;
    extras = true;
    const key = unescapeExtraKey(header.slice(impersonateExtraHeaderPrefix.length).toLowerCase());
    for (const v of values) requests.push({ kind: 'UserExtra', key, value: bytesAsUtf8(v) });
  }
  const uid = bytesAsUtf8(headers[impersonateUidHeader]?.[0] ?? '');
  if (uid !== '') requests.push({ kind: 'UID', uid });
  if (userName === '' && (groups.length > 0 || extras || uid !== '')) {
    throw badRequest(`requested ${formatRequests(requests, naming)} without impersonating a user`);
  }
  return requests;
}

/**
 * Authorizes each request for `requestor` (throws kube's Forbidden at the first refusal) and returns the
 * user to act as. Any Group request (Impersonate-Group sent at all, even with an empty value) makes the
 * given groups the whole list for a service account.
 */
export function impersonate(
  requestor: UserInfo,
  requests: readonly ImpersonationRequest[],
  authorizer: Authorizer,
  naming: Naming,
): UserInfo {
  const groupsSpecified = requests.some((r) => r.kind === 'Group');
  let name = '';
  let uid = '';
  let groups: string[] = [];
  const extra: Record<string, string[]> = {};
  for (const r of requests) {
    const attributes = checkAttributes(requestor, r, naming);
    const result = authorizer.authorize(attributes);
    if (result.decision !== 'allow') throw forbiddenError(attributes, result.reason);
    switch (r.kind) {
      case 'User':
        name = r.name;
        break;
      case 'ServiceAccount':
        name = `${serviceAccountUserPrefix}${r.namespace}:${r.name}`;
        if (!groupsSpecified) groups = [allServiceAccountsGroup, `${allServiceAccountsGroup}:${r.namespace}`];
        break;
      case 'Group':
        groups.push(r.name);
        break;
      case 'UserExtra':
        (extra[r.key] ??= []).push(r.value);
        break;
      case 'UID':
        uid = r.uid;
        break;
    }
  }
  if (name !== anonymousUser.name) {
    if (!groups.includes(authenticatedGroup) && !groups.includes(unauthenticatedGroup)) groups.push(authenticatedGroup);
  } else if (!groups.includes(unauthenticatedGroup)) {
    groups.push(unauthenticatedGroup);
  }
  const user: UserInfo = { name, uid, groups: Object.freeze(groups) };
  return Object.freeze(Object.keys(extra).length === 0 ? user : { ...user, extra: Object.freeze(extra) });
}

/**
 * The whole step for one request: undefined when it carries no impersonation headers; otherwise the
 * impersonated user, and the impersonation headers are removed from `req` (later stages, and anything that
 * forwards the request, see the request as the impersonated user's own).
 */
export function impersonateRequest(req: IncomingMessage, requestor: UserInfo, authorizer: Authorizer, naming: Naming): UserInfo | undefined {
  // Node builds `headersDistinct` anew on each read (~2 µs): only for a request that has such a header.
  if (!hasImpersonationHeader(req.rawHeaders)) return undefined;
  const requests = impersonationRequests(req.headersDistinct, naming);
  if (requests.length === 0) return undefined;
  const user = impersonate(requestor, requests, authorizer, naming);
  removeImpersonationHeaders(req);
  return user;
}

/** Whether a (lower-case) header name is one of the impersonation headers. */
export function isImpersonationHeader(name: string): boolean {
  const n = name.toLowerCase();
  return n === impersonateUserHeader || n === impersonateGroupHeader || n === impersonateUidHeader || n.startsWith(impersonateExtraHeaderPrefix);
}

/** Whether the raw header names hold an impersonation header (all of them start with `impersonate-`, any case). */
function hasImpersonationHeader(raw: readonly string[]): boolean {
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length > 12 && (name.charCodeAt(0) | 0x20) === 0x69 && isImpersonationHeader(name)) return true;
  }
  return false;
}

/** Deletes the impersonation headers from every view Node keeps of them. */
function removeImpersonationHeaders(req: IncomingMessage): void {
  const headers: IncomingHttpHeaders = req.headers;
  const distinct: Record<string, unknown> = req.headersDistinct;
  for (const name of Object.keys(distinct)) {
    if (!isImpersonationHeader(name)) continue;
    delete headers[name];
    delete distinct[name];
  }
  const raw = req.rawHeaders;
  for (let i = raw.length - 2; i >= 0; i -= 2) if (isImpersonationHeader(raw[i]!)) raw.splice(i, 2);
}

/** The attributes of the `impersonate` check for one value (kube leaves the path empty). */
function checkAttributes(user: UserInfo, r: ImpersonationRequest, naming: Naming): AuthorizationAttributes {
  const base = { user, verb: 'impersonate', isResourceRequest: true, path: '', namespace: '', apiGroup: '', apiVersion: '', subresource: '' };
  switch (r.kind) {
    case 'User':
      return { ...base, resource: 'users', name: r.name };
    case 'ServiceAccount':
      return { ...base, resource: 'serviceaccounts', namespace: r.namespace, name: r.name };
    case 'Group':
      return { ...base, resource: 'groups', name: r.name };
    case 'UserExtra':
      return { ...base, apiGroup: naming.group('authentication'), apiVersion: 'v1', resource: 'userextras', subresource: r.key, name: r.value };
    case 'UID':
      return { ...base, apiGroup: naming.group('authentication'), apiVersion: 'v1', resource: 'uids', name: r.uid };
  }
}

/**
 * `system:serviceaccount:<namespace>:<name>` split as kube's serviceaccount.SplitUsername: exactly two parts,
 * the namespace a DNS label and the name a DNS subdomain; anything else is an ordinary user name.
 */
export function splitServiceAccountUserName(userName: string): { namespace: string; name: string } | undefined {
  if (!userName.startsWith(serviceAccountUserPrefix)) return undefined;
  const parts = userName.slice(serviceAccountUserPrefix.length).split(':');
  if (parts.length !== 2) return undefined;
  const [namespace, name] = parts as [string, string];
  if (isDNS1123Label(namespace).length > 0 || isDNS1123Subdomain(name).length > 0) return undefined;
  return { namespace, name };
}

/** Go's url.PathUnescape of the key; a malformed `%` escape leaves the key as sent. */
function unescapeExtraKey(encoded: string): string {
  if (!encoded.includes('%')) return encoded;
  const bytes: number[] = [];
  for (let i = 0; i < encoded.length; i++) {
    const c = encoded.charCodeAt(i);
    if (c !== 0x25) {
      bytes.push(c);
      continue;
    }
    const hex = encoded.slice(i + 1, i + 3);
    if (!/^[0-9a-fA-F]{2}$/.test(hex)) return encoded;
    bytes.push(parseInt(hex, 16));
    i += 2;
  }
  return Buffer.from(bytes).toString('utf8');
}

/** A header value as Node gives it (latin1, one char per byte) read as the UTF-8 it was sent in. */
function bytesAsUtf8(value: string): string {
  return /[^\x00-\x7f]/.test(value) ? Buffer.from(value, 'latin1').toString('utf8') : value;
}

/**
 * The 400's list as kube prints it: Go's `%v` of its ObjectReferences, `{Kind Namespace Name UID APIVersion
 * ResourceVersion FieldPath}` with empty fields left blank, e.g. `[{Group  devs    }]`.
 */
function formatRequests(requests: readonly ImpersonationRequest[], naming: Naming): string {
  const authV1 = `${naming.group('authentication')}/v1`;
  const ref = (kind: string, namespace: string, name: string, apiVersion: string, fieldPath: string): string =>
    `{${[kind, namespace, name, '', apiVersion, '', fieldPath].join(' ')}}`;
  const refs = requests.map((r) => {
    switch (r.kind) {
      case 'User':
        return ref('User', '', r.name, '', '');
      case 'ServiceAccount':
        return ref('ServiceAccount', r.namespace, r.name, '', '');
      case 'Group':
        return ref('Group', '', r.name, '', '');
      case 'UserExtra':
        return ref('UserExtra', '', r.value, authV1, r.key);
      case 'UID':
        return ref('UID', '', r.uid, authV1, '');
    }
  });
  return `[${refs.join(' ')}]`;
}
