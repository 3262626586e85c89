import type { Logger } from '../log/logger.js';
import { notFound } from '../errors/constructors.js';
import type { AppContext } from '../request/request-state.js';
import type { HealthCheck } from './health-check.js';

/** The three health endpoints and the checks each runs. */
export interface HealthEndpoints {
  readonly livez: readonly HealthCheck[];
  readonly readyz: readonly HealthCheck[];
  /** Deprecated upstream but still probed by many tools. */
  readonly healthz: readonly HealthCheck[];
}

/** Status of a failed probe. kube-apiserver answers 500; we answer 503 so load balancers read "not now". */
export const healthFailureCode = 503;

/**
 * Serves `/<endpoint>` and `/<endpoint>/<check>` in kube-apiserver's text format:
 * - all pass: `ok`; with `?verbose`: one `[+]<name> ok` line per check, then `<endpoint> check passed`;
 * - any fails: always verbose, `[-]<name> failed: reason withheld` (these paths are public, the reason is
 *   only logged), then `<endpoint> check failed`, status 503;
 * - `?exclude=<name>` (repeatable) skips checks; `/<endpoint>/<name>` runs one check (`ok`, or 503);
 *   an unknown check name is 404.
 * Returns false when the path is not a health path (the caller goes on).
 */
export async function serveHealth(ctx: AppContext, endpoints: HealthEndpoints, logger: Logger): Promise<boolean> {
  if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return false;
  const m = /^\/(livez|readyz|healthz)(?:\/([^/]+))?\/?$/.exec(ctx.path);
  if (m === null) return false;
  const endpoint = m[1] as keyof HealthEndpoints;
  const single = m[2];
  const all = endpoints[endpoint];

  ctx.type = 'text/plain; charset=utf-8';
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Cache-Control', 'no-cache, private');

  if (single !== undefined) {
    const check = all.find((c) => c.name === single);
    if (check === undefined) throw notFound();
    const error = await run(check);
    if (error !== undefined) {
      logger.warn({ check: check.name, endpoint, error: String(error) }, 'health check failed');
      ctx.status = healthFailureCode;
      ctx.body = `[-]${check.name} failed: reason withheld\n`;
    } else {
      ctx.status = 200;
      ctx.body = 'ok';
    }
    return true;
  }

  const excluded = new Set(([] as string[]).concat(ctx.query['exclude'] ?? []));
  const selected = all.filter((c) => !excluded.has(c.name));
  const results = await Promise.all(selected.map(async (c) => ({ check: c, error: await run(c) })));
  const lines = results.map(({ check, error }) => (error === undefined ? `[+]${check.name} ok` : `[-]${check.name} failed: reason withheld`));
  for (const name of excluded) if (all.some((c) => c.name === name)) lines.push(`[+]${name} excluded: ok`);
  const failed = results.filter((r) => r.error !== undefined);
  if (failed.length > 0) {
    logger.warn(
      { endpoint, failed: failed.map((f) => ({ check: f.check.name, error: String(f.error) })) },
      `${endpoint} check failed`,
    );
    ctx.status = healthFailureCode;
    ctx.body = `${lines.join('\n')}\n${endpoint} check failed\n`;
    return true;
  }
  ctx.status = 200;
  ctx.body = 'verbose' in ctx.query ? `${lines.join('\n')}\n${endpoint} check passed\n` : 'ok';
  return true;
}

async function run(check: HealthCheck): Promise<unknown> {
  try {
    await check.check();
    return undefined;
  } catch (err) {
    return err ?? new Error('failed');
  }
}
