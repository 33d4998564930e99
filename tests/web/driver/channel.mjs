// The browser scenarios of the play channel (docs/reference/play-channel.md): the table over
// its WebSocket against the same table forced onto the fallback (SSE + POST), slap keydown to
// acknowledgement over each, interleaved; and drops the page must resume from.

import { createThroughLobby, endPanel, gesture, person, session } from "./lib.mjs";

/** A page where no WebSocket can open: its constructor throws (as where there is none). */
const NO_WEBSOCKET = `
  window.WebSocket = function WebSocket() { throw new DOMException("no WebSocket here", "SecurityError"); };
`;

/** Slapjack where a false slap costs nothing: a slap is logged (acknowledged) at any moment,
 * so a person can slap on a quiet table as often as the sample needs. */
const QUIET = { rules: { false_slap_penalty: 0, slap_targets: ["jack"] }, eventLimit: 4000 };

/** What a page sends and opens: POST …/actions, WebSockets, and each channel's frames out
 * (the auth frame's token only as "present"). */
function watch(page) {
  const seen = { posts: 0, sockets: [] };
  page.on("request", (r) => {
    if (r.method() === "POST" && /\/v1\/games\/[^/]+\/actions$/.test(new URL(r.url()).pathname)) seen.posts += 1;
  });
  page.on("websocket", (ws) => {
    const s = { url: ws.url(), sent: [] };
    seen.sockets.push(s);
    ws.on("framesent", (f) => {
      const frame = JSON.parse(f.payload);
      if (frame.type === "auth") s.sent.push({ type: "auth", from_seq: frame.from_seq ?? 0, token: Boolean(frame.token) });
      else if (frame.type !== "pong") s.sent.push({ type: frame.type, action_id: frame.action_id });
    });
  });
  return seen;
}

async function ready(page) {
  await page.waitForSelector("#board[data-seq]");
  await page.waitForFunction(() => window.__cardcore.transport && window.__cardcore.view);
}

/** A pile to slap at: a false slap at an empty pile is refused (EmptyPile), not logged. On
 * the person's turn a card played (Enter); else the bot's card awaited. */
async function pileToSlap(page) {
  for (let i = 0; i < 50; i += 1) {
    const v = await page.evaluate(() => window.__cardcore.view);
    if (v?.outcome || v?.view?.pile?.length) return;
    if (v?.legal_commands?.some((c) => c.kind === "Play")) {
      const n = await page.evaluate(() => window.__cardcore.acks.length);
      await gesture(page, { key: "Enter" });
      await page.waitForFunction((k) => window.__cardcore.acks.length > k, n, { timeout: 10000 });
    }
    await page.waitForFunction((seq) => (window.__cardcore.view?.seq ?? -1) > seq, v?.seq ?? -1, { timeout: 5000 }).catch(() => {});
  }
}

/** One slap by Space; its answer as the page recorded it (ms: keydown → answer, in the page). */
async function slap(page) {
  await pileToSlap(page);
  const n = await page.evaluate(() => window.__cardcore.acks.length);
  await gesture(page, { key: "Space" });
  await page.waitForFunction((k) => window.__cardcore.acks.length > k, n, { timeout: 10000 });
  return page.evaluate((k) => window.__cardcore.acks[k], n);
}

/** Resign (the button and its confirmation) and wait for the outcome and the page's verdicts. */
async function resignToEnd(page, deadlineMs) {
  if (!(await page.$("#outcome"))) {  // (a game may have ended already)
    await page.click("[data-key=resign]");
    await page.click("[data-key=resign-yes]");
  }
  await page.waitForSelector("#outcome", { timeout: deadlineMs });
  await page.waitForFunction(() => window.__cardcore?.verified, null, { timeout: deadlineMs });
  return 1;
}

/** `cardcore_play_channels{transport="websocket"}` as the server's /metrics says now. */
async function openChannels(base) {
  const text = await (await fetch(`${base}/metrics`)).text();
  const m = /^cardcore_play_channels\{transport="websocket"\} ([0-9.e+]+)$/m.exec(text);
  return m ? Number(m[1]) : null;
}

/**
 * Two tables of Slapjack against a slow bot, one per page: one over the WebSocket, one where
 * no WebSocket can open. The person slaps on each in turn (`rounds` times; which page goes
 * first alternates), then plays both games to their end.
 */
export async function channelLatency(browser, { base, rounds = 30, pauseMs = 40, bot = [300, 600], deadlineMs = 150000 }) {
  const ws = await person(browser, base, { name: "websocket" });
  const sse = await person(browser, base, { name: "fallback" });
  await sse.context.addInitScript(NO_WEBSOCKET);
  const seen = { websocket: watch(ws.page), sse: watch(sse.page) };
  for (const p of [ws, sse]) {
    await createThroughLobby(p, { game: "slapjack", seats: ["you", "reaction"], bot, ...QUIET });
    await ready(p.page);
  }
  const transports = {
    websocket: await ws.page.evaluate(() => window.__cardcore.transport),
    sse: await sse.page.evaluate(() => window.__cardcore.transport),
  };
  const channelsOpen = await openChannels(base);
  const slaps = { websocket: [], sse: [] };
  for (let i = 0; i < rounds; i += 1) {
    const order = i % 2 ? [["sse", sse], ["websocket", ws]] : [["websocket", ws], ["sse", sse]];
    for (const [name, p] of order) {
      slaps[name].push(await slap(p.page));
      await p.page.waitForTimeout(pauseMs); // a person's pace; the entry lands meanwhile
    }
  }
  const rtt = await ws.page.evaluate(() => ({ ms: window.__cardcore.rttMs, shown: document.querySelector("#rtt")?.textContent ?? "" }));
  // ended by resigning: what is checked (every entry once, the acks the log's, the verdicts)
  // holds for any end, and a whole game against a slow bot took most of the scenario's time
  const steps = await Promise.all([ws, sse].map((p) => resignToEnd(p.page, deadlineMs)));
  const ends = {};
  for (const [name, p] of [["websocket", ws], ["sse", sse]]) {
    const end = await endPanel(p.page);
    ends[name] = { verdicts: end.verdicts.map((v) => v.status), receipts: end.receipts, final: end.final, acks: end.acks, termination: end.termination };
  }
  const result = {
    transports, channelsOpen, slaps, rtt, steps, ends, errors: [...ws.errors, ...sse.errors],
    posts: { websocket: seen.websocket.posts, sse: seen.sse.posts },
    sockets: { websocket: seen.websocket.sockets.map((s) => ({ url: s.url, auth: s.sent.filter((f) => f.type === "auth") })), sse: seen.sse.sockets.length },
    seat: (await session(ws.page)).seat,
  };
  await ws.context.close();
  await sse.context.close();
  return result;
}

/** The one console error the relay itself causes (Playwright's WebSocketMock: `_apiSendToPage`
 * throws it when the relay hands a server frame, a ping, to a page socket that closed itself an
 * instant before the relay heard of it). The page's own sends check `readyState` first, so it
 * cannot come from the page; any other error still counts. */
const RELAY_RACE = /^resume: console: WebSocket is already in CLOSING or CLOSED state\.$/;

/**
 * The table's channel dropped under it, by a relay between page and server
 * (page.routeWebSocket): once with an act's answer lost then 1001 (server stopping), once
 * with 4409 (fell behind). The page must reopen from the next seq, send the act again with its
 * action_id, show no entry twice and skip none. Then a token the server refuses (4401): the
 * error shown, no second try.
 */
export async function channelResume(browser, { base, bot = [300, 600], deadlineMs = 150000 }) {
  const p = await person(browser, base, { name: "resume" });
  const page = p.page;
  const conns = [];
  let swallow = false;
  await page.routeWebSocket(/\/v1\/games\/[^/]+\/play$/, (route) => {
    const server = route.connectToServer();
    const c = { route, server, auth: null, acts: [], swallowed: [], answers: [], lastEntry: -1, cut: false };
    conns.push(c);
    // a close on either side closes the other (as the relay does by default), and once either
    // side is closed (or cut here) nothing more is relayed to the other: a frame handed to a
    // closed socket is an error on the page's console
    route.onClose((code, reason) => {
      c.cut = true;
      server.close(code === 1000 || (code >= 3000 && code <= 4999) ? { code, reason } : {});
    });
    server.onClose((code, reason) => {
      if (c.cut) return;
      c.cut = true;
      route.close({ code, reason });
    });
    route.onMessage((m) => {
      if (c.cut) return;
      const f = JSON.parse(m);
      if (f.type === "auth") c.auth = { from_seq: f.from_seq ?? 0 };
      if (f.type === "act") c.acts.push(f.action_id);
      server.send(m);
    });
    server.onMessage((m) => {
      if (c.cut) return;
      const f = JSON.parse(m);
      if (f.type === "ack" || f.type === "rejected") {
        if (swallow) {
          c.swallowed.push({ action_id: f.action_id, seq: f.seq });
          return;
        }
        c.answers.push({ action_id: f.action_id, seq: f.seq, replayed: f.replayed ?? null });
      }
      if (f.type === "entry") c.lastEntry = f.entry.seq;
      route.send(m);
    });
  });
  await createThroughLobby(p, { game: "slapjack", seats: ["you", "reaction"], bot, ...QUIET });
  await ready(page);
  for (let i = 0; i < 3; i += 1) await slap(page);
  const cut = async (code, reason) => {
    const c = conns[conns.length - 1];
    const at = await page.evaluate(() => window.__cardcore.lastEntry);
    c.cut = true;
    await c.route.close({ code, reason });
    c.server.close({ code: 1000, reason: "the relay is gone" });
    return at;
  };
  const drops = [];
  // 1: an act whose answer never reaches the page (its entry does), then the server stops
  swallow = true;
  const acksBefore = await page.evaluate(() => window.__cardcore.acks.length);
  await gesture(page, { key: "Space" });
  const lost = conns[conns.length - 1];
  const until = Date.now() + 5000;
  while (!lost.swallowed.length && Date.now() < until) await page.waitForTimeout(10);
  await page.waitForFunction((seq) => window.__cardcore.lastEntry >= seq, lost.swallowed[0]?.seq ?? 0);
  swallow = false;
  const unanswered = await page.evaluate((n) => window.__cardcore.acks.length === n, acksBefore);
  drops.push({ code: 1001, lastSeen: await cut(1001, "the server is stopping"), conns: conns.length });
  await page.waitForFunction((n) => window.__cardcore.acks.length > n, acksBefore, { timeout: 10000 });
  const resent = await page.evaluate((n) => window.__cardcore.acks[n], acksBefore);
  for (let i = 0; i < 3; i += 1) await slap(page);
  // 2: the server says the page fell behind
  drops.push({ code: 4409, lastSeen: await cut(4409, "fell behind: resume from the last seq you saw"), conns: conns.length });
  for (let i = 0; i < 3; i += 1) await slap(page);
  const steps = await resignToEnd(page, deadlineMs);
  const end = await endPanel(page);
  const s = await session(page);
  const connections = conns.map((c) => ({ auth: c.auth, acts: c.acts, swallowed: c.swallowed, answers: c.answers }));
  await p.context.close();

  // a token the server refuses: the page says so and does not try again
  const q = await person(browser, base, { name: "refused" });
  const seen = watch(q.page);
  const bad = { ...s, token: "cct_not-a-token" };
  await q.context.addInitScript(([id, session]) => {
    sessionStorage.setItem(`cardcore.${id}.session`, JSON.stringify(session));
  }, [s.game_id, bad]);
  await q.page.goto(`${base}/#game=${s.game_id}`);
  await q.page.waitForSelector("#rejection.shown");
  await q.page.waitForTimeout(1500); // time for a retry, were there one
  const refused = {
    code: await q.page.evaluate(() => document.querySelector("#rejection").dataset.code),
    text: await q.page.evaluate(() => document.querySelector("#rejection").textContent),
    status: await q.page.evaluate(() => document.querySelector("#status").textContent),
    sockets: seen.sockets.length,
    transport: await q.page.evaluate(() => window.__cardcore.transport),
  };
  await q.context.close();
  return {
    game_id: s.game_id, seat: s.seat, connections, drops, unanswered, resent, steps,
    verdicts: end.verdicts.map((v) => v.status), receipts: end.receipts, final: end.final,
    errors: p.errors.filter((e) => !RELAY_RACE.test(e)), relayRaces: p.errors.filter((e) => RELAY_RACE.test(e)).length,
    refused, refusedErrors: q.errors,
  };
}
