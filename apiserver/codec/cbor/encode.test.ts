import { Decoder, Tag } from 'cbor-x';
import type { Schema } from '../../schema/schema.js';
import { cborListSchema, encodeCbor } from './encode.js';
import { fromFloat16Bits, toFloat16Bits } from './float16.js';

/** Expected bytes, written by hand from RFC 8949 (hex, spaces ignored). */
const hex = (h: string): string => h.replace(/\s+/g, '');
const enc = (v: unknown, s?: Schema): string => encodeCbor(v, s).toString('hex');
/** The item without the self-described prefix, which every test below checks once. */
const item = (v: unknown, s?: Schema): string => {
  const out = enc(v, s);
  expect(out.startsWith('d9d9f7')).toBe(true);
  return out.slice(6);
};

const secretSchema: Schema = {
  type: 'object',
  properties: {
    data: { type: 'object', additionalProperties: { type: 'string', format: 'byte' } },
    stringData: { type: 'object', additionalProperties: { type: 'string' } },
    ratio: { type: 'number' },
  },
};

describe('encodeCbor', () => {
  it('prefixes the self-described tag 55799', () => {
    expect(enc({ a: 1 })).toBe(hex('d9 d9 f7  a1 61 61 01'));
  });

  it.each([
    [0, '00'], [23, '17'], [24, '1818'], [255, '18ff'], [256, '190100'], [65535, '19ffff'], [65536, '1a00010000'],
    [2 ** 32 - 1, '1affffffff'], [2 ** 32, '1b0000000100000000'], [Number.MAX_SAFE_INTEGER, '1b001fffffffffffff'],
    [-1, '20'], [-24, '37'], [-25, '3818'], [-256, '38ff'], [-257, '390100'], [-(2 ** 32), '3affffffff'],
    [-(2 ** 32) - 1, '3b0000000100000000'], [-(2 ** 63), '3b7fffffffffffffff'],
  ])('writes the integer %d in its shortest head, never as a float', (n, bytes) => {
    expect(item(n)).toBe(bytes);
  });

  it.each([
    [1.5, 'f93e00'], [-2.5, 'f9c100'], [65503.5, 'fa477fdf80'], [5.960464477539063e-8, 'f90001'], [0.00006103515625, 'f90400'],
    [100000.5, 'fa47c35040'], [0.1, 'fb3fb999999999999a'], [1e300, 'fb7e37e43c8800759c'],
  ])('writes the float %d in the shortest width that keeps it', (n, bytes) => {
    expect(item(n)).toBe(bytes);
  });

  it('writes whole numbers as floats where the schema says number', () => {
    expect(item({ ratio: 1 }, secretSchema)).toBe(hex('a1 65 726174696f f9 3c00'));
    expect(item({ ratio: 0 }, secretSchema)).toBe(hex('a1 65 726174696f f9 0000'));
    expect(item({ ratio: 65504 }, secretSchema)).toBe(hex('a1 65 726174696f f9 7bff'));
    expect(item({ ratio: 65536 }, secretSchema)).toBe(hex('a1 65 726174696f fa 47800000'));
  });

  it('writes strings as UTF-8 text strings with their byte length', () => {
    expect(item('')).toBe('60');
    expect(item('a')).toBe('6161');
    expect(item('é')).toBe('62c3a9');
    expect(item('水')).toBe('63e6b0b4');
    expect(item('x'.repeat(24))).toBe(`7818${'78'.repeat(24)}`);
    expect(item('é'.repeat(200))).toBe(`790190${'c3a9'.repeat(200)}`);
  });

  it('writes format: byte strings (Go []byte) as byte strings in tag 22, other strings as text', () => {
    const secret = { data: { k: Buffer.from('hi').toString('base64') }, stringData: { s: 'aGk=' } };
    expect(item(secret, secretSchema)).toBe(hex(`
      a2
        64 64617461  a1 61 6b  d6 42 6869
        6a 737472696e6744617461  a1 61 73  64 61476b3d`));
    // Without a schema the same value is all text.
    expect(item({ k: 'aGk=' })).toBe(hex('a1 616b 64 61476b3d'));
  });

  it('writes null, booleans, arrays; leaves out undefined properties and writes undefined elements as null', () => {
    expect(item({ a: null, b: true, c: false, d: undefined, e: [1, undefined, 'x'] })).toBe(hex(`
      a4 6161 f6  6162 f5  6163 f4  6165 83 01 f6 6178`));
    // 24 keys need a 2-byte head, 23 fit in one: the head shrinks and what follows moves.
    const keys: Record<string, number | undefined> = {};
    for (let i = 0; i < 24; i++) keys[String.fromCharCode(0x61 + i)] = i === 0 ? undefined : 1;
    expect(item(keys)).toBe(`b7${Array.from({ length: 23 }, (_, i) => `61${(0x62 + i).toString(16)}01`).join('')}`);
    expect(item([])).toBe('80');
    expect(item({})).toBe('a0');
    expect(item(Array.from({ length: 24 }, () => 0))).toBe(`9818${'00'.repeat(24)}`);
  });

  it('uses 2-byte heads for 256+ map pairs and grows past its scratch buffer', () => {
    const big: Record<string, string> = {};
    for (let i = 0; i < 300; i++) big[`k${i}`] = 'v'.repeat(1000);
    const out = encodeCbor(big);
    expect(out.subarray(3, 6).toString('hex')).toBe('b9012c');
    expect(out.length).toBeGreaterThan(300_000);
    expect(new Decoder({ mapsAsObjects: true }).decode(out)).toEqual(big);
  });

  it('refuses NaN and Infinity (a JSON-shaped object never has them)', () => {
    expect(() => encodeCbor({ a: NaN })).toThrow('not a finite number');
    expect(() => encodeCbor([Infinity])).toThrow('not a finite number');
  });

  it('is read back by an independent decoder (cbor-x) as the same object', () => {
    const cm = {
      apiVersion: 'v1', kind: 'ConfigMap',
      metadata: { name: 'c1', namespace: 'default', uid: '0b1c-…', resourceVersion: '12345678901', generation: 2 ** 40, labels: { app: 'wéb' }, creationTimestamp: '2024-05-01T10:00:00Z' },
      data: { 'a.txt': 'hello\nworld', empty: '' },
      binaryData: { bin: Buffer.from([0, 1, 2, 255]).toString('base64') },
      list: [1, -1, 1.5, true, null, { nested: ['x'] }],
    };
    const schema: Schema = { type: 'object', properties: { binaryData: { type: 'object', additionalProperties: { type: 'string', format: 'byte' } } } };
    const decoded = new Decoder({ mapsAsObjects: true, useRecords: false }).decode(encodeCbor(cm, schema));
    const bin = decoded.binaryData.bin;
    // cbor-x hands back the tag 22 with the raw bytes inside.
    const raw = bin instanceof Tag ? bin.value : bin;
    expect(Buffer.from(raw)).toEqual(Buffer.from([0, 1, 2, 255]));
    // It reads 8-byte integers as bigint: the generation beyond 2^32 is an integer on the wire.
    expect(decoded.metadata.generation).toBe(2n ** 40n);
    expect({ ...decoded, binaryData: undefined, metadata: { ...decoded.metadata, generation: 0 } })
      .toEqual({ ...cm, binaryData: undefined, metadata: { ...cm.metadata, generation: 0 } });
  });

  it('cborListSchema reaches the items\' schema', () => {
    const list = { kind: 'SecretList', items: [{ data: { k: 'aGk=' } }] };
    expect(item(list, cborListSchema(secretSchema))).toBe(hex(`
      a2 64 6b696e64 6a 5365637265744c697374
         65 6974656d73 81 a1 64 64617461 a1 616b d6 42 6869`));
  });
});

describe('float16', () => {
  it('round-trips every finite half and refuses values it cannot hold exactly', () => {
    const wrong: number[] = [];
    for (let bits = 0; bits < 0x10000; bits++) {
      const v = fromFloat16Bits(bits);
      if (Number.isFinite(v) && toFloat16Bits(v) !== bits) wrong.push(bits);
    }
    expect(wrong).toEqual([]);
    expect(fromFloat16Bits(0x7c00)).toBe(Infinity);
    expect(fromFloat16Bits(0x7e00)).toBeNaN();
    expect(toFloat16Bits(0.1)).toBe(-1);
    expect(toFloat16Bits(65505)).toBe(-1);
    expect(toFloat16Bits(1 + 2 ** -11)).toBe(-1);
    expect(toFloat16Bits(2 ** -25)).toBe(-1);
  });
});
