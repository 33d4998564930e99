// The RNG of docs/rng.md, re-implemented from the document alone: SplitMix64 streams, unbiased
// `below`, Fisher–Yates, the deck, log format 2's deal seed derived from the server seed and
// the seats' entropy, and the commitment a seat joins with before revealing its entropy
// ("Committed entropy"). Node's own check of a log (crosscheck.js) re-deals the first shuffle with
// it, and test/rng.test.js holds it to the document's known-answer vectors — which so show the
// document is enough to implement it. All 64-bit arithmetic is BigInt.

import { createHash } from 'node:crypto';

export const MASK64 = (1n << 64n) - 1n;
export const GAMMA = 0x9e3779b97f4a7c15n;
export const RNG_ALGORITHM = 'splitmix64-fisher-yates/1';

export function mix64(z) {
  z &= MASK64;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
  return z ^ (z >> 31n);
}

/** key(seed, stream) = mix64(seed + (stream + 1) * GAMMA) */
export function streamKey(seed, stream) {
  return mix64((BigInt(seed) + (BigInt(stream) + 1n) * GAMMA) & MASK64);
}

export class Rng {
  constructor(seed, stream) {
    this.key = streamKey(seed, stream);
    this.k = 0n;
  }

  /** Draw k = 1, 2, …: mix64(key + k * GAMMA). */
  next() {
    this.k += 1n;
    return mix64((this.key + this.k * GAMMA) & MASK64);
  }

  /** Uniform integer in [0, n) by rejection sampling (rng.md). */
  below(n) {
    const big = BigInt(n);
    if (big < 1n || big > MASK64) throw new RangeError('n out of range');
    const limit = (1n << 64n) - ((1n << 64n) % big);
    for (;;) {
      const x = this.next();
      if (x < limit) return Number(x % big);
    }
  }

  /** Fisher–Yates (Durstenfeld), in place: for i from len-1 down to 1, swap i and below(i+1). */
  shuffle(items) {
    for (let i = items.length - 1; i >= 1; i--) {
      const j = this.below(i + 1);
      [items[i], items[j]] = [items[j], items[i]];
    }
    return items;
  }
}

export function shuffled(seed, stream, items) {
  return new Rng(seed, stream).shuffle([...items]);
}

const RANKS = ['A', '2', '3', '4', '5', '6', '7', '8', '9', '10', 'J', 'Q', 'K'];

/** Unshuffled deck(s) (rng.md "The deck"): S H D C, each A..K, then jokers; deck after deck. */
export function standardDeck(numDecks = 1, jokersPerDeck = 0) {
  const one = [];
  for (const suit of 'SHDC') for (const rank of RANKS) one.push(rank + suit);
  for (let j = 0; j < jokersPerDeck; j++) one.push('JK');
  const out = [];
  for (let d = 0; d < numDecks; d++) out.push(...one);
  return out;
}

// ------------------------------------------------------------------------------- format 2

export const DERIVATION = 'sha256-deal-seed/1';
const DERIVATION_TAG = 'cardcore-deal-seed/1';
const ENTROPY_HEX = /^[0-9a-f]{32}$/;

/** `n` as 8 bytes big-endian (the deal seed's input, the seed commitment's). */
export const u64 = (n) => {
  const out = Buffer.alloc(8);
  out.writeBigUInt64BE(n);
  return out;
};

/**
 * The bytes SHA-256 hashes into the deal seed (rng.md, "The deal seed"): the 20 ASCII bytes of
 * "cardcore-deal-seed/1", the server seed as 8 bytes big-endian, then for each contribution in
 * increasing seat order its seat as 4 bytes big-endian and its 16 bytes of entropy.
 * `contributions`: [{ seat, entropy: 32 lowercase hex digits }], in any order.
 */
export function dealSeedInput(serverSeed, contributions) {
  const seed = BigInt(serverSeed);
  if (seed < 0n || seed > MASK64) throw new RangeError(`server seed out of range: ${seed}`);
  const parts = [Buffer.from(DERIVATION_TAG, 'ascii'), u64(seed)];
  const seen = new Set();
  for (const { seat, entropy } of [...contributions].sort((a, b) => a.seat - b.seat)) {
    if (!Number.isInteger(seat) || seat < 0 || seat >= 2 ** 32 || seen.has(seat)) {
      throw new RangeError(`contribution seat ${seat}: out of range or given twice`);
    }
    if (typeof entropy !== 'string' || !ENTROPY_HEX.test(entropy)) {
      throw new RangeError('a contribution is exactly 16 bytes (32 lowercase hex digits)');
    }
    seen.add(seat);
    const seatBytes = Buffer.alloc(4);
    seatBytes.writeUInt32BE(seat);
    parts.push(seatBytes, Buffer.from(entropy, 'hex'));
  }
  return Buffer.concat(parts);
}

/** deal_seed(server_seed, contributions): the first 8 bytes, big-endian, of the SHA-256 of
 *  `dealSeedInput` — the seed every shuffle of a format-2 game draws from. A BigInt. */
export function deriveDealSeed(serverSeed, contributions) {
  const digest = createHash('sha256').update(dealSeedInput(serverSeed, contributions)).digest();
  return digest.readBigUInt64BE(0);
}

// ------------------------------------------------------------------------ committed entropy

export const COMMITMENT_TAG = 'cardcore-entropy-commitment/1';
/** What a seat adds to the deal: 128 random bits (rng.md, "The deal seed"). */
export const ENTROPY_BYTES = 16;

/**
 * entropy_commitment(entropy) (rng.md, "Committed entropy"): SHA-256 of the 29 ASCII bytes of
 * "cardcore-entropy-commitment/1" then the 16 bytes of entropy — what a seat joins with instead
 * of its entropy, which it reveals once nobody can join or leave. `entropy`: a Buffer or
 * Uint8Array of 16 bytes, or 32 hex digits. A Buffer of 32 bytes: its `.toString('hex')` is
 * what a table's seat (`entropyCommitment`) and a log header's `contributions[].commitment`
 * show.
 */
export function entropyCommitment(entropy) {
  let bytes;
  if (typeof entropy === 'string') {
    if (!/^[0-9a-fA-F]*$/.test(entropy) || entropy.length % 2) {
      throw new TypeError(`entropy as text is ${2 * ENTROPY_BYTES} hex digits`);
    }
    bytes = Buffer.from(entropy, 'hex');
  } else if (entropy instanceof Uint8Array) {
    bytes = Buffer.from(entropy);
  } else {
    throw new TypeError('entropy: a Buffer, a Uint8Array or hex digits');
  }
  if (bytes.length !== ENTROPY_BYTES) {
    throw new RangeError(`a contribution is exactly ${ENTROPY_BYTES} bytes (got ${bytes.length})`);
  }
  return createHash('sha256').update(COMMITMENT_TAG, 'ascii').update(bytes).digest();
}
