/**
 * `--authentication-config`: an `AuthenticationConfiguration` file (YAML or JSON) of group
 * `apiserver.config.<domain>` (`apiserver.config.k8s.io` under k8s.io), versions `v1alpha1` and
 * `v1beta1`, decoded strictly as kube-apiserver does (unknown or duplicate fields are errors).
 *
 * Only `anonymous` is acted on: `enabled` and `conditions` (a list of `{path}`; with conditions, only
 * those exact request paths accept anonymous requests). `jwt` authenticators are not supported by this
 * server: a file that configures any is refused rather than silently ignored.
 *
 * Errors are start-up errors with kube's wording where kube has one (`anonymous.conditions: Invalid
 * value: ...: enabled should be set to true when conditions are defined`). While the server runs the file
 * is re-read when it changes (authentication-config-reload.ts).
 */
import { readFile } from 'node:fs/promises';
import { parseDocument } from 'yaml';
import type { FeatureGates } from '../features/feature-gates.js';
import type { Naming } from '../naming/naming.js';
import { isObject } from '../api/json.js';

export interface AnonymousAuthConfig {
  readonly enabled: boolean;
  /** Paths that accept anonymous requests; empty: every path. */
  readonly conditions: readonly { readonly path: string }[];
}

export interface AuthenticationConfiguration {
  /** Present when the file has an `anonymous` member (it then excludes `--anonymous-auth`). */
  readonly anonymous?: AnonymousAuthConfig;
}

export class AuthenticationConfigError extends Error {
  override readonly name = 'AuthenticationConfigError';
}

function checkFields(obj: Record<string, unknown>, path: string, allowed: readonly string[], errs: string[]): void {
  for (const k of Object.keys(obj)) {
    if (!allowed.includes(k)) errs.push(`strict decoding error: unknown field "${path === '' ? k : `${path}.${k}`}"`);
  }
}

/** Parses and validates the file's text. */
export function parseAuthenticationConfig(text: string, naming: Naming, features: FeatureGates): AuthenticationConfiguration {
  if (text.trim() === '') throw new AuthenticationConfigError('empty config data');
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) throw new AuthenticationConfigError(doc.errors[0]!.message);
  const raw: unknown = doc.toJS();
  if (!isObject(raw)) throw new AuthenticationConfigError('expected an AuthenticationConfiguration object');

  const group = naming.group('apiserver.config');
  const versions = [`${group}/v1alpha1`, `${group}/v1beta1`];
  if (raw.kind !== 'AuthenticationConfiguration' || typeof raw.apiVersion !== 'string' || !versions.includes(raw.apiVersion)) {
    throw new AuthenticationConfigError(
      `expected kind AuthenticationConfiguration with apiVersion ${versions.join(' or ')}, got kind ${JSON.stringify(raw.kind ?? '')} apiVersion ${JSON.stringify(raw.apiVersion ?? '')}`,
    );
  }

  const errs: string[] = [];
  checkFields(raw, '', ['apiVersion', 'kind', 'jwt', 'anonymous'], errs);
  if (raw.jwt !== undefined && raw.jwt !== null && !(Array.isArray(raw.jwt) && raw.jwt.length === 0)) {
    errs.push('jwt: Unsupported value: JWT authenticators are not supported by this server');
  }

  let anonymous: AnonymousAuthConfig | undefined;
  if (raw.anonymous !== undefined && raw.anonymous !== null) {
    const a = raw.anonymous;
    if (!isObject(a)) {
      errs.push('anonymous: Invalid value: must be an object');
    } else {
      checkFields(a, 'anonymous', ['enabled', 'conditions'], errs);
      if (a.enabled !== undefined && typeof a.enabled !== 'boolean') errs.push('anonymous.enabled: Invalid value: must be a boolean');
      const conditions: { path: string }[] = [];
      if (a.conditions !== undefined && a.conditions !== null) {
        if (!Array.isArray(a.conditions)) {
          errs.push('anonymous.conditions: Invalid value: must be a list');
        } else {
          a.conditions.forEach((c: unknown, i) => {
            if (!isObject(c)) {
              errs.push(`anonymous.conditions[${i}]: Invalid value: must be an object`);
              return;
            }
            checkFields(c, `anonymous.conditions[${i}]`, ['path'], errs);
            if (c.path !== undefined && typeof c.path !== 'string') errs.push(`anonymous.conditions[${i}].path: Invalid value: must be a string`);
            conditions.push({ path: typeof c.path === 'string' ? c.path : '' });
          });
        }
      }
      const enabled = a.enabled === true;
      if (!features.enabled('AnonymousAuthConfigurableEndpoints')) {
        errs.push('anonymous: Forbidden: anonymous is not supported when AnonymousAuthConfigurableEndpoints feature gate is disabled');
      }
      if (!enabled && conditions.length > 0) {
        errs.push(`anonymous.conditions: Invalid value: ${JSON.stringify(conditions)}: enabled should be set to true when conditions are defined`);
      }
      anonymous = { enabled, conditions };
    }
  }
  if (errs.length > 0) throw new AuthenticationConfigError(`invalid authentication configuration: ${errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`}`);
  return anonymous === undefined ? {} : { anonymous };
}

/** Reads and parses `--authentication-config`; errors name the file as kube's do. */
export async function loadAuthenticationConfig(file: string, naming: Naming, features: FeatureGates): Promise<AuthenticationConfiguration> {
  return (await loadAuthenticationConfigFile(file, naming, features)).config;
}

/** `loadAuthenticationConfig` with the text it parsed (what a reload compares new content with). */
export async function loadAuthenticationConfigFile(
  file: string,
  naming: Naming,
  features: FeatureGates,
): Promise<{ readonly config: AuthenticationConfiguration; readonly text: string }> {
  if (!features.enabled('StructuredAuthenticationConfiguration')) {
    throw new AuthenticationConfigError('set --feature-gates=StructuredAuthenticationConfiguration=true to use authentication-config file');
  }
  try {
    const text = await readFile(file, 'utf8');
    return { config: parseAuthenticationConfig(text, naming, features), text };
  } catch (err) {
    throw new AuthenticationConfigError(`failed to load authentication configuration from file ${JSON.stringify(file)}: ${(err as Error).message}`);
  }
}
