/**
 * Benchmark part `freeze` (`--only=freeze`): what deep-freezing the watch cache's objects costs
 * (storage/cache/deep-freeze.ts; `PLATFORM_FREEZE_CACHE`, on in the test suite), to decide whether
 * production freezes too. In this process, no server:
 *
 *   per object  for a ConfigMap of ~1 KiB of JSON and a Pod of ~5 KiB (two containers, managedFields,
 *               status), as stored: the cache's decode (`JSON.parse` + resourceVersion), the freeze of the
 *               decoded object, and the first `JSON.stringify` of a frozen object against a mutable one (the
 *               memoized encoding every list, get and watch event reuses); median of rounds, rotating
 *   ingest      updates through an embedded store at concurrency 16 into a watch cache with one watcher that
 *               reads every event's object and memoizes its JSON (what the watch handler does), freeze off
 *               against on, alternating rounds: updates per second end to end, this process's CPU per update,
 *               and the watcher's own time per event (the lazy decode, the freeze, the JSON)
 *   heap        bytes per decoded object kept, mutable against frozen (after GC)
 * Per-object figures are CPU time (process.cpuUsage), so other work on a shared machine blurs them less.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { KubeObject } from '../apiserver/api/object.js';
import { memoJson } from '../apiserver/codec/shared-json.js';
import { decodeObject, encodeObject } from '../apiserver/registry/generic/object-codec.js';
import { deepFreeze } from '../storage/cache/deep-freeze.js';
import { createWatchCache } from '../storage/cache/watch-cache.js';
import type { KeyValue } from '../storage/interface.js';
import { openMemoryStore } from '../storage/memory/memory-store.js';
import { fmt, measure, table } from './measure.js';

export interface FreezeBenchOptions {
  readonly scale?: number;
}

const ROUNDS = 11;
const ROUND_MS = 100;
const INGEST_ROUNDS = 7;
const CONCURRENCY = 16;

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** A ConfigMap with ~1 KiB of JSON, as the other parts write them. */
function configMap(): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'bench-freeze',
      namespace: 'default',
      uid: '5b0c2f7e-3c1d-4a8e-9f6b-2d4e6a8c0b1d',
      creationTimestamp: '2026-11-24T09:00:00Z',
      labels: { app: 'bench', tier: 'config' },
    },
    data: { 'app.properties': 'x'.repeat(700), 'log.level': 'info', 'feature.flags': 'a,b,c' },
  } as KubeObject;
}

/**
 * A scheduled, running Pod with two containers as the store holds it (~5 KiB of JSON): defaults filled in,
 * managedFields and the kubelet's status, unlike the request-side template of bench/kinds.ts.
 */
function pod(): KubeObject {
  const container = (name: string, image: string, port: number): unknown => ({
    name,
    image,
    imagePullPolicy: 'IfNotPresent',
    args: ['--port', String(port), '--log-level=info'],
    ports: [{ name: 'http', containerPort: port, protocol: 'TCP' }],
    env: [
      { name: 'APP', value: 'web' },
      { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
      { name: 'GOMAXPROCS', valueFrom: { resourceFieldRef: { resource: 'limits.cpu', divisor: '1' } } },
    ],
    resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1', memory: '512Mi' } },
    readinessProbe: { httpGet: { path: '/ready', port, scheme: 'HTTP' }, periodSeconds: 5, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 },
    volumeMounts: [{ name: 'config', mountPath: '/etc/app', readOnly: true }, { name: 'kube-api-access', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true }],
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    securityContext: { runAsNonRoot: true, runAsUser: 1000, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
  });
  const status = (name: string, image: string): unknown => ({
    name,
    image,
    imageID: `registry.example.com/${name}@sha256:${'ab'.repeat(32)}`,
    containerID: `containerd://${'cd'.repeat(32)}`,
    ready: true,
    started: true,
    restartCount: 0,
    state: { running: { startedAt: '2026-11-24T09:00:05Z' } },
    lastState: {},
  });
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'web-7d9c8b6f5d-x2k4p',
      generateName: 'web-7d9c8b6f5d-',
      namespace: 'default',
      uid: '0f1e2d3c-4b5a-6978-8776-a5b4c3d2e1f0',
      creationTimestamp: '2026-11-24T09:00:00Z',
      labels: { app: 'web', 'pod-template-hash': '7d9c8b6f5d' },
      annotations: { 'example.com/team': 'storefront' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-7d9c8b6f5d', uid: '9a8b7c6d-5e4f-3a2b-1c0d-e9f8a7b6c5d4', controller: true, blockOwnerDeletion: true }],
      managedFields: [
        {
          manager: 'kube-controller-manager', operation: 'Update', apiVersion: 'v1', time: '2026-11-24T09:00:00Z', fieldsType: 'FieldsV1',
          fieldsV1: { 'f:metadata': { 'f:generateName': {}, 'f:labels': { '.': {}, 'f:app': {}, 'f:pod-template-hash': {} }, 'f:ownerReferences': { '.': {}, 'k:{"uid":"9a8b7c6d-5e4f-3a2b-1c0d-e9f8a7b6c5d4"}': {} } }, 'f:spec': { 'f:containers': { 'k:{"name":"server"}': { '.': {}, 'f:image': {}, 'f:name': {} }, 'k:{"name":"sidecar"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } },
        },
        {
          manager: 'kubelet', operation: 'Update', apiVersion: 'v1', time: '2026-11-24T09:00:06Z', fieldsType: 'FieldsV1', subresource: 'status',
          fieldsV1: { 'f:status': { 'f:conditions': { 'k:{"type":"Ready"}': { '.': {}, 'f:lastTransitionTime': {}, 'f:status': {}, 'f:type': {} } }, 'f:containerStatuses': {}, 'f:hostIP': {}, 'f:phase': {}, 'f:podIP': {}, 'f:startTime': {} } },
        },
      ],
    },
    spec: {
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: 'default',
      nodeName: 'node-3',
      schedulerName: 'default-scheduler',
      priority: 0,
      enableServiceLinks: true,
      containers: [container('server', 'registry.example.com/app/server:1.4.2', 8080), container('sidecar', 'registry.example.com/app/proxy:2.1.0', 9090)],
      volumes: [
        { name: 'config', configMap: { name: 'web-config', defaultMode: 420 } },
        { name: 'kube-api-access', projected: { defaultMode: 420, sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } }, { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } }, { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } }] } },
      ],
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
    },
    status: {
      phase: 'Running',
      hostIP: '10.0.0.13',
      podIP: '10.244.3.17',
      podIPs: [{ ip: '10.244.3.17' }],
      startTime: '2026-11-24T09:00:01Z',
      qosClass: 'Burstable',
      conditions: ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({ type, status: 'True', lastProbeTime: null, lastTransitionTime: '2026-11-24T09:00:06Z' })),
      containerStatuses: [status('server', 'registry.example.com/app/server:1.4.2'), status('sidecar', 'registry.example.com/app/proxy:2.1.0')],
    },
  } as KubeObject;
}

interface PerObject {
  readonly label: string;
  readonly jsonBytes: number;
  readonly decodeUs: number;
  readonly freezeUs: number;
  readonly stringifyMutableUs: number;
  readonly stringifyFrozenUs: number;
}

/** CPU time of this process (user + system) in microseconds: other processes on the machine do not count. */
function cpuUs(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

/**
 * CPU microseconds per call of `fn(i)`: batches of ~ROUND_MS of CPU, the median over ROUNDS, the steps rotating
 * within a round. CPU time rather than wall time: the machine is shared, and a batch preempted by another
 * process would count its wait.
 */
function perCall(steps: Record<string, (i: number) => unknown>): Record<string, number> {
  const names = Object.keys(steps);
  const batch: Record<string, number> = {};
  for (const n of names) {
    // Warm-up and batch sizing: as many calls as take ~ROUND_MS of CPU, over 300 ms of CPU.
    let calls = 0;
    const t0 = cpuUs();
    while (cpuUs() - t0 < 300_000) for (let k = 0; k < 64; k++) steps[n]!(calls++);
    batch[n] = Math.max(1, Math.round((calls * ROUND_MS) / 300));
  }
  const samples: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < ROUNDS; r++) {
    for (const n of names) {
      const fn = steps[n]!;
      const count = batch[n]!;
      const t0 = cpuUs();
      for (let i = 0; i < count; i++) fn(i);
      samples[n]!.push((cpuUs() - t0) / count);
    }
  }
  return Object.fromEntries(names.map((n) => [n, median(samples[n]!)]));
}

function perObject(label: string, object: KubeObject): PerObject {
  const value = encodeObject(object);
  const kv: KeyValue = { key: '/registry/bench/default/x', value, createRevision: 5, modRevision: 7 };
  // The freeze is timed as the cache pays it: decode then freeze, against decode alone.
  const mutable = Array.from({ length: 4096 }, () => decodeObject(kv));
  const frozen = Array.from({ length: 4096 }, () => deepFreeze(decodeObject(kv)));
  let sink = 0;
  const t = perCall({
    decode: () => {
      sink += decodeObject(kv).metadata.resourceVersion!.length;
    },
    decodeFreeze: () => {
      sink += deepFreeze(decodeObject(kv)).metadata.resourceVersion!.length;
    },
    stringifyMutable: (i) => {
      sink += JSON.stringify(mutable[i & 4095]!).length;
    },
    stringifyFrozen: (i) => {
      sink += JSON.stringify(frozen[i & 4095]!).length;
    },
  });
  if (sink < 0) throw new Error('unreachable');
  return { label, jsonBytes: value.length, decodeUs: t.decode!, freezeUs: t.decodeFreeze! - t.decode!, stringifyMutableUs: t.stringifyMutable!, stringifyFrozenUs: t.stringifyFrozen! };
}

/** Heap bytes per object kept (20,000 decoded copies, after GC), mutable against frozen. */
function heapPerObject(object: KubeObject): { mutable: number; frozen: number } {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const heap = (): number => {
    for (let i = 0; i < 3; i++) gc();
    return process.memoryUsage().heapUsed;
  };
  const text = JSON.stringify(object);
  const copies = 20_000;
  const per = (freeze: boolean): number => {
    const before = heap();
    const keep: unknown[] = [];
    for (let i = 0; i < copies; i++) keep.push(freeze ? deepFreeze(JSON.parse(text)) : JSON.parse(text));
    const after = heap();
    if (keep.length !== copies) throw new Error('unreachable');
    return (after - before) / copies;
  };
  const m: number[] = [];
  const f: number[] = [];
  for (let r = 0; r < 3; r++) {
    m.push(per(false));
    f.push(per(true));
  }
  return { mutable: median(m), frozen: median(f) };
}

interface Ingest {
  readonly events: number;
  /** Updates per second end to end. */
  readonly off: number;
  readonly on: number;
  /** Microseconds per event spent reading the event's object (decode, freeze) and encoding its JSON. */
  readonly offUs: number;
  readonly onUs: number;
  /** CPU microseconds of this process (store, cache, watcher) per update. */
  readonly offCpuUs: number;
  readonly onCpuUs: number;
}

/** Updates/s end to end (store write, cache ingest, the watcher's decode and JSON) with freeze off and on. */
async function ingest(updates: number): Promise<Ingest> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-freeze-'));
  const store = await openMemoryStore({ dataDir: dir });
  const keys = 256;
  const body = pod();
  try {
    const samples: { off: number[]; on: number[] } = { off: [], on: [] };
    const perEvent: { off: number[]; on: number[] } = { off: [], on: [] };
    const cpu: { off: number[]; on: number[] } = { off: [], on: [] };
    for (let round = 0; round < INGEST_ROUNDS * 2; round++) {
      const freeze = round % 2 === 1;
      const prefix = `/registry/pods/round-${round}/`;
      const cache = createWatchCache<KubeObject>(store, prefix, { decode: decodeObject, resource: 'pods', freeze });
      await cache.ready();
      const watcher = cache.watch({ keyPrefix: prefix, start: { kind: 'from', revision: cache.revision } });
      await watcher.started;
      let seen = 0;
      let reader = 0;
      let done!: () => void;
      const all = new Promise<void>((resolve) => {
        done = resolve;
      });
      const reading = (async () => {
        for await (const ev of watcher) {
          if (ev.type === 'BOOKMARK') continue;
          const t = performance.now();
          memoJson(ev.object.object, ev.object.memo);
          reader += performance.now() - t;
          if (++seen === updates) done();
        }
      })();
      const revs = new Map<string, number>();
      const t0 = performance.now();
      const c0 = cpuUs();
      await measure(updates, CONCURRENCY, async (i) => {
        const name = `p-${i % keys}`;
        const key = `${prefix}${name}`;
        const obj = { ...body, metadata: { ...body.metadata, name, labels: { app: 'web', n: String(i) } } } as KubeObject;
        // One writer per key at a time in practice (i % keys, concurrency < keys); a lost compare re-reads.
        for (;;) {
          const rev = revs.get(key);
          try {
            revs.set(key, rev === undefined ? (await store.create(key, encodeObject(obj))).revision : (await store.update(key, encodeObject(obj), rev)).revision);
            return;
          } catch (err) {
            const current = (await store.get(key)).kv;
            if (current === undefined || current.modRevision === rev) throw err;
            revs.set(key, current.modRevision);
          }
        }
      });
      await all;
      const seconds = (performance.now() - t0) / 1000;
      (freeze ? cpu.on : cpu.off).push((cpuUs() - c0) / updates);
      (freeze ? samples.on : samples.off).push(updates / seconds);
      (freeze ? perEvent.on : perEvent.off).push((reader * 1000) / updates);
      watcher.close();
      await reading;
      cache.stop();
    }
    return { events: updates, off: median(samples.off), on: median(samples.on), offUs: median(perEvent.off), onUs: median(perEvent.on), offCpuUs: median(cpu.off), onCpuUs: median(cpu.on) };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the part and returns its markdown section. */
export async function benchFreeze(options: FreezeBenchOptions = {}): Promise<string> {
  const scale = options.scale ?? 1;
  const rows = [perObject('ConfigMap', configMap()), perObject('Pod', pod())];
  const heaps = [heapPerObject(configMap()), heapPerObject(pod())];
  const updates = Math.max(512, Math.round(8_000 * scale));
  const ing = await ingest(updates);
  const pct = (a: number, b: number): string => `${a >= b ? '+' : ''}${fmt(((a - b) / b) * 100, 1)} %`;
  return [
    '### Part freeze: frozen watch cache objects',
    '',
    `#### Per object (in process, CPU time; median of ${ROUNDS} rounds of ~${ROUND_MS} ms of CPU per step, steps rotating)`,
    '',
    table(
      ['object', 'JSON bytes', 'decode (JSON.parse + rv)', 'deep freeze (decode + freeze, minus decode)', 'freeze / decode', 'first JSON.stringify, mutable', 'frozen'],
      rows.map((r) => [
        r.label,
        String(r.jsonBytes),
        `${fmt(r.decodeUs, 2)} µs`,
        `${fmt(r.freezeUs, 2)} µs`,
        `${fmt((r.freezeUs / r.decodeUs) * 100)} %`,
        `${fmt(r.stringifyMutableUs, 2)} µs`,
        `${fmt(r.stringifyFrozenUs, 2)} µs (${pct(r.stringifyFrozenUs, r.stringifyMutableUs)})`,
      ]),
    ),
    '',
    '#### Heap per decoded object (20,000 copies kept, after GC; median of 3)',
    '',
    table(['object', 'mutable', 'frozen', 'vs mutable'], rows.map((r, i) => [
      r.label,
      `${fmt(heaps[i]!.mutable)} B`,
      `${fmt(heaps[i]!.frozen)} B`,
      pct(heaps[i]!.frozen, heaps[i]!.mutable),
    ])),
    '',
    `#### Ingest: Pod updates through an embedded store into a watch cache, one watcher reading each event's object and memoizing its JSON (concurrency ${CONCURRENCY}, ${ing.events} updates per round over 256 keys, median of ${INGEST_ROUNDS} alternating rounds)`,
    '',
    table(['freeze', 'updates/s end to end', 'vs off', 'CPU µs per update (store, cache, watcher)', 'vs off', 'watcher: µs per event (decode, freeze, JSON)', 'vs off'], [
      ['off', fmt(ing.off), '', fmt(ing.offCpuUs, 1), '', fmt(ing.offUs, 1), ''],
      ['on', fmt(ing.on), pct(ing.on, ing.off), fmt(ing.onCpuUs, 1), pct(ing.onCpuUs, ing.offCpuUs), fmt(ing.onUs, 1), pct(ing.onUs, ing.offUs)],
    ]),
  ].join('\n');
}
