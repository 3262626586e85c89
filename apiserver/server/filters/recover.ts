import { encodeCbor } from '../../codec/cbor/encode.js';
import { isCbor, isProtobuf, negotiateResponse } from '../../codec/negotiate.js';
import { statusProtobuf } from '../../codec/protobuf/protobuf-codec.js';
import type { Logger } from '../../log/logger.js';
import { internalError } from '../../errors/constructors.js';
import { reasonCodes, type StatusReason } from '../../errors/reasons.js';
import { isStatusError, StatusError } from '../../errors/status-error.js';
import { statusBody, wireDetails } from '../../errors/status-body.js';
import type { AppContext, Filter } from '../../request/request-state.js';

/** Reasons by code, for errors thrown by Koa itself (`ctx.throw(400)`, body parsers). */
const reasonByCode = new Map<number, StatusReason>();
for (const [reason, code] of Object.entries(reasonCodes) as [StatusReason, number][]) {
  if (!reasonByCode.has(code)) reasonByCode.set(code, reason);
}

/**
 * The one top-level error renderer (invariant 7): a `StatusError` becomes its Status body and code (plus
 * `Retry-After` when it carries `retryAfterSeconds`); a Koa HTTP error with an exposable 4xx message keeps
 * its code and message; anything else is logged with its stack and answered 500 with a message that
 * names the request id, never the error's own text.
 *
 * When the response has already started (a watch stream), nothing can be rendered: the error is logged
 * and the connection is ended so the client notices.
 */
export function recover(options: { readonly logger: Logger }): Filter {
  const { logger } = options;
  return async function recoverFilter(ctx, next) {
    try {
      await next();
    } catch (err) {
      const status = toStatusError(err, ctx, logger);
      if (ctx.headerSent || !ctx.writable) {
        logger.warn({ requestId: ctx.state.requestId, reason: status.reason, message: status.message }, 'error after response started');
        ctx.res.destroy();
        return;
      }
      renderStatus(ctx, status);
    }
  };
}

/**
 * Writes a Status body for `err` (used by recover and by filters that answer on their own): in protobuf or
 * CBOR when the request's resource serves it and the client prefers it, else JSON.
 */
export function renderStatus(ctx: AppContext, err: StatusError): void {
  ctx.status = err.code;
  const retry = err.details?.retryAfterSeconds;
  if (retry !== undefined && retry > 0) ctx.set('Retry-After', String(retry));
  const body = statusBody(err);
  const wire = body.details === undefined ? body : { ...body, details: wireDetails(body.details) };
  const offers = ctx.state.responseOffers;
  const accept = ctx.get('Accept');
  if (offers !== undefined && accept !== '') {
    const offer = negotiateResponse(accept, offers)?.offer;
    if (offer !== undefined && (isProtobuf(offer) || isCbor(offer))) {
      ctx.set('Content-Type', offer.mediaType);
      ctx.body = isCbor(offer) ? encodeCbor(wire) : statusProtobuf(wire);
      return;
    }
  }
  // Exactly `application/json`, as kube-apiserver answers (ctx.type would add `; charset=utf-8`).
  ctx.set('Content-Type', 'application/json');
  ctx.body = wire;
}

function toStatusError(err: unknown, ctx: AppContext, logger: Logger): StatusError {
  if (isStatusError(err)) return err;
  const e = err as { status?: unknown; expose?: unknown; message?: unknown };
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500 && e.expose === true) {
    const reason = reasonByCode.get(e.status) ?? 'BadRequest';
    return new StatusError(reason, String(e.message), undefined, e.status);
  }
  logger.error({ requestId: ctx.state.requestId, err }, 'unhandled error');
  return internalError(`unexpected server error (request id ${ctx.state.requestId})`);
}
