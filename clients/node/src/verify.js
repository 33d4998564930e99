// Verify a cardcore game log in Node, without Python and without trusting the server.
//
// Re-implemented from the specs alone: docs/log-format.md (canonical JSON, the header hash, the
// HMAC-keyed hash chain, the seed commitment, the end line, viewers' copies and receipts) and
// docs/rng.md (SplitMix64 streams, unbiased `below`, Fisher–Yates, and log format 2's deal seed
// derived from the server seed and the seats' entropy), then the first shuffle of the game is
// re-dealt from the deal seed and compared with the logged deal (entry 0's events). A signing
// server's Ed25519 signatures (header and end line) are checked with node:crypto against the key
// given. All 64-bit arithmetic is BigInt; integers in logs beyond 2^53 (seeds) are parsed as
// BigInt, never rounded.
//
// What Node does not do: re-decide the actions after the deal (that needs the games' rules: use
// `cardcore verify`), nor redact events per game (so `checkReceipts` compares what a viewer was
// shown, and takes a "??" it shows as standing for whatever the final log has there).

import { createHash, createHmac, createPublicKey, verify as verifySignature } from 'node:crypto';

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
const without = (obj, ...keys) => {
  const out = Object.create(null);
  for (const k of Object.keys(obj)) if (!keys.includes(k)) out[k] = obj[k];
  return out;
};
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isInt = (v) => Number.isSafeInteger(v) || typeof v === 'bigint';
const jsonEq = (a, b) => {
  try {
    return canonical(a) === canonical(b);
  } catch {
    return false;
  }
};
const isDigest = (v) => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v);

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
 *  (docs/games/common.md#dealing and each game's deal), and the deck the game shuffles. */
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

// a guard, not a rule: the games allow far fewer decks (a forged header could ask for more)
const MAX_DECKS = 16;

/** Re-deal stream 0 from the (deal) seed; returns null when it matches entry 0's deal, else a
 *  message. In log format 2 `seed` is the deal seed (`dealSeedOf`), not the revealed one. */
export function checkDeal(header, seed, dealEvents) {
  const spec = DEALS[header.game];
  if (!spec) return `no Node deal for game ${header.game}`;
  const { rules, seats } = header.setup;
  if (!isObject(rules)) return "the header's setup has no rules";
  for (const [flag, lo] of [['num_decks', 1], ['jokers', 0]]) {
    const v = rules[flag];
    if (v !== undefined && !(Number.isInteger(v) && v >= lo && v <= MAX_DECKS)) {
      return `setup.rules.${flag} is not a count this verifier deals (${show(v)})`;
    }
  }
  const deck = shuffled(seed, 0, spec.deck(rules));
  const dealt =
    Array.isArray(dealEvents) && dealEvents.find((e) => isObject(e) && e.kind === 'Dealt');
  if (!dealt) return 'entry 0 has no Dealt event';
  let got;
  try {
    got = spec.order(dealt, seats);
  } catch {
    return "entry 0's Dealt event is malformed";
  }
  // Speed leaves one card undealt when the personal packets are odd: compare what was dealt
  const want = deck.slice(0, got.length);
  if (got.length < deck.length - 1 || canonical(got) !== canonical(want)) {
    return `the deal differs from the re-dealt deck (first ${Math.min(5, got.length)}: ${got
      .slice(0, 5)
      .join(' ')} vs ${want.slice(0, 5).join(' ')})`;
  }
  return null;
}

// ------------------------------------------------------------------------------- format 2 (rng.md)

export const FORMATS = [1, 2];
export const DERIVATION = 'sha256-deal-seed/1';
const DERIVATION_TAG = 'cardcore-deal-seed/1';
const ENTROPY_HEX = /^[0-9a-f]{32}$/;

const u64 = (n) => {
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

/** The contributions a header records: null in format 1, else [{seat, entropy}] in seat order.
 *  Throws VerifyError('header') when they are malformed (as `cardcore.log.contributions`). */
export function contributionsOf(header) {
  if (header.format === 1) {
    if ('contributions' in header || 'seed_derivation' in header) {
      throw new VerifyError('header', 'a format-1 header has no contributions');
    }
    return null;
  }
  if (header.seed_derivation !== DERIVATION) {
    throw new VerifyError('header', `unknown seed_derivation ${show(header.seed_derivation)}`);
  }
  if (!Array.isArray(header.contributions)) {
    throw new VerifyError('header', 'a format-2 header lists its contributions');
  }
  let last = -1;
  return header.contributions.map((c, i) => {
    const keys = isObject(c) ? Object.keys(c).sort().join() : '';
    if (
      keys !== 'entropy,seat' ||
      !Number.isInteger(c.seat) ||
      c.seat <= last ||
      c.seat >= 2 ** 32 ||
      typeof c.entropy !== 'string' ||
      !ENTROPY_HEX.test(c.entropy)
    ) {
      throw new VerifyError(
        'header',
        `contributions[${i}] is not a seat (in increasing order) with 32 hex digits`,
      );
    }
    last = c.seat;
    return { seat: c.seat, entropy: c.entropy };
  });
}

/** The seed a game dealt with, from the seed its end line reveals: that seed in format 1, the
 *  seed derived from it and the header's contributions in format 2. */
export function dealSeedOf(header, revealed) {
  const given = contributionsOf(header);
  return given === null ? BigInt(revealed) : deriveDealSeed(revealed, given);
}

// ------------------------------------------------------------------------------- signatures

export const SIGNATURE_ALG = 'ed25519';
/** Prefixed to the hash a server signs (cardcore/signatures.py). */
export const SIGNATURE_DOMAIN = 'cardcore-log-signature/1\n';

/** The bytes a signing server signs for a line whose `hash` is `lineHash` (hex). */
export const signatureMessage = (lineHash) => Buffer.from(SIGNATURE_DOMAIN + lineHash, 'ascii');

const b64url = (bytes) => Buffer.from(bytes).toString('base64url'); // no padding
/** base64url decoded strictly: null unless `text` is the one spelling of its bytes. */
function unb64url(text) {
  if (typeof text !== 'string' || !/^[A-Za-z0-9_-]*$/.test(text)) return null;
  const bytes = Buffer.from(text, 'base64url');
  return b64url(bytes) === text ? bytes : null;
}

/** A server's public key as given on a command line: base64url (as ListGames' `server_key` and
 *  /v1/server give it) or 64 hex digits. Returns its 32 bytes; throws TypeError. */
export function parseServerKey(text) {
  const t = String(text).trim();
  const raw = /^[0-9a-fA-F]{64}$/.test(t) ? Buffer.from(t, 'hex') : unb64url(t.replace(/=+$/, ''));
  if (raw === null) throw new TypeError('not an Ed25519 public key (base64url or hex of 32 bytes)');
  if (raw.length !== 32) throw new TypeError('an Ed25519 public key is 32 bytes');
  try {
    publicKeyOf(raw);
  } catch {
    throw new TypeError('not an Ed25519 public key');
  }
  return raw;
}

const publicKeyOf = (raw) =>
  createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: b64url(raw) }, format: 'jwk' });

/** The public key (base64url) a log's header says signed it; null for an unsigned log. */
export function signerOf(lines) {
  const sig = isObject(lines[0]) ? lines[0].signature : undefined;
  return isObject(sig) ? String(sig.key) : null;
}

/**
 * Check the signatures of a log's header and (if present) end line against `key` (32 bytes, or
 * its text): each must be {"alg": "ed25519", "key": that key, "sig": its Ed25519 signature of
 * `signatureMessage(line.hash)`}. Returns how many were checked; throws VerifyError naming the
 * line. (The hashes themselves are `verifyLog`'s: this only says who vouched for them.)
 */
export function checkSignatures(lines, key) {
  const raw = key instanceof Uint8Array ? Buffer.from(key) : parseServerKey(key);
  const text = b64url(raw);
  const pub = publicKeyOf(raw);
  const last = lines[lines.length - 1];
  const signed = [['the header', 'header', lines[0]]];
  if (lines.length > 1 && isObject(last) && last.type === 'end') {
    signed.push(['the end line', 'end', last]);
  }
  for (const [where, at, line] of signed) {
    const fail = (reason) =>
      new VerifyError(at, reason, { seq: at === 'end' ? line.seq : undefined });
    const sig = isObject(line) ? line.signature : undefined;
    if (!isObject(sig) || sig.alg !== SIGNATURE_ALG) {
      throw fail(`${where} is not signed (an Ed25519 signature was expected)`);
    }
    if (Object.keys(sig).sort().join() !== 'alg,key,sig') {
      throw fail(`${where}'s signature is not {"alg", "key", "sig"}`);
    }
    if (sig.key !== text) throw fail(`${where} is signed by another key: ${show(sig.key)}`);
    const bytes = unb64url(sig.sig);
    let ok = false;
    try {
      ok =
        bytes !== null &&
        typeof line.hash === 'string' &&
        verifySignature(null, signatureMessage(line.hash), pub, bytes);
    } catch {
      ok = false;
    }
    if (!ok) throw fail(`${where}'s signature does not match it`);
  }
  return signed.length;
}

// ------------------------------------------------------------------------------- the log

/** A log line's fault. `at` is "header", an entry's seq, or "end" (the end line; its seq in
 *  `seq`). `reason` is the fault alone; the message puts where first ("seq 3: …"). `noun`
 *  "entry" names an entry as `cardcore verify --receipts` does ("entry 3: …"). */
export class VerifyError extends Error {
  constructor(at, reason, { seq, noun = 'seq' } = {}) {
    const where =
      at === 'header'
        ? 'header'
        : at === 'end'
          ? `end line${isInt(seq) ? ` (seq ${seq})` : ''}`
          : `${noun} ${at}`;
    super(`${where}: ${reason}`);
    this.name = 'VerifyError';
    this.at = at;
    this.seq = at === 'end' ? seq : typeof at === 'number' ? at : undefined;
    this.reason = reason;
    this.where = where;
  }
}

/** Not a fault of a log but of how it was asked (exit 2): e.g. a final log with no end line. */
export class UsageError extends Error {
  constructor(message) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A hidden card (or value) in a viewer's copy: `cards.HIDDEN` as JSON. */
export const HIDDEN = '??';
export const POSITION_HIDDEN = 'header not checked: the start position is hidden from this viewer';
const DEAL_ACTION = { kind: 'Deal' };
const ABORTED = { losers: [], scores: [], termination: 'aborted', winners: [] };
const MAX_ABORT_BY = 32;
const show = (v) => {
  try {
    return v === undefined ? 'nothing' : canonical(v).slice(0, 60);
  } catch {
    return typeof v;
  }
};
const count = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Whether a JSON value holds a hidden value "??" anywhere. */
export function showsHidden(value) {
  const stack = [value];
  while (stack.length) {
    const v = stack.pop();
    if (v === HIDDEN) return true;
    if (Array.isArray(v)) stack.push(...v);
    else if (isObject(v)) stack.push(...Object.values(v));
  }
  return false;
}

/** `"seat 0's"`, `"the spectator's"`: whose a copy is (`copy` as verifyLog reports it). */
export function whose(viewer) {
  if (viewer === null || viewer === undefined || viewer === 'referee') return "the referee's";
  if (viewer === '') return "a redacted (unmarked)";
  if (viewer === 'spectator') return "the spectator's";
  return `seat ${viewer}'s`;
}

/** The viewer a copy or a receipts file names ("0", …, "spectator"; "referee" when allowed),
 *  if it is one of this game's; else null. */
function viewerOf(text, seats, { referee = false } = {}) {
  if (text === 'spectator' || (referee && text === 'referee')) return text;
  const seat = typeof text === 'string' && /^(0|[1-9][0-9]{0,2})$/.test(text);
  return seat && Number(text) < seats ? text : null;
}

/** The header's hash: sha256 of the canonical header without `hash`, `copy` (a viewer's copy's
 *  mark) and `signature` (which signs this hash). */
export const headerHash = (header) =>
  sha256(canonical(without(header, 'hash', 'copy', 'signature')));
/** The end line's hash: sha256 of the canonical end line without `hash` and `signature`. */
export const endHash = (end) => sha256(canonical(without(end, 'hash', 'signature')));
/** An entry's hash: HMAC-SHA256 keyed with the salt (16 bytes) of the entry without `hash`. */
export const entryHash = (salt, line) =>
  createHmac('sha256', salt).update(canonical(without(line, 'hash'))).digest('hex');

/** Parse JSON Lines into log lines (objects); throws VerifyError naming the unreadable line.
 *  `data`: text, a Buffer, or lines already parsed (an array of objects). */
export function readLog(data) {
  const at = (k) => (k === 0 ? 'header' : k - 1);
  if (Array.isArray(data)) {
    data.forEach((line, k) => {
      if (!isObject(line)) throw new VerifyError(at(k), 'the line is not a JSON object');
    });
    return data;
  }
  const text = Buffer.isBuffer(data) ? data.toString('utf8') : String(data);
  const rows = text.split('\n').filter((l) => l.trim() !== '');
  return rows.map((row, k) => {
    let line;
    try {
      line = parseJson(row);
    } catch (e) {
      throw new VerifyError(at(k), `unreadable line: ${e.message}`);
    }
    if (!isObject(line)) throw new VerifyError(at(k), 'the line is not a JSON object');
    return line;
  });
}

/**
 * Verify a log (JSON Lines text, a Buffer, or parsed lines). Returns a summary; throws
 * VerifyError naming the first bad line, for any input (a malformed line is a fault of the log,
 * never a crash).
 *
 * - A complete log (with its end line): the header hash, the commitment to the revealed (server)
 *   seed, every entry's seq, link, HMAC and time, the seats (null only for the deal and the
 *   host's abort), the end line, and the first shuffle re-dealt from the deal seed (format 2:
 *   derived from the server seed and the header's contributions).
 * - A viewer's copy (a header with `copy`, or a log in progress with a "??" in an event): what a
 *   copy can prove without the hidden cards and the salt (`copy` in the summary: "0", …,
 *   "spectator", or "" for an unmarked one). A copy with an end line is a fault.
 * - The referee's log in progress: as a copy, without the hidden-card caveats.
 *
 * `serverKey` (32 bytes, base64url or hex): the header's and end line's signatures must be by it.
 */
export function verifyLog(data, { serverKey } = {}) {
  const lines = readLog(data);
  const where = { at: 'header', seq: undefined };
  let report;
  try {
    report = verifyLines(lines, where);
  } catch (e) {
    if (e instanceof VerifyError) throw e;
    const reason = `malformed: this line cannot be checked (${e.name})`;
    throw new VerifyError(where.at, reason, { seq: where.seq });
  }
  report.signedBy = signerOf(lines);
  report.signaturesChecked = 0;
  if (serverKey !== undefined && serverKey !== null) {
    report.signaturesChecked = checkSignatures(lines, serverKey);
  }
  return report;
}

function verifyLines(lines, where) {
  if (lines.length === 0) throw new VerifyError('header', 'empty log');
  const header = lines[0];
  const fault = (reason) => new VerifyError('header', reason);
  if (!isObject(header) || header.type !== 'header') throw fault('the first line is not a header');
  if (!FORMATS.includes(header.format)) throw fault(`unsupported log format ${show(header.format)}`);
  if (header.rng !== RNG_ALGORITHM) throw fault(`unknown rng ${show(header.rng)}`);
  const contributions = contributionsOf(header);
  const setup = header.setup;
  if (!isObject(setup) || !Number.isInteger(setup.seats) || setup.seats < 1) {
    throw new VerifyError('header', 'the header has no setup with a number of seats');
  }
  if (sha256(canonical(setup)) !== header.setup_hash) {
    throw new VerifyError('header', 'setup_hash does not match the setup');
  }
  const last = lines[lines.length - 1];
  const end = lines.length > 1 && isObject(last) && last.type === 'end' ? last : null;
  const base = {
    game: header.game,
    rulesVersion: header.rules_version,
    format: header.format,
    gameId: header.game_id,
    contributions,
  };
  if ('copy' in header) {
    if (end) throw fault('a viewer\'s copy (a header with "copy") has no end line');
    return verifyCopy(lines, header, base, where, true);
  }
  if (!end && lines.slice(1).some((l) => isObject(l) && showsHidden(l.events))) {
    return verifyCopy(lines, header, base, where, false);
  }
  if (header.hash !== headerHash(header)) throw fault('header hash mismatch: the header was altered');
  const entries = lines.slice(1, end ? -1 : undefined);
  let salt = null;
  let seed = null;
  let dealSeed = null;
  if (end) {
    Object.assign(where, { at: 'end', seq: end.seq });
    const fail = (reason) => new VerifyError('end', reason, { seq: end.seq });
    if (typeof end.salt !== 'string' || !/^[0-9a-f]{32}$/.test(end.salt) || !isInt(end.seed)) {
      throw fail('the end line lacks a valid seed and salt');
    }
    salt = Buffer.from(end.salt, 'hex');
    seed = BigInt(end.seed);
    if (seed < 0n || seed > MASK64) throw fail('the end line lacks a valid seed and salt');
    if (sha256(Buffer.concat([u64(seed), salt])) !== header.commitment) {
      throw fail("the revealed seed and salt do not match the header's commitment");
    }
    dealSeed = contributions === null ? seed : deriveDealSeed(seed, contributions);
  }
  const walked = walkEntries(entries, header, where, { salt });
  let dealChecked = false;
  const notes = [];
  if (end) {
    Object.assign(where, { at: 'end', seq: end.seq });
    const fail = (reason) => new VerifyError('end', reason, { seq: end.seq });
    if (end.seq !== entries.length) {
      const reason = `the end line has seq ${show(end.seq)}, expected ${entries.length}`;
      throw new VerifyError('end', reason, { seq: entries.length });
    }
    if (end.prev !== walked.prev) throw fail('hash chain broken: prev does not match the previous line');
    if (end.hash !== endHash(end)) throw fail('hash mismatch: the end line was altered');
    const outcome = end.outcome;
    if (
      !isObject(outcome) ||
      typeof outcome.termination !== 'string' ||
      !['winners', 'losers', 'scores'].every((k) => Array.isArray(outcome[k]))
    ) {
      throw fail('the end line has no outcome {termination, winners, losers, scores}');
    }
    if (walked.aborted !== null && !jsonEq(outcome, ABORTED)) {
      throw fail(
        `the host aborted at seq ${walked.aborted}, but the outcome is not "aborted" with no winners`,
      );
    }
    if (walked.aborted === null && outcome.termination === 'aborted') {
      throw fail('the outcome is "aborted", but the log has no host abort');
    }
    Object.assign(where, { at: 0, seq: undefined });
    if ('position' in header) {
      notes.push('no deal to re-deal: the game starts from a position');
    } else {
      const problem = checkDeal(header, dealSeed, entries[0].events);
      if (problem) throw new VerifyError(0, problem);
      dealChecked = true;
    }
  }
  const n = entries.length;
  return {
    ...base,
    entries: n,
    complete: end !== null,
    outcome: end ? end.outcome : null,
    seed,
    dealSeed,
    dealChecked,
    copy: null,
    notChecked: end
      ? []
      : [
          ...('position' in header ? [] : ['the deal (seed secret)']),
          `${count(n, 'entry hash', 'entry hashes')} (salt secret)`,
        ],
    notes,
  };
}

/** `verifyLog` of a viewer's copy: everything it can prove without the hidden cards and the
 *  salt. `marked`: its header says whose it is (else: a redacted log of old). */
function verifyCopy(lines, header, base, where, marked) {
  const notes = [];
  const fault = (reason) => new VerifyError('header', reason);
  if (header.hash !== headerHash(header)) {
    if (!('position' in header)) throw fault('header hash mismatch: the header was altered');
    notes.push(POSITION_HIDDEN);
  }
  if (!isDigest(header.hash)) throw fault("the header's hash is not a sha256 digest");
  let copy = '';
  if (marked) {
    const mark = header.copy;
    const text = isObject(mark) && Object.keys(mark).join() === 'viewer' ? mark.viewer : null;
    copy = viewerOf(text, header.setup.seats);
    if (copy === null) {
      throw fault(
        `the header's "copy" must be {"viewer": V}, V a seat of this game or "spectator" ` +
          `(found ${show(mark)})`,
      );
    }
  }
  const entries = lines.slice(1);
  walkEntries(entries, header, where, { copy: true });
  const n = entries.length;
  return {
    ...base,
    entries: n,
    complete: false,
    outcome: null,
    seed: null,
    dealSeed: null,
    dealChecked: false,
    copy,
    notChecked: [
      `${count(n, 'decision')} (hidden cards)`,
      `${count(n, 'entry hash', 'entry hashes')} (salt secret)`,
      "the actions and events against the game's schemas (not in Node)",
    ],
    notes,
  };
}

/** The entries of a log or a copy, in order: seq, link, time, seats, the host's abort, and (with
 *  `salt`) each HMAC. Returns { prev: the last hash, aborted: the abort's seq or null }. */
function walkEntries(entries, header, where, { salt = null, copy = false } = {}) {
  const seats = header.setup.seats;
  let prev = header.hash;
  let lastAt = 0;
  let aborted = null;
  entries.forEach((line, k) => {
    Object.assign(where, { at: k, seq: undefined });
    const fail = (reason) => new VerifyError(k, reason);
    if (!isObject(line) || line.type !== 'entry') {
      throw fail(`expected an entry, found a ${show(line?.type)} line`);
    }
    if (line.seq !== k) {
      throw fail(`entry missing or out of order (found seq ${show(line.seq)} in its place)`);
    }
    if (aborted !== null) throw fail(`an entry after the host's abort at seq ${aborted}`);
    if (line.prev !== prev) throw fail('hash chain broken: prev does not match the previous line');
    if (salt && line.hash !== entryHash(salt, line)) throw fail('hash mismatch: the entry was altered');
    if (!isDigest(line.hash)) throw fail("the entry's hash is not a sha256 digest");
    prev = line.hash;
    if (!isInt(line.at_ms) || line.at_ms < lastAt) {
      throw fail(`at_ms ${show(line.at_ms)} is not a time at or after ${lastAt}`);
    }
    lastAt = line.at_ms;
    const events = line.events;
    if (!Array.isArray(events)) throw fail('entry has no list of events');
    if (k === 0) {
      if (line.seat !== null || !jsonEq(line.action, DEAL_ACTION)) throw fail('entry 0 must be the deal');
      if ('position' in header && events.length) {
        throw fail('a game started from a position deals no cards');
      }
    } else if (line.seat === null) {
      const by = abortBy(line);
      if (by === null || events.length) {
        throw fail("an entry without a seat must be the host's abort");
      }
      aborted = k;
    } else {
      if (!Number.isInteger(line.seat) || line.seat < 0 || line.seat >= seats) {
        throw fail(`seat ${show(line.seat)} is not a seat of this game`);
      }
      if (!isObject(line.action) || typeof line.action.kind !== 'string') {
        throw fail('the action is not a command {"kind": …}');
      }
    }
    events.forEach((e, i) => {
      if (!isObject(e) || typeof e.kind !== 'string') {
        throw fail(`events[${i}] is not an event {"kind": …}`);
      }
      if (!copy && showsHidden(e)) {
        throw fail(`events[${i}] shows a hidden card "??": this is a viewer's copy`);
      }
    });
  });
  if (entries.length === 0) throw new VerifyError(0, 'the log has no deal entry');
  return { prev, aborted };
}

/** Who aborted, when `line` is a host's abort (no seat; action {"kind": "Abort", "by": …},
 *  `by` 1 to 32 printable characters); else null. */
function abortBy(line) {
  const a = line.action;
  if (!isObject(a) || a.kind !== 'Abort' || Object.keys(a).sort().join() !== 'by,kind') return null;
  const by = a.by;
  if (typeof by !== 'string') return null;
  const n = [...by].length;
  return n > 0 && n <= MAX_ABORT_BY && /^(?:[^\p{C}\p{Z}]| )+$/u.test(by) ? by : null;
}

// ------------------------------------------------------------------------- copies and receipts

export const RECEIPTS_TYPE = 'receipts';
const ENTRY_FIELDS = ['seq', 'at_ms', 'seat', 'action', 'events', 'prev', 'hash'];

/** Whether `mine` (events as a viewer was shown them) is `final` with some values hidden: equal
 *  as JSON except where `mine` has "??" (which stands for whatever `final` has there). Counts
 *  the hidden values in `filled.n`. */
function shownAs(mine, final, filled) {
  if (mine === HIDDEN && final !== HIDDEN) {
    filled.n++;
    return true;
  }
  if (Array.isArray(mine)) {
    return (
      Array.isArray(final) &&
      mine.length === final.length &&
      mine.every((m, i) => shownAs(m, final[i], filled))
    );
  }
  if (isObject(mine)) {
    if (!isObject(final)) return false;
    const keys = Object.keys(mine).sort();
    return (
      jsonEq(keys, Object.keys(final).sort()) && keys.every((k) => shownAs(mine[k], final[k], filled))
    );
  }
  return jsonEq(mine, final);
}

/**
 * Hold what a viewer was shown against the final log (`cardcore verify --receipts MINE FINAL`).
 *
 * `mine`: a viewer's copy (downloaded before the end: a header with `copy`), a receipts file (a
 * first line {"type": "receipts", "game_id", "viewer"}, then the entries as the service sent them
 * — seq, at_ms, seat, action, events, prev, hash — in any order, repeats allowed), or a log.
 * `final`: the complete log; it must verify (`verifyLog`, with `serverKey` if given).
 *
 * Checked: mine is one chain by itself; mine's header, `copy` aside, is the final header (a
 * receipts file: its game_id); every entry of mine is in the final log at its seq with the same
 * hash, prev, at_ms, seat and action, and the same events — except where mine shows "??": Node
 * has no per-game redaction, so a hidden value is taken to stand for whatever the final log has
 * there (not checked to be a card hidden from this viewer; `hidden` counts them).
 *
 * Throws VerifyError naming the entry ("entry 7: …", `noun` "entry"), or UsageError (exit 2):
 * the final log has no end line, or an unmarked copy's viewer is not given (`viewer`).
 */
export function checkReceipts(mineData, finalData, { serverKey, viewer } = {}) {
  const opts = { noun: 'entry' };
  const final = readFinal(finalData);
  const fheader = final[0];
  if (!isObject(fheader) || fheader.type !== 'header' || !Number.isInteger(fheader.setup?.seats)) {
    throw new VerifyError('header', 'the final log is invalid: it has no header with seats', opts);
  }
  const own = mineOf(mineData, fheader.setup.seats, viewer);
  if (own.gameId !== undefined && own.gameId !== null && !jsonEq(own.gameId, fheader.game_id)) {
    throw new VerifyError(
      'header',
      `your receipts are of game ${show(own.gameId)}, the final log of ${show(fheader.game_id)}`,
      opts,
    );
  }
  if (own.header) {
    const mineH = without(own.header, 'copy');
    const finalH = without(fheader, 'copy');
    const keys = [...new Set([...Object.keys(mineH), ...Object.keys(finalH)])]
      .filter((k) => !(k in mineH) || !(k in finalH) || !jsonEq(mineH[k], finalH[k]))
      .sort();
    const positionOnly = keys.length === 1 && keys[0] === 'position' && own.source === 'copy';
    if (positionOnly) {
      own.notes.push('the start position is not compared (hidden from this viewer; Node does not redact)');
    } else if (keys.length) {
      const reason = `your header differs from the final log's (${keys.join(', ')})`;
      throw new VerifyError('header', reason, opts);
    }
  }
  if (own.end && !jsonEq(own.end, final[final.length - 1])) {
    const reason = "the final log's end line differs from the one the stream sent you";
    throw new VerifyError('end', reason, { ...opts, seq: final.length - 2 });
  }
  const fbody = final.slice(1, -1);
  const filled = { n: 0 };
  for (const entry of own.entries) {
    const seq = entry.seq;
    const fail = (reason) => new VerifyError(seq, reason, opts);
    if (seq >= fbody.length) {
      throw fail(`the final log has no such entry (its last is seq ${fbody.length - 1})`);
    }
    const f = fbody[seq];
    if (!isObject(f) || f.type !== 'entry' || !jsonEq(f.seq, seq)) {
      const found = show(isObject(f) ? f.seq : undefined);
      throw fail(`the final log has seq ${found} in this entry's place`);
    }
    for (const [key, what] of [['seat', 'seat'], ['action', 'action'], ['at_ms', 'time (at_ms)']]) {
      if (!jsonEq(f[key], entry[key])) {
        throw fail(`the final log's ${what} differs from the one you were shown`);
      }
    }
    if (!Array.isArray(f.events) || !shownAs(entry.events, f.events, filled)) {
      throw fail('you were shown different events');
    }
    for (const key of ['hash', 'prev']) {
      if (!jsonEq(f[key], entry[key])) {
        throw fail(`the final log's ${key} differs from the one you were shown`);
      }
    }
  }
  let report;
  try {
    report = verifyLog(final, { serverKey });
  } catch (e) {
    if (!(e instanceof VerifyError)) throw e;
    throw new VerifyError(e.at, `the final log is invalid: ${e.reason}`, { ...opts, seq: e.seq });
  }
  const seqs = own.entries.map((e) => e.seq);
  return {
    game: report.game,
    viewer: own.viewer,
    source: own.source,
    entries: seqs.length,
    firstSeq: seqs.length ? seqs[0] : null,
    lastSeq: seqs.length ? seqs[seqs.length - 1] : null,
    hidden: filled.n,
    notes: own.notes,
    final: report,
  };
}

function readFinal(data) {
  let final;
  try {
    final = readLog(data);
  } catch (e) {
    if (!(e instanceof VerifyError)) throw e;
    const reason = `the final log is unreadable: ${e.reason}`;
    throw new VerifyError(e.at, reason, { noun: 'entry', seq: e.seq });
  }
  const last = final[final.length - 1];
  if (final.length < 2 || !isObject(last) || last.type !== 'end') {
    throw new UsageError(
      'the final log has no end line: the game is not over (or this is not its full log), so ' +
        'nothing can be held against it yet',
    );
  }
  return final;
}

/** `mine` of checkReceipts: what it is, whose, and its entries in seq order, checked to be one
 *  chain by themselves. */
function mineOf(data, seats, asked) {
  const opts = { noun: 'entry' };
  let mine;
  try {
    mine = readLog(data);
  } catch (e) {
    if (!(e instanceof VerifyError)) throw e;
    throw new VerifyError(e.at, `your copy is unreadable: ${e.reason}`, opts);
  }
  if (mine.length === 0) throw new VerifyError('header', 'your copy is empty', opts);
  const first = mine[0];
  const notes = [];
  const check = (named, kind) => {
    if (asked !== undefined && asked !== null && String(asked) !== named) {
      const [these, they] = kind === 'receipts' ? ['these are', 'they'] : ['this is', 'it'];
      const other = whose(String(asked));
      throw new UsageError(`${these} ${whose(named)} ${kind}; ${they} cannot be ${other}`);
    }
  };
  if (first.type === RECEIPTS_TYPE) {
    const named = viewerOf(first.viewer, seats, { referee: true });
    if (named === null) {
      const reason = `your receipts name no viewer of this game (${show(first.viewer)})`;
      throw new VerifyError('header', reason, opts);
    }
    check(named, 'receipts');
    // A client keeps the game's header and the end line with its receipts: the header is held
    // against the final one like a copy's; the end line is the final log's own.
    const kept = mine.slice(1).filter((l) => isObject(l) && l.type === 'header');
    const ends = mine.slice(1).filter((l) => isObject(l) && l.type === 'end');
    const body = mine.slice(1).filter((l) => !(isObject(l) && (l.type === 'header' || l.type === 'end')));
    const entries = receiptsOf(body, 2);
    checkChain(entries, 'your receipts are');
    const gameId = first.game_id;
    const header = kept.length === 1 ? kept[0] : null;
    const end = ends.length === 1 ? ends[0] : null;
    return { source: 'receipts', viewer: named, header, gameId, entries, notes, end };
  }
  if (first.type !== 'header') {
    const reason = 'your copy starts with neither a header nor a receipts line';
    throw new VerifyError('header', reason, opts);
  }
  let source = 'log';
  let named = 'referee';
  const redacted = mine.at(-1).type !== 'end' && mine.slice(1).some((l) => showsHidden(l.events));
  if ('copy' in first || redacted) {
    let report;
    try {
      report = verifyLog(mine);
    } catch (e) {
      if (!(e instanceof VerifyError)) throw e;
      const reason = `your copy is not consistent: ${e.reason}`;
      throw new VerifyError(e.at, reason, { ...opts, seq: e.seq });
    }
    source = 'copy';
    if (report.copy) {
      named = report.copy;
      check(named, 'copy');
    } else if (asked === undefined || asked === null) {
      throw new UsageError('this copy does not say whose it is: name its viewer (--as)');
    } else {
      named = viewerOf(String(asked), seats);
      if (named === null) throw new UsageError(`--as ${asked}: not a viewer of this game`);
    }
    notes.push(...report.notes);
  } else if (asked !== undefined && asked !== null) {
    named = viewerOf(String(asked), seats, { referee: true }) ?? named;
  }
  const body = mine.slice(1).filter((l) => l.type !== 'end');
  for (const line of body) {
    if (line.type !== 'entry') {
      const reason = `your copy has a ${show(line.type)} line among its entries`;
      throw new VerifyError('header', reason, opts);
    }
  }
  const entries = receiptsOf(body, 2);
  entries.forEach((e, i) => {
    if (e.seq !== i) {
      throw new VerifyError(i, 'your copy is not consistent: entry missing or out of order', opts);
    }
  });
  if (entries.length && !jsonEq(entries[0].prev, first.hash)) {
    throw new VerifyError(0, "your copy is not consistent: prev is not the header's hash", opts);
  }
  checkChain(entries, 'your copy is');
  return { source, viewer: named, header: first, gameId: first.game_id, entries, notes };
}

/** Entries in seq order, a repeat of an entry (the same JSON, `type` aside) kept once. */
function receiptsOf(lines, firstLine) {
  const opts = { noun: 'entry' };
  const bySeq = new Map();
  lines.forEach((line, k) => {
    const n = k + firstLine;
    if (!isObject(line) || !(line.type === undefined || line.type === 'entry')) {
      throw new VerifyError('header', `line ${n} of your receipts is not an entry`, opts);
    }
    const seq = line.seq;
    if (!Number.isSafeInteger(seq) || seq < 0) {
      throw new VerifyError('header', `line ${n} of your receipts has no seq`, opts);
    }
    const missing = ENTRY_FIELDS.filter((f) => !(f in line));
    if (missing.length) {
      throw new VerifyError(seq, `your receipt of this entry has no ${missing.join(', ')}`, opts);
    }
    const seen = bySeq.get(seq);
    if (seen === undefined) bySeq.set(seq, line);
    else if (!jsonEq(without(line, 'type'), without(seen, 'type'))) {
      throw new VerifyError(seq, 'you were shown two different versions of this entry', opts);
    }
  });
  return [...bySeq.keys()].sort((a, b) => a - b).map((s) => bySeq.get(s));
}

/** Where `entries` (in seq order) has two consecutive entries, the second's prev must be the
 *  first's hash. */
function checkChain(entries, what) {
  for (let i = 1; i < entries.length; i++) {
    const [a, b] = [entries[i - 1], entries[i]];
    if (b.seq === a.seq + 1 && !jsonEq(b.prev, a.hash)) {
      const reason = `${what} not one chain: prev is not entry ${a.seq}'s hash`;
      throw new VerifyError(b.seq, reason, { noun: 'entry' });
    }
  }
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

/** Check the deal-seed derivation vectors of docs/rng.md (its "derivation" ```json block): the
 *  hashed bytes, the digest, the deal seed and the deck it deals (stream 0). Returns how many. */
export function checkDerivationVectors(block) {
  if (block.derivation !== DERIVATION) {
    throw new Error(`derivation: got ${block.derivation}, want ${DERIVATION}`);
  }
  let n = 0;
  const eq = (got, want, what) => {
    if (got !== want) throw new Error(`${what}: got ${got}, want ${want}`);
    n++;
  };
  for (const v of block.vectors) {
    const what = `deal seed of ${v.server_seed} with ${v.contributions.length} contributions`;
    const input = dealSeedInput(BigInt(v.server_seed), v.contributions);
    eq(input.toString('hex'), v.hashed_hex, `${what}: hashed bytes`);
    const digest = createHash('sha256').update(input).digest();
    eq(digest.toString('hex'), v.sha256, `${what}: sha256`);
    const seed = digest.readBigUInt64BE(0);
    eq(seed.toString(), v.deal_seed, what);
    eq(shuffled(seed, 0, standardDeck()).join(' '), v.deck, `${what}: deck`);
  }
  return n;
}

/** The ```json block of docs/rng.md that has the deal-seed derivation vectors. */
export function derivationVectorsFromMarkdown(markdown) {
  for (const m of markdown.matchAll(/```json\n([\s\S]*?)\n```/g)) {
    const block = JSON.parse(m[1]);
    if (block.derivation !== undefined) return block;
  }
  throw new Error('no ```json block with "derivation"');
}
