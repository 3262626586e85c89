/**
 * `--runtime-config`: which built-in group versions and resources are served (spec 1 "Versioning";
 * kube-apiserver's resourceconfig). The flag is a comma-separated list of `<key>[=<value>]`; an omitted
 * value means `true`; values follow Go's ParseBool.
 *
 * Keys:
 * - `api/all`, `api/ga`, `api/beta`, `api/alpha`: every version of that level (`v1`, `v2beta1`, `v1alpha3`).
 *   Applied in that order, so `api/all=false,api/ga=true` serves only stable versions.
 * - `<group>/<version>`: one group version; wins over the level keys. The core group is written `v1`,
 *   `/v1` or `api/v1` (`api/legacy` is an alias).
 * - `<group>/<version>/<resource>`: one resource (lower-case plural); wins over everything. The core group's
 *   resources are written `v1/<resource>`, `/v1/<resource>` or `api/v1/<resource>`.
 *
 * Defaults: stable versions on, beta and alpha off. A beta version that Kubernetes introduced before 1.22
 * (and therefore serves by default) is declared through `betaOnByDefault`.
 *
 * Only built-in kinds follow this: custom resources are served as their definitions say.
 */
import { FlagError } from './flag-error.js';

export type VersionLevel = 'ga' | 'beta' | 'alpha' | 'other';

const gaPattern = /^v\d+$/;
const betaPattern = /^v\d+beta\d+$/;
const alphaPattern = /^v\d+alpha\d+$/;
const versionPattern = /^v\d+(?:(?:alpha|beta)\d+)?$/;
const resourcePattern = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/** The stability level of a version string; `other` for names outside Kubernetes' version scheme. */
export function versionLevel(version: string): VersionLevel {
  if (gaPattern.test(version)) return 'ga';
  if (betaPattern.test(version)) return 'beta';
  if (alphaPattern.test(version)) return 'alpha';
  return 'other';
}

export interface RuntimeConfig {
  /**
   * Whether `group`/`version` (core group: `''`) is served; with `resource`, whether that resource is.
   * A resource setting wins over its version's; a version is "on" for discovery when at least one of its
   * resources is (discovery filters per resource).
   */
  enabled(group: string, version: string, resource?: string): boolean;
  /** The keys the flag named, for `checkRuntimeConfig`. */
  readonly entries: readonly RuntimeConfigEntry[];
}

export interface RuntimeConfigEntry {
  /** The key as written. */
  readonly key: string;
  readonly enabled: boolean;
  /** `level` for api/all|ga|beta|alpha. */
  readonly scope: 'level' | 'version' | 'resource';
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

export interface RuntimeConfigOptions {
  /** Beta versions served by default (Kubernetes: those introduced before 1.22). Default: none. */
  readonly betaOnByDefault?: (group: string, version: string) => boolean;
}

const levelKeys: Readonly<Record<string, (v: string) => boolean>> = {
  'api/all': () => true,
  'api/ga': (v) => gaPattern.test(v),
  'api/beta': (v) => betaPattern.test(v),
  'api/alpha': (v) => alphaPattern.test(v),
};
const levelOrder = ['api/all', 'api/ga', 'api/beta', 'api/alpha'] as const;

/** Go's strconv.ParseBool. */
function parseBool(text: string): boolean | undefined {
  switch (text) {
    case '1': case 't': case 'T': case 'TRUE': case 'true': case 'True':
      return true;
    case '0': case 'f': case 'F': case 'FALSE': case 'false': case 'False':
      return false;
    default:
      return undefined;
  }
}

function invalid(key: string, why: string): FlagError {
  return new FlagError(`invalid value for flag --runtime-config: key "${key}": ${why}`);
}

/** Splits a key into group, version, resource; the core group is `''`. */
function parseKey(key: string): { group: string; version: string; resource: string } {
  if (key === 'api/legacy' || key === 'v1') return { group: '', version: 'v1', resource: '' };
  const tokens = key.split('/');
  if (tokens.length < 2 || tokens.length > 3) {
    throw invalid(key, 'want api/all, api/ga, api/beta, api/alpha, <group>/<version> or <group>/<version>/<resource>');
  }
  // `v1/secrets`: a core resource (no group is named like a version).
  if (tokens.length === 2 && versionPattern.test(tokens[0]!) && !versionPattern.test(tokens[1]!)) tokens.unshift('');
  const [first, version, resource = ''] = tokens as [string, string, string?];
  const group = first === 'api' ? '' : first;
  if (!versionPattern.test(version) && !(group !== '' && /^[a-z0-9]+$/.test(version))) {
    throw invalid(key, `"${version}" is not an API version`);
  }
  if (resource !== '') {
    if (resource.toLowerCase() !== resource) {
      throw invalid(key, `group/version/resource and resource is always lowercase plural, not "${resource}"`);
    }
    if (!resourcePattern.test(resource)) throw invalid(key, `"${resource}" is not a resource name`);
  }
  if (group !== '' && !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(group)) throw invalid(key, `"${group}" is not an API group`);
  return { group, version, resource };
}

/**
 * Parses the flag's value (an empty string means no overrides). Throws a `FlagError` (exit 2) for an empty
 * key, a value that is not a boolean, a key of the wrong shape or a resource that is not lower-case.
 * Later duplicates of a key win, as with Go's map-backed flag.
 */
export function parseRuntimeConfig(value: string, options: RuntimeConfigOptions = {}): RuntimeConfig {
  const byKey = new Map<string, RuntimeConfigEntry>();
  for (const raw of value.split(',')) {
    const item = raw.trim();
    if (item === '') continue;
    const eq = item.indexOf('=');
    const key = (eq < 0 ? item : item.slice(0, eq)).trim();
    const text = eq < 0 ? '' : item.slice(eq + 1).trim();
    if (key === '') throw new FlagError(`invalid value for flag --runtime-config: "${item}" has no key`);
    const on = text === '' ? true : parseBool(text);
    if (on === undefined) throw invalid(key, `value "${text}" is not a boolean (true or false)`);
    if (key in levelKeys) {
      byKey.set(key, { key, enabled: on, scope: 'level', group: '', version: '', resource: '' });
      continue;
    }
    const { group, version, resource } = parseKey(key);
    byKey.set(key, { key, enabled: on, scope: resource === '' ? 'version' : 'resource', group, version, resource });
  }
  return build([...byKey.values()], options);
}

function build(entries: readonly RuntimeConfigEntry[], options: RuntimeConfigOptions): RuntimeConfig {
  const levels = levelOrder.flatMap((k) => entries.filter((e) => e.key === k)).map((e) => ({ matches: levelKeys[e.key]!, on: e.enabled }));
  const versions = new Map<string, boolean>();
  const resources = new Map<string, boolean>();
  for (const e of entries) {
    if (e.scope === 'version') versions.set(`${e.group}/${e.version}`, e.enabled);
    else if (e.scope === 'resource') resources.set(`${e.group}/${e.version}/${e.resource}`, e.enabled);
  }
  const betaOn = options.betaOnByDefault ?? (() => false);

  const versionEnabled = (group: string, version: string): boolean => {
    const explicit = versions.get(`${group}/${version}`);
    if (explicit !== undefined) return explicit;
    let on: boolean;
    switch (versionLevel(version)) {
      case 'beta': on = betaOn(group, version); break;
      case 'alpha': on = false; break;
      default: on = true;
    }
    for (const l of levels) if (l.matches(version)) on = l.on;
    return on;
  };

  return Object.freeze({
    entries,
    enabled(group: string, version: string, resource?: string): boolean {
      if (resource !== undefined && resources.size > 0) {
        const explicit = resources.get(`${group}/${version}/${resource}`);
        if (explicit !== undefined) return explicit;
      }
      return versionEnabled(group, version);
    },
  });
}

/** The configuration of an absent flag: stable on, beta and alpha off. */
export const defaultRuntimeConfig: RuntimeConfig = parseRuntimeConfig('');

/**
 * Checks the keys against what the server has, as kube-apiserver does: a key naming a known group with a
 * version that group does not have is an error (message returned; the caller exits 2); keys of unknown
 * groups are ignored (they may belong to a later release). `known` lists the built-in group versions.
 */
export function checkRuntimeConfig(
  config: RuntimeConfig,
  known: readonly { readonly group: string; readonly version: string }[],
): string | undefined {
  const groups = new Set(known.map((k) => k.group));
  const gvs = new Set(known.map((k) => `${k.group}/${k.version}`));
  for (const e of config.entries) {
    if (e.scope === 'level' || !groups.has(e.group)) continue;
    if (!gvs.has(`${e.group}/${e.version}`)) {
      const gv = e.group === '' ? e.version : `${e.group}/${e.version}`;
      return `invalid value for flag --runtime-config: key "${e.key}": group version ${gv} that has not been registered`;
    }
  }
  return undefined;
}
