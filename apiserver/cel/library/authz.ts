/**
 * Kubernetes' authorizer library (`kubernetes.authz`, from 1.27), for admission policies that have an
 * `authorizer` variable:
 *
 *     authorizer.group('apps').resource('deployments').namespace('ns').name('x').check('update').allowed()
 *     authorizer.path('/healthz').check('GET').reason()
 *     authorizer.serviceAccount('ns', 'sa').group('').resource('pods').check('get').errored()
 *
 * Types: `kubernetes.authorization.Authorizer`, `...PathCheck`, `...GroupCheck`, `...ResourceCheck`,
 * `...Decision`. A resource check asks about API version `*`; a path check lower-cases the HTTP verb.
 * `serviceAccount(ns, name)` checks as `system:serviceaccount:<ns>:<name>` with the groups
 * `system:serviceaccounts` and `system:serviceaccounts:<ns>`.
 *
 * The decision comes from an `AuthorizerLike` (structurally the server's synchronous `Authorizer`): the
 * admission issue wires the real one. With the 1.31 `AuthorizeWithSelectors` gate, `fieldSelector` and
 * `labelSelector` can be chained on a resource check (`authzSelectorsLibrary`); the raw selectors are
 * passed to the authorizer as given.
 *
 * Cost (k8s cost.go): `check` 350,000 (two checks per expression fit the per-call limit); every builder
 * and accessor 1.
 */
import type { UserInfo } from '../../auth/user-info.js';
import type { AuthorizationAttributes } from '../../authorization/authorizer.js';
import { CelOpaque, type CelValue } from '../values/value.js';
import type { CelLibrary, Overload } from './library.js';
import { noSuchOverload, str } from './support.js';
import { withKubernetesEstimates } from '../cost/kubernetes-estimates.js';

/** The user a check is about: the server's UserInfo. */
export type AuthzUser = UserInfo;

/** What a check asks: the server's AuthorizationAttributes, plus the raw selectors (1.31 `AuthorizeWithSelectors`). */
export interface AuthzAttributes extends AuthorizationAttributes {
  readonly fieldSelector?: string;
  readonly labelSelector?: string;
}

export interface AuthzResult {
  readonly decision: 'allow' | 'deny' | 'no-opinion';
  readonly reason: string;
  /** Set when the authorizer failed (the Decision's `errored()`/`error()`). */
  readonly error?: string;
}

/** The authorizer the library asks; the server's `Authorizer` satisfies it. */
export interface AuthorizerLike {
  authorize(attributes: AuthzAttributes): AuthzResult;
}

const NS = 'kubernetes.authorization';

/** The `authorizer` variable's value: an authorizer and the user to check as. */
export class CelAuthorizer extends CelOpaque {
  readonly typeName = `${NS}.Authorizer`;
  constructor(readonly authorizer: AuthorizerLike, readonly user: AuthzUser) {
    super();
  }
  equals(other: CelOpaque): boolean {
    return other === this;
  }
}

export class CelPathCheck extends CelOpaque {
  readonly typeName = `${NS}.PathCheck`;
  constructor(readonly authz: CelAuthorizer, readonly path: string) {
    super();
  }
  equals(other: CelOpaque): boolean {
    return other === this;
  }
}

export class CelGroupCheck extends CelOpaque {
  readonly typeName = `${NS}.GroupCheck`;
  constructor(readonly authz: CelAuthorizer, readonly group: string) {
    super();
  }
  equals(other: CelOpaque): boolean {
    return other === this;
  }
}

interface ResourceFields {
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
  readonly fieldSelector?: string;
  readonly labelSelector?: string;
}

export class CelResourceCheck extends CelOpaque {
  readonly typeName = `${NS}.ResourceCheck`;
  constructor(readonly group: CelGroupCheck, readonly fields: ResourceFields) {
    super();
  }
  with(change: Partial<ResourceFields>): CelResourceCheck {
    return new CelResourceCheck(this.group, { ...this.fields, ...change });
  }
  equals(other: CelOpaque): boolean {
    return other === this;
  }
}

export class CelDecision extends CelOpaque {
  readonly typeName = `${NS}.Decision`;
  constructor(readonly result: AuthzResult) {
    super();
  }
  equals(other: CelOpaque): boolean {
    return other === this;
  }
}

function as<T extends CelOpaque>(v: CelValue, cls: abstract new (...a: never[]) => T): T {
  if (!(v instanceof cls)) throw noSuchOverload();
  return v;
}

/** Kubernetes' service account user (serviceaccount.UserInfo without a uid). */
export function serviceAccountUser(namespace: string, name: string): AuthzUser {
  return {
    name: `system:serviceaccount:${namespace}:${name}`,
    uid: '',
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`],
  };
}

function decide(authz: CelAuthorizer, attrs: Omit<AuthzAttributes, 'user'>): CelDecision {
  return new CelDecision(authz.authorizer.authorize({ ...attrs, user: authz.user }));
}

const CHECK_COST = 350_000;
const check = (): number => CHECK_COST;

const A = `${NS}.Authorizer`;
const P = `${NS}.PathCheck`;
const G = `${NS}.GroupCheck`;
const R = `${NS}.ResourceCheck`;
const D = `${NS}.Decision`;

const overloads: Overload[] = [
  { signature: `${A}.path(string): ${P}`, impl: (a, p) => new CelPathCheck(as(a, CelAuthorizer), str(p)) },
  { signature: `${A}.group(string): ${G}`, impl: (a, g) => new CelGroupCheck(as(a, CelAuthorizer), str(g)) },
  {
    signature: `${A}.serviceAccount(string, string): ${A}`,
    impl: (a, ns, name) => {
      const authz = as(a, CelAuthorizer);
      return new CelAuthorizer(authz.authorizer, serviceAccountUser(str(ns), str(name)));
    },
  },
  {
    signature: `${G}.resource(string): ${R}`,
    impl: (g, r) => new CelResourceCheck(as(g, CelGroupCheck), { resource: str(r), subresource: '', namespace: '', name: '' }),
  },
  { signature: `${R}.subresource(string): ${R}`, impl: (r, s) => as(r, CelResourceCheck).with({ subresource: str(s) }) },
  { signature: `${R}.namespace(string): ${R}`, impl: (r, s) => as(r, CelResourceCheck).with({ namespace: str(s) }) },
  { signature: `${R}.name(string): ${R}`, impl: (r, s) => as(r, CelResourceCheck).with({ name: str(s) }) },
  {
    signature: `${P}.check(string): ${D}`,
    cost: check,
    impl: (p, verb) => {
      const pc = as(p, CelPathCheck);
      return decide(pc.authz, {
        verb: str(verb).toLowerCase(),
        isResourceRequest: false,
        path: pc.path,
        namespace: '',
        apiGroup: '',
        apiVersion: '',
        resource: '',
        subresource: '',
        name: '',
      });
    },
  },
  {
    signature: `${R}.check(string): ${D}`,
    cost: check,
    impl: (r, verb) => {
      const rc = as(r, CelResourceCheck);
      const f = rc.fields;
      return decide(rc.group.authz, {
        verb: str(verb),
        isResourceRequest: true,
        path: '',
        namespace: f.namespace,
        apiGroup: rc.group.group,
        apiVersion: '*',
        resource: f.resource,
        subresource: f.subresource,
        name: f.name,
        ...(f.fieldSelector !== undefined ? { fieldSelector: f.fieldSelector } : {}),
        ...(f.labelSelector !== undefined ? { labelSelector: f.labelSelector } : {}),
      });
    },
  },
  { signature: `${D}.allowed(): bool`, impl: (d) => as(d, CelDecision).result.decision === 'allow' },
  { signature: `${D}.reason(): string`, impl: (d) => as(d, CelDecision).result.reason },
  { signature: `${D}.errored(): bool`, impl: (d) => as(d, CelDecision).result.error !== undefined },
  { signature: `${D}.error(): string`, impl: (d) => as(d, CelDecision).result.error ?? '' },
];

export const authzLibrary: CelLibrary = {
  name: 'kubernetes.authz',
  since: 27,
  overloads: withKubernetesEstimates(overloads),
  types: [A, P, G, R, D],
};

/** The 1.31 selectors (behind the AuthorizeWithSelectors gate): `fieldSelector(s)`, `labelSelector(s)` on a resource check. */
export const authzSelectorsLibrary: CelLibrary = {
  name: 'kubernetes.authzSelectors',
  since: 31,
  overloads: [
    { signature: `${R}.fieldSelector(string): ${R}`, impl: (r, s) => as(r, CelResourceCheck).with({ fieldSelector: str(s) }) },
    { signature: `${R}.labelSelector(string): ${R}`, impl: (r, s) => as(r, CelResourceCheck).with({ labelSelector: str(s) }) },
  ],
};
