/**
 * Reloading `--authentication-config` while the server runs, as kube-apiserver 1.32 does
 * (pkg/kubeapiserver/options/authentication.go): the file is followed (watched-file.ts: a watch on its
 * directory, so a rename-replace is seen, and a re-read every minute) and each new content goes through:
 *
 * 1. a read error: logged ("failed to read authentication config file"), tried again later;
 * 2. the same text as the last one handled: nothing;
 * 3. a file that does not decode or validate (parseAuthenticationConfig): logged ("failed to load
 *    authentication config"), the configuration in use stays;
 * 4. an `anonymous` section that differs from the one the server started with (present or absent,
 *    `enabled`, `conditions` and their order): refused as kube refuses it, `anonymous: Forbidden: changed
 *    from initial configuration file` ("failed to validate authentication config"): anonymous access
 *    only changes with a restart, so `--anonymous-auth` vs file conflicts stay a start-up question;
 * 5. else the new configuration is in use (`current()`, `onReloaded`) and "reloaded authentication
 *    config" is logged.
 * Content refused at 3 or 4 is not retried until the file changes again (kube's tracker).
 *
 * This server acts on nothing in the file but `anonymous` (jwt authenticators are refused by the parser),
 * so a reload that passes changes no behaviour yet; the checks still run, so a broken edit is reported
 * at once rather than at the next restart.
 */
import type { FeatureGates } from '../features/feature-gates.js';
import type { Naming } from '../naming/naming.js';
import { parseAuthenticationConfig, type AnonymousAuthConfig, type AuthenticationConfiguration } from './authentication-config.js';
import { watchFile } from './watched-file.js';

export const anonymousChangedMessage = 'anonymous: Forbidden: changed from initial configuration file';

/** What the reloader logs; the server's logger fits. */
export interface ReloadLog {
  info(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export interface AuthenticationConfigReloadOptions {
  readonly file: string;
  /** The text and configuration the server started with. */
  readonly initialText: string;
  readonly initial: AuthenticationConfiguration;
  readonly naming: Naming;
  readonly features: FeatureGates;
  readonly log: ReloadLog;
  /** Told after a reload was accepted. */
  readonly onReloaded?: (config: AuthenticationConfiguration) => void;
  /** Default one minute (kube's). */
  readonly intervalMs?: number;
}

export interface ReloadingAuthenticationConfig {
  /** The configuration in use. */
  current(): AuthenticationConfiguration;
  /** Re-reads the file now (the watch and the timer do it otherwise). */
  check(): Promise<void>;
  stop(): void;
}

/** kube's reflect.DeepEqual of the decoded `anonymous` pointers. */
function sameAnonymous(a: AnonymousAuthConfig | undefined, b: AnonymousAuthConfig | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.enabled === b.enabled
    && a.conditions.length === b.conditions.length
    && a.conditions.every((c, i) => c.path === b.conditions[i]!.path);
}

export function followAuthenticationConfig(o: AuthenticationConfigReloadOptions): ReloadingAuthenticationConfig {
  let current = o.initial;
  const fields = { file: o.file };
  const watched = watchFile({
    file: o.file,
    initial: o.initialText,
    ...(o.intervalMs === undefined ? {} : { intervalMs: o.intervalMs }),
    onReadError: (err) => o.log.error({ ...fields, err: err.message }, 'failed to read authentication config file'),
    onContent: (text) => {
      let next: AuthenticationConfiguration;
      try {
        next = parseAuthenticationConfig(text, o.naming, o.features);
      } catch (err) {
        o.log.error({ ...fields, err: (err as Error).message }, 'failed to load authentication config');
        return;
      }
      if (!sameAnonymous(o.initial.anonymous, next.anonymous)) {
        o.log.error({ ...fields, err: anonymousChangedMessage }, 'failed to validate authentication config');
        return;
      }
      current = next;
      o.onReloaded?.(next);
      o.log.info(fields, 'reloaded authentication config');
    },
  });
  return { current: () => current, check: () => watched.check(), stop: () => watched.stop() };
}
