/**
 * A short, bounded load on every replica, mixing what an operator's dashboard shows: ConfigMap create,
 * get, update, merge patch, server-side apply, list (namespace and cluster scope, from the watch cache and
 * from the store), delete; expected failures (404 on a missing object, 409 on a duplicate create); discovery
 * and `/version` (non-resource requests); and two watches per replica held open for the whole run
 * (long-running requests, registered watchers, watch events); reads of a custom resource through its
 * deprecated version (a CRD the load creates first: the deprecated-API signals). One TLS handshake per
 * replica is refused by the client (it does not trust the server's CA), which the server counts as a
 * handshake error.
 *
 * The load runs in phases of a fixed number of workers per replica; each phase ends at its deadline (a
 * worker finishes the request in flight). Every response's status is checked: an unexpected one ends the
 * run with an error.
 */
import { request } from 'node:https';
import { connect } from 'node:tls';
import { benchClient, type BenchClient } from '../../../bench/http-client.js';

export interface LoadPhase {
  readonly durationMs: number;
  /** Concurrent request loops per replica. */
  readonly workers: number;
}

export interface LoadTarget {
  readonly url: string;
}

export interface LoadOptions {
  readonly token: string;
  readonly caPem: string;
  readonly phases: readonly LoadPhase[];
  /** Called as each phase starts (for progress output). */
  readonly onPhase?: (index: number, phase: LoadPhase) => void;
}

export interface LoadReport {
  /** Requests completed per replica URL. */
  readonly requests: Record<string, number>;
}

const json = (o: unknown): Buffer => Buffer.from(JSON.stringify(o));

/** The custom resource the load reads through a deprecated version (the server's default group domain). */
const CRD_GROUP = 'load.example.com';
const DEPRECATED_VERSION = 'v1beta1';
const gadgetsCrd = {
  apiVersion: 'apiextensions.platform.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `gadgets.${CRD_GROUP}` },
  spec: {
    group: CRD_GROUP,
    names: { kind: 'Gadget', plural: 'gadgets' },
    scope: 'Namespaced',
    versions: [DEPRECATED_VERSION, 'v1'].map((name) => ({
      name,
      served: true,
      storage: name === 'v1',
      deprecated: name === DEPRECATED_VERSION,
      schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } },
    })),
  },
};

/** Runs the phases against every target at once and resolves when all have ended and the watches closed. */
export async function driveLoad(targets: readonly LoadTarget[], options: LoadOptions): Promise<LoadReport> {
  const maxWorkers = Math.max(...options.phases.map((p) => p.workers));
  const run = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
  const clients = targets.map((t) => benchClient({ url: t.url, token: options.token, caPem: options.caPem, maxSockets: maxWorkers + 2, timeoutMs: 30_000 }));
  const counts = targets.map(() => 0);
  const watches: { close(): void }[] = [];
  try {
    const namespaces = await Promise.all(clients.map(async (client, i) => {
      const ns = `load-${run}-${i}`;
      await client.call('POST', '/api/v1/namespaces', 201, json({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }));
      return ns;
    }));
    await Promise.all(targets.map((t) => untrustedHandshake(t.url)));
    await clients[0]!.call('POST', '/apis/apiextensions.platform.io/v1/customresourcedefinitions', 201, json(gadgetsCrd));
    await Promise.all(clients.map((client, i) => untilServed(client, `/apis/${CRD_GROUP}/${DEPRECATED_VERSION}/namespaces/${namespaces[i]}/gadgets`)));
    for (const [i, t] of targets.entries()) {
      watches.push(openWatch(t.url, `/api/v1/namespaces/${namespaces[i]}/configmaps?watch=true`, options));
      watches.push(openWatch(t.url, '/api/v1/namespaces?watch=true', options));
    }
    let seq = 0;
    for (const [index, phase] of options.phases.entries()) {
      options.onPhase?.(index, phase);
      const deadline = Date.now() + phase.durationMs;
      await Promise.all(clients.flatMap((client, i) => Array.from({ length: phase.workers }, async () => {
        while (Date.now() < deadline) {
          counts[i]! += await cycle(client, namespaces[i]!, seq++);
        }
      })));
    }
  } finally {
    for (const w of watches) w.close();
    for (const c of clients) c.close();
  }
  return { requests: Object.fromEntries(targets.map((t, i) => [t.url, counts[i]!])) };
}

/** One round of requests on ConfigMap `cm-<n>`; returns how many requests it sent. */
async function cycle(client: BenchClient, ns: string, n: number): Promise<number> {
  const name = `cm-${n}`;
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { n: String(n) } };
  let sent = 0;
  const call = async (method: string, path: string, expect: number, body?: Buffer, headers?: Record<string, string>): Promise<any> => {
    sent++;
    const res = await client.call(method, path, expect, body, headers);
    return res.body.length > 0 && res.contentType.includes('json') ? JSON.parse(res.body.toString('utf8')) : undefined;
  };
  await call('POST', base, 201, json(cm));
  const got = await call('GET', `${base}/${name}`, 200);
  await call('PUT', `${base}/${name}`, 200, json({ ...got, data: { n: String(n), updated: 'true' } }));
  await call('PATCH', `${base}/${name}`, 200, json({ data: { patched: 'true' } }), { 'Content-Type': 'application/merge-patch+json' });
  await call('PATCH', `${base}/${name}?fieldManager=load&force=true`, 200,
    json({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { applied: 'true' } }), { 'Content-Type': 'application/apply-patch+yaml' });
  await call('GET', base, 200);
  await call('GET', `${base}?resourceVersion=0`, 200);
  await call('GET', `${base}/${name}?resourceVersion=0`, 200);
  await call('GET', `${base}/missing-${name}`, 404);
  await call('POST', base, 409, json(cm));
  if (n % 4 === 0) {
    await call('GET', '/api/v1/namespaces', 200);
    await call('GET', '/api/v1/configmaps?limit=50', 200);
    await call('GET', '/api', 200);
    await call('GET', '/version', 200);
    await call('GET', `/apis/${CRD_GROUP}/${DEPRECATED_VERSION}/namespaces/${ns}/gadgets`, 200);
  }
  await call('DELETE', `${base}/${name}`, 200);
  return sent;
}

/** A watch held open until `close()`; its events are read and dropped. */
function openWatch(url: string, path: string, options: LoadOptions): { close(): void } {
  const req = request(new URL(path, url), { ca: options.caPem, headers: { Authorization: `Bearer ${options.token}`, Accept: 'application/json' } }, (res) => {
    res.on('error', () => undefined);
    res.resume();
  });
  req.on('error', () => undefined);
  req.end();
  return { close: () => req.destroy() };
}

/** A TLS handshake the client aborts (the server's CA is not trusted): resolves once the client failed. */
function untrustedHandshake(url: string): Promise<void> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port), servername: 'localhost', rejectUnauthorized: true });
    socket.once('secureConnect', () => {
      socket.destroy();
      resolve();
    });
    socket.once('error', () => {
      socket.destroy();
      resolve();
    });
  });
}

/** Polls `path` until it answers 200 (a CRD's version is served on every replica once it is established). */
async function untilServed(client: BenchClient, path: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      await client.call('GET', path, 200);
      return;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`${path} not served within 20 s: ${(err as Error).message}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
