import { crc32 } from './crc32.js';
import { decodeLogRecord, encodeCompact, encodeTxn, FRAME_HEADER, RecordType, scanFrames } from './record-codec.js';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

function decodeAll(buf: Buffer): { records: ReturnType<typeof decodeLogRecord>[]; scan: ReturnType<typeof scanFrames> } {
  const records: ReturnType<typeof decodeLogRecord>[] = [];
  const scan = scanFrames(buf, 0, (s, e) => records.push(decodeLogRecord(buf, s, e)));
  return { records, scan };
}

describe('crc32', () => {
  it('matches the standard check value', () => {
    expect(crc32(bytes('123456789'))).toBe(0xcbf43926);
    expect(crc32(new Uint8Array(0))).toBe(0);
  });
});

describe('record codec', () => {
  const txn = encodeTxn(42, [
    { key: '/a/ü/😀', value: bytes('hello'), createRevision: 7 },
    { key: '/b', value: undefined, createRevision: 0 },
  ]);
  const log = Buffer.concat([txn.frame, encodeCompact(40)]);

  it('round-trips transactions and compactions; values are views into the frame', () => {
    expect(Buffer.from(txn.values[0]!).toString()).toBe('hello');
    expect(txn.values[0]!.buffer).toBe(txn.frame.buffer);
    const { records, scan } = decodeAll(log);
    expect(scan).toEqual({ validEnd: log.length, problem: undefined });
    expect(records).toEqual([
      {
        type: RecordType.Txn,
        revision: 42,
        ops: [
          { key: '/a/ü/😀', value: bytes('hello'), createRevision: 7 },
          { key: '/b', value: undefined, createRevision: 0 },
        ],
      },
      { type: RecordType.Compact, revision: 40 },
    ]);
  });

  it('round-trips puts with an expiry next to plain ones; a plain put stays in the old format', () => {
    const expiresAt = Date.UTC(2031, 0, 2, 3, 4, 5, 678);
    const ops = [
      { key: '/events/a', value: bytes('e'), createRevision: 9, expiresAt },
      { key: '/events/b', value: bytes('p'), createRevision: 10 },
      { key: '/events/c', value: undefined, createRevision: 0 },
    ];
    const frame = encodeTxn(11, ops).frame;
    const { records } = decodeAll(frame);
    expect(records).toEqual([{ type: RecordType.Txn, revision: 11, ops }]);
    // An expiry of 0 means none: the record is byte for byte the one written before ttls existed.
    const plain = encodeTxn(11, [{ key: '/k', value: bytes('x'), createRevision: 3, expiresAt: 0 }]).frame;
    expect(plain.equals(encodeTxn(11, [{ key: '/k', value: bytes('x'), createRevision: 3 }]).frame)).toBe(true);
    expect(frame.length - FRAME_HEADER).toBe(1 + 6 + 4 + (1 + 4 + 9 + 6 + 6 + 4 + 1) + (1 + 4 + 9 + 6 + 4 + 1) + (1 + 4 + 9));
  });

  it('stops at a torn tail, at any cut point', () => {
    for (let cut = txn.frame.length + 1; cut < log.length; cut++) {
      const { records, scan } = decodeAll(log.subarray(0, cut));
      expect(records).toHaveLength(1);
      expect(scan.validEnd).toBe(txn.frame.length);
      expect(scan.problem).toMatch(/partial/);
    }
  });

  it('stops at a flipped byte anywhere in a record', () => {
    for (let i = 0; i < txn.frame.length; i++) {
      const damaged = Buffer.from(log);
      damaged[i] = damaged[i]! ^ 0x40;
      const { records, scan } = decodeAll(damaged);
      expect(records).toHaveLength(0);
      expect(scan.validEnd).toBe(0);
      expect(scan.problem).toBeDefined();
    }
  });

  it('treats garbage after valid records as the end', () => {
    const withGarbage = Buffer.concat([log, Buffer.from('garbage garbage garbage')]);
    const { records, scan } = decodeAll(withGarbage);
    expect(records).toHaveLength(2);
    expect(scan.validEnd).toBe(log.length);
    expect(scan.problem).toMatch(/bad record length|partial|checksum/);
    expect(FRAME_HEADER).toBe(8);
  });
});
