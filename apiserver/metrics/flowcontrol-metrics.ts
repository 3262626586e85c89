/**
 * The overload metrics, with kube-apiserver 1.32's names and labels:
 *
 * - `apiserver_dropped_requests_total{request_kind}`: requests answered 429 by the max-in-flight filter or
 *   by priority and fairness (`readOnly` / `mutating`);
 * - `apiserver_flowcontrol_rejected_requests_total{flow_schema,priority_level,reason}` (reason
 *   `queue-full`, `concurrency-limit`, `time-out`, `cancelled`);
 * - `apiserver_flowcontrol_dispatched_requests_total{flow_schema,priority_level}`;
 * - `apiserver_flowcontrol_current_inqueue_requests{flow_schema,priority_level}` and
 *   `apiserver_flowcontrol_current_executing_requests{flow_schema,priority_level}`;
 * - `apiserver_flowcontrol_nominal_limit_seats{priority_level}`.
 *
 * Labels are bounded: the flow schemas and priority levels are the built-in ones. Series are resolved once
 * per schema (metric-families.ts), so the request path only writes fields.
 */
import type { Registry } from 'prom-client';
import { CounterFamily, GaugeFamily, type CounterCell, type GaugeCell } from './metric-families.js';

/** The series of one flow schema (and its priority level). */
export interface FlowSchemaCells {
  readonly inqueue: GaugeCell;
  readonly executing: GaugeCell;
  readonly dispatched: CounterCell;
  /** The rejection counter of `reason` (resolved on first use: rejections only happen under overload). */
  rejected(reason: string): CounterCell;
}

export class FlowControlMetrics {
  readonly #dropped: CounterFamily;
  readonly #rejected: CounterFamily;
  readonly #dispatched: CounterFamily;
  readonly #inqueue: GaugeFamily;
  readonly #executing: GaugeFamily;
  readonly #nominal: GaugeFamily;
  /** `apiserver_dropped_requests_total` by kind. */
  readonly droppedReadOnly: CounterCell;
  readonly droppedMutating: CounterCell;

  constructor(registry: Registry) {
    this.#dropped = new CounterFamily({
      registry,
      name: 'apiserver_dropped_requests_total',
      help: "Number of requests dropped with 'Try again later' response",
      labelNames: ['request_kind'],
    });
    this.droppedReadOnly = this.#dropped.child('readOnly');
    this.droppedMutating = this.#dropped.child('mutating');
    const schemaLabels = ['flow_schema', 'priority_level'];
    this.#rejected = new CounterFamily({
      registry,
      name: 'apiserver_flowcontrol_rejected_requests_total',
      help: 'Number of requests rejected by API Priority and Fairness subsystem',
      labelNames: ['flow_schema', 'priority_level', 'reason'],
    });
    this.#dispatched = new CounterFamily({
      registry,
      name: 'apiserver_flowcontrol_dispatched_requests_total',
      help: 'Number of requests executed by API Priority and Fairness subsystem',
      labelNames: schemaLabels,
    });
    this.#inqueue = new GaugeFamily({
      registry,
      name: 'apiserver_flowcontrol_current_inqueue_requests',
      help: 'Number of requests currently pending in queues of the API Priority and Fairness subsystem',
      labelNames: schemaLabels,
    });
    this.#executing = new GaugeFamily({
      registry,
      name: 'apiserver_flowcontrol_current_executing_requests',
      help: 'Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API Priority and Fairness subsystem',
      labelNames: schemaLabels,
    });
    this.#nominal = new GaugeFamily({
      registry,
      name: 'apiserver_flowcontrol_nominal_limit_seats',
      help: 'Nominal number of execution seats configured for each priority level',
      labelNames: ['priority_level'],
    });
  }

  /** The series of `flowSchema` at `priorityLevel`. */
  schema(flowSchema: string, priorityLevel: string): FlowSchemaCells {
    const rejected = new Map<string, CounterCell>();
    return {
      inqueue: this.#inqueue.child(flowSchema, priorityLevel),
      executing: this.#executing.child(flowSchema, priorityLevel),
      dispatched: this.#dispatched.child(flowSchema, priorityLevel),
      rejected: (reason) => {
        let cell = rejected.get(reason);
        if (cell === undefined) rejected.set(reason, (cell = this.#rejected.child(flowSchema, priorityLevel, reason)));
        return cell;
      },
    };
  }

  /** Sets `apiserver_flowcontrol_nominal_limit_seats` of a level. */
  nominalLimit(priorityLevel: string, seats: number): void {
    this.#nominal.child(priorityLevel).set(seats);
  }
}
