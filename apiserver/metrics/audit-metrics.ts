/**
 * The audit log's metrics under kube-apiserver 1.32's names (its `apiserver_audit` subsystem), so alerts
 * written for kube's audit pipeline read them:
 * - `apiserver_audit_event_total`: events generated and handed to the audit backend (one per stage event
 *   that passed the policy, as kube counts them);
 * - `apiserver_audit_error_total{plugin}`: events that could not be audited properly, by backend (`log`
 *   for the log file backend; `buffered` when the bounded buffer in front of it was full and events were
 *   dropped) — the "dropped events" signal of issue 16;
 * - `apiserver_audit_level_total{level}`: the policy level chosen per request;
 * - `apiserver_audit_requests_rejected_total`: requests refused because auditing failed (only in a
 *   strict mode that refuses requests when the log is unhealthy; the default never blocks on the log).
 *
 * The returned recorder pre-resolves nothing per request beyond what prom-client caches: the event counter
 * has no labels, the plugin and level values are a handful of constants.
 */
import { Counter, type Registry } from 'prom-client';
import { CounterFamily, type CounterCell } from './metric-families.js';

export interface AuditMetrics {
  /** One audit event (one stage of one request) was generated and handed to the backend. */
  eventRecorded(): void;
  /** `count` events were lost by `plugin` (a full buffer, a failed write). */
  eventsDropped(plugin: string, count: number): void;
  /** The policy evaluated to `level` for a request (`None`, `Metadata`, `Request`, `RequestResponse`). */
  policyLevel(level: string): void;
  /** A request was refused because its event could not be audited (`--audit-log-mode=blocking-strict`). */
  requestRejected(): void;
}

export function auditMetrics(registry: Registry): AuditMetrics {
  const registers = [registry];
  // Counted per event and per request: series resolved once (metric-families.ts), not through prom-client's
  // labelled children, which hash the labels on every increment.
  const events = new CounterFamily({
    name: 'apiserver_audit_event_total',
    help: 'Counter of audit events generated and sent to the audit backend.',
    labelNames: [],
    registry,
  }).child();
  const errors = new Counter({
    name: 'apiserver_audit_error_total',
    help: 'Counter of audit events that failed to be audited properly. Plugin identifies the plugin affected by the error.',
    labelNames: ['plugin'],
    registers,
  });
  const levels = new CounterFamily({
    name: 'apiserver_audit_level_total',
    help: 'Counter of policy levels for audit events (1 per request).',
    labelNames: ['level'],
    registry,
  });
  const levelCells: Record<string, CounterCell> = {};
  const rejected = new Counter({
    name: 'apiserver_audit_requests_rejected_total',
    help: 'Counter of apiserver requests rejected due to an error in audit logging backend.',
    registers,
  });
  return {
    eventRecorded: () => events.inc(),
    eventsDropped: (plugin, count) => {
      if (count > 0) errors.inc({ plugin }, count);
    },
    policyLevel: (level) => (levelCells[level] ??= levels.child(level)).inc(),
    requestRejected: () => rejected.inc(),
  };
}
