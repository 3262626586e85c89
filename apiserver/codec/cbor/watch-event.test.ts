import { Decoder, decodeMultiple } from 'cbor-x';
import type { Schema } from '../../schema/schema.js';
import { decodeCborObject } from './decode.js';
import { encodeCbor } from './encode.js';
import { encodeCborList, encodeCborWatchEvent, encodeCborWatchEventValue } from './watch-event.js';

const hex = (h: string): string => h.replace(/\s+/g, '');
const schema: Schema = { type: 'object', properties: { data: { type: 'object', additionalProperties: { type: 'string', format: 'byte' } } } };

describe('encodeCborWatchEvent', () => {
  it('writes {type, object} as one self-described item, the object\'s own bytes embedded as they are', () => {
    const object = encodeCbor({ a: 1 });
    expect(encodeCborWatchEvent('ADDED', object).toString('hex')).toBe(hex(`
      d9d9f7 a2
        64 74797065    65 4144444544
        66 6f626a656374 d9d9f7 a1 6161 01`));
  });

  it('reuses one object encoding for every watcher and reads back with the object', () => {
    const object = encodeCbor({ kind: 'Secret', data: { k: 'aGk=' } }, schema);
    const a = encodeCborWatchEvent('MODIFIED', object);
    const b = encodeCborWatchEvent('MODIFIED', object);
    expect(a.equals(b)).toBe(true);
    expect(decodeCborObject(a, { type: 'object', properties: { object: schema } }).value)
      .toEqual({ type: 'MODIFIED', object: { kind: 'Secret', data: { k: 'aGk=' } } });
  });

  it('a cbor-seq stream is the events back to back, which a sequence decoder (cbor-x) splits again', () => {
    const events = [
      encodeCborWatchEventValue('ADDED', { metadata: { name: 'a', resourceVersion: '5' } }),
      encodeCborWatchEventValue('DELETED', { metadata: { name: 'a', resourceVersion: '6' } }),
      encodeCborWatchEventValue('BOOKMARK', { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: '7', annotations: { 'k8s.io/initial-events-end': 'true' } } }),
      encodeCborWatchEventValue('ERROR', { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 410, reason: 'Expired', message: 'too old' }),
    ];
    const decoded = decodeMultiple(Buffer.concat(events)) as unknown as { type: string; object: { metadata?: { resourceVersion: string }; code?: number } }[];
    expect(decoded.map((e) => e.type)).toEqual(['ADDED', 'DELETED', 'BOOKMARK', 'ERROR']);
    expect(decoded[1]!.object.metadata!.resourceVersion).toBe('6');
    expect(decoded[3]!.object.code).toBe(410);
  });
});

describe('encodeCborList', () => {
  it('assembles a list from memoized item encodings, equal to encoding the list at once', () => {
    const items = [{ metadata: { name: 'a' }, data: { k: 'aGk=' } }, { metadata: { name: 'b' } }];
    const head = { apiVersion: 'v1', kind: 'SecretList', metadata: { resourceVersion: '9' } };
    const fromItems = encodeCborList(head, items.map((i) => encodeCbor(i, schema)));
    const listSchema: Schema = { type: 'object', properties: { items: { type: 'array', items: schema } } };
    expect(fromItems.equals(encodeCbor({ ...head, items }, listSchema))).toBe(true);
    expect(fromItems.subarray(0, 4).toString('hex')).toBe('d9d9f7a4');
    const decoded = new Decoder({ mapsAsObjects: true }).decode(fromItems);
    expect(decoded.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['a', 'b']);
    expect(encodeCborList({ ...head, items: ['ignored'] }, []).toString('hex')).toBe(
      encodeCbor({ ...head, items: [] }).toString('hex'),
    );
  });
});
