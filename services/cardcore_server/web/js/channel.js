// One seat's connection to its game, behind one interface: submit an action and learn its
// answer, receive the entries in order (no gap, no duplicate), ask for the view. It is the play
// channel's WebSocket (docs/reference/play-channel.md: one connection carries all of it, and the
// server measures the round trip on it); where a WebSocket cannot open at all (no WebSocket, a
// proxy that refuses the upgrade) the same interface runs over the REST API: POST …/actions and
// the event stream (Server-Sent Events), as the table did before.
//
// The table hands `openChannel` what it does with what arrives:
//   nextSeq()        the first seq it wants (its last seq kept + 1): where a resume starts
//   entry(raw)       one entry, its JSON exactly as the server sent it (the receipts keep it)
//   end(raw)         the log's end line, as sent
//   outcome(o)       the game is over (after `end`)
//   waiting()        the table is not dealt yet (the channel keeps trying)
//   cancelled(c)     the table was cancelled before the deal: nothing more will come
//   fatal(err)       the seat cannot follow this game (an ApiError: a token refused…)
//   status(text)     a word on the connection ("" once it is fine again)
// and gets back {transport, submit(command, actionId), view(), close()}.

import { ApiError, NetworkError, apiBase, call, events } from "./api.js";

/** The frames' version, offered as the WebSocket subprotocol (the server accepts it). */
const SUBPROTOCOL = "cardcore.v1";
/** Close codes after which resuming is pointless: the client or its token must change. */
const FINAL_CODES = new Set([1003, 1007, 1008, 1009, 4401, 4403, 4404]);
/** A channel that has sent nothing for this long (the server pings every second) is dead,
 * whatever the socket says: it is closed and resumed. */
const SILENCE_MS = 5000;
/** How soon a table still waiting for players is asked again (the channel opens on a dealt
 * game only: this is how long the deal may wait to be seen). */
const WAITING_RETRY_MS = 500;

const wait = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * The table's connection: the WebSocket, or the REST fallback where a WebSocket cannot open.
 * `force` ("sse"): the fallback from the start (`?transport=sse` in the page's URL).
 */
export function openChannel(gameId, token, handlers, { force = null } = {}) {
  const wanted = force ?? new URLSearchParams(location.search).get("transport");
  if (wanted === "sse") return new RestChannel(gameId, token, handlers);
  return new FallbackChannel(gameId, token, handlers);
}

/**
 * The value of `key` in the JSON object `text`, as its raw text: the receipts keep entries and
 * the end line byte for byte as sent (a re-serialised seed would lose digits past 2^53, and
 * `cardcore verify` compares lines as they are). A scan of the object's top level, strings and
 * nesting respected; the frame was parsed already, so it is valid JSON.
 */
export function rawValue(text, key) {
  let i = text.indexOf("{") + 1;
  const skipWs = () => {
    while (i < text.length && /\s/.test(text[i])) i += 1;
  };
  const skipString = () => {
    i += 1; // the opening quote
    while (text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    i += 1;
  };
  const skipValue = () => {
    let depth = 0;
    for (;;) {
      const c = text[i];
      if (c === '"') {
        skipString();
        if (depth === 0) return;
        continue;
      }
      if (c === "{" || c === "[") depth += 1;
      else if (c === "}" || c === "]") {
        if (depth === 0) return; // the end of the enclosing object
        depth -= 1;
        if (depth === 0) {
          i += 1;
          return;
        }
      } else if (c === "," && depth === 0) return;
      i += 1;
    }
  };
  for (;;) {
    skipWs();
    if (text[i] !== '"') return null;
    const start = i;
    skipString();
    const name = JSON.parse(text.slice(start, i));
    skipWs();
    i += 1; // the colon
    skipWs();
    const from = i;
    skipValue();
    if (name === key) return text.slice(from, i).trimEnd();
    skipWs();
    if (text[i] !== ",") return null;
    i += 1;
  }
}

/** The close code's status, for the page's error: 4401 → 401, as the REST API answers. */
function closeError(ev) {
  const [code, ...rest] = (ev.reason || "").split(": ");
  const detail = rest.join(": ") || `the server closed the play channel (${ev.code})`;
  const status = ev.code >= 4400 && ev.code < 4600 ? ev.code - 4000 : 400;
  return new ApiError(status, { code: rest.length ? code : `WS${ev.code}`, detail, status });
}

// --------------------------------------------------------------------------- over REST

/** The fallback: POST …/actions for each action, the event stream for the entries, GET …/view.
 * A stream that drops resumes after the last seq kept (Last-Event-ID). */
class RestChannel {
  constructor(gameId, token, handlers) {
    this.transport = "sse";
    this.gameId = gameId;
    this.token = token;
    this.on = handlers;
    this.abort = new AbortController();
    this.stopped = false;
    this.stream();
  }

  close() {
    this.stopped = true;
    this.abort.abort();
  }

  /** One action; resolves {seq, entry, replayed, outcome}, throws ApiError (its rejection).
   * A network failure is retried with the same action_id: applied at most once. */
  async submit(command, actionId) {
    for (let attempt = 0; ; attempt += 1) {
      try {
        const r = await call(`/v1/games/${this.gameId}/actions`, {
          method: "POST", token: this.token, body: { command, action_id: actionId },
        });
        return { seq: r.entry.seq, entry: r.entry, replayed: r.replayed, outcome: r.outcome ?? null };
      } catch (err) {
        if (!(err instanceof NetworkError) || attempt >= 3) throw err;
        await wait(200 * (attempt + 1));
      }
    }
  }

  view() {
    return call(`/v1/games/${this.gameId}/view`, { token: this.token, signal: this.abort.signal });
  }

  async stream() {
    let backoff = 250;
    while (!this.stopped) {
      try {
        this.on.status("");
        const next = this.on.nextSeq();
        const lastEventId = next > 0 ? next - 1 : null;
        for await (const ev of events(this.gameId, { token: this.token, lastEventId, signal: this.abort.signal })) {
          backoff = 250;
          if (ev.event === "entry") {
            this.on.entry(ev.data);
          } else if (ev.event === "end") {
            this.on.end(ev.data);
          } else if (ev.event === "outcome") {
            this.stopped = true;
            await this.on.outcome(JSON.parse(ev.data));
            return;
          } else if (ev.event === "closing") {
            const c = JSON.parse(ev.data);
            if (c.code === "TableCancelled") {
              this.stopped = true;
              this.on.cancelled(c);
              return;
            }
            this.on.status(`The server closed the stream (${c.code}); resuming…`);
          }
        }
      } catch (err) {
        if (this.stopped || err?.name === "AbortError") return;
        if (err instanceof ApiError && [400, 401, 403, 404, 422].includes(err.status)) {
          this.stopped = true;
          this.on.fatal(err);
          return;
        }
        this.on.status(`Connection lost (${err.message}); resuming from seq ${this.on.nextSeq()}…`);
      }
      if (this.stopped) return;
      await wait(backoff);
      backoff = Math.min(backoff * 2, 4000);
    }
  }
}

// --------------------------------------------------------------------------- over a WebSocket

/**
 * The play channel's WebSocket, reopened after a drop (from the next seq wanted, the acts
 * without an answer sent again with their action_id). Until a first `ready` it may give up
 * (`onUnusable`): the caller then falls back to REST.
 */
class SocketChannel {
  constructor(gameId, token, handlers, onUnusable) {
    this.transport = "websocket";
    this.gameId = gameId;
    this.token = token;
    this.on = handlers;
    this.onUnusable = onUnusable;
    this.acts = new Map(); // action_id → {frame, resolve, reject}: sent again after a resume
    this.views = []; // the resolvers of the views asked for, answered in order
    this.everReady = false;
    this.ready = false;
    this.stopped = false;
    this.backoff = 250;
    this.watchdog = setInterval(() => this.checkSilence(), 1000);
    this.connect();
  }

  close() {
    this.stopped = true;
    clearInterval(this.watchdog);
    clearTimeout(this.retry);
    this.ws?.close(1000, "the table is closed");
  }

  url() {
    const u = new URL(`/v1/games/${encodeURIComponent(this.gameId)}/play`, apiBase());
    u.protocol = u.protocol === "https:" ? "wss:" : "ws:";
    return u.href;
  }

  connect() {
    this.ready = false;
    let ws;
    try {
      ws = new WebSocket(this.url(), SUBPROTOCOL);
    } catch (err) {
      this.unusable(err);
      return;
    }
    this.ws = ws;
    this.lastFrameAt = performance.now();
    // the token goes in the first frame, never in the URL (server and proxy logs keep URLs)
    ws.onopen = () => this.send({ type: "auth", token: this.token, from_seq: this.on.nextSeq() });
    ws.onmessage = (ev) => this.onFrame(ws, ev.data);
    ws.onclose = (ev) => this.onClose(ws, ev);
  }

  send(frame) {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(frame));
  }

  /** No frame for SILENCE_MS (pings come every second): the connection is gone, resume; a
   * first one that never got as far as `ready` (an upgrade held forever) is given up. */
  checkSilence() {
    // (a first connection is given as long as the server gives its auth frame: 10 s)
    const limit = this.everReady ? SILENCE_MS : 2 * SILENCE_MS;
    if (this.stopped || !this.ws || performance.now() - this.lastFrameAt < limit) return;
    if (!this.everReady) {
      const ws = this.ws;
      this.ws = null;
      ws.onmessage = ws.onclose = null;
      ws.close();
      this.unusable(new NetworkError("the WebSocket did not answer"));
      return;
    }
    this.dropped(this.ws, "no word from the server");
  }

  /** Forget `ws` (its close event comes too late, or never) and open another. */
  dropped(ws, why) {
    if (ws !== this.ws) return;
    this.ws = null;
    ws.onmessage = ws.onclose = null;
    try {
      ws.close(4000, "resuming");
    } catch {
      /* already closed */
    }
    this.resume(why);
  }

  onFrame(ws, text) {
    if (ws !== this.ws) return;
    this.lastFrameAt = performance.now();
    const f = JSON.parse(text);
    switch (f.type) {
      case "ping": // answered at once: the round trip measured is the player's
        this.send({ type: "pong", nonce: f.nonce });
        return;
      case "ready":
        this.ready = true;
        this.everReady = true;
        this.backoff = 250;
        this.on.status("");
        for (const act of this.acts.values()) this.send(act.frame); // same action_id: at most once
        for (let i = 0; i < this.views.length; i += 1) this.send({ type: "view" });
        return;
      case "entry":
        try {
          this.on.entry(rawValue(text, "entry"));
        } catch (err) {
          this.dropped(ws, err.message); // a gap: resume from the last seq kept
        }
        return;
      case "ack":
      case "rejected": {
        const act = this.acts.get(f.action_id);
        if (!act) return; // an answer to an act already answered before a resume
        this.acts.delete(f.action_id);
        if (f.type === "ack") act.resolve({ seq: f.seq, entry: null, replayed: f.replayed, outcome: f.outcome ?? null });
        else act.reject(new ApiError(f.problem?.status ?? 409, f.problem));
        return;
      }
      case "view": {
        const { type, ...view } = f;
        this.views.shift()?.resolve(view);
        return;
      }
      case "end":
        this.finished = true;
        this.on.end(rawValue(text, "end"));
        this.on.outcome(f.outcome);
        return;
      default:
        return; // a frame of a later version: ignored
    }
  }

  onClose(ws, ev) {
    if (ws !== this.ws) return;
    this.ws = null;
    if (this.finished) this.viewsOverRest();
    if (this.stopped || this.finished) return;
    // no close frame from the server before it ever said `ready`: the upgrade itself failed
    // (a proxy that refuses it, a WebSocket blocked): the REST API may still get through
    if (!this.everReady && !ev.wasClean && ev.code === 1006) {
      this.unusable(new NetworkError("the WebSocket could not open"));
      return;
    }
    const err = closeError(ev);
    if (ev.code === 4503 && err.code === "GameNotStarted") {
      this.on.waiting();
      this.retry = setTimeout(() => this.connect(), WAITING_RETRY_MS);
      return;
    }
    if (ev.code === 4503 && err.code === "TableCancelled") {
      this.stop();
      this.on.cancelled({ code: err.code, detail: err.detail });
      return;
    }
    if (FINAL_CODES.has(ev.code)) {
      this.stop(err);
      this.on.fatal(err);
      return;
    }
    if (ev.code === 1013) this.backoff = Math.max(this.backoff, 1000); // at its cap: later
    this.resume(`${ev.code}${ev.reason ? ` ${ev.reason}` : ""}`);
  }

  /** Open again after a pause (doubling, at most 4 s), from the next seq wanted. */
  resume(why) {
    this.ready = false;
    this.on.status(`Connection lost (${why}); resuming from seq ${this.on.nextSeq()}…`);
    clearTimeout(this.retry);
    this.retry = setTimeout(() => this.connect(), this.backoff);
    this.backoff = Math.min(this.backoff * 2, 4000);
  }

  /** Nothing more will come: the acts and views waiting are answered with `err`. */
  stop(err = new NetworkError("the play channel is closed")) {
    this.stopped = true;
    clearInterval(this.watchdog);
    for (const act of this.acts.values()) act.reject(err);
    for (const v of this.views) v.reject(err);
    this.acts.clear();
    this.views = [];
  }

  /** Give the WebSocket up for good (the caller falls back), never synchronously: the
   * constructor may be still running. */
  unusable(err) {
    this.stopped = true;
    clearInterval(this.watchdog);
    queueMicrotask(() => this.onUnusable(err));
  }

  /** What is still waiting for an answer, for the fallback to take over. */
  handOver() {
    const { acts, views } = this;
    this.acts = new Map();
    this.views = [];
    return { acts, views };
  }

  submit(command, actionId) {
    return new Promise((resolve, reject) => {
      const frame = { type: "act", command, action_id: actionId };
      this.acts.set(actionId, { frame, resolve, reject });
      if (this.ready) this.send(frame); // else sent on `ready`
    });
  }

  /** After the end the channel closes (1000), but the view stays to be seen (the outcome's):
   * the views asked for then, and those it left unanswered, go over REST. */
  viewsOverRest() {
    for (const v of this.views.splice(0)) this.restView().then(v.resolve, v.reject);
  }

  restView() {
    return call(`/v1/games/${this.gameId}/view`, { token: this.token });
  }

  view() {
    if (this.finished) return this.restView(); // nothing more is sent on a closing channel
    return new Promise((resolve, reject) => {
      this.views.push({ resolve, reject });
      if (this.ready) this.send({ type: "view" });
    });
  }
}

/**
 * The WebSocket while it works; REST from the moment it proves unusable (before its first
 * `ready`: never on a drop once it has worked, which it resumes). What was waiting for an
 * answer then goes over REST, with the same action_id.
 */
class FallbackChannel {
  constructor(gameId, token, handlers) {
    this.args = [gameId, token, handlers];
    this.impl = new SocketChannel(gameId, token, handlers, (err) => this.fallBack(err));
  }

  get transport() {
    return this.impl.transport;
  }

  fallBack(err) {
    const socket = this.impl;
    const { acts, views } = socket.handOver();
    this.impl = new RestChannel(...this.args);
    this.fellBackBecause = String(err?.message || err);
    for (const [id, act] of acts) this.impl.submit(act.frame.command, id).then(act.resolve, act.reject);
    for (const v of views) this.impl.view().then(v.resolve, v.reject);
    this.args[2].transport?.(this.impl.transport, this.fellBackBecause);
  }

  submit(command, actionId) {
    return this.impl.submit(command, actionId);
  }

  view() {
    return this.impl.view();
  }

  close() {
    this.impl.close();
  }
}
