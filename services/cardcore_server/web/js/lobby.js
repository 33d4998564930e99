// The lobby: the catalogue's games and their variant flags (from the JSON Schemas), seats
// (you, bots with a reaction time, friends by invite link, anyone), the public tables to join,
// the games this browser holds, invite links (#invite=CODE), and a log checker. A seat taken
// here (created as yours, or joined) commits to its entropy and reveals it once the table's
// seats are final (docs/rng.md, "Committed entropy"; revealOwed).

import { ApiError, call, entropy, joinEntropy, revealEntropy, serverKey } from "./api.js";
import { h } from "./dom.js";
import { saveSession, myGames, forgetGame, forgetEntropy } from "./store.js";
import { checkCopy, verifyLog } from "./verify.js";

const SEAT_KINDS = [
  ["you", "You"],
  ["reaction", "Bot: plays sensibly"],
  ["random", "Bot: plays at random"],
  ["invite", "A friend (invite link)"],
  ["anyone", "Anyone (open seat)"],
];

let catalogue = null;

/** A table's status in words (the server's word where it is one already). */
export function tableStatusWords(status) {
  return status === "revealing" ? "starting: seats are revealing their entropy" : status;
}

/** A reveal refused so (the value, the token, the table gone): no later try would do better. */
const NEVER = new Set([400, 401, 403, 404, 422]);

/**
 * Reveal the entropy this seat committed to when it took its seat (its table `revealing`), and
 * forget it: the table the server answered (the last reveal deals it), or null when the seat
 * owes none. A value refused, or a table cancelled meanwhile, is forgotten too and the error thrown;
 * any other error (not revealing yet, the network) keeps it for the next try.
 */
export async function revealOwed(session) {
  const value = session?.entropy_to_reveal;
  if (!value || !session.token) return null;
  try {
    const table = await revealEntropy(session.game_id, session.token, value);
    forgetEntropy(session.game_id);
    return table;
  } catch (err) {
    if (err instanceof ApiError && (NEVER.has(err.status) || err.code === "TableCancelled")) forgetEntropy(session.game_id);
    throw err;
  }
}

/**
 * Keep a seat taken (`s`, its session: a join's, or the creator's own seat): its token and,
 * beside it, the entropy it committed to (a reload still reveals it). A seat whose table is
 * already `revealing` (the join that made the seats final, or a creation with no open seat)
 * reveals at once; should that fail, the table's page tries again.
 */
async function keepSeat(s, reveal, status) {
  if (reveal) s.entropy_to_reveal = reveal;
  saveSession(s);
  if (reveal && status === "revealing") await revealOwed(s).catch(() => {});
}

/** The session of a seat a join took (JoinTable's or an invite's answer). */
const joinedSession = (joined, game, key) =>
  ({ game_id: joined.game_id, game, token: joined.token, seat: joined.seat, viewer: String(joined.seat), server_key: key });

export async function getCatalogue() {
  catalogue ??= (await call("/v1/games")).games;
  return catalogue;
}

/** An identifier in words: "to_player_of_top_card" → "to player of top card". */
const words = (text) => String(text).replaceAll("_", " ");

/**
 * A variant rule in words, from the catalogue's help (its name is an identifier): the help's
 * head is the label — up to a colon outside brackets ("after round end (A) with two spit piles:
 * slap for them, or the emptier chooses"), else without a closing bracketed list or gloss
 * ("stock piles in a layout (5: 1..5 cards; 4: 1..4)"; a short aside such as "(or a power)"
 * stays); the rest is the detail.
 */
export function flagWords(flag) {
  const help = words(flag.help || flag.name);
  const cap = (t) => t.charAt(0).toUpperCase() + t.slice(1);
  let depth = 0;
  for (let i = 0; i < help.length; i += 1) {
    if (help[i] === "(") depth += 1;
    else if (help[i] === ")") depth -= 1;
    else if (help[i] === ":" && help[i + 1] === " " && depth === 0) return { label: cap(help.slice(0, i)), detail: help.slice(i + 2) };
  }
  const remark = /^(.*\S)\s+\(([^()]*[:;,][^()]*)\)$/.exec(help);
  return remark ? { label: cap(remark[1]), detail: remark[2] } : { label: cap(help), detail: "" };
}

/** A rule's value in words: on / off, none, identifiers as words, lists and maps spelled out. */
export function valueWords(value) {
  if (value === true) return "on";
  if (value === false) return "off";
  if (value === null || value === undefined) return "none";
  if (Array.isArray(value)) return value.length ? value.map(valueWords).join(", ") : "none";
  if (typeof value === "object") return Object.entries(value).map(([k, v]) => `${words(k)} ${valueWords(v)}`).join(", ");
  return words(value);
}

/** The value a flag's control holds, parsed by its schema (undefined: left at its default). */
function flagControl(flag, idBase) {
  const s = flag.schema || {};
  const id = `${idBase}-${flag.name}`;
  const { label: text, detail } = flagWords(flag);
  const help = h("span", { class: "help", id: `${id}-help` }, `${detail ? `${detail} · ` : ""}default: ${valueWords(flag.default)}`);
  const label = h("label", { for: id }, text);
  let control;
  let read;
  if (s.type === "boolean") {
    control = h("input", { type: "checkbox", id, "aria-describedby": `${id}-help` });
    control.checked = Boolean(flag.default);
    read = () => control.checked;
    // a box before its words, as check boxes go
    return { el: h("div", { class: "flag flag-box", dataset: { flag: flag.name } }, control, label, help), name: flag.name, read, flag };
  } else if (Array.isArray(s.enum)) {
    control = h("select", { id, "aria-describedby": `${id}-help` },
      s.enum.map((v) => h("option", { value: v, selected: v === flag.default }, valueWords(v))));
    read = () => control.value;
  } else if (s.type === "array" && s.items && Array.isArray(s.items.enum)) {
    const boxes = s.items.enum.map((v) => {
      const box = h("input", { type: "checkbox", id: `${id}-${v}`, value: v });
      box.checked = (flag.default || []).includes(v);
      return [v, box];
    });
    control = h("fieldset", { class: "flag-set", "aria-describedby": `${id}-help` },
      h("legend", {}, text),
      boxes.map(([v, box]) => h("label", { class: "inline" }, box, ` ${valueWords(v)}`)));
    read = () => boxes.filter(([, b]) => b.checked).map(([v]) => v);
    return { el: h("div", { class: "flag", dataset: { flag: flag.name } }, control, help), name: flag.name, read, flag };
  } else if (s.type === "integer" || (s.anyOf && s.anyOf.some((x) => x.type === "integer"))) {
    const nullable = Boolean(s.anyOf && s.anyOf.some((x) => x.type === "null"));
    control = h("input", {
      type: "number", id, step: 1, inputmode: "numeric",
      min: s.minimum ?? null, max: s.maximum ?? null,
      placeholder: nullable ? "none" : null, "aria-describedby": `${id}-help`,
    });
    control.value = flag.default === null ? "" : String(flag.default);
    read = () => (control.value === "" ? (nullable ? null : undefined) : Number(control.value));
  } else {
    control = h("textarea", { id, rows: 2, "aria-describedby": `${id}-help`, spellcheck: "false" });
    control.value = JSON.stringify(flag.default);
    read = () => JSON.parse(control.value);
  }
  return { el: h("div", { class: "flag", dataset: { flag: flag.name } }, label, control, help), name: flag.name, read, flag };
}

function timeAgo(ms) {
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  return `${Math.round(s / 3600)} h ago`;
}

function errorBox() {
  return h("p", { class: "problem", role: "alert", hidden: true });
}

function showError(box, err) {
  box.hidden = false;
  box.textContent = err?.code ? `${err.code}: ${err.detail}` : String(err?.message || err);
}

export async function renderLobby(main) {
  const games = await getCatalogue();
  const form = h("form", { class: "create", "aria-labelledby": "new-game" });
  const gameList = h("fieldset", { class: "games" }, h("legend", {}, "Game"));
  const state = { game: games[0].name, seats: ["you", "reaction"], flags: [] };
  const radios = games.map((g, i) => {
    const r = h("input", { type: "radio", name: "game", value: g.name, id: `game-${g.name}`, checked: i === 0 });
    r.addEventListener("change", () => {
      state.game = g.name;
      const n = Math.min(Math.max(state.seats.length, g.min_seats), g.max_seats);
      state.seats = state.seats.slice(0, n);
      while (state.seats.length < n) state.seats.push("reaction");
      drawSeats();
      drawFlags();
    });
    return h("label", { class: "game-choice", for: `game-${g.name}` }, r,
      h("span", { class: "game-title" }, g.title),
      h("span", { class: "game-meta" }, `${g.min_seats === g.max_seats ? g.min_seats : `${g.min_seats}–${g.max_seats}`} players${g.realtime ? " · real-time" : ""}`));
  });
  gameList.append(...radios);

  const seatsBox = h("fieldset", { class: "seats" }, h("legend", {}, "Seats"));
  const seatRows = h("ol", { class: "seat-rows" });
  const addSeat = h("button", { type: "button", class: "small" }, "Add a seat");
  const removeSeat = h("button", { type: "button", class: "small" }, "Remove the last seat");
  seatsBox.append(seatRows, h("div", { class: "row" }, addSeat, removeSeat));
  const current = () => games.find((g) => g.name === state.game);
  function drawSeats() {
    const g = current();
    seatRows.replaceChildren(...state.seats.map((kind, i) => {
      const sel = h("select", { id: `seat-${i}`, name: `seat-${i}` },
        SEAT_KINDS.map(([v, t]) => h("option", { value: v, selected: v === kind }, t)));
      sel.addEventListener("change", () => { state.seats[i] = sel.value; });
      return h("li", {}, h("label", { for: `seat-${i}` }, `Seat ${i}`), sel);
    }));
    addSeat.disabled = state.seats.length >= g.max_seats;
    removeSeat.disabled = state.seats.length <= g.min_seats;
  }
  addSeat.addEventListener("click", () => { state.seats.push("reaction"); drawSeats(); });
  removeSeat.addEventListener("click", () => { state.seats.pop(); drawSeats(); });

  // out of bounds or empty, the browser says so (and submits nothing); the wrong way round, the
  // form does: never a value changed behind the person's back
  const botMin = h("input", { type: "number", id: "bot-min", min: 0, max: 60000, step: 1, value: 300, inputmode: "numeric", required: true });
  const botMax = h("input", { type: "number", id: "bot-max", min: 0, max: 60000, step: 1, value: 900, inputmode: "numeric", required: true });
  for (const x of [botMin, botMax]) x.addEventListener("input", () => { botMin.removeAttribute("aria-invalid"); botMax.removeAttribute("aria-invalid"); });
  const botBox = h("fieldset", { class: "bots" }, h("legend", {}, "Bots' reaction time"),
    h("div", { class: "row" },
      h("label", { for: "bot-min" }, "fastest (ms)"), botMin,
      h("label", { for: "bot-max" }, "slowest (ms)"), botMax),
    h("p", { class: "help" }, "Each bot answers after a delay drawn between these. Fast bots win most slap races."));

  const flagsBox = h("details", { class: "flags" });
  function drawFlags() {
    const g = current();
    state.flags = g.flags.map((f) => flagControl(f, `flag-${g.name}`));
    flagsBox.replaceChildren(h("summary", {}, `Variant rules of ${g.title} (${g.flags.length})`), ...state.flags.map((f) => f.el));
  }

  const publicBox = h("input", { type: "checkbox", id: "public" });
  const limit = h("input", { type: "number", id: "event-limit", min: 0, step: 1, value: "", placeholder: "no limit", inputmode: "numeric" });
  const options = h("fieldset", { class: "options" }, h("legend", {}, "Table"),
    h("div", { class: "row" }, publicBox, h("label", { for: "public" }, "List the table publicly (its open seats are for anyone)")),
    h("div", { class: "row" }, h("label", { for: "event-limit" }, "End the game after this many events"), limit));

  const problem = errorBox();
  const submit = h("button", { type: "submit", class: "primary" }, "Create the table");
  form.append(h("h2", { id: "new-game" }, "New game"), gameList, seatsBox, botBox, flagsBox, options, problem, submit);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    problem.hidden = true;
    const g = current();
    const rules = {};
    try {
      for (const f of state.flags) {
        const v = f.read();
        if (v !== undefined && JSON.stringify(v) !== JSON.stringify(f.flag.default)) rules[f.name] = v;
      }
    } catch (err) {
      showError(problem, `a variant rule is not valid JSON: ${err.message}`);
      return;
    }
    const lo = Number(botMin.value);
    const hi = Number(botMax.value);
    if (lo > hi) {
      for (const x of [botMin, botMax]) x.setAttribute("aria-invalid", "true");
      showError(problem, `The bots' fastest reaction time (${lo} ms) is slower than their slowest (${hi} ms): make the fastest no more than the slowest.`);
      botMin.focus();
      return;
    }
    submit.disabled = true;
    try {
      // 16 random bytes each of your seats adds to the deal. The seat this page plays (and
      // keeps the token of: the first of yours) commits to its bytes now and reveals them once
      // the seats are final, as a join does, so the server commits to its own seed before it
      // knows them; any further seat of yours (its token not kept, so it could never reveal)
      // gives its bytes in the open. (Without Web Crypto the first gives them in the open too.)
      const first = state.seats.indexOf("you");
      const commit = first >= 0 ? await joinEntropy() : null;
      const seats = state.seats.map((kind, i) => {
        if (kind === "you") return { kind: "human", ...(i === first ? commit.body : { entropy: entropy() }) };
        if (kind === "invite" || kind === "anyone") return { kind: "human", open: kind };
        return { kind, bot_min_delay_ms: lo, bot_max_delay_ms: hi };
      });
      const body = { game: g.name, seats, rules, public: publicBox.checked };
      if (limit.value) body.event_limit = Number(limit.value);
      const key = await serverKey().catch(() => null);
      const created = await call("/v1/games", { method: "POST", body });
      const mine = created.seat_tokens.find((x) => x.seat === first) ?? created.seat_tokens[0] ?? null;
      const session = {
        game_id: created.game_id,
        game: g.name,
        token: mine ? mine.token : created.spectator_token,
        seat: mine ? mine.seat : null,
        viewer: mine ? String(mine.seat) : "spectator",
        creator_token: created.creator_token,
        invites: created.invites.map((i) => ({ seat: i.seat, code: i.code })),
        server_key: key,
      };
      // no open seat: the table is `revealing` at once and this seat's reveal deals it (before
      // the table's page opens); else the table's page reveals once the seats are filled
      const owed = mine && mine.seat === first ? commit?.reveal : null;
      await keepSeat(session, owed, created.status);
      location.hash = `#game=${created.game_id}`;
    } catch (err) {
      showError(problem, err);
    } finally {
      submit.disabled = false;
    }
  });
  drawSeats();
  drawFlags();

  const tables = h("section", { class: "tables", "aria-labelledby": "open-tables" });
  const mine = h("section", { class: "mine", "aria-labelledby": "your-games" });
  const checker = logChecker();
  main.replaceChildren(
    h("h1", {}, "The web table"),
    h("p", { class: "lead" }, "Play Egyptian Ratscrew, Slapjack, Palace, Spit and Speed against bots or friends. Every game is logged, and this page checks the log itself when it ends."),
    h("div", { class: "lobby" }, form, h("div", { class: "side" }, tables, mine, checker)),
  );
  drawTables(tables, games);
  drawMine(mine, games);
}

async function drawTables(box, games) {
  const problem = errorBox();
  const list = h("ul", { class: "table-list" });
  const refresh = h("button", { type: "button", class: "small", onclick: () => drawTables(box, games) }, "Refresh");
  box.replaceChildren(h("h2", { id: "open-tables" }, "Open tables"), list, refresh, problem);
  try {
    const page = await call("/v1/tables?page_size=20");
    if (!page.tables.length) list.append(h("li", { class: "empty" }, "No public table is waiting for players."));
    for (const t of page.tables) {
      const g = games.find((x) => x.name === t.game);
      const free = t.seats.filter((s) => s.open === "anyone" && !s.taken);
      const join = h("button", { type: "button", class: "small" }, `Join ${g ? g.title : t.game}`);
      join.addEventListener("click", async () => {
        try {
          const key = await serverKey().catch(() => null);
          // 16 random bytes this seat adds to the deal, committed to now, revealed at the start
          const mine = await joinEntropy();
          const j = await call("/v1/tables/join", { method: "POST", body: { game_id: t.game_id, ...mine.body } });
          await keepSeat(joinedSession(j, t.game, key), mine.reveal, j.status);
          location.hash = `#game=${j.game_id}`;
        } catch (err) {
          showError(problem, err);
        }
      });
      const watch = h("button", { type: "button", class: "small secondary" }, "Watch");
      watch.addEventListener("click", async () => {
        try {
          const key = await serverKey().catch(() => null);
          const w = await call(`/v1/games/${t.game_id}/watch`, { method: "POST", body: {} });
          saveSession({ game_id: t.game_id, game: t.game, token: w.spectator_token, seat: null, viewer: "spectator", server_key: key });
          location.hash = `#game=${t.game_id}`;
        } catch (err) {
          showError(problem, err);
        }
      });
      list.append(h("li", { dataset: { game: t.game_id } },
        h("span", {}, `${g ? g.title : t.game}: ${t.seats.length} seats, ${free.length} free · ${timeAgo(t.created_ms)}`),
        free.length ? join : null, watch));
    }
  } catch (err) {
    showError(problem, err);
  }
}

async function drawMine(box, games) {
  const held = myGames();
  box.replaceChildren(h("h2", { id: "your-games" }, "Your games"));
  if (!held.length) {
    box.append(h("p", { class: "empty" }, "None yet in this browser."));
    return;
  }
  const list = h("ul", { class: "table-list" });
  box.append(list);
  let status = [];
  try {
    status = (await call("/v1/my-games", { method: "POST", body: { tokens: held.map((g) => g.token) } })).games;
  } catch {
    status = [];
  }
  held.forEach((g, i) => {
    const t = status[i]?.table;
    if (t?.status === "revealing" && g.entropy_to_reveal) revealOwed(g).catch(() => {});
    const title = games.find((x) => x.name === g.game)?.title ?? g.game;
    const who = g.seat === null || g.seat === undefined ? "watching" : `seat ${g.seat}`;
    list.append(h("li", {},
      h("a", { href: `#game=${g.game_id}` }, `${title}, ${who}`),
      h("span", { class: "help" }, t ? ` · ${tableStatusWords(t.status)}` : ""),
      h("button", { type: "button", class: "small secondary", "aria-label": `Forget ${title}, ${who}`, onclick: () => { forgetGame(g.game_id); drawMine(box, games); } }, "Forget")));
  });
}

/** Drop a log (or a copy, or receipts; or your receipts and the final log) to check it here. */
export function logChecker() {
  const input = h("input", { type: "file", id: "log-file", multiple: true, accept: ".jsonl,.json,.txt,application/x-ndjson" });
  const out = h("div", { class: "verdict-box", "aria-live": "polite", id: "log-verdict" });
  const zone = h("div", { class: "dropzone", id: "dropzone" },
    h("p", {}, "Drop a downloaded log here, or your receipts and the final log together, or "),
    h("label", { for: "log-file", class: "button small" }, "choose files…"), input);
  async function check(files) {
    out.replaceChildren(h("p", {}, "Checking with cardcore verify (in this page, trusting no server)…"));
    try {
      const texts = await Promise.all([...files].map((f) => f.text()));
      let i = 0;
      if (texts.length >= 2) {
        const isMine = (t) => /"type":"receipts"|"copy":\{/.test(t.split("\n", 2).join("\n"));
        i = isMine(texts[0]) || !isMine(texts[1]) ? 0 : 1;
      }
      const final = texts.length >= 2 ? texts[1 - i] : texts[0];
      // the signatures too, against this server's key when the log says this server signed
      // it (a log signed elsewhere: the verdict names its key, unchecked)
      const key = await serverKey().catch(() => null);
      const ours = key && final.includes(`"key":"${key}"`);
      const opts = { serverKey: ours ? key : null };
      const r = texts.length >= 2 ? await checkCopy(texts[i], final, opts) : await verifyLog(texts[0], opts);
      out.replaceChildren(verdictEl(r, files.length >= 2 ? "Your copy against the final log" : files[0].name));
    } catch (err) {
      out.replaceChildren(h("p", { class: "problem", role: "alert" }, String(err.message || err)));
    }
  }
  input.addEventListener("change", () => input.files.length && check(input.files));
  zone.addEventListener("dragover", (ev) => { ev.preventDefault(); zone.classList.add("over"); });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (ev) => {
    ev.preventDefault();
    zone.classList.remove("over");
    if (ev.dataTransfer?.files?.length) check(ev.dataTransfer.files);
  });
  return h("section", { class: "checker", "aria-labelledby": "check-log" }, h("h2", { id: "check-log" }, "Check a log"), zone, out);
}

/** Each verdict's heading: its first words (cardcore.verdicts), as the page titles them. */
const STATUS_WORDS = {
  valid: "Valid",
  "self-consistent": "Self-consistent only (not authenticated)",
  invalid: "Invalid",
  partial: "Consistent so far",
  unsupported: "Not a file this check can judge",
  error: "Could not check",
};

/** A verdict of `cardcore verify` as the page shows it. */
export function verdictEl(r, title) {
  return h("div", { class: `verdict verdict-${r.status}`, dataset: { status: r.status, seq: r.seq ?? "", exit: r.exit } },
    h("p", { class: "verdict-title" }, h("strong", {}, `${STATUS_WORDS[r.status] ?? r.status}`), ` — ${title}`,
      r.seq !== null ? h("span", { class: "bad-seq" }, ` (first bad entry: seq ${r.seq})`) : r.where === "header" ? " (the header)" : ""),
    h("pre", { class: "verdict-text" }, r.text));
}

export async function renderInvite(main, code) {
  const problem = errorBox();
  main.replaceChildren(h("h1", {}, "An invitation"), h("p", {}, "Looking up the invite…"), problem);
  let info;
  try {
    info = await call(`/v1/invites/${encodeURIComponent(code)}`);
  } catch (err) {
    main.replaceChildren(h("h1", {}, "An invitation"), problem, h("p", {}, h("a", { href: "#" }, "Back to the lobby")));
    showError(problem, err);
    return;
  }
  const games = await getCatalogue();
  const t = info.table;
  const g = games.find((x) => x.name === t.game);
  const seats = h("ul", { class: "seat-summary" }, t.seats.map((s) => h("li", {},
    `Seat ${s.seat}: ${s.kind === "human" ? (s.open ? `open (${s.open})` : "a player") : `bot (${s.kind})`}${s.taken ? ", taken" : ", free"}${s.seat === info.seat ? " — yours if you accept" : ""}`)));
  const take = h("button", { type: "button", class: "primary" }, `Take seat ${info.seat}`);
  take.addEventListener("click", async () => {
    take.disabled = true;
    problem.hidden = true;
    try {
      // the invite link's own POST, with 16 random bytes this seat adds to the deal (committed
      // to now, revealed at the start)
      const key = await serverKey().catch(() => null);
      const mine = await joinEntropy();
      const j = await call(`/v1/invites/${encodeURIComponent(code)}`, { method: "POST", body: mine.body });
      await keepSeat(joinedSession(j, t.game, key), mine.reveal, j.status);
      history.replaceState(null, "", `#game=${j.game_id}`);
      dispatchEvent(new HashChangeEvent("hashchange"));
    } catch (err) {
      take.disabled = false;
      showError(problem, err);
    }
  });
  const rules = Object.entries(t.rules || {}).filter(([k, v]) => {
    const f = g?.flags.find((x) => x.name === k);
    return f && JSON.stringify(f.default) !== JSON.stringify(v);
  });
  main.replaceChildren(
    h("h1", {}, `An invitation to ${g ? g.title : t.game}`),
    h("p", {}, `You are invited to seat ${info.seat} of a table of ${t.seats.length}. It is ${tableStatusWords(t.status)}.`),
    rules.length
      ? h("div", {}, h("p", {}, "Variant rules:"), h("ul", { class: "rule-list" }, rules.map(([k, v]) => h("li", {}, `${flagWords(g.flags.find((x) => x.name === k)).label}: ${valueWords(v)}`))))
      : h("p", {}, "Standard rules."),
    seats, problem, t.status === "waiting" ? take : h("p", {}, "This table is no longer waiting for players."),
    h("p", {}, h("a", { href: "#" }, "Back to the lobby")),
  );
}
