// Verify a cardcore game log in Node, without Python and without trusting the server.
//
// Re-implemented from the specs alone: docs/log-format.md (canonical JSON, the header hash, the
// HMAC-keyed hash chain, the seed commitment, the end line) and docs/rng.md (SplitMix64 streams,
// unbiased `below`, Fisher–Yates), then the first shuffle of the game is re-dealt from the
// revealed seed and compared with the logged deal (entry 0's events). All 64-bit arithmetic is
// BigInt; integers in logs beyond 2^53 (seeds) are parsed as BigInt, never rounded.

import { createHash, createHmac } from 'node:crypto';

export const MASK64 = (1n << 64n) - 1n;
export const GAMMA = 0x9e3779b97f4a7c15n;
export const RNG_ALGORITHM = 'splitmix64-fisher-yates/1';

// ------------------------------------------------------------------------------- canonical JSON

/** Parse JSON like cardcore does: integers only (BigInt beyond 2^53), floats refused. */
export function parseJson(text) {
  let i = 0;
  const fail = (what) => {
    throw new SyntaxError(`invalid JSON at ${i}: ${what}`);
  };
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  };
  const value = () => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const out = Object.create(null);
      ws();
      if (text[i] === '}') {
        i++;
        return out;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('expected a key');
        const key = string();
        ws();
        if (text[i++] !== ':') fail('expected :');
        out[key] = value();
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i++] !== '}') fail('expected , or }');
        return out;
      }
    }
    if (c === '[') {
      i++;
      const out = [];
      ws();
      if (text[i] === ']') {
        i++;
        return out;
      }
      for (;;) {
        out.push(value());
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i++] !== ']') fail('expected , or ]');
        return out;
      }
    }
    if (c === '"') return string();
    if (text.startsWith('true', i)) return (i += 4), true;
    if (text.startsWith('false', i)) return (i += 5), false;
    if (text.startsWith('null', i)) return (i += 4), null;
    const m = /^-?(0|[1-9][0-9]*)([.eE])?/.exec(text.slice(i, i + 400));
    if (!m) fail('unexpected character');
    if (m[2]) fail('floats are not allowed in cardcore JSON');
    i += m[0].length;
    const n = BigInt(m[0]);
    return n >= -BigInt(Number.MAX_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(n)
      : n;
  };
  const string = () => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    if (text[i] !== '"') fail('unterminated string');
    i++;
    return JSON.parse(text.slice(start, i));
  };
  const out = value();
  ws();
  if (i !== text.length) fail('trailing characters');
  return out;
}

/** Canonical JSON (log-format.md): sorted keys, compact, UTF-8, integers only. Byte for byte
 *  what Python's `json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False)` writes. */
export function canonical(value) {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return value.toString();
    case 'number':
      if (!Number.isSafeInteger(value)) throw new TypeError(`not an integer: ${value}`);
      return String(value);
    case 'string':
      return JSON.stringify(value);
    case 'object':
      if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
      return `{${Object.keys(value)
        .sort(byCodePoint)
        .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
        .join(',')}}`;
    default:
      throw new TypeError(`not JSON: ${typeof value}`);
  }
}

function byCodePoint(a, b) {
  const x = [...a].map((c) => c.codePointAt(0));
  const y = [...b].map((c) => c.codePointAt(0));
  for (let k = 0; k < Math.min(x.length, y.length); k++) if (x[k] !== y[k]) return x[k] - y[k];
  return x.length - y.length;
}

const sha256 = (data) => createHash('sha256').update(data).digest('hex');
const without = (obj, key) => {
  const out = Object.create(null);
  for (const k of Object.keys(obj)) if (k !== key) out[k] = obj[k];
  return out;
};

// ------------------------------------------------------------------------------- the RNG (rng.md)

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

// ------------------------------------------------------------------------------- the first deal

/** The cards of entry 0's deal in the order they were taken from the shuffled deck, per game
 *  (rules.md §0.3 and each game's deal), and the deck the game shuffles. */
const DEALS = {
  // one card at a time from P0: stacks[q] = cards[q::n], top first
  ratscrew: {
    deck: (rules) => standardDeck(rules.num_decks, rules.jokers),
    order: (ev, n) => roundRobin(ev.stacks, n),
  },
  slapjack: {
    deck: (rules) => standardDeck(rules.num_decks),
    order: (ev, n) => roundRobin(ev.stacks, n),
  },
  // k rounds face down, k face up, k to the hands (one card per seat per round), then the stock
  palace: {
    deck: (rules) => standardDeck(rules.num_decks, rules.jokers),
    order: (ev, n) => {
      const out = [];
      for (const zone of [ev.down, ev.up, ev.hands]) {
        const k = Math.max(...zone.map((z) => z.length));
        for (let r = 0; r < k; r++) for (let q = 0; q < n; q++) if (r < zone[q].length) out.push(zone[q][r]);
      }
      return [...out, ...ev.stock];
    },
  },
  // 26 each from P0 (p::2); each packet laid out: piles bottom→top in order, then spit cards
  spit: {
    deck: () => standardDeck(),
    order: (ev) => {
      const packets = [0, 1].map((p) => [...ev.layouts[p].flat(), ...ev.spit_cards[p]]);
      return roundRobin(packets, 2);
    },
  },
  // C0 C1, R0, R1, then each player's packet (hand on top of its draw pile)
  speed: {
    deck: (rules) => standardDeck(1, rules.jokers),
    order: (ev) => [
      ...ev.centre,
      ...ev.sides[0],
      ...ev.sides[1],
      ...ev.hands[0],
      ...ev.draws[0],
      ...ev.hands[1],
      ...ev.draws[1],
    ],
  },
};

function roundRobin(stacks, n) {
  const out = [];
  const longest = Math.max(...stacks.map((s) => s.length));
  for (let r = 0; r < longest; r++) for (let q = 0; q < n; q++) if (r < stacks[q].length) out.push(stacks[q][r]);
  return out;
}

/** Re-deal stream 0 from the seed; returns null when it matches entry 0's deal, else a message. */
export function checkDeal(header, seed, dealEvents) {
  const spec = DEALS[header.game];
  if (!spec) return `no Node deal for game ${header.game}`;
  const { rules, seats } = header.setup;
  const deck = shuffled(seed, 0, spec.deck(rules));
  const dealt = dealEvents.find((e) => e.kind === 'Dealt');
  if (!dealt) return 'entry 0 has no Dealt event';
  const got = spec.order(dealt, seats);
  // Speed leaves one card undealt when the personal packets are odd: compare what was dealt
  const want = deck.slice(0, got.length);
  if (got.length < deck.length - 1 || canonical(got) !== canonical(want)) {
    return `the deal differs from the re-dealt deck (first ${Math.min(5, got.length)}: ${got
      .slice(0, 5)
      .join(' ')} vs ${want.slice(0, 5).join(' ')})`;
  }
  return null;
}

// ------------------------------------------------------------------------------- the log

export class VerifyError extends Error {
  /** `at` is "header", an entry's seq, or "end". */
  constructor(at, message) {
    super(`${at === 'header' || at === 'end' ? at : `seq ${at}`}: ${message}`);
    this.at = at;
  }
}

/**
 * Verify a log (JSON Lines text or Buffer). Returns a summary; throws VerifyError naming the
 * first bad line. A log without its end line (a game in progress) is checked as far as it can
 * be: the link chain and seqs; the HMACs, the commitment and the deal need the revealed seed.
 */
export function verifyLog(data) {
  const text = Buffer.isBuffer(data) ? data.toString('utf8') : String(data);
  const rows = text.split('\n').filter((l) => l.trim() !== '');
  if (rows.length === 0) throw new VerifyError('header', 'empty log');
  const lines = rows.map((row, k) => {
    try {
      return parseJson(row);
    } catch (e) {
      throw new VerifyError(k === 0 ? 'header' : k - 1, `unreadable line: ${e.message}`);
    }
  });
  const header = lines[0];
  if (header.type !== 'header') throw new VerifyError('header', 'the first line is not a header');
  if (header.format !== 1) throw new VerifyError('header', `unknown format ${header.format}`);
  if (header.rng !== RNG_ALGORITHM) throw new VerifyError('header', `unknown rng ${header.rng}`);
  if (sha256(canonical(without(header, 'hash'))) !== header.hash) {
    throw new VerifyError('header', 'header hash mismatch');
  }
  if (sha256(canonical(header.setup)) !== header.setup_hash) {
    throw new VerifyError('header', 'setup_hash mismatch');
  }
  const last = lines[lines.length - 1];
  const end = last.type === 'end' ? last : null;
  const entries = lines.slice(1, end ? -1 : undefined);
  let salt = null;
  let seed = null;
  if (end) {
    if (!/^[0-9a-f]{32}$/.test(end.salt)) throw new VerifyError('end', 'malformed salt');
    salt = Buffer.from(end.salt, 'hex');
    seed = BigInt(end.seed);
    if (seed < 0n || seed > MASK64) throw new VerifyError('end', 'seed out of range');
    const seedBytes = Buffer.alloc(8);
    seedBytes.writeBigUInt64BE(seed);
    if (sha256(Buffer.concat([seedBytes, salt])) !== header.commitment) {
      throw new VerifyError('header', 'the revealed seed does not match the commitment');
    }
  }
  let prev = header.hash;
  let atMs = 0;
  entries.forEach((line, k) => {
    if (line.type !== 'entry') throw new VerifyError(k, `unexpected ${line.type} line`);
    if (line.seq !== k) throw new VerifyError(k, `expected seq ${k}, found ${line.seq}`);
    if (line.prev !== prev) throw new VerifyError(k, 'prev does not link to the previous line');
    if (typeof line.at_ms !== 'number' || line.at_ms < atMs) {
      throw new VerifyError(k, 'at_ms goes backwards');
    }
    atMs = line.at_ms;
    if (salt) {
      const mac = createHmac('sha256', salt).update(canonical(without(line, 'hash'))).digest('hex');
      if (mac !== line.hash) throw new VerifyError(k, 'entry hash (HMAC) mismatch');
    }
    prev = line.hash;
  });
  let dealChecked = false;
  if (end) {
    if (end.seq !== entries.length) throw new VerifyError('end', `expected seq ${entries.length}`);
    if (end.prev !== prev) throw new VerifyError('end', 'prev does not link to the last entry');
    if (sha256(canonical(without(end, 'hash'))) !== end.hash) {
      throw new VerifyError('end', 'end hash mismatch');
    }
    if (entries.length === 0) throw new VerifyError('end', 'no deal entry');
    const problem = checkDeal(header, seed, entries[0].events);
    if (problem) throw new VerifyError(0, problem);
    dealChecked = true;
  }
  return {
    game: header.game,
    rulesVersion: header.rules_version,
    entries: entries.length,
    complete: end !== null,
    outcome: end ? end.outcome : null,
    seed: seed,
    dealChecked,
  };
}

/** Check the known-answer vectors of docs/rng.md (its ```json block); returns how many. */
export function checkRngVectors(vectors) {
  let n = 0;
  const eq = (got, want, what) => {
    if (got !== want) throw new Error(`${what}: got ${got}, want ${want}`);
    n++;
  };
  const hex = (x) => x.toString(16).padStart(16, '0');
  eq(vectors.algorithm, RNG_ALGORITHM, 'algorithm');
  for (const v of vectors.streams) {
    const rng = new Rng(BigInt(v.seed), v.stream);
    eq(hex(rng.key), v.key, `key(${v.seed}, ${v.stream})`);
    v.outputs.forEach((o, k) => eq(hex(rng.next()), o, `draw ${k + 1} of (${v.seed}, ${v.stream})`));
  }
  for (const v of vectors.below) {
    const rng = new Rng(BigInt(v.seed), v.stream);
    v.values.forEach((x, k) => eq(rng.below(v.n), x, `below(${v.n}) #${k} of (${v.seed}, ${v.stream})`));
  }
  for (const v of vectors.shuffles) {
    const [lo, hi] = v.input.split('..').map(Number);
    const items = Array.from({ length: hi - lo + 1 }, (_, k) => lo + k);
    eq(canonical(shuffled(BigInt(v.seed), v.stream, items)), canonical(v.output), `shuffle ${v.seed}`);
  }
  for (const v of vectors.deals) {
    eq(shuffled(BigInt(v.seed), v.stream, standardDeck()).join(' '), v.deck, `deal ${v.seed}`);
  }
  return n;
}

/** The ```json block of docs/rng.md. */
export function rngVectorsFromMarkdown(markdown) {
  const m = /```json\n([\s\S]*?)\n```/.exec(markdown);
  if (!m) throw new Error('no ```json block');
  return JSON.parse(m[1]);
}
