/**
 * EndpointSlice validation as Kubernetes v1.32 does it (pkg/apis/discovery/validation): the address type
 * is required and one of IPv4, IPv6, FQDN (immutable on update); at most 1000 endpoints, each with 1 to
 * 100 addresses checked per the type (IPs also outside the unspecified, loopback and link-local ranges;
 * an unknown type leaves addresses unchecked); a node name is a DNS subdomain; the deprecated topology is
 * at most 16 label-syntax entries; a host name is a DNS label; zone hints are at most 8 distinct label
 * values. Ports: at most 100 (the spec's limit), unique names that are empty or DNS labels, protocol
 * TCP/UDP/SCTP, appProtocol a qualified name.
 *
 * Kubernetes checks neither `zone` nor the `endpointslice.<legacy domain>/managed-by` label server-side:
 * the label is a convention between controllers, so neither is checked here.
 *
 * The deprecated topology is checked as Kubernetes does, though v1 writes that change the endpoints drop
 * it first (see endpointslice.ts), so only a stored value sent back unchanged reaches the check.
 *
 * Where Kubernetes stops at a count limit (endpoints, ports, zone hints) it reports only that cause.
 */
import type { KubeObject } from '../../../api/object.js';
import {
  duplicate,
  FieldPath,
  invalidValue,
  notSupported,
  required,
  tooMany,
  type FieldError,
} from '../../../validation/field-error.js';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue } from '../../../validation/names.js';
import { validateLabels } from '../core/pod/validate-metadata.js';
import { endpointIPProblems, parseIP } from './endpoint-ip.js';
import { isObject } from '../../../api/json.js';

export const ADDRESS_TYPES = Object.freeze(['FQDN', 'IPv4', 'IPv6']);
const PROTOCOLS = Object.freeze(['SCTP', 'TCP', 'UDP']);
const MAX_ENDPOINTS = 1000;
const MAX_ADDRESSES = 100;
const MAX_PORTS = 100;
const MAX_TOPOLOGY_LABELS = 16;
const MAX_ZONE_HINTS = 8;

type Rec = Record<string, unknown>;
const record = (v: unknown): Rec | undefined => (isObject(v) ? v : undefined);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

const label = (value: string, path: FieldPath): FieldError[] => isDNS1123Label(value).map((m) => invalidValue(path, value, m));

function validateFQDN(name: string, path: FieldPath): FieldError[] {
  if (name === '') return [required(path, '')];
  const n = name.endsWith('.') ? name.slice(0, -1) : name;
  const sub = isDNS1123Subdomain(n);
  if (sub.length > 0) return [invalidValue(path, n, sub.join(','))];
  const labels = n.split('.');
  if (labels.length < 2) return [invalidValue(path, n, 'should be a domain with at least two segments separated by dots')];
  for (const l of labels) {
    const errs = isDNS1123Label(l);
    if (errs.length > 0) return [invalidValue(path, l, errs.join(','))];
  }
  return [];
}

function validateAddress(address: string, type: string, path: FieldPath): FieldError[] {
  if (type === 'FQDN') return validateFQDN(address, path);
  if (type !== 'IPv4' && type !== 'IPv6') return [];
  const ip = parseIP(address);
  const errs: FieldError[] = [];
  if (ip === undefined || ip.v4 !== (type === 'IPv4')) errs.push(invalidValue(path, address, `must be a valid ${type} address`));
  for (const m of endpointIPProblems(address)) errs.push(invalidValue(path, address, m));
  return errs;
}

function validateHints(hints: Rec, path: FieldPath): FieldError[] {
  const zones = list(hints.forZones);
  const fz = path.child('forZones');
  if (zones.length > MAX_ZONE_HINTS) return [tooMany(fz, zones.length, MAX_ZONE_HINTS)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  zones.forEach((z, i) => {
    const name = text(record(z)?.name);
    const p = fz.index(i).child('name');
    if (seen.has(name)) errs.push(duplicate(p, name));
    else seen.add(name);
    for (const m of isValidLabelValue(name)) errs.push(invalidValue(p, name, m));
  });
  return errs;
}

function validateEndpoint(ep: Rec, type: string, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const addresses = list(ep.addresses);
  const ap = path.child('addresses');
  if (addresses.length === 0) errs.push(required(ap, 'must contain at least 1 address'));
  else if (addresses.length > MAX_ADDRESSES) errs.push(tooMany(ap, addresses.length, MAX_ADDRESSES));
  addresses.forEach((a, i) => errs.push(...validateAddress(text(a), type, ap.index(i))));

  if (typeof ep.nodeName === 'string') {
    for (const m of isDNS1123Subdomain(ep.nodeName)) errs.push(invalidValue(path.child('nodeName'), ep.nodeName, m));
  }
  const topology = record(ep.deprecatedTopology) ?? {};
  const tp = path.child('deprecatedTopology');
  const keys = Object.keys(topology);
  if (keys.length > MAX_TOPOLOGY_LABELS) errs.push(tooMany(tp, keys.length, MAX_TOPOLOGY_LABELS));
  errs.push(...validateLabels(topology as Parameters<typeof validateLabels>[0], tp));
  if (typeof ep.hostname === 'string') errs.push(...label(ep.hostname, path.child('hostname')));
  const hints = record(ep.hints);
  if (hints !== undefined) errs.push(...validateHints(hints, path.child('hints')));
  return errs;
}

function validatePorts(ports: unknown[]): FieldError[] {
  const root = FieldPath.root('ports');
  if (ports.length > MAX_PORTS) return [tooMany(root, ports.length, MAX_PORTS)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  ports.forEach((raw, i) => {
    const port = record(raw) ?? {};
    const p = root.index(i);
    const name = text(port.name);
    if (name !== '') errs.push(...label(name, p.child('name')));
    if (names.has(name)) errs.push(duplicate(p.child('name'), name));
    else names.add(name);
    const protocol = port.protocol;
    if (typeof protocol !== 'string') errs.push(required(p.child('protocol'), ''));
    else if (!PROTOCOLS.includes(protocol)) errs.push(notSupported(p.child('protocol'), protocol, PROTOCOLS));
    if (typeof port.appProtocol === 'string') {
      for (const m of isQualifiedName(port.appProtocol)) errs.push(invalidValue(p.child('appProtocol'), port.appProtocol, m));
    }
  });
  return errs;
}

/** The checks of every write (metadata aside: the registry checks it). */
export function validateEndpointSlice(slice: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const type = text(slice.addressType);
  if (type === '') errs.push(required('addressType', ''));
  else if (!ADDRESS_TYPES.includes(type)) errs.push(notSupported('addressType', type, ADDRESS_TYPES));

  const endpoints = list(slice.endpoints);
  const root = FieldPath.root('endpoints');
  if (endpoints.length > MAX_ENDPOINTS) errs.push(tooMany(root, endpoints.length, MAX_ENDPOINTS));
  else endpoints.forEach((ep, i) => errs.push(...validateEndpoint(record(ep) ?? {}, type, root.index(i))));

  errs.push(...validatePorts(list(slice.ports)));
  return errs;
}

/** `addressType` never changes after creation. */
export function validateEndpointSliceUpdate(slice: KubeObject, old: KubeObject): FieldError[] {
  return slice.addressType === old.addressType ? [] : [invalidValue('addressType', slice.addressType, 'field is immutable')];
}
