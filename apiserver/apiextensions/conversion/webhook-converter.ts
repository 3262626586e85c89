/**
 * The `Webhook` conversion strategy: one ConversionReview per conversion, POSTed to the definition's
 * `conversion.webhook.clientConfig` (see `webhook-client.ts` for the transport and its errors,
 * `conversion-review.ts` for the review and its checks). Errors of the call and of the review read
 * `conversion webhook for <list group/version, Kind=list kind> failed: <cause>` (empty `/, Kind=` for a
 * single object, as upstream passes it an unnamed list); `custom-resource-converter.ts` adds the outer
 * `conversion for <input> failed: ` and the per-object checks.
 */
import { randomUUID } from 'node:crypto';
import { ConversionError } from './conversion-error.js';
import { conversionReviewRequest, negotiateReviewVersion, readConversionReview, ReviewError, unstructuredObject } from './conversion-review.js';
import type { CrConverter } from './custom-resource-converter.js';
import { gvkString, groupVersionString } from './group-version.js';
import { postWebhook, WebhookCallError, type ServiceResolver, type WebhookClientConfig } from './webhook-client.js';

/** `spec.conversion.webhook` of a definition. */
export interface WebhookConversion {
  readonly clientConfig: WebhookClientConfig;
  readonly conversionReviewVersions: readonly string[];
}

export interface WebhookConverterOptions {
  /**
   * The group of the ConversionReview sent: webhook servers (controller-runtime and others) read
   * `apiextensions.k8s.io`, so that is the default whatever the server's group domain.
   */
  readonly reviewGroup?: string;
  /** Default 30 s (`DEFAULT_WEBHOOK_TIMEOUT_MS`). */
  readonly timeoutMs?: number;
  /** Where a `service` reference is dialled; default: the name `<name>.<namespace>.svc` itself. */
  readonly resolveService?: ServiceResolver;
  /** Request uids; default random UUIDs. */
  readonly newUid?: () => string;
}

export function webhookConverter(webhook: WebhookConversion, opts: WebhookConverterOptions = {}): CrConverter {
  const group = opts.reviewGroup ?? 'apiextensions.k8s.io';
  return {
    async convert(request, target, signal) {
      const uid = (opts.newUid ?? randomUUID)();
      const version = negotiateReviewVersion(webhook.conversionReviewVersions);
      if (version === undefined) throw new ConversionError('no supported conversion review versions');
      const prefix = `conversion webhook for ${gvkString(request.list)} failed`;
      const review = conversionReviewRequest(group, version, uid, groupVersionString(target), request.objects);
      let converted: unknown[];
      try {
        const text = await postWebhook(webhook.clientConfig, JSON.stringify(review), {
          ...(opts.timeoutMs === undefined ? {} : { timeoutMs: opts.timeoutMs }),
          ...(opts.resolveService === undefined ? {} : { resolveService: opts.resolveService }),
          ...(signal === undefined ? {} : { signal }),
        });
        converted = readConversionReview(text, group, version, uid);
      } catch (e) {
        if (e instanceof WebhookCallError || e instanceof ReviewError) throw new ConversionError(`${prefix}: ${e.message}`);
        throw e;
      }
      try {
        return converted.map(unstructuredObject);
      } catch (e) {
        // Upstream returns this one without the webhook prefix.
        if (e instanceof ReviewError) throw new ConversionError(e.message);
        throw e;
      }
    },
  };
}
