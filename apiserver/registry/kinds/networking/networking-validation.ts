/**
 * Kubernetes v1.32's validation of ServiceCIDR and IPAddress (pkg/apis/networking/validation), with its
 * field paths and messages:
 *
 * - ServiceCIDR `spec.cidrs`: one or two blocks ("at least one CIDR required", "may only hold up to 2
 *   values"); two must be of different families; each must parse as Go's netip prefix (its error text),
 *   be the network address ("wrong CIDR format, IP doesn't match network IP address") and be written in
 *   canonical form ("CIDR not in RFC 5952 canonical format"). On update the list is immutable as a whole
 *   (1.32: adding a second family to a single-family ServiceCIDR came later, in 1.33).
 * - ServiceCIDR status: Kubernetes 1.32 checks nothing there; the document's condition rules
 *   (metav1.Condition: type a qualified name, status True/False/Unknown, a CamelCase reason, a
 *   lastTransitionTime, observedGeneration >= 0, unique types) are enforced on status writes, with
 *   apimachinery's ValidateConditions messages.
 * - IPAddress: the name is an IP address in canonical form (netip's parse error, else "must be a canonical
 *   format IP address"); `spec.parentRef` is required, with `resource` and `name` (path segments),
 *   `group` a DNS subdomain when set and `namespace` a path segment when set; on update the parent
 *   reference is immutable.
 */
import type { KubeObject } from '../../../api/object.js';
import { FieldPath, invalidValue, required, type FieldError } from '../../../validation/field-error.js';
import { isDNS1123Subdomain, isPathSegmentName } from '../../../validation/names.js';
import { jsonEqual } from '../../patch/json-value.js';
import { validateConditions } from '../admissionregistration/status-validation.js';
import { arrayAt, isObject, stringAt, type JsonObject } from '../core/pod/json-values.js';
import { addrString, is4, maskAddr, parseAddr, parsePrefix, sameBytes, tryParse } from '../../../validation/netip.js';
import { parseIP } from '../discovery/endpoint-ip.js';
import { cidrFamily } from '../shared/cidr.js';

const FIELD_IMMUTABLE = 'field is immutable';
const specOf = (o: KubeObject): JsonObject => (isObject(o.spec) ? o.spec : {});
const cidrsOf = (o: KubeObject): string[] => arrayAt(specOf(o), 'cidrs').map((c) => (typeof c === 'string' ? c : ''));

function validateCIDR(cidr: string, path: FieldPath): FieldError[] {
  const parsed = tryParse(parsePrefix, cidr);
  if ('error' in parsed) return [invalidValue(path, cidr, parsed.error)];
  const errs: FieldError[] = [];
  const { addr, bits } = parsed.ok;
  if (!sameBytes(maskAddr(addr, bits).bytes, addr.bytes)) {
    errs.push(invalidValue(path, cidr, "wrong CIDR format, IP doesn't match network IP address"));
  }
  if (`${addrString(addr)}/${bits}` !== cidr) errs.push(invalidValue(path, cidr, 'CIDR not in RFC 5952 canonical format'));
  return errs;
}

/**
 * The family Go's net package gives a CIDR (ParseCIDRSloppy, then `IP.To4() != nil`): an IPv4-mapped
 * IPv6 block counts as IPv4 there, unlike for netip. Undefined when it does not parse.
 */
function sloppyFamily(cidr: string): 4 | 6 | undefined {
  const family = cidrFamily(cidr);
  if (family !== 6) return family;
  return parseIP(cidr.slice(0, cidr.indexOf('/')))?.v4 === true ? 4 : 6;
}

/** validateServiceCIDRSpec: the blocks of a new ServiceCIDR. */
export function validateServiceCIDRSpec(obj: KubeObject): FieldError[] {
  const path = FieldPath.root('spec').child('cidrs');
  const cidrs = cidrsOf(obj);
  if (cidrs.length === 0) return [required(path, 'at least one CIDR required')];
  if (cidrs.length > 2) return [invalidValue(path, cidrs, 'may only hold up to 2 values')];
  if (cidrs.length === 2) {
    // netutils.IsDualStackCIDRStrings: both parse (leniently) and are of different families.
    const [a, b] = cidrs.map(sloppyFamily);
    if (a === undefined || b === undefined || a === b) {
      return [invalidValue(path, cidrs, 'may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64')];
    }
  }
  return cidrs.flatMap((c, i) => validateCIDR(c, path.index(i)));
}

/** ValidateServiceCIDRUpdate: the blocks never change. */
export function validateServiceCIDRUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const cidrs = cidrsOf(obj);
  return jsonEqual(cidrs, cidrsOf(old)) ? [] : [invalidValue(FieldPath.root('spec').child('cidrs'), cidrs, FIELD_IMMUTABLE)];
}

/** The conditions a status write stores (the document's metav1.Condition rules). */
export function validateServiceCIDRStatus(obj: KubeObject): FieldError[] {
  const status = isObject(obj.status) ? obj.status : {};
  return validateConditions(arrayAt(status, 'conditions'), FieldPath.root('status').child('conditions'));
}

/** ValidateIPAddressName: netip's parse error, or the canonical-form rule. Empty names are ObjectMeta's. */
export function ipAddressNameProblems(name: string): string[] {
  const parsed = tryParse(parseAddr, name);
  if ('error' in parsed) return [parsed.error];
  return addrString(parsed.ok) === name ? [] : ['must be a canonical format IP address'];
}

/** The family of a valid IPAddress name (4 or 6), undefined for anything else. */
export function ipAddressFamily(name: string): 4 | 6 | undefined {
  const parsed = tryParse(parseAddr, name);
  if ('error' in parsed) return undefined;
  return is4(parsed.ok) ? 4 : 6;
}

function validateParentReference(spec: JsonObject): FieldError[] {
  const path = FieldPath.root('spec').child('parentRef');
  if (!isObject(spec.parentRef)) return [required(path, '')];
  const ref = spec.parentRef;
  const errs: FieldError[] = [];
  const group = stringAt(ref, 'group');
  // The core group (Services) is the empty one, so a missing group is fine.
  if (group !== '') for (const msg of isDNS1123Subdomain(group)) errs.push(invalidValue(path.child('group'), group, msg));
  for (const member of ['resource', 'name'] as const) {
    const value = stringAt(ref, member);
    if (value === '') errs.push(required(path.child(member), ''));
    else for (const msg of isPathSegmentName(value)) errs.push(invalidValue(path.child(member), value, msg));
  }
  const namespace = stringAt(ref, 'namespace');
  if (namespace !== '') for (const msg of isPathSegmentName(namespace)) errs.push(invalidValue(path.child('namespace'), namespace, msg));
  return errs;
}

/** ValidateIPAddress (create and update): the name and the parent reference. */
export function validateIPAddress(obj: KubeObject): FieldError[] {
  const name = obj.metadata.name ?? '';
  const errs: FieldError[] = name === '' ? [] : ipAddressNameProblems(name).map((msg) => invalidValue('metadata.name', name, msg));
  return [...errs, ...validateParentReference(specOf(obj))];
}

/** ValidateIPAddressUpdate: the parent reference never changes. */
export function validateIPAddressUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const ref = specOf(obj).parentRef;
  if (jsonEqual(ref ?? null, specOf(old).parentRef ?? null)) return [];
  return [invalidValue(FieldPath.root('spec').child('parentRef'), ref ?? null, FIELD_IMMUTABLE)];
}
