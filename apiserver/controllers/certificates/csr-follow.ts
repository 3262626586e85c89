/**
 * The loop both CSR controllers share (kube's certificate controller base): a pass over every
 * CertificateSigningRequest in the watch cache after each event (coalesced while one runs) and every
 * `resyncMs`; the watch is re-established from a fresh list when it ends. `handle` is called for each
 * request and decides itself whether there is anything to do, so a pass over settled requests writes
 * nothing (no feedback loop). An error of one request is reported and the others go on; the next event or
 * resync retries it.
 */
import type { KubeObject } from '../../api/object.js';
import type { GenericRegistry } from '../../registry/generic/generic-registry.js';
import { isObject, numberAt, stringAt } from '../../registry/kinds/core/pod/json-values.js';
import { followRegistry } from '../follow-registry.js';
import { passLoop } from '../pass-loop.js';

export interface CsrLoopOptions {
  /** The registry of `certificatesigningrequests`. */
  readonly csrs: GenericRegistry;
  readonly handle: (csr: KubeObject) => Promise<void>;
  /** Default 60 s. */
  readonly resyncMs?: number;
  /** Default 1 s. */
  readonly rewatchDelayMs?: number;
  readonly onError?: (err: unknown, csr?: string) => void;
}

export interface CsrController {
  kick(): void;
  /** Ends the watch; resolves after the pass in flight. */
  stop(): Promise<void>;
}

export function startCsrLoop(o: CsrLoopOptions): CsrController {
  const abort = new AbortController();
  const pass = async (): Promise<void> => {
    const all = (await o.csrs.list('', {})).items;
    for (const csr of all) {
      if (loop.stopped) return;
      try {
        await o.handle(csr);
      } catch (err) {
        o.onError?.(err, csr.metadata.name);
      }
    }
  };
  const loop = passLoop(pass, o.resyncMs ?? 60_000, o.onError);

  const following = followRegistry(o.csrs, loop, abort.signal, { onError: o.onError, rewatchDelayMs: o.rewatchDelayMs });

  return {
    kick: () => loop.kick(),
    async stop() {
      const stopping = loop.stop();
      abort.abort();
      await following;
      await stopping;
    },
  };
}

/** The CSR's spec and status fields the controllers read. */
export interface CsrView {
  readonly name: string;
  readonly signerName: string;
  readonly requestPem: string;
  readonly usages: readonly string[];
  readonly expirationSeconds: number | undefined;
  readonly username: string;
  readonly uid: string;
  readonly groups: readonly string[];
  readonly extra: Readonly<Record<string, readonly string[]>>;
  readonly hasCertificate: boolean;
  /** Condition types with status True. */
  readonly trueConditions: ReadonlySet<string>;
  /** Approved or Denied present (any status). */
  readonly decided: boolean;
}

export function csrView(csr: KubeObject): CsrView {
  const spec = isObject(csr.spec) ? csr.spec : {};
  const status = isObject(csr.status) ? csr.status : {};
  const conditions = Array.isArray(status.conditions) ? status.conditions.filter(isObject) : [];
  const request = Buffer.from(stringAt(spec, 'request'), 'base64').toString('latin1');
  const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  const extra: Record<string, string[]> = {};
  if (isObject(spec.extra)) for (const [k, v] of Object.entries(spec.extra)) extra[k] = strings(v);
  return {
    name: csr.metadata.name ?? '',
    signerName: stringAt(spec, 'signerName'),
    requestPem: request,
    usages: strings(spec.usages),
    expirationSeconds: numberAt(spec, 'expirationSeconds'),
    username: stringAt(spec, 'username'),
    uid: stringAt(spec, 'uid'),
    groups: strings(spec.groups),
    extra,
    hasCertificate: typeof status.certificate === 'string' && status.certificate.length > 0,
    trueConditions: new Set(conditions.filter((c) => c.status === 'True').map((c) => String(c.type))),
    decided: conditions.some((c) => c.type === 'Approved' || c.type === 'Denied'),
  };
}

/** The conditions of `csr` with `condition` appended (lastUpdateTime / lastTransitionTime now). */
export function withCondition(csr: KubeObject, condition: { type: string; reason: string; message: string }): KubeObject {
  const status = isObject(csr.status) ? csr.status : {};
  const conditions = Array.isArray(status.conditions) ? status.conditions : [];
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  return { ...csr, status: { ...status, conditions: [...conditions, { ...condition, status: 'True', lastUpdateTime: now, lastTransitionTime: now }] } };
}
