/**
 * list: one snapshot per page, selectors applied while reading, pages filled up to `limit`.
 *
 * Revision semantics (spec "Resource version semantics for get and list"): without a continue token the
 * listing is read at the current revision (Most Recent, Any, Not older than), or at exactly
 * `resourceVersion` for `resourceVersionMatch=Exact` and for a first page of a limited list with a
 * non-zero resourceVersion. Continuations read at the token's revision (or the latest, for rv=-1 tokens).
 * When selectors drop items, the registry keeps reading from `lastKey\0` at the same revision, doubling the
 * page size up to 10,000, until the page is full or the prefix is exhausted. `remainingItemCount` is only
 * given without selectors. A compacted snapshot is 410 Expired; for a continuation the error carries a
 * fresh rv=-1 token (`ExpiredListError.continueToken`) that continues at the latest revision.
 */
import type { KubeList, KubeObject } from '../../api/object.js';
import { expired, expiredMessage } from '../../errors/constructors.js';
import { StatusError } from '../../errors/status-error.js';
import { isStorageError } from '../../../storage/errors.js';
import type { KeyValue } from '../../../storage/interface.js';
import { CONTINUE_AT_LATEST, decodeContinue, encodeContinue } from './continue-token.js';
import { validateListOptions } from './list-options.js';
import { decodeObject } from './object-codec.js';
import type { ListOptions } from './options.js';
import { requestNamespace, type RegistryContext } from './registry-context.js';
import { parseResourceVersion, requireNotOlderThan } from './resource-version.js';
import { storageToStatus } from './storage-errors.js';

const MAX_PAGE = 10_000;

export const inconsistentContinueMessage =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/**
 * 410 Expired for a continuation whose snapshot was compacted. The handler must render `continueToken` as
 * the Status body's `metadata.continue` (errors/status-body.ts has no list metadata).
 */
export class ExpiredListError extends StatusError {
  constructor(readonly continueToken: string) {
    super('Expired', inconsistentContinueMessage, undefined, undefined, { continue: continueToken });
  }
}

/** The field values a field selector sees for `obj`. */
export function fieldsOf(ctx: RegistryContext, obj: KubeObject): Record<string, string> {
  const fields: Record<string, string> = {
    'metadata.name': obj.metadata.name ?? '',
    'metadata.namespace': obj.metadata.namespace ?? '',
  };
  const extra = ctx.strategy.selectableFields;
  if (extra !== undefined) for (const [k, f] of Object.entries(extra)) fields[k] = f(obj);
  return fields;
}

export async function listObjects(ctx: RegistryContext, namespace: string, opts: ListOptions = {}): Promise<KubeList> {
  validateListOptions(ctx, opts);
  const prefix = ctx.keys.collectionPrefix(requestNamespace(ctx, namespace));
  const limit = opts.limit !== undefined && opts.limit > 0 ? Math.floor(opts.limit) : 0;
  const label = opts.labelSelector !== undefined && !opts.labelSelector.empty ? opts.labelSelector : undefined;
  const field = opts.fieldSelector !== undefined && !opts.fieldSelector.empty ? opts.fieldSelector : undefined;
  const filtered = label !== undefined || field !== undefined;

  let revision = 0;
  let startKey: string | undefined;
  let tokenStart: string | undefined;
  const cont = opts.continue ?? '';
  if (cont !== '') {
    const pos = decodeContinue(cont, prefix);
    startKey = pos.startKey;
    tokenStart = pos.startKey;
    revision = pos.revision === CONTINUE_AT_LATEST ? 0 : pos.revision;
  } else {
    const rv = parseResourceVersion(opts.resourceVersion);
    const exact = rv > 0 && (opts.resourceVersionMatch === 'Exact' || (limit > 0 && opts.resourceVersionMatch === undefined));
    if (exact) revision = rv;
    else if (rv > 0) await requireNotOlderThan(ctx, rv);
  }

  const items: KubeObject[] = [];
  let pageSize = limit;
  let more = false;
  let lastKey: string | undefined;
  let remaining: number | undefined;
  try {
    for (;;) {
      const res = await ctx.store.list(prefix, { revision, ...(startKey === undefined ? {} : { startKey }), limit: pageSize });
      revision = res.revision;
      let consumedAll = true;
      for (let i = 0; i < res.items.length; i++) {
        const kv = res.items[i] as KeyValue;
        const obj = decodeObject(kv);
        if (label !== undefined && !label.matches(obj.metadata.labels)) continue;
        if (field !== undefined && !field.matches(fieldsOf(ctx, obj))) continue;
        items.push(obj);
        if (limit > 0 && items.length === limit) {
          lastKey = kv.key;
          consumedAll = i === res.items.length - 1;
          break;
        }
      }
      if (limit > 0 && items.length === limit) {
        more = !consumedAll || res.more;
        if (more && !filtered) remaining = res.count - res.items.length;
        break;
      }
      if (!res.more || res.items.length === 0) break;
      startKey = `${res.items[res.items.length - 1]!.key}\x00`;
      pageSize = Math.min(pageSize * 2, MAX_PAGE);
    }
  } catch (err) {
    if (isStorageError(err, 'Compacted')) {
      if (tokenStart !== undefined) throw new ExpiredListError(encodeContinue(tokenStart, prefix, CONTINUE_AT_LATEST));
      throw expired(expiredMessage);
    }
    throw storageToStatus(err, ctx.gr);
  }

  const metadata: KubeList['metadata'] = { resourceVersion: String(revision) };
  if (more && lastKey !== undefined) {
    metadata.continue = encodeContinue(`${lastKey}\x00`, prefix, revision);
    if (remaining !== undefined && remaining > 0) metadata.remainingItemCount = remaining;
  }
  return { apiVersion: ctx.apiVersion, kind: `${ctx.strategy.kind}List`, metadata, items };
}
