/**
 * Schemas of the container actions: probes (liveness, readiness, startup) and lifecycle hooks, each made of
 * one handler (exec, httpGet, tcpSocket, grpc; lifecycle also `sleep`). Probe thresholds carry Kubernetes'
 * defaults (timeoutSeconds 1, periodSeconds 10, successThreshold 1, failureThreshold 3), applied when the
 * probe is present.
 */
import type { Schema } from '../../../../schema/schema.js';
import { atomicList, inline, int32, int64, intOrString, obj, ptr, requiredStr, str, stringList } from './schema-builders.js';

export const execActionSchema: Schema = obj('Runs a command in the container.', {
  command: stringList('Command line to run inside the container, not run in a shell; exit status 0 is success.'),
}, undefined, { protobuf: { command: 1 } });

const httpHeaderSchema: Schema = obj(
  'An HTTP header.',
  { name: requiredStr('Header field name; canonicalized on output.'), value: requiredStr('Header field value.') },
  ['name', 'value'],
  { protobuf: { name: 1, value: 2 } },
);

export const httpGetActionSchema: Schema = obj(
  'An HTTP GET request.',
  {
    host: str('Host to connect to; defaults to the pod IP.'),
    httpHeaders: atomicList({ ...httpHeaderSchema, default: {} }, 'Custom headers; repeated headers are allowed.'),
    path: str('Path to request.', { default: '/' }),
    port: intOrString('Port number (1-65535) or IANA_SVC_NAME of the container port.'),
    scheme: str('HTTP or HTTPS; defaults to HTTP.', { default: 'HTTP' }),
  },
  ['port'],
  { protobuf: { path: 1, port: 2, host: 3, scheme: 4, httpHeaders: 5 } },
);

export const tcpSocketActionSchema: Schema = obj(
  'Opens a TCP connection.',
  { host: str('Host to connect to; defaults to the pod IP.'), port: intOrString('Port number (1-65535) or IANA_SVC_NAME of the container port.') },
  ['port'],
  { protobuf: { port: 1, host: 2 } },
);

export const grpcActionSchema: Schema = obj(
  'A gRPC health check.',
  {
    port: int32('Port number of the gRPC service (1-65535).', { default: 0 }),
    service: str('Service name placed in the gRPC HealthCheckRequest; empty means the default behavior of gRPC.', { default: '' }),
  },
  ['port'],
  { protobuf: { port: 1, service: ptr(2) } },
);

export const probeSchema: Schema = obj('A health check run against a container.', {
  exec: execActionSchema,
  failureThreshold: int32('Consecutive failures after which the probe fails; defaults to 3, minimum 1.', { default: 3 }),
  grpc: grpcActionSchema,
  httpGet: httpGetActionSchema,
  initialDelaySeconds: int32('Seconds after container start before the probe starts.'),
  periodSeconds: int32('How often, in seconds, the probe runs; defaults to 10, minimum 1.', { default: 10 }),
  successThreshold: int32('Consecutive successes after a failure for the probe to succeed; defaults to 1, must be 1 for liveness and startup.', { default: 1 }),
  tcpSocket: tcpSocketActionSchema,
  terminationGracePeriodSeconds: int64("Grace period on probe failure, overriding the pod's; minimum 1."),
  timeoutSeconds: int32('Seconds after which the probe times out; defaults to 1, minimum 1.', { default: 1 }),
}, undefined, {
  // The handlers are the embedded ProbeHandler's (field 1).
  protobuf: {
    exec: inline(1, ptr(1)), httpGet: inline(1, ptr(2)), tcpSocket: inline(1, ptr(3)), grpc: inline(1, ptr(4)),
    initialDelaySeconds: 2, timeoutSeconds: 3, periodSeconds: 4, successThreshold: 5, failureThreshold: 6, terminationGracePeriodSeconds: ptr(7),
  },
});

const sleepActionSchema: Schema = obj('Sleeps for a while.', { seconds: int64('Seconds to sleep.', { default: 0 }) }, ['seconds'], { protobuf: { seconds: 1 } });

export const lifecycleHandlerSchema: Schema = obj('An action run by a lifecycle hook; exactly one handler.', {
  exec: execActionSchema,
  httpGet: httpGetActionSchema,
  sleep: sleepActionSchema,
  tcpSocket: { ...tcpSocketActionSchema, description: 'Deprecated: kept for compatibility, not supported as a hook handler.' },
}, undefined, { protobuf: { exec: ptr(1), httpGet: ptr(2), tcpSocket: ptr(3), sleep: ptr(4) } });

export const lifecycleSchema: Schema = obj('Actions taken on container lifecycle events.', {
  postStart: { ...lifecycleHandlerSchema, description: 'Called right after the container is created; the container is restarted when it fails.' },
  preStop: { ...lifecycleHandlerSchema, description: 'Called before the container is terminated; it must finish within the grace period.' },
}, undefined, { protobuf: { postStart: ptr(1), preStop: ptr(2) } });
