/**
 * `kubectl get services` columns as kube-apiserver 1.32 prints them: NAME, TYPE, CLUSTER-IP, EXTERNAL-IP,
 * PORT(S), AGE, and SELECTOR with `-o wide`. The server prints wide cells (no truncation), as Kubernetes'
 * table convertor does.
 *
 * - CLUSTER-IP: `spec.clusterIP`, `<none>` when empty;
 * - EXTERNAL-IP: ClusterIP and NodePort: the external IPs or `<none>`; LoadBalancer: the external IPs then
 *   the ingress points (ip, else hostname), `<pending>` when there are none; ExternalName: the external
 *   name; any other type `<unknown>`;
 * - PORT(S): `port/protocol`, `port:nodePort/protocol` with a node port, comma-separated; `<none>`;
 * - SELECTOR: `k=v` pairs sorted by key, `<none>` when empty.
 */
import type { KubeObject } from '../../../api/object.js';
import type { TableConvention } from '../../kind-strategy.js';
import { ageCell, ageColumn, column, nameCell, nameColumn, table } from '../shared/table.js';

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const strs = (v: unknown): string[] => list(v).filter((x): x is string => typeof x === 'string');

function loadBalancerIngress(status: unknown): string {
  const out: string[] = [];
  for (const raw of list(rec(rec(status).loadBalancer).ingress)) {
    const ing = rec(raw);
    if (typeof ing.ip === 'string' && ing.ip !== '') out.push(ing.ip);
    else if (typeof ing.hostname === 'string' && ing.hostname !== '') out.push(ing.hostname);
  }
  return out.join(',');
}

export function externalIPCell(svc: KubeObject): string {
  const spec = rec(svc.spec);
  const external = strs(spec.externalIPs);
  switch (spec.type) {
    case 'ClusterIP':
    case 'NodePort':
      return external.length > 0 ? external.join(',') : '<none>';
    case 'LoadBalancer': {
      const lb = loadBalancerIngress(svc.status);
      if (external.length > 0) return [...external, ...(lb === '' ? [] : [lb])].join(',');
      return lb !== '' ? lb : '<pending>';
    }
    case 'ExternalName':
      return typeof spec.externalName === 'string' ? spec.externalName : '';
    default:
      return '<unknown>';
  }
}

export function portsCell(ports: unknown): string {
  const out = list(ports).map((raw) => {
    const p = rec(raw);
    const protocol = typeof p.protocol === 'string' ? p.protocol : '';
    const port = typeof p.port === 'number' ? p.port : 0;
    return typeof p.nodePort === 'number' && p.nodePort > 0 ? `${port}:${p.nodePort}/${protocol}` : `${port}/${protocol}`;
  });
  return out.length === 0 ? '<none>' : out.join(',');
}

export function selectorCell(selector: unknown): string {
  const entries = Object.entries(rec(selector)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return entries.length === 0 ? '<none>' : entries.map(([k, v]) => `${k}=${String(v)}`).join(',');
}

export const serviceTable: TableConvention = table(
  [
    nameColumn,
    column('Type', 'string', 'type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer.'),
    column('Cluster-IP', 'string', 'clusterIP is the IP address of the service and is usually assigned randomly.'),
    column('External-IP', 'string', 'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.'),
    column('Port(s)', 'string', 'The list of ports that are exposed by this service.'),
    ageColumn,
    column('Selector', 'string', 'Route service traffic to pods with label keys and values matching this selector.', 1),
  ],
  (svc: KubeObject, now) => {
    const spec = rec(svc.spec);
    const clusterIP = typeof spec.clusterIP === 'string' && spec.clusterIP !== '' ? spec.clusterIP : '<none>';
    return [nameCell(svc), typeof spec.type === 'string' ? spec.type : '', clusterIP, externalIPCell(svc), portsCell(spec.ports), ageCell(svc, now), selectorCell(spec.selector)];
  },
);
