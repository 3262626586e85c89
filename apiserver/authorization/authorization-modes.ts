/**
 * `--authorization-mode`: the authorizers of the server, in the order given, behind the superuser group.
 *
 *   system:masters (always first, as kube-apiserver) -> each mode in order -> no opinion: forbidden
 *
 * Modes: `RBAC` (the default here, so a fresh server is secure), `AlwaysAllow`, `AlwaysDeny`, each at most
 * once. Kubernetes' other modes (`Node`, `ABAC`, `Webhook`) are refused at start-up.
 */
import { allowAllRules, denyAllRules, policyRulesResolver, unionRulesResolver, type RulesResolver } from './rules.js';
import type { Authorizer } from './authorizer.js';
import { unionAuthorizer } from './authorizer.js';
import { rbacAuthorizer } from './rbac-authorizer.js';
import type { RbacIndex } from './rbac-index.js';
import { alwaysAllow, alwaysDeny, privilegedGroups } from './simple-authorizers.js';

export const AUTHORIZATION_MODES = Object.freeze(['AlwaysAllow', 'AlwaysDeny', 'RBAC'] as const);
export type AuthorizationMode = (typeof AUTHORIZATION_MODES)[number];
export const DEFAULT_AUTHORIZATION_MODES: readonly AuthorizationMode[] = Object.freeze(['RBAC']);

/** Kubernetes modes this server does not implement (named in the refusal). */
const UNSUPPORTED = new Set(['Node', 'ABAC', 'Webhook']);

/**
 * Checks the flag's items: a message (Kubernetes' wording where it has one) for an empty list, an unknown
 * or unsupported mode, or a repeated one; undefined when valid.
 */
export function checkAuthorizationModes(modes: readonly string[]): string | undefined {
  if (modes.length === 0) return 'at least one authorization-mode must be passed';
  const seen = new Set<string>();
  for (const m of modes) {
    if (UNSUPPORTED.has(m)) return `authorization-mode ${JSON.stringify(m)} is not supported by this server (supported: ${AUTHORIZATION_MODES.join(', ')})`;
    if (!(AUTHORIZATION_MODES as readonly string[]).includes(m)) {
      return `authorization-mode ${JSON.stringify(m)} is not a valid mode (valid: ${AUTHORIZATION_MODES.join(', ')})`;
    }
    seen.add(m);
  }
  if (seen.size !== modes.length) return `authorization-mode [${modes.map((m) => JSON.stringify(m)).join(' ')}] has mode specified more than once`;
  return undefined;
}

/** The server's authorizer for `modes` (checked); `rbac` is the index RBAC decides from. */
export function buildAuthorizer(modes: readonly AuthorizationMode[], rbac: RbacIndex | undefined): Authorizer {
  const authorizers: Authorizer[] = [privilegedGroups()];
  for (const m of modes) {
    if (m === 'AlwaysAllow') authorizers.push(alwaysAllow);
    else if (m === 'AlwaysDeny') authorizers.push(alwaysDeny);
    else if (rbac !== undefined) authorizers.push(rbacAuthorizer(rbac));
  }
  return unionAuthorizer(authorizers);
}


/** What SelfSubjectRulesReview lists for `modes`, in the same order as the authorizers. */
export function buildRulesResolver(modes: readonly AuthorizationMode[], rbac: RbacIndex | undefined): RulesResolver {
  const resolvers: RulesResolver[] = [];
  for (const m of modes) {
    if (m === 'AlwaysAllow') resolvers.push(allowAllRules);
    else if (m === 'AlwaysDeny') resolvers.push(denyAllRules);
    else if (rbac !== undefined) resolvers.push(policyRulesResolver(rbac));
  }
  return resolvers.length === 1 ? resolvers[0]! : unionRulesResolver(resolvers);
}
