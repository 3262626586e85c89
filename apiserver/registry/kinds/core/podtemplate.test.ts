import type { KubeObject } from '../../../api/object.js';
import { applyDefaults } from '../../../schema/defaults.js';
import type { Schema } from '../../../schema/schema.js';
import { errorString, type FieldError } from '../../../validation/field-error.js';
import { podTemplates } from './podtemplate.js';


/** A realistic template, as users write it. */
function realistic(): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'PodTemplate',
    metadata: { name: 'web', namespace: 'default' },
    template: {
      metadata: { labels: { app: 'web', tier: 'frontend' }, annotations: { 'example.com/owner': 'team-a' } },
      spec: {
        serviceAccountName: 'web',
        initContainers: [{ name: 'migrate', image: 'registry.example.com/web/migrate:1.4', command: ['/migrate', '--up'] }],
        containers: [
          {
            name: 'web',
            image: 'nginx:1.27',
            ports: [{ name: 'http', containerPort: 8080 }, { containerPort: 9090, protocol: 'UDP' }],
            env: [
              { name: 'MODE', value: 'production' },
              { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
              { name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } },
              { name: 'CPU_LIMIT', valueFrom: { resourceFieldRef: { resource: 'limits.cpu' } } },
            ],
            envFrom: [{ configMapRef: { name: 'web-config' } }, { prefix: 'S_', secretRef: { name: 'web-secrets' } }],
            resources: { requests: { cpu: 0.5, memory: '128Mi' }, limits: { cpu: '1', memory: '256Mi' } },
            volumeMounts: [
              { name: 'config', mountPath: '/etc/web' },
              { name: 'cache', mountPath: '/var/cache/web' },
              { name: 'token', mountPath: '/var/run/token', readOnly: true },
            ],
            livenessProbe: { httpGet: { path: '/healthz', port: 'http' }, initialDelaySeconds: 5 },
            readinessProbe: { tcpSocket: { port: 8080 } },
            startupProbe: { exec: { command: ['cat', '/tmp/ready'] }, failureThreshold: 30 },
            lifecycle: { preStop: { sleep: { seconds: 5 } } },
            securityContext: { runAsNonRoot: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
          },
          { name: 'sidecar', image: 'busybox', args: ['sleep', 'infinity'] },
        ],
        volumes: [
          { name: 'config', configMap: { name: 'web-config', items: [{ key: 'nginx.conf', path: 'nginx.conf' }] } },
          { name: 'cache' },
          {
            name: 'token',
            projected: { sources: [{ serviceAccountToken: { path: 'token', audience: 'api' } }, { secret: { name: 'extra' } }] },
          },
        ],
        nodeSelector: { 'kubernetes.io/os': 'linux' },
        tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' }, { operator: 'Exists' }],
        topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway' }],
        affinity: {
          podAntiAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [
              { weight: 100, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'web' } } } },
            ],
          },
        },
      },
    },
  };
}

/** The registry's create pipeline for this kind: schema defaults, then the hooks. */
function create(obj: KubeObject): FieldError[] {
  applyDefaults(obj, podTemplates.schema);
  podTemplates.prepareForCreate(obj);
  return podTemplates.validate(obj);
}

function spec(obj: KubeObject): Record<string, any> {
  return (obj.template as any).spec;
}

/** Runs `mutate` on a realistic template and returns the error lines. */
function errorsAfter(mutate: (s: Record<string, any>, obj: KubeObject) => void): string[] {
  const obj = realistic();
  mutate(spec(obj), obj);
  return create(obj).map(errorString);
}

describe('PodTemplate strategy data', () => {
  it('is a namespaced core/v1 kind that returns the object on delete', () => {
    expect(podTemplates).toMatchObject({ group: '', version: 'v1', kind: 'PodTemplate', resource: 'podtemplates', singular: 'podtemplate', namespaced: true, deleteReturnsObject: true });
    expect((podTemplates as { shortNames?: unknown }).shortNames).toBeUndefined();
    expect(Object.isFrozen(podTemplates)).toBe(true);
  });

  it('prints NAME, CONTAINERS, IMAGES, POD LABELS', () => {
    const obj = realistic();
    create(obj);
    expect(podTemplates.table.columns.map((c) => c.name)).toEqual(['Name', 'Containers', 'Images', 'Pod Labels']);
    expect(podTemplates.table.cells(obj, new Date())).toEqual(['web', 'web,sidecar', 'nginx:1.27,busybox', 'app=web,tier=frontend']);
    const bare: KubeObject = { metadata: { name: 'x' } };
    expect(podTemplates.table.cells(bare, new Date())).toEqual(['x', '', '', '<none>']);
  });
});

describe('a realistic pod template', () => {
  it('validates clean', () => {
    expect(create(realistic()).map(errorString)).toEqual([]);
  });
});

describe('defaults', () => {
  const obj = realistic();
  create(obj);
  const s = spec(obj);
  const web = s.containers[0];

  it('applies the pod spec defaults', () => {
    expect(s).toMatchObject({
      restartPolicy: 'Always',
      dnsPolicy: 'ClusterFirst',
      schedulerName: 'default-scheduler',
      terminationGracePeriodSeconds: 30,
      securityContext: {},
      serviceAccount: 'web',
    });
  });

  it('applies the container defaults', () => {
    expect(web).toMatchObject({ terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' });
    expect(web.ports).toEqual([
      { name: 'http', containerPort: 8080, protocol: 'TCP' },
      { containerPort: 9090, protocol: 'UDP' },
    ]);
    expect(s.containers[1].resources).toEqual({});
  });

  it('applies probe and handler defaults', () => {
    expect(web.livenessProbe).toEqual({
      httpGet: { path: '/healthz', port: 'http', scheme: 'HTTP' },
      initialDelaySeconds: 5,
      timeoutSeconds: 1,
      periodSeconds: 10,
      successThreshold: 1,
      failureThreshold: 3,
    });
    expect(web.startupProbe.failureThreshold).toBe(30);
    expect(web.env[1].valueFrom.fieldRef).toEqual({ apiVersion: 'v1', fieldPath: 'metadata.name' });
  });

  it('applies volume defaults, emptyDir for a volume without a source', () => {
    expect(s.volumes[0].configMap.defaultMode).toBe(420);
    expect(s.volumes[1]).toEqual({ name: 'cache', emptyDir: {} });
    expect(s.volumes[2].projected.defaultMode).toBe(420);
    expect(s.volumes[2].projected.sources[0].serviceAccountToken.expirationSeconds).toBe(3600);
  });

  it('canonicalizes resource quantities', () => {
    expect(web.resources).toEqual({ requests: { cpu: '500m', memory: '128Mi' }, limits: { cpu: '1', memory: '256Mi' } });
  });

  it('defaults a missing template so validation sees an empty pod spec', () => {
    const bare: KubeObject = { metadata: { name: 'x' } };
    expect(create(bare).map(errorString)).toEqual(['template.spec.containers: Required value']);
    expect((bare.template as any).spec.restartPolicy).toBe('Always');
  });

  it('fills serviceAccountName from the deprecated serviceAccount', () => {
    const o = realistic();
    delete spec(o).serviceAccountName;
    spec(o).serviceAccount = 'legacy';
    create(o);
    expect(spec(o).serviceAccountName).toBe('legacy');
  });
});

describe('imagePullPolicy hook', () => {
  it.each([
    ['nginx', 'Always'],
    ['nginx:latest', 'Always'],
    ['registry.example.com:5000/team/app', 'Always'],
    ['registry.example.com:5000/team/app:latest', 'Always'],
    ['nginx:1.27', 'IfNotPresent'],
    ['nginx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef', 'IfNotPresent'],
    ['registry.example.com:5000/team/app:v2', 'IfNotPresent'],
    ['NotAValidReference', 'IfNotPresent'],
  ])('%s -> %s', (image, policy) => {
    const obj = realistic();
    spec(obj).containers[1].image = image;
    create(obj);
    expect(spec(obj).containers[1].imagePullPolicy).toBe(policy);
  });

  it('keeps an explicit policy', () => {
    const obj = realistic();
    spec(obj).containers[1].imagePullPolicy = 'Never';
    create(obj);
    expect(spec(obj).containers[1].imagePullPolicy).toBe('Never');
  });
});

const RFC1123_LABEL =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

describe('container rules', () => {
  it('container name is required', () => {
    expect(errorsAfter((s) => delete s.containers[1].name)).toEqual(['template.spec.containers[1].name: Required value']);
  });

  it('container name is a DNS label', () => {
    expect(errorsAfter((s) => (s.containers[1].name = 'Side_Car'))).toEqual([`template.spec.containers[1].name: Invalid value: "Side_Car": ${RFC1123_LABEL}`]);
  });

  it('container names are unique within containers', () => {
    expect(errorsAfter((s) => (s.containers[1].name = 'web'))).toEqual(['template.spec.containers[1].name: Duplicate value: "web"']);
  });

  it('init container names are unique across containers and init containers', () => {
    expect(errorsAfter((s) => (s.initContainers[0].name = 'sidecar'))).toEqual(['template.spec.initContainers[0].name: Duplicate value: "sidecar"']);
  });

  it('image is required', () => {
    expect(errorsAfter((s) => delete s.containers[1].image)).toEqual(['template.spec.containers[1].image: Required value']);
  });

  it('at least one container', () => {
    expect(errorsAfter((s) => (s.containers = []))).toEqual(['template.spec.containers: Required value']);
  });

  it('imagePullPolicy and terminationMessagePolicy values', () => {
    expect(
      errorsAfter((s) => {
        s.containers[1].imagePullPolicy = 'Sometimes';
        s.containers[1].terminationMessagePolicy = 'Log';
      }),
    ).toEqual([
      'template.spec.containers[1].terminationMessagePolicy: Unsupported value: "Log": supported values: "File", "FallbackToLogsOnError"',
      'template.spec.containers[1].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"',
    ]);
  });

  it('restartPolicy is forbidden on regular containers; init containers accept only Always', () => {
    expect(
      errorsAfter((s) => {
        s.containers[1].restartPolicy = 'Always';
        s.initContainers[0].restartPolicy = 'OnFailure';
      }),
    ).toEqual([
      'template.spec.containers[1].restartPolicy: Forbidden: may not be set for non-init containers',
      'template.spec.initContainers[0].restartPolicy: Unsupported value: "OnFailure": supported values: "Always"',
    ]);
  });

  it('probes and hooks are forbidden on init containers unless they are sidecars', () => {
    const plain = errorsAfter((s) => (s.initContainers[0].readinessProbe = { exec: { command: ['true'] } }));
    expect(plain).toEqual(['template.spec.initContainers[0].readinessProbe: Forbidden: may not be set for init containers without restartPolicy=Always']);
    const sidecar = errorsAfter((s) => {
      s.initContainers[0].restartPolicy = 'Always';
      s.initContainers[0].readinessProbe = { exec: { command: ['true'] } };
    });
    expect(sidecar).toEqual([]);
  });
});

describe('ports', () => {
  it('containerPort must be 1..65535 and is required', () => {
    expect(
      errorsAfter((s) => {
        s.containers[0].ports[0].containerPort = 70000;
        s.containers[0].ports[1] = { protocol: 'UDP' };
      }),
    ).toEqual([
      'template.spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
      'template.spec.containers[0].ports[1].containerPort: Required value',
    ]);
  });

  it('port names are IANA_SVC_NAMEs, unique per container', () => {
    expect(errorsAfter((s) => (s.containers[0].ports[1].name = 'http'))).toEqual(['template.spec.containers[0].ports[1].name: Duplicate value: "http"']);
    expect(errorsAfter((s) => (s.containers[0].ports[0].name = '8080'))).toEqual([
      'template.spec.containers[0].ports[0].name: Invalid value: "8080": must contain at least one letter (a-z)',
    ]);
  });

  it('protocol is TCP, UDP or SCTP', () => {
    expect(errorsAfter((s) => (s.containers[0].ports[0].protocol = 'HTTP'))).toEqual([
      'template.spec.containers[0].ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
    ]);
  });

  it('host ports do not collide across containers', () => {
    expect(
      errorsAfter((s) => {
        s.containers[0].ports[0].hostPort = 80;
        s.containers[1].ports = [{ containerPort: 81, hostPort: 80 }];
      }),
    ).toEqual(['template.spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//80"']);
  });
});

describe('env', () => {
  it('names are required and printable ASCII without "="', () => {
    expect(
      errorsAfter((s) => {
        s.containers[0].env[0].name = '';
        s.containers[0].env[1].name = 'A=B';
      }),
    ).toEqual([
      'template.spec.containers[0].env[0].name: Required value',
      `template.spec.containers[0].env[1].name: Invalid value: "A=B": a valid environment variable name must consist only of printable ASCII characters other than '='`,
    ]);
  });

  it('valueFrom needs exactly one source, and none with a value', () => {
    expect(errorsAfter((s) => (s.containers[0].env[1].valueFrom = {}))).toEqual([
      'template.spec.containers[0].env[1].valueFrom: Invalid value: "": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`',
    ]);
    expect(errorsAfter((s) => (s.containers[0].env[1].value = 'x'))).toEqual([
      'template.spec.containers[0].env[1].valueFrom: Invalid value: "": may not be specified when `value` is not empty',
    ]);
    expect(errorsAfter((s) => (s.containers[0].env[2].valueFrom.configMapKeyRef = { name: 'c', key: 'k' }))).toEqual([
      'template.spec.containers[0].env[2].valueFrom: Invalid value: "": may not have more than one field specified at a time',
    ]);
  });

  it('fieldRef paths are the supported ones', () => {
    expect(errorsAfter((s) => (s.containers[0].env[1].valueFrom.fieldRef.fieldPath = 'spec.host'))).toEqual([
      'template.spec.containers[0].env[1].valueFrom.fieldRef.fieldPath: Unsupported value: "spec.host": supported values: "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"',
    ]);
    expect(errorsAfter((s) => (s.containers[0].env[1].valueFrom.fieldRef.fieldPath = "metadata.labels['app']"))).toEqual([]);
  });

  it('envFrom needs one source per entry', () => {
    expect(errorsAfter((s) => (s.containers[0].envFrom[0] = {}))).toEqual([
      'template.spec.containers[0].envFrom: Invalid value: "": must specify one of: `configMapRef` or `secretRef`',
    ]);
  });
});

describe('resources', () => {
  it('requests must not exceed limits', () => {
    expect(errorsAfter((s) => (s.containers[0].resources.requests.cpu = '1500m'))).toEqual([
      'template.spec.containers[0].resources.requests: Invalid value: "1500m": must be less than or equal to cpu limit of 1',
    ]);
  });

  it('quantities must parse and be non-negative', () => {
    expect(
      errorsAfter((s) => {
        s.containers[0].resources.limits.memory = '1 GB';
        s.containers[0].resources.requests.cpu = '-1';
      }),
    ).toEqual([
      `template.spec.containers[0].resources.limits[memory]: Invalid value: "1 GB": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
      'template.spec.containers[0].resources.requests[cpu]: Invalid value: "-1": must be greater than or equal to 0',
    ]);
  });

  it('resource names are standard or extended', () => {
    expect(errorsAfter((s) => (s.containers[1].resources = { limits: { gpu: '1' } }))).toEqual([
      'template.spec.containers[1].resources.limits[gpu]: Invalid value: "gpu": must be a standard resource for containers',
    ]);
  });

  it('extended resources are integers and cannot be overcommitted', () => {
    expect(errorsAfter((s) => (s.containers[1].resources = { requests: { 'example.com/gpu': '1' } }))).toEqual([
      'template.spec.containers[1].resources.limits: Required value: Limit must be set for non overcommitable resources',
    ]);
    expect(errorsAfter((s) => (s.containers[1].resources = { requests: { 'example.com/gpu': '1' }, limits: { 'example.com/gpu': '2' } }))).toEqual([
      'template.spec.containers[1].resources.requests: Invalid value: "1": must be equal to example.com/gpu limit of 2',
    ]);
    expect(errorsAfter((s) => (s.containers[1].resources = { limits: { 'example.com/gpu': '500m' } }))).toEqual([
      'template.spec.containers[1].resources.limits[example.com/gpu]: Invalid value: "500m": must be an integer',
    ]);
  });
});

describe('volumes and mounts', () => {
  it('every volumeMount refers to a volume', () => {
    expect(errorsAfter((s) => (s.containers[0].volumeMounts[0].name = 'missing'))).toEqual([
      'template.spec.containers[0].volumeMounts[0].name: Not found: "missing"',
    ]);
  });

  it('mount paths are unique', () => {
    expect(errorsAfter((s) => (s.containers[0].volumeMounts[1].mountPath = '/etc/web'))).toEqual([
      'template.spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/etc/web": must be unique',
    ]);
  });

  it('volume names are unique DNS labels', () => {
    // The duplicate is not a valid volume, so the mount that named it is not found either.
    expect(errorsAfter((s) => (s.volumes[1].name = 'config'))).toEqual([
      'template.spec.volumes[1].name: Duplicate value: "config"',
      'template.spec.containers[0].volumeMounts[1].name: Not found: "cache"',
    ]);
    const bad = errorsAfter((s) => {
      s.volumes[1].name = 'Cache';
      s.containers[0].volumeMounts[1].name = 'Cache';
    });
    expect(bad).toEqual([
      `template.spec.volumes[1].name: Invalid value: "Cache": ${RFC1123_LABEL}`,
      'template.spec.containers[0].volumeMounts[1].name: Not found: "Cache"',
    ]);
  });

  it('exactly one volume source (the later one in Kubernetes order is reported)', () => {
    expect(errorsAfter((s) => (s.volumes[0].secret = { secretName: 's' }))).toEqual([
      'template.spec.volumes[0].configMap: Forbidden: may not specify more than 1 volume type',
      'template.spec.containers[0].volumeMounts[0].name: Not found: "config"',
    ]);
  });

  it('a volume with no source defaults to emptyDir, so never misses one', () => {
    expect(errorsAfter((s) => (s.volumes[1] = { name: 'cache' }))).toEqual([]);
  });

  it('source rules: required names and file modes', () => {
    expect(
      errorsAfter((s) => {
        s.volumes.push({ name: 'claim', persistentVolumeClaim: {} }, { name: 'host', hostPath: { path: '/data', type: 'Folder' } });
        s.volumes[0].configMap.defaultMode = 1000;
      }),
    ).toEqual([
      'template.spec.volumes[0].configMap.defaultMode: Invalid value: 1000: must be a number between 0 and 0777 (octal), both inclusive',
      'template.spec.volumes[3].persistentVolumeClaim.claimName: Required value',
      'template.spec.volumes[4].hostPath.type: Unsupported value: "Folder": supported values: "", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"',
      'template.spec.containers[0].volumeMounts[0].name: Not found: "config"',
    ]);
  });
});

describe('probes', () => {
  it('exactly one handler', () => {
    expect(errorsAfter((s) => (s.containers[0].readinessProbe = { periodSeconds: 5 }))).toEqual([
      'template.spec.containers[0].readinessProbe: Required value: must specify a handler type',
    ]);
    expect(errorsAfter((s) => (s.containers[0].readinessProbe.exec = { command: ['true'] }))).toEqual([
      'template.spec.containers[0].readinessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type',
    ]);
  });

  it('liveness successThreshold must be 1; timings non-negative', () => {
    expect(
      errorsAfter((s) => {
        s.containers[0].livenessProbe.successThreshold = 2;
        s.containers[0].livenessProbe.periodSeconds = -1;
      }),
    ).toEqual([
      'template.spec.containers[0].livenessProbe.periodSeconds: Invalid value: -1: must be greater than or equal to 0',
      'template.spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1',
    ]);
  });

  it('handler ports are valid', () => {
    expect(errorsAfter((s) => (s.containers[0].readinessProbe.tcpSocket.port = 0))).toEqual([
      'template.spec.containers[0].readinessProbe.tcpSocket.port: Invalid value: 0: must be between 1 and 65535, inclusive',
    ]);
  });

  it('a preStop sleep is bounded by the grace period', () => {
    expect(errorsAfter((s) => (s.containers[0].lifecycle.preStop.sleep.seconds = 60))).toEqual([
      'template.spec.containers[0].lifecycle.preStop.sleep: Invalid value: 60: must be greater than 0 and less than terminationGracePeriodSeconds (30)',
    ]);
  });
});

describe('pod spec rules', () => {
  it('restartPolicy: any of Always, OnFailure, Never', () => {
    expect(errorsAfter((s) => (s.restartPolicy = 'OnFailure'))).toEqual([]);
    expect(errorsAfter((s) => (s.restartPolicy = 'Never'))).toEqual([]);
    expect(errorsAfter((s) => (s.restartPolicy = 'Sometimes'))).toEqual([
      'template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
    ]);
  });

  it('dnsPolicy values', () => {
    expect(errorsAfter((s) => (s.dnsPolicy = 'Custom'))).toEqual([
      'template.spec.dnsPolicy: Unsupported value: "Custom": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"',
    ]);
  });

  it('ephemeral containers are not allowed in templates', () => {
    expect(errorsAfter((s) => (s.ephemeralContainers = [{ name: 'debug', image: 'busybox' }]))).toEqual([
      'template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template',
    ]);
  });

  it('tolerations: Exists takes no value', () => {
    expect(errorsAfter((s) => (s.tolerations[1].value = 'x'))).toEqual([
      `template.spec.tolerations[1].operator: Invalid value: {"operator":"Exists","value":"x"}: value must be empty when \`operator\` is 'Exists'`,
    ]);
  });

  it('template labels are validated at template.labels', () => {
    const errs = errorsAfter((_s, obj) => ((obj.template as any).metadata.labels = { 'bad key!': 'v' }));
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatch(/^template\.labels: Invalid value: "bad key!": name part must consist of/);
  });
});

describe('schema: strategic merge and list metadata', () => {
  const podSpec = (((podTemplates.schema.properties!.template as Schema).properties!.spec as Schema).properties)!;
  const container = podSpec.containers!.items!.properties!;
  const meta = (s: Schema) => ({
    listType: s['x-kubernetes-list-type'],
    keys: s['x-kubernetes-list-map-keys'],
    mergeKey: s['x-kubernetes-patch-merge-key'],
    strategy: s['x-kubernetes-patch-strategy'],
  });

  it.each([
    ['containers', podSpec.containers!, ['name'], 'name', 'merge'],
    ['initContainers', podSpec.initContainers!, ['name'], 'name', 'merge'],
    ['ephemeralContainers', podSpec.ephemeralContainers!, ['name'], 'name', 'merge'],
    ['volumes', podSpec.volumes!, ['name'], 'name', 'merge,retainKeys'],
    ['imagePullSecrets', podSpec.imagePullSecrets!, ['name'], 'name', 'merge'],
    ['topologySpreadConstraints', podSpec.topologySpreadConstraints!, ['topologyKey', 'whenUnsatisfiable'], 'topologyKey', 'merge'],
    ['env', container.env!, ['name'], 'name', 'merge'],
    ['ports', container.ports!, ['containerPort', 'protocol'], 'containerPort', 'merge'],
    ['volumeMounts', container.volumeMounts!, ['mountPath'], 'mountPath', 'merge'],
    ['volumeDevices', container.volumeDevices!, ['devicePath'], 'devicePath', 'merge'],
  ])('%s', (_name, s, keys, mergeKey, strategy) => {
    expect(meta(s)).toEqual({ listType: 'map', keys, mergeKey, strategy });
  });

  it('atomic lists and maps', () => {
    expect(podSpec.tolerations!['x-kubernetes-list-type']).toBe('atomic');
    expect(container.envFrom!['x-kubernetes-list-type']).toBe('atomic');
    expect(container.command!['x-kubernetes-list-type']).toBe('atomic');
    expect(podSpec.nodeSelector!['x-kubernetes-map-type']).toBe('atomic');
  });

  it('quantities are int-or-string', () => {
    const limits = container.resources!.properties!.limits!;
    expect(limits.additionalProperties).toMatchObject({ 'x-kubernetes-int-or-string': true });
  });

  it('has apiVersion, kind, metadata and template', () => {
    expect(Object.keys(podTemplates.schema.properties!)).toEqual(['apiVersion', 'kind', 'metadata', 'template']);
  });
});
