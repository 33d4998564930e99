// The Node verifier against logs from a live `cardcore serve`: log format 2 (the deal seed derived
// from the server seed and the seats' entropy), Ed25519 signatures checked against the key
// ListGames publishes, viewers' copies downloaded mid-game (consistent so far, exit 3), and
// --receipts: a copy or a receipts file written by `stream({ receipts })` against the final log
// (Node and Python agree), then tampering, and a property: random one-field mutations are caught.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { CardcoreClient } from '../src/client.js';
import {
  UsageError,
  VerifyError,
  canonical,
  checkReceipts,
  deriveDealSeed,
  endHash,
  entryHash,
  headerHash,
  parseJson,
  readLog,
  verifyLog,
} from '../src/verify.js';
import { REPO, startServer } from './server.js';

const BIN = path.join(REPO, 'clients/node/bin/cardcore-verify.js');
const PYTHON =
  process.env.CARDCORE_PYTHON ??
  (existsSync(path.join(REPO, '.venv/bin/python')) ? path.join(REPO, '.venv/bin/python') : 'python3');

let server;
let client;
let serverKey;
let dir;
/** Per game: { game, seats, created, final (text), copies: { '0', spectator } (texts), receipts
 *  (a file), ended ('resigned' | 'aborted') }. */
const played = [];

/** Run the Node CLI (or Python's `cardcore verify`): { status, stdout, stderr }. */
const nodeVerify = (...args) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8' });
const pythonVerify = (...args) =>
  spawnSync(PYTHON, ['-m', 'cardcore.cli', 'verify', ...args], { cwd: REPO, encoding: 'utf8' });

const write = (name, text) => {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
};
const linesOf = (text) => text.split('\n').filter(Boolean).map(parseJson);
const textOf = (lines) => lines.map((l) => `${canonical(l)}\n`).join('');
const clone = (lines) => lines.map((l) => parseJson(canonical(l)));

function faultOf(fn) {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof VerifyError, e.stack);
    return e;
  }
  assert.fail('no fault found');
}

/** Re-hash a whole log with its revealed salt, as a host rewriting it could (it cannot re-sign). */
function rehash(lines) {
  const salt = Buffer.from(lines.at(-1).salt, 'hex');
  lines[0].hash = headerHash(lines[0]);
  for (let k = 1; k < lines.length; k++) {
    lines[k].prev = lines[k - 1].hash;
    lines[k].hash = lines[k].type === 'end' ? endHash(lines[k]) : entryHash(salt, lines[k]);
  }
  return lines;
}

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'cardcore-verify-'));
  server = await startServer('--collect-window-ms', '0');
  client = new CardcoreClient(server.target);
  const games = await client.listGames();
  serverKey = games.serverKey;
  assert.match(serverKey, /^[A-Za-z0-9_-]{43}$/, 'ListGames publishes the server key');
  // every game, its seats all human and held by the creator (each contributes entropy), a few
  // plays, copies downloaded mid-game, then the end: a resign or the creator's abort
  for (const [i, g] of games.entries()) {
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
    if (i % 2 === 0) await sessions[0].resign();
    else await client.abortGame(created.gameId, created.creatorToken);
    let log = await sessions[0].log();
    if (!log.complete) {
      await client.abortGame(created.gameId, created.creatorToken); // a resign that did not end it
      log = await sessions[0].log();
    }
    await streamed;
    assert.equal(log.complete, true, g.name);
    played.push({ game: g.name, seats, created, final: log.text, copies, receipts });
  }
});

after(async () => {
  client?.close();
  assert.equal(await server?.stop(), 0, 'graceful shutdown');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('every game: a format-2 log verifies in Node, re-dealt from the derived seed, signed', () => {
  assert.ok(played.length >= 5, played.map((p) => p.game).join());
  const terminations = new Set();
  for (const p of played) {
    const r = verifyLog(p.final, { serverKey });
    assert.equal(r.format, 2, p.game);
    assert.equal(r.complete, true);
    assert.equal(r.dealChecked, true, `${p.game}: the deal is re-dealt`);
    assert.equal(r.contributions.length, p.seats, 'every seat the creator holds contributed');
    assert.equal(r.dealSeed, deriveDealSeed(r.seed, r.contributions));
    assert.notEqual(r.dealSeed, r.seed, 'the deal seed is not the server seed');
    assert.deepEqual([r.signedBy, r.signaturesChecked], [serverKey, 2]);
    const header = linesOf(p.final)[0];
    assert.equal(header.commitment, p.created.seedCommitment, 'the commitment made at creation');
    terminations.add(r.outcome.termination);
    if (r.outcome.termination === 'aborted') {
      const abort = linesOf(p.final).at(-2);
      assert.deepEqual([abort.seat, abort.action.kind, abort.events], [null, 'Abort', []]);
    }
  }
  assert.deepEqual([...terminations].sort(), ['aborted', 'resigned']);
  const files = played.map((p) => write(`${p.game}-final.jsonl`, p.final));
  const out = nodeVerify('--server-key', serverKey, ...files);
  assert.equal(out.status, 0, out.stdout + out.stderr);
  const valid =
    /: valid: \w+, \d+ entries, seed commitment ok, deal re-dealt from seed \d+ \(derived from the server seed \d+ and \d contributions\); .*; signed by the server key \(2 signatures ok\)$/gm;
  assert.equal(out.stdout.match(valid)?.length, files.length, out.stdout);
  const hexKey = Buffer.from(serverKey, 'base64url').toString('hex');
  const keyFile = write('server.key', `${serverKey}\n`);
  for (const key of [hexKey, keyFile]) {
    assert.equal(nodeVerify('--server-key', key, files[0]).status, 0, key);
  }
  const unchecked = nodeVerify(files[0]);
  const notChecked = `; signed by ${serverKey} \\(not checked: pass --server-key\\)$`;
  assert.match(unchecked.stdout, new RegExp(notChecked, 'm'));
  assert.equal(nodeVerify('--server-key', 'nonsense', files[0]).status, 2);
});

test('signatures: a wrong key, a tampered or a missing signature fail, naming the line', () => {
  const p = played[0];
  const file = write('signed.jsonl', p.final);
  const other = Buffer.alloc(32, 7).toString('base64url');
  const wrong = nodeVerify('--server-key', other, file);
  assert.equal(wrong.status, 1);
  assert.match(wrong.stdout, /INVALID at header: the header is signed by another key: "[\w-]{43}"/);

  const lines = linesOf(p.final);
  const end = lines.at(-1);
  const sig = Buffer.from(end.signature.sig, 'base64url');
  sig[0] ^= 0x80;
  end.signature.sig = sig.toString('base64url');
  const tampered = nodeVerify('--server-key', serverKey, write('tampered-sig.jsonl', textOf(lines)));
  assert.equal(tampered.status, 1);
  assert.match(tampered.stdout, /INVALID at end line \(seq \d+\): the end line's signature does not/);
  const unchecked = nodeVerify(write('tampered-unchecked.jsonl', textOf(lines)));
  assert.equal(unchecked.status, 0, 'only a key can tell');

  const unsigned = linesOf(p.final);
  delete unsigned[0].signature;
  const out = nodeVerify('--server-key', serverKey, write('unsigned.jsonl', textOf(unsigned)));
  assert.equal(out.status, 1);
  assert.match(out.stdout, /INVALID at header: the header is not signed/);
  // Python agrees on the same files
  assert.equal(pythonVerify('--server-key', serverKey, file).status, 0);
  assert.equal(pythonVerify('--server-key', other, file).status, 1);
});

test('format 2: a changed contribution or end seed is caught (header hash, deal, commitment)', () => {
  const p = played.find((x) => linesOf(x.final)[0].contributions.length > 0);
  const lines = linesOf(p.final);
  const changed = clone(lines);
  const c = changed[0].contributions[0];
  c.entropy = (c.entropy[0] === '0' ? '1' : '0') + c.entropy.slice(1);
  assert.equal(
    faultOf(() => verifyLog(changed)).message,
    'header: header hash mismatch: the header was altered',
  );
  // re-hashed with the revealed salt: every hash holds, but the deal is not the derived seed's
  const forged = rehash(clone(changed));
  const e = faultOf(() => verifyLog(forged));
  assert.equal(e.at, 0);
  assert.match(e.reason, /the deal differs from the re-dealt deck/);
  assert.match(faultOf(() => verifyLog(forged, { serverKey })).message, /^seq 0: the deal differs/);
  // a contribution dropped from the header and the chain re-hashed: the same
  const dropped = clone(lines);
  dropped[0].contributions.pop();
  assert.match(faultOf(() => verifyLog(rehash(dropped))).message, /^seq 0: the deal differs/);
  // contributions out of seat order, or malformed
  const unordered = clone(lines);
  unordered[0].contributions.reverse();
  assert.match(
    faultOf(() => verifyLog(unordered)).message,
    /^header: contributions\[\d+\] is not a seat \(in increasing order\)/,
  );
  // another server seed revealed
  const seeded = clone(lines);
  seeded.at(-1).seed = BigInt(seeded.at(-1).seed) ^ 1n;
  const s = faultOf(() => verifyLog(seeded));
  assert.equal(s.at, 'end');
  assert.match(s.message, /^end line \(seq \d+\): the revealed seed and salt do not match the header's/);
  const out = nodeVerify(write('seeded.jsonl', textOf(seeded)));
  assert.equal(out.status, 1);
  assert.match(out.stdout, /INVALID at end line \(seq \d+\): the revealed seed and salt do not match/);
});

test('copies downloaded mid-game: consistent so far (exit 3), never invalid; Python agrees', () => {
  const files = [];
  for (const p of played) {
    for (const [viewer, text] of Object.entries(p.copies)) {
      const r = verifyLog(text, { serverKey });
      const what = `${p.game}, ${viewer}'s copy`;
      assert.deepEqual([r.copy, r.complete, r.signaturesChecked], [viewer, false, 1], what);
      assert.ok(text.includes('"??"'), `${p.game}: ${viewer}'s copy hides cards`);
      files.push(write(`${p.game}-${viewer}.jsonl`, text));
    }
  }
  const out = nodeVerify(...files);
  assert.equal(out.status, 3, out.stdout + out.stderr);
  assert.equal(out.stderr, '');
  assert.doesNotMatch(out.stdout, /INVALID/);
  const lines = out.stdout.trim().split('\n');
  assert.equal(lines.length, files.length);
  const consistent =
    /: consistent so far: \w+, (seat 0's|the spectator's) copy, \d+ entries; not checked yet: \d+ decisions \(hidden cards\), \d+ entry hashes \(salt secret\)/;
  for (const line of lines) assert.match(line, consistent);
  // the same words as `cardcore verify`, up to what Node adds
  const py = pythonVerify(files[0]);
  assert.equal(py.status, 3, py.stdout + py.stderr);
  const head = (s) => /consistent so far: .*entry hashes \(salt secret\)/.exec(s)[0];
  assert.equal(head(lines[0]), head(py.stdout));
  // an end line under a copy's header is a fault
  const p = played[0];
  const withEnd = [...linesOf(p.copies[0]), linesOf(p.final).at(-1)];
  assert.match(
    faultOf(() => verifyLog(withEnd)).message,
    /^header: a viewer's copy \(a header with "copy"\) has no end line/,
  );
  assert.equal(nodeVerify(write('copy-with-end.jsonl', textOf(withEnd))).status, 1);
});

test('--receipts: each copy and receipts file is in the final log, unchanged (Node, Python)', () => {
  for (const p of played) {
    const final = write(`${p.game}-final.jsonl`, p.final);
    for (const [viewer, text] of Object.entries(p.copies)) {
      const r = checkReceipts(text, p.final, { serverKey });
      assert.deepEqual([r.viewer, r.source, r.firstSeq], [viewer, 'copy', 0]);
      assert.equal(r.entries, linesOf(text).length - 1);
    }
    const receipts = readFileSync(p.receipts, 'utf8');
    assert.deepEqual(JSON.parse(receipts.split('\n')[0]), {
      type: 'receipts',
      game_id: p.created.gameId,
      viewer: '0',
    });
    const r = checkReceipts(receipts, p.final, { serverKey });
    assert.equal(r.source, 'receipts');
    assert.equal(r.entries, r.final.entries, `${p.game}: seat 0 streamed every entry`);
    const out = nodeVerify('--server-key', serverKey, '--receipts', p.receipts, final);
    assert.equal(out.status, 0, out.stdout + out.stderr);
    assert.match(
      out.stdout,
      /^your \d+ entries \(seq 0–\d+\) are in the final log, unchanged: \w+, seat 0's receipts; the final log is valid/,
    );
    assert.match(out.stdout, /hidden values \("\?\?"\) taken from the final log: Node does not redact/);
    const py = pythonVerify('--receipts', p.receipts, final);
    assert.equal(py.status, 0, `${p.game}: ${py.stdout}${py.stderr}`);
  }
  const p = played[0];
  const copy = write('copy0.jsonl', p.copies[0]);
  const final = write('final0.jsonl', p.final);
  for (const args of [['--receipts', copy, final], [copy, '--final', final]]) {
    const out = nodeVerify(...args);
    assert.equal(out.status, 0, out.stdout + out.stderr);
    assert.match(out.stdout, /^your \d+ entries .* unchanged: \w+, seat 0's copy;/);
  }
  // nothing final yet: a usage error (exit 2), as in Python
  const early = nodeVerify('--receipts', copy, copy);
  assert.equal(early.status, 2);
  assert.match(early.stderr, /the final log has no end line/);
  assert.throws(() => checkReceipts(p.copies[0], p.copies[0]), UsageError);
  const as1 = nodeVerify('--as', '1', '--receipts', copy, final);
  assert.equal(as1.status, 2, "seat 0's copy is not seat 1's");
});

/** A visible value of a copy's entry (not "??", not a kind): [seq, path]. */
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
const getAt = (v, at) => at.reduce((x, k) => x[k], v);
const setAt = (v, at, x) => (getAt(v, at.slice(0, -1))[at.at(-1)] = x);

test('--receipts: a final log that differs from what was shown is named at the entry', () => {
  const p = played.find((x) => visibleValue(linesOf(x.copies[0])));
  const copy = p.copies[0];
  const [seq, at] = visibleValue(linesOf(copy));
  const lines = linesOf(p.final);
  const check = (final, opts) => faultOf(() => checkReceipts(copy, final, opts));

  // a visible event value changed: not what you were shown
  const shown = clone(lines);
  setAt(shown[seq + 1].events, at, `${getAt(shown[seq + 1].events, at)}x`);
  const e1 = check(shown);
  assert.equal(e1.message, `entry ${seq}: you were shown different events`);
  const cli = nodeVerify('--receipts', write('c.jsonl', copy), write('f-shown.jsonl', textOf(shown)));
  assert.equal(cli.status, 1);
  assert.equal(cli.stdout.trim(), `INVALID at entry ${seq}: you were shown different events`);
  // ... and the whole chain re-hashed with the revealed salt: the log holds by itself (all but
  // its signatures), not against what you were shown
  const rewritten = rehash(clone(shown));
  assert.equal(verifyLog(rewritten).complete, true);
  assert.match(
    faultOf(() => verifyLog(rewritten, { serverKey })).message,
    /^end line \(seq \d+\): the end line's signature does not match it/,
  );
  assert.equal(check(rewritten).message, `entry ${seq}: you were shown different events`);
  // one entry's hash changed
  const hashed = clone(lines);
  hashed[seq + 1].hash = hashed[seq + 1].hash.replace(/^./, (c) => (c === '0' ? '1' : '0'));
  const differs = "the final log's hash differs from the one you were shown";
  assert.equal(check(hashed).message, `entry ${seq}: ${differs}`);
  const cli2 = nodeVerify('--receipts', p.receipts, write('f-hashed.jsonl', textOf(hashed)));
  assert.equal(cli2.status, 1);
  assert.equal(cli2.stdout.trim(), `INVALID at entry ${seq}: ${differs}`);
  // a card hidden from you changed (entry 0, the deal): your events still match, the keyed hash
  // does not
  const copyLines = linesOf(copy);
  const hiddenAt = (() => {
    const walk = (v, at) => {
      if (v === '??') return at;
      if (v !== null && typeof v === 'object') {
        for (const k of Object.keys(v)) {
          const r = walk(v[k], [...at, Array.isArray(v) ? Number(k) : k]);
          if (r) return r;
        }
      }
      return null;
    };
    return walk(copyLines[1].events, []);
  })();
  const swapped = clone(lines);
  const card = getAt(swapped[1].events, hiddenAt);
  setAt(swapped[1].events, hiddenAt, card === 'AS' ? 'KS' : 'AS');
  assert.equal(
    check(swapped).message,
    'entry 0: the final log is invalid: hash mismatch: the entry was altered',
  );
  assert.equal(check(rehash(clone(swapped))).message, `entry 0: ${differs}`);
  // an entry missing from the final log
  const missing = clone(lines);
  missing.splice(seq + 1, 1);
  const place = `^entry ${seq}: the final log has seq ${seq + 1} in this entry's place`;
  assert.match(check(missing).message, new RegExp(place));
  const cli3 = nodeVerify('--receipts', p.receipts, write('f-missing.jsonl', textOf(missing)));
  assert.equal(cli3.status, 1);
  assert.match(cli3.stdout, new RegExp(`^INVALID at entry ${seq}: `));

  // your receipts themselves: a receipt edited, two versions of one entry
  const receipts = readFileSync(p.receipts, 'utf8').split('\n').filter(Boolean);
  // line 0 names the game and viewer, line 1 is the game's header, then the entries
  const line = receipts.findIndex((l) => parseJson(l).type === 'entry' && parseJson(l).seq === seq);
  const edited = parseJson(receipts[line]);
  edited.at_ms += 1;
  const replaced = [...receipts.slice(0, line), canonical(edited), ...receipts.slice(line + 1)];
  assert.equal(
    faultOf(() => checkReceipts(replaced.join('\n'), p.final)).message,
    `entry ${seq}: the final log's time (at_ms) differs from the one you were shown`,
  );
  assert.equal(
    faultOf(() => checkReceipts([...receipts, canonical(edited)].join('\n'), p.final)).message,
    `entry ${seq}: you were shown two different versions of this entry`,
  );
  // a receipt repeated as it was received is fine
  const repeated = [...receipts, receipts[2]].join('\n');
  const entryLines = receipts.filter((l) => parseJson(l).type === 'entry').length;
  assert.equal(checkReceipts(repeated, p.final).entries, entryLines);
  // receipts of another game
  const other = played.find((x) => x !== p);
  assert.match(
    faultOf(() => checkReceipts(readFileSync(p.receipts), other.final)).message,
    /^header: your receipts are of game/,
  );
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

/** What `fn` threw (null: nothing). */
function thrown(fn) {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return null;
}

/** The top-level fields of `mine` the property leaves alone: whose a copy or receipts file is
 *  (without per-game redaction, another viewer's name cannot be told from it), and a receipt's
 *  type (which a receipt may leave out). */
const untouched = (mine) => (mine[0].type === 'receipts' ? ['viewer', 'type'] : ['copy']);

test('property: 200 random one-field mutations of final logs and copies are all caught', () => {
  const rand = prng(20260512);
  const golden = readLog(readFileSync(path.join(REPO, 'tests/golden/speed/default-2p-seed31.jsonl')));
  const finals = [
    ...played.map((p) => ({
      lines: linesOf(p.final),
      key: serverKey,
      mine: [linesOf(p.copies[0]), readLog(readFileSync(p.receipts))],
    })),
    { lines: golden, key: undefined, mine: [] }, // format 1, unsigned
  ];
  for (const f of finals) verifyLog(f.lines, { serverKey: f.key }); // each valid as it is
  const kinds = { final: 0, mine: 0 };
  for (let i = 0; i < 200; i++) {
    const f = finals[Math.floor(rand() * finals.length)];
    if (f.mine.length && i % 3 === 2) {
      // what you hold, altered: the final log no longer matches it
      const mine = f.mine[Math.floor(rand() * f.mine.length)];
      const m = mutate(mine, rand, { remove: false, skip: untouched(mine) });
      const e = thrown(() => checkReceipts(m.lines, f.lines, { serverKey: f.key }));
      assert.ok(e instanceof VerifyError, `mutation ${i} of mine, line ${m.line} ${m.at}: ${e?.stack}`);
      kinds.mine++;
      continue;
    }
    // the final log altered: invalid by itself, and against what a viewer holds
    const m = mutate(f.lines, rand);
    const where = `mutation ${i}, line ${m.line} ${m.at}`;
    const e = thrown(() => verifyLog(m.lines, { serverKey: f.key }));
    assert.ok(e instanceof VerifyError, `${where}: ${e?.stack ?? 'not caught'}`);
    for (const mine of f.mine) {
      const r = thrown(() => checkReceipts(mine, m.lines, { serverKey: f.key }));
      // an end line that is no longer one leaves nothing final to hold against (exit 2)
      const noEnd = r instanceof UsageError && m.line === m.lines.length - 1;
      assert.ok(r instanceof VerifyError || noEnd, `${where}, --receipts: ${r?.stack ?? 'not caught'}`);
    }
    kinds.final++;
  }
  assert.ok(kinds.final > 100 && kinds.mine > 30, JSON.stringify(kinds));
});
