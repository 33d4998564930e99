// A small Node client of the cardcore gRPC service (proto/cardcore/v1/game_service.proto).
//
//   const client = new CardcoreClient('127.0.0.1:50051');
//   const game = await client.createGame({ game: 'ratscrew', seats: ['human', 'reaction'] });
//   const me = client.game(game.gameId, game.seatTokens[0]);
//   await me.submit({ kind: 'Play' });
//   for await (const entry of me.stream({ fromSeq: 0 })) console.log(entry.seq, entry.events);
//
// Tables people join (the lifecycle):
//
//   const seats = ['human', { kind: 'human', open: 'invite' }];
//   const t = await client.createGame({ game: 'spit', seats }); // t.status === 'waiting'
//   // t.invites[1] is the code a link carries to the second player
//   const seat = await other.joinTable({ invite: t.invites[1] }); // {gameId, seat, token, status}
//   // each seat (the creator's too) committed to its entropy (docs/rng.md, "Committed entropy");
//   // each client reveals its own by itself once the table is 'revealing' (its seats final):
//   // the creator's seat while its stream() or play() waits for the deal, or its table()
//   await client.game(t.gameId, t.creatorToken).start({ fillWith: 'random' }); // or .abort()
//   await other.game(seat.gameId, seat.token).resign();
//
// Commands, events and views are plain objects (the game's JSON, `kind` included); they travel as
// canonical JSON. Errors are CardcoreError: `code` (the gRPC status name), `reason` (the
// ErrorInfo reason: a game's RejectCode or a service reason), `metadata`, `fieldViolations`
// (BadRequest). `submit` retries UNAVAILABLE with the same action_id; `stream` resumes after a
// dropped connection from the entry after the last one it yielded.
//
// A player's one connection (gRPC Play, docs/reference/play-channel.md): acts, entries, views
// and the server's round-trip pings on one call, resumed after a drop:
//
//   const session = me.play({ fromSeq: 0 });
//   await session.act({ kind: 'Play' }); // { actionId, seq, replayed, outcome }
//   (await session.view()).rttMs; // the round trip the server measures
//   for await (const entry of session) console.log(entry.seq); // until the game ends

import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import grpc from '@grpc/grpc-js';
import protoLoader from '@grpc/proto-loader';
import protobuf from 'protobufjs';

import { canonical, parseJson } from './json.js';
import { ENTROPY_BYTES, entropyCommitment } from './rng.js';

export { ENTROPY_BYTES, entropyCommitment };

const here = path.dirname(fileURLToPath(import.meta.url));
export const PROTO_ROOT = path.resolve(here, '../../../proto');
const GOOGLE_RPC = path.resolve(here, '../proto/google/rpc/status.proto');

const definition = protoLoader.loadSync('cardcore/v1/game_service.proto', {
  includeDirs: [PROTO_ROOT],
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  arrays: true,
  oneofs: true,
});
const cardcore = grpc.loadPackageDefinition(definition).cardcore.v1;
const rpcRoot = new protobuf.Root().loadSync(GOOGLE_RPC, { keepCase: true });
const Status = rpcRoot.lookupType('google.rpc.Status');
const ErrorInfo = rpcRoot.lookupType('google.rpc.ErrorInfo');
const BadRequest = rpcRoot.lookupType('google.rpc.BadRequest');

const SEAT_KINDS = {
  human: 'SEAT_KIND_HUMAN',
  random: 'SEAT_KIND_RANDOM_BOT',
  reaction: 'SEAT_KIND_REACTION_BOT',
};
const KIND_NAMES = {
  SEAT_KIND_UNSPECIFIED: 'human',
  SEAT_KIND_HUMAN: 'human',
  SEAT_KIND_RANDOM_BOT: 'random',
  SEAT_KIND_REACTION_BOT: 'reaction',
};
const SEAT_OPENS = {
  '': 'SEAT_OPEN_UNSPECIFIED',
  invite: 'SEAT_OPEN_INVITE',
  anyone: 'SEAT_OPEN_ANYONE',
};
const OPEN_NAMES = Object.fromEntries(Object.entries(SEAT_OPENS).map(([k, v]) => [v, k]));
const RETRYABLE = new Set([grpc.status.UNAVAILABLE]);
/** How often a seat holding entropy to reveal looks whether its table's start is final (ms). */
export const REVEAL_POLL_MS = 100;
const POLL_RETRYABLE = new Set([grpc.status.UNAVAILABLE, grpc.status.DEADLINE_EXCEEDED]);
/** How often a play channel opened on a table not dealt yet asks again (ms). */
const DEAL_POLL_MS = 500;

/** A seat's contribution to the deal as the wire carries it: `entropy` given (a Buffer or
 *  Uint8Array of 16 bytes, or 32 hex digits), drawn from node:crypto when `contribute`, or none. */
function entropyOf(entropy, contribute) {
  if (entropy === undefined || entropy === null) {
    return contribute ? randomBytes(ENTROPY_BYTES) : Buffer.alloc(0);
  }
  if (entropy === false) return Buffer.alloc(0);
  if (typeof entropy === 'string' && !/^[0-9a-fA-F]{32}$/.test(entropy)) {
    throw new TypeError(`entropy as text is ${2 * ENTROPY_BYTES} hex digits`);
  }
  const bytes = typeof entropy === 'string' ? Buffer.from(entropy, 'hex') : Buffer.from(entropy);
  if (bytes.length !== ENTROPY_BYTES) {
    throw new TypeError(`entropy is ${ENTROPY_BYTES} bytes (got ${bytes.length})`);
  }
  return bytes;
}

/** A refused call, with the rich error details the server sent. */
export class CardcoreError extends Error {
  constructor(err) {
    super(err.details || err.message);
    this.name = 'CardcoreError';
    this.grpcCode = err.code;
    this.code = grpc.status[err.code] ?? String(err.code);
    this.reason = '';
    this.domain = '';
    this.metadata = {};
    this.fieldViolations = [];
    const raw = err.metadata?.get?.('grpc-status-details-bin')?.[0];
    if (raw) this.readDetails(raw);
  }

  /**
   * The error a Play call's `rejected` carries (a PlayProblem): the same `code` (the gRPC status
   * name), `reason`, message, `metadata` and `fieldViolations` as the unary call would give.
   */
  static fromProblem(problem) {
    const status = problem.status || 'UNKNOWN';
    const grpcCode = grpc.status[status] ?? grpc.status.UNKNOWN;
    const err = new CardcoreError({ code: grpcCode, details: problem.detail });
    err.code = status;
    err.reason = problem.code;
    err.domain = 'cardcore';
    err.metadata = { ...problem.metadata };
    err.fieldViolations = (problem.errors ?? []).map((v) => ({
      field: v.field,
      description: v.description,
    }));
    return err;
  }

  readDetails(raw) {
    try {
      const status = Status.decode(raw);
      for (const any of status.details) {
        if (any.type_url.endsWith('/google.rpc.ErrorInfo')) {
          const info = ErrorInfo.decode(any.value);
          this.reason = info.reason;
          this.domain = info.domain;
          this.metadata = { ...info.metadata };
        } else if (any.type_url.endsWith('/google.rpc.BadRequest')) {
          this.fieldViolations = BadRequest.decode(any.value).field_violations.map((v) => ({
            field: v.field,
            description: v.description,
          }));
        }
      }
    } catch {
      // undecodable details: the code and message above still say what happened
    }
  }
}

const value = (v) => parseJson(v.json);
const toValue = (obj) => ({ kind: String(obj.kind ?? ''), json: canonical(obj) });

function outcomeOf(o) {
  if (!o) return null;
  return {
    termination: o.termination,
    winners: o.winners.map(Number),
    losers: o.losers.map(Number),
    scores: o.scores.map(Number),
  };
}

/** A GetViewResponse (GetView's answer, or a Play call's view) as a plain object. */
function viewOf(r) {
  return {
    seq: Number(r.seq),
    view: value(r.view),
    legalCommands: r.legal_commands.map(value),
    outcome: outcomeOf(r.outcome),
    seat: r.seat === undefined || r.seat === null ? null : Number(r.seat),
    presentSeats: r.present_seats.map(Number),
    headHash: r.head_hash ?? '',
    // the seat's round trip as the server measures it on its play channels; null without one
    rttMs: r.rtt_ms === undefined || r.rtt_ms === null ? null : Number(r.rtt_ms),
    // race_policy "compensated": each seat's credit now, { seat: ms }; {} otherwise
    raceDelaysMs: Object.fromEntries(
      Object.entries(r.race_delays_ms ?? {}).map(([seat, ms]) => [Number(seat), Number(ms)]),
    ),
  };
}

function entryOf(e) {
  return {
    seq: Number(e.seq),
    atMs: Number(e.at_ms),
    seat: e.seat === undefined || e.seat === null ? null : Number(e.seat),
    action: value(e.action),
    events: e.events.map(value),
    hash: e.hash,
    prev: e.prev,
    race: e.race_json || '', // a game under race_policy "compensated": the race record's JSON
  };
}

/**
 * The entry as a line of a receipts file (JSON Lines, what `cardcore verify --receipts MINE
 * FINAL` reads): the log entry exactly as this viewer was shown it, hash and prev included. The
 * action and events are the server's canonical JSON texts, copied byte for byte.
 */
function receiptLine(e) {
  const seat = e.seat === undefined || e.seat === null ? 'null' : String(Number(e.seat));
  const events = e.events.map((v) => v.json).join(',');
  return (
    `{"type":"entry","seq":${Number(e.seq)},"at_ms":${Number(e.at_ms)},"seat":${seat},` +
    `"action":${e.action.json},"events":[${events}],"prev":${JSON.stringify(e.prev)},` +
    `"hash":${JSON.stringify(e.hash)}${e.race ? `,"race":${e.race}` : ''}}\n`
  );
}

/** A table (GetTable, StartTable, AbortGame, ListTables, ListMyGames) as a plain object. */
function tableOf(t) {
  return {
    gameId: t.game_id,
    game: t.game,
    // 'waiting' | 'revealing' (the seats are final; committed seats are revealing their
    // entropy: the last reveal deals) | 'playing' | 'finished' | 'cancelled'
    status: t.status,
    seats: t.seats.map((s) => ({
      seat: Number(s.seat),
      kind: KIND_NAMES[s.kind] ?? 'human',
      open: OPEN_NAMES[s.open] ?? '',
      taken: s.taken,
      present: s.present,
      // the commitment to its entropy the seat joined with (64 hex digits; '' = none), and
      // whether it has revealed that entropy (docs/rng.md, "Committed entropy")
      entropyCommitment: s.entropy_commitment ?? '',
      revealed: Boolean(s.revealed),
    })),
    createdMs: Number(t.created_ms),
    deadlineMs: Number(t.deadline_ms),
    public: t.public,
    seedCommitment: t.seed_commitment,
    rules: t.rules_json ? parseJson(t.rules_json) : {},
    outcome: outcomeOf(t.outcome),
    seq: Number(t.seq),
  };
}

function bearer(token) {
  const md = new grpc.Metadata();
  if (token) md.set('authorization', `Bearer ${token}`);
  return md;
}

function unary(stub, method, request, metadata, options = {}) {
  return new Promise((resolve, reject) => {
    stub[method](request, metadata, options, (err, response) =>
      err ? reject(new CardcoreError(err)) : resolve(response),
    );
  });
}

/** Catalogue and creation; `game()` returns the calls one token may make. */
export class CardcoreClient {
  /**
   * `tls`: talk to a server started with `--tls-cert` — `true` to trust the system's CAs, or
   * `{ rootCertificates }` (a PEM Buffer) for a private CA. `credentials`: any grpc-js channel
   * credentials instead.
   */
  constructor(target = '127.0.0.1:50051', { credentials, tls, adminKey, deadlineMs = 10_000 } = {}) {
    if (!credentials && tls) {
      credentials = grpc.credentials.createSsl(tls === true ? null : (tls.rootCertificates ?? null));
    }
    this.stub = new cardcore.GameService(target, credentials ?? grpc.credentials.createInsecure());
    this.adminKey = adminKey;
    this.deadlineMs = deadlineMs;
    /** token → { gameId, entropy } of each seat this client joined (joinTable) or created
     *  (createGame) with a commitment and has not revealed yet (GameSession.revealEntropy).
     *  Kept in memory only: a seat whose client is gone before the start is final cannot
     *  reveal, and the table is cancelled. */
    this.unrevealed = new Map();
  }

  options() {
    return { deadline: Date.now() + this.deadlineMs };
  }

  /**
   * Every registered game with its flags and JSON Schemas (parsed). The array also carries
   * `serverKey`: the server's Ed25519 public key (base64url), which signs every log's header and
   * end line (`cardcore-verify-js --server-key KEY`); '' from a server that does not sign.
   */
  async listGames() {
    const r = await unary(this.stub, 'ListGames', {}, new grpc.Metadata(), this.options());
    const games = r.games.map((g) => ({
      name: g.name,
      title: g.title,
      rulesVersion: g.rules_version,
      minSeats: g.min_seats,
      maxSeats: g.max_seats,
      realtime: g.realtime,
      aliases: g.aliases,
      flags: g.flags.map((f) => ({
        name: f.name,
        default: parseJson(f.default_json),
        schema: parseJson(f.schema_json),
        help: f.help,
      })),
      commandSchema: parseJson(g.command_schema_json),
      eventSchema: parseJson(g.event_schema_json),
      viewSchema: parseJson(g.view_schema_json),
    }));
    // not enumerable: the array stays an array of games (for deepEqual, spreading, JSON)
    Object.defineProperty(games, 'serverKey', { value: r.server_key ?? '', enumerable: false });
    return games;
  }

  /** The server's Ed25519 public key (base64url) that signs its logs (ListGames' server_key). */
  async serverKey() {
    return (await this.listGames()).serverKey;
  }

  /**
   * Deal a new game, or open a table. `seats`: one per seat, 'human' | 'random' | 'reaction' or
   * { kind, botMinDelayMs, botMaxDelayMs, open, entropy, commit }; a human seat's `open` is
   * 'invite' (a single-use invite code fills it) or 'anyone' (whoever joins first): any open
   * seat makes the game a table that deals once its seats are taken (or its creator starts it).
   * `seed` (BigInt, number or decimal string) only where the server allows client seeds: a
   * chosen seed deals alone (log format 1), no seat contributes. `public` lists the table;
   * `startDeadlineMs`, `turnTimeoutMs`, `idleTimeoutMs`, `abandonTimeoutMs` (0 = none or the
   * server's).
   *
   * `contribute` (default true): each human seat the creator holds (not open) adds 16 random
   * bytes (node:crypto) to the deal, so the server alone does not choose it (log format 2,
   * docs/rng.md); a seat's own `entropy` (16 bytes or 32 hex digits; false = none) overrides
   * it. By default (`commit` true; a seat's own `commit` overrides it) the seat sends only the
   * commitment to them (`entropy_commitment`, docs/rng.md "Committed entropy"), an `entropy`
   * given included, and reveals them once the seats are final, as a joined seat does
   * (`joinTable`): nobody, the server included, knows them while the deal can still be chosen.
   * With no open seat the seats are final at once: the server answers 'revealing' and this
   * client reveals every seat it committed for right away (the last reveal deals; `status` is
   * the table's after the reveals, 'playing'); a reveal that fails leaves `status` 'revealing'
   * and the error in `revealError` (the seat's `table()`, `stream()` or `play()` reveals later).
   * With an open seat the table is 'waiting': this client keeps the entropy (in memory) under
   * the seat's token and reveals it once the table is 'revealing' (filled, or started: `start()`
   * reveals at once), from the seat's `stream()` or `play()` waiting for the deal, or its
   * `table()`; a seat whose client is gone by then cannot reveal, and the table is cancelled.
   * `commit: false` sends the entropy in the open instead, as before committed entropy existed:
   * the server learns it before its seed is committed.
   *
   * Returns { gameId, seatTokens: {seat: token}, spectatorToken, creatorToken, invites: {seat:
   * code}, status ('playing' | 'waiting' | 'revealing'), seedCommitment, header (the log's
   * header; {} for a game not dealt when CreateGame answered: read it from the log) }, and
   * `revealError` when a reveal at the creation failed.
   */
  async createGame({
    game,
    seats,
    rules = {},
    seed,
    eventLimit = 0,
    timeoutsMs = {},
    public: isPublic = false,
    startDeadlineMs = 0,
    turnTimeoutMs = 0,
    idleTimeoutMs = 0,
    abandonTimeoutMs = 0,
    contribute = true,
    commit = true,
  }) {
    const seeded = seed !== undefined && seed !== null; // a chosen seed: nothing to commit to
    const held = new Map(); // seat → the entropy it committed to, revealed later
    const request = {
      game,
      seats: seats.map((s, i) => {
        const spec = typeof s === 'string' ? { kind: s } : s;
        const kind = SEAT_KINDS[spec.kind ?? 'human'];
        if (!kind) throw new TypeError(`seat kind ${spec.kind}`);
        const open = SEAT_OPENS[spec.open ?? ''];
        if (!open) throw new TypeError(`seat open ${spec.open}`);
        const mine = kind === SEAT_KINDS.human && !spec.open; // only such a seat contributes
        const bytes = entropyOf(spec.entropy, mine && contribute && !seeded);
        const committed = (spec.commit ?? commit) && bytes.length > 0 && !seeded;
        if (committed) held.set(i, bytes);
        return {
          kind,
          bot_min_delay_ms: spec.botMinDelayMs ?? 0,
          bot_max_delay_ms: spec.botMaxDelayMs ?? 0,
          open,
          entropy: committed ? Buffer.alloc(0) : bytes,
          entropy_commitment: committed ? entropyCommitment(bytes) : Buffer.alloc(0),
        };
      }),
      rules_json: Object.keys(rules).length ? canonical(rules) : '',
      event_limit: String(eventLimit),
      timeouts_ms: timeoutsMs,
      public: Boolean(isPublic),
      start_deadline_ms: startDeadlineMs,
      turn_timeout_ms: turnTimeoutMs,
      idle_timeout_ms: idleTimeoutMs,
      abandon_timeout_ms: abandonTimeoutMs,
    };
    if (seeded) request.seed = BigInt(seed).toString();
    const r = await unary(this.stub, 'CreateGame', request, this.adminMetadata(), this.options());
    const created = {
      gameId: r.game_id,
      seatTokens: Object.fromEntries(r.seat_tokens.map((t) => [Number(t.seat), t.token])),
      spectatorToken: r.spectator_token,
      creatorToken: r.creator_token,
      invites: Object.fromEntries(r.invites.map((i) => [Number(i.seat), i.code])),
      status: r.status,
      seedCommitment: r.seed_commitment,
      header: r.header_json ? parseJson(r.header_json) : {},
    };
    if (r.status !== 'playing') {
      // 'playing' at once: a server that took no commitment (nothing for it to reveal to)
      for (const t of r.seat_tokens) {
        const bytes = held.get(Number(t.seat));
        if (bytes) this.unrevealed.set(t.token, { gameId: r.game_id, entropy: bytes });
      }
    }
    // no seat is open: the seats are final, reveal ours now (the last reveal deals); the header
    // then comes from the log
    await this.revealIfFinal(r.game_id, created);
    if (r.status === 'revealing' && created.status === 'playing') {
      created.header = await this.headerOf(created);
    }
    return created;
  }

  /** The header of a game dealt after CreateGame answered: its log's first line, as CreateGame
   *  gives it for a game dealt at once (without the `copy` a log read mid-game marks it with,
   *  which its hash and signature leave out); {} when the log cannot be read now. */
  async headerOf({ gameId, creatorToken }) {
    try {
      const { text } = await this.game(gameId, creatorToken).log();
      const header = parseJson(text.split('\n', 1)[0]);
      delete header.copy;
      return header;
    } catch {
      return {};
    }
  }

  adminMetadata(token) {
    const md = bearer(token);
    if (this.adminKey) md.set('x-cardcore-admin-key', this.adminKey);
    return md;
  }

  /**
   * Take a seat of a table waiting for players (no token needed): `{ invite }` (the invite's
   * seat) or `{ gameId, seat }` (a seat open to anyone; `seat` left out = the first one free).
   * Returns { gameId, seat, token, status }: status 'waiting' (more seats to fill),
   * 'revealing' (the seats are final, another seat's reveal is missing) or 'playing' (the
   * game is dealt). Refusals: reason TableFull, GameStarted, InviteUsed, InvalidInvite,
   * SeatNotOpen, TableCancelled.
   *
   * `contribute` (default true) adds 16 random bytes (node:crypto) to the deal, or `entropy`
   * (16 bytes or 32 hex digits; false = none). By default (`commit` true) the seat joins with
   * only the commitment to them (`entropyCommitment`, docs/rng.md "Committed entropy"), an
   * `entropy` given included, and reveals them once the start is final: nobody, the server
   * included, knows them while the deal can still be chosen. This client keeps them (in
   * memory) and reveals them by itself when it sees the table 'revealing': at once when this
   * join filled it (every seat of the game it holds entropy for: `status` is the table's after
   * the reveals), else while the seat's `stream()` or `play()` waits for the deal, or when
   * `table()` shows it; `revealEntropy()` reveals explicitly. A reveal at the join that fails
   * leaves `status` 'revealing' and the error in `revealError` (the token is never lost; any
   * of those ways reveals later). `commit: false` sends the entropy in the open instead, as
   * before committed entropy existed: the server learns it before the start.
   */
  async joinTable({
    invite = '',
    gameId = '',
    seat,
    entropy,
    contribute = true,
    commit = true,
  } = {}) {
    const bytes = entropyOf(entropy, contribute);
    const committed = commit && bytes.length > 0;
    const request = {
      invite,
      game_id: gameId,
      entropy: committed ? Buffer.alloc(0) : bytes,
      entropy_commitment: committed ? entropyCommitment(bytes) : Buffer.alloc(0),
    };
    if (seat !== undefined && seat !== null) request.seat = seat;
    const r = await unary(this.stub, 'JoinTable', request, new grpc.Metadata(), this.options());
    const joined = { gameId: r.game_id, seat: Number(r.seat), token: r.token, status: r.status };
    // 'playing' right away: a table whose seed its creator chose deals alone (log format 1)
    // and asks no seat to reveal
    if (committed && r.status !== 'playing') {
      this.unrevealed.set(r.token, { gameId: r.game_id, entropy: bytes });
    }
    return this.revealIfFinal(r.game_id, joined); // this join may have made the seats final
  }

  /** Once the seats of `gameId` are final (`answer.status` 'revealing'), reveal every seat of
   *  it this client holds entropy for: `answer.status` becomes the table's after the last
   *  reveal; a failure is kept in `answer.revealError` (the seat's `table()`, `stream()` or
   *  `play()` reveals later). Returns `answer`. */
  async revealIfFinal(gameId, answer) {
    if (answer.status !== 'revealing') return answer;
    try {
      answer.status = await this.revealAll(gameId);
    } catch (err) {
      answer.revealError = err;
    }
    return answer;
  }

  /** Reveal every seat of `gameId` this client holds entropy for; the table's status after
   *  the last ('revealing' while another seat's reveal is missing, else 'playing'). */
  async revealAll(gameId) {
    return (await this.revealTables(gameId))?.status ?? 'revealing';
  }

  /** revealAll, answering the table after the last reveal (null: nothing was owed). */
  async revealTables(gameId) {
    let table = null;
    const tokens = [...this.unrevealed].filter(([, held]) => held.gameId === gameId);
    for (const [token] of tokens) table = await this.game(gameId, token).revealEntropy();
    return table;
  }

  /**
   * Public tables waiting for players, newest first: { tables, nextPageToken } ('' = no more;
   * pass it as `pageToken` for the next page). `game` filters by game (name or alias).
   */
  async listTables({ game = '', pageSize = 0, pageToken = '' } = {}) {
    const request = { game, page_size: pageSize, page_token: pageToken };
    const r = await unary(this.stub, 'ListTables', request, new grpc.Metadata(), this.options());
    return { tables: r.tables.map(tableOf), nextPageToken: r.next_page_token };
  }

  /** Every page of listTables, newest first (an async iterator of tables). */
  async *allTables({ game = '', pageSize = 0 } = {}) {
    let pageToken = '';
    do {
      const page = await this.listTables({ game, pageSize, pageToken });
      yield* page.tables;
      pageToken = page.nextPageToken;
    } while (pageToken);
  }

  /** A new spectator token of a public table (no token needed); reason TableNotPublic else. */
  async watchTable(gameId) {
    const r = await unary(
      this.stub,
      'WatchTable',
      { game_id: gameId },
      new grpc.Metadata(),
      this.options(),
    );
    return r.spectator_token;
  }

  /**
   * A table's status and seats: any token of the game, or none for a public table. A table
   * 'revealing' gets the reveal of `token`'s seat first, when this client owes one (the table
   * returned is then the one after it).
   */
  async getTable(gameId, token) {
    const r = await unary(
      this.stub,
      'GetTable',
      { game_id: gameId },
      bearer(token),
      this.options(),
    );
    const table = tableOf(r.table);
    if (table.status === 'revealing' && this.owesReveal(gameId, token)) {
      return this.game(gameId, token).revealEntropy();
    }
    const over = ['playing', 'finished', 'cancelled'].includes(table.status);
    if (over && this.owesReveal(gameId, token)) {
      this.unrevealed.delete(token); // dealt, or never to be: nothing left to reveal
    }
    return table;
  }

  /** Whether this client holds entropy `token`'s seat of `gameId` has not revealed yet. */
  owesReveal(gameId, token) {
    return Boolean(token) && this.unrevealed.get(token)?.gameId === gameId;
  }

  /**
   * End a game at once (termination 'aborted'), or cancel a table still waiting: with the
   * creator's `token`, or with this client's admin key (`new CardcoreClient(t, { adminKey })`).
   * Returns the table.
   */
  async abortGame(gameId, token) {
    const r = await unary(
      this.stub,
      'AbortGame',
      { game_id: gameId },
      token ? bearer(token) : this.adminMetadata(),
      this.options(),
    );
    return tableOf(r.table);
  }

  /** The games of the tokens this client holds: [{ viewer, token, table }], in order. */
  async listMyGames(tokens) {
    const r = await unary(
      this.stub,
      'ListMyGames',
      { tokens: [...tokens] },
      new grpc.Metadata(),
      this.options(),
    );
    return r.games.map((g, i) => ({ viewer: g.viewer, token: tokens[i], table: tableOf(g.table) }));
  }

  /** Leave a game: the seat of `token` resigns ({"kind":"Resign"}). */
  async resign(gameId, token, options) {
    return this.game(gameId, token).resign(options);
  }

  /** The calls of one token (a seat's, the spectator's or the creator's) in one game. */
  game(gameId, token) {
    return new GameSession(this, gameId, token);
  }

  close() {
    this.stub.close();
  }
}

export class GameSession {
  constructor(client, gameId, token) {
    this.client = client;
    this.gameId = gameId;
    this.token = token;
  }

  metadata() {
    return bearer(this.token);
  }

  /** Leave the game: this seat resigns (every game has {"kind":"Resign"}). */
  async resign(options) {
    return this.submit({ kind: 'Resign' }, options);
  }

  /** The table of this game (its status, seats, who is present); one whose start is final
   *  ('revealing') gets this seat's reveal first, if this client owes one. */
  async table() {
    return this.client.getTable(this.gameId, this.token);
  }

  /**
   * Reveal the entropy this seat committed to when it joined (`joinTable`), or when its
   * creator made the game (`createGame`: a seat the creator holds); the table must be
   * 'revealing' (its seats final), else the server refuses: FAILED_PRECONDITION `NotRevealing`
   * (still waiting for players), `TableCancelled`. Returns the table after the reveal ('playing'
   * once it was the last). With nothing to reveal (this client holds no entropy for the seat,
   * or revealed it already) it is the table. Done by itself by `table()`, `stream()` and
   * `play()` once the start is final, by `joinTable` when the join made it final, by
   * `createGame` when no seat is open, and by `start()`.
   */
  async revealEntropy() {
    const held = this.client.owesReveal(this.gameId, this.token)
      ? this.client.unrevealed.get(this.token)
      : null;
    if (!held) return this.table();
    const r = await unary(
      this.client.stub,
      'RevealEntropy',
      { game_id: this.gameId, entropy: held.entropy },
      this.metadata(),
      this.client.options(),
    );
    this.client.unrevealed.delete(this.token);
    return tableOf(r.table);
  }

  /**
   * While this seat owes a reveal: look at the table every REVEAL_POLL_MS while it is
   * 'waiting', and once it is not, reveal (`table()` does). Null when nothing is owed, else
   * { stop(), done }: `stop()` ends it (the stream or play channel it serves has ended).
   * Never rejects: a refusal here is the stream's or channel's to report (TableCancelled), and
   * a dropped connection is tried again.
   */
  revealingInBackground() {
    if (!this.client.owesReveal(this.gameId, this.token)) return null;
    let stopped = false;
    let timer = null;
    let wake = null;
    const run = async () => {
      while (!stopped && this.client.owesReveal(this.gameId, this.token)) {
        try {
          if ((await this.table()).status !== 'waiting') return;
        } catch (err) {
          if (!POLL_RETRYABLE.has(err.grpcCode)) return;
        }
        if (stopped) return;
        await new Promise((resolve) => {
          wake = resolve;
          timer = setTimeout(resolve, REVEAL_POLL_MS);
        });
      }
    };
    return {
      done: run().catch(() => {}),
      stop: () => {
        stopped = true;
        clearTimeout(timer);
        wake?.();
      },
    };
  }

  /**
   * The creator starts its table now; empty seats are played by `fillWith` bots. The seats are
   * then final: a table whose seats committed to their entropy is 'revealing', and this client
   * reveals at once the seats of the game it holds entropy for (the creator's own, committed
   * by `createGame`): the table returned is the one after the reveals ('playing' once every
   * committed seat has revealed). A reveal that fails leaves it 'revealing', with the error in
   * `revealError` (the seat's `table()`, `stream()` or `play()` reveals later).
   */
  async start({ fillWith = 'reaction' } = {}) {
    const kind = SEAT_KINDS[fillWith];
    if (!kind || fillWith === 'human') throw new TypeError(`fillWith ${fillWith}`);
    const r = await unary(
      this.client.stub,
      'StartTable',
      { game_id: this.gameId, fill_with: kind },
      this.metadata(),
      this.client.options(),
    );
    const table = tableOf(r.table);
    if (table.status !== 'revealing') return table;
    try {
      return (await this.client.revealTables(this.gameId)) ?? table;
    } catch (err) {
      return { ...table, revealError: err };
    }
  }

  /** The creator aborts its game (or cancels its waiting table). */
  async abort() {
    return this.client.abortGame(this.gameId, this.token);
  }

  /** Submit one command for the token's seat. Retries UNAVAILABLE with the same action_id. */
  async submit(command, { actionId = randomUUID(), asSeat, retries = 3 } = {}) {
    const request = { game_id: this.gameId, action_id: actionId, command: toValue(command) };
    if (asSeat !== undefined) request.as_seat = asSeat;
    for (let attempt = 0; ; attempt++) {
      try {
        const r = await unary(
          this.client.stub,
          'SubmitAction',
          request,
          this.metadata(),
          this.client.options(),
        );
        return { entry: entryOf(r.entry), outcome: outcomeOf(r.outcome), replayed: r.replayed };
      } catch (err) {
        if (!RETRYABLE.has(err.grpcCode) || attempt >= retries) throw err;
        await new Promise((res) => setTimeout(res, 50 * 2 ** attempt));
      }
    }
  }

  /** The caller's view and its legal commands. */
  async view() {
    const r = await unary(
      this.client.stub,
      'GetView',
      { game_id: this.gameId },
      this.metadata(),
      this.client.options(),
    );
    return viewOf(r);
  }

  /**
   * Open this token's play channel (gRPC `Play`, docs/reference/play-channel.md): one call that
   * carries the seat's actions, the game's entries from `fromSeq` on, the answers to its actions
   * and the server's round-trip pings. Returns a PlaySession at once (the call opens in the
   * background; `await session.ready` for the server's `ready`):
   *
   *   const session = me.play();
   *   const ack = await session.act({ kind: 'Play' }); // { actionId, seq, replayed, outcome }
   *   for await (const entry of session) console.log(entry.seq, entry.events);
   *   session.outcome; session.end; // once the loop is over: the game's outcome and end line
   *
   * A call dropped with UNAVAILABLE is reopened from the entry after the last one received, and
   * the acts with no answer are sent again with their action_id (`reconnects` times in a row at
   * most, backing off from `backoffMs`). Breaking out of the loop, `close()` or `signal` ends it.
   * On a table not dealt yet (`GameNotStarted`) the session waits for the deal, asking again
   * every half second (`ready` resolves once it is dealt; a table cancelled meanwhile fails it
   * with `TableCancelled`), and reveals this seat's committed entropy once the table's start is
   * final (`revealingInBackground`).
   */
  play({ fromSeq = 0, signal, reconnects = 5, backoffMs = 100 } = {}) {
    return new PlaySession(this, { fromSeq, signal, reconnects, backoffMs });
  }

  /** The log as the caller may see it: { text (JSON Lines), complete }. */
  async log() {
    const r = await unary(
      this.client.stub,
      'GetLog',
      { game_id: this.gameId },
      this.metadata(),
      this.client.options(),
    );
    return { text: Buffer.from(r.log_jsonl).toString('utf8'), complete: r.complete };
  }

  /**
   * The game's entries from `fromSeq` on, as the caller may see them, until the game ends (on a
   * table still waiting for players, the stream waits for the deal, and reveals this seat's
   * committed entropy once the table's start is final: `revealingInBackground`).
   * Breaking out of the loop (or aborting `signal`) cancels the call; a dropped connection is
   * resumed from the next seq (no gap, no duplicate). `onOutcome` gets the outcome at the end.
   * `receipts`: a file path; every entry received is appended to it as a JSON line (after a
   * first line naming the game and viewer, and the game's header once it is dealt), then the
   * end line the stream ends with (it reveals seed and salt): `cardcore verify FILE` settles the
   * game from it alone, `cardcore verify --receipts FILE FINAL` holds a final log to it.
   */
  async *stream({ fromSeq = 0, signal, onOutcome, reconnects = 5, receipts } = {}) {
    const revealing = this.revealingInBackground(); // a table not dealt yet
    try {
      yield* this.entries({ fromSeq, signal, onOutcome, reconnects, receipts });
    } finally {
      revealing?.stop();
    }
  }

  /** `stream` itself, without the reveal beside it (its options as given there). */
  async *entries({ fromSeq, signal, onOutcome, reconnects, receipts }) {
    let next = Number(fromSeq);
    let failures = 0;
    if (receipts && (!fs.existsSync(receipts) || fs.statSync(receipts).size === 0)) {
      // The token's viewer ("0", "spectator", "creator": a creator sees what a spectator sees).
      const [mine] = await this.client.listMyGames([this.token]);
      const viewer = mine.viewer === 'creator' ? 'spectator' : mine.viewer;
      const head = { type: 'receipts', game_id: this.gameId, viewer };
      fs.appendFileSync(receipts, `${JSON.stringify(head)}\n`);
    }
    let headed = Boolean(receipts) && fs.readFileSync(receipts, 'utf8').includes('"type":"header"');
    for (;;) {
      const call = this.client.stub.StreamEvents(
        { game_id: this.gameId, from_seq: String(next) },
        this.metadata(),
      );
      const abort = () => call.cancel();
      signal?.addEventListener('abort', abort, { once: true });
      try {
        for await (const batch of call) {
          failures = 0;
          for (const e of batch.entries) {
            const entry = entryOf(e);
            if (entry.seq < next) continue; // never a duplicate
            next = entry.seq + 1;
            if (receipts) {
              if (!headed) {
                // The game is dealt: keep its header (the copy's first line) with the receipts.
                const { text } = await this.log();
                fs.appendFileSync(receipts, `${text.split('\n', 1)[0]}\n`);
                headed = true;
              }
              fs.appendFileSync(receipts, receiptLine(e));
            }
            yield entry;
          }
          if (batch.outcome) {
            if (receipts && batch.end_json) fs.appendFileSync(receipts, `${batch.end_json}\n`);
            onOutcome?.(outcomeOf(batch.outcome));
            return;
          }
        }
        return;
      } catch (err) {
        if (signal?.aborted || err.code === grpc.status.CANCELLED) return;
        if (err.code !== grpc.status.UNAVAILABLE || ++failures > reconnects) {
          throw new CardcoreError(err);
        }
        await new Promise((res) => setTimeout(res, 100 * failures));
      } finally {
        signal?.removeEventListener('abort', abort);
        call.cancel();
      }
    }
  }
}

const closedError = () =>
  new CardcoreError({ code: grpc.status.CANCELLED, details: 'the play session was closed' });

/**
 * One Play call (`GameSession.play()`), reopened after a drop. An async iterable of the game's
 * entries (as `stream` yields them: in seq order, no gap, no duplicate) that ends when the game
 * does, after which `outcome` (as `onOutcome` gets it), `end` (the log's end line, parsed: it
 * reveals the seed and salt) and `endJson` (its canonical text) are set. Entries wait in memory
 * until the loop takes them: iterate (once) when the session lives long.
 */
export class PlaySession {
  constructor(game, { fromSeq = 0, signal, reconnects = 5, backoffMs = 100 } = {}) {
    this.game = game;
    this.gameId = game.gameId;
    /** The token's seat (null for a spectator), once the server is `ready`. */
    this.seat = null;
    /** How often the server pings (ms), once it is `ready`. */
    this.pingIntervalMs = null;
    /** The game's outcome, once it is over. */
    this.outcome = null;
    /** The log's end line (parsed), once the game is over; `endJson` its canonical text. */
    this.end = null;
    this.endJson = '';
    /** Pings answered, and calls reopened after a drop (both over the session's life). */
    this.pings = 0;
    this.reopened = 0;
    this.next = Number(fromSeq); // the seq of the next entry to hand out
    this.maxReconnects = reconnects;
    this.backoffMs = backoffMs;
    this.failures = 0; // drops in a row with no message between them
    this.state = 'open'; // 'open' | 'ended' (the server's end) | 'closed' | 'failed'
    this.error = null;
    this.call = null;
    this.timer = null;
    this.heard = Date.now(); // when the current call last said anything
    // The server pings every `pingIntervalMs`: a call silent for three of them is a dead link
    // (one that never said so): dropped and reopened like any other.
    this.watchdog = setInterval(() => {
      const silent = 3 * (this.pingIntervalMs ?? 0) + 1000;
      if (this.call && this.pingIntervalMs && Date.now() - this.heard > silent) {
        this.dropped(this.call, 'the server went silent');
      }
    }, 1000);
    this.watchdog.unref?.();
    this.queue = []; // entries the loop has not taken yet
    this.waiting = []; // the loop's next() calls waiting for an entry
    this.acts = []; // acts with no answer yet, in the order they were made
    this.views = []; // view requests with no answer yet (answered in order)
    /** Resolves with { gameId, seat, nextSeq, pingIntervalMs } at the first `ready`. */
    this.ready = new Promise((resolve, reject) => {
      this.readyResolve = resolve;
      this.readyReject = reject;
    });
    this.ready.catch(() => {}); // a failure also reaches the loop and the acts
    this.signal = signal;
    this.abort = () => this.close();
    if (signal?.aborted) {
      this.close();
      return;
    }
    signal?.addEventListener('abort', this.abort, { once: true });
    /** Reveals this seat's entropy once the start is final (a table not dealt yet). */
    this.revealing = game.revealingInBackground();
    this.open();
  }

  /** Open a call from `next`, then send every act and view request still unanswered. */
  open() {
    this.timer = null;
    this.heard = Date.now();
    const call = this.game.client.stub.Play(this.game.metadata());
    this.call = call;
    call.on('data', (msg) => this.call === call && this.receive(call, msg));
    call.on('error', () => {}); // the 'status' that follows says what happened
    call.on('status', (status) => this.call === call && this.closed(status));
    call.write({ open: { game_id: this.gameId, from_seq: String(this.next) } });
    for (const act of this.acts) if (!act.waiting) call.write({ act: act.request });
    for (let i = 0; i < this.views.length; i++) call.write({ view: {} });
  }

  receive(call, msg) {
    this.heard = Date.now();
    switch (msg.frame) {
      case 'ready': {
        this.failures = 0;
        const r = msg.ready;
        this.seat = r.seat === undefined || r.seat === null ? null : Number(r.seat);
        this.pingIntervalMs = Number(r.ping_interval_ms);
        this.readyResolve({
          gameId: r.game_id,
          seat: this.seat,
          nextSeq: Number(r.next_seq),
          pingIntervalMs: this.pingIntervalMs,
        });
        break;
      }
      case 'ping':
        call.write({ pong: { nonce: msg.ping.nonce } });
        this.pings++;
        break;
      case 'entry': {
        this.failures = 0;
        const entry = entryOf(msg.entry);
        if (entry.seq < this.next) break; // never a duplicate
        if (entry.seq > this.next) {
          this.dropped(call, 'entries out of order'); // never a gap: ask from the one missing
          break;
        }
        this.next = entry.seq + 1;
        this.queue.push(entry);
        this.wakeUp();
        break;
      }
      case 'ack': {
        const a = msg.ack;
        this.answer(a.action_id)?.resolve({
          actionId: a.action_id,
          seq: Number(a.seq),
          replayed: a.replayed,
          outcome: outcomeOf(a.outcome),
        });
        break;
      }
      case 'rejected': {
        const { action_id: actionId, problem } = msg.rejected;
        const act = this.acts.find((x) => x.request.action_id === actionId && !x.waiting);
        if (!act) break;
        if (problem.status === 'UNAVAILABLE' && act.retries-- > 0) {
          // not confirmed durable: send it again, with the same action_id, as submit does
          act.waiting = true;
          const ms = Number(problem.metadata?.retry_after_s ?? 0) * 1000 || this.backoffMs;
          setTimeout(() => {
            act.waiting = false;
            if (this.acts.includes(act)) this.call?.write({ act: act.request });
          }, ms);
          break;
        }
        this.answer(actionId).reject(CardcoreError.fromProblem(problem));
        break;
      }
      case 'view':
        this.views.shift()?.resolve(viewOf(msg.view));
        break;
      case 'end':
        this.outcome = outcomeOf(msg.end.outcome);
        this.endJson = msg.end.end_json;
        this.end = this.endJson ? parseJson(this.endJson) : null;
        this.state = 'ended';
        this.wakeUp();
        break;
      default:
        break; // a frame this client does not know: newer servers may send more
    }
  }

  /** The oldest unanswered act with this action_id, taken off the list. */
  answer(actionId) {
    const i = this.acts.findIndex((x) => x.request.action_id === actionId && !x.waiting);
    return i < 0 ? null : this.acts.splice(i, 1)[0];
  }

  /** The call ended: after the game's end, settle what is left; after a drop, reopen. */
  closed(status) {
    this.call = null;
    if (this.state === 'ended') {
      this.settleAfterEnd();
      this.revealing?.stop();
      clearInterval(this.watchdog);
      this.signal?.removeEventListener('abort', this.abort);
      return;
    }
    if (this.state !== 'open') return;
    // A call that ends OK without the game's end is a drop too (a server going away), and so
    // is FellBehind: resume from the last seq seen (play-channel.md, closing codes).
    const err = status.code === grpc.status.OK ? null : new CardcoreError(status);
    if (!err || RETRYABLE.has(status.code) || err.reason === 'FellBehind') {
      this.reopen(status);
    } else if (err.reason === 'GameNotStarted') {
      // a table not dealt yet (waiting for players, or its seats revealing their entropy):
      // ask again until it is (a table cancelled meanwhile ends it: TableCancelled), as the
      // web table does; a wait, not a drop
      this.timer = setTimeout(() => this.state === 'open' && this.open(), DEAL_POLL_MS);
    } else {
      this.fail(err);
    }
  }

  /** Drop the current call (not the session) and reopen from `next`. */
  dropped(call, why) {
    this.call = null;
    call.cancel();
    this.reopen({ code: grpc.status.UNAVAILABLE, details: why, metadata: null });
  }

  reopen(status) {
    if (++this.failures > this.maxReconnects) {
      const gone = { code: grpc.status.UNAVAILABLE, details: 'the call ended before the game' };
      this.fail(new CardcoreError(status.code === grpc.status.OK ? gone : status));
      return;
    }
    this.reopened++;
    const ms = Math.min(this.backoffMs * 2 ** (this.failures - 1), 5_000);
    this.timer = setTimeout(() => this.state === 'open' && this.open(), ms);
  }

  /** The game is over and the call with it: an act or view still unanswered is asked of the
   *  request–response calls (an action_id answers the same on either path). */
  settleAfterEnd() {
    for (const act of this.acts.splice(0)) {
      this.submitted(act.command, act.request.action_id).then(act.resolve, act.reject);
    }
    for (const v of this.views.splice(0)) this.game.view().then(v.resolve, v.reject);
  }

  async submitted(command, actionId) {
    const r = await this.game.submit(command, { actionId });
    return { actionId, seq: r.entry.seq, replayed: r.replayed, outcome: r.outcome };
  }

  fail(err) {
    this.state = 'failed';
    this.error = err;
    this.finish(err);
  }

  finish(err) {
    this.revealing?.stop();
    clearTimeout(this.timer);
    clearInterval(this.watchdog);
    this.signal?.removeEventListener('abort', this.abort);
    this.readyReject(err);
    for (const act of this.acts.splice(0)) act.reject(err);
    for (const v of this.views.splice(0)) v.reject(err);
    this.wakeUp();
  }

  wakeUp() {
    for (const wake of this.waiting.splice(0)) wake();
  }

  /**
   * Send one command for the token's seat. Resolves with the ack, { actionId, seq, replayed,
   * outcome } (`seq`: its entry's, which the loop yields too; `outcome`: set when it ended the
   * game), or rejects with the CardcoreError `submit` would give. `actionId` (one is made when
   * none is given) makes it idempotent: it is what a resend after a drop carries.
   */
  act(command, { actionId = randomUUID(), retries = 3 } = {}) {
    if (this.state === 'ended') return this.submitted(command, actionId);
    if (this.state !== 'open') return Promise.reject(this.error ?? closedError());
    return new Promise((resolve, reject) => {
      const request = { action_id: actionId, command: toValue(command) };
      this.acts.push({ request, command, resolve, reject, retries, waiting: false });
      this.call?.write({ act: request });
    });
  }

  /** The seat's view as GetView gives it, with `rttMs`: its round trip as the server measures
   *  it (the smallest of the last 16 pings; null until one was answered). */
  view() {
    if (this.state === 'ended') return this.game.view();
    if (this.state !== 'open') return Promise.reject(this.error ?? closedError());
    return new Promise((resolve, reject) => {
      this.views.push({ resolve, reject });
      this.call?.write({ view: {} });
    });
  }

  /** End the call now; an act or view still unanswered rejects (CANCELLED). */
  close() {
    if (this.state === 'closed' || this.state === 'failed') return;
    const ended = this.state === 'ended';
    this.state = 'closed';
    const call = this.call;
    this.call = null;
    call?.cancel();
    if (ended) this.settleAfterEnd(); // the game is over: the answers are the unary calls'
    this.finish(closedError());
  }

  /** The entries; breaking out of the loop closes the session. */
  [Symbol.asyncIterator]() {
    return {
      next: () => this.nextEntry(),
      return: async () => {
        this.close();
        return { done: true, value: undefined };
      },
      [Symbol.asyncIterator]() {
        return this;
      },
    };
  }

  async nextEntry() {
    for (;;) {
      if (this.queue.length) return { done: false, value: this.queue.shift() };
      if (this.state === 'failed') throw this.error;
      if (this.state !== 'open') return { done: true, value: undefined };
      await new Promise((resolve) => this.waiting.push(resolve));
    }
  }
}
