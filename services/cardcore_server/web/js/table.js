// One table, as one seat (or a spectator) sees it: the view after every entry, the legal
// commands as buttons and shortcuts (only legal ones: a selection that makes none offers none),
// the last adjudications in words, rejections with their reasons, presence, resign; at the end
// the outcome, the revealed seed, the log and the page's own verdict on it. Actions, entries and
// views travel over one play channel (channel.js: the WebSocket, else REST), which resumes from
// the last seq kept (no gap, no duplicate). Before the deal: the table waiting for players, then
// (its seats final) revealing: a seat that committed to its entropy (joining, or created as
// the creator's own) reveals it here as soon as the page sees that (docs/rng.md, "Committed
// entropy").

import { ApiError, NetworkError, actionId, call, serverKey } from "./api.js";
import { openChannel } from "./channel.js";
import { h, replaceKeepingFocus } from "./dom.js";
import { GAMES, actionButton } from "./games.js";
import { getCatalogue, revealOwed, tableStatusWords, verdictEl } from "./lobby.js";
import { narrateEntry } from "./narrate.js";
import { Receipts, forgetEntropy, loadSession, saveSession } from "./store.js";
import { checkCopy, verifyLog, warmUp } from "./verify.js";

const HISTORY = 8;
/** The keys every table has, listed after the game's own (games.js). */
const COMMON_KEYS = [
  ["L", "the list of all your legal moves: Tab through it, Enter plays one, Escape leaves it"],
  ["Tab", "every button (Resign too); Enter or Space presses the focused one"],
];
const TERMINATION_WORDS = {
  all_cards: "one player holds every card",
  last_standing: "every other player was eliminated",
  target_score: "a player reached the target score",
  out_of_cards: "a player ran out of cards",
  resigned: "a player resigned",
  aborted: "the game was aborted",
  event_limit: "the event limit was reached",
};

/** The test hooks and measurements a page exposes (read by the browser tests). */
const probe = (window.__cardcore ??= { acks: [], renders: 0, firstRenderMs: null });

function isTyping(el) {
  return el && (el.isContentEditable || /^(INPUT|SELECT|TEXTAREA)$/.test(el.tagName));
}

function isControl(el) {
  return el && /^(BUTTON|A|SUMMARY)$/.test(el.tagName);
}

function download(name, text, label) {
  const url = URL.createObjectURL(new Blob([text], { type: "application/x-ndjson" }));
  return h("a", { class: "button small", href: url, download: name }, label);
}

export async function renderTable(main, gameId) {
  const session = loadSession(gameId);
  if (!session) {
    main.replaceChildren(h("h1", {}, "No seat here"),
      h("p", {}, "This browser holds no token of that game. Ask for an invite link, or join a public table from the lobby."),
      h("p", {}, h("a", { href: "#" }, "Back to the lobby")));
    return () => {};
  }
  const catalogue = await getCatalogue();
  const info = catalogue.find((g) => g.name === session.game);
  const table = new Table(main, session, info);
  table.start();
  return () => table.stop();
}

class Table {
  constructor(main, session, info) {
    this.main = main;
    this.s = session;
    this.info = info;
    this.ui = GAMES[session.game];
    this.seat = session.seat ?? null;
    this.receipts = new Receipts(session.game_id, session.viewer);
    this.view = null; // the last GameView rendered
    this.viewWanted = false;
    this.viewBusy = false;
    this.lastEntrySeq = this.receipts.lastSeq;
    probe.lastEntry = this.receipts.lastSeq;
    this.history = [];
    this.selection = [];
    this.pending = null; // a shortcut of several keys under way (Spit: M, Speed: R)
    this.present = [];
    this.seatKinds = [];
    this.tableInfo = null;
    this.outcome = null;
    this.finished = false;
    this.headerWanted = null;
    this.keyHandler = (ev) => this.onKey(ev);
    this.keyUpHandler = (ev) => {
      if (this.swallowKeyUp === ev.code) {
        ev.preventDefault();
        this.swallowKeyUp = null;
      }
    };
    this.build();
  }

  build() {
    const title = this.info ? this.info.title : this.s.game;
    const who = this.seat === null ? "watching" : `seat ${this.seat}`;
    document.title = `${title} — ${who} — cardcore`;
    this.el = {
      status: h("p", { class: "status", id: "status", "aria-live": "polite" }, "Connecting…"),
      presence: h("p", { class: "presence-line", id: "presence" }),
      here: h("span", {}),
      // the round trip the server measures for this seat (play channel only): small, after
      // the presence, its room kept so that a number coming or going moves nothing
      rtt: h("span", { class: "rtt", id: "rtt", title: "Your round trip to the server, as the server measures it (the fastest of its last 16 pings)" }),
      board: h("section", { class: `board board-${this.s.game}`, id: "board", "aria-label": "the table", tabindex: "-1" }),
      controls: h("div", { class: "controls", id: "controls" }),
      selection: h("div", { class: "selection", id: "selection" }),
      more: h("details", { class: "legal", id: "legal" }),
      rejection: h("p", { class: "rejection", id: "rejection", role: "alert" }),
      // scrolls in its fixed room: focusable, so that a keyboard scrolls it too
      narration: h("ol", { class: "narration", id: "narration", tabindex: "0", "aria-label": "the last adjudications, newest first" }),
      live: h("p", { class: "sr-only", id: "announce", "aria-live": "assertive" }),
      waiting: h("section", { class: "waiting", id: "waiting", hidden: true, "aria-labelledby": "waiting-title" }),
      end: h("section", { class: "end", id: "end", hidden: true, "aria-labelledby": "end-title" }),
      resign: h("div", { class: "resign-box", id: "resign-box" }),
      connection: h("p", { class: "connection", id: "connection", "aria-live": "polite" }),
    };
    this.el.presence.append(this.el.here, this.el.rtt);
    this.el.keys = h("details", { class: "keys", id: "keys" }, h("summary", {}, "Keyboard shortcuts"), h("dl", {}));
    this.drawKeys();
    this.main.replaceChildren(
      h("div", { class: "table-head" },
        h("h1", {}, `${title} `, h("span", { class: "who" }, `· ${this.seat === null ? "watching" : `you are seat ${this.seat}`}`)),
        this.el.status, this.el.presence, this.el.connection),
      this.el.waiting,
      h("div", { class: "table-layout" },
        // the controls right under the board (in view as the table lands), the rejection's
        // room after them
        h("div", { class: "play-area" }, this.el.board, this.el.selection, this.el.controls, this.el.rejection, this.el.more),
        h("aside", { class: "side-panel", "aria-label": "what happened" },
          h("h2", { class: "small-title" }, "Last adjudications"), this.el.narration, this.el.keys, this.el.resign)),
      this.el.end, this.el.live,
    );
    this.drawResign();
  }

  /** The table's variant rules: the catalogue's defaults, then what the table set. */
  rules() {
    const defaults = Object.fromEntries((this.info?.flags ?? []).map((f) => [f.name, f.default]));
    return { ...defaults, ...(this.tableInfo?.rules ?? {}) };
  }

  /** The shortcuts' list: the game's own under the table's rules, then every table's. */
  drawKeys() {
    const keys = [...(this.ui?.help(this.rules()) ?? []), ...COMMON_KEYS];
    this.el.keys.querySelector("dl").replaceChildren(...keys.flatMap(([k, v]) => [h("dt", {}, h("kbd", {}, k)), h("dd", {}, v)]));
  }

  start() {
    if (!this.s.server_key) {
      // the key this server signs logs with, as it is when the game begins (kept for the end)
      serverKey().then((key) => {
        this.settleEntropy(); // a reveal made meanwhile is not kept again
        this.s = { ...this.s, server_key: key };
        saveSession(this.s);
      }).catch(() => {});
    }
    document.addEventListener("keydown", this.keyHandler);
    document.addEventListener("keyup", this.keyUpHandler);
    for (const raw of this.receipts.entries.slice(-HISTORY)) this.narrate(JSON.parse(raw), false);
    this.loadTable();
    this.channel = openChannel(this.s.game_id, this.s.token, this.channelHandlers());
    this.showTransport(this.channel.transport);
    this.requestView();
    // the verifier (Pyodide: seconds to load) gets ready while the game is played, in its
    // worker, so that the verdicts follow the end at once
    this.warmTimer = setTimeout(() => warmUp(), 1500);
    this.presenceTimer = setInterval(() => {
      if (!this.finished && !this.viewBusy) this.requestView();
    }, 3000);
  }

  stop() {
    this.stopped = true;
    this.channel?.close();
    clearInterval(this.presenceTimer);
    clearInterval(this.tablePoll);
    clearTimeout(this.warmTimer);
    document.removeEventListener("keydown", this.keyHandler);
    document.removeEventListener("keyup", this.keyUpHandler);
  }

  // ------------------------------------------------------------------ the play channel

  /** What the table does with what its channel brings (channel.js says when each comes). */
  channelHandlers() {
    return {
      nextSeq: () => this.receipts.lastSeq + 1,
      entry: (raw) => this.onEntry(raw),
      end: (raw) => this.receipts.setEnd(raw),
      outcome: (o) => {
        this.outcome = o;
        return this.finish();
      },
      waiting: () => {
        if (this.el.waiting.hidden) this.showWaiting();
      },
      cancelled: () => this.showCancelled(),
      fatal: (err) => {
        this.showRejection(err);
        this.el.status.textContent = "Cannot follow this game.";
      },
      status: (text) => {
        if (!this.stopped) this.el.connection.textContent = text;
      },
      transport: (name) => this.showTransport(name),
    };
  }

  /** The round trip's room is kept only where there will be one (the WebSocket). */
  showTransport(name) {
    probe.transport = name;
    this.el.rtt.classList.toggle("reserved", name === "websocket" && this.seat !== null);
    if (name !== "websocket") this.el.rtt.textContent = "";
  }

  onEntry(raw) {
    const e = JSON.parse(raw);
    const have = this.receipts.lastSeq;
    if (e.seq <= have) return; // already kept (a resumed stream never repeats one, but be sure)
    if (e.seq !== have + 1) throw new NetworkError(`gap: expected seq ${have + 1}, got ${e.seq}`);
    this.receipts.add(e.seq, raw);
    this.lastEntrySeq = e.seq;
    const waiters = this.entryWaiters?.get(e.seq);
    if (waiters) {
      this.entryWaiters.delete(e.seq);
      for (const w of waiters) w(e);
    }
    probe.lastEntry = e.seq;
    if (e.seq === 0) {
      this.el.waiting.hidden = true;
      clearInterval(this.tablePoll);
    }
    if (!this.receipts.header) this.fetchHeader();
    this.narrate(e, true);
    this.requestView();
  }

  fetchHeader() {
    this.headerWanted ??= (async () => {
      for (let attempt = 0; attempt < 20 && !this.receipts.header; attempt += 1) {
        try {
          const { text } = await call(`/v1/games/${this.s.game_id}/log`, { token: this.s.token, text: true });
          const first = text.split("\n", 1)[0];
          if (first.includes('"type":"header"')) this.receipts.setHeader(first);
        } catch {
          await new Promise((r) => setTimeout(r, 250 * (attempt + 1)));
        }
      }
    })();
    return this.headerWanted;
  }

  narrate(entry, live) {
    const text = narrateEntry(this.s.game, entry);
    this.history.push({ seq: entry.seq, text, seat: entry.seat, kinds: (entry.events || []).map((x) => x.kind) });
    (probe.narrated ??= {})[entry.seq] = text;
    if (this.history.length > HISTORY) this.history.shift();
    this.el.narration.replaceChildren(...[...this.history].reverse().map((x) =>
      h("li", { dataset: { seq: x.seq } }, h("span", { class: "seq" }, `#${x.seq}`), " ", x.text)));
    probe.onChange?.("narration");
    if (live && /slapped|takes|collects|wins|burns|round over|resigned|eliminated|out in place/.test(text)) {
      this.el.live.textContent = text;
    }
  }

  // ------------------------------------------------------------------ the view

  requestView() {
    if (this.viewBusy) {
      this.viewWanted = true;
      return;
    }
    this.viewBusy = true;
    this.viewWanted = false;
    this.channel.view()
      .then((v) => {
        if (!this.view || v.seq >= this.view.seq) {
          this.view = v;
          this.pruneSelection();
          this.present = v.present_seats || [];
          this.render();
        }
      })
      .catch((err) => {
        if (err instanceof ApiError && err.code === "GameNotStarted") this.showWaiting();
        else if (err instanceof ApiError && err.status < 500 && err.status !== 409) this.showRejection(err);
      })
      .finally(() => {
        this.viewBusy = false;
        if (this.viewWanted && !this.stopped) this.requestView();
      });
  }

  ctx() {
    const v = this.view;
    return {
      seat: this.seat,
      view: v.view,
      legal: v.legal_commands,
      present: this.present,
      seatKinds: this.seatKinds,
      rules: this.rules(),
      over: Boolean(v.outcome) || this.finished,
      selection: this.selection,
      act: (cmd, t0) => this.act(cmd, t0),
      toggle: (card) => this.toggle(card),
      clearSelection: () => { this.selection = []; this.render(); },
      selectedCommand: () => this.selectedCommand(),
      pending: this.pending,
      setPending: (p) => { this.pending = p; this.drawSelection(); },
    };
  }

  render() {
    const v = this.view;
    if (!v || !this.ui) return;
    const ctx = this.ctx();
    const view = v.view;
    this.el.board.dataset.seq = String(v.seq);
    this.el.board.dataset.entries = String(this.receipts.lastSeq);
    replaceKeepingFocus(this.el.board, this.ui.board(view, ctx));
    // the legal commands (Resign has its own button, with a confirmation): the direct ones as
    // buttons, and every one of them in the list (L), which says how many there are
    const legal = ctx.over ? [] : v.legal_commands.filter((c) => c.kind !== "Resign");
    replaceKeepingFocus(this.el.controls,
      this.seat === null ? h("p", { class: "help" }, "You are watching.") : null,
      legal.filter((c) => this.ui.direct(c)).map((c) => actionButton(ctx, this.ui.fill(c, view), this.ui.label(c, ctx), { keyHint: this.ui.keyHint(c, ctx), cls: "big" })));
    const open = this.el.more.open;
    replaceKeepingFocus(this.el.more,
      h("summary", {}, `All your legal moves (${legal.length})`),
      h("div", { class: "legal-list" }, legal.map((c) => actionButton(ctx, this.ui.fill(c, view), this.ui.label(c, ctx), { keyHint: this.ui.keyHint(c, ctx), cls: "small" }))));
    this.el.more.open = open;
    // kept in its place when empty (no layout jump): just nothing to open
    this.el.more.classList.toggle("empty", legal.length === 0);
    this.drawSelection();
    this.el.status.textContent = this.statusText();
    const here = (this.present || []).map((s) => (s === this.seat ? "you" : `seat ${s}`));
    this.el.here.textContent = here.length ? `At the table: ${here.join(", ")}` : "";
    const rtt = v.rtt_ms ?? null;
    this.el.rtt.textContent = rtt === null ? "" : ` · RTT ${Math.round(rtt)} ms`;
    probe.rttMs = rtt;
    probe.renders += 1;
    if (probe.firstRenderMs === null) probe.firstRenderMs = performance.now();
    probe.view = v;
    probe.onChange?.("render");
    if (v.outcome) this.drawResign();
  }

  statusText() {
    const v = this.view;
    if (v.outcome) return `Game over: ${this.outcomeWords(v.outcome)}`;
    return this.ui.status(v.view, this.ctx());
  }

  outcomeWords(o) {
    const me = this.seat;
    const seats = (xs) => xs.map((s) => (s === me ? `seat ${s} (you)` : `seat ${s}`)).join(", ");
    const how = TERMINATION_WORDS[o.termination] ?? o.termination;
    if (o.termination === "aborted") return `aborted, no winner (${how})`;
    let t = o.winners.length ? `${seats(o.winners)} ${o.winners.length === 1 ? "wins" : "win"}` : "no winner";
    if (o.losers.length) t += `; ${seats(o.losers)} ${o.losers.length === 1 ? "loses" : "lose"}`;
    if (o.scores && o.scores.length) t += `; scores ${o.scores.join("–")}`;
    return `${t} (${how})`;
  }

  // ------------------------------------------------------------------ selection (Palace)

  toggle(card) {
    const i = this.selection.indexOf(card);
    if (i >= 0) this.selection.splice(i, 1);
    else this.selection.push(card);
    this.render();
  }

  /** Keep only selected cards the seat still holds (a card played or taken is let go). */
  pruneSelection() {
    if (!this.selection.length || this.seat === null) return;
    const view = this.view.view;
    const held = [...(view.hands?.[this.seat] ?? []), ...(view.up?.[this.seat] ?? [])];
    this.selection = this.selection.filter((c) => held.includes(c));
  }

  /** The legal command the selected cards make (a play, a swap, the just-drawn cards), or
   * null: the page offers no command the rules refuse (in setup a hand card alone is none). */
  selectedCommand() {
    if (!this.view || !this.selection.length) return null;
    const sel = [...this.selection].sort();
    const legal = this.view.legal_commands;
    const match = (cards) => JSON.stringify([...cards].sort()) === JSON.stringify(sel);
    return legal.find((c) => (c.kind === "Play" || c.kind === "AddDrawn") && match(c.cards))
      ?? legal.find((c) => c.kind === "Swap" && match([c.hand_card, c.up_card]))
      ?? null;
  }

  drawSelection() {
    // a game with neither a selection nor a shortcut of several keys has no use for the row
    if (this.seat === null || !this.ui || !(this.ui.idleText || this.ui.pendingText)) {
      this.el.selection.hidden = true;
      return;
    }
    this.el.selection.hidden = false;
    const ctx = this.view ? this.ctx() : null;
    // words about keys are marked so: a touch screen hides them (app.css)
    const idle = () => {
      const [words, keys] = ctx && !ctx.over && this.ui.idleText ? this.ui.idleText(ctx) : ["", ""];
      return h("span", { class: "help" }, words, keys ? h("span", { class: "key-hint" }, keys) : null);
    };
    if (this.s.game !== "palace") {
      // the room is kept whether or not a shortcut is under way: nothing below it moves. Here
      // the row is the keys' (M, R: their prompts), so a touch screen hides it whole
      this.el.selection.classList.add("key-hint");
      const prompt = this.pending && this.ui.pendingText ? this.ui.pendingText(this.pending) : null;
      this.el.selection.replaceChildren(prompt ? h("span", { class: "pending", id: "pending" }, prompt) : idle());
      return;
    }
    if (!this.selection.length || !ctx) {
      replaceKeepingFocus(this.el.selection, idle());
      return;
    }
    const cmd = this.selectedCommand();
    replaceKeepingFocus(this.el.selection,
      cmd
        ? actionButton(ctx, cmd, this.ui.label(cmd, ctx), { keyHint: "Enter", cls: "primary", short: this.ui.short(cmd) })
        : h("span", { class: "help" }, this.ui.noMoveText(this.selection, ctx)),
      h("button", { type: "button", class: "small secondary", "aria-keyshortcuts": "Escape", dataset: { key: "clear" }, onclick: () => { this.selection = []; this.render(); } }, "Clear", h("kbd", {}, "Esc")));
  }

  // ------------------------------------------------------------------ acting

  onKey(ev) {
    if (!this.view || this.seat === null || this.finished || ev.repeat) return;
    if (ev.ctrlKey || ev.metaKey || ev.altKey || isTyping(ev.target)) return;
    // Space and Enter belong to a focused button or link (keyboard users press them there),
    // but Enter on a card being selected (Palace) plays the selection, as it does elsewhere
    const selecting = ev.code === "Enter" && ev.target?.matches?.(".card-btn[aria-pressed]");
    if ((ev.code === "Space" || ev.code === "Enter") && isControl(ev.target) && !selecting) return;
    const t0 = performance.now();
    if (ev.code === "Escape" && this.el.more.contains(ev.target)) {
      ev.preventDefault();
      this.el.board.focus({ preventScroll: true }); // back to the table's shortcuts
      return;
    }
    if ((ev.key === "l" || ev.key === "L") && !ev.shiftKey) {
      const first = this.el.more.querySelector("button");
      if (first) {
        ev.preventDefault();
        this.el.more.open = true;
        first.focus();
      }
      return;
    }
    const cmd = this.ui.key(ev, this.ctx());
    if (!cmd) return;
    ev.preventDefault();
    this.swallowKeyUp = ev.code;
    if (cmd === "handled") return;
    this.act(cmd, t0, ev.code);
  }

  async act(cmd, t0 = performance.now(), key = null) {
    if (!this.view || this.seat === null) return;
    const full = this.ui.fill(cmd, this.view.view);
    const id = actionId();
    this.clearRejection();
    let r;
    try {
      r = await this.channel.submit(full, id); // the channel retries with the same action_id
    } catch (err) {
      probe.acks.push({ kind: full.kind, key, ms: performance.now() - t0, rejected: err.code ?? String(err), cmd: full, transport: this.channel.transport });
      this.showRejection(err, full);
      return null;
    }
    const ack = { kind: full.kind, key, ms: performance.now() - t0, seq: r.seq, events: null, cmd: full, transport: this.channel.transport };
    probe.acks.push(ack);
    // the ack names the entry; its events come with the entry itself (over the WebSocket the
    // two frames may come in either order)
    const kinds = (entry) => { ack.events = entry.events.map((e) => e.kind); };
    if (r.entry) kinds(r.entry);
    else this.entryAt(r.seq).then(kinds);
    // the selection was for this command (a play, a swap, the just-drawn cards): let it go
    if (this.s.game === "palace" && ["Play", "Swap", "AddDrawn"].includes(full.kind)) {
      this.selection = [];
      this.drawSelection();
    }
    return r;
  }

  /** The entry `seq` once it is kept (at once if it is). */
  entryAt(seq) {
    const raw = this.receipts.entries[seq];
    if (raw !== undefined) return Promise.resolve(JSON.parse(raw));
    this.entryWaiters ??= new Map();
    if (!this.entryWaiters.has(seq)) this.entryWaiters.set(seq, []);
    return new Promise((resolve) => this.entryWaiters.get(seq).push(resolve));
  }

  clearRejection() {
    this.el.rejection.classList.remove("shown");
    this.el.rejection.removeAttribute("tabindex");
    this.el.rejection.dataset.code = "";
    this.el.rejection.replaceChildren();
  }

  showRejection(err, cmd = null) {
    const what = cmd ? `${this.ui?.label(cmd, this.ctxSafe()) ?? cmd.kind}: ` : "";
    this.el.rejection.classList.add("shown");
    this.el.rejection.tabIndex = 0; // a long reason scrolls in the box's fixed room
    this.el.rejection.dataset.code = err.code ?? "";
    this.el.rejection.replaceChildren(h("strong", {}, `Rejected — ${err.code ?? "error"}`), ` ${what}${err.detail ?? err.message}`);
  }

  ctxSafe() {
    return this.view ? this.ctx() : { view: {}, legal: [], seat: this.seat };
  }

  drawResign() {
    if (this.seat === null) {
      this.el.resign.replaceChildren();
      return;
    }
    if (this.finished || this.view?.outcome) {
      this.el.resign.replaceChildren();
      return;
    }
    const ask = h("button", { type: "button", class: "secondary", dataset: { key: "resign" } }, "Resign");
    ask.addEventListener("click", () => {
      const yes = h("button", { type: "button", class: "danger", dataset: { key: "resign-yes" } }, "Yes, resign");
      const no = h("button", { type: "button", class: "secondary", dataset: { key: "resign-no" } }, "Keep playing");
      yes.addEventListener("click", () => this.act({ kind: "Resign" }));
      no.addEventListener("click", () => this.drawResign());
      this.el.resign.replaceChildren(h("p", {}, "Leave this game? In a two-player game the other player wins."), yes, no);
      no.focus();
    });
    this.el.resign.replaceChildren(ask);
  }

  // ------------------------------------------------------------------ the table before the deal

  async loadTable() {
    try {
      await this.fetchTable();
      this.drawKeys(); // under this table's rules (a variant may add keys)
      if (this.view) this.render();
    } catch {
      /* the table is a courtesy: the game goes on without it */
    }
  }

  /** The table as the server has it now, acted on (onTable). */
  async fetchTable() {
    const t = await call(`/v1/games/${this.s.game_id}/table`, { token: this.s.token });
    this.onTable(t);
    return t;
  }

  /** What a table seen says to do: a seat owing its reveal reveals once the table is
   * `revealing`; until the deal the waiting panel says where the table stands; a table
   * cancelled says why. */
  onTable(t) {
    this.tableInfo = t;
    this.seatKinds = t.seats.map((x) => x.kind);
    const seen = (probe.tableStatuses ??= []);
    if (seen[seen.length - 1] !== t.status) seen.push(t.status);
    if (t.status === "revealing") this.reveal();
    if (this.receipts.lastSeq >= 0) return;
    if (t.status === "waiting" || t.status === "revealing") this.showWaiting();
    else if (t.status === "cancelled") this.showCancelled();
  }

  /** Reveal the entropy this seat committed to when it took its seat (its table is
   * `revealing`), at most one reveal under way; the session forgets it once revealed
   * (revealOwed). */
  reveal() {
    if (!this.s.entropy_to_reveal || this.revealing) return;
    this.revealing = revealOwed(this.s)
      .then((t) => {
        this.settleEntropy();
        probe.revealed = true;
        if (t) this.onTable(t);
      })
      .catch((err) => {
        this.settleEntropy();
        if (err instanceof ApiError && err.code === "TableCancelled") this.showCancelled();
        else if (err instanceof ApiError && err.status < 500 && err.code !== "NotRevealing") this.showRejection(err);
        // else (the network, the server busy): the next look at the table tries again
      })
      .finally(() => {
        this.revealing = null;
      });
  }

  /** This seat's session as kept: its entropy gone once the store forgot it. */
  settleEntropy() {
    if (this.s.entropy_to_reveal && !loadSession(this.s.game_id)?.entropy_to_reveal) {
      this.s = { ...this.s };
      delete this.s.entropy_to_reveal;
    }
  }

  /** The waiting panel: where the table stands before the deal (waiting for players, or its
   * seats revealing their entropy), and the creator's buttons. */
  showWaiting() {
    if (this.receipts.lastSeq >= 0 || this.cancelled) return;
    const t = this.tableInfo;
    if (t && t.status !== "waiting" && t.status !== "revealing") return; // dealt: entries follow
    const revealing = t?.status === "revealing";
    this.el.waiting.hidden = false;
    const words = tableStatusWords("revealing"); // "starting: seats are revealing their entropy"
    this.el.status.textContent = revealing ? `${words.charAt(0).toUpperCase()}${words.slice(1)}…` : "Waiting for players…";
    const links = revealing ? [] : (this.s.invites || []).map((inv) => {
      const link = `${location.origin}${location.pathname}#invite=${inv.code}`;
      const taken = t?.seats?.[inv.seat]?.taken;
      const copy = h("button", { type: "button", class: "small", onclick: () => navigator.clipboard?.writeText(link) }, "Copy");
      return h("li", {}, h("span", {}, `Seat ${inv.seat}${taken ? " (taken)" : ""}: `),
        h("a", { href: link, class: "invite-link", dataset: { seat: inv.seat } }, link), " ", copy);
    });
    const seatWords = (x) => {
      const who = x.kind === "human" ? (x.taken ? "taken" : `open${x.open ? ` (${x.open})` : ""}`) : `bot (${x.kind})`;
      if (!x.entropy_commitment) return `seat ${x.seat}: ${who}`;
      return `seat ${x.seat}: ${who}, ${x.revealed ? "entropy revealed" : revealing ? "revealing its entropy" : "entropy committed"}`;
    };
    const parts = [h("h2", { id: "waiting-title" }, revealing ? "Starting" : "Waiting for players")];
    if (t) parts.push(h("p", { id: "waiting-seats" }, t.seats.map(seatWords).join(" · ")));
    if (revealing) {
      parts.push(h("p", {}, "Every seat is final: each seat that committed to its entropy now reveals it. The last reveal deals the game; a seat that never reveals cancels the table."));
    }
    if (links.length) parts.push(h("p", {}, "Send each friend one link (each seat's link works once):"), h("ul", { class: "invites" }, links));
    if (this.s.creator_token) {
      const startBtn = h("button", { type: "button", class: "primary" }, "Start now (bots take the empty seats)");
      startBtn.addEventListener("click", async () => {
        try {
          await call(`/v1/games/${this.s.game_id}/start`, { method: "POST", token: this.s.creator_token, body: { fill_with: "reaction" } });
        } catch (err) {
          this.showRejection(err);
        }
      });
      const cancel = h("button", { type: "button", class: "secondary" }, "Cancel the table");
      cancel.addEventListener("click", async () => {
        try {
          await call(`/v1/games/${this.s.game_id}/abort`, { method: "POST", token: this.s.creator_token, body: {} });
        } catch (err) {
          this.showRejection(err);
        }
      });
      // once revealing, the seats are final: nothing to start, but the table can be cancelled
      parts.push(h("div", { class: "row" }, revealing ? null : startBtn, cancel));
    }
    this.el.waiting.replaceChildren(...parts);
    if (!this.tablePoll) {
      this.tablePoll = setInterval(async () => {
        if (this.receipts.lastSeq >= 0 || this.stopped || this.cancelled) {
          clearInterval(this.tablePoll);
          return;
        }
        try {
          await this.fetchTable(); // a table revealing: this seat's reveal goes at once
        } catch {
          /* try again */
        }
      }, 1500);
    }
  }

  /** The table was cancelled before the deal (its deadline, its creator, or a seat that never
   * revealed the entropy it committed to): said so, with the seats whose reveal is missing. */
  async showCancelled() {
    if (this.cancelled) return;
    this.cancelled = true;
    this.finished = true;
    clearInterval(this.tablePoll);
    this.drawResign(); // nothing to resign from
    this.el.status.textContent = "This table was cancelled before it was dealt.";
    this.el.waiting.hidden = true;
    let t = this.tableInfo;
    if (t?.status !== "cancelled") {
      try {
        t = await call(`/v1/games/${this.s.game_id}/table`, { token: this.s.token });
        this.tableInfo = t;
      } catch {
        /* said without the seats */
      }
    }
    if (this.s.entropy_to_reveal) {
      forgetEntropy(this.s.game_id); // nothing will be dealt: nothing to reveal any more
      this.settleEntropy();
    }
    // every seat taken (the start final) and a committed seat without its reveal: that seat's
    // missing reveal cancelled it (a table cancelled while waiting blames no one)
    const final = t && t.seats.every((x) => x.kind !== "human" || x.taken);
    const silent = final ? t.seats.filter((x) => x.entropy_commitment && !x.revealed) : [];
    const who = (x) => (x.seat === this.seat ? `You (seat ${x.seat})` : `Seat ${x.seat}`);
    const they = silent.length > 1 ? "they" : silent[0]?.seat === this.seat ? "you" : "it";
    const why = silent.length
      ? `${silent.map(who).join(", ")} did not reveal the entropy ${they} committed to, so the game could not be dealt.`
      : "Its creator cancelled it, or its seats were not all taken in time.";
    this.el.waiting.replaceChildren(
      h("h2", { id: "waiting-title" }, "The table was cancelled"),
      h("p", { id: "cancelled-why", dataset: { unrevealed: silent.map((x) => x.seat).join(",") } }, why),
      h("p", {}, h("a", { href: "#" }, "Back to the lobby")));
    this.el.waiting.hidden = false;
  }

  // ------------------------------------------------------------------ the end

  async finish() {
    if (this.finished) return;
    this.finished = true;
    clearInterval(this.presenceTimer);
    warmUp();
    this.requestView();
    this.drawResign();
    const o = this.outcome;
    const endLine = this.receipts.end;
    const seed = endLine ? (/"seed":(\d+)/.exec(endLine) || [])[1] : null; // as text: 64-bit
    this.el.end.hidden = false;
    const verdicts = h("div", { class: "verdicts", id: "verdicts", "aria-live": "polite" }, h("p", {}, "Checking the game in this page (cardcore verify, run in Pyodide)…"));
    const downloads = h("p", { class: "row downloads" });
    this.el.end.replaceChildren(
      h("h2", { id: "end-title" }, "The game is over"),
      h("p", { class: "outcome", id: "outcome", dataset: { termination: o.termination, winners: o.winners.join(",") } }, this.outcomeWords(o)),
      seed ? h("p", {}, "Revealed seed: ", h("code", { id: "seed" }, seed)) : null,
      downloads, verdicts,
      h("p", {}, h("a", { href: "#" }, "Back to the lobby")));
    this.el.status.textContent = `Game over: ${this.outcomeWords(o)}`;
    await this.fetchHeader();
    let final = null;
    try {
      final = (await call(`/v1/games/${this.s.game_id}/log`, { token: this.s.token, text: true })).text;
    } catch (err) {
      verdicts.replaceChildren(h("p", { class: "problem" }, `The final log could not be downloaded: ${err.message}`));
    }
    const mine = this.receipts.text();
    const base = `${this.s.game}-${this.s.game_id.slice(0, 8)}`;
    downloads.replaceChildren(
      final ? download(`${base}.jsonl`, final, "Download the log") : null, " ",
      download(`${base}-${this.s.viewer}.receipts.jsonl`, mine, "Download your receipts"));
    probe.final = final;
    probe.receipts = mine;
    const results = [];
    // the signatures are checked in each verdict, against the key this server gave when the
    // game began (a log swapped or re-signed later, even with a consistent chain, fails)
    const opts = { serverKey: this.s.server_key || null };
    probe.serverKey = opts.serverKey;
    try {
      const own = await verifyLog(mine, opts);
      results.push(verdictEl(own, "Your receipts, on their own (the game rebuilt from the revealed seed)"));
      probe.ownVerdict = own;
      if (final) {
        const held = await checkCopy(mine, final, opts);
        results.push(verdictEl(held, "The server's final log, held to your receipts"));
        const whole = await verifyLog(final, opts);
        results.push(verdictEl(whole, "The final log"));
        probe.copyVerdict = held;
        probe.finalVerdict = whole;
      }
      verdicts.replaceChildren(...results);
    } catch (err) {
      verdicts.replaceChildren(...results, h("p", { class: "problem" }, `The verifier could not run: ${err.message}`));
    }
    probe.verified = true;
  }
}
