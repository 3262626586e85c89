/**
 * One request's audit record: made by the audit filter only when the policy level is Metadata or more,
 * attached to `ctx.state.audit`, and fed by the handlers through three cheap hooks (request object, patch,
 * response object). Each stage the policy does not omit becomes one line, an `audit.<domain>/v1` Event in
 * kube-apiserver 1.32's JSON (keys in its order) or kube's legacy one-line text.
 *
 * Costs: at Metadata the hooks only read the object's metadata (name, namespace, uid, resourceVersion fill
 * the objectRef, as kube's LogRequestObject does at every level); objects are encoded only at Request
 * (request object, patch) and RequestResponse (also the response object), once, when handed over, so later
 * mutation by the registry cannot change what is logged. The parts common to every stage are encoded once.
 */
import type { UserInfo } from '../auth/user-info.js';
import type { RequestInfo } from '../request/request-info.js';
import type { AuditMetrics } from '../metrics/audit-metrics.js';
import { formatMicroTime, formatRfc3339Nano, nowMicros } from './micro-time.js';
import { stageBit, type RequestAuditConfig } from './policy-checker.js';
import type { AuditStage } from './policy.js';
import { auditView, type Sensitivity } from './redact.js';

/** Where event lines go (log-backend.ts): never blocks; false when the line was dropped. */
export interface AuditSink {
  write(line: string): boolean;
}

/** What every request of one server shares. */
export interface AuditEnvironment {
  readonly sink: AuditSink;
  readonly metrics: AuditMetrics;
  /** `audit.<domain>/v1`. */
  readonly apiVersion: string;
  readonly format: 'json' | 'legacy';
  /** `authorization.<domain>/decision` and `/reason` (kube's `authorization.k8s.io/...`). */
  readonly decisionKey: string;
  readonly reasonKey: string;
}

/** The `responseStatus` of an event: the bounded fields of a metav1.Status kube copies there. */
export interface ResponseStatus {
  status?: string;
  message?: string;
  reason?: string;
  details?: unknown;
  code: number;
}

export interface RequestAuditInit {
  readonly config: RequestAuditConfig;
  readonly auditID: string;
  readonly requestURI: string;
  readonly info: RequestInfo;
  /** The authenticated caller; undefined for a request that failed authentication (`"user":{}`). */
  readonly user: UserInfo | undefined;
  /**
   * The user the caller impersonates, when already known. The audit filter runs before impersonation (as
   * kube's), so it leaves this out and the impersonation filter reports the user through `impersonated()`.
   */
  readonly impersonatedUser?: UserInfo | undefined;
  readonly sourceIPs: readonly string[];
  readonly userAgent: string;
  readonly sensitivity: Sensitivity;
  /**
   * Holds the request's annotations (admission policies, deprecation) as `auditAnnotations`, set before or
   * after this record is made: read at each stage. The audit filter passes the request's `ctx.state`.
   */
  readonly annotations: { readonly auditAnnotations?: Record<string, string> | undefined };
}

const maxUserAgentLength = 1024;

/** The JSON of users, kept per (frozen, often shared) UserInfo: most requests come from a few users. */
const userJsonCache = new WeakMap<UserInfo, string>();

function userJson(u: UserInfo): string {
  let text = userJsonCache.get(u);
  if (text === undefined) {
    text = JSON.stringify({
      username: u.name,
      ...(u.uid === '' ? {} : { uid: u.uid }),
      ...(u.groups.length === 0 ? {} : { groups: u.groups }),
      ...(u.extra === undefined || Object.keys(u.extra).length === 0 ? {} : { extra: u.extra }),
    });
    userJsonCache.set(u, text);
  }
  return text;
}

/**
 * The constant parts of an environment's event lines, encoded once: every line is a handful of these and of
 * the per-request parts, joined without building and stringifying an Event object.
 */
interface Template {
  /** Per level: `{"kind":"Event","apiVersion":"…","level":"…","auditID":`. */
  readonly heads: Readonly<Record<string, string>>;
  /** Per stage: `,"stage":"…"`. */
  readonly stages: Readonly<Record<AuditStage, string>>;
  /** The authorization annotations when they are the only ones, up to the reason's value. */
  readonly allow: string;
  readonly forbid: string;
  readonly decisionKey: string;
  readonly reasonKey: string;
}

const templates = new WeakMap<AuditEnvironment, Template>();

function templateOf(env: AuditEnvironment): Template {
  let t = templates.get(env);
  if (t === undefined) {
    const heads: Record<string, string> = {};
    for (const level of ['None', 'Metadata', 'Request', 'RequestResponse']) {
      heads[level] = `{"kind":"Event","apiVersion":${JSON.stringify(env.apiVersion)},"level":"${level}","auditID":`;
    }
    const stages = {} as Record<AuditStage, string>;
    for (const stage of Object.keys(stageBit) as AuditStage[]) stages[stage] = `,"stage":"${stage}"`;
    const decisionKey = JSON.stringify(env.decisionKey);
    const reasonKey = JSON.stringify(env.reasonKey);
    // Go writes map keys sorted: `…/decision` before `…/reason` (they share the group prefix).
    const verdict = (d: string): string => `,"annotations":{${decisionKey}:"${d}",${reasonKey}:`;
    t = { heads, stages, allow: verdict('allow'), forbid: verdict('forbid'), decisionKey: env.decisionKey, reasonKey: env.reasonKey };
    templates.set(env, t);
  }
  return t;
}

/** `,"responseStatus":{"metadata":{},"code":N}` of the plain answers, kept per code. */
const plainStatus: string[] = [];

function plainStatusJson(code: number): string {
  const i = code - 100;
  if (i < 0 || i >= 500 || !Number.isInteger(code)) return `,"responseStatus":{"metadata":{},"code":${code}}`;
  return (plainStatus[i] ??= `,"responseStatus":{"metadata":{},"code":${code}}`);
}

/** The JSON of a sourceIPs list, kept per (often per-connection, shared) array. */
const ipsJsonCache = new WeakMap<readonly string[], string>();

function ipsJson(ips: readonly string[]): string {
  // Only the shared lists (source-ips.ts freezes those) are worth a cache entry.
  if (!Object.isFrozen(ips)) return JSON.stringify(ips);
  let text = ipsJsonCache.get(ips);
  if (text === undefined) {
    text = JSON.stringify(ips);
    ipsJsonCache.set(ips, text);
  }
  return text;
}

function metaString(meta: Record<string, unknown>, key: string): string {
  const v = meta[key];
  return typeof v === 'string' ? v : '';
}

export class RequestAudit {
  readonly level: RequestAuditConfig['level'];
  readonly #config: RequestAuditConfig;
  readonly #env: AuditEnvironment;
  readonly #init: RequestAuditInit;
  readonly #received = nowMicros();
  /** `{"kind":…,"auditID":"…"`: the line's start up to the stage. */
  #head: string | undefined;
  /** `,"requestReceivedTimestamp":"…","stageTimestamp":"`. */
  #stamps: string | undefined;
  #receivedText: string | undefined;
  /** From requestURI to objectRef: what every stage shares (until impersonated() or the request object changes it). */
  #common: string | undefined;
  // objectRef, filled from the request info, then from the request object's metadata.
  #namespace: string;
  #name: string;
  #uid = '';
  #resourceVersion = '';
  #responseStatus: ResponseStatus | undefined;
  #requestObject: string | undefined;
  #responseObject: string | undefined;
  #decision: string | undefined;
  #reason: string | undefined;
  #impersonatedUser: UserInfo | undefined;

  constructor(env: AuditEnvironment, init: RequestAuditInit) {
    this.#env = env;
    this.#init = init;
    this.#config = init.config;
    this.level = init.config.level;
    this.#namespace = init.info.namespace;
    this.#name = init.info.name;
    this.#impersonatedUser = init.impersonatedUser;
  }

  /**
   * The impersonation filter accepted the request's impersonation headers: the events of the later stages
   * name `user` as `impersonatedUser` (RequestReceived, already emitted, does not, as in kube).
   */
  impersonated(user: UserInfo): void {
    this.#impersonatedUser = user;
    this.#common = undefined;
  }

  /** The decoded body of create/update (before admission and defaults). */
  requestObject(obj: unknown): void {
    if (obj !== null && typeof obj === 'object') {
      const meta = (obj as { metadata?: unknown }).metadata;
      if (meta !== null && typeof meta === 'object') {
        const m = meta as Record<string, unknown>;
        const before = this.#namespace.length + this.#name.length + this.#uid.length + this.#resourceVersion.length;
        if (this.#namespace === '') this.#namespace = metaString(m, 'namespace');
        if (this.#name === '') this.#name = metaString(m, 'name');
        if (this.#uid === '') this.#uid = metaString(m, 'uid');
        if (this.#resourceVersion === '') this.#resourceVersion = metaString(m, 'resourceVersion');
        // Only empty members are filled: a change of the objectRef shows in the total length.
        if (this.#namespace.length + this.#name.length + this.#uid.length + this.#resourceVersion.length !== before) this.#common = undefined;
      }
    }
    if (this.level === 'Request' || this.level === 'RequestResponse') this.#requestObject = this.#encode(obj);
  }

  /** The patch document of a patch request (a JSON patch array, a merge or apply object). */
  requestPatch(patch: unknown): void {
    if (this.level === 'Request' || this.level === 'RequestResponse') this.#requestObject = this.#encode(patch);
  }

  /** The body answered (object, list, Table, Status); a Status also fills `responseStatus`. */
  responseObject(value: unknown): void {
    if (value !== null && typeof value === 'object' && (value as { kind?: unknown }).kind === 'Status') {
      this.fail(value as ResponseStatus);
    }
    if (this.level === 'RequestResponse') this.#responseObject = this.#encode(value);
  }

  /**
   * The authorizer's verdict, as kube's `authorization.k8s.io/decision` and `/reason` annotations (the reason
   * even when empty, as kube records it).
   */
  authorized(allowed: boolean, reason: string): void {
    this.#decision = allowed ? 'allow' : 'forbid';
    this.#reason = reason;
  }

  /** The response code (headers out or request done), unless a Status already set it. */
  status(code: number): void {
    if (this.#responseStatus === undefined) this.#responseStatus = { code };
    else this.#responseStatus.code = code;
  }

  /** A failure Status: its bounded fields (status, message, reason, details, code). */
  fail(s: { status?: unknown; message?: unknown; reason?: unknown; details?: unknown; code?: unknown }): void {
    const out: ResponseStatus = { code: typeof s.code === 'number' ? s.code : (this.#responseStatus?.code ?? 0) };
    if (typeof s.status === 'string' && s.status !== '') out.status = s.status;
    if (typeof s.message === 'string' && s.message !== '') out.message = s.message;
    if (typeof s.reason === 'string' && s.reason !== '') out.reason = s.reason;
    if (s.details !== undefined) out.details = s.details;
    this.#responseStatus = out;
  }

  /** True once a Status with the failure's fields was recorded. */
  get hasStatusBody(): boolean {
    return this.#responseStatus?.status !== undefined;
  }

  /**
   * Emits the event of `stage` unless the policy omits it. Returns false when the backend dropped it.
   */
  emit(stage: AuditStage): boolean {
    if ((this.#config.omitStages & stageBit[stage]) !== 0) return true;
    const line = this.#env.format === 'json' ? this.#jsonLine(stage) : this.#legacyLine(stage);
    this.#env.metrics.eventRecorded();
    return this.#env.sink.write(line);
  }

  #encode(value: unknown): string | undefined {
    try {
      return JSON.stringify(auditView(value, this.#config.omitManagedFields, this.#init.sensitivity));
    } catch {
      return undefined;
    }
  }

  /** The members every stage shares, from requestURI to objectRef. */
  #commonPart(): string {
    if (this.#common !== undefined) return this.#common;
    const i = this.#init;
    let ua = i.userAgent;
    if (ua.length > maxUserAgentLength) ua = `${ua.slice(0, maxUserAgentLength)}...TRUNCATED`;
    let s = `,"requestURI":${JSON.stringify(i.requestURI)},"verb":${JSON.stringify(i.info.verb)},"user":${i.user === undefined ? '{}' : userJson(i.user)}`;
    if (this.#impersonatedUser !== undefined) s += `,"impersonatedUser":${userJson(this.#impersonatedUser)}`;
    if (i.sourceIPs.length > 0) s += `,"sourceIPs":${ipsJson(i.sourceIPs)}`;
    if (ua !== '') s += `,"userAgent":${JSON.stringify(ua)}`;
    const info = i.info;
    if (info.isResourceRequest) {
      // kube's ObjectReference order; empty members left out (Go's omitempty).
      let ref = '';
      if (info.resource !== '') ref += `,"resource":${JSON.stringify(info.resource)}`;
      if (this.#namespace !== '') ref += `,"namespace":${JSON.stringify(this.#namespace)}`;
      if (this.#name !== '') ref += `,"name":${JSON.stringify(this.#name)}`;
      if (this.#uid !== '') ref += `,"uid":${JSON.stringify(this.#uid)}`;
      if (info.apiGroup !== '') ref += `,"apiGroup":${JSON.stringify(info.apiGroup)}`;
      if (info.apiVersion !== '') ref += `,"apiVersion":${JSON.stringify(info.apiVersion)}`;
      if (this.#resourceVersion !== '') ref += `,"resourceVersion":${JSON.stringify(this.#resourceVersion)}`;
      if (info.subresource !== '') ref += `,"subresource":${JSON.stringify(info.subresource)}`;
      s += ref === '' ? ',"objectRef":{}' : `,"objectRef":{${ref.slice(1)}}`;
    }
    this.#common = s;
    return s;
  }

  /** `,"annotations":{…}` (keys sorted, as Go writes a map), or '' when there are none. */
  #annotationsPart(): string {
    const given = this.#init.annotations.auditAnnotations;
    const t = templateOf(this.#env);
    if (given === undefined || Object.keys(given).length === 0) {
      if (this.#decision === undefined) return '';
      return `${this.#decision === 'allow' ? t.allow : t.forbid}${JSON.stringify(this.#reason ?? '')}}`;
    }
    const all: Record<string, string> = { ...given };
    if (this.#decision !== undefined) {
      all[t.decisionKey] = this.#decision;
      all[t.reasonKey] = this.#reason ?? '';
    }
    let s = '';
    for (const key of Object.keys(all).sort()) s += `,${JSON.stringify(key)}:${JSON.stringify(all[key])}`;
    return `,"annotations":{${s.slice(1)}}`;
  }

  /** `,"responseStatus":{…}`: the code alone for most answers, kept per code. */
  #statusPart(st: ResponseStatus): string {
    if (st.status === undefined && st.message === undefined && st.reason === undefined && st.details === undefined) return plainStatusJson(st.code);
    let s = `,"responseStatus":{"metadata":{}`;
    if (st.status !== undefined) s += `,"status":${JSON.stringify(st.status)}`;
    if (st.message !== undefined) s += `,"message":${JSON.stringify(st.message)}`;
    if (st.reason !== undefined) s += `,"reason":${JSON.stringify(st.reason)}`;
    if (st.details !== undefined) s += `,"details":${JSON.stringify(st.details)}`;
    return `${s},"code":${st.code}}`;
  }

  /**
   * The Event in kube's member order: kind, apiVersion, level, auditID, stage, requestURI, verb, user,
   * impersonatedUser, sourceIPs, userAgent, objectRef, responseStatus, requestObject, responseObject,
   * requestReceivedTimestamp, stageTimestamp, annotations.
   */
  #jsonLine(stage: AuditStage): string {
    const t = templateOf(this.#env);
    this.#head ??= `${t.heads[this.level]}${JSON.stringify(this.#init.auditID)}`;
    let s = `${this.#head}${t.stages[stage]}${this.#commonPart()}`;
    if (stage !== 'RequestReceived') {
      const st = this.#responseStatus;
      if (st !== undefined) s += this.#statusPart(st);
      if (this.#requestObject !== undefined) s += `,"requestObject":${this.#requestObject}`;
      if (this.#responseObject !== undefined && (stage === 'ResponseComplete' || stage === 'Panic')) s += `,"responseObject":${this.#responseObject}`;
    }
    if (this.#stamps === undefined) {
      this.#receivedText = formatMicroTime(this.#received);
      this.#stamps = `,"requestReceivedTimestamp":"${this.#receivedText}","stageTimestamp":"`;
    }
    // RequestReceived is stamped with the time the request was received, as kube stamps it.
    const stageText = stage === 'RequestReceived' ? this.#receivedText! : formatMicroTime(nowMicros());
    return `${s}${this.#stamps}${stageText}"${this.#annotationsPart()}}`;
  }

  /** kube's legacy format (`--audit-log-format=legacy`): one line of quoted fields. */
  #legacyLine(stage: AuditStage): string {
    const i = this.#init;
    // kube attributes the event to the caller and lists the impersonated user as `as`.
    const q = (v: string): string => JSON.stringify(v);
    const list = (l: readonly string[]): string => l.map(q).join(',');
    const user = i.user;
    const username = user !== undefined && user.name !== '' ? user.name : '<none>';
    const groups = user !== undefined && user.name !== '' && user.groups.length > 0 ? list(user.groups) : '<none>';
    const as = this.#impersonatedUser?.name ?? '<self>';
    const asGroups = this.#impersonatedUser !== undefined ? list(this.#impersonatedUser.groups) : '<lookup>';
    const namespace = this.#namespace !== '' && i.info.isResourceRequest ? this.#namespace : '<none>';
    const st = stage === 'RequestReceived' ? undefined : this.#responseStatus;
    const response = st === undefined ? '<deferred>' : String(st.code);
    return `${formatRfc3339Nano(this.#received)} AUDIT: id=${q(i.auditID)} stage=${q(stage)} ip=${q(i.sourceIPs[0] ?? '<unknown>')} method=${q(i.info.verb)} user=${q(username)} groups=${q(groups)} as=${q(as)} asgroups=${q(asGroups)} user-agent=${q(i.userAgent)} namespace=${q(namespace)} uri=${q(i.requestURI)} response="${response}"`;
  }
}
