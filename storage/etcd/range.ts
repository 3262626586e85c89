import type { KeyValue, ListOptions } from '../interface.js';
import { invalidArgument } from '../errors.js';
import { prefixEnd, toKeyValue } from './key-value.js';
import type { RawRangeRequest, RawRangeResponse } from './proto.js';

/** Issues one range call; errors propagate raw (the store translates them). */
export type RangeCall = (req: RawRangeRequest) => Promise<RawRangeResponse>;

export interface RangeListing {
  readonly items: KeyValue[];
  /** The revision every page was read at: the requested one, else the first page's header revision. */
  readonly revision: number;
  readonly more: boolean;
  readonly count: number;
}

/**
 * Lists `[startKey or prefix, prefixEnd(prefix))` at one revision, in pages of at most `pageSize` keys.
 *
 * Paging keeps every gRPC message bounded (a 10k x 1 KiB range is ~10 MiB in one message) and bounds the
 * work one etcd request does. The first page pins the revision (etcd's header revision when none was
 * requested; NOT the header of later pages, which etcd reports as the current revision even for a read at
 * an old one); later pages read at that revision from the last key + "\0", so the listing is one snapshot.
 * `count` comes from the first page: etcd counts the whole range whatever the limit.
 */
export async function rangeList(range: RangeCall, prefix: string, options: ListOptions, pageSize: number): Promise<RangeListing> {
  const requested = options.revision ?? 0;
  const limit = options.limit ?? 0;
  if (!Number.isSafeInteger(requested) || requested < 0) throw invalidArgument(`invalid revision ${requested}`);
  if (!Number.isSafeInteger(limit) || limit < 0) throw invalidArgument(`invalid limit ${limit}`);
  const start = options.startKey ?? prefix;
  if (!start.startsWith(prefix)) throw invalidArgument(`startKey ${start} is not under prefix ${prefix}`);
  const rangeEnd = prefixEnd(Buffer.from(prefix));

  if (options.countOnly) {
    const res = await range({ key: Buffer.from(start), range_end: rangeEnd, revision: requested, count_only: true });
    const count = res.count;
    return { items: [], revision: requested || res.header.revision, more: count > 0, count };
  }

  const items: KeyValue[] = [];
  let revision = requested;
  let key = Buffer.from(start);
  let count = -1;
  for (;;) {
    const want = limit === 0 ? pageSize : Math.min(pageSize, limit - items.length);
    const res = await range({ key, range_end: rangeEnd, revision, limit: want });
    if (count < 0) {
      count = res.count;
      if (revision === 0) revision = res.header.revision;
    }
    const kvs = res.kvs;
    for (let i = 0; i < kvs.length; i++) items.push(toKeyValue(kvs[i]!));
    if (!res.more || kvs.length === 0) return { items, revision, more: false, count };
    if (limit !== 0 && items.length >= limit) return { items, revision, more: true, count };
    const last = kvs[kvs.length - 1]!.key;
    key = Buffer.concat([last, ZERO]);
  }
}

const ZERO = Buffer.from([0]);
