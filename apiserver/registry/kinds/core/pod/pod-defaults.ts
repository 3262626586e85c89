/**
 * The pod spec defaults a schema cannot state, applied after the schema defaults (pkg/apis/core/v1
 * defaults.go for pod templates):
 * - `imagePullPolicy`: Always when the image has the `latest` tag or no tag (and no digest), else
 *   IfNotPresent (also for references that do not parse, as upstream);
 * - a volume with no source gets `emptyDir: {}`; an image volume's `pullPolicy` is defaulted from its
 *   `reference` as a container's (Kubernetes does so with the ImageVolume feature, which this server
 *   treats as enabled);
 * - resource quantities are rounded up to milli precision and written in canonical form (`0.5` -> `500m`,
 *   `1024Mi` -> `1Gi`), as Kubernetes stores them; malformed ones are left for validation to report;
 * - the deprecated `serviceAccount` mirrors `serviceAccountName` (the latter wins; filled from the former).
 */
import { type JsonObject, arrayAt, isObject, objectAt, objectItems } from './json-values.js';
import { formatQuantity, parseQuantity, roundUp } from '../../shared/quantity.js';
import { VOLUME_SOURCES } from './volume-schema.js';

const REPOSITORY = /^(?:[a-zA-Z0-9.-]+(?::[0-9]+)?\/)?[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$/;
const TAG = /^[\w][\w.-]{0,127}$/;

/** The pull policy Kubernetes defaults for `image`. */
export function defaultPullPolicy(image: string): 'Always' | 'IfNotPresent' {
  const at = image.indexOf('@');
  const name = at < 0 ? image : image.slice(0, at);
  const hasDigest = at >= 0;
  const slash = name.lastIndexOf('/');
  const colon = name.lastIndexOf(':');
  const hasTag = colon > slash;
  const repo = hasTag ? name.slice(0, colon) : name;
  const tag = hasTag ? name.slice(colon + 1) : '';
  if (!REPOSITORY.test(repo) || (hasTag && !TAG.test(tag))) return 'IfNotPresent';
  if (tag === 'latest' || (!hasTag && !hasDigest)) return 'Always';
  return 'IfNotPresent';
}

function canonicalizeQuantities(map: JsonObject | undefined, milli: boolean): void {
  if (map === undefined) return;
  for (const [k, v] of Object.entries(map)) {
    const q = parseQuantity(v);
    if (q !== undefined) map[k] = formatQuantity(milli ? roundUp(q, -3) : q);
  }
}

function defaultContainer(c: JsonObject): void {
  if (typeof c.imagePullPolicy !== 'string' || c.imagePullPolicy === '') {
    c.imagePullPolicy = defaultPullPolicy(typeof c.image === 'string' ? c.image : '');
  }
  const resources = objectAt(c, 'resources');
  if (resources !== undefined) {
    canonicalizeQuantities(objectAt(resources, 'limits'), true);
    canonicalizeQuantities(objectAt(resources, 'requests'), true);
  }
}

function defaultVolume(v: JsonObject): void {
  if (!VOLUME_SOURCES.some((s) => v[s] !== undefined && v[s] !== null)) v.emptyDir = {};
  const image = objectAt(v, 'image');
  if (image !== undefined && (typeof image.pullPolicy !== 'string' || image.pullPolicy === '')) {
    image.pullPolicy = defaultPullPolicy(typeof image.reference === 'string' ? image.reference : '');
  }
  const emptyDir = objectAt(v, 'emptyDir');
  if (emptyDir !== undefined && emptyDir.sizeLimit !== undefined) {
    const q = parseQuantity(emptyDir.sizeLimit);
    if (q !== undefined) emptyDir.sizeLimit = formatQuantity(q);
  }
  const claimSpec = objectAt(objectAt(objectAt(v, 'ephemeral') ?? {}, 'volumeClaimTemplate') ?? {}, 'spec');
  const claimResources = claimSpec === undefined ? undefined : objectAt(claimSpec, 'resources');
  if (claimResources !== undefined) {
    canonicalizeQuantities(objectAt(claimResources, 'limits'), false);
    canonicalizeQuantities(objectAt(claimResources, 'requests'), false);
  }
}

/** Applies the hook defaults to a pod spec in place (after the schema defaults). */
export function defaultPodSpec(spec: unknown): void {
  if (!isObject(spec)) return;
  for (const list of ['containers', 'initContainers', 'ephemeralContainers'] as const) {
    for (const [, c] of objectItems(arrayAt(spec, list))) defaultContainer(c);
  }
  for (const [, v] of objectItems(arrayAt(spec, 'volumes'))) defaultVolume(v);
  canonicalizeQuantities(objectAt(spec, 'overhead'), true);
  const podResources = objectAt(spec, 'resources');
  if (podResources !== undefined) {
    canonicalizeQuantities(objectAt(podResources, 'limits'), true);
    canonicalizeQuantities(objectAt(podResources, 'requests'), true);
  }
  const sa = typeof spec.serviceAccountName === 'string' ? spec.serviceAccountName : '';
  const deprecated = typeof spec.serviceAccount === 'string' ? spec.serviceAccount : '';
  if (sa === '' && deprecated !== '') spec.serviceAccountName = deprecated;
  else if (sa !== '') spec.serviceAccount = sa;
}
