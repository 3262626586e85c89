/**
 * `GET /metrics`: the Prometheus text exposition of the server's registry (authenticated, as
 * kube-apiserver's). Returns false for other paths.
 */
import type { Registry } from 'prom-client';
import type { AppContext } from '../request/request-state.js';

export async function serveMetrics(ctx: AppContext, registry: Registry): Promise<boolean> {
  if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || ctx.path !== '/metrics') return false;
  const text = await registry.metrics();
  ctx.status = 200;
  ctx.set('Content-Type', registry.contentType);
  ctx.body = text;
  return true;
}
