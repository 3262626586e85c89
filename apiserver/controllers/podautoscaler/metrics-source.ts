/**
 * Where the HPA controller reads CPU usage: kube's resource metrics client (`metrics.k8s.io/v1beta1`
 * PodMetrics) reduced to what the v1 autoscaler needs. The real source is metrics-api-source.ts (the
 * registered metrics APIService's backend); tests use an in-memory one.
 *
 * Contract: `podCpu` answers the pods of `namespace` matching `selector` (label selector text) that have
 * a CPU usage for every container, keyed by pod name, with the sample's timestamp and window as the
 * metrics API gives them (a pod with no containers, or a container without `cpu`, is left out, as kube's
 * client leaves it out). It throws an Error whose message is kube's (`unable to fetch metrics from
 * resource metrics API: ...`, `no metrics returned from resource metrics API`); the controller wraps it.
 */
export interface PodMetric {
  /** CPU usage in millicores (the sum over the pod's containers, each rounded up as Go's MilliValue). */
  readonly milliCpu: number;
  /** When the sample was taken. */
  readonly timestamp: Date;
  /** Over how long it was averaged. */
  readonly windowMs: number;
}

export interface PodMetrics {
  readonly metrics: Map<string, PodMetric>;
  /** The first item's timestamp (kube reports that one as the metric's time). */
  readonly timestamp: Date;
}

export interface PodMetricsSource {
  podCpu(namespace: string, selector: string): Promise<PodMetrics>;
}

/** The message of a metrics list with no items (kube's resource metrics client). */
export const NO_METRICS_RETURNED = 'no metrics returned from resource metrics API';
