import { randomUUID } from 'node:crypto';
import type { Filter } from '../../request/request-state.js';

/** A client-supplied id is kept only when it looks like an id, so it cannot inject text into logs. */
const acceptable = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * First filter: gives every request an id (the client's `X-Request-Id` if sane, else a UUID), stores it
 * in `ctx.state.requestId` and returns it as `Audit-Id`, as kube-apiserver does, so a client report can
 * be matched to the server's log line.
 */
export function requestId(): Filter {
  return async function requestIdFilter(ctx, next) {
    const given = ctx.get('X-Request-Id');
    ctx.state.requestId = acceptable.test(given) ? given : randomUUID();
    ctx.set('Audit-Id', ctx.state.requestId);
    await next();
  };
}
