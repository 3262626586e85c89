import { impersonateRequest } from '../../auth/impersonation.js';
import type { Authorizer } from '../../authorization/authorizer.js';
import { internalError } from '../../errors/constructors.js';
import type { Naming } from '../../naming/naming.js';
import type { Filter } from '../../request/request-state.js';

export interface ImpersonationOptions {
  /** Decides each `impersonate` check (the same authorizer as the authorization filter's). */
  readonly authorizer: Authorizer;
  /** For the `authentication.<domain>` group of the `userextras` and `uids` checks. */
  readonly naming: Naming;
}

/**
 * After authentication and audit, before authorization: when the request carries impersonation headers
 * (auth/impersonation.ts), checks that the authenticated caller may impersonate each value (403 otherwise,
 * 400 for groups, extras or a uid without a user), then lets the request go on as the impersonated user:
 * `ctx.state.user` is replaced, the caller is kept in `ctx.state.impersonatedBy` (for logs), the request's
 * audit record learns the impersonated user (kube's LogImpersonatedUser), and the impersonation headers are
 * removed. A refusal is thrown through the audit filter, which records it. Requests without those headers
 * pass untouched.
 */
export function impersonation(options: ImpersonationOptions): Filter {
  return async function impersonationFilter(ctx, next) {
    const requestor = ctx.state.user;
    if (requestor === undefined) throw internalError('no user found for request');
    const user = impersonateRequest(ctx.req, requestor, options.authorizer, options.naming);
    if (user !== undefined) {
      ctx.state.impersonatedBy = requestor;
      ctx.state.user = user;
      ctx.state.audit?.impersonated(user);
    }
    await next();
  };
}
