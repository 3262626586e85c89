import { isStatusError } from '../../errors/status-error.js';
import type { Schema } from '../../schema/schema.js';
import { decodeCborObject } from './decode.js';
import { encodeCbor } from './encode.js';

/** Input bytes written by hand (hex, spaces ignored). */
const bytes = (h: string): Buffer => Buffer.from(h.replace(/\s+/g, ''), 'hex');
const decode = (h: string, s?: Schema): unknown => decodeCborObject(bytes(h), s).value;
/** The 400 message for `h`. */
const refused = (h: string | Buffer, s?: Schema): string => {
  try {
    decodeCborObject(typeof h === 'string' ? bytes(h) : h, s);
  } catch (err) {
    if (!isStatusError(err)) throw err;
    expect(err.code).toBe(400);
    expect(err.reason).toBe('BadRequest');
    return err.message;
  }
  throw new Error('expected a 400');
};

const secretSchema: Schema = {
  type: 'object',
  properties: {
    data: { type: 'object', additionalProperties: { type: 'string', format: 'byte' } },
    metadata: { type: 'object', properties: { name: { type: 'string' } } },
  },
};

describe('decodeCborObject', () => {
  it('reads a map with or without the self-described tag, and reports no duplicate fields', () => {
    expect(decodeCborObject(bytes('d9d9f7 a2 6161 01 6162 82 f5 f6'))).toEqual({ value: { a: 1, b: [true, null] }, duplicateFields: [] });
    expect(decode('a1 6161 01')).toEqual({ a: 1 });
  });

  it.each([
    ['00', 0], ['17', 23], ['1818', 24], ['190100', 256], ['1a00010000', 65536], ['1b0000000100000000', 2 ** 32],
    ['20', -1], ['3818', -25], ['3b7fffffffffffffff', -(2 ** 63)], ['1b7fffffffffffffff', 2 ** 63 - 1],
    ['f93e00', 1.5], ['f90001', 5.960464477539063e-8], ['fa47c35040', 100000.5], ['fb3fb999999999999a', 0.1],
    ['1800', 0], ['190017', 23], // non-shortest heads are well-formed
    ['f4', false], ['f5', true], ['f6', null], ['f7', null],
  ])('reads %s as %p', (h, v) => {
    expect(decode(h)).toBe(v);
  });

  it('reads text strings, byte strings where a string is expected, and byte-string map keys', () => {
    expect(decode('62 c3a9')).toBe('é');
    expect(decode('a1 41 61 42 6869')).toEqual({ a: 'hi' });
  });

  it('turns byte strings at format: byte fields into base64, and keeps text there as it is', () => {
    expect(decode('a1 64 64617461 a2 61 6b 42 6869 61 74 64 61476b3d', secretSchema)).toEqual({ data: { k: 'aGk=', t: 'aGk=' } });
    // What the encoder writes (tag 22) reads back the same.
    expect(decode('a1 64 64617461 a1 61 6b d6 43 00ff10', secretSchema)).toEqual({ data: { k: Buffer.from([0, 255, 16]).toString('base64') } });
    // A byte string elsewhere is text: not base64.
    expect(decode('a1 68 6d65746164617461 a1 64 6e616d65 42 6869', secretSchema)).toEqual({ metadata: { name: 'hi' } });
  });

  it('reads tags 21, 22, 23 on byte strings as base64url, base64 and base16 text', () => {
    expect(decode('d5 43 fbff00')).toBe('-_8A');
    expect(decode('d6 43 fbff00')).toBe('+/8A');
    expect(decode('d7 43 fbff00')).toBe('fbff00');
  });

  it('reads indefinite-length strings, arrays and maps (other encoders write them)', () => {
    expect(decode('7f 62 6869 61 21 ff')).toBe('hi!');
    expect(decode('5f 41 68 41 69 ff')).toBe('hi');
    expect(decode('9f 01 9f 02 ff ff')).toEqual([1, [2]]);
    expect(decode('bf 61 61 01 61 62 9f ff ff')).toEqual({ a: 1, b: [] });
  });

  it('reads tag 0 text and tag 1 epoch seconds as RFC 3339, other tags as their content', () => {
    expect(decode('c0 74 323032342d30352d30315431303a30303a30305a')).toBe('2024-05-01T10:00:00Z');
    expect(decode('c1 1a 663212a0')).toBe('2024-05-01T10:00:00Z');
    expect(decode('c1 fb 41d98c84a8100000')).toBe('2024-05-01T10:00:00.250Z');
    expect(decode('d8 20 63 616263')).toBe('abc'); // tag 32 (URI): the content
    expect(decode('a1 6161 d9d9f7 01')).toEqual({ a: 1 }); // 55799 inside: transparent
  });

  it('keeps a __proto__ key as data', () => {
    const v = decode('a1 69 5f5f70726f746f5f5f a1 6161 01') as Record<string, unknown>;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(Object.keys(v)).toEqual(['__proto__']);
    expect((v as { a?: number }).a).toBeUndefined();
  });

  it.each([
    ['duplicate keys', 'a2 6161 01 6161 02', 'cbor: found duplicate map key "a" at map element index 1'],
    ['a duplicate key as text and as bytes', 'a2 6161 01 4161 02', 'cbor: found duplicate map key "a" at map element index 1'],
    ['duplicate keys in an indefinite map', 'bf 6161 01 6161 02 ff', 'cbor: found duplicate map key "a" at map element index 1'],
    ['an integer map key', 'a1 01 02', 'cbor: map key at map element index 0 is a positive integer, not a string'],
    ['an array map key', 'a1 80 02', 'cbor: map key at map element index 0 is a array, not a string'],
    ['bytes after the item', 'a1 6161 01 00 00', 'cbor: 2 bytes of extraneous data starting at index 4'],
    ['a truncated map', 'a2 6161 01', 'cbor: unexpected EOF'],
    ['a truncated string', '65 6162', 'cbor: unexpected EOF'],
    ['a truncated head', '19 01', 'cbor: unexpected EOF'],
    ['an empty body', '', 'cbor: unexpected EOF'],
    ['invalid UTF-8 text', '62 c328', 'cbor: invalid UTF-8 string'],
    ['a byte string that is not UTF-8 where text is expected', 'a1 6161 42 ff00', 'cbor: byte string is not valid UTF-8 where a string is expected'],
    ['NaN', 'f97e00', 'cbor: floating-point NaN is not allowed'],
    ['Infinity', 'fa7f800000', 'cbor: floating-point infinity is not allowed'],
    ['an integer beyond int64', '1b8000000000000000', 'cbor: cannot unmarshal positive integer into Go value of type int64 (9223372036854775808 overflows Go\'s int64)'],
    ['a negative integer beyond int64', '3b8000000000000000', 'cbor: cannot unmarshal negative integer into Go value of type int64 (-1-9223372036854775808 overflows Go\'s int64)'],
    ['a bignum', 'c2 41 01', 'cbor: bignums (tags 2 and 3) are not supported'],
    ['tag 0 on a number', 'c0 01', 'cbor: tag number 0 must be followed by text string, got positive integer'],
    ['tag 1 on a string', 'c1 6161', 'cbor: tag number 1 must be followed by an integer or a float, got string'],
    ['a simple value', 'f0', 'cbor: simple value 16 is not supported'],
    ['a one-byte simple value', 'f8 ff', 'cbor: simple value 255 is not supported'],
    ['a stray break', 'ff', 'cbor: unexpected "break" code'],
    ['reserved additional information', '1c', 'cbor: invalid additional information 28 for type positive integer'],
    ['reserved additional information on a primitive', 'fc', 'cbor: invalid additional information 28 for type primitive'],
    ['an indefinite string with a chunk of another type', '7f 41 61 ff', 'cbor: wrong element type byte string for indefinite-length UTF-8 text string'],
    ['a nested indefinite chunk', '5f 5f ff ff', 'cbor: wrong element type byte string for indefinite-length byte string'],
  ])('refuses %s with a 400', (_what, h, message) => {
    expect(refused(h)).toBe(message);
  });

  it('allows 64 nested levels (arrays, maps, tags) and refuses 65', () => {
    expect(decode(`${'81'.repeat(63)}80`)).toBeDefined();
    expect(decode(`d9d9f7${'81'.repeat(62)}80`)).toBeDefined();
    expect(refused(`${'81'.repeat(64)}80`)).toBe('cbor: exceeded max nested level 64');
    expect(refused(`d9d9f7${'81'.repeat(63)}80`)).toBe('cbor: exceeded max nested level 64');
    expect(refused(`${'a1 6161'.repeat(64)}a0`)).toBe('cbor: exceeded max nested level 64');
    // Deep input is refused by the limit, not by the call stack.
    expect(refused(Buffer.alloc(3 * 1024 * 1024, 0x81))).toBe('cbor: exceeded max nested level 64');
  });

  it('allows 1,024 array elements and map pairs and refuses more, definite or not', () => {
    expect((decode(`990400${'00'.repeat(1024)}`) as unknown[]).length).toBe(1024);
    expect(refused(`990401${'00'.repeat(1025)}`)).toBe('cbor: exceeded max number of elements 1024 for CBOR array');
    expect(refused(`9f${'00'.repeat(1025)}ff`)).toBe('cbor: exceeded max number of elements 1024 for CBOR array');
    const pairs = (n: number): string => Array.from({ length: n }, (_, i) => `${encodeCbor(`k${i}`).subarray(3).toString('hex')}00`).join('');
    expect(Object.keys(decode(`b90400${pairs(1024)}`) as object)).toHaveLength(1024);
    expect(refused(`b90401${pairs(1025)}`)).toBe('cbor: exceeded max number of key-value pairs 1024 for CBOR map');
    expect(refused(`bf${pairs(1025)}ff`)).toBe('cbor: exceeded max number of key-value pairs 1024 for CBOR map');
    // A huge declared length is refused before anything is allocated.
    expect(refused('9b00000000ffffffff')).toBe('cbor: exceeded max number of elements 1024 for CBOR array');
  });

  it('reads back what encodeCbor writes', () => {
    const secret = {
      apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', labels: { 'é': 'x' }, generation: 2 ** 40 },
      data: { a: Buffer.from('secret bytes \u0000\u00ff').toString('base64') }, list: [1.5, -3, null, true, 'x'],
    };
    expect(decode(encodeCbor(secret, secretSchema).toString('hex'), secretSchema)).toEqual(secret);
  });

  it('answers every mutation of a valid body with a value or a 400, never another error', () => {
    const valid = encodeCbor({
      apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'ns', labels: { a: 'b' }, generation: 3 },
      data: { k: 'aGk=' }, type: 'Opaque', items: [1, 2.5, 'x', [true]],
    }, secretSchema);
    let seed = 12345;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    let refusedCount = 0;
    for (let round = 0; round < 5000; round++) {
      const b = Buffer.from(valid);
      const mutations = 1 + random(4);
      for (let m = 0; m < mutations; m++) {
        const kind = random(3);
        const at = random(b.length);
        if (kind === 0) b[at] = random(256);
        else if (kind === 1) b[at] = b[at]! ^ (1 << random(8));
        else b[at] = [0x1b, 0x5f, 0x9f, 0xbf, 0xff, 0xf9, 0xd9][random(7)]!;
      }
      const input = random(4) === 0 ? b.subarray(0, random(b.length)) : b;
      try {
        decodeCborObject(input, secretSchema);
      } catch (err) {
        if (!isStatusError(err) || err.code !== 400) throw err;
        refusedCount++;
      }
    }
    expect(refusedCount).toBeGreaterThan(1000);
  });
});
