// The Node client against a live `cardcore serve` (ephemeral loopback ports): catalogue, create
// with bot seats, submit with a token (idempotent retries), rich error details, streaming with
// cancel and resume, and the final log verified in Node (cardcore's verifier under Pyodide).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { CardcoreClient, CardcoreError } from '../src/client.js';
import { createVerifier } from '../src/verify.js';
import { assertValid } from './logs.js';
import { REPO, startServer } from './server.js';

let server;
let client;
let verifier;

before(async () => {
  [server, verifier] = await Promise.all([
    startServer('--allow-client-seed', '--collect-window-ms', '0'),
    createVerifier(),
  ]);
  client = new CardcoreClient(server.target);
});

after(async () => {
  client?.close();
  const code = await server?.stop();
  assert.equal(code, 0, 'graceful shutdown');
  assert.ok(!/cct_[A-Za-z0-9_-]{20}/.test(server.logs()), 'no token in the server log');
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

async function playAll(session, limit = 20) {
  let done = 0;
  while (done < limit) {
    const v = await session.view();
    if (v.outcome || v.legalCommands.length === 0) return done;
    await session.submit(v.legalCommands[0]);
    done++;
  }
  return done;
}

test('lists the games with their schemas', async () => {
  const games = await client.listGames();
  const names = games.map((g) => g.name);
  for (const name of ['ratscrew', 'slapjack']) assert.ok(names.includes(name), names.join());
  const ers = games.find((g) => g.name === 'ratscrew');
  assert.ok(ers.aliases.includes('ers'));
  assert.ok(ers.flags.some((f) => f.name === 'slap_rules'));
  assert.equal(typeof ers.commandSchema, 'object');
});

test('plays a game with bot seats to the end and verifies the log it just played', async () => {
  const created = await client.createGame({
    game: 'ratscrew',
    seats: ['human', { kind: 'reaction', botMinDelayMs: 1, botMaxDelayMs: 5 }],
    seed: 18446744073709551557n, // beyond 2^53: BigInt all the way
    eventLimit: 300,
  });
  assert.deepEqual(Object.keys(created.seatTokens), ['0']);
  assert.equal(created.header.commitment, created.seedCommitment);
  // a chosen seed deals alone (log format 1): no seat contributes, nothing to reveal
  assert.equal(created.status, 'playing');
  assert.equal(created.header.contributions, undefined);
  assert.equal(client.owesReveal(created.gameId, created.seatTokens[0]), false);
  const me = client.game(created.gameId, created.seatTokens[0]);
  let outcome = null;
  const seen = [];
  const follower = (async () => {
    for await (const entry of me.stream({ fromSeq: 0, onOutcome: (o) => (outcome = o) })) {
      seen.push(entry.seq);
    }
  })();
  for (let turns = 0; turns < 2000; turns++) {
    const v = await me.view();
    if (v.outcome) break;
    if (v.legalCommands.length === 0) {
      await new Promise((r) => setTimeout(r, 2));
      continue;
    }
    try {
      await me.submit(v.legalCommands[0]);
    } catch (err) {
      assert.equal(err.code, 'FAILED_PRECONDITION', err.message); // lost a race to the bot
    }
  }
  await follower;
  assert.ok(outcome, 'the stream ends with the outcome');
  assert.deepEqual(seen, [...seen.keys()], 'no gap, no duplicate');
  const log = await me.log();
  assert.equal(log.complete, true);
  const lines = await assertValid(verifier, log.text, 'the game');
  assert.equal(lines.at(-1).seed, 18446744073709551557n, 'the seed given, revealed');
  assert.equal(lines.length - 2, seen.length, 'every entry streamed');
});

test('bot-only games of every registered game verify in Node', async () => {
  const games = await client.listGames();
  for (const g of games) {
    const created = await client.createGame({
      game: g.name,
      seats: Array.from({ length: Math.max(2, g.minSeats) }, () => ({
        kind: 'random',
        botMinDelayMs: 1,
      })),
      eventLimit: 200,
    });
    const watcher = client.game(created.gameId, created.spectatorToken);
    let count = 0;
    for await (const _ of watcher.stream()) count++;
    const log = await watcher.log();
    assert.equal(log.complete, true, g.name);
    const lines = await assertValid(verifier, log.text, g.name);
    assert.equal(lines.length - 2, count, g.name);
  }
});

test('reads ErrorInfo and BadRequest details from rejections', async () => {
  const created = await client.createGame({ game: 'ratscrew', seats: ['human', 'human'] });
  const seat1 = client.game(created.gameId, created.seatTokens[1]);
  const notYours = await rejection(seat1.submit({ kind: 'Play' }));
  assert.equal(notYours.code, 'FAILED_PRECONDITION');
  assert.equal(notYours.reason, 'NotYourTurn');
  assert.equal(notYours.domain, 'cardcore');
  assert.equal(notYours.metadata.game_id, created.gameId);
  assert.equal(notYours.metadata.next_seq, '1');

  const malformed = await rejection(seat1.submit({ kind: 'Bogus' }));
  assert.equal(malformed.code, 'INVALID_ARGUMENT');
  assert.equal(malformed.reason, 'Malformed');
  assert.equal(malformed.fieldViolations[0].field, 'command.json.kind');

  const badRules = await rejection(
    client.createGame({ game: 'ratscrew', seats: ['human', 'human'], rules: { num_decks: 99 } }),
  );
  assert.equal(badRules.code, 'INVALID_ARGUMENT');
  assert.match(badRules.fieldViolations[0].field, /^rules_json\.num_decks/);

  const stranger = client.game(created.gameId, 'cct_not-a-token');
  const unauth = await rejection(stranger.view());
  assert.equal(unauth.code, 'UNAUTHENTICATED');
  assert.equal(unauth.reason, 'InvalidToken');

  const spectator = client.game(created.gameId, created.spectatorToken);
  const denied = await rejection(spectator.submit({ kind: 'Play' }));
  assert.equal(denied.code, 'PERMISSION_DENIED');
  assert.equal(denied.reason, 'SpectatorCannotAct');
});

test('an action_id is applied once', async () => {
  const created = await client.createGame({ game: 'ratscrew', seats: ['human', 'human'] });
  const seat0 = client.game(created.gameId, created.seatTokens[0]);
  const first = await seat0.submit({ kind: 'Play' }, { actionId: 'node-1' });
  const again = await seat0.submit({ kind: 'Play' }, { actionId: 'node-1' });
  assert.equal(first.replayed, false);
  assert.equal(again.replayed, true);
  assert.deepEqual(again.entry, first.entry);
  assert.equal((await seat0.view()).seq, 2);
});

test('streams, cancels and resumes from a seq with no gap or duplicate', async () => {
  const created = await client.createGame({ game: 'ratscrew', seats: ['human', 'human'], seed: 5 });
  const seats = [0, 1].map((s) => client.game(created.gameId, created.seatTokens[s]));
  const play = async (n) => {
    let done = 0;
    while (done < n) for (const s of seats) if (done < n) done += await playAll(s, 1);
  };
  await play(6); // entries 0..6
  const first = [];
  for await (const e of seats[0].stream({ fromSeq: 0 })) {
    first.push(e.seq);
    if (first.length === 4) break; // cancels the call
  }
  await play(5); // entries 7..11 while nobody listens
  const rest = [];
  const controller = new AbortController();
  for await (const e of seats[0].stream({ fromSeq: first.at(-1) + 1, signal: controller.signal })) {
    rest.push(e.seq);
    if (e.seq === 11) controller.abort();
  }
  assert.deepEqual([...first, ...rest], [...Array(12).keys()]);
});

test('the buf curl smoke script talks to the server through reflection', () => {
  const script = path.join(REPO, 'clients/node/scripts/buf-curl-smoke.sh');
  const out = execFileSync(script, [server.target], { encoding: 'utf8', timeout: 60_000 });
  assert.match(out, /cardcore\.v1\.GameService/);
  assert.match(out, /accepted seq: 1/);
  assert.match(out, /smoke OK/);
});
