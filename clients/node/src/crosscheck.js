// Node's own check of a complete log, beside cardcore's verdict (verify.js): the header's hash,
// the seed commitment, the seats' contributions (each committed seat's revealed entropy against
// the commitment it made before the start), every entry's seq, link and keyed hash, in format 3
// every entry's credit (its race record), the end line's hash, and the first deal re-dealt from
// the revealed seed.
// Written from docs/log-format.md, docs/games/common.md#race-policy and docs/rng.md, not from
// cardcore's Python.
//
// Why keep it, now that the verdict is cardcore's own engine run under Pyodide: that engine is
// the code a doubter doubts. These are the checks that make a log tamper-evident (once the
// header is out, nobody can change the deck, an entry or the seed unseen), and a second
// implementation from the documents alone catches a fault of cardcore's code there (a check
// skipped, a hash over the wrong bytes) that running the same code elsewhere never can. It only
// ever adds doubt: what cardcore calls INVALID stays INVALID, and where it cannot tell (a copy, a
// receipts file, a log in progress, a format, rng or game it does not know) it says nothing.

import { createHash, createHmac } from 'node:crypto';

import { canonical, parseJson } from './json.js';
import {
  DERIVATION,
  ENTROPY_BYTES,
  MASK64,
  RNG_ALGORITHM,
  deriveDealSeed,
  entropyCommitment,
  shuffled,
  standardDeck,
  u64,
} from './rng.js';

const FORMATS = [1, 2, 3];
const RACED = 3; // the format of a game under race_policy "compensated" (log-format.md)
const HIDDEN = '??';
const MAX_DECKS = 16; // a guard, not a rule: a forged header could ask for a billion decks
const COMPENSATED = 'compensated';
const [DEFAULT_CAP_MS, MAX_CAP_MS] = [80, 250]; // race_cap_ms (games/common.md#race-policy)
const RACE_FIELDS = 'clamped,delay_ms,received_ms';
const ONLY_RACED = 'every action of a seat under race_policy "compensated"';

const sha256 = (data) => createHash('sha256').update(data).digest('hex');
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const without = (obj, ...keys) =>
  Object.fromEntries(Object.entries(obj).filter(([k]) => !keys.includes(k)));

/** The header's hash: sha256 of the canonical header without `hash`, `copy`, `signature`. */
export const headerHash = (header) =>
  sha256(canonical(without(header, 'hash', 'copy', 'signature')));
/** The end line's hash: sha256 of the canonical end line without `hash` and `signature`. */
export const endHash = (end) => sha256(canonical(without(end, 'hash', 'signature')));
/** An entry's hash: HMAC-SHA256, keyed with the salt (16 bytes), of the entry without `hash`. */
export const entryHash = (salt, entry) =>
  createHmac('sha256', salt).update(canonical(without(entry, 'hash'))).digest('hex');

/**
 * Node's check of `data` (a log's bytes or text). null: nothing to say (not a complete log of a
 * format and rng it knows, or a viewer's copy). Else { checked: what it checked, fault: null or
 * where and what is wrong ("seq 4: …") }.
 */
export function crossCheck(data) {
  const lines = completeLog(data);
  if (lines === null) return null;
  const [header, end] = [lines[0], lines.at(-1)];
  const entries = lines.slice(1, -1);
  const deal = dealCheck(header, entries[0], end);
  const fault =
    revealFault(header, end) ??
    contributionsFault(header) ??
    policyFault(header) ??
    chainFault(header, entries, end) ??
    deal.fault;
  const credits = header.format === RACED ? `${entries.filter(raced).length} credits, ` : '';
  const checked =
    "the header's hash, the seed commitment, " +
    commitmentsChecked(header) +
    `${entries.length} entries' seq, link and keyed hash, ${credits}the end line's hash, ` +
    deal.checked;
  return { checked, fault };
}

/** The lines of a complete log Node can check, or null. */
function completeLog(data) {
  let lines;
  try {
    const text = typeof data === 'string' ? data : Buffer.from(data).toString('utf8');
    lines = text.split('\n').filter((l) => l.trim() !== '').map(parseJson);
  } catch {
    return null; // unreadable: cardcore's verdict says so
  }
  const [header, end] = [lines[0], lines.at(-1)];
  const known =
    lines.length >= 3 &&
    lines.every(isObject) &&
    header.type === 'header' &&
    !('copy' in header) &&
    FORMATS.includes(header.format) &&
    header.rng === RNG_ALGORITHM &&
    end.type === 'end';
  return known && !lines.slice(1, -1).some((l) => shows(l.events, HIDDEN)) ? lines : null;
}

function shows(value, hidden) {
  if (value === hidden) return true;
  if (Array.isArray(value)) return value.some((v) => shows(v, hidden));
  return isObject(value) && Object.values(value).some((v) => shows(v, hidden));
}

function revealFault(header, end) {
  if (header.hash !== headerHash(header)) return "header: its hash is not its content's";
  const isInt = typeof end.seed === 'bigint' || Number.isSafeInteger(end.seed);
  const seed = isInt ? BigInt(end.seed) : -1n;
  const salt = typeof end.salt === 'string' && /^[0-9a-f]{32}$/.test(end.salt);
  if (seed < 0n || seed > MASK64 || !salt) {
    return 'end line: no seed and salt revealed';
  }
  if (sha256(Buffer.concat([u64(seed), Buffer.from(end.salt, 'hex')])) !== header.commitment) {
    return "end line: the revealed seed and salt are not the header's commitment";
  }
  return null;
}

// ------------------------------------------------------------------------- contributions

const ENTROPY_HEX = new RegExp(`^[0-9a-f]{${2 * ENTROPY_BYTES}}$`);
const CONTRIBUTION_KEYS = new Set(['seat', 'entropy', 'commitment']);

/** Whether the header's deal seed is derived from contributions, by a derivation Node knows
 *  (else Node has nothing to say of them). */
const derivedHere = (header) => contributed(header) && header.seed_derivation === DERIVATION;

/**
 * Why the header's contributions are not what rng.md and log-format.md say, or null: a list,
 * each entry a seat (in increasing order) with its 16 bytes of entropy (32 lowercase hex
 * digits) and, for a seat that committed to its entropy before the start, the `commitment`
 * it made, which that entropy must hash to (rng.md, "Committed entropy"); no other key.
 */
function contributionsFault(header) {
  if (!derivedHere(header)) return null;
  const raw = header.contributions;
  if (!Array.isArray(raw)) return 'header: a format-2 header lists its contributions';
  let last = -1;
  for (const [i, c] of raw.entries()) {
    const keys = isObject(c) ? Object.keys(c) : [];
    const seat = c?.seat;
    if (
      !isObject(c) ||
      !('seat' in c && 'entropy' in c) ||
      !keys.every((k) => CONTRIBUTION_KEYS.has(k)) ||
      !Number.isSafeInteger(seat) ||
      seat < 0 ||
      seat >= 2 ** 32 ||
      seat <= last ||
      typeof c.entropy !== 'string' ||
      !ENTROPY_HEX.test(c.entropy)
    ) {
      return `header: contributions[${i}] is not a seat (in increasing order) with 32 hex digits`;
    }
    last = seat;
    if ('commitment' in c && c.commitment !== entropyCommitment(c.entropy).toString('hex')) {
      return (
        `header: contributions[${i}]: seat ${seat}'s revealed entropy does not match the ` +
        'commitment it made before the start'
      );
    }
  }
  return null;
}

/** What the check says of committed seats: '' when the header records none. */
function commitmentsChecked(header) {
  const raw = derivedHere(header) ? header.contributions : null;
  const seats = Array.isArray(raw) ? raw.filter((c) => isObject(c) && 'commitment' in c) : [];
  if (!seats.length) return '';
  const which = seats.map((c) => canonical(c.seat ?? null)).join(', ');
  const whose = seats.length === 1 ? `seat ${which}'s` : `seats ${which}'`;
  return `${whose} entropy against the commitment made before the start, `;
}

function chainFault(header, entries, end) {
  const salt = Buffer.from(end.salt, 'hex');
  const credit = creditWalk(header);
  let prev = header.hash;
  for (const [k, entry] of entries.entries()) {
    if (entry.type !== 'entry' || entry.seq !== k) return `seq ${k}: not entry ${k}`;
    if (entry.prev !== prev) return `seq ${k}: prev is not the previous line's hash`;
    if (entry.hash !== entryHash(salt, entry)) {
      return `seq ${k}: its keyed hash is not its content's`;
    }
    // after the hash: a record re-hashed with the salt is what only the credit rule can catch
    const why = credit(entry);
    if (why !== null) return `seq ${k}: ${why}`;
    prev = entry.hash;
  }
  const at = `end line (seq ${entries.length})`;
  if (end.seq !== entries.length) return `${at}: its seq is ${canonical(end.seq ?? null)}`;
  if (end.prev !== prev) return `${at}: prev is not the last entry's hash`;
  if (end.hash !== endHash(end)) return `${at}: its hash is not its content's`;
  return null;
}

// ------------------------------------------------------------------------- races (format 3)

/** The cap of the header's race policy (ms), or null under arrival (rules without the flag). */
function capOf(header) {
  const rules = header.setup?.rules;
  return rules?.race_policy === COMPENSATED ? (rules.race_cap_ms ?? DEFAULT_CAP_MS) : null;
}

/** A log is of format 3 exactly when its rules compensate races: a format-3 header under
 *  arrival would let its entries carry credits nobody asked for, and a compensated game logged
 *  in another format would carry credits no verifier that knows the format checks. */
function policyFault(header) {
  const cap = capOf(header);
  if ((header.format === RACED) !== (cap !== null)) {
    const policy = canonical(header.setup?.rules?.race_policy ?? 'arrival');
    return (
      `header: a log of format ${header.format} under race_policy ${policy} ` +
      '(format 3 is exactly the logs of race_policy "compensated")'
    );
  }
  if (cap !== null && !(Number.isSafeInteger(cap) && cap >= 0 && cap <= MAX_CAP_MS)) {
    const what = `race_cap_ms ${canonical(cap)}`;
    return `header: ${what} is not a whole number of ms from 0 to ${MAX_CAP_MS}`;
  }
  return null;
}

/** Whether an entry is an action of a seat: the deal (seq 0) and a host's abort (seat null)
 *  are not, and never carry a race record. */
const raced = (entry) => entry.seq !== 0 && entry.seat !== null && entry.seat !== undefined;
/** A whole, non-negative number of ms (a BigInt beyond 2^53: json.js never rounds). */
const isMs = (v) =>
  (typeof v === 'bigint' && v >= 0n) || (Number.isSafeInteger(v) && v >= 0);

/**
 * The credits of the log's entries, walked in order: a function of each entry (after its hash
 * is checked) giving why its time or race record breaks the rule, or null. Under arrival, no
 * entry may carry a race record. Under compensated, each action of a seat is credited at
 * received_ms - min(delay_ms, cap), or at the previous entry's at_ms (clamped) when that is
 * earlier, so credited times never go back; and two actions credited alike, neither clamped,
 * go in order of arrival (the sequencer's tie-break: games/common.md#race-policy).
 */
function creditWalk(header) {
  const cap = capOf(header);
  let last = 0n; // the previous entry's at_ms: the deal's is at or after 0
  let tie = null; // { at, received } of the last action credited without a clamp
  return (entry) => {
    const race = entry.race;
    if (cap === null || !raced(entry)) {
      if ('race' in entry) return `it has a race record, but only ${ONLY_RACED} has one`;
    } else if (!('race' in entry)) {
      return `it has no race record, but ${ONLY_RACED} has one`;
    } else {
      const why = creditFault(race, entry.at_ms, last, BigInt(cap));
      if (why !== null) return `its race record does not hold: ${why}`;
      const [at, received] = [BigInt(entry.at_ms), BigInt(race.received_ms)];
      if (!race.clamped) {
        if (tie !== null && tie.at === at && received < tie.received) {
          return (
            `credited at ${at} as the action before it, but received earlier ` +
            `(${received} < ${tie.received}): actions credited alike go in order of arrival`
          );
        }
        tie = { at, received };
      }
    }
    if (cap !== null) {
      // time never goes back: the credit of the next action is judged against this at_ms
      if (!isMs(entry.at_ms) || BigInt(entry.at_ms) < last) {
        return `at_ms ${canonical(entry.at_ms ?? null)} is not a time at or after ${last}`;
      }
      last = BigInt(entry.at_ms);
    }
    return null;
  };
}

/** Why a race record (and its entry's at_ms) is not the credit the rule gives after an entry at
 *  `last`, or null. All times are BigInt here, so a forged huge time is compared, not rounded. */
function creditFault(race, atMs, last, cap) {
  if (!isObject(race) || Object.keys(race).sort().join() !== RACE_FIELDS) {
    return 'it must hold received_ms, delay_ms and clamped';
  }
  const { received_ms: received, delay_ms: delay, clamped } = race;
  if (!isMs(received) || !isMs(delay) || typeof clamped !== 'boolean') {
    return 'received_ms and delay_ms must be whole numbers of ms, clamped a boolean';
  }
  const credited = BigInt(received) - (BigInt(delay) < cap ? BigInt(delay) : cap);
  const early = credited < last;
  if (clamped !== early) {
    return (
      `clamped is ${clamped}, but the credit ${received} - min(${delay}, ${cap}) = ${credited} ` +
      `is ${early ? 'before' : 'not before'} the previous entry's at_ms ${last}`
    );
  }
  const due = early ? last : credited;
  if (!isMs(atMs) || BigInt(atMs) !== due) {
    return `at_ms ${canonical(atMs ?? null)} is not the credited time ${due}`;
  }
  return null;
}

// ------------------------------------------------------------------------- the deal

/** The deal of entry 0 against the deck re-dealt from the deal seed: { checked, fault }. */
function dealCheck(header, deal, end) {
  const spec = DEALS[header.game];
  const rules = header.setup?.rules;
  if ('position' in header) {
    return { checked: 'no deal (the game starts from a position)', fault: null };
  }
  if (!spec) return { checked: `not the deal (Node does not deal ${header.game})`, fault: null };
  const [decks, jokers] = [rules?.num_decks ?? 1, rules?.jokers ?? 0];
  const counts = (n, lo) => Number.isInteger(n) && n >= lo && n <= MAX_DECKS;
  if (!counts(decks, 1) || !counts(jokers, 0)) {
    return { checked: 'not the deal (a deck Node does not deal)', fault: null };
  }
  const derived = contributed(header);
  if (derived && header.seed_derivation !== DERIVATION) {
    return { checked: 'not the deal (a seed derivation Node does not know)', fault: null };
  }
  const checked = 'the deal re-dealt from the revealed seed';
  let cards;
  let seed;
  try {
    seed = derived ? deriveDealSeed(end.seed, header.contributions) : BigInt(end.seed);
    cards = spec.order(deal.events.find((e) => e.kind === 'Dealt'), header.setup.seats);
  } catch {
    return { checked, fault: "seq 0: no deal Node can read (or the header's contributions)" };
  }
  return { checked, fault: dealFault(cards, shuffled(seed, 0, spec.deck(rules ?? {}))) };
}

/** Whether the deal seed is derived from the revealed seed and the seats' contributions: format
 *  2, and format 3 when its header is format 2's (it has either field); else the seed is the
 *  revealed one. */
const contributed = (header) =>
  header.format === 2 ||
  (header.format === RACED && ('contributions' in header || 'seed_derivation' in header));

/** Where the cards dealt (in the order taken from the deck) are not the deck's. */
function dealFault(cards, deck) {
  // Speed leaves one card undealt when the personal packets are odd: compare what was dealt
  if (cards.length > deck.length || cards.length < deck.length - 1) {
    return `seq 0: ${cards.length} cards dealt from a deck of ${deck.length}`;
  }
  const i = cards.findIndex((card, k) => card !== deck[k]);
  if (i < 0) return null;
  const shown = canonical(cards[i] ?? null);
  return `seq 0: card ${i + 1} dealt is ${shown}, the re-dealt deck's is ${deck[i]}`;
}

/** Per game: the deck it shuffles, and the cards of its Dealt event in the order they were
 *  taken from the shuffled deck (docs/games/common.md#dealing and each game's deal). */
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
    order: (ev, n) => [
      ...[ev.down, ev.up, ev.hands].flatMap((zone) => roundRobin(zone, n)),
      ...ev.stock,
    ],
  },
  // 26 each from P0 (p::2); each packet laid out: piles bottom→top in order, then spit cards
  spit: {
    deck: () => standardDeck(),
    order: (ev) => roundRobin([0, 1].map((p) => [...ev.layouts[p].flat(), ...ev.spit_cards[p]]), 2),
  },
  // C0 C1, R0, R1, then each player's packet (hand on top of its draw pile)
  speed: {
    deck: (rules) => standardDeck(1, rules.jokers),
    order: (ev) =>
      [ev.centre, ev.sides, ev.hands[0], ev.draws[0], ev.hands[1], ev.draws[1]].flat(2),
  },
};

function roundRobin(stacks, n) {
  const out = [];
  const longest = Math.max(...stacks.map((s) => s.length));
  for (let r = 0; r < longest; r++) {
    for (let q = 0; q < n; q++) if (r < stacks[q].length) out.push(stacks[q][r]);
  }
  return out;
}
