/** Algebraic laws of FieldSet over random sets (seeded, so a failure reproduces). */
import { decodeFieldsV1, encodeFieldsV1 } from './fields-v1.js';
import { fieldPE, keyPE, valuePE, type PE } from './path-element.js';
import { FieldSet } from './set.js';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const ELEMENTS: PE[] = [fieldPE('a'), fieldPE('b'), fieldPE('spec'), keyPE({ name: 'x' }), keyPE({ name: 'y', port: 80 }), valuePE('v'), valuePE(1)];

function randomSet(r: () => number): FieldSet {
  const s = new FieldSet();
  const n = Math.floor(r() * 12);
  for (let i = 0; i < n; i++) {
    const depth = 1 + Math.floor(r() * 4);
    s.insert(Array.from({ length: depth }, () => ELEMENTS[Math.floor(r() * ELEMENTS.length)]!));
  }
  return s;
}

const subset = (a: FieldSet, b: FieldSet): boolean => a.paths().every((p) => b.has(p));

describe('FieldSet laws (200 random pairs)', () => {
  const r = rng(20261123);
  const pairs = Array.from({ length: 200 }, () => [randomSet(r), randomSet(r), randomSet(r)] as const);

  test('union is commutative and contains both operands', () => {
    for (const [a, b] of pairs) {
      expect(a.union(b).equals(b.union(a))).toBe(true);
      expect(subset(a, a.union(b)) && subset(b, a.union(b))).toBe(true);
    }
  });

  test('intersection is commutative and inside both operands', () => {
    for (const [a, b] of pairs) {
      expect(a.intersection(b).equals(b.intersection(a))).toBe(true);
      expect(subset(a.intersection(b), a) && subset(a.intersection(b), b)).toBe(true);
    }
  });

  test('difference and intersection partition a set', () => {
    for (const [a, b] of pairs) {
      expect(a.difference(b).intersection(b).empty()).toBe(true);
      expect(a.difference(b).union(a.intersection(b)).equals(a)).toBe(true);
    }
  });

  test('recursive difference is inside difference, and removes everything below a removed path', () => {
    for (const [a, b] of pairs) {
      const rd = a.recursiveDifference(b);
      expect(subset(rd, a.difference(b))).toBe(true);
      for (const p of rd.paths()) for (let i = 1; i <= p.length; i++) expect(b.has(p.slice(0, i))).toBe(false);
    }
  });

  test('union distributes over intersection', () => {
    for (const [a, b, c] of pairs) expect(a.union(b.intersection(c)).equals(a.union(b).intersection(a.union(c)))).toBe(true);
  });

  test('FieldsV1 round trip and size', () => {
    for (const [a] of pairs) {
      const back = decodeFieldsV1(JSON.parse(JSON.stringify(encodeFieldsV1(a))));
      expect(back.equals(a)).toBe(true);
      expect(back.size()).toBe(a.paths().length);
    }
  });
});
