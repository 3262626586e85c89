/**
 * API Priority and Fairness, built in: the flow schemas (flow-schemas.ts) classify each request into a
 * priority level (priority-levels.ts), whose seats and fair queues (queue-set.ts) admit it, make it wait,
 * or refuse it. Exempt levels (system:masters, health probes) admit everything at once, so a flood can
 * never starve them.
 *
 *   const fs = flowControl.classify(req);           // the matching schema, with its level and series
 *   if (!fs.tryStart()) {                            // hot path: a free seat and nobody waiting
 *     const refused = await fs.wait(req, signal);    // fair queuing
 *     if (refused !== undefined) -> 429
 *   }
 *   try { ...serve... } finally { fs.finish(); }
 */
import type { Naming } from '../naming/naming.js';
import type { FlowControlMetrics, FlowSchemaCells } from '../metrics/flowcontrol-metrics.js';
import { builtinFlowSchemas, classify, flowDistinguisher, stableUid, type ClassifiedRequest, type FlowSchema } from './flow-schemas.js';
import { builtinPriorityLevels, nominalConcurrencyLimits } from './priority-levels.js';
import { QueueSet, type Rejection } from './queue-set.js';

export interface FlowControlOptions {
  readonly naming: Naming;
  /** The server's concurrency limit: `--max-requests-inflight` + `--max-mutating-requests-inflight`; 0: unlimited. */
  readonly totalConcurrency: number;
  /** How long a request may wait in a queue (kube: `--request-timeout` / 4). */
  readonly waitLimitMs: number;
  readonly metrics?: FlowControlMetrics;
}

/** A flow schema as the filter uses it: its level's seats and its series. */
export class ClassifiedSchema {
  readonly schema: FlowSchema;
  readonly priorityLevelUid: string;
  /** undefined: exempt (or no limit at all). */
  readonly #seats: QueueSet | undefined;
  readonly #cells: FlowSchemaCells | undefined;

  constructor(schema: FlowSchema, seats: QueueSet | undefined, cells: FlowSchemaCells | undefined) {
    this.schema = schema;
    this.priorityLevelUid = stableUid('PriorityLevelConfiguration', schema.priorityLevel);
    this.#seats = seats;
    this.#cells = cells;
  }

  /** Takes a seat at once if the level has one free and nobody is waiting (always, when exempt). */
  tryStart(): boolean {
    if (this.#seats !== undefined && !this.#seats.tryAcquire()) return false;
    this.#started();
    return true;
  }

  /** Waits for a seat (fair queuing); the rejection reason when refused, undefined once started. */
  async wait(req: ClassifiedRequest, signal: AbortSignal): Promise<Rejection | undefined> {
    const seats = this.#seats!;
    const flowKey = `${this.schema.name}\u0000${flowDistinguisher(this.schema, req)}`;
    const pending = seats.wait(flowKey, signal);
    if (typeof pending === 'string') return this.#rejected(pending);
    const cells = this.#cells;
    cells?.inqueue.inc();
    const outcome = await pending;
    cells?.inqueue.dec();
    if (outcome !== undefined) return this.#rejected(outcome);
    this.#started();
    return undefined;
  }

  /** Gives the seat back; once per started request. */
  finish(): void {
    this.#cells?.executing.dec();
    this.#seats?.release();
  }

  #started(): void {
    const cells = this.#cells;
    if (cells === undefined) return;
    cells.executing.inc();
    cells.dispatched.inc();
  }

  #rejected(reason: Rejection): Rejection {
    this.#cells?.rejected(reason).inc();
    return reason;
  }
}

export class FlowControl {
  readonly #schemas: readonly FlowSchema[];
  readonly #classified = new Map<FlowSchema, ClassifiedSchema>();
  /** The seats of each limited level (tests and the metrics read them). */
  readonly levels = new Map<string, QueueSet>();

  constructor(o: FlowControlOptions) {
    this.#schemas = builtinFlowSchemas(o.naming);
    const limits = nominalConcurrencyLimits(builtinPriorityLevels, o.totalConcurrency);
    for (const level of builtinPriorityLevels) {
      const limit = limits.get(level.name);
      if (level.exempt || limit === undefined || o.totalConcurrency <= 0) continue;
      this.levels.set(level.name, new QueueSet({ concurrencyLimit: limit, limitResponse: level.limitResponse, waitLimitMs: o.waitLimitMs }));
      o.metrics?.nominalLimit(level.name, limit);
    }
    for (const schema of this.#schemas) {
      this.#classified.set(schema, new ClassifiedSchema(schema, this.levels.get(schema.priorityLevel), o.metrics?.schema(schema.name, schema.priorityLevel)));
    }
  }

  /** The schema (and level) of a request. */
  classify(req: ClassifiedRequest): ClassifiedSchema {
    return this.#classified.get(classify(this.#schemas, req))!;
  }
}
