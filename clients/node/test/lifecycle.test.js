// The lifecycle from Node against a live `cardcore serve`: a Spit table with an invite seat that
// a second client joins, both streaming (one of them from before the deal), a few plays, one
// leaves (Resign; the host's "by" refused) and the log verifies in Node; the creator starts with
// bots and aborts; the listing, spectators, a client's own games, twenty racing joins, and the
// admin key cancelling a table. Refusals carry the same reasons as every other error.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { CardcoreClient, CardcoreError } from '../src/client.js';
import { createVerifier } from '../src/verify.js';
import { assertValid } from './logs.js';
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
  assert.deepEqual([seat.gameId, seat.seat, seat.status], [gameId, 1, 'playing']);
  const used = await rejection(bob.joinTable({ invite: created.invites[1] }));
  assert.equal(used.reason, 'InviteUsed');
  assert.equal(used.code, 'FAILED_PRECONDITION');
  const unknown = await rejection(bob.joinTable({ invite: 'cci_nope' }));
  assert.deepEqual([unknown.code, unknown.reason], ['NOT_FOUND', 'InvalidInvite']);

  const him = bob.game(gameId, seat.token);
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
  assert.equal(started.status, 'playing');
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
  const created = await alice.createGame({ game: 'ratscrew', seats: ['human', ANYONE, ANYONE] });
  await bob.joinTable({ gameId: created.gameId });
  const racers = Array.from({ length: 20 }, () => new CardcoreClient(server.target));
  try {
    const answers = await Promise.allSettled(
      racers.map((c) => c.joinTable({ gameId: created.gameId })),
    );
    const winners = answers.filter((a) => a.status === 'fulfilled');
    assert.equal(winners.length, 1);
    assert.equal(winners[0].value.status, 'playing');
    for (const a of answers) {
      if (a.status === 'rejected') {
        assert.ok(['TableFull', 'GameStarted'].includes(a.reason.reason), a.reason.message);
      }
    }
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
