/**
 * The RBAC authorizer (Kubernetes' plugin/pkg/auth/authorizer/rbac): allows a request when any rule of any
 * binding that applies to the user allows it; otherwise it has no opinion (the next authorizer of the
 * union decides, and a request no one allows is forbidden). Never denies outright.
 *
 * Reasons, as Kubernetes words them: when allowed, `RBAC: allowed by ClusterRoleBinding "b" of ClusterRole
 * "r" to User "bob"`; when not, '' or, when bindings point at missing roles, `RBAC: <message>` (several
 * distinct messages as `[a, b]`), which the Forbidden message carries after a colon.
 */
import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from './authorizer.js';
import { NO_OPINION } from './authorizer.js';
import { describeSource, type RbacIndex } from './rbac-index.js';
import { ruleAllows } from './rule-matching.js';

/** Go's aggregate error text: one message as is, several distinct ones as `[a, b]`. */
export function aggregateMessage(messages: readonly string[]): string {
  const distinct = [...new Set(messages)];
  return distinct.length === 1 ? distinct[0]! : `[${distinct.join(', ')}]`;
}

export function rbacAuthorizer(index: RbacIndex): Authorizer {
  return {
    authorize(a: AuthorizationAttributes): AuthorizationResult {
      let allowedBy = '';
      let errors: string[] | undefined;
      index.visitRulesFor(a.user, a.namespace, (source, rule, error) => {
        if (error !== undefined) {
          (errors ??= []).push(error);
          return true;
        }
        if (rule !== undefined && source !== undefined && ruleAllows(a, rule)) {
          allowedBy = describeSource(source);
          return false;
        }
        return true;
      });
      if (allowedBy !== '') return { decision: 'allow', reason: `RBAC: allowed by ${allowedBy}` };
      if (errors === undefined) return NO_OPINION;
      return { decision: 'no-opinion', reason: `RBAC: ${aggregateMessage(errors)}` };
    },
  };
}
