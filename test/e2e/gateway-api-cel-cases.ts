/**
 * Gateway API objects that its own CEL tests (kubernetes-sigs/gateway-api, `pkg/test/cel/httproute_test.go`,
 * `gateway_test.go`, `grpcroute_test.go`) create against a real kube-apiserver, rewritten here as plain
 * objects: the invalid ones with the messages the v1.6.1 standard CRDs' `x-kubernetes-validations` give
 * (each `messages` entry is a rule's message verbatim, or the start of it as upstream matches it), and
 * valid edge cases that the same tests expect to be accepted.
 *
 * Upstream cases whose objects also fail a schema check that makes Kubernetes skip the CEL rules are kept
 * apart (`schemaBlockedCases`), with the answer Kubernetes 1.32 gives them. Upstream cases that do not hold
 * for the v1.6.1 standard channel are left out: the IP-address format checks of `spec.addresses` (a later
 * release's rule), and a TLS listener without `tls` (v1.6.1 requires `tls.mode` for protocol TLS).
 */

export interface CelCase {
  /** The upstream test case this mirrors (its description). */
  readonly upstream: string;
  /** The object, without metadata.name and namespace (the test names them). */
  readonly kind: 'HTTPRoute' | 'Gateway' | 'GRPCRoute';
  readonly spec: Record<string, unknown>;
  /** Every message the server must report for it; empty for a valid case. */
  readonly messages: readonly string[];
  /**
   * What server-side apply reports instead, where Kubernetes refuses the applied configuration before
   * validating it (duplicate keys of a map list cannot become a typed patch). `<name>` stands for the
   * object's namespace/name.
   */
  readonly serverSide?: readonly string[];
}

const backend = (name: string, port: number): Record<string, unknown> => ({ name, port });

const pathMatch = (type: string, value: string): Record<string, unknown> => ({ path: { type, value } });

/** An HTTPRoute of one rule: the upstream tests' shape for path matches. */
const routeWithPath = (type: string, value: string): Record<string, unknown> => ({
  rules: [{ matches: [pathMatch(type, value)], backendRefs: [backend('test', 8080)] }],
});

const prefixRewrite = (type: 'URLRewrite' | 'RequestRedirect', replacePrefixMatch: string): Record<string, unknown> => {
  const path = { type: 'ReplacePrefixMatch', replacePrefixMatch };
  return type === 'URLRewrite' ? { type, urlRewrite: { path } } : { type, requestRedirect: { path } };
};

const headerFilter = (type: 'RequestHeaderModifier' | 'ResponseHeaderModifier', op: 'set' | 'add', name: string, value: string): Record<string, unknown> => {
  const field = type === 'RequestHeaderModifier' ? 'requestHeaderModifier' : 'responseHeaderModifier';
  return { type, [field]: { [op]: [{ name, value }] } };
};

const NOT_CHECKED = '<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';
const PATH_CHARS = "must only contain valid characters (matching ^(?:[-A-Za-z0-9/._~!$&'()*+,;=:@]|[%][0-9a-fA-F]{2})+$) for types ['Exact', 'PathPrefix']";
const GRPC_SERVICE_CHARS = 'service must only contain valid characters (matching ^(?i)\\.?[a-z_][a-z_0-9]*(\\.[a-z_][a-z_0-9]*)*$)';
const GRPC_METHOD_CHARS = 'method must only contain valid characters (matching ^[A-Za-z_][A-Za-z_0-9]*$)';

const httpListener = (name: string, port: number, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ name, protocol: 'HTTP', port, ...extra });
const gateway = (listeners: readonly Record<string, unknown>[], extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  gatewayClassName: 'foo',
  listeners,
  ...extra,
});

const grpcFilterRule = (filter: Record<string, unknown>): Record<string, unknown> => ({ rules: [{ filters: [filter] }] });
const grpcMethodRule = (method: Record<string, unknown>): Record<string, unknown> => ({ rules: [{ matches: [{ method }] }] });

export const invalidCases: readonly CelCase[] = [
  // ---- HTTPRoute (httproute_test.go) ----
  {
    upstream: "TestHTTPPathMatch: invalid because path does not start with '/'",
    kind: 'HTTPRoute',
    spec: routeWithPath('PathPrefix', 'foo'),
    messages: ["value must be an absolute path and start with '/' when type one of ['Exact', 'PathPrefix']"],
  },
  {
    upstream: 'TestHTTPPathMatch: invalid httpRoute prefix (/.)',
    kind: 'HTTPRoute',
    spec: routeWithPath('PathPrefix', '/.'),
    messages: ["must not end with '/.' when type one of ['Exact', 'PathPrefix']"],
  },
  {
    upstream: 'TestHTTPPathMatch: invalid exact (/./)',
    kind: 'HTTPRoute',
    spec: routeWithPath('Exact', '/foo/./bar'),
    messages: ["must not contain '/./' when type one of ['Exact', 'PathPrefix']"],
  },
  {
    upstream: 'TestHTTPPathMatch: invalid exact path (/^)',
    kind: 'HTTPRoute',
    spec: routeWithPath('Exact', '/^'),
    messages: [PATH_CHARS],
  },
  {
    upstream: 'TestBackendObjectReference: default groupkind with no port',
    kind: 'HTTPRoute',
    spec: { rules: [{ backendRefs: [{ name: 'backend' }] }] },
    messages: ['Must have port for Service reference'],
  },
  {
    upstream: 'TestHTTPRouteFilter: invalid HTTPRouteFilterRequestHeaderModifier type filter with non-matching field',
    kind: 'HTTPRoute',
    spec: { rules: [{ filters: [{ type: 'RequestHeaderModifier', requestMirror: { backendRef: backend('mirror', 8080) } }] }] },
    messages: ['filter.requestHeaderModifier must be specified for RequestHeaderModifier filter.type', 'filter.requestMirror must be nil if the filter.type is not RequestMirror'],
  },
  {
    upstream: 'TestHTTPRouteFilter: invalid HTTPRouteFilterURLRewrite type filter with empty value field',
    kind: 'HTTPRoute',
    spec: { rules: [{ filters: [{ type: 'URLRewrite' }] }] },
    messages: ['filter.urlRewrite must be specified for URLRewrite filter.type'],
  },
  {
    upstream: 'TestHTTPRouteRule: backendref with request redirect httpRoute filter',
    kind: 'HTTPRoute',
    spec: { rules: [{ filters: [{ type: 'RequestRedirect', requestRedirect: { scheme: 'https', statusCode: 301 } }], backendRefs: [backend('test-service', 80)] }] },
    messages: ['RequestRedirect filter must not be used together with backendRefs'],
  },
  {
    upstream: 'TestHTTPRouteRule: invalid URLRewrite filter because too many path matches',
    kind: 'HTTPRoute',
    spec: { rules: [{ matches: [pathMatch('PathPrefix', '/foo'), pathMatch('PathPrefix', '/bar')], filters: [prefixRewrite('URLRewrite', 'foo')] }] },
    messages: ['When using URLRewrite filter with path.replacePrefixMatch, exactly one PathPrefix match must be specified'],
  },
  {
    upstream: 'TestHTTPRouteRule: invalid URLRewrite filter (within backendRefs) because too many path matches',
    kind: 'HTTPRoute',
    spec: {
      rules: [{
        matches: [pathMatch('PathPrefix', '/foo'), pathMatch('PathPrefix', '/bar')],
        backendRefs: [{ ...backend('test-service', 80), filters: [prefixRewrite('URLRewrite', 'foo')] }],
      }],
    },
    messages: ['Within backendRefs, When using URLRewrite filter with path.replacePrefixMatch, exactly one PathPrefix match must be specified'],
  },
  {
    upstream: 'TestHTTPRouteRule: invalid RequestRedirect filter (within backendRefs) because too many path matches',
    kind: 'HTTPRoute',
    spec: {
      rules: [{
        matches: [pathMatch('PathPrefix', '/foo'), pathMatch('PathPrefix', '/bar')],
        backendRefs: [{ ...backend('test-service', 80), filters: [prefixRewrite('RequestRedirect', 'foo')] }],
      }],
    },
    messages: ['Within backendRefs, when using RequestRedirect filter with path.replacePrefixMatch, exactly one PathPrefix match must be specified'],
  },
  {
    upstream: 'TestHTTPRouteRule: rewrite and redirect filters combined (invalid)',
    kind: 'HTTPRoute',
    spec: { rules: [{ filters: [prefixRewrite('URLRewrite', 'foo'), prefixRewrite('RequestRedirect', 'foo')] }] },
    messages: ['May specify either httpRouteFilterRequestRedirect or httpRouteFilterRequestRewrite, but not both'],
  },
  {
    upstream: 'TestHTTPRouteRule: invalid because repeated RequestHeaderModifier filter among mix of filters',
    kind: 'HTTPRoute',
    spec: {
      rules: [{
        matches: [pathMatch('PathPrefix', '/')],
        filters: [
          headerFilter('RequestHeaderModifier', 'set', 'special-header', 'foo'),
          { type: 'RequestMirror', requestMirror: { backendRef: backend('test-service', 8080) } },
          headerFilter('RequestHeaderModifier', 'add', 'my-header', 'bar'),
        ],
      }],
    },
    messages: ['RequestHeaderModifier filter cannot be repeated'],
  },
  {
    upstream: 'TestHTTPRouteRule: invalid because multiple filters are repeated',
    kind: 'HTTPRoute',
    spec: {
      rules: [{
        matches: [pathMatch('PathPrefix', '/')],
        filters: [
          headerFilter('ResponseHeaderModifier', 'set', 'special-header', 'foo'),
          headerFilter('ResponseHeaderModifier', 'add', 'my-header', 'bar'),
          { type: 'RequestRedirect', requestRedirect: { path: { type: 'ReplaceFullPath', replaceFullPath: 'foo' } } },
          { type: 'RequestRedirect', requestRedirect: { path: { type: 'ReplaceFullPath', replaceFullPath: 'bar' } } },
        ],
      }],
    },
    messages: ['ResponseHeaderModifier filter cannot be repeated', 'RequestRedirect filter cannot be repeated'],
  },
  {
    upstream: 'TestHTTPRouteRule: too many matches and rules (7 rules of 20 matches)',
    kind: 'HTTPRoute',
    spec: { rules: Array.from({ length: 7 }, () => ({ matches: Array.from({ length: 20 }, () => pathMatch('PathPrefix', '/')) })) },
    messages: ['the total number of matches across all rules in a route must be less than 128'],
  },
  {
    upstream: 'TestHTTPBackendRef: invalid because repeated URLRewrite filter within backendRefs',
    kind: 'HTTPRoute',
    spec: {
      rules: [{
        matches: [pathMatch('PathPrefix', '/')],
        backendRefs: [{ ...backend('test-service', 80), filters: [prefixRewrite('URLRewrite', 'foo'), prefixRewrite('URLRewrite', 'bar')] }],
      }],
    },
    messages: ['URLRewrite filter cannot be repeated'],
  },
  {
    upstream: "TestHTTPPathModifier: replaceFullPath must be specified when type is set to 'ReplaceFullPath'",
    kind: 'HTTPRoute',
    spec: { rules: [{ filters: [{ type: 'RequestRedirect', requestRedirect: { path: { type: 'ReplaceFullPath' } } }] }] },
    messages: ["replaceFullPath must be specified when type is set to 'ReplaceFullPath'"],
  },

  // ---- Gateway (gateway_test.go) ----
  {
    upstream: 'TestValidateGateway: tls config present with http protocol',
    kind: 'Gateway',
    spec: gateway([httpListener('http', 8080, { tls: {} })]),
    messages: ["tls must not be specified for protocols ['HTTP', 'TCP', 'UDP']"],
  },
  {
    upstream: 'TestValidateGateway: https protocol with Passthrough tls mode',
    kind: 'Gateway',
    spec: gateway([{ name: 'https', protocol: 'HTTPS', port: 8080, tls: { mode: 'Passthrough' } }]),
    messages: ['tls mode must be Terminate for protocol HTTPS'],
  },
  {
    upstream: 'TestValidateGateway: hostname present with udp protocol',
    kind: 'Gateway',
    spec: gateway([{ name: 'udp', protocol: 'UDP', port: 8080, hostname: 'foo' }]),
    messages: ["hostname must not be specified for protocols ['TCP', 'UDP']"],
  },
  {
    upstream: 'TestValidateGateway: certificateRefs not set with HTTPS protocol and TLS terminate mode',
    kind: 'Gateway',
    spec: gateway([{ name: 'https', protocol: 'HTTPS', port: 8443, tls: { mode: 'Terminate' } }]),
    messages: ['certificateRefs or options must be specified when mode is Terminate'],
  },
  {
    upstream: 'TestValidateGateway: names are not unique within the Gateway',
    kind: 'Gateway',
    spec: gateway([httpListener('http', 80), httpListener('http', 8000), httpListener('http', 8080)]),
    messages: ['Listener name must be unique within the Gateway'],
    serverSide: ['failed to create typed patch object (<name>; gateway.networking.k8s.io/v1, Kind=Gateway): .spec.listeners: duplicate entries for key [name="http"]'],
  },
  {
    upstream: 'TestValidateGateway: combination of port, protocol, and hostname are not unique for each listener',
    kind: 'Gateway',
    spec: gateway([httpListener('foo', 80, { hostname: 'foo.com' }), httpListener('bar', 80, { hostname: 'foo.com' })]),
    messages: ['Combination of port, protocol and hostname must be unique for each listener'],
  },
  {
    upstream: 'TestValidateGateway: duplicate ip address or hostname',
    kind: 'Gateway',
    spec: gateway([httpListener('http', 80)], {
      addresses: [
        { type: 'IPAddress', value: '1.2.3.4' },
        { type: 'IPAddress', value: '1.2.3.4' },
        { type: 'Hostname', value: 'foo.bar' },
        { type: 'Hostname', value: 'foo.bar' },
      ],
    }),
    messages: ['IPAddress values must be unique', 'Hostname values must be unique'],
  },

  // ---- GRPCRoute (grpcroute_test.go) ----
  {
    upstream: 'TestGRPCRouteFilter: invalid GRPCRouteFilterResponseHeaderModifier type filter with non-matching field',
    kind: 'GRPCRoute',
    spec: grpcFilterRule({ type: 'ResponseHeaderModifier', requestMirror: { backendRef: backend('mirror', 8080) } }),
    messages: ['filter.responseHeaderModifier must be specified for ResponseHeaderModifier filter.type', 'filter.requestMirror must be nil if the filter.type is not RequestMirror'],
  },
  {
    upstream: 'TestGRPCRouteFilter: invalid GRPCRouteFilterExtensionRef type filter with empty value field',
    kind: 'GRPCRoute',
    spec: grpcFilterRule({ type: 'ExtensionRef' }),
    messages: ['filter.extensionRef must be specified for ExtensionRef filter.type'],
  },
  {
    upstream: 'TestGRPCRouteRule: invalid because multiple filters are repeated',
    kind: 'GRPCRoute',
    spec: {
      rules: [{
        matches: [{ method: { type: 'Exact', service: 'helloworld.Greeter' } }],
        filters: [
          headerFilter('RequestHeaderModifier', 'set', 'special-header', 'foo'),
          headerFilter('RequestHeaderModifier', 'add', 'my-header', 'bar'),
          headerFilter('ResponseHeaderModifier', 'set', 'special-header', 'foo'),
          headerFilter('ResponseHeaderModifier', 'add', 'my-header', 'bar'),
        ],
      }],
    },
    messages: ['RequestHeaderModifier filter cannot be repeated', 'ResponseHeaderModifier filter cannot be repeated'],
  },
  {
    upstream: 'TestGRPCMethodMatch: invalid GRPCRoute missing service or method in GRPCMethodMatch field',
    kind: 'GRPCRoute',
    spec: grpcMethodRule({}),
    messages: ["One or both of 'service' or 'method' must be specified"],
  },
  {
    upstream: 'TestGRPCMethodMatch: GRPCRoute uses regex in service and method with match type Exact',
    kind: 'GRPCRoute',
    spec: grpcMethodRule({ type: 'Exact', service: '.*', method: '.*' }),
    messages: [GRPC_SERVICE_CHARS, GRPC_METHOD_CHARS],
  },
  {
    upstream: 'TestGRPCMethodMatch: GRPCRoute uses regex in method with undefined match type',
    kind: 'GRPCRoute',
    spec: grpcMethodRule({ method: '.*' }),
    messages: [GRPC_METHOD_CHARS],
  },
];

/**
 * Upstream invalid cases whose objects also break the schema with an error that makes Kubernetes (1.32)
 * skip the CEL rules (an enum value not supported, a required field missing): the answer is that schema
 * error and the "some validation rules were not checked" cause with its nil path, not the rule's message
 * the upstream test looks for (the rules never run).
 */
export const schemaBlockedCases: readonly CelCase[] = [
  {
    upstream: 'TestHTTPPathMatch: invalid type',
    kind: 'HTTPRoute',
    spec: routeWithPath('FooBar', '/path'),
    messages: ['spec.rules[0].matches[0].path.type: Unsupported value: "FooBar": supported values: "Exact", "PathPrefix", "RegularExpression"', NOT_CHECKED],
  },
  {
    upstream: 'TestHTTPRouteRule: invalid RequestRedirect filter because path match has type ReplaceFullPath',
    kind: 'HTTPRoute',
    spec: { rules: [{ matches: [pathMatch('ReplaceFullPath', '/foo')], filters: [prefixRewrite('RequestRedirect', 'foo')] }] },
    messages: ['spec.rules[0].matches[0].path.type: Unsupported value: "ReplaceFullPath": supported values: "Exact", "PathPrefix", "RegularExpression"', NOT_CHECKED],
  },
  {
    upstream: "TestHTTPPathModifier: type must be 'ReplacePrefixMatch' when replacePrefixMatch is set",
    kind: 'HTTPRoute',
    spec: { rules: [{ filters: [{ type: 'RequestRedirect', requestRedirect: { path: { replacePrefixMatch: '/foo' } } }] }] },
    messages: ['spec.rules[0].filters[0].requestRedirect.path.type: Required value', NOT_CHECKED],
  },
];

export const validCases: readonly CelCase[] = [
  {
    upstream: 'TestHTTPPathMatch: valid because type is RegularExpression but would not be valid for Exact',
    kind: 'HTTPRoute',
    spec: routeWithPath('RegularExpression', '/foo/./bar'),
    messages: [],
  },
  {
    upstream: 'TestHTTPPathMatch: valid path with some special characters',
    kind: 'HTTPRoute',
    spec: routeWithPath('Exact', "/abc/123'/a-b-c/d@gmail/%0A"),
    messages: [],
  },
  {
    upstream: 'TestBackendObjectReference: explicit ref with no port',
    kind: 'HTTPRoute',
    spec: { rules: [{ backendRefs: [{ group: 'foo.example.com', kind: 'Foo', name: 'backend' }] }] },
    messages: [],
  },
  {
    upstream: 'TestHTTPRouteRule: valid httpRoute with duplicate ExtensionRef filters',
    kind: 'HTTPRoute',
    spec: {
      rules: [{
        matches: [pathMatch('PathPrefix', '/')],
        filters: [
          headerFilter('RequestHeaderModifier', 'set', 'special-header', 'foo'),
          { type: 'RequestMirror', requestMirror: { backendRef: backend('test-service', 8080) } },
          { type: 'ExtensionRef', extensionRef: { group: '', kind: 'Service', name: 'test' } },
          { type: 'ExtensionRef', extensionRef: { group: '', kind: 'Service', name: 'test' } },
        ],
      }],
    },
    messages: [],
  },
  {
    upstream: 'TestHTTPRouteRule: many matches and few rules (2 rules of 48 matches)',
    kind: 'HTTPRoute',
    spec: { rules: Array.from({ length: 2 }, () => ({ matches: Array.from({ length: 48 }, () => pathMatch('PathPrefix', '/')) })) },
    messages: [],
  },
  {
    upstream: 'TestValidateGateway: protocol is unique when port and hostname are the same',
    kind: 'Gateway',
    spec: gateway([
      httpListener('foo', 8000, { hostname: 'foo.com' }),
      { name: 'bar', protocol: 'HTTPS', port: 8000, hostname: 'foo.com', tls: { certificateRefs: [{ name: 'foo' }] } },
    ]),
    messages: [],
  },
  {
    upstream: 'TestValidateGateway: one omitted hostname is unique when protocol and port are the same',
    kind: 'Gateway',
    spec: gateway([httpListener('foo', 80, { hostname: 'foo.com' }), httpListener('bar', 80)]),
    messages: [],
  },
  {
    upstream: 'TestGRPCMethodMatch: GRPCRoute uses regex in service and method with match type RegularExpression',
    kind: 'GRPCRoute',
    spec: grpcMethodRule({ type: 'RegularExpression', service: '.*', method: '.*' }),
    messages: [],
  },
  {
    upstream: 'TestGRPCMethodMatch: GRPCRoute uses a valid service with a leading dot when match type is Exact',
    kind: 'GRPCRoute',
    spec: grpcMethodRule({ type: 'Exact', service: '.foo.Test.Example' }),
    messages: [],
  },
];

/** The cases as objects named `<prefix>-<index>` in `namespace`. */
export function caseObjects(cases: readonly CelCase[], prefix: string, namespace: string, apiVersion = 'gateway.networking.k8s.io/v1'): Record<string, unknown>[] {
  return cases.map((c, i) => ({ apiVersion, kind: c.kind, metadata: { name: `${prefix}-${i}`, namespace }, spec: c.spec }));
}
