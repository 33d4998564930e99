// The Node verifier (cardcore's own, under Pyodide) against logs from a live `cardcore serve`:
// log format 2 (the deal seed derived from the server seed and the seats' entropy), Ed25519
// signatures and the key ListGames publishes, viewers' copies downloaded mid-game (consistent so
// far, exit 3), and --receipts: a copy or a receipts file written by `stream({ receipts })` held
// against the final log. Every verdict is the Python CLI's, word for word; then tampering, and a
// property: random one-field mutations are all caught. One boot of Pyodide.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { CardcoreClient } from '../src/client.js';
import { canonical, parseJson } from '../src/json.js';
import { createVerifier } from '../src/verify.js';
import {
  assertValid,
  both as bothOf,
  clone,
  linesOf,
  rehash,
  same,
  textOf,
} from './logs.js';
import { startServer } from './server.js';

let server;
let client;
let serverKey;
let verifier;
let dir; // the receipts files the client writes
/** Per game: { game, seats, created, final (text), copies: { '0', spectator } (texts), receipts
 *  (text) }. */
const played = [];

const both = (...args) => bothOf(verifier, ...args);

before(async () => {
  [server, verifier] = await Promise.all([
    startServer('--collect-window-ms', '0'),
    createVerifier(),
  ]);
  dir = mkdtempSync(path.join(tmpdir(), 'cardcore-verify-'));
  client = new CardcoreClient(server.target);
  const games = await client.listGames();
  serverKey = games.serverKey;
  assert.match(serverKey, /^[A-Za-z0-9_-]{43}$/, 'ListGames publishes the server key');
  // every game, its seats all human and held by the creator (each contributes entropy), a few
  // plays, copies downloaded mid-game, then the end: a resign or the creator's abort
  for (const [i, g] of games.entries()) played.push(await play(g, i % 2 === 0));
});

async function play(g, resign) {
  const seats = Math.max(2, g.minSeats);
  const created = await client.createGame({ game: g.name, seats: Array(seats).fill('human') });
  const sessions = Object.values(created.seatTokens).map((t) => client.game(created.gameId, t));
  const receipts = path.join(dir, `${g.name}-receipts.jsonl`);
  const streamed = (async () => {
    for await (const _ of sessions[0].stream({ receipts }));
  })();
  let plays = 0;
  for (let k = 0; k < 60 && plays < 6; k++) {
    const s = sessions[k % seats];
    const cmd = (await s.view()).legalCommands.find((c) => c.kind !== 'Resign');
    if (!cmd) continue;
    try {
      await s.submit(cmd);
      plays++;
    } catch (err) {
      assert.equal(err.code, 'FAILED_PRECONDITION', err.message); // a real-time race lost
    }
  }
  const copies = {
    0: (await sessions[0].log()).text,
    spectator: (await client.game(created.gameId, created.spectatorToken).log()).text,
  };
  if (resign) await sessions[0].resign();
  else await client.abortGame(created.gameId, created.creatorToken);
  let log = await sessions[0].log();
  if (!log.complete) {
    await client.abortGame(created.gameId, created.creatorToken); // a resign that did not end it
    log = await sessions[0].log();
  }
  await streamed;
  assert.equal(log.complete, true, g.name);
  const kept = readFileSync(receipts, 'utf8');
  return { game: g.name, seats, created, final: log.text, copies, receipts: kept };
}

after(async () => {
  client?.close();
  assert.equal(await server?.stop(), 0, 'graceful shutdown');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('every game: a format-2 log, valid as the CLI says, its deal re-dealt; and signed', async () => {
  assert.ok(played.length >= 5, played.map((p) => p.game).join());
  const terminations = new Set();
  for (const p of played) {
    const lines = await assertValid(verifier, p.final, p.game);
    same(await both(['final.jsonl'], { 'final.jsonl': p.final }), p.game);
    const header = lines[0];
    assert.equal(header.format, 2, p.game);
    assert.equal(header.contributions.length, p.seats, 'every seat the creator holds contributed');
    assert.equal(header.commitment, p.created.seedCommitment, 'the commitment made at creation');
    assert.equal(header.signature.key, serverKey, 'signed by the key ListGames publishes');
    terminations.add(lines.at(-1).outcome.termination);
    const keyed = await both(['--server-key', serverKey, 'final.jsonl'], {
      'final.jsonl': p.final,
    });
    assert.equal(keyed.python.exit, 0, keyed.python.stdout + keyed.python.stderr);
    same(keyed, `${p.game}, --server-key`);
  }
  assert.deepEqual([...terminations].sort(), ['aborted', 'resigned']);
  // the key in hex, or in a file, as /v1/server prints it
  const files = { 'final.jsonl': played[0].final, 'server.key': `${serverKey}\n` };
  const hex = Buffer.from(serverKey, 'base64url').toString('hex');
  for (const key of [hex, 'server.key', 'nonsense']) {
    same(await both(['--server-key', key, 'final.jsonl'], files), key);
  }
});

test('signatures: a wrong key, a tampered or a missing signature, as the CLI says', async () => {
  const p = played[0];
  const lines = linesOf(p.final);
  const tampered = clone(lines);
  const sig = Buffer.from(tampered.at(-1).signature.sig, 'base64url');
  sig[0] ^= 0x80;
  tampered.at(-1).signature.sig = sig.toString('base64url');
  const unsigned = clone(lines);
  delete unsigned[0].signature;
  const files = {
    'signed.jsonl': p.final,
    'tampered.jsonl': textOf(tampered),
    'unsigned.jsonl': textOf(unsigned),
  };
  const other = Buffer.alloc(32, 7).toString('base64url');
  for (const [key, file] of [
    [other, 'signed.jsonl'],
    [serverKey, 'tampered.jsonl'],
    [serverKey, 'unsigned.jsonl'],
  ]) {
    const run = await both(['--server-key', key, file], files);
    assert.equal(run.python.exit, 1, `${file}: ${run.python.stdout}`);
    same(run, file);
  }
  // without a key, only a key could tell: the CLI's verdict either way
  same(await both(['tampered.jsonl'], files), 'tampered, no key');
});

test('format 2: a changed contribution or end seed is INVALID, as the CLI says', async () => {
  const p = played.find((x) => linesOf(x.final)[0].contributions.length > 0);
  const lines = linesOf(p.final);
  const changed = clone(lines);
  const c = changed[0].contributions[0];
  c.entropy = (c.entropy[0] === '0' ? '1' : '0') + c.entropy.slice(1);
  const dropped = clone(lines);
  dropped[0].contributions.pop();
  const unordered = clone(lines);
  unordered[0].contributions.reverse();
  const seeded = clone(lines);
  seeded.at(-1).seed = BigInt(seeded.at(-1).seed) ^ 1n;
  const forged = {
    'changed.jsonl': changed, // the header's hash says so
    'rehashed.jsonl': rehash(clone(changed)), // every hash holds, but the deal is another seed's
    'dropped.jsonl': rehash(dropped),
    'unordered.jsonl': unordered,
    'seeded.jsonl': seeded,
  };
  const files = Object.fromEntries(Object.entries(forged).map(([name, l]) => [name, textOf(l)]));
  for (const name of Object.keys(files)) {
    const run = await both([name], files);
    same(run, name);
    assert.equal(run.node.exit, 1, `${name}: ${run.node.stdout}`);
  }
});

test('copies downloaded mid-game: consistent so far (exit 3), never invalid, as the CLI says', async () => {
  for (const p of played) {
    for (const [viewer, text] of Object.entries(p.copies)) {
      assert.ok(text.includes('"??"'), `${p.game}: ${viewer}'s copy hides cards`);
      const run = await both(['copy.jsonl'], { 'copy.jsonl': text });
      same(run, `${p.game}, ${viewer}'s copy`);
      assert.equal(run.node.exit, 3, run.node.stdout);
    }
  }
  // an end line under a copy's header
  const p = played[0];
  const withEnd = textOf([...linesOf(p.copies[0]), linesOf(p.final).at(-1)]);
  const run = await both(['copy.jsonl'], { 'copy.jsonl': withEnd });
  same(run, 'a copy with an end line');
  assert.equal(run.node.exit, 1, run.node.stdout);
});

test('--receipts: each copy and receipts file is in the final log, unchanged, as the CLI says', async () => {
  for (const p of played) {
    const first = JSON.parse(p.receipts.split('\n')[0]);
    assert.deepEqual(first, { type: 'receipts', game_id: p.created.gameId, viewer: '0' });
    const files = { 'final.jsonl': p.final, 'receipts.jsonl': p.receipts, ...mine(p) };
    for (const args of [
      ['--receipts', 'receipts.jsonl', 'final.jsonl'],
      ['--receipts', 'copy-0.jsonl', 'final.jsonl'],
      ['copy-spectator.jsonl', '--final', 'final.jsonl'],
      ['receipts.jsonl'], // the game rebuilt from the receipts alone
    ]) {
      const run = await both(args, files);
      same(run, `${p.game}: ${args.join(' ')}`);
      assert.equal(run.node.exit, 0, `${p.game}: ${args.join(' ')}: ${run.node.stdout}`);
    }
  }
  // nothing final yet, or a copy named as another viewer's: usage errors (exit 2)
  const files = { 'final.jsonl': played[0].final, ...mine(played[0]) };
  for (const args of [
    ['--receipts', 'copy-0.jsonl', 'copy-0.jsonl'],
    ['--as', '1', '--receipts', 'copy-0.jsonl', 'final.jsonl'],
  ]) {
    const run = await both(args, files);
    same(run, args.join(' '));
    assert.equal(run.node.exit, 2, args.join(' '));
  }
});

const mine = (p) => ({ 'copy-0.jsonl': p.copies[0], 'copy-spectator.jsonl': p.copies.spectator });

/** A visible card value of a copy's entry after the deal: [seq, path]. */
function visibleValue(copyLines) {
  for (const line of copyLines.slice(2)) {
    const found = [];
    const walk = (v, at) => {
      if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...at, i]));
      else if (v !== null && typeof v === 'object') {
        for (const k of Object.keys(v)) if (k !== 'kind') walk(v[k], [...at, k]);
      } else if (typeof v === 'string' && v !== '??') found.push(at);
    };
    walk(line.events, []);
    if (found.length) return [line.seq, found[0]];
  }
  return null;
}
/** The first hidden value "??" in `value`: its path. */
function hiddenAt(value, at = []) {
  if (value === '??') return at;
  if (value === null || typeof value !== 'object') return null;
  for (const k of Object.keys(value)) {
    const found = hiddenAt(value[k], [...at, Array.isArray(value) ? Number(k) : k]);
    if (found) return found;
  }
  return null;
}
const getAt = (v, at) => at.reduce((x, k) => x[k], v);
const setAt = (v, at, x) => (getAt(v, at.slice(0, -1))[at.at(-1)] = x);

test('--receipts: a final log that differs from what was shown is INVALID, as the CLI says', async () => {
  const p = played.find((x) => visibleValue(linesOf(x.copies[0])));
  const [seq, at] = visibleValue(linesOf(p.copies[0]));
  const lines = linesOf(p.final);
  const shown = clone(lines); // a visible event value changed
  setAt(shown[seq + 1].events, at, `${getAt(shown[seq + 1].events, at)}x`);
  const hashed = clone(lines); // one entry's hash changed
  hashed[seq + 1].hash = hashed[seq + 1].hash.replace(/^./, (c) => (c === '0' ? '1' : '0'));
  const swapped = clone(lines); // a card hidden from you changed (the deal)
  const hidden = hiddenAt(linesOf(p.copies[0])[1].events);
  setAt(swapped[1].events, hidden, getAt(swapped[1].events, hidden) === 'AS' ? 'KS' : 'AS');
  const missing = clone(lines); // an entry missing from the final log
  missing.splice(seq + 1, 1);
  const finals = {
    shown,
    rewritten: rehash(clone(shown)),
    hashed,
    swapped,
    'swapped-rehashed': rehash(clone(swapped)),
    missing,
  };
  const files = { 'receipts.jsonl': p.receipts, ...mine(p) };
  for (const [name, final] of Object.entries(finals)) files[`${name}.jsonl`] = textOf(final);
  for (const name of Object.keys(finals)) {
    for (const held of ['receipts.jsonl', 'copy-0.jsonl']) {
      const run = await both(['--receipts', held, `${name}.jsonl`], files);
      same(run, `${held} against ${name}`);
      assert.equal(run.node.exit, 1, `${held} against ${name}: ${run.node.stdout}`);
    }
  }
});

test('--receipts: receipts edited, two versions of one entry, or of another game, as the CLI says', async () => {
  const p = played.find((x) => visibleValue(linesOf(x.copies[0])));
  const other = played.find((x) => x !== p);
  const [seq] = visibleValue(linesOf(p.copies[0]));
  const receipts = p.receipts.split('\n').filter(Boolean);
  // line 0 names the game and viewer, line 1 is the game's header, then the entries
  const line = receipts.findIndex((l) => parseJson(l).type === 'entry' && parseJson(l).seq === seq);
  const edited = parseJson(receipts[line]);
  edited.at_ms += 1;
  const files = {
    'final.jsonl': p.final,
    'other.jsonl': other.final,
    'receipts.jsonl': p.receipts,
    'edited.jsonl': receipts.map((l, k) => (k === line ? canonical(edited) : l)).join('\n'),
    'twice.jsonl': [...receipts, canonical(edited)].join('\n'),
    'repeated.jsonl': [...receipts, receipts[2]].join('\n'), // as received twice: fine
  };
  for (const [held, final, exit] of [
    ['edited.jsonl', 'final.jsonl', 1],
    ['twice.jsonl', 'final.jsonl', 1],
    ['repeated.jsonl', 'final.jsonl', 0],
    ['receipts.jsonl', 'other.jsonl', 1],
  ]) {
    const run = await both(['--receipts', held, final], files);
    same(run, `${held} against ${final}`);
    assert.equal(run.node.exit, exit, `${held} against ${final}: ${run.node.stdout}`);
  }
});

// ------------------------------------------------------------------------------- the property

/** mulberry32: a small seeded PRNG of our own, so that a failure reproduces. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** Every field of a JSON value, as paths (containers included). */
function fields(value, at = [], out = []) {
  if (Array.isArray(value)) value.forEach((v, i) => (out.push([...at, i]), fields(v, [...at, i], out)));
  else if (value !== null && typeof value === 'object') {
    for (const k of Object.keys(value)) out.push([...at, k]), fields(value[k], [...at, k], out);
  }
  return out;
}

/** Another value for `v`, never equal to it. */
function otherValue(v, rand) {
  const pick = (n) => Math.floor(rand() * n);
  if (typeof v === 'string') {
    if (v.length === 0 || rand() < 0.3) return `${v}x`;
    const i = pick(v.length);
    const alphabet = /^[0-9a-f]+$/.test(v) ? '0123456789abcdef' : 'AKQJ0123456789abcxyzHSDC?-_';
    let c;
    do c = alphabet[pick(alphabet.length)];
    while (c === v[i]);
    return v.slice(0, i) + c + v.slice(i + 1);
  }
  if (typeof v === 'bigint') return v + 1n;
  if (typeof v === 'number') return rand() < 0.5 ? v + 1 : v - 1 - pick(3);
  if (typeof v === 'boolean') return !v;
  if (v === null) return rand() < 0.5 ? 0 : 'x';
  if (Array.isArray(v)) return v.length && rand() < 0.5 ? v.slice(0, -1) : [...v, v.length ? v[0] : 0];
  const out = parseJson(canonical(v));
  out.x = 1;
  return out;
}

/** `lines` with one random field of one random line changed (or, `remove`, sometimes dropped);
 *  fields under `skip` (top-level keys) are left alone. */
function mutate(lines, rand, { remove = true, skip = [] } = {}) {
  for (;;) {
    const out = clone(lines);
    const k = Math.floor(rand() * out.length);
    const paths = fields(out[k]).filter((at) => !skip.includes(at[0]));
    if (!paths.length) continue;
    const at = paths[Math.floor(rand() * paths.length)];
    const parent = getAt(out[k], at.slice(0, -1));
    const key = at.at(-1);
    if (remove && !Array.isArray(parent) && rand() < 0.15) delete parent[key];
    else parent[key] = otherValue(parent[key], rand);
    if (canonical(out[k]) !== canonical(lines[k])) return { lines: out, line: k, at };
  }
}

// Left alone: whose a copy or receipts file is (another viewer's name cannot always be told from
// it; a receipts file keeps the copy's header, whose "copy" is not the log's); a receipt's type
// (which a receipt may leave out); and the game_id of a receipts file that keeps the game's header
// (the header is what cardcore holds against the final one).
const untouched = (held) =>
  held[0].type === 'receipts' ? ['viewer', 'type', 'game_id', 'copy'] : ['copy'];

/** Caught: INVALID (exit 1), or, where the first or last line no longer says what the file is
 *  (a header, an end line), not judged at all (exit 2, unsupported). Never valid, nor
 *  consistent so far. */
function caught(run, m, what) {
  const framing = m.line === 0 || m.line === m.lines.length - 1;
  const said = `${what}, line ${m.line} ${m.at}: ${run.exit} ${run.stdout}${run.stderr}`;
  assert.ok(run.exit === 1 || (run.exit === 2 && framing), said);
}

test('property: 200 random one-field mutations of final logs and copies are all caught', async () => {
  const rand = prng(20260512);
  const finals = played.map((p) => ({
    lines: linesOf(p.final),
    held: [linesOf(p.copies[0]), linesOf(p.receipts)],
  }));
  const key = ['--server-key', serverKey];
  const kinds = { final: 0, held: 0 };
  for (let i = 0; i < 200; i++) {
    const f = finals[Math.floor(rand() * finals.length)];
    const receipts = [...key, '--receipts', 'held.jsonl', 'final.jsonl'];
    if (i % 3 === 2) {
      // what you hold, altered: the final log no longer matches it
      const held = f.held[Math.floor(rand() * f.held.length)];
      const m = mutate(held, rand, { remove: false, skip: untouched(held) });
      const files = { 'final.jsonl': textOf(f.lines), 'held.jsonl': textOf(m.lines) };
      caught(await verifier.run(receipts, files), m, `mutation ${i} of what was held`);
      kinds.held++;
    } else {
      // the final log altered: caught by itself, and against what a viewer holds
      const m = mutate(f.lines, rand);
      const files = { 'final.jsonl': textOf(m.lines), 'held.jsonl': textOf(f.held[i % 2]) };
      caught(await verifier.run([...key, 'final.jsonl'], files), m, `mutation ${i}`);
      caught(await verifier.run(receipts, files), m, `mutation ${i}, --receipts`);
      kinds.final++;
    }
  }
  assert.ok(kinds.final > 100 && kinds.held > 30, JSON.stringify(kinds));
});
