// The lifecycle from Node against a live `cardcore serve`: a Spit table with an invite seat that
// a second client joins, both streaming (one of them from before the deal), a few plays, one
// leaves (Resign; the host's "by" refused) and the log verifies in Node; the creator starts with
// bots and aborts; the listing, spectators, a client's own games, twenty racing joins, and the
// admin key cancelling a table. Committed entropy (docs/rng.md): seats join with a commitment,
// and so do the seats the creator holds (createGame), the clients reveal by themselves once the
// seats are final (at the join that fills the table, at a creation with no open seat, at the
// creator's start, from a stream or a play channel waiting for the deal, from table()), and the
// log's header holds each reveal to its commitment; a wrong reveal, or one too early or too
// late, is refused. Refusals carry the same reasons as every other error.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';

import { CardcoreClient, CardcoreError, entropyCommitment } from '../src/client.js';
import { createVerifier } from '../src/verify.js';
import { assertValid, linesOf } from './logs.js';
import { startServer } from './server.js';

const INVITE = { kind: 'human', open: 'invite' };
const ANYONE = { kind: 'human', open: 'anyone' };

let server;
let alice; // creates the tables
let bob; // joins them
let verifier; // cardcore's, under Pyodide

before(async () => {
  [server, verifier] = await Promise.all([
    startServer('--collect-window-ms', '0'),
    createVerifier(),
  ]);
  alice = new CardcoreClient(server.target);
  bob = new CardcoreClient(server.target);
});

after(async () => {
  alice?.close();
  bob?.close();
  const code = await server?.stop();
  assert.equal(code, 0, 'graceful shutdown');
  assert.ok(!/cc[ti]_[A-Za-z0-9_-]{20}/.test(server.logs()), 'no token or invite in the log');
});

async function rejection(promise) {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof CardcoreError, String(err));
    return err;
  }
  assert.fail('the call succeeded');
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function until(check, what, ms = 5000) {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) assert.fail(`timed out: ${what}`);
    await sleep(20);
  }
}

/** Follow a session's stream to the end: { seqs, entries, outcome, done (a promise) }. */
function follow(session) {
  const out = { seqs: [], entries: [], outcome: null };
  out.done = (async () => {
    for await (const e of session.stream({ onOutcome: (o) => (out.outcome = o) })) {
      out.seqs.push(e.seq);
      out.entries.push(e);
    }
  })();
  return out;
}

async function hasResign(game) {
  const info = (await alice.listGames()).find((g) => g.name === game);
  return JSON.stringify(info.commandSchema).includes('"Resign"');
}

test('two clients at a Spit invite table: join, stream, play, leave, verify', async () => {
  const created = await alice.createGame({ game: 'spit', seats: ['human', INVITE] });
  assert.equal(created.status, 'waiting');
  assert.deepEqual(Object.keys(created.seatTokens), ['0']);
  assert.deepEqual(Object.keys(created.invites), ['1']);
  assert.match(created.invites[1], /^cci_/);
  assert.match(created.creatorToken, /^cct_/);
  const { gameId } = created;
  const me = alice.game(gameId, created.seatTokens[0]);

  const early = await rejection(me.view());
  assert.equal(early.code, 'FAILED_PRECONDITION');
  assert.equal(early.reason, 'GameNotStarted');
  const waiting = await me.table();
  assert.equal(waiting.status, 'waiting');
  assert.deepEqual(
    waiting.seats.map((s) => [s.seat, s.kind, s.open, s.taken]),
    [
      [0, 'human', '', true],
      [1, 'human', 'invite', false],
    ],
  );
  assert.equal(waiting.seedCommitment, created.seedCommitment);
  assert.ok(waiting.deadlineMs > waiting.createdMs);

  // alice streams from before the deal: she is present, and the stream waits
  const aliceSaw = follow(me);
  await until(async () => (await me.table()).seats[0].present, 'seat 0 present');

  const seat = await bob.joinTable({ invite: created.invites[1] });
  assert.deepEqual([seat.gameId, seat.seat], [gameId, 1]);
  // bob revealed at once; alice's seat committed too (createGame), her waiting stream reveals
  assert.ok(['revealing', 'playing'].includes(seat.status), seat.status);
  const used = await rejection(bob.joinTable({ invite: created.invites[1] }));
  assert.equal(used.reason, 'InviteUsed');
  assert.equal(used.code, 'FAILED_PRECONDITION');
  const unknown = await rejection(bob.joinTable({ invite: 'cci_nope' }));
  assert.deepEqual([unknown.code, unknown.reason], ['NOT_FOUND', 'InvalidInvite']);

  const him = bob.game(gameId, seat.token);
  await until(async () => (await him.table()).status === 'playing', 'the deal');
  assert.equal(alice.owesReveal(gameId, created.seatTokens[0]), false, "alice's stream revealed");
  const bobSaw = follow(him);
  await until(async () => (await me.view()).presentSeats.length === 2, 'both present');
  assert.deepEqual((await him.view()).presentSeats, [0, 1]);

  // a few plays (Spit is real time: a command may lose a race and be refused)
  let played = 0;
  for (let round = 0; round < 200 && played < 4; round++) {
    for (const s of [me, him]) {
      const v = await s.view();
      const cmd = v.legalCommands.find((c) => c.kind !== 'Resign');
      if (!cmd) continue;
      try {
        await s.submit(cmd);
        played++;
      } catch (err) {
        assert.equal(err.code, 'FAILED_PRECONDITION', err.message);
      }
    }
  }
  assert.ok(played >= 1, 'some plays');

  if (await hasResign('spit')) {
    const host = await rejection(him.submit({ kind: 'Resign', by: 'timer' }));
    assert.deepEqual([host.code, host.reason], ['INVALID_ARGUMENT', 'HostOnly']);
    assert.equal(host.fieldViolations[0].field, 'command.json.by');
    const left = await him.resign();
    assert.equal(left.outcome.termination, 'resigned');
    assert.deepEqual(left.outcome.winners, [0]);
    assert.equal(left.entry.action.kind, 'Resign');
  } else {
    const ended = await alice.game(gameId, created.creatorToken).abort();
    assert.equal(ended.outcome.termination, 'aborted');
  }

  await Promise.all([aliceSaw.done, bobSaw.done]);
  for (const saw of [aliceSaw, bobSaw]) {
    assert.ok(saw.outcome, 'each stream ends with the outcome');
    assert.deepEqual(saw.seqs, [...saw.seqs.keys()], 'from the deal, no gap, no duplicate');
  }
  assert.equal(aliceSaw.seqs.length, bobSaw.seqs.length);

  const log = await alice.game(gameId, created.creatorToken).log();
  assert.equal(log.complete, true);
  const lines = await assertValid(verifier, log.text, 'the Spit game');
  assert.equal(lines.length - 2, aliceSaw.seqs.length);
  assert.equal(lines.at(-1).outcome.termination, aliceSaw.outcome.termination);

  const mine = await alice.listMyGames([created.seatTokens[0], created.creatorToken, seat.token]);
  assert.deepEqual(
    mine.map((g) => [g.viewer, g.table.gameId, g.table.status]),
    [
      ['0', gameId, 'finished'],
      ['creator', gameId, 'finished'],
      ['1', gameId, 'finished'],
    ],
  );
  const stranger = await rejection(alice.listMyGames(['cct_not-a-token']));
  assert.deepEqual([stranger.code, stranger.reason], ['UNAUTHENTICATED', 'InvalidToken']);
});

test('a public table: listed, watched, joined by id; only the creator aborts it', async () => {
  const created = await alice.createGame({
    game: 'ratscrew',
    seats: ['human', ANYONE],
    public: true,
    startDeadlineMs: 600_000,
    commit: false, // the creator's seat gives its entropy openly: bob's join deals at once
  });
  const { gameId } = created;
  const listed = [];
  for await (const t of bob.allTables({ game: 'ratscrew', pageSize: 2 })) listed.push(t.gameId);
  assert.ok(listed.includes(gameId), 'listed');
  const page = await bob.listTables({ game: 'ratscrew', pageSize: 1 });
  assert.equal(page.tables[0].gameId, gameId, 'newest first');
  assert.equal(page.tables[0].public, true);

  const watcher = await bob.watchTable(gameId);
  assert.match(watcher, /^cct_/);
  assert.equal((await bob.getTable(gameId)).status, 'waiting', 'public: no token needed');

  const seat = await bob.joinTable({ gameId });
  assert.deepEqual([seat.seat, seat.status], [1, 'playing']);
  const full = await rejection(bob.joinTable({ gameId }));
  assert.equal(full.reason, 'GameStarted');
  const spectator = bob.game(gameId, watcher);
  const v = await spectator.view();
  assert.equal(v.seat, null);
  assert.deepEqual(v.legalCommands, []);
  assert.ok(Array.isArray(v.presentSeats));
  await alice.game(gameId, created.seatTokens[0]).submit({ kind: 'Play' });

  const notCreator = await rejection(bob.game(gameId, seat.token).abort());
  assert.deepEqual([notCreator.code, notCreator.reason], ['PERMISSION_DENIED', 'NotCreator']);
  const ended = await alice.game(gameId, created.creatorToken).abort();
  assert.equal(ended.status, 'finished');
  assert.equal(ended.outcome.termination, 'aborted');
  assert.deepEqual(ended.outcome.winners, []);
  const log = await spectator.log();
  assert.equal(log.complete, true);
  const lines = await assertValid(verifier, log.text, 'the aborted game');
  assert.equal(lines.at(-1).outcome.termination, 'aborted');
  assert.match(lines[0].contributions[0].entropy, /^[0-9a-f]{32}$/);
  assert.equal(lines[0].contributions[0].commitment, undefined, 'given in the open');

  const privateTable = await alice.createGame({ game: 'ratscrew', seats: ['human', ANYONE] });
  const hidden = await rejection(bob.watchTable(privateTable.gameId));
  assert.deepEqual([hidden.code, hidden.reason], ['PERMISSION_DENIED', 'TableNotPublic']);
  const noToken = await rejection(bob.getTable(privateTable.gameId));
  assert.equal(noToken.reason, 'MissingToken');
});

test('the creator starts a table with bots', async () => {
  const created = await alice.createGame({ game: 'ratscrew', seats: ['human', ANYONE, INVITE] });
  const creator = alice.game(created.gameId, created.creatorToken);
  const notCreator = await rejection(alice.game(created.gameId, created.seatTokens[0]).start());
  assert.equal(notCreator.reason, 'NotCreator');
  const started = await creator.start({ fillWith: 'random' });
  // the start made the seats final: this client revealed the seat it committed for (seat 0)
  assert.equal(started.status, 'playing');
  assert.match(started.seats[0].entropyCommitment, /^[0-9a-f]{64}$/);
  assert.equal(started.seats[0].revealed, true);
  assert.equal(alice.owesReveal(created.gameId, created.seatTokens[0]), false);
  assert.deepEqual(
    started.seats.map((s) => s.kind),
    ['human', 'random', 'random'],
  );
  const again = await rejection(creator.start());
  assert.equal(again.reason, 'GameStarted');
  const late = await rejection(bob.joinTable({ gameId: created.gameId }));
  assert.equal(late.reason, 'GameStarted');
  const seatNotOpen = await alice.createGame({ game: 'ratscrew', seats: ['human', ANYONE] });
  const refused = await rejection(bob.joinTable({ gameId: seatNotOpen.gameId, seat: 0 }));
  assert.equal(refused.reason, 'SeatNotOpen');
  await assert.rejects(creator.start({ fillWith: 'human' }), TypeError);
});

test('twenty clients race for the last seat: one wins', async () => {
  const created = await alice.createGame({
    game: 'ratscrew',
    seats: ['human', ANYONE, ANYONE],
    commit: false, // the creator's seat gives its entropy openly: the joiners' reveals deal
  });
  const first = await bob.joinTable({ gameId: created.gameId });
  const racers = Array.from({ length: 20 }, () => new CardcoreClient(server.target));
  try {
    const answers = await Promise.allSettled(
      racers.map((c) => c.joinTable({ gameId: created.gameId })),
    );
    const winners = answers.filter((a) => a.status === 'fulfilled');
    assert.equal(winners.length, 1);
    // the winner revealed its own entropy at once; bob's reveal is still missing
    assert.equal(winners[0].value.status, 'revealing');
    for (const a of answers) {
      if (a.status === 'rejected') {
        assert.ok(['TableFull', 'GameStarted'].includes(a.reason.reason), a.reason.message);
      }
    }
    // bob's client reveals as soon as it looks at the table: the last reveal deals
    const dealt = await bob.game(created.gameId, first.token).table();
    assert.equal(dealt.status, 'playing');
    assert.deepEqual(
      dealt.seats.map((s) => s.revealed),
      [false, true, true],
    );
  } finally {
    for (const c of racers) c.close();
  }
});

test('the admin key cancels a waiting table', async () => {
  const keyed = await startServer('--admin-key', 'node-admin-key');
  const admin = new CardcoreClient(keyed.target, { adminKey: 'node-admin-key' });
  const anonymous = new CardcoreClient(keyed.target);
  try {
    const created = await admin.createGame({ game: 'ratscrew', seats: ['human', INVITE] });
    const waiter = admin.game(created.gameId, created.seatTokens[0]);
    const ended = (async () => {
      const seen = [];
      try {
        for await (const e of waiter.stream()) seen.push(e);
      } catch (err) {
        return err;
      }
      return seen;
    })();
    await until(async () => (await waiter.table()).seats[0].present, 'the waiter is present');
    const guesser = new CardcoreClient(keyed.target, { adminKey: 'x' });
    const wrong = await rejection(guesser.abortGame(created.gameId));
    guesser.close();
    assert.deepEqual([wrong.code, wrong.reason], ['PERMISSION_DENIED', 'AdminKeyRequired']);
    const missing = await rejection(anonymous.abortGame(created.gameId));
    assert.equal(missing.reason, 'MissingToken');
    const cancelled = await admin.abortGame(created.gameId);
    assert.equal(cancelled.status, 'cancelled');
    const streamEnd = await ended;
    assert.ok(streamEnd instanceof CardcoreError, 'the waiting stream is refused');
    assert.equal(streamEnd.reason, 'TableCancelled');
    const late = await rejection(anonymous.joinTable({ invite: created.invites[1] }));
    assert.equal(late.reason, 'TableCancelled');
  } finally {
    admin.close();
    anonymous.close();
    assert.equal(await keyed.stop(), 0);
  }
});

// ------------------------------------------------------------------------- committed entropy

// the creator's seat gives its entropy openly (commit: false): these tests are about the seats
// that join; the creator's own commitments are the tests after them
const SLAPJACK_OF_THREE = { game: 'slapjack', seats: ['human', ANYONE, ANYONE], commit: false };

test('committed entropy: two clients commit, reveal by themselves; the log holds it', async () => {
  const created = await alice.createGame(SLAPJACK_OF_THREE); // no seed: the server's, committed
  assert.equal(created.status, 'waiting');
  const { gameId } = created;
  const host = alice.game(gameId, created.creatorToken);
  const carol = new CardcoreClient(server.target);
  const dave = new CardcoreClient(server.target);
  try {
    const c = await carol.joinTable({ gameId });
    assert.deepEqual([c.seat, c.status], [1, 'waiting']);
    const secret = carol.unrevealed.get(c.token).entropy; // kept in the client, never sent yet
    const waiting = await host.table();
    assert.equal(waiting.seats[1].entropyCommitment, entropyCommitment(secret).toString('hex'));
    assert.deepEqual(
      waiting.seats.map((s) => [s.entropyCommitment !== '', s.revealed]),
      [
        [false, false], // the creator's seat gave its entropy with the table, in the open
        [true, false],
        [false, false],
      ],
    );
    // too early: nobody may learn a value while seats can still join
    const early = await rejection(carol.game(gameId, c.token).revealEntropy());
    assert.deepEqual([early.code, early.reason], ['FAILED_PRECONDITION', 'NotRevealing']);
    assert.ok(carol.owesReveal(gameId, c.token), 'a refused reveal keeps the entropy');

    // carol waits for the deal on her event stream; dave's join makes the seats final
    const mine = carol.game(gameId, c.token);
    const stream = mine.stream();
    const deal = stream.next();
    await until(async () => (await host.table()).seats[1].present, 'carol present');
    const d = await dave.joinTable({ gameId });
    assert.equal(d.seat, 2);
    // dave revealed at once; carol's stream revealed hers (before or after dave's)
    assert.ok(['revealing', 'playing'].includes(d.status), d.status);
    const first = await Promise.race([deal, sleep(10_000).then(() => null)]);
    assert.ok(first && !first.done, 'the deal reached the waiting stream');
    assert.equal(first.value.seq, 0);
    await stream.return();
    assert.equal(carol.owesReveal(gameId, c.token), false);
    assert.equal(dave.owesReveal(gameId, d.token), false);

    const table = await host.table();
    assert.equal(table.status, 'playing');
    assert.deepEqual(
      table.seats.map((s) => s.revealed),
      [false, true, true],
    );
    assert.match(table.seats[2].entropyCommitment, /^[0-9a-f]{64}$/);
    const again = await mine.revealEntropy(); // nothing owed any more: the table
    assert.equal(again.status, 'playing');

    const ended = await host.abort(); // the end line reveals the server's seed
    assert.equal(ended.outcome.termination, 'aborted');
    const log = await mine.log();
    assert.equal(log.complete, true);
    const lines = await assertValid(verifier, log.text, 'the committed Slapjack game');
    assert.deepEqual(
      lines[0].contributions.map((x) => [x.seat, x.commitment ?? null]),
      [
        [0, null],
        [1, table.seats[1].entropyCommitment],
        [2, table.seats[2].entropyCommitment],
      ],
    );
    assert.equal(lines[0].contributions[1].entropy, secret.toString('hex'));
    const verdict = await verifier.run(['game.jsonl'], { 'game.jsonl': log.text });
    const said = "seats 1, 2: each one's entropy matches the commitment it made before the start";
    assert.ok(verdict.stdout.includes(said), verdict.stdout);
    assert.match(verdict.crosschecked[0].checked, /seats 1, 2' entropy against the commitment/);
  } finally {
    carol.close();
    dave.close();
  }
});

test('committed entropy: a wrong reveal is refused, changes nothing; a channel reveals', async () => {
  const created = await alice.createGame(SLAPJACK_OF_THREE);
  const { gameId } = created;
  const host = alice.game(gameId, created.creatorToken);
  const erin = new CardcoreClient(server.target);
  const frank = new CardcoreClient(server.target);
  try {
    const e = await erin.joinTable({ gameId });
    const f = await frank.joinTable({ gameId }); // fills the table: frank reveals his at once
    assert.equal(f.status, 'revealing', "erin's reveal is missing");
    const before = await host.table();
    assert.equal(before.status, 'revealing');
    assert.ok(before.deadlineMs > Date.now(), 'a deadline to reveal by');
    assert.deepEqual(
      before.seats.map((s) => s.revealed),
      [false, false, true],
    );

    // a value that does not hash to erin's commitment: INVALID_ARGUMENT, field entropy
    const held = erin.unrevealed.get(e.token);
    const secret = held.entropy;
    held.entropy = randomBytes(16);
    const wrong = await rejection(erin.game(gameId, e.token).revealEntropy());
    held.entropy = secret;
    assert.equal(wrong.code, 'INVALID_ARGUMENT');
    assert.ok(
      wrong.fieldViolations.some((v) => v.field === 'entropy'),
      JSON.stringify(wrong.fieldViolations),
    );
    assert.ok(erin.owesReveal(gameId, e.token), 'a refused reveal keeps the entropy');
    const unchanged = await host.table(); // the creator's token owes nothing: it only looks
    assert.deepEqual(
      [unchanged.status, unchanged.deadlineMs, unchanged.seats],
      [before.status, before.deadlineMs, before.seats],
      'nothing changed',
    );

    // erin opens her play channel: it sees the table revealing, reveals, and the deal comes
    const session = erin.game(gameId, e.token).play();
    const ready = await session.ready;
    assert.equal(ready.seat, 1);
    const iterator = session[Symbol.asyncIterator]();
    const first = await Promise.race([iterator.next(), sleep(10_000).then(() => null)]);
    assert.ok(first && !first.done, 'the deal reached the play channel');
    assert.equal(first.value.seq, 0);
    session.close();
    assert.equal(erin.owesReveal(gameId, e.token), false);
    const dealt = await host.table();
    assert.equal(dealt.status, 'playing');
    const kept = before.seats.map((s) => s.entropyCommitment); // as they were while revealing
    assert.deepEqual(
      dealt.seats.map((s) => [s.entropyCommitment === kept[s.seat], s.revealed]),
      [
        [true, false],
        [true, true],
        [true, true],
      ],
    );
    await host.abort();
    await assertValid(verifier, (await host.log()).text, "the game erin's channel dealt");
  } finally {
    erin.close();
    frank.close();
  }
});

test('committed entropy: a table cancelled while revealing refuses it (TableCancelled)', async () => {
  const created = await alice.createGame(SLAPJACK_OF_THREE);
  const { gameId } = created;
  const host = alice.game(gameId, created.creatorToken);
  const grace = new CardcoreClient(server.target);
  try {
    const g = await grace.joinTable({ gameId });
    const h = await grace.joinTable({ gameId }); // one client, two seats: it reveals both
    assert.equal(h.status, 'playing', 'the join that filled the table revealed every seat held');
    const late = await alice.createGame(SLAPJACK_OF_THREE);
    const j = await grace.joinTable({ gameId: late.gameId });
    const k = await bob.joinTable({ gameId: late.gameId });
    assert.equal(k.status, 'revealing');
    const cancelled = await alice.game(late.gameId, late.creatorToken).abort();
    assert.equal(cancelled.status, 'cancelled');
    const refused = await rejection(grace.game(late.gameId, j.token).revealEntropy());
    assert.deepEqual([refused.code, refused.reason], ['FAILED_PRECONDITION', 'TableCancelled']);
    const seen = await grace.game(late.gameId, j.token).table();
    assert.equal(seen.status, 'cancelled');
    assert.deepEqual(
      seen.seats.map((s) => [s.entropyCommitment !== '', s.revealed]),
      [
        [false, false],
        [true, false], // whose reveal was missing
        [true, true],
      ],
    );
    assert.equal(grace.owesReveal(late.gameId, j.token), false, 'nothing left to reveal to');
    assert.equal(grace.owesReveal(gameId, g.token), false);
    await host.abort();
  } finally {
    grace.close();
  }
});

test('joinTable: an entropy given is committed too; commit: false gives it openly', async () => {
  const created = await alice.createGame(SLAPJACK_OF_THREE);
  const { gameId } = created;
  const host = alice.game(gameId, created.creatorToken);
  const given = randomBytes(16);
  const open = randomBytes(16).toString('hex');
  const mine = new CardcoreClient(server.target);
  try {
    const a = await mine.joinTable({ gameId, entropy: given });
    assert.equal(
      (await host.table()).seats[a.seat].entropyCommitment,
      entropyCommitment(given).toString('hex'),
    );
    const b = await mine.joinTable({ gameId, entropy: open, commit: false });
    assert.equal(b.status, 'playing', 'the join revealed the seat it committed');
    assert.equal(mine.owesReveal(gameId, b.token), false, 'nothing held for an open contribution');
    await host.abort();
    const [header] = linesOf((await host.log()).text);
    assert.deepEqual(
      header.contributions.slice(1).map((c) => ({ ...c })),
      [
        {
          seat: 1,
          entropy: given.toString('hex'),
          commitment: entropyCommitment(given).toString('hex'),
        },
        { seat: 2, entropy: open },
      ],
    );
    await assert.rejects(mine.joinTable({ gameId, entropy: 'ab' }), TypeError);
  } finally {
    mine.close();
  }
});

test('committed entropy: a play channel opened before the deal waits for it, revealing', async () => {
  const created = await alice.createGame(SLAPJACK_OF_THREE);
  const { gameId } = created;
  const paul = new CardcoreClient(server.target);
  const quinn = new CardcoreClient(server.target);
  try {
    const p = await paul.joinTable({ gameId });
    const session = paul.game(gameId, p.token).play(); // GameNotStarted: it waits
    const entries = session[Symbol.asyncIterator]();
    const first = entries.next();
    await sleep(300);
    assert.equal(session.state, 'open', 'a table still waiting is waited for, not a failure');
    const q = await quinn.joinTable({ gameId });
    assert.ok(['revealing', 'playing'].includes(q.status), q.status);
    const ready = await Promise.race([session.ready, sleep(10_000).then(() => null)]);
    assert.equal(ready?.seat, 1, 'the channel opened once the reveals dealt the game');
    assert.equal((await first).value.seq, 0);
    session.close();
    const table = await alice.game(gameId, created.creatorToken).table();
    assert.deepEqual(
      [table.status, table.seats.map((s) => s.revealed)],
      ['playing', [false, true, true]],
    );
    await alice.game(gameId, created.creatorToken).abort();
  } finally {
    paul.close();
    quinn.close();
  }
});

// ----------------------------------------------- committed entropy: the creator's own seats

test("createGame commits for the creator's seat; with no open seat it reveals, and deals", async () => {
  const created = await alice.createGame({
    game: 'ratscrew',
    seats: ['human', { kind: 'random', botMinDelayMs: 200, botMaxDelayMs: 300 }],
  });
  // CreateGame answered 'revealing' (every seat the creator's or a bot's, seat 0 committed);
  // the client revealed seat 0 at once, which dealt the game
  assert.equal(created.status, 'playing', created.revealError?.message);
  assert.equal(created.revealError, undefined);
  const { gameId } = created;
  const me = alice.game(gameId, created.seatTokens[0]);
  assert.equal(alice.owesReveal(gameId, created.seatTokens[0]), false, 'revealed');
  const table = await me.table();
  assert.equal(table.status, 'playing');
  assert.match(table.seats[0].entropyCommitment, /^[0-9a-f]{64}$/);
  assert.equal(table.seats[0].revealed, true);
  assert.deepEqual([table.seats[1].kind, table.seats[1].entropyCommitment], ['random', '']);
  // the header, read from the log once the reveal dealt (CreateGame had none to give)
  assert.equal(created.header.commitment, created.seedCommitment);

  const left = await me.resign();
  assert.equal(left.outcome.termination, 'resigned');
  const log = await me.log();
  assert.equal(log.complete, true);
  const lines = await assertValid(verifier, log.text, "the creator's committed game");
  assert.deepEqual(created.header, lines[0]);
  assert.deepEqual(
    lines[0].contributions.map((c) => [c.seat, c.commitment]),
    [[0, table.seats[0].entropyCommitment]],
  );
  assert.match(lines[0].contributions[0].entropy, /^[0-9a-f]{32}$/);
  assert.equal(
    entropyCommitment(Buffer.from(lines[0].contributions[0].entropy, 'hex')).toString('hex'),
    table.seats[0].entropyCommitment,
  );
  const verdict = await verifier.run(['game.jsonl'], { 'game.jsonl': log.text });
  const said = "seat 0's entropy matches the commitment it made before the start";
  assert.ok(verdict.stdout.includes(said), verdict.stdout);
});

test('createGame: an entropy given is committed too; commit: false gives it openly', async () => {
  const given = randomBytes(16);
  const open = randomBytes(16).toString('hex');
  const created = await alice.createGame({
    game: 'slapjack',
    seats: [
      { kind: 'human', entropy: given },
      { kind: 'human', entropy: open, commit: false },
      { kind: 'human', entropy: false },
    ],
  });
  assert.equal(created.status, 'playing');
  const host = alice.game(created.gameId, created.creatorToken);
  const table = await host.table();
  assert.deepEqual(
    table.seats.map((s) => [s.entropyCommitment, s.revealed]),
    [
      [entropyCommitment(given).toString('hex'), true],
      ['', false],
      ['', false],
    ],
  );
  await host.abort();
  const [header] = linesOf((await host.log()).text);
  assert.deepEqual(
    header.contributions.map((c) => ({ ...c })),
    [
      {
        seat: 0,
        entropy: given.toString('hex'),
        commitment: entropyCommitment(given).toString('hex'),
      },
      { seat: 1, entropy: open },
    ],
  );
  // every seat in the open: nothing to reveal, dealt at once, as before commitments existed
  const seats = ['human', 'human'];
  const openly = await alice.createGame({ game: 'slapjack', seats, commit: false });
  assert.equal(openly.status, 'playing');
  assert.deepEqual(
    openly.header.contributions.map((c) => [c.seat, c.commitment]),
    [
      [0, undefined],
      [1, undefined],
    ],
  );
  await alice.game(openly.gameId, openly.creatorToken).abort();
  await assert.rejects(
    alice.createGame({ game: 'slapjack', seats: [{ kind: 'human', entropy: 'ab' }, 'human'] }),
    TypeError,
  );
  // a commitment only on a seat the creator holds: the server names the field
  const onBot = await rejection(
    alice.createGame({ game: 'slapjack', seats: ['human', { kind: 'random', entropy: given }] }),
  );
  assert.equal(onBot.code, 'INVALID_ARGUMENT');
  assert.ok(
    onBot.fieldViolations.some((v) => v.field === 'seats[1].entropy_commitment'),
    JSON.stringify(onBot.fieldViolations),
  );
});

test("an open seat: the creator's play channel waits, both seats reveal, the deal comes", async () => {
  const created = await alice.createGame({ game: 'ratscrew', seats: ['human', ANYONE] });
  assert.equal(created.status, 'waiting');
  const { gameId } = created;
  const seat0 = created.seatTokens[0];
  assert.ok(alice.owesReveal(gameId, seat0), 'the entropy is kept until the seats are final');
  const held = alice.unrevealed.get(seat0).entropy;
  const host = alice.game(gameId, created.creatorToken);
  const waiting = await host.table();
  assert.equal(waiting.seats[0].entropyCommitment, entropyCommitment(held).toString('hex'));
  assert.equal(waiting.seats[0].revealed, false);

  const me = alice.game(gameId, seat0);
  const session = me.play(); // GameNotStarted: it waits, revealing once the seats are final
  const ivy = new CardcoreClient(server.target);
  try {
    const entries = session[Symbol.asyncIterator]();
    const first = entries.next();
    await sleep(300);
    assert.equal(session.state, 'open', 'a table still waiting is waited for, not a failure');
    const joined = await ivy.joinTable({ gameId }); // fills it: ivy reveals hers at once
    assert.equal(joined.seat, 1);
    assert.ok(['revealing', 'playing'].includes(joined.status), joined.status);
    const ready = await Promise.race([session.ready, sleep(10_000).then(() => null)]);
    assert.equal(ready?.seat, 0, "the creator's channel opened once the reveals dealt the game");
    assert.equal((await first).value.seq, 0);
    assert.equal(alice.owesReveal(gameId, seat0), false);
    assert.equal(ivy.owesReveal(gameId, joined.token), false);
    const dealt = await host.table();
    assert.deepEqual(
      [dealt.status, dealt.seats.map((s) => [s.entropyCommitment !== '', s.revealed])],
      [
        'playing',
        [
          [true, true],
          [true, true],
        ],
      ],
    );
    const left = await session.act({ kind: 'Resign' });
    assert.equal(left.outcome.termination, 'resigned');
    for (;;) if ((await entries.next()).done) break; // to the end
    assert.equal(session.outcome.termination, 'resigned');
    const log = await me.log();
    const lines = await assertValid(verifier, log.text, 'the game both seats committed to');
    assert.deepEqual(
      lines[0].contributions.map((c) => [c.seat, c.entropy, c.commitment]),
      [
        [0, held.toString('hex'), dealt.seats[0].entropyCommitment],
        [1, lines[0].contributions[1].entropy, dealt.seats[1].entropyCommitment],
      ],
    );
  } finally {
    session.close();
    ivy.close();
  }
});
