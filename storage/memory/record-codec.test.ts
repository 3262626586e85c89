import { decodeLogRecord, encodeCompact, encodeTxn, FRAME_HEADER, RecordType, scanFrames } from './record-codec.js';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

function decodeAll(buf: Buffer): { records: ReturnType<typeof decodeLogRecord>[]; scan: ReturnType<typeof scanFrames> } {
  const records: ReturnType<typeof decodeLogRecord>[] = [];
  const scan = scanFrames(buf, 0, (s, e) => records.push(decodeLogRecord(buf, s, e)));
  return { records, scan };
}

describe('frame checksum (zlib.crc32)', () => {
  it('reads a log written by the hand-rolled CRC-32 it replaced, and writes the same bytes', () => {
    // TXN 42 [put /a/ü = hello (create 7), delete /b] then COMPACT 40, as written before the switch.
    const before = Buffer.from(
      '2b0000004650f456012a00000000000200000001050000002f612fc3bc0700000000000500000068656c6c6f02020000002f62' +
        '070000000c490ce102280000000000',
      'hex',
    );
    const { records, scan } = decodeAll(before);
    expect(scan).toEqual({ validEnd: before.length, problem: undefined });
    expect(records).toHaveLength(2);
    const ops = [
      { key: '/a/ü', value: bytes('hello'), createRevision: 7 },
      { key: '/b', value: undefined, createRevision: 0 },
    ];
    expect(Buffer.concat([encodeTxn(42, ops).frame, encodeCompact(40)]).equals(before)).toBe(true);
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
    // Memory of the frame's own, not a slice of node's shared pool that the kept value would pin whole.
    expect(txn.frame.buffer.byteLength).toBe(txn.frame.length);
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
