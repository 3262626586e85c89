/**
 * The controllers this server runs in-process (kube-controller-manager's, for what the API itself needs),
 * on one replica at a time (DESIGN.md invariant 11): the leader starts them all and stops them when it
 * loses the lease.
 *
 * - namespace lifecycle (empties and removes Terminating namespaces; records problems as events);
 * - ClusterRole aggregation (when the RBAC kinds are served);
 * - serviceaccount (a `default` ServiceAccount in every active namespace);
 * - tokencleaner (expired bootstrap tokens; on by default with `--enable-bootstrap-token-auth`);
 * - ValidatingAdmissionPolicy status (type checking warnings and observedGeneration);
 * - Service allocation repair (frees cluster IPs, IPAddress objects and node ports no Service holds);
 * - the `kubernetes` Service in `default` and its EndpointSlice from the live replicas' identity records;
 * - csrapproving (node-agent client requests) and csrsigning (approved requests of the well-known signers);
 * - the garbage collector (dependents of deleted owners; Foreground and Orphan deletions);
 * - the workload controllers: Job and ttl-after-finished, StatefulSet, ReplicationController, EndpointSlice
 *   and HorizontalPodAutoscaler (docs/controllers.md).
 *
 * `--controllers` selects them by kube's names (config/controllers-flag.ts), except the two kube-apiserver
 * itself runs (allocation repair and the `kubernetes` Service). Controllers share one informer factory per
 * leadership term: a new leader starts from fresh state.
 */
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { hostname } from 'node:os';
import type { Store } from '../../storage/interface.js';
import { bootstrapTokenSecretType } from '../auth/bootstrap-token-secret.js';
import type { ServerConfig } from '../config/server-config.js';
import { startClusterRoleAggregation } from '../controllers/clusterrole-aggregation/aggregation-controller.js';
import { startPolicyStatusController } from '../controllers/admission-policy-status/policy-status-controller.js';
import { startLeaderElection, type LeaderElector } from '../controllers/leader-election.js';
import { startNamespaceController } from '../controllers/namespace/namespace-controller.js';
import { startServiceAccountsController } from '../controllers/serviceaccounts/serviceaccounts-controller.js';
import { startTokenCleaner } from '../controllers/tokencleaner/token-cleaner.js';
import { startServiceAllocationRepair } from '../controllers/service-allocation-repair/repair-controller.js';
import type { ServiceAllocation } from './assemble-services.js';
import { startKubernetesServiceController } from '../controllers/kubernetes-service/kubernetes-service-controller.js';
import type { ServedResources } from '../registry/served-resources.js';
import { createEventRecorder } from '../events/event-recorder.js';
import type { Logger } from '../log/logger.js';
import type { Naming } from '../naming/naming.js';
import type { Authorizer } from '../authorization/authorizer.js';
import { startCsrApprovingController } from '../controllers/certificates/csr-approving-controller.js';
import { startCsrSigningController } from '../controllers/certificates/csr-signing-controller.js';
import { signerNames } from '../registry/kinds/certificates/signer-names.js';
import { controllerEnabled, parseControllers } from '../config/controllers-flag.js';
import { createInformerFactory } from '../controllers/informer.js';
import { startJobController } from '../controllers/job/job-controller.js';
import { startTtlAfterFinishedController } from '../controllers/ttl-after-finished/ttl-after-finished-controller.js';
import { startGarbageCollector } from '../controllers/garbage-collector/garbage-collector.js';
import { startStatefulSetController } from '../controllers/statefulset/statefulset-controller.js';
import { startReplicationController } from '../controllers/replication/replication-controller.js';
import { startEndpointSliceController } from '../controllers/endpointslice/endpointslice-controller.js';
import type { SigningMaterial } from '../tls/signing-material.js';
import type { ServiceResolver } from '../aggregator/service-resolver.js';
import { HPA_EVENT_COMPONENT, startHorizontalPodAutoscalerController } from '../controllers/podautoscaler/hpa-controller.js';
import { createMetricsApiSource, METRICS_API_SERVICE, readProxyClientCertFiles } from '../controllers/podautoscaler/metrics-api-source.js';

export function startInServerControllers(
  store: Store,
  resources: ServedResources,
  config: ServerConfig,
  names: Naming,
  logger: Logger,
  serviceAllocation?: ServiceAllocation,
  /** Resolves with the secure port once the server listens (the `kubernetes` Service's endpoints). */
  listening?: Promise<number>,
  certificates?: { readonly authorizer: Authorizer; readonly signing: SigningMaterial },
  /** The aggregator's backend resolver (StartOptions.aggregation): the HPA controller reaches the metrics API with it. */
  metricsResolver?: ServiceResolver,
): LeaderElector {
  return startLeaderElection({
    store,
    key: `${config.storagePrefix}/leases/${names.systemNamespace}/platform-apiserver-controllers`,
    name: 'platform-apiserver-controllers',
    namespace: names.systemNamespace,
    // A Lease the registry serves (coordination.<domain>/v1 at the same key): `kubectl get lease` shows the leader.
    apiVersion: `${names.group('coordination')}/v1`,
    identity: `${hostname()}_${randomUUID()}`,
    onStartedLeading: (signal) => {
      logger.info('leading: starting the in-server controllers');
      // One listener per controller (more than Node's default warning threshold of 10).
      setMaxListeners(0, signal);
      const stopOnAbort = (c: { stop(): Promise<void> }): void => signal.addEventListener('abort', () => void c.stop(), { once: true });
      const registry = (group: string, resource: string) => resources.lookup(group, 'v1', resource)?.registry;
      const selection = config.controllers ?? parseControllers(['*']);
      const on = (name: string): boolean => controllerEnabled(selection, name, { 'token-cleaner-controller': config.enableBootstrapTokenAuth === true });
      const informers = createInformerFactory({ onError: (err, resource) => logger.warn({ err, resource }, 'informer') });
      stopOnAbort(informers);

      const events = registry('', 'events');
      const recorderFor = (component: string) =>
        events === undefined ? {} : { recorder: createEventRecorder({ events, component, onError: (err) => logger.warn({ err }, 'event recorder') }) };
      const pods = registry('', 'pods');
      if (on('namespace-controller')) stopOnAbort(startNamespaceController({
        resources,
        onError: (err) => logger.warn({ err }, 'namespace controller'),
        onRemoved: (namespace) => logger.info({ namespace }, 'namespace removed'),
        ...recorderFor('namespace-controller'),
      }));

      if (on('garbage-collector-controller')) stopOnAbort(startGarbageCollector({
        resources,
        naming: names,
        onError: (err, key) => logger.warn({ err, key }, 'garbage collector'),
        ...recorderFor('garbage-collector-controller'),
      }));

      // StatefulSets: pods, claims and revisions of each set (kube's statefulset-controller).
      const statefulSets = registry('apps', 'statefulsets');
      const controllerRevisions = registry('apps', 'controllerrevisions');
      const claims = registry('', 'persistentvolumeclaims');
      if (statefulSets !== undefined && pods !== undefined && controllerRevisions !== undefined && claims !== undefined && on('statefulset-controller')) {
        stopOnAbort(startStatefulSetController({
          statefulSets, pods, controllerRevisions, persistentVolumeClaims: claims, informers, naming: names,
          onError: (err, key) => logger.warn({ err, key }, 'statefulset controller'),
          ...recorderFor('statefulset-controller'),
        }));
      }

      // ReplicationControllers: their pods (kube's replicationcontroller-controller).
      const replicationControllers = registry('', 'replicationcontrollers');
      if (replicationControllers !== undefined && pods !== undefined && on('replicationcontroller-controller')) {
        stopOnAbort(startReplicationController({
          replicationControllers, pods, informers, naming: names,
          onError: (err, key) => logger.warn({ err, key }, 'replicationcontroller controller'),
          ...recorderFor('replication-controller'),
        }));
      }

      const clusterRoles = registry(names.group('rbac'), 'clusterroles');
      if (clusterRoles !== undefined && on('clusterrole-aggregation-controller')) {
        stopOnAbort(startClusterRoleAggregation({ clusterRoles, onError: (err) => logger.warn({ err }, 'clusterrole aggregation') }));
      }

      const namespaces = registry('', 'namespaces');
      const serviceAccounts = registry('', 'serviceaccounts');
      if (namespaces !== undefined && serviceAccounts !== undefined && on('serviceaccount-controller')) {
        stopOnAbort(startServiceAccountsController({ namespaces, serviceAccounts, onError: (err) => logger.warn({ err }, 'serviceaccount controller') }));
      }

      const policies = registry(names.group('admissionregistration'), 'validatingadmissionpolicies');
      if (policies !== undefined && on('validatingadmissionpolicy-status-controller')) {
        stopOnAbort(startPolicyStatusController({ policies, resources, onError: (err) => logger.warn({ err }, 'validatingadmissionpolicy status controller') }));
      }

      const services = registry('', 'services');
      if (services !== undefined && serviceAllocation !== undefined) {
        stopOnAbort(startServiceAllocationRepair({
          services,
          allocators: serviceAllocation.allocators,
          onError: (err) => logger.warn({ err }, 'service allocation repair'),
          onFreed: (freed) => logger.info(freed, 'service allocation repair: freed values no Service holds'),
          onRepaired: (values) => logger.warn({ values }, 'service allocation repair: recorded again values Services hold'),
        }));
      }

      const slices = registry(names.group('discovery'), 'endpointslices');
      if (services !== undefined && slices !== undefined && serviceAllocation !== undefined && listening !== undefined) {
        stopOnAbort(startKubernetesServiceController({
          store,
          prefix: config.storagePrefix,
          naming: names,
          services,
          endpointSlices: slices,
          range: serviceAllocation.ranges[0]!,
          listening,
          ...(config.endpointReconcileIntervalMs === undefined ? {} : { intervalMs: config.endpointReconcileIntervalMs }),
          onError: (err) => logger.warn({ err }, 'kubernetes service controller'),
        }));
      }

      // EndpointSlices of the Services with a selector (kube's endpointslice-controller; not the `kubernetes` Service's above).
      const sliceNodes = registry('', 'nodes');
      if (services !== undefined && slices !== undefined && pods !== undefined && sliceNodes !== undefined && on('endpointslice-controller')) {
        stopOnAbort(startEndpointSliceController({
          services, pods, endpointSlices: slices, nodes: sliceNodes, informers, naming: names,
          onError: (err, key) => logger.warn({ err, key }, 'endpointslice controller'),
          ...recorderFor('endpoint-slice-controller'),
        }));
      }

      // csrapproving and csrsigning (kube-controller-manager's), when CertificateSigningRequests are served.
      const csrs = registry(names.group('certificates'), 'certificatesigningrequests');
      if (csrs !== undefined && certificates !== undefined) {
        const signers = signerNames(names);
        if (on('certificatesigningrequest-approving-controller')) stopOnAbort(startCsrApprovingController({
          csrs,
          signers,
          naming: names,
          authorizer: certificates.authorizer,
          onError: (err, csr) => logger.warn({ err, csr }, 'csrapproving'),
          onApproved: (csr) => logger.info({ csr }, 'csrapproving: approved'),
        }));
        if (on('certificatesigningrequest-signing-controller')) stopOnAbort(startCsrSigningController({
          csrs,
          signers,
          material: certificates.signing,
          onError: (err, csr) => logger.warn({ err, csr }, 'csrsigning'),
          onIssued: (csr) => logger.info({ csr }, 'csrsigning: issued a certificate'),
          onFailed: (csr, message) => logger.info({ csr, message }, 'csrsigning: refused'),
        }));
      }

      // Jobs: the job controller runs their pods; ttl-after-finished deletes finished ones after their TTL.
      const jobs = registry('batch', 'jobs');
      if (jobs !== undefined && pods !== undefined && on('job-controller')) {
        stopOnAbort(startJobController({ jobs, pods, informers, naming: names, ...recorderFor('job-controller'), onError: (err, key) => logger.warn({ err, key }, 'job controller') }));
      }
      if (jobs !== undefined && on('ttl-after-finished-controller')) {
        stopOnAbort(startTtlAfterFinishedController({ jobs, informers, onError: (err, key) => logger.warn({ err, key }, 'ttl-after-finished controller') }));
      }

      // HorizontalPodAutoscalers: CPU utilization from the resource metrics API (the metrics server registered as an APIService).
      if (pods !== undefined && on('horizontal-pod-autoscaler-controller')) {
        const apiServices = resources.lookup(names.group('apiregistration'), 'v1', 'apiservices')?.registry;
        const apiServiceInformer = apiServices === undefined ? undefined : informers.informer(apiServices);
        const proxyClient = config.proxyClient;
        const metrics = createMetricsApiSource({
          apiService: () => apiServiceInformer?.get('', METRICS_API_SERVICE),
          naming: names,
          ...(metricsResolver === undefined ? {} : { resolve: metricsResolver }),
          ...(proxyClient === undefined ? {} : { clientCert: () => readProxyClientCertFiles(proxyClient) }),
        });
        const hpa = startHorizontalPodAutoscalerController({
          resources, informers, naming: names, metrics, ...recorderFor(HPA_EVENT_COMPONENT),
          onError: (err, key) => logger.warn({ err: err instanceof Error ? err.message : err, key }, 'horizontal pod autoscaler controller'),
        });
        stopOnAbort({ stop: async () => { await hpa.stop(); metrics.close(); } });
      }

      const secrets = registry('', 'secrets');
      if (secrets !== undefined && on('token-cleaner-controller')) {
        stopOnAbort(startTokenCleaner({
          secrets,
          namespace: names.systemNamespace,
          secretType: bootstrapTokenSecretType(names),
          onDeleted: (name) => logger.info({ secret: name }, 'tokencleaner: deleted expired bootstrap token'),
          onError: (err) => logger.warn({ err }, 'tokencleaner'),
        }));
      }
    },
    onStoppedLeading: () => logger.info('stopped leading'),
    onError: (err) => logger.warn({ err }, 'leader election'),
  });
}
