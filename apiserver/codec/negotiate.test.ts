import { naming } from '../naming/naming.js';
import { parseAccept, parseMediaType } from './media-type.js';
import {
  discoveryConversions,
  JSON_OFFER,
  mediaOffer,
  negotiateResponse,
  notAcceptableError,
  OBJECT_OFFERS,
  objectOffers,
  resourceConversions,
  responseContentType,
  YAML_OFFER,
} from './negotiate.js';

const n = naming('platform.io');
const res = resourceConversions(n);
const PROTO = mediaOffer('application/vnd.platform.protobuf');

describe('parseMediaType / parseAccept', () => {
  it('lower-cases type and parameter names, keeps values, unquotes', () => {
    expect(parseMediaType('Application/JSON; Charset="utf-8"; as=Table')).toEqual({
      type: 'application',
      subtype: 'json',
      params: { charset: 'utf-8', as: 'Table' },
    });
    expect(parseMediaType('')).toBeUndefined();
    expect(parseMediaType('json')).toBeUndefined();
    expect(parseMediaType('a/b/c')).toBeUndefined();
    expect(parseMediaType('*')).toEqual({ type: '*', subtype: '*', params: {} });
  });

  it('orders by q, then specificity, then position; drops q=0 and bad q', () => {
    const order = parseAccept('*/*;q=0.5, text/*, application/json;q=0, text/plain, application/yaml;q=0.9, a/b;q=x, c/d;q=1.5')
      .map((c) => `${c.type}/${c.subtype}@${c.q}`);
    expect(order).toEqual(['text/plain@1', 'text/*@1', 'application/yaml@0.9', '*/*@0.5']);
  });

  it('keeps commas inside quoted parameters', () => {
    expect(parseAccept('a/b;x="1,2", c/d').map((c) => c.params)).toEqual([{ x: '1,2' }, {}]);
  });
});

describe('negotiateResponse', () => {
  it('defaults to the first offer without an Accept header', () => {
    expect(negotiateResponse(undefined, OBJECT_OFFERS)).toEqual({ offer: JSON_OFFER, params: {}, pretty: false });
    expect(negotiateResponse('  ', [YAML_OFFER, JSON_OFFER])?.offer).toBe(YAML_OFFER);
  });

  it.each([
    ['application/json', 'application/json'],
    ['application/yaml', 'application/yaml'],
    ['APPLICATION/YAML', 'application/yaml'],
    ['application/*', 'application/json'],
    ['*/*', 'application/json'],
    ['text/html, */*;q=0.1', 'application/json'],
    ['application/json;q=0.5, application/yaml', 'application/yaml'],
    ['application/vnd.platform.protobuf, application/json', 'application/json'],
    ['application/json; charset=utf-8', 'application/json'],
    ['application/yaml;q=0, */*', 'application/json'],
  ])('%s -> %s', (accept, want) => {
    expect(negotiateResponse(accept, OBJECT_OFFERS, res)?.offer.mediaType).toBe(want);
  });

  it.each([['text/html'], ['application/yaml;q=0'], ['*/*;q=0'], ['application/xml, text/*'], ['garbage']])('%s is not acceptable', (accept) => {
    expect(negotiateResponse(accept, OBJECT_OFFERS, res)).toBeUndefined();
  });

  it('recognises the kubectl Table request under both meta groups', () => {
    const kubectl = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
    const got = negotiateResponse(kubectl, OBJECT_OFFERS, res);
    expect(got?.target).toEqual({ kind: 'Table', group: 'meta.k8s.io', version: 'v1' });
    expect(got?.offer).toBe(JSON_OFFER);
    expect(responseContentType(got!)).toBe('application/json;g=meta.k8s.io;v=v1;as=Table');
    expect(negotiateResponse('application/json;as=Table;v=v1;g=meta.platform.io', OBJECT_OFFERS, res)?.target?.group).toBe('meta.platform.io');
    expect(negotiateResponse('application/yaml;as=Table;v=v1beta1;g=meta.k8s.io', OBJECT_OFFERS, res)?.target?.version).toBe('v1beta1');
  });

  it('skips conversion clauses the endpoint cannot serve and falls back', () => {
    const kubectl = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
    const plain = negotiateResponse(kubectl, OBJECT_OFFERS, resourceConversions(n, false));
    expect(plain?.target).toBeUndefined();
    expect(plain?.offer).toBe(JSON_OFFER);
    expect(negotiateResponse(kubectl, OBJECT_OFFERS)?.target).toBeUndefined();
    // Without a fallback clause nothing fits.
    expect(negotiateResponse('application/json;as=Table;v=v1;g=meta.k8s.io', OBJECT_OFFERS, resourceConversions(n, false))).toBeUndefined();
    // Wrong group, version or missing parts.
    for (const bad of ['as=Table;v=v1;g=meta.example.com', 'as=Table;v=v2;g=meta.k8s.io', 'as=Table', 'as=Pod;v=v1;g=meta.k8s.io', 'g=meta.k8s.io;v=v1']) {
      expect(negotiateResponse(`application/json;${bad}`, OBJECT_OFFERS, res)).toBeUndefined();
    }
    // Tables are JSON or YAML only; PartialObjectMetadata goes in any offer.
    expect(negotiateResponse('application/vnd.platform.protobuf;as=Table;v=v1;g=meta.k8s.io', [PROTO], res)).toBeUndefined();
    expect(negotiateResponse('application/vnd.platform.protobuf;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io', [PROTO], res)?.target?.kind).toBe(
      'PartialObjectMetadataList',
    );
    expect(negotiateResponse('*/*;as=PartialObjectMetadata;v=v1;g=meta.k8s.io', OBJECT_OFFERS, res)?.offer).toBe(JSON_OFFER);
  });

  it('serves aggregated discovery with the exact content type kubectl requires', () => {
    const accept =
      'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';
    const got = negotiateResponse(accept, [JSON_OFFER], discoveryConversions(n));
    expect(responseContentType(got!)).toBe('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
    const old = negotiateResponse('application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json', [JSON_OFFER], discoveryConversions(n));
    expect(old?.target?.version).toBe('v2beta1');
    expect(negotiateResponse('application/json', [JSON_OFFER], discoveryConversions(n))?.target).toBeUndefined();
  });

  it('reads pretty=1 from the clause', () => {
    expect(negotiateResponse('application/json;pretty=1', OBJECT_OFFERS)?.pretty).toBe(true);
    expect(negotiateResponse('application/json;pretty=0', OBJECT_OFFERS)?.pretty).toBe(false);
  });

  it('builds the 406', () => {
    const e = notAcceptableError(OBJECT_OFFERS);
    expect(e.code).toBe(406);
    expect(e.message).toBe('only the following media types are accepted: application/json, application/yaml');
  });
});

describe('objectOffers', () => {
  const pb = 'application/vnd.kubernetes.protobuf';
  it('kinds with field numbers answer protobuf under both names; kinds without (custom resources) fall back or 406', () => {
    const withPb = objectOffers(n, true);
    expect(withPb.map((o) => o.mediaType)).toEqual(['application/json', 'application/yaml', pb, 'application/vnd.platform.protobuf']);
    expect(negotiateResponse(`${pb},application/json`, withPb)?.offer.mediaType).toBe(pb);
    expect(negotiateResponse('application/vnd.platform.protobuf', withPb)?.offer.mediaType).toBe('application/vnd.platform.protobuf');
    const without = objectOffers(n, false);
    expect(negotiateResponse(`${pb},application/json`, without)?.offer.mediaType).toBe('application/json');
    expect(negotiateResponse(pb, without)).toBeUndefined();
    // k8s.io mode: the domain's name is the Kubernetes one, offered once; CBOR only with its gate.
    expect(objectOffers(naming('k8s.io'), true, true).map((o) => o.mediaType)).toEqual(['application/json', 'application/yaml', pb, 'application/cbor']);
    expect(objectOffers(n, true)).toBe(withPb);
  });
});
