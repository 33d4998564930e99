'use strict';
// cardcore's play channel over WebSocket (docs/reference/play-channel.md), driven from the
// node `ws` client: the overlay of benchmarks/servers (the cardcore repo) onto the shared
// servers harness. node_worker.js requires this module with its own helpers, so the workload
// is the other cardcore rows' to the letter: ratscrew games of seeds.json made (here: with
// their channels opened and the deal received) before the clock starts, one client holding
// both seats' tokens and acting for the seat whose turn the entries say, an action_id on every
// act, the next pre-created game taking over when one ends.
//
// One channel per seat (and per spectator), each its own WebSocket connection; every one of
// them answers the server's pings (one at open, then every second) at once, idle ones too.
// A move counts as done for its mover when the act's `ack` and the move's `entry` have both
// reached the mover's channel (the server writes the two together); `ack` is reported beside.

const WebSocket = require('ws');

module.exports = function ccWs(h) {
  const { now, deferred, withTimeout, httpJson, makePool, movesNeeded, nextTurn, PLAY } = h;
  const http = require('node:http');

  // One play channel: `until(seq)` resolves with {at, entry} once the entry `seq` arrived;
  // `answer(actionId)` with {at, ack} once the act's ack arrived. One wait of each at a time.
  function channel(port, gameId, token) {
    const url = `ws://127.0.0.1:${port}/v1/games/${gameId}/play`;
    const ws = new WebSocket(url, { perMessageDeflate: false });
    const c = { ws, seen: -1, want: -1, wantD: null, acks: new Map(), over: false, failed: null };
    const ready = deferred();
    const fail = (err) => {
      if (c.failed) return;
      c.failed = err;
      ready.reject(err);
      if (c.wantD) c.wantD.reject(err);
      for (const d of c.acks.values()) d.reject(err);
      c.acks.clear();
    };
    ws.on('open', () => ws.send(JSON.stringify({ type: 'auth', token, from_seq: 0 })));
    ws.on('message', (data) => {
      const f = JSON.parse(data.toString());
      switch (f.type) {
        case 'ping': // at once (the nonce is below 2^53: exact as a Number)
          ws.send(`{"type":"pong","nonce":${f.nonce}}`);
          break;
        case 'entry': {
          const e = f.entry;
          if (e.seq !== c.seen + 1) fail(new Error(`play channel: entry ${e.seq} after ${c.seen}`));
          c.seen = e.seq;
          if (c.wantD && e.seq >= c.want) {
            const d = c.wantD;
            c.wantD = null;
            d.resolve({ at: now(), entry: e });
          }
          break;
        }
        case 'ack':
        case 'rejected': { // the act's answer, either way
          const d = c.acks.get(f.action_id);
          if (!d) break;
          c.acks.delete(f.action_id);
          if (f.type === 'ack') d.resolve({ at: now(), ack: f });
          else d.reject(new Error(`play channel: act ${f.action_id} rejected: ${JSON.stringify(f.problem)}`));
          break;
        }
        case 'ready':
          c.seat = f.seat;
          ready.resolve(f);
          break;
        case 'end':
          c.over = true;
          break;
        default:
          fail(new Error(`play channel: unexpected frame ${f.type}`));
      }
    });
    ws.on('close', (code, reason) => {
      if (!(code === 1000 && c.over)) fail(new Error(`play channel closed ${code} ${reason}`));
    });
    ws.on('error', (err) => fail(err));
    c.until = (seq) => {
      if (c.failed) return Promise.reject(c.failed);
      if (c.seen >= seq) return Promise.resolve({ at: now(), entry: null });
      c.want = seq;
      c.wantD = deferred();
      return c.wantD.promise;
    };
    c.answer = (actionId) => {
      if (c.failed) return Promise.reject(c.failed);
      const d = deferred();
      c.acks.set(actionId, d);
      return d.promise;
    };
    c.ready = withTimeout(ready.promise, 10000, 'play channel ready');
    c.close = () => {
      c.over = true; // our own close is no failure
      if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.terminate();
    };
    return c;
  }

  // A game made over REST (untimed), its seats' channels (and `spectators` more, with the
  // spectator token) open and past the deal (seq 0).
  function creator(cmd, agent, spectators) {
    return async (seed) => {
      const g = await httpJson(agent, cmd.port, 'POST', '/v1/games', {
        game: 'ratscrew',
        seats: [{ kind: 'human' }, { kind: 'human' }],
        rules: h.SEEDS.rules,
        seed,
      });
      const token = (s) => g.seat_tokens.find((t) => t.seat === s).token;
      const seats = [0, 1].map((s) => channel(cmd.port, g.game_id, token(s)));
      const watchers = [];
      for (let i = 0; i < spectators; i++) watchers.push(channel(cmd.port, g.game_id, g.spectator_token));
      const all = [...seats, ...watchers];
      await Promise.all(all.map((c) => c.ready));
      await withTimeout(Promise.all(all.map((c) => c.until(0))), 10000, 'play channel deal');
      return { id: g.game_id, seats, watchers, all, turn: 0, command: PLAY, next: 1 };
    };
  }

  function actFrame(g, actionId) {
    const kind = g.command === PLAY ? 'Play' : 'Collect';
    return `{"type":"act","command":{"kind":"${kind}"},"action_id":"${actionId}"}`;
  }

  // Sequential and x8: `clients` clients, each with its own pool of games and channels.

  // The pre-created games of one client (and every game it made, to close them at the end).
  async function gamePool(cmd, agent, spectators, firstSeed) {
    const games = [];
    const create = creator(cmd, agent, spectators);
    const pool = makePool(async (seed) => {
      const g = await create(seed);
      games.push(g);
      return g;
    }, movesNeeded(cmd), firstSeed);
    await pool.prepare();
    return { pool, games };
  }
  async function ccWsSteps(cmd, clients) {
    const steps = [];
    for (let i = 0; i < clients; i++) {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const { pool, games } = await gamePool(cmd, agent, 0, 17 * i);
      let k = 0;
      const step = async () => {
        const g = pool.game;
        k += 1;
        const actionId = `a${k}`;
        const mover = g.seats[g.turn];
        const seq = g.next;
        const both = Promise.all([mover.answer(actionId), mover.until(seq)]);
        mover.ws.send(actFrame(g, actionId));
        const [a, e] = await withTimeout(both, 10000, `play channel act ${actionId}`);
        if (a.ack.seq !== seq || !e.entry) throw new Error(`play channel: ack ${a.ack.seq}, expected ${seq}`);
        g.next = seq + 1;
        const at = Math.max(a.at, e.at);
        if (a.ack.outcome) return { at, ack: a.at, after: pool.next };
        nextTurn(g, e.entry.events);
        return { at, ack: a.at };
      };
      const close = async () => {
        for (const g of games) for (const c of g.all) c.close();
        agent.destroy();
      };
      steps.push({ step, close });
    }
    return steps;
  }

  // Fan-out: one actor (both seats' channels) and `spectators` spectator channels per game; a
  // move is seen when every spectator has its entry; the next move goes once the ack, the
  // mover's entry and all the spectators' copies have arrived.
  async function ccWsFanSteps(cmd, spectators) {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const { pool, games } = await gamePool(cmd, agent, spectators, 5);
    let k = 0;
    const step = async () => {
      const g = pool.game;
      k += 1;
      const actionId = `a${k}`;
      const mover = g.seats[g.turn];
      const seq = g.next;
      const mine = Promise.all([mover.answer(actionId), mover.until(seq)]);
      const seen = Promise.all(g.watchers.map((w) => w.until(seq)));
      mover.ws.send(actFrame(g, actionId));
      const [[a, e], copies] = await withTimeout(Promise.all([mine, seen]), 10000, `play channel fan-out ${actionId}`);
      if (a.ack.seq !== seq || !e.entry) throw new Error(`play channel: ack ${a.ack.seq}, expected ${seq}`);
      g.next = seq + 1;
      const at = Math.max(...copies.map((c) => c.at));
      if (a.ack.outcome) return { at, ack: a.at, after: pool.next };
      nextTurn(g, e.entry.events);
      return { at, ack: a.at };
    };
    const close = async () => {
      for (const g of games) for (const c of g.all) c.close();
      agent.destroy();
    };
    return [{ step, close }];
  }

  return {
    cc_ws: (cmd, clients, spectators) => (cmd.mode === 'fan' ? ccWsFanSteps(cmd, spectators) : ccWsSteps(cmd, clients)),
  };
};
