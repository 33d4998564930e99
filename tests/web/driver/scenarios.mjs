// The browser scenarios. Each gets the browser and {base, out, ...} and returns what the
// Python tests check (against the server's log and against `cardcore verify`).

import {
  axe, createThroughLobby, decide, endPanel, gesture, gestureCounts, nextRender, openLobby, person,
  playToEnd, screenshot, session, shown,
} from "./lib.mjs";

// Every layout shift the page makes (PerformanceObserver 'layout-shift'), with the elements
// that moved, for the tests to add up as cumulative layout shift.
const LAYOUT = `
  window.__layout = { shifts: [] };
  const name = (n) => !n || n.nodeType !== 1 ? String(n && n.nodeName) :
    n.tagName.toLowerCase() + (n.id ? "#" + n.id : "") + (typeof n.className === "string" && n.className ? "." + n.className.trim().split(/\\s+/).join(".") : "");
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      window.__layout.shifts.push({ t: e.startTime, value: e.value, input: e.hadRecentInput, sources: (e.sources || []).map((x) => name(x.node)) });
    }
  }).observe({ type: "layout-shift", buffered: true });
`;

/** The buttons a pointer can press on the table that no key names (aria-keyshortcuts); the
 * legal-move list is reached with L, Resign with Tab. */
async function unkeyed(page) {
  return page.evaluate(() => [...document.querySelectorAll("#board button, #controls button, #selection button")]
    .filter((b) => !b.disabled && !b.closest("#legal") && !b.getAttribute("aria-keyshortcuts"))
    .map((b) => (b.dataset.keyroute ? `${b.dataset.keyroute}:` : "") + (b.dataset.key || b.textContent.trim())));
}

/**
 * Where the page's controls are on screen: each visible button, link, summary, form control,
 * card of your own and child of the selection and controls rows, its box, and the boxes that
 * cut it off (the viewport's sides, or an ancestor whose overflow is not visible); the status
 * line's box; the key hints a person can see (kbd, outside the shortcuts' list).
 */
function geometry() {
  const vw = document.documentElement.clientWidth;
  const vh = innerHeight;
  const name = (el) => el.id ? `#${el.id}` : (el.dataset?.key ?? (el.getAttribute("aria-label") || el.textContent.trim().replace(/\s+/g, " ").slice(0, 50) || el.className));
  const box = (el) => {
    const r = el.getBoundingClientRect();
    return { left: Math.round(r.left), top: Math.round(r.top), right: Math.round(r.right), bottom: Math.round(r.bottom) };
  };
  // (a closed details' content keeps its boxes in Chromium: checkVisibility knows it is hidden)
  const shown = (el) => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && el.checkVisibility({ visibilityProperty: true }) && !el.closest(".sr-only");
  };
  const cut = (el) => {
    const r = el.getBoundingClientRect();
    const by = [];
    if (r.left < -0.5 || r.right > vw + 0.5) by.push("the viewport");
    for (let a = el.parentElement; a && a !== document.documentElement; a = a.parentElement) {
      const cs = getComputedStyle(a);
      if (cs.overflowX === "visible" && cs.overflowY === "visible") continue;
      const b = a.getBoundingClientRect();
      if (r.left < b.left - 0.5 || r.right > b.right + 0.5 || r.top < b.top - 0.5 || r.bottom > b.bottom + 0.5) by.push(a.id ? `#${a.id}` : `.${a.className}`);
    }
    return by;
  };
  const selector = "#main button, #main a, #main summary, #main select, #main input, #main .seat-box.me .card, #selection > *, #controls > *";
  const controls = [...document.querySelectorAll(selector)].filter(shown)
    .map((el) => ({ name: name(el), tag: el.tagName.toLowerCase(), where: el.closest("[id]")?.id ?? null, ...box(el), cut: cut(el) }));
  const hints = [...document.querySelectorAll("#main kbd")].filter((k) => shown(k) && !k.closest("#keys"))
    .map((k) => k.textContent);
  const status = document.querySelector("#status");
  const board = document.querySelector("#board");
  return {
    board: board ? box(board) : null,
    width: vw, height: vh, scrollY: Math.round(scrollY), scrollWidth: document.documentElement.scrollWidth,
    status: status ? { ...box(status), text: status.textContent } : null, controls, hints,
    words: ["#selection", "#controls"].map((s) => document.querySelector(s)?.innerText ?? "").join(" | "),
  };
}

/** The shortcuts the table's help lists. */
async function helpKeys(page) {
  return page.evaluate(() => [...document.querySelectorAll("#keys dt")].map((dt) => dt.textContent));
}

/**
 * The legal commands against what the page offers, as one render drew them: the count the
 * legal-move list's summary gives, the buttons in that list, the commands of the view (Resign
 * aside: it has its own button), and any offered command that is none of them (staleness
 * guards aside: the page fills them in).
 */
function legalAgreement() {
  const v = window.__cardcore.view;
  if (!v || v.outcome) return null;
  const GUARDS = ["expect_epoch", "seen_count", "expect_top"];
  const same = (a, b) => JSON.stringify(Array.isArray(a) ? [...a].sort() : a) === JSON.stringify(Array.isArray(b) ? [...b].sort() : b);
  const fits = (offered, legal) => Object.keys({ ...offered, ...legal }).every((k) => GUARDS.includes(k) || same(offered[k] ?? null, legal[k] ?? null));
  const legal = v.legal_commands.filter((c) => c.kind !== "Resign");
  const summary = document.querySelector("#legal summary")?.textContent ?? "";
  const offered = [...document.querySelectorAll("#main button[data-cmd]")].map((b) => JSON.parse(b.dataset.cmd));
  return {
    seq: v.seq, summary, count: Number((/\((\d+)\)/.exec(summary) || [])[1]), legal: legal.length,
    listed: document.querySelectorAll("#legal button[data-cmd]").length,
    shown: document.querySelectorAll("#controls button[data-cmd], #selection button[data-cmd]").length,
    illegal: offered.filter((o) => !v.legal_commands.some((c) => fits(o, c))),
  };
}

/** The status line with the view it says something of (Ratscrew: the pile owed, the turn). */
function statusNow() {
  const v = window.__cardcore.view;
  return { seq: v?.seq ?? -1, status: document.querySelector("#status")?.textContent ?? "", owed_to: v?.view?.owed_to ?? null, current: v?.view?.current ?? null, outcome: Boolean(v?.outcome) };
}

/** The board once the page has drawn the view with the outcome: whose turn it still says. */
async function boardAtTheEnd(page) {
  await page.waitForFunction(() => window.__cardcore.view?.outcome && Number(document.querySelector("#board")?.dataset.seq) === window.__cardcore.view.seq, null, { timeout: 10000 });
  return page.evaluate(() => ({
    badges: [...document.querySelectorAll("#board .badge")].map((b) => b.textContent),
    turn: [...document.querySelectorAll("#board .seat-box.turn")].map((b) => b.dataset.seat),
    notes: [...document.querySelectorAll("#board .note")].map((n) => n.textContent),
    status: document.querySelector("#status").textContent,
    controls: document.querySelectorAll("#controls button, #selection button").length,
  }));
}

const SNAPSHOT = `
  window.__cardcore = window.__cardcore || { acks: [], renders: 0, firstRenderMs: null };
  window.__cardcore.snaps = [];
  window.__cardcore.onChange = function (why) {
    const main = document.getElementById("main");
    const board = document.getElementById("board");
    this.snaps.push({ why, seq: board ? Number(board.dataset.seq || -1) : -1, entry: this.lastEntry ?? -1, html: main ? main.innerHTML : "" });
  };
`;

// Every API response the page receives, as the page's fetch gets it (the event stream's body
// too, teed as it streams: a browser's network log does not keep a streamed body), and every
// frame of its play channel.
const RECORD = `
  window.__cardcore = window.__cardcore || { acks: [], renders: 0, firstRenderMs: null };
  window.__cardcore.responses = [];
  const realFetch = window.fetch.bind(window);
  window.fetch = async (input, init) => {
    const res = await realFetch(input, init);
    const url = typeof input === "string" ? input : input.url;
    if (!url.includes("/v1/") || !res.body) return res;
    const item = { url, status: res.status, body: "" };
    window.__cardcore.responses.push(item);
    const [mine, theirs] = res.body.tee();
    (async () => {
      const reader = mine.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ done: true }));
        if (done) break;
        item.body += value;
      }
      item.done = true;
    })();
    return new Response(theirs, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  // and every frame the play channel's WebSocket brings, one item each
  const RealWebSocket = window.WebSocket;
  window.WebSocket = class extends RealWebSocket {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (ev) => {
        window.__cardcore.responses.push({ url: this.url, status: 101, body: String(ev.data), done: true });
      });
    }
  };
`;

/** The POSTs that take a seat or add to the deal: the creation, a join (an invite's, a public
 * table's), a reveal. */
const seatPost = (method, path) => method === "POST" && (path === "/v1/games" || path.startsWith("/v1/invites/") || path === "/v1/tables/join" || /^\/v1\/games\/[^/]+\/reveal$/.test(path));

/** Record what `x`'s page sent to take its seat (the entropy it adds to the deal, or its
 * commitment to it) and to reveal it, into `sent`, with the server's answers (promises) into
 * `answered` (the creation's or join's status, the table revealed). */
function recordSeatPosts(who, x, sent, answered) {
  x.page.on("request", (r) => {
    const url = new URL(r.url());
    if (seatPost(r.method(), url.pathname)) sent.push({ who, path: url.pathname, body: r.postData() });
  });
  x.page.on("response", (res) => {
    const url = new URL(res.url());
    if (seatPost(res.request().method(), url.pathname)) {
      answered.push(res.json().then((body) => ({ who, path: url.pathname, status: res.status(), body }), () => ({ who, path: url.pathname, status: res.status(), body: null })));
    }
  });
}

/** The table statuses the page saw, and whether an entropy is still kept beside a token. */
function kept(page) {
  return page.evaluate(() => ({
    statuses: window.__cardcore.tableStatuses ?? [],
    unrevealed: [...Object.keys(sessionStorage).filter((k) => k.endsWith(".session")).map((k) => sessionStorage.getItem(k)), localStorage.getItem("cardcore.mine") ?? ""]
      .some((text) => text && text.includes("entropy_to_reveal")),
  }));
}

/** A person plays a whole game against bots through the page (screenshots, axe, snapshots). */
export async function play(browser, {
  base, out, game, seats = ["you", "reaction"], bot = [5, 30], rules = {}, eventLimit = 0,
  widths = [1280, 375], deadlineMs = 150000, leakScan = false, shotAfter = 4,
}) {
  const p = await person(browser, base, { width: widths[0], name: game });
  await p.context.addInitScript(LAYOUT + (leakScan ? SNAPSHOT + RECORD : ""));
  // the creation (the person's seat commits to its entropy) and the reveal that deals
  const sent = [];
  const answered = [];
  recordSeatPosts("person", p, sent, answered);
  const id = await createThroughLobby(p, { game, seats, bot, rules, eventLimit });
  await p.page.waitForSelector("#board[data-seq]");
  // the table is drawn (and painted: two frames on): from here on cards only move
  const drawnAt = await p.page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(() => ok(performance.now())))));
  // where the table lands (1280 × 900): its first controls in view
  const landed = await p.page.evaluate(geometry);
  const idle = await p.page.evaluate(() => document.querySelector("#selection")?.innerText ?? "");
  const agreement = { samples: 0, disagree: [] };
  const statuses = [];
  const shots = [];
  const resized = []; // [from, to] in page time: the layout shifts of a resize are the test's
  const noKey = new Set();
  let violations = null;
  const before = { ...gestureCounts };
  const steps = await playToEnd(p, game, {
    deadlineMs,
    onStep: async (s, g, n) => {
      if (n % 7 === 0) for (const k of await unkeyed(p.page)) noKey.add(k);
      const a = await p.page.evaluate(legalAgreement);
      if (a) {
        agreement.samples += 1;
        if ((a.count !== a.legal || a.listed !== a.legal || a.illegal.length) && agreement.disagree.length < 5) agreement.disagree.push(a);
      }
      const st = await p.page.evaluate(statusNow);
      if (st.owed_to !== null && statuses.length < 20) statuses.push(st);
      // mid-game: after the person's `shotAfter`th gesture, or once the table has gone that
      // far without them (a quick bot can end a game before a loaded browser gestures 4 times)
      if (violations === null && (n >= shotAfter || (s.view?.seq ?? 0) >= 3 * shotAfter)) {
        violations = await axe(p.page);
        const from = await p.page.evaluate(() => performance.now());
        for (const w of widths) {
          await p.page.setViewportSize({ width: w, height: 900 });
          shots.push(await screenshot(p.page, out, `${game}-${w}`));
        }
        await p.page.setViewportSize({ width: widths[0], height: 900 });
        resized.push([from, (await p.page.evaluate(() => performance.now())) + 1000]);
      }
    },
  });
  const endedAt = await p.page.evaluate(() => performance.now());
  const atTheEnd = await boardAtTheEnd(p.page);
  const end = await endPanel(p.page);
  const layout = await p.page.evaluate(() => window.__layout.shifts);
  const endViolations = await axe(p.page);
  shots.push(await screenshot(p.page, out, `${game}-end-${widths[0]}`));
  const s = await session(p.page);
  const result = {
    game_id: id, seat: s.seat, token: s.token, steps, shots, errors: p.errors,
    axe: violations ?? [], axe_end: endViolations, ...end,
    layout, drawnAt, resized, endedAt, unkeyed: [...noKey], help: await helpKeys(p.page),
    keyGestures: gestureCounts.keys - before.keys, clickGestures: gestureCounts.clicks - before.clicks,
    landed, idle, agreement, statuses, atTheEnd,
    sent, answered: await Promise.all(answered), kept: await kept(p.page),
  };
  if (leakScan) {
    result.snaps = await p.page.evaluate(() => window.__cardcore.snaps);
    result.responses = await p.page.evaluate(() => window.__cardcore.responses);
  }
  await p.context.close();
  return result;
}

/** The lobby, checked by axe at both widths, then logs dropped on its checker. */
export async function lobbyAndVerify(browser, { base, out, logs }) {
  const p = await person(browser, base, { name: "lobby" });
  await openLobby(p);
  // the first render, in the page's own clock (performance.now(): from the navigation's start)
  const firstRender = await p.page.evaluate(() => {
    const nav = performance.getEntriesByType("navigation")[0];
    const fcp = performance.getEntriesByName("first-contentful-paint")[0];
    return { firstShownMs: window.__cardcore.firstShownMs, domContentLoadedMs: nav?.domContentLoadedEventEnd ?? null, firstContentfulPaintMs: fcp?.startTime ?? null };
  });
  const axes = {};
  const shots = [];
  for (const w of [1280, 375]) {
    await p.page.setViewportSize({ width: w, height: 900 });
    await p.page.click(".flags summary"); // the variant rules open, as a person would look
    axes[w] = await axe(p.page);
    shots.push(await screenshot(p.page, out, `lobby-${w}`));
    await p.page.click(".flags summary");
  }
  const verdicts = [];
  for (const item of logs) {
    const files = item.files.map((f) => ({ name: f.name, mimeType: "application/x-ndjson", buffer: Buffer.from(f.text) }));
    await p.page.evaluate(() => { document.querySelector("#log-verdict").replaceChildren(); });
    await p.page.setInputFiles("#log-file", files);
    await p.page.waitForSelector("#log-verdict .verdict", { timeout: 60000 });
    verdicts.push(await p.page.evaluate(() => {
      const v = document.querySelector("#log-verdict .verdict");
      return {
        status: v.dataset.status, seq: v.dataset.seq, exit: Number(v.dataset.exit), text: v.querySelector(".verdict-text").textContent, title: v.querySelector(".verdict-title").textContent,
      };
    }));
  }
  shots.push(await screenshot(p.page, out, "lobby-verdict"));
  await p.context.close();
  return { axe: axes, verdicts, shots, errors: p.errors, ...firstRender };
}

/**
 * A slap race: the person slaps the moment the page shows a slappable pile, a fast bot too.
 * Returns every slap the person sent with the page's answer and narration, for the test to
 * hold against the log.
 */
export async function slapRace(browser, { base, out, game = "slapjack", bot = [15, 60], rules = {}, eventLimit = 0, deadlineMs = 120000 }) {
  const p = await person(browser, base, { name: "race" });
  const id = await createThroughLobby(p, { game, seats: ["you", "reaction"], bot, rules, eventLimit });
  await p.page.waitForSelector("#board[data-seq]");
  const steps = await playToEnd(p, game, { deadlineMs });
  const end = await endPanel(p.page);
  const s = await session(p.page);
  const rejections = await p.page.evaluate(() => document.querySelector("#rejection")?.dataset.code ?? "");
  const result = {
    game_id: id, seat: s.seat, token: s.token, steps, errors: p.errors, ...end,
    narrated: await p.page.evaluate(() => window.__cardcore.narrated), lastRejection: rejections,
  };
  await p.context.close();
  return result;
}

/** Two people in two browser contexts, joined through an invite link, play Spit to the end. */
export async function spitInvite(browser, { base, out, rules = {}, deadlineMs = 150000, paceMs = 0, eventLimit = 0 }) {
  const a = await person(browser, base, { name: "host" });
  const b = await person(browser, base, { name: "friend", width: 375, height: 800 });
  for (const x of [a, b]) await x.context.addInitScript(LAYOUT);
  // what each page sent to take its seat (the entropy it adds to the deal, or its commitment
  // to it) and to reveal it, with the server's answers (the statuses, the tables revealed)
  const sent = [];
  const answered = [];
  recordSeatPosts("host", a, sent, answered);
  recordSeatPosts("friend", b, sent, answered);
  const id = await createThroughLobby(a, { game: "spit", seats: ["you", "invite"], rules, eventLimit });
  await a.page.waitForSelector("#waiting:not([hidden]) .invite-link");
  const link = await a.page.getAttribute("#waiting .invite-link", "href");
  const waitingShot = await screenshot(a.page, out, "spit-waiting-1280");
  const waitingAxe = await axe(a.page);
  await b.page.goto(link);
  await b.page.waitForSelector("text=Take seat 1");
  const inviteShot = await screenshot(b.page, out, "spit-invite-375");
  const inviteAxe = await axe(b.page);
  await b.page.click("text=Take seat 1");
  await b.page.waitForSelector("#board[data-seq]");
  await a.page.waitForSelector("#board[data-seq]");
  const frames = () => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(() => ok(performance.now()))));
  const drawnAt = [await a.page.evaluate(frames), await b.page.evaluate(frames)];
  const [stepsA, stepsB] = await Promise.all([
    playToEnd(a, "spit", { deadlineMs }),
    playToEnd(b, "spit", { deadlineMs, paceMs }),
  ]);
  const endedAt = [await a.page.evaluate(() => performance.now()), await b.page.evaluate(() => performance.now())];
  const layout = [await a.page.evaluate(() => window.__layout.shifts), await b.page.evaluate(() => window.__layout.shifts)];
  const endA = await endPanel(a.page);
  const endB = await endPanel(b.page);
  const sa = await session(a.page);
  const sb = await session(b.page);
  const shots = [waitingShot, inviteShot, await screenshot(a.page, out, "spit-pvp-end-1280"), await screenshot(b.page, out, "spit-pvp-end-375")];
  const result = {
    game_id: id, link, steps: [stepsA, stepsB], seats: [sa.seat, sb.seat], tokens: [sa.token, sb.token],
    ends: [endA, endB], shots, axe: [...waitingAxe, ...inviteAxe], errors: [...a.errors, ...b.errors], sent,
    answered: await Promise.all(answered), kept: [await kept(a.page), await kept(b.page)],
    layouts: [0, 1].map((i) => ({ layout: layout[i], drawnAt: drawnAt[i], endedAt: endedAt[i], resized: [] })),
  };
  await a.context.close();
  await b.context.close();
  return result;
}

/**
 * Mid-game: a reload resumes from the last seq (no gap, no duplicate), a rejected action shows
 * its reason, and resigning ends the game.
 */
export async function reloadRejectResign(browser, { base, out, game = "speed", bot = [400, 800] }) {
  // a person who asks for less motion (prefers-reduced-motion: reduce)
  const p = await person(browser, base, { name: "reload", reducedMotion: "reduce" });
  const id = await createThroughLobby(p, { game, seats: ["you", "reaction"], bot });
  await p.page.waitForSelector("#board[data-seq]");
  const page = p.page;
  // play a few moves, watching for any CSS transition or animation on the way
  const motion = { reduce: { animations: 0, moving: [] }, full: null };
  const sampleMotion = () => page.evaluate(() => {
    const moving = [];
    for (const el of document.querySelectorAll("#main .card, #main .card-btn, #main button, #main .seat-box")) {
      const cs = getComputedStyle(el);
      const secs = (v) => Math.max(...v.split(",").map((x) => parseFloat(x) || 0));
      const t = secs(cs.transitionDuration);
      const a = cs.animationName !== "none" ? secs(cs.animationDuration) : 0;
      if (t > 0 || a > 0) moving.push(`${el.className}: transition ${cs.transitionDuration}, animation ${cs.animationName} ${cs.animationDuration}`);
    }
    return { animations: document.getAnimations().length, moving: [...new Set(moving)], cards: document.querySelectorAll("#main .card").length };
  });
  let moves = 0;
  for (let i = 0; i < 40 && moves < 4; i += 1) {
    const s = await shown(page);
    const g = decide(game, s.view, 0);
    if (g) {
      await gesture(page, g);
      moves += 1;
    }
    const m = await sampleMotion();
    motion.reduce.animations = Math.max(motion.reduce.animations, m.animations);
    motion.reduce.moving.push(...m.moving);
    motion.reduce.cards = Math.max(motion.reduce.cards ?? 0, m.cards);
    try { await nextRender(page, s.renders, 3000); } catch { /* look again */ }
  }
  // the same page for a person who does not mind motion: the table does have transitions
  await page.emulateMedia({ reducedMotion: "no-preference" });
  motion.full = await sampleMotion();
  await page.emulateMedia({ reducedMotion: "reduce" });
  const before = await page.evaluate(() => ({ last: window.__cardcore.lastEntry, narrated: Object.keys(window.__cardcore.narrated || {}).length }));
  // a reload: the page comes back on the same table and resumes its stream after `last`
  const requests = [];
  page.on("request", (r) => { if (r.url().includes("/events")) requests.push({ url: r.url(), lastEventId: r.headers()["last-event-id"] ?? null, auth: Boolean(r.headers().authorization) }); });
  // over the play channel's WebSocket the same: its first frame carries the token and the
  // first seq wanted (from_seq: the last seq kept + 1)
  page.on("websocket", (ws) => {
    ws.once("framesent", (f) => {
      const auth = JSON.parse(f.payload);
      const from = auth.from_seq ?? 0;
      requests.push({ url: ws.url(), lastEventId: from > 0 ? String(from - 1) : null, auth: auth.type === "auth" && Boolean(auth.token) });
    });
  });
  await page.reload();
  await page.waitForSelector("#board[data-seq]");
  await page.waitForFunction((n) => (window.__cardcore.lastEntry ?? -1) >= n, before.last);
  // a rejected action: Draw, where the hand refills itself (auto_refill)
  await page.evaluate(() => document.activeElement?.blur());
  const acks = await page.evaluate(() => window.__cardcore.acks.length);
  await page.keyboard.press("d");
  await page.waitForFunction((n) => window.__cardcore.acks.length > n, acks);
  await page.waitForSelector("#rejection.shown");
  const rejection = await page.evaluate(() => ({ code: document.querySelector("#rejection").dataset.code, text: document.querySelector("#rejection").textContent }));
  const rejectionShot = await screenshot(page, out, `${game}-rejection-1280`);
  // L: the list of every legal move, by keyboard; Enter plays the one focused
  const list = { opened: false, sent: null, ack: null };
  for (let i = 0; i < 60 && !list.sent; i += 1) {
    await page.evaluate(() => document.activeElement?.blur());
    const n = await page.evaluate(() => window.__cardcore.acks.length);
    await page.keyboard.press("l");
    const focused = await page.evaluate(() => {
      const a = document.activeElement;
      return a && a.closest("#legal") ? { cmd: a.dataset.cmd, open: document.querySelector("#legal").open } : null;
    });
    if (!focused) {
      // nothing in the list right now (no card fits): play on as ever (a flip when stuck)
      const s = await shown(page);
      const g = decide(game, s.view, 0);
      if (g) await gesture(page, g);
      try { await nextRender(page, s.renders, 3000); } catch { /* look again */ }
      continue;
    }
    list.opened = focused.open;
    list.sent = JSON.parse(focused.cmd);
    await page.keyboard.press("Enter");
    await page.waitForFunction((k) => window.__cardcore.acks.length > k, n);
    list.ack = await page.evaluate((k) => window.__cardcore.acks[k], n);
    await page.keyboard.press("Escape");
  }
  // the final log as the page will receive it, its end line's signature altered in one bit:
  // the page holds it to the key it was given when the game began
  await page.route("**/v1/games/*/log", async (route) => {
    const res = await route.fetch();
    let body = await res.text();
    const rows = body.split("\n");
    const endAt = rows.findIndex((l) => l.includes('"type":"end"'));
    if (endAt >= 0) {
      rows[endAt] = rows[endAt].replace(/"sig":"([A-Za-z0-9_-]+)"/, (_, sig) => {
        const bytes = Buffer.from(sig, "base64url");
        bytes[0] ^= 1;
        return `"sig":"${bytes.toString("base64url")}"`;
      });
      body = rows.join("\n");
    }
    await route.fulfill({ response: res, body });
  });
  // resign, through the button and its confirmation
  await page.click("[data-key=resign]");
  await page.click("[data-key=resign-yes]");
  await page.waitForSelector("#outcome");
  await page.waitForFunction(() => window.__cardcore?.verified, null, { timeout: 60000 });
  const end = await endPanel(page);
  const s = await session(page);
  const receipts = await page.evaluate(() => window.__cardcore.receipts);
  const result = { game_id: id, seat: s.seat, token: s.token, before, requests, rejection, shots: [rejectionShot], errors: p.errors, ...end, receipts, motion, list, serverKey: s.server_key };
  await p.context.close();
  return result;
}

/**
 * A phone (375 × 667, touch): a table of each game created through the lobby, measured as it
 * lands (geometry); in Palace's setup, a tap on a hand card, then on a face-up card: the
 * selection's buttons then, and the legal commands they must be among.
 */
export async function phone(browser, { base, out, games = ["ratscrew", "slapjack", "palace", "spit", "speed"], width = 375, height = 667 }) {
  const p = await person(browser, base, { width, height, name: "phone", touch: true });
  const page = p.page;
  const tables = {};
  const shots = [];
  const frames = () => page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
  const buttons = () => page.evaluate(() => ({
    cmds: [...document.querySelectorAll("#main button[data-cmd]")].map((b) => JSON.parse(b.dataset.cmd)),
    legal: window.__cardcore.view?.legal_commands ?? [],
  }));
  for (const game of games) {
    // slow bots: the table holds still while it is measured
    await createThroughLobby(p, { game, seats: ["you", "reaction"], bot: [1500, 3000] });
    await page.waitForSelector("#board[data-seq] .seat-box");
    await frames();
    const t = { landed: await page.evaluate(geometry) };
    shots.push(await screenshot(page, out, `phone-${game}-${width}`, { fullPage: false }));
    t.axe = await axe(page);
    // the list of every legal move, opened (a finger's way to the moves no button shows)
    await page.tap("#legal summary");
    await frames();
    t.list = await page.evaluate(geometry);
    await page.tap("#legal summary");
    await page.evaluate(() => document.activeElement?.blur()); // keys go to the table again
    if (game === "palace") {
      // a hand card alone is no move in setup: the selection offers no command for it
      await page.tap("#board .seat-box.me .card-btn[data-key^='sel:in hand:']");
      await page.waitForSelector("#selection [data-key=clear]");
      t.handCard = await buttons();
      // with a face-up card too: a swap, offered with Clear, both on the screen
      await page.tap("#board .seat-box.me .card-btn[data-key^='sel:face up:']");
      await page.waitForFunction(() => [...document.querySelectorAll("#selection button[data-cmd]")].some((b) => JSON.parse(b.dataset.cmd).kind === "Swap"));
      await frames();
      t.swap = { ...(await buttons()), geometry: await page.evaluate(geometry), axe: await axe(page) };
      shots.push(await screenshot(page, out, `phone-palace-swap-${width}`, { fullPage: false }));
    }
    if (game === "speed") {
      // the hints are hidden on a touch screen, the keys still work (a keyboard plugged in)
      const acks = await page.evaluate(() => window.__cardcore.acks.length);
      await page.keyboard.press(" ");
      await page.waitForFunction((n) => window.__cardcore.acks.length > n, acks);
      t.key = await page.evaluate((n) => window.__cardcore.acks[n], acks);
    }
    tables[game] = t;
  }
  const result = { tables, shots, errors: p.errors };
  await p.context.close();
  return result;
}

/**
 * The lobby's form as a person reads and fills it: each game's variant rules (their labels,
 * choices and help lines), and bot reaction times given the wrong way round (what the page
 * says, and whether it created a table anyway).
 */
export async function lobbyForm(browser, { base }) {
  const p = await person(browser, base, { name: "lobby-form" });
  const page = p.page;
  await openLobby(p);
  const flags = {};
  for (const game of await page.evaluate(() => [...document.querySelectorAll("input[name=game]")].map((r) => r.value))) {
    await page.check(`#game-${game}`);
    flags[game] = await page.evaluate((g) => [...document.querySelectorAll(".flags .flag")].map((f) => {
      const control = f.querySelector("input, select, textarea");
      const prefix = `flag-${g}-`;
      const id = f.querySelector("fieldset") ? control.id.replace(/-[^-]+$/, "") : control.id; // a set's boxes: ID-VALUE
      return {
        name: id.slice(prefix.length),
        label: (f.querySelector(":scope > label") ?? f.querySelector("legend"))?.textContent.trim() ?? "",
        choices: [...f.querySelectorAll("option, label.inline")].map((o) => o.textContent.trim()),
        help: f.querySelector(".help")?.textContent.trim() ?? "",
      };
    }), game);
  }
  // the fastest reaction time above the slowest
  const posted = [];
  page.on("request", (r) => { if (r.method() === "POST" && new URL(r.url()).pathname === "/v1/games") posted.push(r.postData()); });
  await page.check("#game-ratscrew");
  await page.fill("#bot-min", "900");
  await page.fill("#bot-max", "300");
  await page.click("form.create button[type=submit]");
  await page.waitForFunction(() => location.hash.startsWith("#game=") || !document.querySelector("form.create .problem")?.hidden, null, { timeout: 5000 }).catch(() => {});
  await page.waitForTimeout(300); // a table created anyway would be posted by now
  const botDelays = {
    posted: posted.map((b) => JSON.parse(b).seats.filter((s) => s.kind !== "human")),
    hash: await page.evaluate(() => location.hash),
    problem: await page.evaluate(() => {
      const box = document.querySelector("form.create .problem");
      return box && !box.hidden ? box.textContent : null;
    }),
    invalid: await page.evaluate(() => [...document.querySelectorAll("#bot-min, #bot-max")].filter((x) => x.getAttribute("aria-invalid") === "true").map((x) => x.id)),
  };
  // a table with a variant rule and a friend's seat: the invitation says the rule in words
  await createThroughLobby(p, { game: "speed", seats: ["you", "invite"], rules: { multi_card_play: true, score_counts: "stock_and_hand" } });
  await page.waitForSelector("#waiting:not([hidden]) .invite-link");
  const table = page.url();
  await page.goto(await page.getAttribute("#waiting .invite-link", "href"));
  await page.waitForSelector("text=Take seat 1");
  const invitation = await page.evaluate(() => document.querySelector("#main").innerText);
  await page.goto(table); // and the host cancels it: nobody is to take that seat
  await page.click("text=Cancel the table");
  await page.waitForSelector("text=This table was cancelled before it was dealt.");
  const result = { flags, botDelays, invitation, errors: p.errors };
  await p.context.close();
  return result;
}

/**
 * The page's own logic, run in the page (the modules it loaded): `status` — [game, view, seat]
 * for the status line each game's table writes; `help` — [game, rules] for the shortcuts its
 * help lists under those rules.
 */
export async function pageLogic(browser, { base, status = [], help = [] }) {
  const p = await person(browser, base, { name: "logic" });
  await openLobby(p);
  const result = await p.page.evaluate(async ({ status, help }) => {
    const { GAMES } = await import("/web/js/games.js");
    return {
      status: status.map(([game, view, seat]) => GAMES[game].status(view, { seat })),
      help: help.map(([game, rules]) => GAMES[game].help(rules).map(([key]) => key)),
    };
  }, { status, help });
  await p.context.close();
  return { ...result, errors: p.errors };
}

export { channelLatency, channelResume } from "./channel.mjs";
