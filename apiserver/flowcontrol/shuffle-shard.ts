/**
 * Shuffle sharding, as API Priority and Fairness assigns a flow to queues: the flow's hash deals a "hand"
 * of `handSize` distinct queues out of a deck of `deckSize`, and the request joins the shortest queue of
 * its hand. Two flows share a whole hand only with probability about 1 / C(deck, hand), so a noisy flow
 * fills its own queues while almost every other flow still has a short queue in its hand.
 *
 * The hash is 53 bits (two 32-bit FNV-1a variants), enough entropy for every built-in level
 * (128 × 127 × ... × 123 < 2^53).
 */

/** A 53-bit hash of `s` (non-negative integer, exact in a double). */
export function flowHash(s: string): number {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return (a >>> 0) * 0x200000 + ((b >>> 0) >>> 11);
}

/**
 * The `handSize` distinct queue indexes (in [0, deckSize)) dealt by `hash`. Each step takes the hash's
 * next digit in base (deckSize - i) as a position among the cards not dealt yet.
 */
export function dealHand(hash: number, deckSize: number, handSize: number): number[] {
  const n = Math.min(handSize, deckSize);
  const hand: number[] = [];
  const dealt: number[] = []; // sorted ascending
  let value = hash;
  for (let i = 0; i < n; i++) {
    const remaining = deckSize - i;
    let card = value % remaining;
    value = Math.floor(value / remaining);
    // The card-th of the cards not dealt yet: skip over the dealt ones at or below it.
    for (const d of dealt) if (d <= card) card++;
    hand.push(card);
    let at = dealt.length;
    while (at > 0 && dealt[at - 1]! > card) at--;
    dealt.splice(at, 0, card);
  }
  return hand;
}
