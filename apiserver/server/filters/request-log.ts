import type { Logger } from '../../log/logger.js';
import { safeQuery } from '../../log/safe-query.js';
import { isHealthPath } from '../public-paths.js';
import type { Filter } from '../../request/request-state.js';

/**
 * One log line per request once the response is written: method, path, query (secret-looking values
 * redacted), status, duration, user, user agent, request id. Runs outside recover, so it sees the
 * final status of failed requests too. Successful health probes log at debug: load balancers poll them
 * every second. Never logs headers (Authorization) or bodies.
 */
export function requestLog(options: { readonly logger: Logger }): Filter {
  // The line's fields are fixed and already safe (the query is redacted by safeQuery, no headers), so it
  // skips the logger's wildcard redaction, which costs ~8x the rest of the line (~19 µs vs ~2.5 µs) and was
  // the largest single cost of a GET.
  const logger = options.logger.child({}, { redact: [] });
  return async function requestLogFilter(ctx, next) {
    const start = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const durationMs = Number(process.hrtime.bigint() - start) / 1e6;
      const fields = {
        requestId: ctx.state.requestId,
        method: ctx.method,
        path: ctx.path,
        query: safeQuery(ctx.querystring),
        status: ctx.status,
        durationMs: Math.round(durationMs * 1000) / 1000,
        user: ctx.state.user?.name,
        userAgent: ctx.get('User-Agent'),
        remote: ctx.req.socket.remoteAddress,
      };
      if (ctx.status < 400 && isHealthPath(ctx.path)) logger.debug(fields, 'request');
      else logger.info(fields, 'request');
    }
  };
}
