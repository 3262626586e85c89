import { dealHand, flowHash } from './shuffle-shard.js';

describe('shuffle sharding', () => {
  it('deals handSize distinct queues of the deck, the same for the same flow', () => {
    for (let i = 0; i < 500; i++) {
      const hand = dealHand(flowHash(`flow-${i}`), 128, 6);
      expect(hand).toHaveLength(6);
      expect(new Set(hand).size).toBe(6);
      for (const q of hand) expect(q >= 0 && q < 128).toBe(true);
      expect(dealHand(flowHash(`flow-${i}`), 128, 6)).toEqual(hand);
    }
  });

  it('the hash stays an exact non-negative integer below 2^53', () => {
    for (const s of ['', 'a', 'system:serviceaccount:default:x', 'x'.repeat(1000)]) {
      const h = flowHash(s);
      expect(Number.isSafeInteger(h) && h >= 0).toBe(true);
    }
  });

  it('different flows rarely get the same hand, and every queue is used', () => {
    const hands = new Set<string>();
    const used = new Set<number>();
    for (let i = 0; i < 1000; i++) {
      const hand = dealHand(flowHash(`user-${i}`), 128, 6);
      hands.add([...hand].sort((a, b) => a - b).join(','));
      for (const q of hand) used.add(q);
    }
    expect(hands.size).toBeGreaterThan(995);
    expect(used.size).toBe(128);
  });

  it('a hand as large as the deck is the whole deck', () => {
    expect(dealHand(12345, 4, 6).sort()).toEqual([0, 1, 2, 3]);
  });
});
