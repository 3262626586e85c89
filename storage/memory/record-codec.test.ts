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
