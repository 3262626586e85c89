/**
 * What other code needs to write IPAddress objects (the ClusterIP allocator): the canonical name of an
 * address and the IPAddress a Service's address is recorded as. An IPAddress is named by the canonical
 * text form of its address, so two writers that allocate the same address race on the same key and the
 * store lets only one of them create it.
 */
import type { KubeObject } from '../../../api/object.js';
import type { Naming } from '../../../naming/naming.js';
import { addrString, parseAddr, tryParse } from '../../../validation/netip.js';

/**
 * The canonical text form of an IP address (IPv4 dotted decimal without leading zeros, IPv6 per RFC 5952),
 * or undefined when `text` is not an address. Accepts what Go's netip accepts (so no leading zeros in IPv4
 * octets) and rewrites non-canonical IPv6 (`2001:DB8:0:0::1` -> `2001:db8::1`). Zones are refused: a
 * Service address never has one.
 */
export function canonicalIP(text: string): string | undefined {
  const parsed = tryParse(parseAddr, text);
  if ('error' in parsed || parsed.ok.zone !== '') return undefined;
  return addrString(parsed.ok);
}

/** A ParentReference to a Service (core group, resource `services`). */
export interface ServiceRef {
  readonly namespace: string;
  readonly name: string;
}

/**
 * The IPAddress object recording that `ip` belongs to the Service `ref` (apiVersion of the naming's
 * `networking` group, v1beta1). Throws a TypeError if `ip` is not an IP address (the allocator only
 * hands out addresses it computed). Labels and owner references are the caller's choice.
 */
export function ipAddressForService(n: Naming, ip: string, ref: ServiceRef): KubeObject {
  const name = canonicalIP(ip);
  if (name === undefined) throw new TypeError(`not an IP address: ${JSON.stringify(ip)}`);
  return {
    apiVersion: `${n.group('networking')}/v1beta1`,
    kind: 'IPAddress',
    metadata: { name },
    // The core group is the empty group, which Kubernetes leaves out of the JSON (omitempty).
    spec: { parentRef: { resource: 'services', namespace: ref.namespace, name: ref.name } },
  };
}
