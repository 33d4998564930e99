// The play channel from Node (gRPC Play, docs/reference/play-channel.md) against a live
// `cardcore serve`: an act's ack and its entry, a rule's rejection with the error `submit` gives,
// action_ids applied once (on either path), the round trip in the view after a ping, and a call
// dropped (a proxy cuts it, the answer to an act lost with it) or a server restarted on the same
// store: resumed with no gap, no duplicate, every act settled once.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { CardcoreClient, CardcoreError, PlaySession } from '../src/index.js';
import { startProxy } from './proxy.js';
import { startServer } from './server.js';

let server;
let client;

before(async () => {
  server = await startServer('--allow-client-seed', '--collect-window-ms', '0');
  client = new CardcoreClient(server.target);
});

after(async () => {
  client?.close();
  const code = await server?.stop();
  assert.equal(code, 0, 'graceful shutdown');
  assert.ok(!/cct_[A-Za-z0-9_-]{20}/.test(server.logs()), 'no token in the server log');
});

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function until(check, what, ms = 5000) {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) assert.fail(`timed out: ${what}`);
    await sleep(10);
  }
}

async function rejection(promise) {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof CardcoreError, String(err));
    return err;
  }
  assert.fail('the call succeeded');
}

/** Follow a play session's entries to its end: { seqs, entries, done (a promise) }. */
function follow(session) {
  const out = { seqs: [], entries: [] };
  out.done = (async () => {
    for await (const e of session) {
      out.seqs.push(e.seq);
      out.entries.push(e);
    }
  })();
  return out;
}

/** A ratscrew game of two human seats: { created, seats (GameSessions), creator }. */
async function twoHumans(c = client, seed = 7) {
  const created = await c.createGame({ game: 'ratscrew', seats: ['human', 'human'], seed });
  const seats = [0, 1].map((s) => c.game(created.gameId, created.seatTokens[s]));
  return { created, seats, creator: c.game(created.gameId, created.creatorToken) };
}

/** One legal move of whichever seat has one (request–response), as in client.test.js. */
async function moveSomeone(seats) {
  for (const s of seats) {
    const v = await s.view();
    const cmd = v.legalCommands.find((c) => c.kind !== 'Resign');
    if (cmd) return s.submit(cmd);
  }
  assert.fail('nobody has a move');
}

const contiguous = (seqs, from = 0) => assert.deepEqual(seqs, seqs.map((_, i) => from + i));

test('act: the ack, then its entry among the others, in order', async () => {
  const { created, seats } = await twoHumans();
  const session = seats[0].play();
  assert.ok(session instanceof PlaySession);
  const ready = await session.ready;
  assert.equal(ready.gameId, created.gameId);
  assert.equal(ready.seat, 0);
  assert.equal(ready.nextSeq, 1);
  assert.ok(ready.pingIntervalMs > 0);
  const seen = follow(session);
  const ack = await session.act({ kind: 'Play' }, { actionId: 'first-play' });
  assert.deepEqual(ack, { actionId: 'first-play', seq: 1, replayed: false, outcome: null });
  await seats[1].submit({ kind: 'Play' }); // another path, the same log: entry 2
  await until(() => seen.seqs.length === 3, 'entries 0..2');
  assert.deepEqual(seen.seqs, [0, 1, 2]);
  assert.equal(seen.entries[1].seat, 0);
  assert.equal(seen.entries[1].action.kind, 'Play');
  assert.equal(seen.entries[2].seat, 1);
  const legal = (await session.view()).legalCommands.find((c) => c.kind !== 'Resign');
  const generated = await session.act(legal);
  assert.match(generated.actionId, /^[0-9a-f-]{36}$/, 'an action_id made when none is given');
  assert.equal(generated.seq, 3);
  await until(() => seen.seqs.length === 4, 'its entry too'); // an ack may come before it
  session.close(); // the loop ends
  await seen.done;
  assert.deepEqual(seen.seqs, [0, 1, 2, 3]);
  await rejection(session.act({ kind: 'Play' })); // closed
});

test('a rejection is the CardcoreError submit gives: code, reason, detail, fields, metadata', async () => {
  const { seats } = await twoHumans();
  const session = seats[1].play();
  const viaPlay = await rejection(session.act({ kind: 'Play' }));
  const viaSubmit = await rejection(seats[1].submit({ kind: 'Play' }));
  assert.equal(viaPlay.code, 'FAILED_PRECONDITION');
  assert.equal(viaPlay.reason, 'NotYourTurn');
  for (const err of [viaPlay, viaSubmit]) delete err.stack;
  assert.deepEqual(
    { ...viaPlay, message: viaPlay.message },
    { ...viaSubmit, message: viaSubmit.message },
  );

  const malformed = await rejection(session.act({ kind: 'Bogus' }));
  assert.equal(malformed.code, 'INVALID_ARGUMENT');
  assert.equal(malformed.reason, 'Malformed');
  assert.equal(malformed.fieldViolations[0].field, 'command.json.kind');
  const malformedUnary = await rejection(seats[1].submit({ kind: 'Bogus' }));
  assert.deepEqual(malformed.fieldViolations, malformedUnary.fieldViolations);
  assert.equal(malformed.message, malformedUnary.message);

  const badId = await rejection(session.act({ kind: 'Play' }, { actionId: 'tab\there' }));
  assert.equal(badId.code, 'INVALID_ARGUMENT');
  assert.equal(badId.fieldViolations[0].field, 'action_id');
  session.close();
});

test('an action_id is applied once, on the channel and across paths', async () => {
  const { seats } = await twoHumans();
  const session = seats[0].play();
  const first = await session.act({ kind: 'Play' }, { actionId: 'node-play-1' });
  const again = await session.act({ kind: 'Play' }, { actionId: 'node-play-1' });
  assert.equal(first.replayed, false);
  assert.equal(again.replayed, true);
  assert.equal(again.seq, first.seq);
  const unary = await seats[0].submit({ kind: 'Play' }, { actionId: 'node-play-1' });
  assert.equal(unary.replayed, true);
  assert.equal(unary.entry.seq, first.seq);
  const reused = await rejection(session.act({ kind: 'Slap' }, { actionId: 'node-play-1' }));
  assert.equal(reused.code, 'INVALID_ARGUMENT');
  assert.equal(reused.fieldViolations[0]?.field, 'action_id');
  assert.equal((await session.view()).seq, 2, 'one entry made');
  session.close();
});

test('the view carries the round trip once a ping was answered', async () => {
  const { seats } = await twoHumans();
  const session = seats[0].play();
  await session.ready;
  await until(() => session.pings >= 1, 'a ping', 2500);
  const v = await session.view();
  assert.equal(v.seat, 0);
  assert.equal(v.seq, 1);
  assert.ok(v.legalCommands.some((c) => c.kind === 'Play'));
  assert.equal(typeof v.rttMs, 'number', `rttMs: ${v.rttMs}`);
  assert.ok(v.rttMs >= 0 && v.rttMs < 1000, String(v.rttMs));
  session.close();
});

test('a refused call fails the session; a signal closes it', async () => {
  const { created, seats } = await twoHumans();
  const stranger = client.game(created.gameId, 'cct_not-a-token').play();
  const refused = await rejection(stranger.ready);
  assert.equal(refused.code, 'UNAUTHENTICATED');
  assert.equal(refused.reason, 'InvalidToken');
  await assert.rejects(follow(stranger).done, (err) => err === refused, 'the loop throws it');
  assert.equal(await rejection(stranger.act({ kind: 'Play' })), refused);
  assert.equal(stranger.reopened, 0, 'not retried');

  const controller = new AbortController();
  const session = seats[0].play({ signal: controller.signal });
  const seen = follow(session);
  await until(() => seen.seqs.length === 1, 'the deal');
  const view = session.view();
  controller.abort();
  await seen.done; // the loop ends
  assert.equal((await rejection(view)).code, 'CANCELLED');
  assert.equal((await rejection(session.act({ kind: 'Play' }))).code, 'CANCELLED');
});

test('the game ends the loop: outcome and end line; acts after it get the unary answer', async () => {
  const { created, seats, creator } = await twoHumans(client, 11);
  const session = seats[0].play();
  const seen = follow(session);
  await session.act({ kind: 'Play' });
  await creator.abort();
  await seen.done;
  contiguous(seen.seqs);
  assert.equal(session.outcome.termination, 'aborted');
  assert.equal(Number(session.end.seed), 11, 'the end line reveals the seed');
  assert.match(session.endJson, /^\{"/);
  const late = await rejection(session.act({ kind: 'Play' }));
  assert.equal(late.code, 'FAILED_PRECONDITION', late.message);
  assert.equal((await seats[0].log()).complete, true, created.gameId);
});

test('a dropped call resumes: no gap, no duplicate, the lost answer given once', async () => {
  const proxy = await startProxy(server.target);
  const far = new CardcoreClient(proxy.target);
  try {
    const { created, seats } = await twoHumans();
    const session = far.game(created.gameId, created.seatTokens[0]).play();
    const seen = follow(session);
    await session.ready;
    await until(() => seen.seqs.length === 1, 'the deal');

    proxy.hold(); // the server's answers are lost from here on ...
    const lost = session.act({ kind: 'Play' }, { actionId: 'lost-answer' });
    await until(async () => (await seats[0].view()).seq === 2, 'the act applied');
    const view = session.view(); // ... and this request's answer too
    proxy.drop(); // the call ends UNAVAILABLE
    await moveSomeone(seats); // entry 2, made while the channel is down
    await moveSomeone(seats); // entry 3

    const ack = await lost;
    assert.equal(ack.seq, 1);
    assert.equal(ack.replayed, true, 'sent again with its action_id: the first answer');
    assert.equal((await view).seat, 0);
    assert.ok(session.reopened >= 1);
    assert.ok(proxy.connections() >= 2);

    proxy.drop(); // a second drop, with nothing in flight
    await moveSomeone(seats); // entry 4
    const next = await session.act(
      (await session.view()).legalCommands.find((c) => c.kind !== 'Resign') ?? { kind: 'Slap' },
    ).catch((e) => e);
    await client.abortGame(created.gameId, created.creatorToken);
    await seen.done;
    contiguous(seen.seqs);
    const last = next instanceof CardcoreError ? 4 : next.seq;
    assert.ok(seen.seqs.at(-1) >= last);
    assert.equal(seen.entries[1].action.kind, 'Play');
    assert.equal(session.outcome.termination, 'aborted');
  } finally {
    far.close();
    await proxy.close();
  }
});

test('a server restarted on the same store: the session resumes on it', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'cardcore-play-'));
  const db = path.join(dir, 'db');
  const args = ['--db', db, '--grace', '1', '--collect-window-ms', '0'];
  let first = await startServer(...args);
  let second = null;
  const proxy = await startProxy(first.target);
  const near = new CardcoreClient(first.target);
  const far = new CardcoreClient(proxy.target);
  try {
    const { created, seats } = await twoHumans(near, null);
    const session = far.game(created.gameId, created.seatTokens[0]).play({ reconnects: 10 });
    const seen = follow(session);
    assert.equal((await session.act({ kind: 'Play' })).seq, 1);
    await moveSomeone(seats); // entry 2
    await until(() => seen.seqs.length === 3, 'entries 0..2');

    assert.equal(await first.stop(), 0, 'the first server stops gracefully');
    first = null;
    near.close();
    second = await startServer(...args);
    proxy.retarget(second.target);
    const again = new CardcoreClient(second.target);
    try {
      const players = [0, 1].map((s) => again.game(created.gameId, created.seatTokens[s]));
      await moveSomeone(players); // entry 3, on the new server
      await until(() => seen.seqs.length === 4, 'entry 3 through the resumed session', 10_000);
      const v = await session.view();
      assert.equal(v.seq, 4);
      await again.abortGame(created.gameId, created.creatorToken);
      await seen.done;
    } finally {
      again.close();
    }
    contiguous(seen.seqs);
    assert.equal(session.outcome.termination, 'aborted');
    assert.ok(session.reopened >= 1);
  } finally {
    far.close();
    near.close();
    await proxy.close();
    await first?.stop();
    await second?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
