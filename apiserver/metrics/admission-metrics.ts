/**
 * The admission metrics of kube-apiserver 1.32, bound to the server's registry:
 *
 * | metric | labels | recorded |
 * |---|---|---|
 * | `apiserver_admission_step_admission_duration_seconds` (buckets 5 ms .. 2.5 s) | type, operation, rejected | once per phase of every write (`admit` = mutating, `validate`) |
 * | `apiserver_admission_controller_admission_duration_seconds` (same buckets) | name, type, operation, rejected | per plugin that handles the operation, in each of its phases |
 * | `apiserver_validating_admission_policy_check_total` | policy, policy_binding, error_type, enforcement_action | per counted policy outcome (dispatcher.ts `PolicyCheckMetrics`) |
 * | `apiserver_validating_admission_policy_check_duration_seconds` (buckets 0.5 µs .. 1 s) | the same | the same |
 *
 * Not served: kube's `apiserver_admission_step_admission_duration_seconds_summary` (a Summary over 5 h;
 * its quantile sketch costs microseconds per observation, and the histogram answers the same questions),
 * and the webhook metrics (this server calls no admission webhooks).
 *
 * The chain's series are resolved on first use per (plugin, phase, operation) and then recorded with plain
 * additions (metric-families.ts). Policy checks are looked up per outcome by their names (policies are
 * cluster configuration, their number bounded by it); they happen only on a deny, warn, audit or an
 * ignored error, never on a plain admit.
 */
import type { Registry } from 'prom-client';
import type { AdmissionChainMetrics, AdmissionRecorder } from '../admission/chain.js';
import type { PolicyCheckMetrics } from '../admission/policy/dispatcher.js';
import { CounterFamily, HistogramFamily, type HistogramCell } from './metric-families.js';

/** kube's admission latency buckets (5 ms to 2.5 s). */
export const ADMISSION_BUCKETS: readonly number[] = Object.freeze([0.005, 0.025, 0.1, 0.5, 1.0, 2.5]);

/** kube's policy check buckets (from 0.5 µs: one CEL expression is fast). */
export const POLICY_CHECK_BUCKETS: readonly number[] = Object.freeze([0.0000005, 0.001, 0.01, 0.1, 1.0]);

export function admissionMetrics(registry: Registry): AdmissionChainMetrics {
  const step = new HistogramFamily({
    name: 'apiserver_admission_step_admission_duration_seconds',
    help: 'Admission sub-step latency histogram in seconds, broken out for each operation and API resource and step type (validate or admit).',
    labelNames: ['type', 'operation', 'rejected'],
    buckets: ADMISSION_BUCKETS,
    registry,
  });
  const controller = new HistogramFamily({
    name: 'apiserver_admission_controller_admission_duration_seconds',
    help: 'Admission controller latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
    labelNames: ['name', 'type', 'operation', 'rejected'],
    buckets: ADMISSION_BUCKETS,
    registry,
  });
  return {
    step: (type, operation) => new OutcomeRecorder((rejected) => step.child(type, operation, rejected)),
    controller: (name, type, operation) => new OutcomeRecorder((rejected) => controller.child(name, type, operation, rejected)),
  };
}

/** The two series (rejected false / true) of one label tuple, each resolved on its first observation. */
class OutcomeRecorder implements AdmissionRecorder {
  private admitted: HistogramCell | undefined;
  private rejected: HistogramCell | undefined;
  constructor(private readonly resolve: (rejected: 'true' | 'false') => HistogramCell) {}
  record(seconds: number, rejected: boolean): void {
    if (rejected) (this.rejected ??= this.resolve('true')).observe(seconds);
    else (this.admitted ??= this.resolve('false')).observe(seconds);
  }
}

export function policyCheckMetrics(registry: Registry): PolicyCheckMetrics {
  const checks = new CounterFamily({
    name: 'apiserver_validating_admission_policy_check_total',
    help: 'Validation admission policy check total, labeled by policy and further identified by binding and enforcement action taken.',
    labelNames: ['policy', 'policy_binding', 'error_type', 'enforcement_action'],
    registry,
  });
  const latency = new HistogramFamily({
    name: 'apiserver_validating_admission_policy_check_duration_seconds',
    help: 'Validation admission latency for individual validation expressions in seconds, labeled by policy and further including binding and enforcement action taken.',
    labelNames: ['policy', 'policy_binding', 'error_type', 'enforcement_action'],
    buckets: POLICY_CHECK_BUCKETS,
    registry,
  });
  return {
    check(policy, binding, errorType, action, seconds) {
      checks.child(policy, binding, errorType, action).inc();
      latency.child(policy, binding, errorType, action).observe(seconds);
    },
  };
}
