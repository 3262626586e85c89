import { queryOf, type AppContext } from '../request/request-state.js';

const trueWords = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const streamingSubresources = new Set(['exec', 'attach', 'portforward', 'proxy']);

/**
 * Whether a request streams for an unbounded time: a watch (`?watch=<true>`, or the legacy `/watch/`
 * path segment), or a streaming subresource (exec, attach, portforward, proxy, `log?follow=true`).
 * Such requests get no deadline and no in-flight slot, and are ended first on shutdown.
 *
 * Decided from the URL alone because it runs before request-info; once request-info exists, it should
 * answer from the parsed verb and subresource instead.
 */
export function isLongRunning(ctx: Pick<AppContext, 'method' | 'path' | 'state' | 'querystring'>): boolean {
  if (ctx.method !== 'GET' && ctx.method !== 'POST') return false;
  const query = queryOf(ctx);
  const watch = query.get('watch');
  if (watch !== null && trueWords.has(watch)) return true;
  const segments = ctx.path.split('/').filter((s) => s !== '');
  // /api/v1/watch/... or /apis/<group>/<version>/watch/...
  if ((segments[0] === 'api' && segments[2] === 'watch') || (segments[0] === 'apis' && segments[3] === 'watch')) {
    return true;
  }
  const last = segments[segments.length - 1];
  if (last !== undefined && streamingSubresources.has(last)) return true;
  const follow = query.get('follow');
  return last === 'log' && follow !== null && trueWords.has(follow);
}
