/**
 * The Available condition of remote APIServices (kube-aggregator's remote AvailableConditionController),
 * run by every replica as kube-apiserver runs it: each APIService with a service is probed when it
 * appears or changes and then every `intervalMs` (10 s; kube resyncs every 30 s and requeues failures
 * within seconds): a GET of its discovery path (`/apis/<group>/<version>`) through the resolved address,
 * as `system:kube-aggregator` in `system:masters`, presenting the proxy client certificate, without
 * verifying the backend (as kube's probe), within 5 s.
 *
 * - answer 2xx: True, `Passed`, `all checks passed`;
 * - the Service is unknown (the resolver says so, or its DNS name does not resolve): False,
 *   `ServiceNotFound`, `service/<name> in "<namespace>" is not present`;
 * - anything else: False, `FailedDiscoveryCheck`, `failing or missing response from <url>: <cause>`
 *   (`bad status from <url>: <code>`, or Go's transport error).
 *
 * The status is written (status sub-resource, a conditional patch of the current object) only when the
 * condition changed; lastTransitionTime moves only when its status does. Local APIServices are left alone:
 * they were made Available at create.
 */
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '../api/object.js';
import { passLoop, type PassLoop } from '../controllers/pass-loop.js';
import { StatusError } from '../errors/status-error.js';
import type { GenericRegistry } from '../registry/generic/generic-registry.js';
import {
  AVAILABLE,
  conditionTime,
  groupVersionOf,
  serviceOf,
  setCondition,
  type APIServiceCondition,
} from '../registry/kinds/apiregistration/apiservice-conditions.js';
import { BackendError, backendGet, backendUrl } from './backend-client.js';
import type { BackendTransport } from './backend-transport.js';
import { AGGREGATOR_USER } from './backend-documents.js';
import { ServiceNotFoundError, type ServiceResolver } from './service-resolver.js';

export const FIELD_MANAGER = 'platform-apiserver';
const PROBE_TIMEOUT_MS = 5000;

export interface AvailabilityOptions {
  readonly registry: GenericRegistry;
  readonly resolve: ServiceResolver;
  /** The probe transport of an APIService (no verification, the proxy client certificate). */
  transportOf(name: string): BackendTransport | undefined;
  /** The latest object of an APIService, or undefined once it is gone. */
  objectOf(name: string): KubeObject | undefined;
  /** Default 10 s. */
  readonly intervalMs?: number;
  readonly onError?: (err: unknown) => void;
  /** Called after each probe with its condition (logs, tests). */
  readonly onProbed?: (name: string, condition: APIServiceCondition) => void;
}

export interface AvailabilityController {
  /** Probes `name` now (or right after the probe in flight); starts following it when new. */
  check(name: string): void;
  /** Stops probing `name`. */
  forget(name: string): void;
  stop(): Promise<void>;
}

const notPresent = (ns: string, name: string): string => `service/${name} in ${JSON.stringify(ns)} is not present`;

/** The condition one probe of `obj` yields. */
export async function probeAvailability(obj: KubeObject, resolve: ServiceResolver, transport: BackendTransport, now: Date): Promise<APIServiceCondition> {
  const service = serviceOf(obj)!;
  const condition = (status: 'True' | 'False', reason: string, message: string): APIServiceCondition => ({
    type: AVAILABLE,
    status,
    lastTransitionTime: conditionTime(now),
    reason,
    message,
  });
  let endpoint;
  try {
    endpoint = await resolve(service);
  } catch (err) {
    if (err instanceof ServiceNotFoundError) return condition('False', 'ServiceNotFound', notPresent(service.namespace, service.name));
    return condition('False', 'FailedDiscoveryCheck', err instanceof Error ? err.message : String(err));
  }
  const { group, version } = groupVersionOf(obj);
  const path = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
  const url = backendUrl(endpoint, path);
  try {
    const res = await backendGet(transport, endpoint, path, {
      headers: { 'X-Remote-User': AGGREGATOR_USER, 'X-Remote-Group': 'system:masters' },
      timeoutMs: PROBE_TIMEOUT_MS,
      maxBytes: 16 * 1024 * 1024,
    });
    if (res.status < 200 || res.status >= 300) {
      return condition('False', 'FailedDiscoveryCheck', `failing or missing response from ${url}: bad status from ${url}: ${res.status}`);
    }
  } catch (err) {
    if (err instanceof BackendError && (err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN')) {
      return condition('False', 'ServiceNotFound', notPresent(service.namespace, service.name));
    }
    return condition('False', 'FailedDiscoveryCheck', `failing or missing response from ${url}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return condition('True', 'Passed', 'all checks passed');
}

export function startAvailabilityController(o: AvailabilityOptions): AvailabilityController {
  const intervalMs = o.intervalMs ?? 10_000;
  const loops = new Map<string, PassLoop>();
  let stopped = false;

  const write = async (name: string, uid: string | undefined, condition: APIServiceCondition): Promise<void> => {
    try {
      await o.registry.patch(
        '',
        name,
        (current) => {
          // Replaced or turned local since the probe: its own probe decides.
          if (current.metadata.uid !== uid || serviceOf(current) === undefined) return current;
          const next = structuredClone(current);
          setCondition(next, condition);
          return isDeepStrictEqual(next.status, current.status) ? current : next;
        },
        { subresource: 'status', fieldManager: FIELD_MANAGER },
      );
    } catch (err) {
      // Deleted since: nothing to report.
      if (!(err instanceof StatusError && err.reason === 'NotFound')) throw err;
    }
  };

  const pass = (name: string) => async (): Promise<void> => {
    const obj = o.objectOf(name);
    const transport = o.transportOf(name);
    if (obj === undefined || transport === undefined || serviceOf(obj) === undefined) return;
    const condition = await probeAvailability(obj, o.resolve, transport, new Date());
    o.onProbed?.(name, condition);
    const latest = o.objectOf(name);
    if (stopped || latest === undefined) return;
    await write(name, latest.metadata.uid, condition);
  };

  return {
    check(name) {
      if (stopped) return;
      let loop = loops.get(name);
      if (loop === undefined) loops.set(name, (loop = passLoop(pass(name), intervalMs, o.onError)));
      loop.kick();
    },
    forget(name) {
      const loop = loops.get(name);
      loops.delete(name);
      void loop?.stop();
    },
    async stop() {
      stopped = true;
      await Promise.all([...loops.values()].map((l) => l.stop()));
      loops.clear();
    },
  };
}
