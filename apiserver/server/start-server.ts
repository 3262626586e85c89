import { mkdir } from 'node:fs/promises';
import type { Store } from '../../storage/interface.js';
import { adminUser } from '../auth/admin-credentials.js';
import { localServerUrl, writeAdminKubeconfig } from '../auth/kubeconfig.js';
import { bearerTokenAuthenticator } from '../auth/bearer-token.js';
import type { BearerTokenAuthenticator } from '../auth/authenticator.js';
import { listenHttps } from './listen-https.js';
import { oidcDiscoveryEndpoints } from '../endpoints/oidc-discovery.js';
import type { ServerConfig } from '../config/server-config.js';
import { pingCheck, type HealthCheck } from '../endpoints/health-check.js';
import { unknownBuild, type BuildInfo } from '../endpoints/version.js';
import { createLogger, type Logger } from '../log/logger.js';
import { ensureGeneratedCerts, loadProvidedCerts } from '../tls/serving-certs.js';
import { clientSigningCaPems, loadSigningMaterial } from '../tls/signing-material.js';
import { trustAnchorFor } from '../tls/trust-anchor.js';
import { apiEndpoints } from '../endpoints/api-endpoints.js';
import { naming } from '../naming/naming.js';
import { bootstrapNamespaces } from './bootstrap-namespaces.js';
import { reconcileBootstrapPolicy } from '../registry/kinds/rbac/bootstrap-reconcile.js';
import { bootstrapPolicy } from '../registry/kinds/rbac/bootstrap-policy.js';
import { buildAuthorizer, buildRulesResolver, DEFAULT_AUTHORIZATION_MODES } from '../authorization/authorization-modes.js';
import { RbacIndex } from '../authorization/rbac-index.js';
import { startRbacFeed } from '../authorization/rbac-feed.js';
import { rbacSourcesOf, seedIndex } from '../authorization/rbac-sources.js';
import { builtinKinds } from '../registry/kinds/index.js';
import { parseRuntimeConfig } from '../config/runtime-config.js';
import { createApp } from './app.js';
import { assembleAuthentication, resourceTokenAuthenticators } from './assemble-authentication.js';
import { startInServerControllers } from './in-server-controllers.js';
import { advertiseAddressOf, assembleServiceAllocation, ensureDefaultServiceCIDR } from './assemble-services.js';
import { startMasterLease } from '../controllers/kubernetes-service/master-lease.js';
import type { ServiceIPRange } from '../registry/kinds/core/service-allocation/ip-range.js';
import type { AdmissionPlugin } from '../admission/plugin.js';
import type { ServedResources } from '../registry/served-resources.js';
import { assembleAggregator, type AggregationOptions } from './assemble-aggregator.js';
import { assembleStore } from './assemble-store.js';
import { assembleMetrics } from './assemble-metrics.js';
import { dropCountOnStop } from '../metrics/storage-metrics.js';
import { startCustomResourceController } from '../apiextensions/serving/crd-controller.js';
import { policyAdmissionOf } from './assemble-admission.js';
import type { PolicyAdmission } from '../admission/policy/policy-admission.js';
import { InFlightRequests } from './in-flight-requests.js';
import type { HttpServerLimits } from './http-server-limits.js';
import { FlowControl } from '../flowcontrol/flow-control.js';
import { LifecycleSignals, type LifecycleState } from './lifecycle-signals.js';
import { gracefulShutdown } from './graceful-shutdown.js';
import { startStoreReadiness } from './store-readiness.js';
import type { Filter } from '../request/request-state.js';
import type { Authorizer } from '../authorization/authorizer.js';
import { OWNER_REFERENCES_PERMISSION_ENFORCEMENT, ownerReferencesPermissionEnforcement } from '../admission/plugins/owner-references-permission.js';
import { unlistableRules } from '../authorization/rules.js';
import type { ServerServices } from '../registry/kind-strategy.js';
import { createWatchCache } from '../../storage/cache/watch-cache.js';
import { internServed } from '../registry/generic/served-bytes.js';
import type { KubeObject } from '../api/object.js';
import { decodeObject } from '../registry/generic/object-codec.js';
import { openAuditLog } from '../audit/audit-log.js';
import { RequestTracing } from '../tracing/request-tracing.js';

export interface StartOptions {
  /** Default: JSON lines to stderr at `config.logLevel`. */
  readonly logger?: Logger;
  /** A store owned by the caller (not closed by `close()`); default: opened from `config.storage`. */
  readonly store?: Store;
  readonly build?: BuildInfo;
  /** The API handler after authentication; default: none (every API path is 404). */
  readonly api?: Filter;
  /** Replaces the authorizer of every request and of impersonation; default: `--authorization-mode`'s. */
  readonly authorizer?: Authorizer;
  /** Admission plugins added after the server's own (tests record what the chain sees with one). */
  readonly admissionPlugins?: (resources: ServedResources) => readonly AdmissionPlugin[];
  /** The aggregation layer's backend resolver and intervals (assemble-aggregator.ts). */
  readonly aggregation?: AggregationOptions;
  /** Header size and connection timeouts (http-server-limits.ts; tests shorten the timeouts). */
  readonly httpLimits?: Partial<HttpServerLimits>;
}

export interface RunningServer {
  /** `https://127.0.0.1:<port>` (or the bind address). */
  readonly url: string;
  /** The bound port (the chosen one when `securePort` was 0). */
  readonly port: number;
  /** PEM clients should trust: the generated CA, or a self-signed provided certificate; else undefined. */
  readonly caPem: string | undefined;
  /** Absolute path of the generated admin kubeconfig; undefined when an authentication flag was given. */
  readonly kubeconfigPath: string | undefined;
  readonly store: Store;
  /** True once shutdown began (`/readyz` fails). */
  readonly shuttingDown: boolean;
  /** The steps of the graceful shutdown reached so far (lifecycle-signals.ts). */
  readonly lifecycle: LifecycleState;
  /**
   * Graceful shutdown (graceful-shutdown.ts): `/readyz` fails at once and responses carry
   * `Connection: close`; after `shutdownDelayMs` long-running requests (watches) end and new requests are
   * refused (429 + Retry-After, or with `shutdownSendRetryAfter: false` the listener closes); other requests
   * get up to `shutdownTimeoutMs` to finish, then are cut; then the controllers and the compactor stop and
   * the store (if owned) is closed. Idempotent: every call returns the same promise.
   */
  close(): Promise<void>;
}

/**
 * Starts one API server replica: TLS material, authentication, store, compactor, HTTPS listener, and
 * (without an authentication flag) the admin token and kubeconfig. On a start-up failure everything
 * already started is stopped again and the error is thrown.
 */
export async function startServer(config: ServerConfig, options: StartOptions = {}): Promise<RunningServer> {
  const logger = options.logger ?? createLogger({ level: config.logLevel });
  const cleanups: (() => Promise<void>)[] = [];
  const cleanup = async (): Promise<void> => {
    for (const c of cleanups.reverse()) await c().catch((err: unknown) => logger.error({ err }, 'cleanup failed'));
  };

  try {
    await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
    // --tracing-config-file: closed last, so the spans of the last requests are flushed.
    const tracing = config.tracing === undefined ? undefined : new RequestTracing(config.tracing, {
      onExportError: (err) => logger.warn({ err: err.message }, 'tracing: span export failed'),
      storeBackend: config.storage.backend,
    });
    if (tracing !== undefined) cleanups.push(() => tracing.shutdown());

    const certs = config.tls === undefined
      ? await ensureGeneratedCerts(config.dataDir, config.tlsSans)
      : await loadProvidedCerts(config.tls.certFile, config.tls.keyFile);
    const caPem = certs.caPem ?? (await trustAnchorFor(certs.certPem));

    const names = naming(config.groupDomain);
    const authorizationModes = config.authorizationModes ?? DEFAULT_AUTHORIZATION_MODES;
    // Authentication settings are checked before anything is opened, so a bad one fails fast.
    // The csrsigning controller's CAs (given or generated once); their client signers are the default --client-ca-file.
    const signing = await loadSigningMaterial(config.clusterSigning, config.dataDir);
    const auth = await assembleAuthentication(config, names, authorizationModes, logger, cleanups, clientSigningCaPems(signing).join(''));
    const saConfig = auth.serviceAccounts;
    const tokenAuthenticators: BearerTokenAuthenticator[] = [auth.staticTokens];

    const { store: theStore, encryption } = await assembleStore(config, names, logger, cleanups, options.store);

    const { metrics, cacheMetrics, requestMetrics, authMetrics, flowControlMetrics, recordRequests, storeMetrics, admissionTimings, policyChecks, storeFor } =
      assembleMetrics(config, names, theStore, encryption, logger, cleanups);
    // RBAC decides from an index of the RBAC objects, fed by their watch caches (or the bootstrap policy
    // when this server does not serve them); the server listens once it holds their current state.
    const rbacIndex = authorizationModes.includes('RBAC') ? new RbacIndex(names.group('rbac')) : undefined;
    let rbacFed = false;
    const authorizer = options.authorizer ?? buildAuthorizer(authorizationModes, rbacIndex);
    // What the review APIs (TokenReview, the access reviews) answer with: this server's own authorizer,
    // token authenticators (the list grows below with bootstrap tokens) and rules listing. A server given its
    // own authorizer cannot list its rules.
    const rules = options.authorizer === undefined ? buildRulesResolver(authorizationModes, rbacIndex) : unlistableRules;
    const services: ServerServices = { authorizer, rules, tokenAuthenticators, apiAudiences: saConfig.apiAudiences, serviceAccountTokens: auth.tokenIssuer };
    let api = options.api;
    // The secure port, for the `kubernetes` Service's endpoints (known once the server listens).
    let markListening: (port: number) => void = () => {};
    const listening = new Promise<number>((resolve) => {
      markListening = resolve;
    });
    let serviceRanges: readonly ServiceIPRange[] = [];
    /** host:port of this server (the issuer discovery jwks_uri default), known once it listens. */
    let externalHost = '';
    let policies: PolicyAdmission | undefined;
    if (api === undefined) {
      const cacheLogger = logger.child({ component: 'watch-cache' });
      const aggregator = await assembleAggregator(config, logger, options.aggregation);
      const runtimeConfig = parseRuntimeConfig(config.runtimeConfig);
      // Service cluster IPs and node ports (the registry's WriteHooks for `services`).
      const serviceAllocation = assembleServiceAllocation(config, theStore, names, runtimeConfig, logger);
      const served = apiEndpoints({
        watchCache: (keyPrefix, resource, store, type) => {
          const objects = storeMetrics.objects(type);
          const cache = createWatchCache<KubeObject>(store, keyPrefix, {
            decode: decodeObject,
            // On etcd the cache holds the process's only copy of each value: kept as served from the start.
            // The embedded store keeps its own, which the cache shares until a list derives the served form.
            ...(config.storage.backend === 'etcd' ? { intern: internServed } : {}),
            resource,
            // apiserver_storage_objects follows the cache's count (kube counts the stored objects).
            metrics: { ...cacheMetrics, cacheSize: (r, n) => (cacheMetrics.cacheSize(r, n), objects.set(n)) },
            logger: { warn: (message) => cacheLogger.warn(message) },
          });
          return dropCountOnStop(cache, objects);
        },
        store: theStore,
        storeFor,
        ...(recordRequests ? { admissionMetrics: admissionTimings } : {}),
        naming: names,
        kinds: builtinKinds(names),
        prefix: config.storagePrefix,
        runtimeConfig,
        writeHooks: { services: serviceAllocation.hooks },
        features: config.features,
        // --event-ttl, in whole seconds as kube passes it to etcd leases (0: events stay).
        ttlSeconds: { events: Math.floor(config.eventTtlMs / 1000) },
        services,
        // NamespaceLifecycle (always first), then OwnerReferencesPermissionEnforcement when enabled, then
        // ValidatingAdmissionPolicy, then a caller's plugins.
        admissionPlugins: (resources) => {
          policies = policyAdmissionOf(resources, names, authorizer, logger, recordRequests ? policyChecks : undefined);
          const ownerRefs = config.enabledAdmissionPlugins?.has(OWNER_REFERENCES_PERMISSION_ENFORCEMENT) === true
            ? [ownerReferencesPermissionEnforcement(resources, authorizer)] : [];
          return [...ownerRefs, ...(policies === undefined ? [] : [policies]), ...(options.admissionPlugins?.(resources) ?? [])];
        },
        aggregation: aggregator,
      });
      cleanups.push(async () => served.resources.stop());
      requestMetrics.resolveResourcesWith((group, version, resource) => served.resources.lookup(group, version, resource));
      serviceAllocation.bind(served.resources);
      serviceRanges = serviceAllocation.ranges;
      if (serviceAllocation.mode === 'ipaddress') await ensureDefaultServiceCIDR(served.resources, names, serviceAllocation.ranges);
      if (policies !== undefined) {
        const admission = policies;
        admission.start();
        cleanups.push(() => admission.stop());
      }
      const created = await bootstrapNamespaces(served.resources, names);
      if (created.length > 0) logger.info({ namespaces: created }, 'created system namespaces');
      // kube's rbac/bootstrap-roles post-start hook: every replica reconciles; writes are conditional.
      const rbac = await reconcileBootstrapPolicy(served.resources, names);
      if (rbac.created.length + rbac.updated.length + rbac.recreated.length > 0) logger.info(rbac, 'reconciled the bootstrap RBAC policy');
      if (rbac.skipped.length > 0) logger.info({ skipped: rbac.skipped }, 'bootstrap RBAC objects with autoupdate=false left as they are');
      const rbacSources = rbacIndex === undefined ? undefined : rbacSourcesOf(served.resources, names);
      if (rbacIndex !== undefined && rbacSources !== undefined) {
        const feed = startRbacFeed(rbacIndex, rbacSources, (err) => logger.warn({ err }, 'rbac authorizer feed'));
        cleanups.push(async () => feed.stop());
        await feed.ready();
        rbacFed = true;
      }
      // Custom resources: every replica serves the established definitions before it listens.
      const crds = served.resources.lookup(names.group('apiextensions'), 'v1', 'customresourcedefinitions')?.registry;
      if (crds !== undefined) {
        const crdLogger = logger.child({ component: 'crd-controller' });
        const crdController = startCustomResourceController({
          crds,
          resources: served.resources,
          naming: names,
          onServing: (crd, versions) => crdLogger.info({ crd, versions }, versions.length > 0 ? 'serving custom resources' : 'stopped serving custom resources'),
          onError: (err, crd) => crdLogger.warn({ err, crd }, 'custom resource definition'),
        });
        cleanups.push(() => crdController.stop());
        await crdController.synced();
      }
      // The aggregation layer on every replica: the proxy, availability and the backends' discovery.
      const apiServices = served.resources.lookup(names.group('apiregistration'), 'v1', 'apiservices')?.registry;
      if (apiServices !== undefined) {
        cleanups.push(() => aggregator.stop());
        await aggregator.start(apiServices);
      }
      // Like the CRDs: the policies present at start are in force before the server listens.
      await policies?.ready();
      tokenAuthenticators.push(...resourceTokenAuthenticators(auth, served.resources, config, names, logger));
      api = served.filter;
      const oidc = oidcDiscoveryEndpoints({
        issuer: saConfig.issuers[0]!,
        ...(saConfig.jwksUri === undefined ? {} : { jwksUri: saConfig.jwksUri }),
        externalAddress: () => externalHost,
        keys: auth.serviceAccountKeys.verificationKeys,
      });
      if (typeof oidc === 'string') logger.info(oidc);
      else {
        const resources = api;
        api = (ctx, next) => oidc(ctx, () => resources(ctx, next));
      }

      const elector = startInServerControllers(theStore, served.resources, config, names, logger, serviceAllocation, listening, { authorizer, signing }, options.aggregation?.serviceResolver);
      cleanups.push(() => elector.stop());
    }

    if (rbacIndex !== undefined && !rbacFed) seedIndex(rbacIndex, bootstrapPolicy(names));

    const signals = new LifecycleSignals();
    const shutdownCheck: HealthCheck = {
      name: 'shutdown',
      check: async () => {
        if (signals.shutdownInitiated) throw new Error('the server is shutting down');
      },
    };
    // The store's readiness from a background probe (store-readiness.ts): /readyz never waits on the store
    // and fails only after an outage longer than an etcd election.
    const storeReadiness = startStoreReadiness({
      probe: () => theStore.check(),
      onProbeError: (err) => logger.debug({ err }, 'store readiness probe failed'),
    });
    cleanups.push(async () => storeReadiness.stop());
    const storeCheck = storeReadiness.check;
    // --audit-*: the log is opened (and a bad path fails) before the server listens; closed after the listener.
    const auditLog = config.audit === undefined ? undefined : await openAuditLog(config.audit, names, metrics, logger);
    if (auditLog !== undefined) cleanups.push(() => auditLog.close());
    const registry = new InFlightRequests();
    const app = createApp({
      logger,
      registry,
      authenticators: [...auth.requestAuthenticators, bearerTokenAuthenticator(tokenAuthenticators)],
      // Anonymous requests go wherever the settings allow; the authorizer decides what they may do.
      anonymous: (ctx) => auth.anonymous(ctx.path),
      authorizer,
      ...(rbacIndex === undefined ? {} : { ruleResolver: rbacIndex }),
      naming: names,
      health: { livez: [pingCheck], readyz: [pingCheck, storeCheck, shutdownCheck], healthz: [pingCheck, storeCheck] },
      build: options.build ?? unknownBuild,
      maxRequestsInflight: config.maxRequestsInflight,
      maxMutatingRequestsInflight: config.maxMutatingRequestsInflight,
      // Priority and fairness (default) over the total of both limits; a queue waits at most a quarter of
      // the request timeout, as kube-apiserver.
      ...(config.enablePriorityAndFairness === false ? {} : {
        flowControl: new FlowControl({
          naming: names,
          totalConcurrency: config.maxRequestsInflight + config.maxMutatingRequestsInflight,
          waitLimitMs: config.requestTimeoutMs / 4,
          metrics: flowControlMetrics,
        }),
      }),
      flowControlMetrics,
      requestTimeoutMs: config.requestTimeoutMs,
      ...(config.minRequestTimeoutSeconds === undefined ? {} : { minRequestTimeoutSeconds: config.minRequestTimeoutSeconds }),
      draining: () => signals.shutdownInitiated,
      shutdown: { signals, sendRetryAfter: config.shutdownSendRetryAfter !== false },
      metrics,
      ...(recordRequests ? { requestMetrics, authMetrics } : {}),
      ...(auditLog === undefined ? {} : { audit: auditLog.filter }),
      ...(tracing === undefined ? {} : { tracing }),
      api,
    });

    const listener = await listenHttps({
      config,
      handler: app.callback(),
      clientCas: auth.clientCas,
      logger,
      metrics,
      onTlsClientError: () => requestMetrics.tlsHandshakeError(),
      httpLimits: options.httpLimits,
      cleanups,
    });
    cleanups.push(listener.close);
    const { server, port } = listener;
    const url = localServerUrl(config.bindAddress, port);
    markListening(port);
    // This replica's identity record (the `kubernetes` endpoints are the live records), when it serves the API.
    const advertised = options.api === undefined ? advertiseAddressOf(config) : undefined;
    if (advertised !== undefined && serviceRanges.length > 0) {
      const lease = startMasterLease({
        store: theStore,
        prefix: config.storagePrefix,
        ip: advertised,
        port,
        ...(config.masterLeaseTtlSeconds === undefined ? {} : { ttlSeconds: config.masterLeaseTtlSeconds }),
        ...(config.endpointReconcileIntervalMs === undefined ? {} : { intervalMs: config.endpointReconcileIntervalMs }),
        onError: (err) => logger.warn({ err }, 'renewing the identity record of this replica'),
      });
      await lease.renew();
      cleanups.push(() => lease.stop());
    }
    externalHost = new URL(url).host;

    let kubeconfigPath: string | undefined;
    if (auth.adminToken !== undefined) {
      kubeconfigPath = await writeAdminKubeconfig(config.dataDir, {
        server: url,
        caPem,
        token: auth.adminToken,
        userName: adminUser.name,
        name: 'platform-apiserver',
      });
    }

    logger.info({
      url,
      bindAddress: config.bindAddress,
      port,
      storage: config.storage.backend,
      dataDir: config.dataDir,
      tls: certs.source,
      authentication: config.tokenAuthFile === undefined ? 'generated admin token' : 'token file',
      kubeconfig: kubeconfigPath,
    }, 'serving');

    let closing: Promise<void> | undefined;
    const close = (): Promise<void> => {
      closing ??= (async () => {
        await gracefulShutdown({
          signals,
          server,
          serverClosed: listener.closed,
          registry,
          delayMs: config.shutdownDelayMs,
          timeoutMs: config.shutdownTimeoutMs,
          sendRetryAfter: config.shutdownSendRetryAfter !== false,
          logger,
        });
        // The listener is closed already. (Not `pop()`: cleanups pushed after it, the replica's identity
        // record among them, must still run.)
        cleanups.splice(cleanups.indexOf(listener.close), 1);
        await cleanup();
        logger.info('stopped');
      })();
      return closing;
    };

    return {
      url,
      port,
      caPem,
      kubeconfigPath,
      store: theStore,
      get shuttingDown() {
        return signals.shutdownInitiated;
      },
      lifecycle: signals,
      close,
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}
