// Helpers of the browser tests: a real headless Chromium (the distribution's, never a
// download) driven by playwright-core, and "a person" who plays through the page: it reads what
// the page shows (the view the page rendered, its legal commands) and answers with the keys and
// clicks a person would use. Nothing here talks to the API directly.

import { chromium } from "playwright-core";
import fs from "node:fs";
import path from "node:path";

export const CHROMIUM = process.env.CARDCORE_CHROMIUM || "/usr/bin/chromium";

export async function launch() {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--no-first-run", "--mute-audio"],
  });
}

/** A browser context and page for one person, its console errors collected. `touch`: a
 * phone's (a touch screen its primary pointer: coarse, no hover; a mobile viewport). */
export async function person(browser, base, { width = 1280, height = 900, name = "p", reducedMotion = "no-preference", touch = false } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, reducedMotion, hasTouch: touch, isMobile: touch });
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(`${name}: pageerror: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error" && !/status of 409|status of 40[0-9]/.test(m.text())) errors.push(`${name}: console: ${m.text()}`);
  });
  // a guard against a page that never gets there, not a bound: the browser tests run beside the
  // rest of `make test` (tests/conftest.py, `serial`), where a table took over 20 s to show its
  // board at load 12 on two cores
  page.setDefaultTimeout(60000);
  return { context, page, errors, base, name };
}

export async function openLobby(p) {
  await p.page.goto(p.base + "/");
  await p.page.waitForSelector("form.create button[type=submit]");
}

/**
 * Create a game through the lobby form: `seats` like ["you", "reaction"], `bot` delays,
 * `rules` set through their controls, `eventLimit`. Lands on the table.
 */
export async function createThroughLobby(p, { game, seats, bot = [5, 30], rules = {}, eventLimit = 0, isPublic = false }) {
  const page = p.page;
  await openLobby(p);
  await page.check(`#game-${game}`);
  for (let i = 2; i < seats.length; i += 1) await page.click("text=Add a seat");
  for (const [i, kind] of seats.entries()) await page.selectOption(`#seat-${i}`, kind);
  await page.fill("#bot-min", String(bot[0]));
  await page.fill("#bot-max", String(bot[1]));
  if (Object.keys(rules).length) await page.click(".flags summary");
  for (const [name, value] of Object.entries(rules)) {
    const id = `#flag-${game}-${name}`;
    if (typeof value === "boolean") await page.setChecked(id, value);
    else if (Array.isArray(value)) {
      const boxes = await page.$$(`input[type=checkbox]${id.replace("#", "[id^='")}-']`);
      for (const b of boxes) await b.setChecked(value.includes(await b.getAttribute("value")));
    } else if (typeof value === "number") await page.fill(id, String(value));
    else await page.selectOption(id, String(value));
  }
  if (isPublic) await page.check("#public");
  if (eventLimit) await page.fill("#event-limit", String(eventLimit));
  await page.click("form.create button[type=submit]");
  await page.waitForFunction(() => location.hash.startsWith("#game="));
  return gameId(page);
}

export async function gameId(page) {
  return page.evaluate(() => new URLSearchParams(location.hash.slice(1)).get("game"));
}

export async function session(page) {
  return page.evaluate(() => {
    const id = new URLSearchParams(location.hash.slice(1)).get("game");
    return JSON.parse(sessionStorage.getItem(`cardcore.${id}.session`) || "null");
  });
}

/** What the page shows now: its last rendered view (with the legal commands) and more. */
export async function shown(page) {
  return page.evaluate(() => {
    const p = window.__cardcore || {};
    return {
      view: p.view ?? null,
      renders: p.renders ?? 0,
      over: Boolean(document.querySelector("#outcome")),
      verified: Boolean(p.verified),
      rejection: document.querySelector("#rejection.shown")?.textContent ?? null,
    };
  });
}

/** Wait until the page has rendered more than `renders` times, or the game is over. */
export async function nextRender(page, renders, timeout = 15000) {
  await page.waitForFunction((n) => (window.__cardcore?.renders ?? 0) > n || document.querySelector("#outcome"), renders, { timeout, polling: "raf" });
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const top = (pile) => (pile && pile.length ? pile[pile.length - 1] : null);

/**
 * The person's next gesture for what the page shows: {key} (with {shift}), {click: selector},
 * {keys: [...]}, or null to wait. The gesture maps, through the page's own shortcuts and
 * buttons, to one legal command.
 */
export function decide(game, v, seat, memo = {}) {
  if (!v || v.outcome) return null;
  const view = v.view;
  const legal = v.legal_commands || [];
  const has = (kind) => legal.find((c) => c.kind === kind);
  switch (game) {
    case "ratscrew":
      if (view.slappable && has("Slap")) return { key: "Space" };
      if (has("Collect")) return { key: "c" };
      if (has("Play")) return { key: "Enter" };
      return null;
    case "slapjack":
      if (view.slappable && has("Slap")) return { key: "Space" };
      if (has("Play")) return { key: "Enter" };
      return null;
    case "palace": {
      // setup: one swap first, by keys (a hand card's digit, a face-up card's Shift+digit)
      const swap = has("Swap");
      if (swap && !memo.swapped) {
        const hi = view.hands[seat].indexOf(swap.hand_card);
        const ui = view.up[seat].indexOf(swap.up_card);
        if (hi >= 0 && hi < 9 && ui >= 0 && ui < 9) {
          memo.swapped = true;
          return { keys: ["Escape", String(hi + 1), `Shift+${ui + 1}`, "Enter"], cmd: swap };
        }
      }
      if (has("Ready")) return { key: "r" };
      const plays = legal.filter((c) => c.kind === "Play");
      if (plays.length) {
        // as people play: the lowest card first, every copy of it, the powers (2, 10) last
        const cmd = [...plays].sort((a, b) => palaceWorth(a.cards[0]) - palaceWorth(b.cards[0]) || b.cards.length - a.cards.length)[0];
        const hand = view.hands[seat].length ? view.hands[seat] : view.up[seat];
        const keys = [];
        const used = new Set();
        const far = [];
        for (const card of cmd.cards) {
          const i = hand.findIndex((c, j) => c === card && !used.has(j));
          if (i < 0) return null;
          used.add(i);
          if (i < 9) keys.push(String(i + 1));
          else far.push(i);
        }
        // past the ninth card: the arrows walk the card buttons, Space selects the focused one
        let at = -1;
        for (const i of far.sort((a, b) => a - b)) {
          for (; at < i; at += 1) keys.push("ArrowRight");
          keys.push("Space");
        }
        return { keys: ["Escape", ...keys, "Enter"], cmd, far: far.length > 0 };
      }
      const blind = has("PlayFaceDown");
      if (blind && blind.index < 9) return { key: String(blind.index + 1), cmd: blind };
      if (has("Pickup")) return { key: "p" };
      return null;
    }
    case "spit": {
      if (view.phase === "READY") return has("Spit") && !view.called[seat] ? { key: "Space" } : null;
      if (view.phase === "SLAP") {
        const sizes = view.spit_piles.map((p) => p.length);
        return { key: sizes[0] <= sizes[1] ? "ArrowLeft" : "ArrowRight" };
      }
      if (view.phase === "CHOOSE") return view.chooser === seat ? { key: "ArrowLeft" } : null;
      if (view.phase !== "PLAY") return null;
      const play = legal.find((c) => c.kind === "Play");
      if (play) {
        const other = legal.find((c) => c.kind === "Play" && c.source === play.source && c.target === 0);
        return { key: String(play.source + 1), shift: play.target === 1 && !other, cmd: play };
      }
      const flip = has("Flip");
      if (flip) return { key: String(flip.pile + 1), cmd: flip };
      const lay = view.layouts[seat];
      const move = legal.find((c) => c.kind === "Move" && lay[c.source].slice(0, -1).includes("??"));
      if (move) return { keys: ["m", String(move.source + 1), String(move.target + 1)], cmd: move };
      if (legal.find((c) => c.kind === "Spit")) return view.called[seat] ? null : { key: "Space" };
      return null;
    }
    case "speed": {
      if (view.phase === "READY") return view.calls.includes(seat) ? null : { key: "Space" };
      const play = legal.find((c) => c.kind === "Play" && !(c.then && c.then.length));
      if (play) {
        const i = view.hands[seat].indexOf(play.card);
        const other = legal.find((c) => c.kind === "Play" && c.card === play.card && c.to === 0);
        return { key: String(i + 1), shift: play.to === 1 && !other, cmd: play };
      }
      if (has("Draw")) return { key: "d" };
      if (has("Flip") && !view.calls.includes(seat)) return { key: "Space" };
      return null;
    }
    default:
      return null;
  }
}

const PALACE_ORDER = ["3", "4", "5", "6", "7", "8", "9", "J", "Q", "K", "A", "2", "10", "JK"];
function palaceWorth(card) {
  return PALACE_ORDER.indexOf(card === "JK" ? "JK" : card.slice(0, -1));
}

function cssq(s) {
  return s.replaceAll("\\", "\\\\").replaceAll("'", "\\'");
}

const KEY_NAMES = { Space: " ", Enter: "Enter", ArrowLeft: "ArrowLeft", ArrowRight: "ArrowRight", Escape: "Escape" };

/** How the people of this run played: gestures by key, gestures by pointer. */
export const gestureCounts = { keys: 0, clicks: 0 };

export async function gesture(page, g) {
  if (g.click) {
    gestureCounts.clicks += 1;
    if (g.open) await page.evaluate(() => { const d = document.querySelector("#legal"); if (d) d.open = true; });
    try {
      await page.click(g.click, { timeout: 3000 });
    } catch {
      // The table re-renders after every entry (the bots play on), so the button may never
      // hold still for Playwright's checks: press it the way the page listens (pointerdown).
      // If it is gone, the view moved on: playToEnd looks again.
      await page.locator(g.click).dispatchEvent("pointerdown", { button: 0 }, { timeout: 3000 }).catch(() => {});
    }
    return;
  }
  gestureCounts.keys += 1;
  const keys = g.keys ?? [g.key];
  // Keys go to the board (the page's shortcuts), never to a focused button
  await page.evaluate(() => { if (document.activeElement && document.activeElement !== document.body) document.activeElement.blur(); });
  for (const k of keys) {
    const name = KEY_NAMES[k] ?? k;
    const shifted = /^Shift\+([1-9])$/.exec(k);
    if (shifted) {
      await page.keyboard.down("Shift");
      await page.keyboard.press(`Digit${shifted[1]}`);
      await page.keyboard.up("Shift");
    } else if (g.shift && /^[1-9]$/.test(k)) {
      await page.keyboard.down("Shift");
      await page.keyboard.press(`Digit${k}`);
      await page.keyboard.up("Shift");
    } else {
      await page.keyboard.press(name);
    }
  }
}

/**
 * Play as the person until the page shows the outcome: after each gesture wait for the page to
 * render again (an entry arrived), never for a fixed time. `onStep` sees each step.
 */
export async function playToEnd(p, game, { deadlineMs = 120000, onStep = null, seat = null, paceMs = 0 } = {}) {
  const page = p.page;
  const until = Date.now() + deadlineMs;
  let steps = 0;
  let last = null;
  const mySeat = seat ?? (await session(page)).seat;
  const memo = {};
  const started = Date.now();
  for (;;) {
    if (Date.now() > until) {
      throw new Error(`${game}: no end within ${deadlineMs} ms (${steps} gestures); last: ${JSON.stringify(last)}`);
    }
    const s = await shown(page);
    if (s.over) break;
    const g = decide(game, s.view, mySeat, memo);
    last = { gesture: g, view: s.view, rejection: s.rejection };
    if (onStep) await onStep(s, g, steps);
    if (!g) {
      try {
        await nextRender(page, s.renders, 10000);
      } catch {
        /* nothing new: look again */
      }
      continue;
    }
    const acks = await page.evaluate(() => window.__cardcore.acks.length);
    if (paceMs) await page.waitForTimeout(paceMs); // a slower person's reaction time, not a wait for the page
    await gesture(page, g);
    steps += 1;
    // the page's answer to this gesture: the server's acknowledgement or its rejection
    let ack = null;
    try {
      await page.waitForFunction((n) => window.__cardcore.acks.length > n || document.querySelector("#outcome"), acks, { timeout: 5000, polling: "raf" });
      ack = await page.evaluate((n) => window.__cardcore.acks[n] ?? null, acks);
    } catch {
      /* a gesture that sends nothing (a selection): look again */
      if (process.env.CARDCORE_WEB_DEBUG) console.error("no answer to", JSON.stringify(g), JSON.stringify(s.view?.view));
    }
    try {
      if (ack && ack.seq !== undefined) {
        // then the view that holds it (the page renders after every entry)
        await page.waitForFunction((seq) => (window.__cardcore.view?.seq ?? 0) > seq || document.querySelector("#outcome"), ack.seq, { timeout: 10000, polling: "raf" });
      } else {
        await nextRender(page, s.renders, 3000);
      }
    } catch {
      /* look again */
    }
  }
  const over = Date.now();
  await page.waitForFunction(() => window.__cardcore?.verified, null, { timeout: 60000 });
  if (process.env.CARDCORE_WEB_DEBUG) console.error(`${game}: over after ${(over - started) / 1000} s, verified ${(Date.now() - over) / 1000} s later`);
  return steps;
}

/** The end panel as the page shows it: outcome, seed, the verdicts. */
export async function endPanel(page) {
  return page.evaluate(() => {
    const p = window.__cardcore;
    const verdicts = [...document.querySelectorAll("#verdicts .verdict")].map((v) => ({
      status: v.dataset.status, seq: v.dataset.seq, exit: Number(v.dataset.exit), text: v.querySelector(".verdict-text").textContent,
      title: v.querySelector(".verdict-title").textContent,
    }));
    return {
      outcome: document.querySelector("#outcome")?.textContent ?? null,
      termination: document.querySelector("#outcome")?.dataset.termination ?? null,
      seed: document.querySelector("#seed")?.textContent ?? null,
      verdicts,
      downloads: [...document.querySelectorAll(".downloads a")].map((a) => a.getAttribute("download")),
      final: p.final,
      receipts: p.receipts,
      acks: p.acks,
      firstRenderMs: p.firstRenderMs,
      narration: [...document.querySelectorAll("#narration li")].map((li) => li.textContent),
      narrated: p.narrated ?? {},
      serverKey: p.serverKey ?? null,
    };
  });
}

/** A screenshot in `dir`: the whole page, or (`fullPage: false`) what the viewport shows. */
export async function screenshot(page, dir, name, { fullPage = true } = {}) {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.png`);
  await page.screenshot({ path: file, fullPage });
  return file;
}

/** axe-core on the page: the violations of impact serious or critical. */
export async function axe(page) {
  const src = path.join(path.dirname(new URL(import.meta.url).pathname), "../../../node_modules/axe-core/axe.min.js");
  // evaluated, not added as a <script>: the page's CSP allows no inline script (rightly)
  await page.evaluate(fs.readFileSync(src, "utf8") + "\n;0");
  const result = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ["violations"] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" ")) }));
  });
  return result.filter((v) => v.impact === "serious" || v.impact === "critical");
}

export { same, top };
