/**
 * The built-in priority levels of API Priority and Fairness, as Kubernetes 1.32 bootstraps them
 * (flowcontrol.apiserver.k8s.io/v1: the mandatory `exempt` and `catch-all`, and the suggested `system`,
 * `node-high`, `leader-election`, `workload-high`, `workload-low`, `global-default`), and their seats.
 *
 * A level's nominal concurrency limit is its share of the server's total concurrency limit
 * (`--max-requests-inflight` + `--max-mutating-requests-inflight`): ceil(total × shares / sum of all
 * shares), as kube computes NominalCL. Every level gets at least one seat (a total of 0 means unlimited:
 * every level then admits everything). Kube additionally lends and borrows seats between levels
 * (`lendablePercent`, `borrowingLimitPercent`), re-balanced every few seconds; this server keeps each
 * level at its nominal limit (docs/differences.md).
 *
 * The configuration is built in: there are no FlowSchema / PriorityLevelConfiguration API objects.
 */

/** How a level answers a request when its seats are taken: wait in fair queues, or 429 at once. */
export type LimitResponse =
  | { readonly type: 'Queue'; readonly queues: number; readonly handSize: number; readonly queueLengthLimit: number }
  | { readonly type: 'Reject' };

export interface PriorityLevel {
  readonly name: string;
  /** Exempt levels admit every request at once (their requests are still counted in the metrics). */
  readonly exempt: boolean;
  /** kube's `nominalConcurrencyShares` (0 for exempt). */
  readonly shares: number;
  readonly limitResponse: LimitResponse;
}

const queued = (queues: number, handSize: number, queueLengthLimit: number): LimitResponse =>
  ({ type: 'Queue', queues, handSize, queueLengthLimit });

/** Kubernetes 1.32's bootstrap priority levels (mandatory and suggested), in its order. */
export const builtinPriorityLevels: readonly PriorityLevel[] = Object.freeze([
  { name: 'exempt', exempt: true, shares: 0, limitResponse: { type: 'Reject' } },
  { name: 'system', exempt: false, shares: 30, limitResponse: queued(64, 6, 50) },
  { name: 'node-high', exempt: false, shares: 40, limitResponse: queued(64, 6, 50) },
  { name: 'leader-election', exempt: false, shares: 10, limitResponse: queued(16, 4, 50) },
  { name: 'workload-high', exempt: false, shares: 40, limitResponse: queued(128, 6, 50) },
  { name: 'workload-low', exempt: false, shares: 100, limitResponse: queued(128, 6, 50) },
  { name: 'global-default', exempt: false, shares: 20, limitResponse: queued(128, 6, 50) },
  { name: 'catch-all', exempt: false, shares: 5, limitResponse: { type: 'Reject' } },
] satisfies PriorityLevel[]);

/**
 * Seats of each non-exempt level for a server concurrency limit of `total` (> 0): ceil(total × shares /
 * Σ shares), at least 1. With the defaults (400 + 200 = 600): system 74, node-high 98, leader-election 25,
 * workload-high 98, workload-low 245, global-default 49, catch-all 13.
 */
export function nominalConcurrencyLimits(levels: readonly PriorityLevel[], total: number): Map<string, number> {
  let sum = 0;
  for (const l of levels) sum += l.shares;
  const limits = new Map<string, number>();
  for (const l of levels) {
    if (l.exempt) continue;
    limits.set(l.name, Math.max(1, Math.ceil((total * l.shares) / sum)));
  }
  return limits;
}
