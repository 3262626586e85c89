/**
 * Which served versions are deprecated, and what a request to one is told (spec 1, "Signals on
 * deprecated REST endpoints"): the `Warning` header text, and the release that removes the version (the
 * `removed_release` label of `apiserver_requested_deprecated_apis` and kube's `<domain>/removed-release`
 * audit annotation; '' when unknown).
 *
 * - A custom resource version marked `deprecated`: its `deprecationWarning` (KindStrategy, from the CRD);
 *   no removal release (kube sets none for CRDs).
 * - A built-in version: Kubernetes' API lifecycle. A GA version (`v1`, `v2` ...) is never deprecated by
 *   age. A prerelease version (`v1beta1`, `v1alpha1` ...) is deprecated three minor releases after the one
 *   that introduced it and removed three after that (prerelease-lifecycle-gen's defaults), unless the table
 *   below names other releases. Every prerelease built-in the server can serve must be in
 *   `BUILTIN_LIFECYCLE` (a test enforces it), so a new beta kind states its lifecycle or the suite fails.
 *   With Kubernetes 1.32 none of the built-in versions served here is deprecated (networking
 *   v1beta1 IPAddress and ServiceCIDR came in 1.31: deprecated in 1.34), so today only CRD versions warn.
 *
 * The built-in Warning text is kube's: `<group>/<version> <Kind> is deprecated in v1.X+, unavailable in
 * v1.Y+; use <group>/<version> <Kind>` (the core group's version alone, no leading slash).
 */
import type { Naming } from '../../naming/naming.js';
import type { KindStrategy } from '../../registry/kind-strategy.js';
import type { ServedResource } from '../../registry/served-resources.js';

/** The release the server behaves as (kube's API lifecycle is judged against it). */
export const CURRENT_RELEASE: Release = [1, 32];

export type Release = readonly [major: number, minor: number];

export interface Deprecation {
  /** The `Warning: 299` text. */
  readonly warning: string;
  /** `<major>.<minor>` of the release that stops serving the version; '' when unknown. */
  readonly removedRelease: string;
}

export interface GroupVersionKind {
  /** The resolved group ('' for core). */
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

export interface Lifecycle {
  /** The release that introduced the version. */
  readonly introduced: Release;
  /** Default: three minor releases after `introduced`. */
  readonly deprecated?: Release;
  /** Default: three minor releases after `deprecated`. */
  readonly removed?: Release;
  /** The kind to move to, named in the warning; its group is a prefix resolved like the kind's. */
  readonly replacement?: { readonly groupPrefix?: string; readonly group?: string; readonly version: string; readonly kind: string };
}

/**
 * The lifecycle of every prerelease built-in version, keyed `<groupPrefix or group>/<version>/<Kind>` (the
 * group before `--group-domain` resolves it, so the table holds under both domains).
 */
export const BUILTIN_LIFECYCLE: Readonly<Record<string, Lifecycle>> = Object.freeze({
  'networking/v1beta1/IPAddress': { introduced: [1, 31] },
  'networking/v1beta1/ServiceCIDR': { introduced: [1, 31] },
});

/** Whether `version` is a prerelease (alpha or beta) version name. */
export function isPrerelease(version: string): boolean {
  return /^v\d+(alpha|beta)\d+$/.test(version);
}

/** The table key of a built-in kind. */
export function lifecycleKey(strategy: Pick<KindStrategy, 'group' | 'groupPrefix' | 'version' | 'kind'>): string {
  return `${strategy.groupPrefix ?? strategy.group}/${strategy.version}/${strategy.kind}`;
}

const plusMinors = ([major, minor]: Release, n: number): Release => [major, minor + n];
const atLeast = (a: Release, b: Release): boolean => a[0] > b[0] || (a[0] === b[0] && a[1] >= b[1]);
const releaseText = ([major, minor]: Release): string => `${major}.${minor}`;

/** The releases that deprecate and remove a version with `lifecycle`. */
export function lifecycleReleases(lifecycle: Lifecycle): { deprecated: Release; removed: Release } {
  const deprecated = lifecycle.deprecated ?? plusMinors(lifecycle.introduced, 3);
  return { deprecated, removed: lifecycle.removed ?? plusMinors(deprecated, 3) };
}

/** `group/version` as Kubernetes prints a GroupVersion (`v1` for the core group). */
const groupVersion = (group: string, version: string): string => (group === '' ? version : `${group}/${version}`);

/**
 * Kube's warning for a deprecated built-in version: `<gv> <Kind> is deprecated in v<X>+`, then
 * `, unavailable in v<Y>+` when a removal release is known, then `; use <gv> <Kind>` when a replacement is.
 */
export function builtinDeprecationWarning(gvk: GroupVersionKind, deprecated: Release, removed?: Release, replacement?: GroupVersionKind): string {
  let text = `${groupVersion(gvk.group, gvk.version)} ${gvk.kind} is deprecated in v${releaseText(deprecated)}+`;
  if (removed !== undefined) text += `, unavailable in v${releaseText(removed)}+`;
  if (replacement !== undefined) text += `; use ${groupVersion(replacement.group, replacement.version)} ${replacement.kind}`;
  return text;
}

/**
 * The deprecation of a built-in kind at `release`, undefined when it is not deprecated. `resolveGroup`
 * turns a group prefix into the served group (Naming.group). Throws for a prerelease version missing from
 * `table` (the lifecycle must be stated).
 */
export function builtinDeprecation(
  strategy: Pick<KindStrategy, 'group' | 'groupPrefix' | 'version' | 'kind'>,
  group: string,
  resolveGroup: (prefix: string) => string,
  release: Release = CURRENT_RELEASE,
  table: Readonly<Record<string, Lifecycle>> = BUILTIN_LIFECYCLE,
): Deprecation | undefined {
  if (!isPrerelease(strategy.version)) return undefined;
  const lifecycle = table[lifecycleKey(strategy)];
  if (lifecycle === undefined) throw new Error(`no API lifecycle for the prerelease built-in ${lifecycleKey(strategy)} (deprecation.ts BUILTIN_LIFECYCLE)`);
  const { deprecated, removed } = lifecycleReleases(lifecycle);
  if (!atLeast(release, deprecated)) return undefined;
  const r = lifecycle.replacement;
  const replacement = r === undefined ? undefined : { group: r.groupPrefix !== undefined ? resolveGroup(r.groupPrefix) : (r.group ?? ''), version: r.version, kind: r.kind };
  return {
    warning: builtinDeprecationWarning({ group, version: strategy.version, kind: strategy.kind }, deprecated, removed, replacement),
    removedRelease: releaseText(removed),
  };
}

const cache = new WeakMap<KindStrategy, Deprecation | null>();

/**
 * The deprecation of a served resource (memoized per kind strategy: one WeakMap read per request).
 * Custom resources (any set but the built-in one) carry theirs in `deprecationWarning`; `naming` resolves
 * a built-in replacement's group.
 */
export function deprecationOf(served: ServedResource, naming: Naming): Deprecation | undefined {
  const { strategy } = served;
  let d = cache.get(strategy);
  if (d === undefined) {
    if (strategy.deprecationWarning !== undefined) d = { warning: strategy.deprecationWarning, removedRelease: '' };
    else if (served.set !== '') d = null;
    else d = builtinDeprecation(strategy, served.group, (prefix) => naming.group(prefix)) ?? null;
    cache.set(strategy, d);
  }
  return d ?? undefined;
}
