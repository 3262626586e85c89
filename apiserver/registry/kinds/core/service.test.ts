/**
 * Service through the registry's create, update and status paths (no store, no allocator): Kubernetes
 * v1.32's defaults and validation with its field paths, reasons and messages (a table of cases), the
 * update rules (cluster IPs and families, the health check port, loadBalancerClass, allocated values kept,
 * type-dependent fields dropped), the status rules, the table cells and the name rule.
 */
import type { KubeObject } from '../../../api/object.js';
import { createAs, updateAs, updateStatusAs, type Cause } from '../storage/testing.js';
import { services } from './service.js';
import { serviceTable } from './service-table.js';

type Json = Record<string, any>;
type Loose = KubeObject & Json;
/** The registry paths with the stored object typed loosely (the tests read nested members). */
const cAs = (o: KubeObject): { causes: Cause[]; obj: Loose } => createAs(services, o) as { causes: Cause[]; obj: Loose };
const uAs = (o: KubeObject, old: KubeObject): { causes: Cause[]; obj: Loose } => updateAs(services, o, old) as { causes: Cause[]; obj: Loose };
const sAs = (o: KubeObject, old: KubeObject): { causes: Cause[]; obj: Loose } => updateStatusAs(services, o, old) as { causes: Cause[]; obj: Loose };
const svc = (spec: Json = {}, meta: Json = {}): Loose => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'web', namespace: 'default', ...meta },
  spec: { selector: { app: 'web' }, ports: [{ port: 80 }], ...spec },
});

const required = (field: string, detail = ''): Cause => ({ reason: 'FieldValueRequired', field, message: detail === '' ? 'Required value' : `Required value: ${detail}` });
const invalid = (field: string, value: unknown, detail: string): Cause => ({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${JSON.stringify(value)}: ${detail}` });
const forbidden = (field: string, detail: string): Cause => ({ reason: 'FieldValueForbidden', field, message: `Forbidden: ${detail}` });
const notSupported = (field: string, value: string, valid: string[]): Cause => ({
  reason: 'FieldValueNotSupported',
  field,
  message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${valid.map((v) => JSON.stringify(v)).join(', ')}`,
});
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

const cases: [string, Json, Cause[]][] = [
  ['a ClusterIP Service', {}, []],
  ['a NodePort Service with a chosen node port', { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] }, []],
  ['a LoadBalancer Service', { type: 'LoadBalancer', loadBalancerSourceRanges: ['10.0.0.0/8'], loadBalancerClass: 'example.com/lb' }, []],
  ['an ExternalName Service (trailing dot)', { type: 'ExternalName', externalName: 'db.example.com.', ports: undefined, selector: undefined }, []],
  ['a headless Service without ports', { clusterIP: 'None', ports: undefined }, []],
  ['two named ports, one UDP with a named target', { ports: [{ name: 'http', port: 80 }, { name: 'dns', port: 53, protocol: 'UDP', targetPort: 'dns-udp' }] }, []],
  ['ClientIP affinity with a timeout', { sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 60 } } }, []],
  ['dual-stack cluster IPs with matching families', { clusterIP: '10.0.0.5', clusterIPs: ['10.0.0.5', 'fd00::5'], ipFamilies: ['IPv4', 'IPv6'], ipFamilyPolicy: 'RequireDualStack' }, []],
  ['no ports', { ports: [] }, [required('spec.ports')]],
  ['two ports without names', { ports: [{ port: 80 }, { port: 81 }] }, [required('spec.ports[0].name'), required('spec.ports[1].name')]],
  ['duplicate port names', { ports: [{ name: 'a', port: 80 }, { name: 'a', port: 81 }] }, [{ reason: 'FieldValueDuplicate', field: 'spec.ports[1].name', message: 'Duplicate value: "a"' }]],
  ['a port name that is not a DNS label', { ports: [{ name: 'HTTP', port: 80 }] }, [invalid('spec.ports[0].name', 'HTTP', LABEL_MSG)]],
  ['port 0 and 70000', { ports: [{ name: 'a', port: 0, targetPort: 8080 }, { name: 'b', port: 70000 }] }, [
    invalid('spec.ports[0].port', 0, 'must be between 1 and 65535, inclusive'),
    invalid('spec.ports[1].port', 70000, 'must be between 1 and 65535, inclusive'),
    invalid('spec.ports[1].targetPort', 70000, 'must be between 1 and 65535, inclusive'),
  ]],
  ['an unknown protocol', { ports: [{ port: 80, protocol: 'ICMP' }] }, [notSupported('spec.ports[0].protocol', 'ICMP', ['SCTP', 'TCP', 'UDP'])]],
  ['a bad named targetPort', { ports: [{ port: 80, targetPort: 'http--x' }] }, [invalid('spec.ports[0].targetPort', 'http--x', 'must not contain consecutive hyphens')]],
  ['an appProtocol that is not a qualified name', { ports: [{ port: 80, appProtocol: 'a b' }] }, [
    invalid('spec.ports[0].appProtocol', 'a b', "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"),
  ]],
  ['nodePort on a ClusterIP Service', { ports: [{ port: 80, nodePort: 30001 }] }, [forbidden('spec.ports[0].nodePort', "may not be used when `type` is 'ClusterIP'")]],
  ['duplicate node ports of one protocol', { type: 'NodePort', ports: [{ name: 'a', port: 80, nodePort: 30001 }, { name: 'b', port: 81, nodePort: 30001 }] }, [
    { reason: 'FieldValueDuplicate', field: 'spec.ports[1].nodePort', message: 'Duplicate value: 30001' },
  ]],
  ['an unknown type', { type: 'Magic' }, [notSupported('spec.type', 'Magic', ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'])]],
  ['an unknown session affinity', { sessionAffinity: 'Cookie' }, [notSupported('spec.sessionAffinity', 'Cookie', ['ClientIP', 'None'])]],
  ['ClientIP timeout 0', { sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 0 } } }, [
    invalid('spec.sessionAffinityConfig.clientIP.timeoutSeconds', 0, 'must be greater than 0 and less than 86400'),
  ]],
  ['headless NodePort', { type: 'NodePort', clusterIP: 'None' }, [invalid('spec.clusterIPs[0]', 'None', "may not be set to 'None' for NodePort services")]],
  ['headless LoadBalancer', { type: 'LoadBalancer', clusterIP: 'None' }, [invalid('spec.clusterIPs[0]', 'None', "may not be set to 'None' for LoadBalancer services")]],
  ['ExternalName without a name, with a cluster IP', { type: 'ExternalName', clusterIP: '10.0.0.1', ports: undefined }, [
    forbidden('spec.clusterIPs', 'may not be set for ExternalName services'),
    required('spec.externalName'),
  ]],
  ['ExternalName that is not a DNS name', { type: 'ExternalName', externalName: 'Bad_Name', ports: undefined }, [
    invalid('spec.externalName', 'Bad_Name', "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"),
  ]],
  ['a cluster IP that is not an IP', { clusterIP: '10.0.0.300' }, [invalid('spec.clusterIPs[0]', '10.0.0.300', 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)')]],
  ['clusterIPs[0] not matching clusterIP', { clusterIP: '10.0.0.1', clusterIPs: ['10.0.0.2'] }, [
    { reason: 'FieldValueInvalid', field: 'spec.clusterIPs', message: 'Invalid value: []string{"10.0.0.2"}: first value must match `clusterIP`' },
  ]],
  ['two IPv4 cluster IPs', { clusterIP: '10.0.0.1', clusterIPs: ['10.0.0.1', '10.0.0.2'] }, [
    { reason: 'FieldValueInvalid', field: 'spec.clusterIPs', message: 'Invalid value: []string{"10.0.0.1", "10.0.0.2"}: may specify no more than one IP for each IP family' },
  ]],
  ['a cluster IP of the other family than ipFamilies says', { clusterIP: 'fd00::1', ipFamilies: ['IPv4'] }, [
    invalid('spec.clusterIPs[0]', 'fd00::1', 'expected an IPv4 value as indicated by `ipFamilies[0]`'),
  ]],
  ['an unknown family and policy, a duplicate family', { ipFamilies: ['IPv4', 'IPv4', 'IPv5'], ipFamilyPolicy: 'Maybe' }, [
    { reason: 'FieldValueDuplicate', field: 'spec.ipFamilies[1]', message: 'Duplicate value: "IPv4"' },
    notSupported('spec.ipFamilies[2]', 'IPv5', ['IPv4', 'IPv6']),
    notSupported('spec.ipFamilyPolicy', 'Maybe', ['PreferDualStack', 'RequireDualStack', 'SingleStack']),
  ]],
  ['a loopback external IP and one that is not an IP', { externalIPs: ['127.0.0.1', 'nope'] }, [
    invalid('spec.externalIPs[0]', '127.0.0.1', 'may not be in the loopback range (127.0.0.0/8, ::1/128)'),
    invalid('spec.externalIPs[1]', 'nope', 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'),
  ]],
  ['source ranges on a ClusterIP Service, one not a CIDR', { loadBalancerSourceRanges: ['10.0.0.0/8', 'x'] }, [
    forbidden('spec.LoadBalancerSourceRanges', "may only be used when `type` is 'LoadBalancer'"),
    invalid('spec.LoadBalancerSourceRanges[1]', 'x', 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)'),
  ]],
  ['allocateLoadBalancerNodePorts and loadBalancerClass on a NodePort Service', { type: 'NodePort', allocateLoadBalancerNodePorts: true, loadBalancerClass: 'x' }, [
    forbidden('spec.allocateLoadBalancerNodePorts', "may only be used when `type` is 'LoadBalancer'"),
    forbidden('spec.loadBalancerClass', "may only be used when `type` is 'LoadBalancer'"),
  ]],
  ['externalTrafficPolicy on an internal Service', { externalTrafficPolicy: 'Local' }, [invalid('spec.externalTrafficPolicy', 'Local', 'may only be set for externally-accessible services')]],
  ['an unknown externalTrafficPolicy', { type: 'NodePort', externalTrafficPolicy: 'Nearest' }, [notSupported('spec.externalTrafficPolicy', 'Nearest', ['Cluster', 'Local'])]],
  ['healthCheckNodePort without Local', { type: 'LoadBalancer', healthCheckNodePort: 31000 }, [
    invalid('spec.healthCheckNodePort', 31000, "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"),
  ]],
  ['an unknown internalTrafficPolicy and trafficDistribution', { internalTrafficPolicy: 'Node', trafficDistribution: 'Anywhere' }, [
    notSupported('spec.internalTrafficPolicy', 'Node', ['Cluster', 'Local']),
    notSupported('spec.trafficDistribution', 'Anywhere', ['PreferClose']),
  ]],
  ['a bad selector value', { selector: { app: 'a b' } }, [
    invalid('spec.selector', 'a b', "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"),
  ]],
];

describe('Service validation', () => {
  it.each(cases)('%s', (_name, spec, expected) => {
    expect(cAs(svc(spec)).causes).toEqual(expected);
  });

  it('topology annotations that disagree', () => {
    const s = svc({}, { annotations: { 'service.kubernetes.io/topology-mode': 'Auto', 'service.kubernetes.io/topology-aware-hints': 'Disabled' } });
    expect(cAs(s).causes).toEqual([
      invalid('metadata.annotations[service.kubernetes.io/topology-mode]', 'Auto', 'must match annotations[service.kubernetes.io/topology-aware-hints] when both are specified'),
    ]);
  });
});

describe('Service defaults', () => {
  it('ClusterIP: type, affinity, protocol, targetPort, internalTrafficPolicy; status cleared', () => {
    const { obj } = cAs({ ...svc({ selector: undefined, ports: [{ port: 8080 }] }), status: { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } } });
    expect(obj.spec).toEqual({
      type: 'ClusterIP',
      sessionAffinity: 'None',
      internalTrafficPolicy: 'Cluster',
      ports: [{ port: 8080, protocol: 'TCP', targetPort: 8080 }],
    });
    expect(obj.status).toEqual({ loadBalancer: {} });
  });

  it('LoadBalancer: externalTrafficPolicy Cluster, allocateLoadBalancerNodePorts true; ClientIP timeout 10800; clusterIP copied', () => {
    const { obj } = cAs(svc({ type: 'LoadBalancer', sessionAffinity: 'ClientIP', clusterIP: '10.0.0.9' }));
    expect(obj.spec).toEqual(expect.objectContaining({
      externalTrafficPolicy: 'Cluster',
      allocateLoadBalancerNodePorts: true,
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } },
      clusterIPs: ['10.0.0.9'],
    }));
  });

  it('affinity None drops sessionAffinityConfig', () => {
    const { obj, causes } = cAs(svc({ sessionAffinityConfig: { clientIP: { timeoutSeconds: 5 } } }));
    expect(causes).toEqual([]);
    expect(obj.spec.sessionAffinityConfig).toBeUndefined();
  });

  it('names are DNS-1035 labels (the registry checks them with this rule)', () => {
    expect(services.nameRule).toBe('dns-1035-label');
    expect([services.shortNames, services.categories, services.subresources, services.deleteReturnsObject]).toEqual([['svc'], ['all'], ['status'], true]);
  });
});

describe('Service updates', () => {
  const stored = (spec: Json = {}): Loose => cAs(svc({ clusterIP: '10.0.0.10', ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', ...spec })).obj;

  it('a client that omits allocated values keeps them (clusterIP, node ports)', () => {
    const old = stored({ type: 'NodePort', ports: [{ name: 'http', port: 80, nodePort: 30100 }] });
    const { obj, causes } = uAs(svc({ type: 'NodePort', ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', ports: [{ name: 'http', port: 80 }] }), old);
    expect(causes).toEqual([]);
    expect([obj.spec.clusterIP, obj.spec.clusterIPs, obj.spec.ports[0].nodePort]).toEqual(['10.0.0.10', ['10.0.0.10'], 30100]);
  });

  it('NodePort -> ClusterIP drops the unchanged node ports and externalTrafficPolicy', () => {
    const old = stored({ type: 'NodePort', ports: [{ port: 80, nodePort: 30100 }] });
    const { obj, causes } = uAs({ ...old, spec: { ...old.spec, type: 'ClusterIP' } }, old);
    expect(causes).toEqual([]);
    expect(obj.spec.ports[0].nodePort).toBeUndefined();
    expect(obj.spec.externalTrafficPolicy).toBeUndefined();
  });

  it('ClusterIP -> ExternalName drops the addresses and families', () => {
    const old = stored();
    const { obj, causes } = uAs({ ...old, spec: { ...old.spec, type: 'ExternalName', externalName: 'x.example.com' } }, old);
    expect(causes).toEqual([]);
    expect([obj.spec.clusterIP, obj.spec.clusterIPs, obj.spec.ipFamilies, obj.spec.ipFamilyPolicy]).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('the cluster IP may not change; the primary family may not change', () => {
    const old = stored();
    const moved = uAs({ ...old, spec: { ...old.spec, clusterIP: '10.0.0.11', clusterIPs: ['10.0.0.11'] } }, old);
    expect(moved.causes).toEqual([{ reason: 'FieldValueInvalid', field: 'spec.clusterIPs[0]', message: 'Invalid value: []string{"10.0.0.11"}: may not change once set' }]);
    const fam = uAs({ ...old, spec: { ...old.spec, ipFamilies: ['IPv6'] } }, old);
    expect(fam.causes).toContainEqual({ reason: 'FieldValueInvalid', field: 'spec.ipFamilies[0]', message: 'Invalid value: []core.IPFamily{"IPv6"}: may not change once set' });
  });

  it('releasing the secondary cluster IP needs SingleStack', () => {
    const old = cAs(svc({ clusterIP: '10.0.0.5', clusterIPs: ['10.0.0.5', 'fd00::5'], ipFamilies: ['IPv4', 'IPv6'], ipFamilyPolicy: 'RequireDualStack' })).obj;
    const { causes } = uAs({ ...old, spec: { ...old.spec, clusterIPs: ['10.0.0.5'], ipFamilies: ['IPv4'] } }, old);
    expect(causes).toEqual([
      invalid('spec.ipFamilyPolicy', 'RequireDualStack', "must be set to 'SingleStack' when releasing the secondary clusterIP"),
      invalid('spec.ipFamilyPolicy', 'RequireDualStack', "must be set to 'SingleStack' when releasing the secondary ipFamily"),
    ]);
  });

  it('loadBalancerClass and the health check port are immutable on a LoadBalancer', () => {
    const old = stored({ type: 'LoadBalancer', loadBalancerClass: 'a.example/lb', externalTrafficPolicy: 'Local', healthCheckNodePort: 31000 });
    const { causes } = uAs({ ...old, spec: { ...old.spec, loadBalancerClass: 'b.example/lb', healthCheckNodePort: 31001 } }, old);
    expect(causes).toEqual([
      invalid('spec.loadBalancerClass', 'b.example/lb', 'may not change once set'),
      forbidden('spec.healthCheckNodePort', 'field is immutable'),
    ]);
  });
});

describe('Service status', () => {
  const lb = cAs(svc({ type: 'LoadBalancer' })).obj;

  it('ingress ip gets ipMode VIP; a hostname that is an IP and a bad ipMode are refused', () => {
    const ok = sAs({ ...lb, status: { loadBalancer: { ingress: [{ ip: '192.0.2.1' }] } } }, lb);
    // The registry's status path applies the kind's status defaults (prepareForStatusUpdate); the helper applies schema defaults only.
    expect(ok.causes).toEqual([required('status.loadBalancer.ingress[0].ipMode', 'must be specified when `ip` is set')]);
    const o2 = { ...lb, status: { loadBalancer: { ingress: [{ ip: '192.0.2.1', ipMode: 'Nat' }, { hostname: '192.0.2.2', ipMode: 'VIP' }] } } };
    expect(sAs(o2, lb).causes).toEqual([
      notSupported('status.loadBalancer.ingress[0].ipMode', 'Nat', ['Proxy', 'VIP']),
      forbidden('status.loadBalancer.ingress[1].ipMode', 'may not be specified when `ip` is not set'),
      invalid('status.loadBalancer.ingress[1].hostname', '192.0.2.2', 'must be a DNS name, not an IP address'),
    ]);
    const copy: KubeObject = JSON.parse(JSON.stringify({ ...lb, status: { loadBalancer: { ingress: [{ ip: '192.0.2.1' }] } } }));
    services.prepareForStatusUpdate(copy, lb);
    expect(copy.status).toEqual({ loadBalancer: { ingress: [{ ip: '192.0.2.1', ipMode: 'VIP' }] } });
  });

  it('ingress on a ClusterIP Service is forbidden', () => {
    const cip = cAs(svc()).obj;
    expect(sAs({ ...cip, status: { loadBalancer: { ingress: [{ ip: '192.0.2.1', ipMode: 'VIP' }] } } }, cip).causes).toEqual([
      forbidden('status.loadBalancer.ingress', "may only be used when `spec.type` is 'LoadBalancer'"),
    ]);
  });
});

describe('Service table', () => {
  const now = new Date('2026-01-01T00:10:00Z');
  const row = (o: Json): unknown[] => [...serviceTable.cells({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'a', creationTimestamp: '2026-01-01T00:00:00Z' }, ...o }, now)];

  it('prints kubectl 1.32 cells', () => {
    expect(row({ spec: { type: 'ClusterIP', clusterIP: '10.0.0.1', ports: [{ port: 80, protocol: 'TCP' }], selector: { b: '2', a: '1' } } })).toEqual(['a', 'ClusterIP', '10.0.0.1', '<none>', '80/TCP', '10m', 'a=1,b=2']);
    expect(row({ spec: { type: 'NodePort', clusterIP: '10.0.0.2', externalIPs: ['1.1.1.1'], ports: [{ port: 80, protocol: 'TCP', nodePort: 30080 }] } }).slice(1, 5)).toEqual(['NodePort', '10.0.0.2', '1.1.1.1', '80:30080/TCP']);
    expect(row({ spec: { type: 'LoadBalancer', clusterIP: '10.0.0.3', ports: [] } }).slice(3, 5)).toEqual(['<pending>', '<none>']);
    expect(row({ spec: { type: 'LoadBalancer' }, status: { loadBalancer: { ingress: [{ ip: '192.0.2.1' }, { hostname: 'lb.example.com' }] } } })[3]).toBe('192.0.2.1,lb.example.com');
    expect(row({ spec: { type: 'ExternalName', externalName: 'db.example.com' } }).slice(2, 5)).toEqual(['<none>', 'db.example.com', '<none>']);
  });
});

describe('Service schema', () => {
  it('carries generated.proto numbers', () => {
    const spec = services.schema.properties!.spec!;
    expect(spec.protobuf).toEqual(expect.objectContaining({ ports: 1, selector: 2, clusterIP: 3, type: 4, clusterIPs: 18, ipFamilies: 19 }));
    const port = spec.properties!.ports!.items!;
    expect(port.protobuf).toEqual(expect.objectContaining({ name: 1, protocol: 2, port: 3, targetPort: 4, nodePort: 5 }));
  });
});

describe('Service warnings', () => {
  it('as Kubernetes returns them: deprecated annotation, non-standard addresses, ignored fields', () => {
    const s = svc({ clusterIP: '010.000.000.005', externalIPs: ['192.168.001.001'], externalName: 'x.example.com' }, { annotations: { 'service.kubernetes.io/topology-aware-hints': 'Auto' } });
    const { obj } = cAs(s);
    expect(services.warnings(obj)).toEqual([
      'annotation service.kubernetes.io/topology-aware-hints is deprecated, please use service.kubernetes.io/topology-mode instead',
      'spec.clusterIPs[0]: non-standard IP or CIDR value "010.000.000.005" will be considered invalid in a future Kubernetes release: use "10.0.0.5"',
      'spec.externalIPs[0]: non-standard IP or CIDR value "192.168.001.001" will be considered invalid in a future Kubernetes release: use "192.168.1.1"',
      'spec.externalName is ignored when spec.type is not "ExternalName"',
    ]);
    expect(services.warnings(cAs(svc()).obj)).toEqual([]);
  });
});
