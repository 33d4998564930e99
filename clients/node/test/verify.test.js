// The Node verifier is cardcore's own `cardcore verify` run under Pyodide: over the golden logs,
// and forgeries of them re-hashed with the revealed salt (as anyone holding a log after its end
// can), its exit status and output are the Python CLI's, word for word — so a forged winner, a
// dropped entry, a rewritten event or deal are INVALID in Node too (the JavaScript verifier it
// replaces called the first three valid). Node's own check (crosscheck.js) only ever adds doubt.
// The command line's --batch, --version and --help, in process. One boot of Pyodide.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { main } from '../src/cli.js';
import { crossCheck } from '../src/crosscheck.js';
import { entropyCommitment } from '../src/rng.js';
import { createVerifier, withCrossCheck } from '../src/verify.js';
import {
  FORGERIES,
  GOLDEN,
  both as bothOf,
  clone,
  committedLog,
  forge,
  goldenLogs,
  linesOf,
  pythonVerify,
  pythonVerifyProcess,
  racedLog,
  rehash,
  same,
  signingKey,
  textOf,
} from './logs.js';

let verifier;
before(async () => {
  verifier = await createVerifier();
});

const RATSCREW = readFileSync(path.join(GOLDEN, 'ratscrew/default-2p-seed11.jsonl'), 'utf8');
const BASES = ['ratscrew/default-2p-seed11', 'palace/bga-2p-seed54', 'speed/default-2p-seed31'];

const both = (...args) => bothOf(verifier, ...args);

test('every golden log: exit 0, in the words of the CLI', async () => {
  assert.ok(goldenLogs.length >= 10, goldenLogs.join(', '));
  await Promise.all(
    goldenLogs.map(async (file) => {
      const name = path.basename(file);
      const run = await both([name], { [name]: readFileSync(file, 'utf8') });
      same(run, file);
      assert.equal(run.node.exit, 0, `${file}: ${run.node.stdout}`);
      assert.equal(run.node.crosschecked[0].fault, null, file);
    }),
  );
});

test('forgeries re-hashed with the revealed salt: the CLI verdict; forged ends are INVALID', async () => {
  const cases = BASES.flatMap((base) => Object.keys(FORGERIES).map((name) => [base, name]));
  await Promise.all(
    cases.map(async ([base, name]) => {
      const text = forge(readFileSync(path.join(GOLDEN, `${base}.jsonl`), 'utf8'), name);
      const run = await both(['forged.jsonl'], { 'forged.jsonl': text });
      same(run, `${base}, ${name}`);
      if (name !== 'at_ms changed') {
        // the rules decide the winner, every entry's events and the deal: a forgery of them is
        // caught, however well re-hashed (a changed time is not theirs to judge)
        assert.equal(run.node.exit, 1, `${base}, ${name}: ${run.node.stdout}`);
        assert.match(run.node.stdout, /^INVALID/, `${base}, ${name}`);
      }
    }),
  );
});

test('--receipts: the genuine log held against a forged one and back, as the CLI says', async () => {
  const files = { 'genuine.jsonl': RATSCREW };
  for (const name of Object.keys(FORGERIES)) files[`${name}.jsonl`] = forge(RATSCREW, name);
  const pairs = Object.keys(FORGERIES).flatMap((name) => [
    ['--receipts', 'genuine.jsonl', `${name}.jsonl`],
    [`${name}.jsonl`, '--final', 'genuine.jsonl'],
  ]);
  await Promise.all(pairs.map(async (args) => same(await both(args, files), args.join(' '))));
  const forgedWinner = await both(['--receipts', 'genuine.jsonl', 'winner forged.jsonl'], files);
  assert.equal(forgedWinner.node.exit, 1, forgedWinner.node.stdout);
});

test('standard input, --json, missing and unreadable files, usage errors: as the CLI says', async () => {
  same(await both(['-'], {}, RATSCREW), 'a log on standard input');
  same(await both(['--json', '-'], {}, RATSCREW), '--json');
  const cases = [
    [['-'], {}, 'not a log'],
    [['missing.jsonl'], {}, ''],
    [['.'], {}, ''],
    [['bytes.jsonl'], { 'bytes.jsonl': Buffer.from([0xff, 0xfe, 0x0a]) }, ''],
    [[], {}, ''],
    [['--receipts', 'a.jsonl'], {}, ''],
    [['--as', '0', 'a.jsonl'], { 'a.jsonl': RATSCREW }, ''],
    [['--receipts', 'a.jsonl', 'b.jsonl', 'c.jsonl'], {}, ''],
  ];
  for (const [args, files, stdin] of cases) {
    const run = await both(args, files, stdin);
    same(run, args.join(' '));
    assert.notEqual(run.node.exit, 0, args.join(' '));
  }
});

test('--server-key: signed, re-hashed after signing, by another key or unsigned: as the CLI says', async () => {
  const { key, sign } = signingKey();
  const other = signingKey().key;
  const signed = textOf(sign(linesOf(RATSCREW)));
  const files = {
    'signed.jsonl': signed,
    'winner.jsonl': textOf(sign(linesOf(forge(RATSCREW, 'winner forged')))),
    // re-hashed after signing, as a forger without the key can: the signatures no longer match
    'dropped.jsonl': forge(signed, 'entry dropped, the rest renumbered'),
    'unsigned.jsonl': RATSCREW,
  };
  const cases = [
    [key, 'signed.jsonl', 0],
    [other, 'signed.jsonl', 1],
    [key, 'winner.jsonl', 1],
    [key, 'dropped.jsonl', 1],
    [key, 'unsigned.jsonl', 1],
  ];
  for (const [k, file, exit] of cases) {
    const run = await both(['--server-key', k, file], files);
    assert.equal(run.python.exit, exit, `${file}: ${run.python.stdout}${run.python.stderr}`);
    same(run, file);
  }
});

// ------------------------------------------------------------------------- Node's own check

test("Node's own check: golden logs hold; an altered entry, seed, deal or header is named", () => {
  for (const file of goldenLogs) {
    const c = crossCheck(readFileSync(file));
    assert.equal(c.fault, null, `${file}: ${c.fault}`);
    assert.match(c.checked, /the deal re-dealt from the revealed seed$/, file);
  }
  const lines = linesOf(RATSCREW);
  const fault = (change) => {
    const changed = clone(lines);
    change(changed);
    return crossCheck(textOf(changed))?.fault;
  };
  assert.equal(fault((l) => (l[5].at_ms += 1)), "seq 4: its keyed hash is not its content's");
  assert.equal(fault((l) => l.splice(5, 1)), 'seq 4: not entry 4');
  assert.equal(fault((l) => (l[7].prev = l[5].hash)), "seq 6: prev is not the previous line's hash");
  const commitment = "end line: the revealed seed and salt are not the header's commitment";
  assert.equal(fault((l) => (l.at(-1).seed += 1)), commitment);
  assert.equal(fault((l) => (l[0].game_id = 'another')), "header: its hash is not its content's");
  const end = "end line (seq 287): its hash is not its content's";
  assert.equal(fault((l) => (l.at(-1).outcome.winners = [1])), end);
  const deal = crossCheck(forge(RATSCREW, 'deal changed')).fault;
  assert.match(deal, /^seq 0: card 1 dealt is "\w+", the re-dealt deck's is \w+$/);
  // a forgery of what only the rules decide, re-hashed: the chain holds (cardcore's verdict is
  // the one that re-decides)
  assert.equal(crossCheck(forge(RATSCREW, 'winner forged')).fault, null);
});

test("Node's own check says nothing of what it cannot check", () => {
  const lines = linesOf(RATSCREW);
  const copy = clone(lines.slice(0, -1));
  copy[0].copy = { viewer: '0' };
  const redacted = clone(lines);
  redacted[1].events[0].stacks[1][0] = '??';
  const unknown = clone(lines);
  unknown[0].format = 9;
  for (const [what, text] of [
    ['a log in progress', textOf(lines.slice(0, -1))],
    ["a viewer's copy", textOf(copy)],
    ['a redacted log', textOf(redacted)],
    ['a format it does not know', textOf(unknown)],
    ['not JSON', 'x'],
    ['a receipts file', `{"type":"receipts","game_id":null,"viewer":"0"}\n${RATSCREW}`],
  ]) {
    assert.equal(crossCheck(text), null, what);
  }
  const position = clone(lines);
  position[0].position = 'a position';
  assert.match(crossCheck(textOf(position)).checked, /no deal \(the game starts from a position\)$/);
});

// ------------------------------------------------------------------------- credits (format 3)

const RACED = goldenLogs.filter((f) => path.basename(f).startsWith('compensated-'));
const CAP = 80; // the race_cap_ms of the compensated golden logs
const RECORD = 'its race record does not hold: ';
const MALFORMED =
  `${RECORD}received_ms and delay_ms must be whole numbers of ms, clamped a boolean`;
const FIELDS = 'received_ms, delay_ms and clamped';
const ONLY = 'every action of a seat under race_policy "compensated"';
const EXTRA = `it has a race record, but only ${ONLY} has one`;

const isAction = (e) => e.type === 'entry' && e.seq !== 0 && e.seat !== null;
/** `lines` (a complete log) changed by `change`, every hash from it on recomputed with the
 *  revealed salt, as anyone holding the log after its end can: the forged log's text. */
const resealed = (lines, change) => {
  const changed = clone(lines);
  change(changed);
  return textOf(rehash(changed));
};
/** The first action from the middle of the log for which `pick` holds. */
const middleAction = (lines, pick) =>
  lines.slice(Math.floor(lines.length / 2)).find((e) => isAction(e) && pick(e));

/** Entries `k` and `k + 1` of a log's lines swapped, each in the other's seq. */
const swap = (k) => (lines) => {
  [lines[k + 1], lines[k + 2]] = [lines[k + 2], lines[k + 1]];
  [lines[k + 1].seq, lines[k + 2].seq] = [k, k + 1];
};

/** Node's own check names `fault` in `text`, and cardcore's verdict (Pyodide) is INVALID at
 *  the same seq, unless `seq` says where cardcore's own first fault is. */
async function caught(text, fault, what, seq = fault.split(':')[0]) {
  assert.equal(crossCheck(text).fault, fault, what);
  const r = await verifier.run(['x.jsonl'], { 'x.jsonl': text });
  assert.equal(r.exit, 1, `${what}: ${r.stdout}`);
  assert.ok(r.stdout.startsWith(`INVALID at ${seq}: `), `${what}: ${r.stdout}`);
}

test("Node's own check, format 3: the compensated golden logs hold, credits counted", () => {
  assert.ok(RACED.length >= 4, RACED.join(', '));
  for (const file of RACED) {
    const lines = linesOf(readFileSync(file, 'utf8'));
    assert.equal(lines[0].format, 3, file);
    const c = crossCheck(textOf(lines));
    assert.equal(c.fault, null, `${file}: ${c.fault}`);
    const credits = lines.filter(isAction).length;
    assert.match(c.checked, new RegExp(`hash, ${credits} credits, the end line's hash, `), file);
    assert.match(c.checked, /the deal re-dealt from the revealed seed$/, file);
  }
  // an arrival log (format 1) still holds, and has no credits to count
  const arrival = crossCheck(RATSCREW);
  assert.equal(arrival.fault, null);
  assert.doesNotMatch(arrival.checked, /credits/);
});

test("Node's own check, format 3: a delay, receipt or clamp changed, re-hashed: its seq", async () => {
  const cases = RACED.flatMap((file) => {
    const lines = linesOf(readFileSync(file, 'utf8'));
    // a delay under the cap, so that changing it changes the credit
    const e = middleAction(lines, (x) => x.race.delay_ms > 0 && x.race.delay_ms < CAP);
    const { at_ms: at, seq, race } = e;
    const credit = `${race.received_ms} - min(${race.delay_ms}, ${CAP}) = ${at}`;
    const notCredited = `${RECORD}at_ms ${at} is not the credited time`;
    const forged = (what, change, fault) => [
      resealed(lines, (l) => change(l[seq + 1])),
      `seq ${seq}: ${fault}`,
      `${path.basename(file)}, ${what}`,
    ];
    return [
      forged('delay + 1', (x) => (x.race.delay_ms += 1), `${notCredited} ${at - 1}`),
      forged('received + 1', (x) => (x.race.received_ms += 1), `${notCredited} ${at + 1}`),
      forged(
        'clamped',
        (x) => (x.race.clamped = true),
        `${RECORD}clamped is true, but the credit ${credit} ` +
          `is not before the previous entry's at_ms ${lines[seq].at_ms}`,
      ),
      forged('no race', (x) => delete x.race, `it has no race record, but ${ONLY} has one`),
      forged('no clamped', (x) => delete x.race.clamped, `${RECORD}it must hold ${FIELDS}`),
      forged('a negative delay', (x) => (x.race.delay_ms = -1), MALFORMED),
      forged('clamped 0', (x) => (x.race.clamped = 0), MALFORMED),
    ];
  });
  const deal = linesOf(readFileSync(RACED[0], 'utf8'));
  const dealRace = (l) => (l[1].race = { clamped: false, delay_ms: 0, received_ms: 0 });
  cases.push([resealed(deal, dealRace), `seq 0: ${EXTRA}`, 'the deal']);
  await Promise.all(cases.map((c) => caught(...c)));
});

test("Node's own check, format 3: a delay past the cap is credited the cap", async () => {
  const lines = linesOf(readFileSync(RACED.find((f) => f.includes('slapjack')), 'utf8'));
  const e = middleAction(lines, (x) => x.race.delay_ms > CAP);
  assert.ok(e, 'the slapjack golden log has a seat past the cap');
  const text = resealed(lines, (l) => (l[e.seq + 1].race.delay_ms += 1000));
  assert.equal(crossCheck(text).fault, null);
  assert.equal((await verifier.run(['x.jsonl'], { 'x.jsonl': text })).exit, 0);
});

test("Node's own check, format 3: two entries swapped, re-numbered, re-hashed", async () => {
  for (const file of RACED) {
    const lines = linesOf(readFileSync(file, 'utf8'));
    const next = (x) => lines[x.seq + 2];
    const e = middleAction(lines, (x) => isAction(next(x)) && next(x).at_ms > x.at_ms);
    const later = lines[e.seq + 2];
    // the later action first is credited as it was; the earlier one after it comes too late
    // for its credit, but does not say it was clamped (cardcore may first refuse the action)
    const fault = crossCheck(resealed(lines, swap(e.seq))).fault;
    const credit = `${e.race.received_ms} - min(${e.race.delay_ms}, ${CAP}) = ${e.at_ms}`;
    const expected =
      `seq ${e.seq + 1}: ${RECORD}clamped is false, but the credit ${credit} ` +
      `is before the previous entry's at_ms ${later.at_ms}`;
    assert.equal(fault, expected, file);
    const r = await verifier.run(['x.jsonl'], { 'x.jsonl': resealed(lines, swap(e.seq)) });
    assert.equal(r.exit, 1, `${file}: ${r.stdout}`);
  }
});

// a log cardcore writes (racedLog): format 3 with contributions, clamped credits and ties
test("Node's own check, format 3: contributions, clamps, ties; a tie swapped; the policy", async () => {
  const text = await racedLog('speed');
  const lines = linesOf(text);
  const actions = lines.filter(isAction);
  const alike = (x, i) => i > 0 && !x.race.clamped && x.at_ms === actions[i - 1].at_ms;
  const tie = actions.findIndex(alike);
  assert.ok('contributions' in lines[0], 'format 3 with format 2 contributions');
  assert.ok(actions.some((x) => x.race.clamped), 'a clamped credit');
  assert.ok(tie > 0, 'two actions credited alike');
  same(await both(['raced.jsonl'], { 'raced.jsonl': text }), 'a raced log cardcore wrote');
  assert.equal(crossCheck(text).fault, null);
  // the pair credited alike, swapped: the same credits, received out of order
  const [first, second] = [actions[tie - 1], actions[tie]];
  const swapped = resealed(lines, swap(first.seq));
  const order =
    `seq ${first.seq + 1}: credited at ${first.at_ms} as the action before it, ` +
    `but received earlier (${first.race.received_ms} < ${second.race.received_ms}): ` +
    'actions credited alike go in order of arrival';
  assert.equal(crossCheck(swapped).fault, order);
  assert.equal((await verifier.run(['x.jsonl'], { 'x.jsonl': swapped })).exit, 1);
  // the deal seed is derived from the contributions: without them, it is not the deal
  const dropped = resealed(lines, (l) => {
    delete l[0].contributions;
    delete l[0].seed_derivation;
  });
  assert.match(crossCheck(dropped).fault, /^seq 0: card \d+ dealt is /);
  // format 3 exactly when the rules compensate; no race record in any other format
  const policy = (format, name) =>
    `header: a log of format ${format} under race_policy "${name}" ` +
    '(format 3 is exactly the logs of race_policy "compensated")';
  const golden = linesOf(readFileSync(RACED[0], 'utf8'));
  const arrival = linesOf(RATSCREW);
  const headers = [
    [resealed(golden, (l) => (l[0].format = 1)), policy(1, 'compensated')],
    [resealed(golden, (l) => (l[0].setup.rules.race_policy = 'arrival')), policy(3, 'arrival')],
    [resealed(arrival, (l) => (l[0].format = 3)), policy(3, 'arrival')],
    [
      resealed(golden, (l) => (l[0].setup.rules.race_cap_ms = 251)),
      'header: race_cap_ms 251 is not a whole number of ms from 0 to 250',
    ],
  ];
  for (const [forged, fault] of headers) await caught(forged, fault, fault, 'header');
  const e = middleAction(arrival, () => true);
  const race = { clamped: false, delay_ms: 0, received_ms: e.at_ms };
  const raced = resealed(arrival, (l) => (l[e.seq + 1].race = race));
  await caught(raced, `seq ${e.seq}: ${EXTRA}`, 'format 1');
});

// ------------------------------------------------------------------------- committed entropy

// a log cardcore writes (committedLog): seats 1 and 2 committed to their entropy before the
// start, and the header records each commitment beside the reveal (docs/rng.md)
test('committed entropy: every reveal holds to its commitment; a changed one is named', async () => {
  const text = await committedLog();
  const lines = linesOf(text);
  const given = lines[0].contributions;
  assert.deepEqual(
    given.map((c) => Object.keys(c).sort().join()),
    ['entropy,seat', 'commitment,entropy,seat', 'commitment,entropy,seat'],
  );
  for (const c of given.slice(1)) {
    assert.equal(c.commitment, entropyCommitment(c.entropy).toString('hex'), `seat ${c.seat}`);
  }
  const genuine = await both(['committed.jsonl'], { 'committed.jsonl': text });
  same(genuine, 'the committed log');
  assert.equal(genuine.node.exit, 0, genuine.node.stdout);
  const said = "seats 1, 2: each one's entropy matches the commitment it made before the start";
  assert.ok(genuine.node.stdout.includes(said), genuine.node.stdout);
  const [own] = genuine.node.crosschecked;
  assert.equal(own.fault, null);
  assert.match(own.checked, /the seed commitment, seats 1, 2' entropy against the commitment/);
  assert.match(own.checked, /the deal re-dealt from the revealed seed$/);

  // each forgery re-hashed with the revealed salt (the header's hash recomputed too): cardcore
  // and Node's own check both name the contribution, and the seat
  const unmatched = (i) =>
    `header: contributions[${i}]: seat ${i}'s revealed entropy does not match the commitment ` +
    'it made before the start';
  const malformed = (i) =>
    `header: contributions[${i}] is not a seat (in increasing order) with 32 hex digits`;
  const flip = (hex) => (hex[0] === '0' ? '1' : '0') + hex.slice(1);
  const forgeries = [
    ['a reveal changed', (c) => (c[1].entropy = flip(c[1].entropy)), unmatched(1)],
    ['a commitment changed', (c) => (c[2].commitment = flip(c[2].commitment)), unmatched(2)],
    ['a commitment not text', (c) => (c[2].commitment = 7), unmatched(2)],
    ['a commitment given seat 0', (c) => (c[0].commitment = c[1].commitment), unmatched(0)],
    ['a key more', (c) => (c[1].note = 'x'), malformed(1)],
    ['a commitment without its reveal', (c) => delete c[1].entropy, malformed(1)],
  ];
  for (const [what, change, fault] of forgeries) {
    const forged = resealed(lines, (l) => change(l[0].contributions));
    same(await both(['forged.jsonl'], { 'forged.jsonl': forged }), what);
    await caught(forged, fault, what, 'header');
  }
  // Node's own check holds alone: were cardcore to call a changed reveal valid, exit 1
  const forged = resealed(lines, (l) => (l[0].contributions[1].entropy = flip(given[1].entropy)));
  const valid = { exit: 0, stdout: 'valid: …\n', stderr: '' };
  const doubted = withCrossCheck(valid, ['x.jsonl'], { 'x.jsonl': forged }, '');
  assert.equal(doubted.exit, 1);
  assert.ok(doubted.stderr.includes(unmatched(1)), doubted.stderr);
});

test("Node's own check turns valid into exit 1, saying why, and never INVALID into valid", () => {
  // a log whose entry 4 changed after the end, not re-hashed: were cardcore to call it valid
  const lines = linesOf(RATSCREW);
  lines[5].at_ms += 1;
  const files = { 'x.jsonl': textOf(lines) };
  const valid = { exit: 0, stdout: 'valid: …\n', stderr: '' };
  const doubted = withCrossCheck(valid, ['x.jsonl'], files, '');
  assert.equal(doubted.exit, 1);
  assert.equal(doubted.stdout, valid.stdout);
  assert.match(doubted.stderr, /^cardcore-verify \(Node\): x\.jsonl: Node's own check disagrees .*seq 4/);
  for (const exit of [1, 2]) {
    const result = { exit, stdout: 'INVALID at seq 4: …\n', stderr: '' };
    const kept = withCrossCheck(result, ['x.jsonl'], files, '');
    assert.deepEqual([kept.exit, kept.stdout, kept.stderr], [exit, result.stdout, '']);
  }
  // the file must be one the arguments name (its text on standard input for "-")
  assert.equal(withCrossCheck(valid, ['y.jsonl'], files, '').exit, 0);
  assert.equal(withCrossCheck(valid, ['-'], {}, files['x.jsonl']).exit, 1);
  assert.equal(withCrossCheck(valid, ['--final=x.jsonl'], files, '').exit, 1);
  // the chain of a genuine log holds: nothing added
  const genuine = withCrossCheck(valid, ['x.jsonl'], { 'x.jsonl': RATSCREW }, '');
  assert.deepEqual([genuine.exit, genuine.stderr], [0, '']);
});

// ------------------------------------------------------------------------- the command line

/** The command line, in process, on this file's verifier: { exit, stdout, stderr }. */
async function cli(argv, stdin = '') {
  const out = { stdout: '', stderr: '' };
  const exit = await main(argv, {
    stdout: (t) => (out.stdout += t),
    stderr: (t) => (out.stderr += t),
    readStdin: () => Buffer.from(stdin),
    boot: async () => verifier,
  });
  return { exit, ...out };
}

let dir;
after(() => dir && rmSync(dir, { recursive: true, force: true }));

test('the command line: files of the host by their paths, as the CLI names them', async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'cardcore-cli-'));
  const genuine = path.join(dir, 'genuine.jsonl');
  const forged = path.join(dir, 'forged.jsonl');
  writeFileSync(genuine, RATSCREW);
  writeFileSync(forged, forge(RATSCREW, 'entry dropped, the rest renumbered'));
  for (const args of [
    [genuine],
    [forged],
    ['--receipts', genuine, forged],
    [`--final=${genuine}`, forged],
    [path.join(dir, 'none')],
  ]) {
    const node = await cli(args);
    const python = await pythonVerify(args);
    same({ node, python }, args.join(' '));
  }
  const stdin = await cli(['-'], RATSCREW);
  const python = await pythonVerify(['-'], {}, RATSCREW);
  assert.deepEqual([stdin.exit, stdin.stdout], [0, python.stdout]);
});

test("Python's runs shared in one process answer as processes of their own", async () => {
  // pythonVerify, which every comparison here holds Node to, against `python -m cardcore verify`
  // itself: a valid log, a forged one, both by name, standard input, a missing file, bad usage
  const files = { 'g.jsonl': RATSCREW, 'f.jsonl': forge(RATSCREW, 'winner forged') };
  const cases = [
    [['g.jsonl'], ''],
    [['f.jsonl'], ''],
    [['--json', 'f.jsonl'], ''],
    [['-'], RATSCREW],
    [['none.jsonl'], ''],
    [['--no-such-option'], ''],
  ];
  const exits = [];
  for (const [args, stdin] of cases) {
    const [shared, own] = await Promise.all([
      pythonVerify(args, files, stdin),
      pythonVerifyProcess(args, files, stdin),
    ]);
    assert.deepEqual(shared, own, args.join(' '));
    exits.push(own.exit);
  }
  assert.deepEqual(exits, [0, 1, 1, 0, 2, 2], 'valid, invalid, usage: each case what it claims');
});

test('--batch: one result per case, in order, each what a run of its own gives', async () => {
  const cases = [
    { argv: ['g.jsonl'], files: { 'g.jsonl': RATSCREW } },
    { argv: ['f.jsonl'], files: { 'f.jsonl': forge(RATSCREW, 'winner forged') } },
    { argv: ['-'], stdin: RATSCREW },
    { argv: ['g.jsonl'] }, // each case sees only its own files
    { argv: ['--receipts', 'a'] },
  ];
  const out = await cli(['--batch'], JSON.stringify(cases));
  assert.equal(out.exit, 0, out.stderr);
  const results = JSON.parse(out.stdout);
  assert.equal(results.length, cases.length);
  for (const [i, c] of cases.entries()) {
    const { exit, stdout, stderr } = await verifier.run(c.argv, c.files, { stdin: c.stdin });
    assert.deepEqual(results[i], { exit, stdout, stderr }, `case ${i}`);
  }
  assert.deepEqual(results.map((r) => r.exit), [0, 1, 0, 2, 2]);
  for (const bad of ['{}', '[{"argv": "x"}]', '[{"argv": [], "files": {"a": 1}}]', 'not json']) {
    const refused = await cli(['--batch'], bad);
    assert.equal(refused.exit, 2, bad);
    assert.match(refused.stderr, /^cardcore-verify \(Node\): /, bad);
  }
  assert.equal((await cli(['--batch', 'x.jsonl'])).exit, 2);
  await assert.rejects(verifier.run('x.jsonl'), TypeError, 'the API takes an array');
});

test('--version, --verbose and --help say which cardcore runs, and its own help', async () => {
  const version = await cli(['--version']);
  assert.equal(version.exit, 0);
  const { cardcore, cardcoreDir, pyodide, python } = verifier.info;
  const runs = `cardcore ${cardcore} from ${cardcoreDir}, on Pyodide ${pyodide} (Python ${python})`;
  assert.equal(version.stdout, `cardcore-verify (Node): ${runs}\n`);
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url)));
  assert.equal(pyodide, pkg.dependencies.pyodide, 'the Pyodide of package.json');
  const verbose = await cli(['--verbose', '-'], RATSCREW);
  assert.ok(verbose.stderr.startsWith(`cardcore-verify (Node): ${runs}, booted in `), verbose.stderr);
  assert.match(verbose.stderr, /\nc.*: verified in \d+ ms\n/);
  assert.match(verbose.stderr, /standard input: Node's own check: .*: no fault\n$/);
  const help = await cli(['--help']);
  assert.equal(help.exit, 0);
  assert.match(help.stdout, /--batch {9}many verifications/);
  const own = await pythonVerify(['--help']);
  assert.ok(help.stdout.endsWith(own.stdout), 'then cardcore verify --help');
  let said = '';
  const io = { stdout: () => {}, stderr: (t) => (said += t), boot: createVerifier };
  assert.equal(await main(['--cardcore', GOLDEN, 'x'], io), 2);
  const why = `${GOLDEN}: not the cardcore package (no __init__.py and cli.py)`;
  assert.equal(said, `cardcore-verify (Node): cannot run cardcore: ${why}\n`);
});
