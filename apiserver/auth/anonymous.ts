/**
 * Whether anonymous requests are possible at all, from `--anonymous-auth` and the `anonymous` member of
 * `--authentication-config` (kube 1.32's rules):
 * - both given (the flag explicitly, the member present): a start-up error naming both;
 * - the file's `anonymous`: used as is (`enabled`, and `conditions` = the only paths that accept
 *   anonymous requests, matched exactly against the request path);
 * - else the flag (default true), except that with the `AlwaysAllow` authorization mode the flag's
 *   anonymous access is turned off (kube logs "AnonymousAuth is not allowed with the AlwaysAllow
 *   authorizer" and resets it).
 *
 * This decides only whether a request without credentials may proceed as `system:anonymous`; the
 * authorizer then decides what it may do. An invalid credential is 401 whatever this says.
 */
import type { AuthenticationConfiguration } from './authentication-config.js';

export interface AnonymousSettings {
  readonly enabled: boolean;
  /** Exact request paths that accept anonymous requests; empty: all paths (when enabled). */
  readonly paths: readonly string[];
}

export const bothAnonymousSettingsMessage =
  'anonymous: Forbidden: --anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file';

export interface AnonymousInputs {
  /** `--anonymous-auth` as given; undefined when the flag was not on the command line. */
  readonly flag: boolean | undefined;
  /** The parsed `--authentication-config`, if any. */
  readonly file: AuthenticationConfiguration | undefined;
  /** `--authorization-mode` values, when known. */
  readonly authorizationModes?: readonly string[];
  /** Told when the flag's value is reset because of AlwaysAllow. */
  readonly onWarning?: (message: string) => void;
}

export class AnonymousConfigError extends Error {
  override readonly name = 'AnonymousConfigError';
}

export function resolveAnonymous(i: AnonymousInputs): AnonymousSettings {
  const fromFile = i.file?.anonymous;
  if (fromFile !== undefined) {
    if (i.flag !== undefined) throw new AnonymousConfigError(bothAnonymousSettingsMessage);
    return { enabled: fromFile.enabled, paths: fromFile.conditions.map((c) => c.path) };
  }
  let enabled = i.flag ?? true;
  if (enabled && (i.authorizationModes ?? []).includes('AlwaysAllow')) {
    i.onWarning?.('AnonymousAuth is not allowed with the AlwaysAllow authorizer. Resetting AnonymousAuth to false. You should use a different authorizer');
    enabled = false;
  }
  return { enabled, paths: [] };
}

/** The predicate on a request path: anonymous possible here. */
export function anonymousAllowed(s: AnonymousSettings): (path: string) => boolean {
  if (!s.enabled) return () => false;
  if (s.paths.length === 0) return () => true;
  const paths = new Set(s.paths);
  return (path) => paths.has(path);
}
