/**
 * The schema of EndpointSlice (`discovery.<domain>/v1`) as Kubernetes v1.32 publishes it, with the field
 * numbers of `k8s.io/api/discovery/v1/generated.proto` (EndpointSlice, Endpoint, EndpointConditions,
 * EndpointHints, ForZone, EndpointPort).
 *
 * Differences from the published OpenAPI, on purpose: `addressType`, `endpoints` and each endpoint's
 * `addresses` are not listed as required, so a missing one reaches the kind's validation and fails with
 * Kubernetes' own cause (`addressType: Required value`, `endpoints[0].addresses: Required value: must
 * contain at least 1 address`). The defaults are v1's: a port's `name` is "" and its `protocol` `TCP`.
 */
import { ptr, type Schema } from '../../../schema/schema.js';
import { objectReferenceSchema } from '../shared/common-schemas.js';
import { atomicList, bool, int32, obj, ref, str, stringMap } from '../shared/schema-builders.js';

const conditionsSchema: Schema = obj(
  'EndpointConditions represents the current condition of an endpoint.',
  {
    ready: bool(
      'Whether this endpoint is ready to receive traffic, according to whatever system is managing it. A nil value should be interpreted as "true". In general an endpoint is ready when it is serving and not terminating, though this can be overridden in some cases, such as when the associated Service has set the publishNotReadyAddresses flag.',
    ),
    serving: bool(
      'Whether this endpoint is ready to receive traffic, like ready, except that it may be true while the endpoint is terminating. A nil value should be interpreted as "true" if the endpoint is ready.',
    ),
    terminating: bool('Whether this endpoint is terminating. A nil value should be interpreted as "false".'),
  },
  undefined,
  { protobuf: { ready: ptr(1), serving: ptr(2), terminating: ptr(3) } },
);

const forZoneSchema: Schema = obj(
  'ForZone provides information about which zones should consume this endpoint.',
  { name: str('The name of the zone.', { default: '' }) },
  ['name'],
  { protobuf: { name: 1 } },
);

const hintsSchema: Schema = obj(
  'EndpointHints provides hints describing how an endpoint should be consumed.',
  { forZones: atomicList({ ...forZoneSchema, default: {} }, 'The zone(s) this endpoint should be consumed by to enable topology aware routing.') },
  undefined,
  { protobuf: { forZones: 1 } },
);

const endpointSchema: Schema = obj(
  'Endpoint represents a single logical "backend" implementing a service.',
  {
    addresses: {
      type: 'array',
      description:
        'The addresses of this endpoint, interpreted per the slice\'s addressType. Consumers must handle different types of addresses in the context of their own capabilities. This must contain at least one address but no more than 100. These are all assumed to be fungible and clients may choose to only use the first element.',
      items: { type: 'string', default: '' },
      'x-kubernetes-list-type': 'set',
    },
    conditions: ref(conditionsSchema, 'Information about the current status of the endpoint.'),
    deprecatedTopology: stringMap(
      'Deprecated topology information; writes through the v1 API are ignored silently, and the field will be removed in a future API version. Use zone and nodeName instead.',
    ),
    hints: ref(hintsSchema, 'Information associated with the endpoint that is necessary to implement topology aware routing.'),
    hostname: str(
      'The hostname of this endpoint; consumers may use it to distinguish endpoints from each other (e.g. in DNS names). Endpoints which use the same hostname should be considered fungible. Must be lowercase and pass DNS Label (RFC 1123) validation.',
    ),
    nodeName: str('The name of the Node hosting this endpoint. This can be used to determine endpoints local to a Node.'),
    targetRef: ref(objectReferenceSchema, 'A reference to a Kubernetes object that represents this endpoint.'),
    zone: str('The name of the Zone this endpoint exists in.'),
  },
  undefined,
  {
    protobuf: {
      addresses: 1,
      conditions: 2,
      hostname: ptr(3),
      targetRef: ptr(4),
      deprecatedTopology: 5,
      nodeName: ptr(6),
      zone: ptr(7),
      hints: ptr(8),
    },
  },
);

const portSchema: Schema = obj(
  'EndpointPort represents a Port used by an EndpointSlice.',
  {
    appProtocol: str(
      'The application protocol for this port, a hint for implementations to offer richer behavior for protocols they understand. It follows standard Kubernetes label syntax: an un-prefixed IANA standard service name, a Kubernetes-defined prefixed name (h2c, ws, wss under the domain), or a domain-prefixed name such as mycompany.com/my-custom-protocol.',
    ),
    name: str(
      'The name of this port. All ports in an EndpointSlice must have a unique name. If the EndpointSlice is derived from a Kubernetes service, this corresponds to the Service.ports[].name. Must be empty or a DNS label (RFC 1123). Default is empty string.',
      { default: '' },
    ),
    port: int32('The port number of the endpoint. If not specified, ports are not restricted and must be interpreted in the context of the specific consumer.'),
    protocol: str('The IP protocol for this port. Must be "TCP", "UDP", or "SCTP". Default is TCP.', { default: 'TCP' }),
  },
  undefined,
  { 'x-kubernetes-map-type': 'atomic', protobuf: { name: ptr(1), protocol: ptr(2), port: ptr(3), appProtocol: ptr(4) } },
);

export const ENDPOINT_SLICE_PROPERTIES: Record<string, Schema> = {
  addressType: str(
    'The type of address carried by this EndpointSlice; all addresses in the slice are of the same type, and the field is immutable after creation. Supported: IPv4 (an IPv4 address), IPv6 (an IPv6 address) and FQDN (a fully qualified domain name).',
    { default: '' },
  ),
  endpoints: atomicList({ ...endpointSchema, default: {} }, 'A list of unique endpoints in this slice. Each slice may include a maximum of 1000 endpoints.'),
  ports: atomicList(
    { ...portSchema, default: {} },
    'The list of network ports exposed by each endpoint in this slice. Each port must have a unique name. When ports is empty, it indicates that there are no defined ports. When a port is defined with a nil port value, it indicates "all ports". Each slice may include a maximum of 100 ports.',
  ),
};

export const ENDPOINT_SLICE_FIELDS = Object.freeze({ endpoints: 2, ports: 3, addressType: 4 });
