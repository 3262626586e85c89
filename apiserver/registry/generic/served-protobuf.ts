/**
 * The protobuf of a watch cache object of a kind served as stored, without keeping it decoded: an object the
 * cache has not decoded is decoded for the encoding only (`transientObject`) and stays bytes in the cache,
 * its enveloped message kept in its memo under the key every protobuf response and watch event of it reads
 * (codec/protobuf/protobuf-codec.ts `PROTOBUF_MEMO_KEY`). A protobuf client (client-go informers of
 * built-in kinds list and watch in protobuf) then costs the cache one message per object, not a decoded
 * object graph beside the bytes. Only for kinds that serve what they store (`StoredShape.converts` false) and
 * serve protobuf; never mutate what it returns.
 */
import type { KubeObject } from '../../api/object.js';
import { objectProtobuf } from '../../codec/protobuf/protobuf-codec.js';
import type { Enveloped } from '../../codec/protobuf/envelope.js';
import type { Schema } from '../../schema/schema.js';
import { transientObject } from '../../../storage/cache/cache-entry.js';
import type { CachedObject } from '../../../storage/cache/types.js';

export function servedProtobuf(schema: Schema, c: CachedObject<KubeObject>): Enveloped {
  return objectProtobuf(schema, transientObject(c), c.memo);
}
