/**
 * The objects of bench part 5 (`--only=media`), as request bodies: the server creates them (defaults,
 * managedFields, uid, timestamps) and the bench reads them back, so every codec measures an object as the
 * server stores and serves it.
 *
 * - `configmap-1k`: a ConfigMap of ~1 KiB of JSON as served, with the metadata real ones carry (five
 *   `app.kubernetes.io` labels, an annotation, the server's managedFields entry) and two `data` entries (a
 *   setting and a small YAML file).
 * - `configmap-value`: parts 2 and 3's ConfigMap, one 1 KiB value and bare metadata: what their GET rows
 *   measure, for comparison.
 * - `podtemplate`: a typical PodTemplate: an app container and a sidecar with ports, env (literal, from a
 *   ConfigMap key, from the downward API), resources, liveness/readiness probes and volume mounts; three
 *   volumes (ConfigMap, Secret, emptyDir); the kind's defaults fill in the rest on create.
 */

export interface MediaObject {
  /** Short id used in table rows. */
  readonly id: string;
  /** What the object is, for the report. */
  readonly label: string;
  /** `configmaps` or `podtemplates`. */
  readonly resource: 'configmaps' | 'podtemplates';
  readonly name: string;
  readonly body: Record<string, unknown>;
}

const labels = {
  'app.kubernetes.io/name': 'checkout',
  'app.kubernetes.io/instance': 'checkout-prod',
  'app.kubernetes.io/component': 'api',
  'app.kubernetes.io/part-of': 'shop',
  'app.kubernetes.io/managed-by': 'helm',
};

const configMap1k = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name: 'checkout-config',
    labels,
    annotations: { 'meta.helm.sh/release-name': 'checkout-prod' },
  },
  data: {
    'LOG_LEVEL': 'info',
    'application.yaml': 'server:\n  port: 8080\n  shutdownTimeout: 30s\ndatabase:\n  host: pg.shop.svc\n  pool: 20\n',
  },
};

const configMapValue = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'probe' },
  data: { value: 'x'.repeat(1024) },
};

const probe = (path: string, initialDelaySeconds: number) => ({
  httpGet: { path, port: 'http' },
  initialDelaySeconds,
  periodSeconds: 10,
});

const podTemplate = {
  apiVersion: 'v1',
  kind: 'PodTemplate',
  metadata: { name: 'checkout', labels },
  template: {
    metadata: { labels: { 'app.kubernetes.io/name': 'checkout', 'app.kubernetes.io/instance': 'checkout-prod' } },
    spec: {
      containers: [
        {
          name: 'app',
          image: 'registry.example.com/shop/checkout:1.14.2',
          args: ['--config=/etc/checkout/application.yaml'],
          ports: [{ name: 'http', containerPort: 8080 }, { name: 'metrics', containerPort: 9090 }],
          env: [
            { name: 'LOG_LEVEL', valueFrom: { configMapKeyRef: { name: 'checkout-config', key: 'LOG_LEVEL' } } },
            { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
            { name: 'JAVA_OPTS', value: '-Xmx512m -XX:+UseG1GC' },
          ],
          resources: { requests: { cpu: '250m', memory: '512Mi' }, limits: { cpu: '1', memory: '1Gi' } },
          livenessProbe: probe('/healthz', 15),
          readinessProbe: probe('/ready', 5),
          volumeMounts: [
            { name: 'config', mountPath: '/etc/checkout', readOnly: true },
            { name: 'tls', mountPath: '/etc/tls', readOnly: true },
            { name: 'tmp', mountPath: '/tmp' },
          ],
        },
        {
          name: 'proxy',
          image: 'registry.example.com/infra/envoy:1.30.1',
          ports: [{ name: 'https', containerPort: 8443 }],
          resources: { requests: { cpu: '50m', memory: '64Mi' }, limits: { memory: '128Mi' } },
          readinessProbe: { tcpSocket: { port: 8443 }, periodSeconds: 5 },
          volumeMounts: [{ name: 'tls', mountPath: '/etc/tls', readOnly: true }],
        },
      ],
      volumes: [
        { name: 'config', configMap: { name: 'checkout-config' } },
        { name: 'tls', secret: { secretName: 'checkout-tls' } },
        { name: 'tmp', emptyDir: {} },
      ],
    },
  },
};

export const MEDIA_OBJECTS: readonly MediaObject[] = [
  { id: 'configmap-1k', label: 'ConfigMap, ~1 KiB, labels + managedFields', resource: 'configmaps', name: 'checkout-config', body: configMap1k },
  { id: 'podtemplate', label: 'PodTemplate, 2 containers', resource: 'podtemplates', name: 'checkout', body: podTemplate },
  { id: 'configmap-value', label: 'ConfigMap, one 1 KiB value (parts 2–3)', resource: 'configmaps', name: 'probe', body: configMapValue },
];
