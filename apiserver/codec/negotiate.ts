/**
 * Response media type negotiation from the Accept header, with Kubernetes' conversion parameters
 * (`as=Table;v=v1;g=meta.k8s.io`, `as=PartialObjectMetadata(List)`, `as=APIGroupDiscoveryList;v=v2;
 * g=apidiscovery.k8s.io`) — upstream's `NegotiateMediaTypeOptions`: the clauses are tried in preference
 * order and the first one an offer and the endpoint both accept wins.
 */
import { notAcceptable } from '../errors/constructors.js';
import type { StatusError } from '../errors/status-error.js';
import type { Naming } from '../naming/naming.js';
import { parseAccept } from './media-type.js';

/** A representation an endpoint can produce. */
export interface MediaOffer {
  /** The Content-Type without parameters: `application/json`. */
  readonly mediaType: string;
  readonly type: string;
  readonly subtype: string;
}

export function mediaOffer(mediaType: string): MediaOffer {
  const [type = '', subtype = ''] = mediaType.split('/');
  return Object.freeze({ mediaType, type, subtype });
}

export const JSON_OFFER = mediaOffer('application/json');
export const YAML_OFFER = mediaOffer('application/yaml');
/** What resource endpoints answer in, JSON first (the default when Accept is absent). */
export const OBJECT_OFFERS: readonly MediaOffer[] = Object.freeze([JSON_OFFER, YAML_OFFER]);
/** kubectl and client-go ask for protobuf under this name whatever the group domain. */
export const KUBERNETES_PROTOBUF = 'application/vnd.kubernetes.protobuf';
export const CBOR_OFFER = mediaOffer('application/cbor');

/** Whether an offer is CBOR. */
export const isCbor = (offer: MediaOffer): boolean => offer === CBOR_OFFER;

/** Whether an offer is protobuf (under either name). */
export const isProtobuf = (offer: MediaOffer): boolean => offer.type === 'application' && offer.subtype.endsWith('.protobuf');

const offerSets = new Map<string, readonly MediaOffer[]>();

/**
 * What a resource endpoint answers in, in Kubernetes' order: JSON, YAML, then protobuf under both
 * `application/vnd.kubernetes.protobuf` and the domain's own name (kinds with field numbers only), then
 * CBOR (with the CBORServingAndStorage gate). The response carries the name the client asked for.
 */
export function objectOffers(naming: Naming, protobuf: boolean, cbor = false): readonly MediaOffer[] {
  const key = `${protobuf ? naming.protobufMediaType : ''}|${cbor}`;
  let offers = offerSets.get(key);
  if (offers === undefined) {
    const list = [JSON_OFFER, YAML_OFFER];
    if (protobuf) {
      list.push(mediaOffer(KUBERNETES_PROTOBUF));
      if (naming.protobufMediaType !== KUBERNETES_PROTOBUF) list.push(mediaOffer(naming.protobufMediaType));
    }
    if (cbor) list.push(CBOR_OFFER);
    offerSets.set(key, (offers = Object.freeze(list)));
  }
  return offers;
}

/** The object a client asked the server to convert the response to (`as`, `g`, `v`). */
export interface ConversionTarget {
  /** `Table`, `PartialObjectMetadata`, `PartialObjectMetadataList`, `APIGroupDiscoveryList`; may be ''. */
  readonly kind: string;
  readonly group: string;
  readonly version: string;
}

/** Whether an endpoint can serve `target` in `offer`. Clauses it refuses are skipped, not failed. */
export type ConversionPolicy = (target: ConversionTarget, offer: MediaOffer) => boolean;

/** Endpoints that serve only their own objects: any `as`/`g`/`v` clause is skipped. */
export const noConversions: ConversionPolicy = () => false;

/** `meta.k8s.io` (what kubectl hard-codes) or `meta.<domain>`. */
export function isMetaGroup(group: string, naming: Naming): boolean {
  return group === 'meta.k8s.io' || group === `meta.${naming.domain}`;
}

/**
 * Resource endpoints (get, list, watch): `Table` in v1 or v1beta1 of the meta group, JSON or YAML only,
 * when `table` is true (upstream: the resource has a table convertor); `PartialObjectMetadata` and
 * `PartialObjectMetadataList` in any offered media type.
 */
export function resourceConversions(naming: Naming, table = true): ConversionPolicy {
  return (t, offer) => {
    if (!isMetaGroup(t.group, naming) || (t.version !== 'v1' && t.version !== 'v1beta1')) return false;
    if (t.kind === 'Table') return table && offer.type === 'application' && (offer.subtype === 'json' || offer.subtype === 'yaml');
    return t.kind === 'PartialObjectMetadata' || t.kind === 'PartialObjectMetadataList';
  };
}

/** `/api` and `/apis`: the aggregated discovery document, v2 or v2beta1, as JSON. */
export function discoveryConversions(naming: Naming): ConversionPolicy {
  return (t, offer) =>
    t.kind === 'APIGroupDiscoveryList' &&
    (t.group === 'apidiscovery.k8s.io' || t.group === `apidiscovery.${naming.domain}`) &&
    (t.version === 'v2' || t.version === 'v2beta1') &&
    offer.mediaType === 'application/json';
}

export interface Negotiated {
  readonly offer: MediaOffer;
  /** The chosen clause's parameters (names lower-case, `q` removed). */
  readonly params: Readonly<Record<string, string>>;
  /** Set when the clause asked for a conversion the endpoint accepted. */
  readonly target?: ConversionTarget;
  /** `pretty=1` in the clause. */
  readonly pretty: boolean;
}

/**
 * Picks the response representation.
 *
 * - No Accept header (or a blank one): the first offer, no parameters.
 * - Otherwise clauses are tried by preference (`q`, then specificity, then order; `q=0` clauses never
 *   match); a clause matches an offer with the same type/subtype, `type/*`, or `*\/*`, tried in offer
 *   order. A clause carrying `as`, `g` or `v` matches only when `conversions` accepts the target for that
 *   offer; otherwise the next offer or clause is tried (so `...;as=Table..., application/json` falls back to
 *   plain JSON where tables are not served). Unknown parameters (`charset`, `stream`) are ignored.
 * - Undefined when nothing matches: answer `notAcceptableError(offers)` (406).
 */
export function negotiateResponse(
  accept: string | undefined,
  offers: readonly MediaOffer[],
  conversions: ConversionPolicy = noConversions,
): Negotiated | undefined {
  if (offers.length === 0) return undefined;
  if (accept === undefined || accept.trim() === '') return { offer: offers[0]!, params: {}, pretty: false };
  for (const clause of parseAccept(accept)) {
    for (const offer of offers) {
      const fits =
        (clause.type === '*' && clause.subtype === '*') ||
        (clause.type === offer.type && (clause.subtype === '*' || clause.subtype === offer.subtype));
      if (!fits) continue;
      const p = clause.params;
      const pretty = p.pretty === '1';
      if (p.as === undefined && p.g === undefined && p.v === undefined) return { offer, params: p, pretty };
      const target: ConversionTarget = { kind: p.as ?? '', group: p.g ?? '', version: p.v ?? '' };
      if (conversions(target, offer)) return { offer, params: p, target, pretty };
    }
  }
  return undefined;
}

/**
 * The Content-Type of a negotiated response: the offer's media type, plus `;g=..;v=..;as=..` for a
 * conversion (exactly the form kubectl requires of aggregated discovery:
 * `application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList`).
 */
export function responseContentType(n: Negotiated): string {
  const t = n.target;
  return t === undefined ? n.offer.mediaType : `${n.offer.mediaType};g=${t.group};v=${t.version};as=${t.kind}`;
}

/** 406 `only the following media types are accepted: application/json, application/yaml`. */
export function notAcceptableError(offers: readonly MediaOffer[]): StatusError {
  return notAcceptable(offers.map((o) => o.mediaType));
}
