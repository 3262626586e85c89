/**
 * The flag table: every command-line flag, as data. A new flag is one entry here plus one line where
 * `build-config.ts` reads it; `--help` and the parser follow from the table.
 *
 * Names follow kube-apiserver's where one exists. Defaults are written as the user would type them, and
 * go through the same parser as user input, so `--help` shows exactly what a flag defaults to.
 */
import { featureGateHelpLines } from '../features/feature-gates.js';
import { insecureCipherSuiteNames, preferredCipherSuiteNames } from '../tls/cipher-suites.js';
import { tlsVersionNames } from '../tls/tls-version.js';

export type FlagType =
  /** Free text. */
  | 'string'
  /** A base-10 integer. */
  | 'int'
  /** `--x`, `--x=true|false` (Go ParseBool spellings). */
  | 'bool'
  /** A Go duration: `30s`, `5m`, `1h30m`, `0`. */
  | 'duration'
  /** A comma-separated list; empty items are dropped. */
  | 'list'
  /** Repeatable; each occurrence is one item, commas included (pflag's StringArray, kube's NamedCertKeyArray). */
  | 'stringArray'
  /** One of `values`. */
  | 'enum';

export interface FlagSpec {
  readonly name: string;
  readonly type: FlagType;
  /** The default as typed on the command line; `''` means unset (no default). */
  readonly default: string;
  readonly help: string;
  /** Allowed values of an `enum` flag. */
  readonly values?: readonly string[];
  /** Placeholder shown in --help (`string`, `port`, `duration` ...). */
  readonly arg?: string;
  /** A `list` flag that may be repeated: each occurrence adds its items (pflag's map flags), not replaces. */
  readonly repeatable?: boolean;
}

export const flagTable: readonly FlagSpec[] = [
  // Serving
  { name: 'bind-address', type: 'string', default: '0.0.0.0', arg: 'ip',
    help: 'The IP address on which to listen for the --secure-port port.' },
  { name: 'secure-port', type: 'int', default: '6443', arg: 'port',
    help: 'The port on which to serve HTTPS with authentication. 0 picks a free port.' },
  { name: 'tls-cert-file', type: 'string', default: '', arg: 'path',
    help: 'PEM serving certificate (followed by any intermediates). Without it, a self-signed CA and a serving '
      + 'certificate are generated once into --data-dir and reused.' },
  { name: 'tls-private-key-file', type: 'string', default: '', arg: 'path',
    help: 'PEM private key matching --tls-cert-file.' },
  { name: 'tls-sans', type: 'list', default: '', arg: 'names',
    help: 'Extra subject alternative names (DNS names or IPs, comma-separated) for the generated serving '
      + 'certificate, besides localhost, 127.0.0.1, ::1 and the host name.' },
  { name: 'tls-min-version', type: 'string', default: 'VersionTLS12', arg: 'string',
    help: `Minimum TLS version supported. Possible values: ${tlsVersionNames.join(', ')}` },
  { name: 'tls-cipher-suites', type: 'list', default: '', arg: 'strings',
    help: 'Comma-separated list of cipher suites for the server (kube\'s Go names, mapped to OpenSSL\'s). If omitted, '
      + 'the default Go cipher suites will be used. TLS 1.3 suites are not configurable: all three are always offered. '
      + `Preferred values: ${preferredCipherSuiteNames().join(', ')}. Insecure values: ${insecureCipherSuiteNames().join(', ')}.` },
  { name: 'tls-sni-cert-key', type: 'stringArray', default: '', arg: 'cert,key[:names]',
    help: 'A pair of x509 certificate and private key file paths, optionally suffixed with a list of domain patterns '
      + '(fully qualified domain names, possibly with a prefixed wildcard segment, or IP addresses). Without patterns '
      + 'the names of the certificate are used. Non-wildcard matches trump wildcard matches, explicit patterns trump '
      + 'extracted names. Repeat the flag for several pairs. The files are reloaded when they change. Examples: '
      + '"example.crt,example.key" or "foo.crt,foo.key:*.foo.com,foo.com".' },
  // Authentication
  { name: 'token-auth-file', type: 'string', default: '', arg: 'path',
    help: 'CSV file of bearer tokens: token,user,uid,"group1,group2". Without any authentication flag, an '
      + 'admin token and <data-dir>/admin.kubeconfig are generated once and reused.' },
  { name: 'anonymous-auth', type: 'bool', default: 'true',
    help: 'Enables anonymous requests: requests no authentication method rejects are treated as user '
      + 'system:anonymous, group system:unauthenticated (authorization then decides). Turned off with '
      + '--authorization-mode=AlwaysAllow. Must not be set when --authentication-config has an anonymous section.' },
  { name: 'authentication-config', type: 'string', default: '', arg: 'path',
    help: 'AuthenticationConfiguration file (YAML or JSON, apiVersion apiserver.config.<group-domain>/v1beta1): '
      + 'anonymous.enabled and anonymous.conditions (a list of {path}: only those paths accept anonymous '
      + 'requests). JWT authenticators are not supported. Re-read when it changes; a changed anonymous section '
      + 'is refused (logged) until a restart.' },
  { name: 'enable-bootstrap-token-auth', type: 'bool', default: 'false',
    help: 'Allow Secrets of type bootstrap.<domain>/token (bootstrap.kubernetes.io/token under k8s.io) in the '
      + 'system namespace to be used as bearer tokens <id>.<secret>, and run the tokencleaner controller that '
      + 'deletes expired ones.' },
  // Authorization
  { name: 'authorization-mode', type: 'list', default: 'RBAC', arg: 'modes',
    help: 'Ordered list of authorization modes (comma-separated): RBAC, AlwaysAllow, AlwaysDeny. The first mode '
      + 'that allows a request decides; a request no mode allows is 403 Forbidden. Members of system:masters are '
      + 'always allowed. Default RBAC (kube-apiserver defaults to AlwaysAllow; here a fresh server is secure).' },
  { name: 'requestheader-client-ca-file', type: 'string', default: '', arg: 'path',
    help: 'PEM bundle verifying the client certificates of authenticating proxies: only on a connection whose '
      + 'certificate it verifies are the --requestheader-username-headers trusted (anywhere else they are '
      + 'ignored and removed). Use a CA of its own, not the --client-ca-file one. Re-read when it changes (a broken '
      + 'bundle is logged and the previous one stays).' },
  { name: 'requestheader-allowed-names', type: 'list', default: '', arg: 'names',
    help: 'Client certificate common names allowed to provide usernames in the request headers. Empty: any '
      + 'certificate verified by --requestheader-client-ca-file.' },
  { name: 'requestheader-username-headers', type: 'list', default: 'X-Remote-User', arg: 'headers',
    help: 'Request headers to inspect for the user name (the first non-empty one wins).' },
  { name: 'requestheader-group-headers', type: 'list', default: 'X-Remote-Group', arg: 'headers',
    help: 'Request headers to inspect for groups (every value of every one, repeated headers included).' },
  { name: 'requestheader-extra-headers-prefix', type: 'list', default: 'X-Remote-Extra-', arg: 'prefixes',
    help: 'Request header prefixes to inspect for extra user attributes (the rest of the name, lower-cased and '
      + 'percent-decoded, is the key).' },
  { name: 'requestheader-uid-headers', type: 'list', default: '', arg: 'headers',
    help: 'Request headers to inspect for the user uid; X-Remote-Uid is suggested. Requires the '
      + 'RemoteRequestHeaderUID feature gate.' },
  { name: 'client-ca-file', type: 'string', default: '', arg: 'path',
    help: 'PEM bundle of CAs verifying client certificates: a request with a certificate it verifies (client '
      + 'auth usage, valid now) is authenticated as the subject CN, with the subject O values as groups; an '
      + 'unverifiable certificate is 401. Keep it apart from the serving CA and --requestheader-client-ca-file. '
      + 'Re-read when it changes (a broken bundle is logged and the previous one stays). Not given: client '
      + 'certificates issued by the csrsigning controller\'s client signers authenticate (the generated signing CA, or '
      + 'the --cluster-signing-* files).' },
  { name: 'cluster-signing-cert-file', type: 'string', default: '', arg: 'path',
    help: 'PEM CA certificate the csrsigning controller issues certificates with, for every well-known signer '
      + '(with --cluster-signing-key-file; excludes the per-signer flags). Without any signing flag, a signing CA '
      + 'is generated once into <data-dir>/pki/signing-ca.crt.' },
  { name: 'cluster-signing-key-file', type: 'string', default: '', arg: 'path',
    help: 'PEM private key (RSA or ECDSA) of --cluster-signing-cert-file.' },
  ...(['kube-apiserver-client', 'kubelet-client', 'kubelet-serving', 'legacy-unknown'] as const).flatMap((s): FlagSpec[] => [
    { name: `cluster-signing-${s}-cert-file`, type: 'string', default: '', arg: 'path',
      help: `PEM CA certificate for the ${s} signer (with --cluster-signing-${s}-key-file).` },
    { name: `cluster-signing-${s}-key-file`, type: 'string', default: '', arg: 'path',
      help: `PEM private key for the ${s} signer.` },
  ]),
  { name: 'cluster-signing-duration', type: 'duration', default: '8760h', arg: 'duration',
    help: 'The longest certificate the csrsigning controller issues; a request\'s expirationSeconds may ask for less '
      + '(never under 10 minutes).' },
  { name: 'service-account-key-file', type: 'list', default: '', arg: 'path', repeatable: true,
    help: 'PEM file of keys verifying service account tokens (RSA or ECDSA public keys, private keys or '
      + 'certificates; repeatable). The signing key is always accepted too. Without this flag and '
      + '--service-account-signing-key-file, an RSA key is generated once into <data-dir>/pki/sa.key.' },
  { name: 'service-account-signing-key-file', type: 'string', default: '', arg: 'path',
    help: 'PEM private key (RSA or ECDSA) signing the service account tokens the TokenRequest API issues. '
      + 'Default: the generated <data-dir>/pki/sa.key.' },
  { name: 'service-account-issuer', type: 'list', default: '', arg: 'url', repeatable: true,
    help: 'The issuer (iss) of service account tokens; repeatable: the first one issues, all of them are '
      + 'accepted (rotation). Default https://kubernetes.default.svc.cluster.local. Issuer discovery '
      + '(/.well-known/openid-configuration, /openid/v1/jwks) is served when the first one is an https URL.' },
  { name: 'service-account-jwks-uri', type: 'string', default: '', arg: 'url',
    help: 'The jwks_uri of the issuer discovery document. Default https://<the server address>/openid/v1/jwks.' },
  { name: 'api-audiences', type: 'list', default: '', arg: 'audiences',
    help: 'Audiences of the API: service account tokens must name one of them, and a TokenRequest without '
      + 'audiences gets these. Default: the first --service-account-issuer.' },
  { name: 'service-account-max-token-expiration', type: 'duration', default: '0',
    help: 'The longest validity of a token the TokenRequest API issues: a request for more gets a token of this '
      + 'validity (and a Warning). 0: no cap; else between 1h and 2^32 seconds.' },
  { name: 'service-account-extend-token-expiration', type: 'bool', default: 'true',
    help: 'Sign tokens bound to a Pod and requested for exactly 3607 seconds (what projected volumes ask for) '
      + 'for the API audiences valid for a year, with a warnafter claim at the requested expiry, easing the move '
      + 'from legacy tokens; --service-account-max-token-expiration does not shorten that year.' },
  // Aggregation layer
  { name: 'proxy-client-cert-file', type: 'string', default: '', arg: 'path',
    help: 'PEM client certificate this server presents to the backends of APIServices when it proxies requests '
      + 'to them or checks their availability (the backends trust it through their requestheader CA). Needs '
      + '--proxy-client-key-file.' },
  { name: 'proxy-client-key-file', type: 'string', default: '', arg: 'path',
    help: 'PEM private key of --proxy-client-cert-file.' },
  // Storage
  { name: 'storage', type: 'enum', default: '', values: ['memory', 'etcd'], arg: 'backend',
    help: 'Storage backend: memory (embedded, durable in --data-dir) or etcd. Defaults to etcd when '
      + '--etcd-servers is set, else memory; must agree with --etcd-servers.' },
  { name: 'etcd-servers', type: 'list', default: '', arg: 'urls',
    help: 'etcd client URLs (comma-separated). Set: the etcd backend is used.' },
  { name: 'etcd-cafile', type: 'string', default: '', arg: 'path',
    help: 'SSL Certificate Authority file used to secure etcd communication.' },
  { name: 'etcd-certfile', type: 'string', default: '', arg: 'path',
    help: 'SSL certification file used to secure etcd communication.' },
  { name: 'etcd-keyfile', type: 'string', default: '', arg: 'path',
    help: 'SSL key file used to secure etcd communication.' },
  { name: 'etcd-prefix', type: 'string', default: '/registry', arg: 'prefix',
    help: 'The prefix of every key in the store.' },
  { name: 'etcd-compaction-interval', type: 'duration', default: '5m',
    help: 'How often old revisions are compacted (continue tokens and watch history expire with them). '
      + '0 disables compaction.' },
  { name: 'event-ttl', type: 'duration', default: '1h',
    help: 'Amount of time to retain events: the store deletes each event this long after its last write. '
      + 'Whole seconds; 0 keeps events forever.' },
  { name: 'encryption-provider-config', type: 'string', default: '', arg: 'path',
    help: 'The file containing configuration for encryption providers to be used for storing secrets in the '
      + 'store: an EncryptionConfiguration (apiserver.config.k8s.io/v1 or apiserver.config.<group-domain>/v1) '
      + 'with identity, aescbc, aesgcm and secretbox providers; the first provider writes, all read. Every '
      + 'stored object is checked to be readable at start. See docs/encryption.md.' },
  { name: 'encryption-provider-config-automatic-reload', type: 'bool', default: 'false',
    help: 'Determines if the file set by --encryption-provider-config should be automatically reloaded if the '
      + 'disk contents change (a bad new file keeps the configuration in force, logged and counted).' },
  { name: 'data-dir', type: 'string', default: './data', arg: 'path',
    help: 'Directory for the embedded store, the generated certificates, the admin token and kubeconfig.' },
  // API
  { name: 'group-domain', type: 'string', default: 'platform.io', arg: 'domain',
    help: 'Domain of the API group names (platform.io, or k8s.io for stock Kubernetes names).' },
  { name: 'runtime-config', type: 'string', default: '', arg: 'key=value,...',
    help: 'Enable or disable API group versions and resources: api/all, api/ga, api/beta, api/alpha, '
      + '<group>/<version> or <group>/<version>/<resource>, each =true or =false (default true).' },
  { name: 'advertise-address', type: 'string', default: '', arg: 'ip',
    help: 'The IP address this replica advertises as an endpoint of the kubernetes Service. Empty: the bind address, '
      + 'else the first non-loopback address of the host.' },
  { name: 'service-cluster-ip-range', type: 'string', default: '', arg: 'cidrs',
    help: 'CIDR range(s) Service cluster IPs are allocated from: one CIDR, or two of different IP families for '
      + 'dual-stack (the first is primary). Empty: 10.0.0.0/24. Must not overlap node or pod addresses.' },
  { name: 'service-node-port-range', type: 'string', default: '30000-32767', arg: 'range',
    help: 'Ports reserved for Services of type NodePort and LoadBalancer: <base>-<max> (inclusive), <base>+<count> '
      + 'or one port.' },
  { name: 'feature-gates', type: 'list', repeatable: true, default: '', arg: 'colonSeparatedMultimapStringString',
    help: 'Feature gates to turn on or off: comma-separated Name=true|false pairs, each optionally prefixed with the '
      + 'component "kube:"; the flag may be given several times. An unknown gate, or a gate locked to its default '
      + `set to the other value, is an error. Alpha and beta gates:\n${featureGateHelpLines().join('\n')}` },
  // Limits and timeouts
  { name: 'max-requests-inflight', type: 'int', default: '400', arg: 'n',
    help: 'Maximum number of non-mutating requests in flight; more get 429. 0 means no limit.' },
  { name: 'max-mutating-requests-inflight', type: 'int', default: '200', arg: 'n',
    help: 'Maximum number of mutating requests in flight; more get 429. 0 means no limit.' },
  { name: 'request-metrics', type: 'bool', default: 'true',
    help: 'Records every request in the apiserver_request_* metrics (and the watch, authentication and authorization '
      + 'attempt metrics) served at /metrics. false turns that recording off (a benchmark baseline); the families stay, empty.' },
  { name: 'request-timeout', type: 'duration', default: '1m',
    help: 'Deadline of a request (watches and other long-running requests excluded); then 504 and its work is cancelled.' },
  { name: 'min-request-timeout', type: 'int', default: '1800', arg: 'seconds',
    help: 'A watch without timeoutSeconds ends after a random time between this many seconds and twice as many, '
      + 'spreading re-connections out. 0: such watches never time out.' },
  { name: 'enable-priority-and-fairness', type: 'bool', default: 'true',
    help: 'API Priority and Fairness with the built-in flow schemas and priority levels: seats from the sum of '
      + '--max-requests-inflight and --max-mutating-requests-inflight, fair queues per user; replaces the max-in-flight '
      + 'filter. false: the two max-in-flight limits apply as they are.' },
  // Lifecycle
  { name: 'shutdown-delay-duration', type: 'duration', default: '20s',
    help: 'On SIGTERM, keep serving this long with /readyz failing and every response closing its connection, so '
      + 'load balancers stop sending here first; then watches end and new requests are refused. Longer than the load '
      + 'balancer needs to notice (docs/deploy.md, "Shutdown and readiness").' },
  { name: 'shutdown-send-retry-after', type: 'bool', default: 'true',
    help: 'After the shutdown delay, keep listening until in-flight requests finished and answer new ones 429 with '
      + 'Retry-After (clients retry elsewhere); false closes the listener when the delay ends (new connections are '
      + 'refused) and answers requests on open connections 503.' },
  { name: 'shutdown-timeout', type: 'duration', default: '30s',
    help: 'On SIGTERM, how long in-flight requests may take to finish after the shutdown delay; then they '
      + 'are cut. Watches end when the delay ends.' },
  // Admission
  { name: 'enable-admission-plugins', type: 'list', default: '', arg: 'names',
    help: 'Admission plugins to run besides the default ones (NamespaceLifecycle, ServiceAccount, CertificateApproval, '
      + 'CertificateSigning, CertificateSubjectRestriction, ValidatingAdmissionPolicy: always on, their names accepted): '
      + 'OwnerReferencesPermissionEnforcement (setting ownerReferences needs delete on the object, making one block its '
      + 'owner\'s deletion needs update on the owner\'s <resource>/finalizers).' },
  // Controllers (apiserver/server/in-server-controllers.ts)
  { name: 'controllers', type: 'list', default: '*', arg: 'names',
    help: 'The in-server controllers the leader runs (kube-controller-manager syntax): * is every controller on by '
      + 'default, name turns one on, -name turns one off. Names (kube 1.32 canonical names; the old aliases are '
      + 'accepted too): namespace-controller, serviceaccount-controller, clusterrole-aggregation-controller, '
      + 'validatingadmissionpolicy-status-controller, certificatesigningrequest-approving-controller (csrapproving), '
      + 'certificatesigningrequest-signing-controller (csrsigning), garbage-collector-controller, job-controller, '
      + 'ttl-after-finished-controller, statefulset-controller, replicationcontroller-controller, '
      + 'endpointslice-controller, horizontal-pod-autoscaler-controller, and token-cleaner-controller (tokencleaner: '
      + 'off by default, on by default with --enable-bootstrap-token-auth).' },
  // Audit (apiserver/audit/, docs/audit.md)
  { name: 'audit-policy-file', type: 'string', default: '', arg: 'path',
    help: 'Path to the file that defines the audit policy configuration: an audit.<group-domain>/v1 Policy (audit.k8s.io/v1 '
      + 'is accepted too), YAML or JSON. Auditing is on when this and --audit-log-path are given.' },
  { name: 'audit-log-path', type: 'string', default: '', arg: 'path',
    help: 'If set, all requests coming to the apiserver will be logged to this file (JSON lines of audit.<group-domain>/v1 '
      + 'Events). \'-\' means standard out.' },
  { name: 'audit-log-maxage', type: 'int', default: '0', arg: 'days',
    help: 'The maximum number of days to retain old audit log files based on the timestamp encoded in their filename.' },
  { name: 'audit-log-maxbackup', type: 'int', default: '0', arg: 'n',
    help: 'The maximum number of old audit log files to retain. Setting a value of 0 will mean there\'s no restriction on the number of files.' },
  { name: 'audit-log-maxsize', type: 'int', default: '0', arg: 'MB',
    help: 'The maximum size in megabytes of the audit log file before it gets rotated (0: 100).' },
  { name: 'audit-log-compress', type: 'bool', default: 'false',
    help: 'If set, the rotated log files will be compressed using gzip.' },
  { name: 'audit-log-format', type: 'enum', default: 'json', values: ['json', 'legacy'], arg: 'format',
    help: 'Format of saved audits. "legacy" indicates 1-line text format for each event. "json" indicates structured json format.' },
  { name: 'audit-log-mode', type: 'enum', default: 'blocking', values: ['batch', 'blocking', 'blocking-strict'], arg: 'mode',
    help: 'Strategy for sending audit events. blocking: events are written as soon as the writer is free; batch: '
      + 'buffered and written in batches (--audit-log-batch-max-size / -max-wait); blocking-strict: as blocking, and a '
      + 'request is refused (500) when its RequestReceived event cannot be logged. Requests never wait for the disk: '
      + 'events beyond the buffer are dropped and counted in apiserver_audit_error_total.' },
  { name: 'audit-log-batch-buffer-size', type: 'int', default: '10000', arg: 'n',
    help: 'The size of the buffer to store events before batching and writing.' },
  { name: 'audit-log-batch-max-size', type: 'int', default: '1', arg: 'n',
    help: 'The maximum size of a batch (batch mode).' },
  { name: 'audit-log-batch-max-wait', type: 'duration', default: '0s',
    help: 'The amount of time to wait before force writing the batch that hadn\'t reached the max size (batch mode).' },
  // Logging
  { name: 'log-level', type: 'enum', default: 'info', values: ['trace', 'debug', 'info', 'warn', 'error', 'fatal'],
    arg: 'level', help: 'Minimum level of the JSON log lines written to stderr.' },
  // Tracing
  { name: 'tracing-config-file', type: 'string', default: '', arg: 'path',
    help: 'File with apiserver tracing configuration: a TracingConfiguration (YAML or JSON, apiVersion '
      + 'apiserver.config.k8s.io/v1, v1beta1 or v1alpha1) with endpoint and samplingRatePerMillion. Spans are '
      + 'exported over OTLP/HTTP (protobuf): endpoint is host:port (default localhost:4318, sent to '
      + 'http://host:port/v1/traces) or an http(s) URL. Without it, nothing is traced. See docs/tracing.md.' },
];

/** Looks a flag up by name (without dashes). */
export function findFlag(name: string): FlagSpec | undefined {
  return flagTable.find((f) => f.name === name);
}
