// The table of each game: its board drawn from the seat's view (only what the view shows), its
// status line, labels for its legal commands, and its keyboard shortcuts (under the table's
// variant rules). A shortcut maps a key to a command the moment the key goes down; staleness
// guards are filled from what the page shows (expect_epoch, seen_count, expect_top:
// rules.md §0.4.5), so a slap or a play is judged against the position the person saw.
//
// The board gets `ctx.over` once the game has ended: nobody is "to play" then, whatever seat
// the last view still names as current.

import { HIDDEN, cardEl, cardName, cardSymbol, cardsText, pileEl, rankPlural, slotEl, stackEl } from "./cards.js";
import { h } from "./dom.js";

const RANK_TEXT = ["JK", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const top = (pile) => (pile && pile.length ? pile[pile.length - 1] : null);
const plural = (k, one, many = `${one}s`) => `${k} ${k === 1 ? one : many}`;
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const sortCards = (cards) => [...cards].sort();
const sameCards = (a, b) => same(sortCards(a), sortCards(b));

function digitOf(ev) {
  const m = /^(?:Digit|Numpad)([1-9])$/.exec(ev.code || "");
  return m ? Number(m[1]) : null;
}

/** A seat's heading on the board: its name, and what it is doing now. */
function seatHead(ctx, seat, badges = []) {
  const kind = ctx.seatKinds[seat];
  const who = seat === ctx.seat ? "You" : `Seat ${seat}`;
  const what = kind && kind !== "human" ? ` · bot (${kind})` : "";
  const present = ctx.present.includes(seat) || (kind && kind !== "human");
  return h("div", { class: "seat-head" },
    h("span", { class: `presence ${present ? "here" : "away"}`, role: "img", "aria-label": present ? "at the table" : "not connected" }),
    h("span", { class: "seat-name" }, `${who}${seat === ctx.seat ? ` (seat ${seat})` : ""}${what}`),
    badges.filter(Boolean).map((b) => h("span", { class: "badge" }, b)));
}

/** A button's name, for assistive technology only (the card drawn in it is decorative). */
function srLabel(text) {
  return h("span", { class: "sr-only" }, text);
}

/**
 * An action button: sent when the pointer goes down (or on Enter/Space while focused). `short`:
 * a shorter face (what fits a phone), `label` its name for assistive technology; `content`: a
 * face of elements, likewise.
 */
export function actionButton(ctx, cmd, label, { cls = "", content = null, short = null, keyHint = "" } = {}) {
  const key = `cmd:${JSON.stringify(cmd)}`;
  // aria-keyshortcuts names keys pressed together ("Shift+2"), not a sequence ("M 1 2")
  const shortcut = keyHint && !/\s/.test(keyHint) ? keyHint.replace("←", "ArrowLeft").replace("→", "ArrowRight") : null;
  const b = h("button", {
    type: "button", class: `act ${cls}`, dataset: { key, cmd: JSON.stringify(cmd) },
    "aria-keyshortcuts": shortcut,
  });
  if (short !== null) content = h("span", { "aria-hidden": "true" }, short, keyHint ? h("kbd", {}, keyHint) : null);
  if (content) b.append(srLabel(keyHint ? `${label} (key ${keyHint})` : label), content);
  else b.append(h("span", {}, label), keyHint ? h("kbd", { title: `key ${keyHint}` }, keyHint) : null);
  b.addEventListener("pointerdown", (ev) => {
    if (ev.button !== 0) return;
    ev.preventDefault(); // no focus ring jump; the action goes now, not on release
    ctx.act(cmd, performance.now());
  });
  b.addEventListener("click", (ev) => {
    if (ev.detail === 0) ctx.act(cmd, performance.now()); // Enter or Space on the focused button
  });
  return b;
}

// --------------------------------------------------------------------------- ratscrew, slapjack

function slapGame(name) {
  const isErs = name === "ratscrew";
  return {
    direct: () => true,
    help: () => (isErs
      ? [["Space", "slap"], ["Enter or P", "play your top card"], ["C", "collect the pile owed to you"]]
      : [["Space", "slap"], ["Enter or P", "play your top card"]]),
    status(view, ctx) {
      // an owed pile (Ratscrew's collect window): nobody is to play; its seat collects it
      // unless a slap comes first
      if (isErs && view.owed_to !== null) {
        return view.owed_to === ctx.seat ? "The pile is yours: collect it" : `The pile is owed to seat ${view.owed_to}: it collects next`;
      }
      if (typeof view.current === "number") return view.current === ctx.seat ? "Your turn" : `Seat ${view.current} to play`;
      return "Nobody holds a card: only a slap takes the pile";
    },
    fill(cmd, view) {
      if (cmd.kind === "Slap") {
        const c = { kind: "Slap", expect_epoch: view.epoch };
        if (isErs) c.seen_count = view.played_count;
        return c;
      }
      return cmd;
    },
    label(cmd) {
      return { Play: "Play your top card", Slap: "Slap", Collect: "Collect the pile", Resign: "Resign" }[cmd.kind] ?? cmd.kind;
    },
    keyHint(cmd) {
      return { Play: "Enter", Slap: "Space", Collect: "C" }[cmd.kind] ?? "";
    },
    key(ev) {
      if (ev.code === "Space") return { kind: "Slap" };
      if (ev.code === "Enter" || ev.code === "NumpadEnter" || ev.key === "p" || ev.key === "P") return { kind: "Play" };
      if (isErs && (ev.key === "c" || ev.key === "C")) return { kind: "Collect" };
      return null;
    },
    board(view, ctx) {
      const current = ctx.over ? null : view.current;
      const seats = view.stacks.map((stack, s) => {
        const badges = [
          current === s ? "to play" : null,
          view.eliminated.includes(s) ? "out" : null,
          isErs && view.owed_to === s ? "owed the pile" : null,
          !isErs && view.awaiting && view.awaiting.includes(s) ? "waiting for a jack" : null,
        ];
        return h("div", { class: `seat-box${s === ctx.seat ? " me" : ""}${current === s ? " turn" : ""}`, dataset: { seat: s } },
          seatHead(ctx, s, badges),
          stackEl(stack.length, s === ctx.seat ? "your stack, face down" : `seat ${s}'s stack, face down`));
      });
      const pileLabel = isErs ? "the centre pile" : "the pile";
      const notes = [];
      if (isErs && view.challenge && current !== null) {
        notes.push(`seat ${current} must answer seat ${view.challenge[0]}'s challenge: ${plural(view.challenge[1], "card")} more`);
      }
      if (isErs && view.owed_to !== null && !ctx.over) notes.push(`the pile is owed to seat ${view.owed_to}: collect it, unless someone slaps first`);
      if (!isErs && view.pile.length && view.played_by.length) notes.push(`top card played by seat ${view.played_by[view.played_by.length - 1]}`);
      const centre = h("div", { class: "centre" },
        pileEl(view.pile, pileLabel, { show: 4, size: "lg" }),
        h("p", { class: "note" }, notes.join(" · ") || "\u00a0"));
      return [h("div", { class: "seats" }, seats), centre];
    },
  };
}

// --------------------------------------------------------------------------- palace

const palace = {
  direct: (cmd) => cmd.kind === "Ready" || cmd.kind === "Pickup",
  help: () => [
    ["1–9", "select your hand cards (face-up ones once the hand is empty); with hand and face-up cards gone, turn up that face-down card"],
    ["Shift+1–9", "select your face-up cards (to swap in setup)"],
    ["← →", "move between your cards (for more than nine); Space selects the focused one"],
    ["Enter", "play the selected cards (or swap, in setup)"], ["P", "pick up the pile"], ["R", "ready (setup)"], ["Escape", "clear the selection"],
  ],
  status(view, ctx) {
    if (view.phase === "setup") return view.ready.includes(ctx.seat) ? "Setup: you are ready; waiting for the others" : "Setup: swap cards, then ready";
    if (typeof view.current === "number") return view.current === ctx.seat ? "Your turn" : `Seat ${view.current} to play`;
    return "Play!";
  },
  /** The selection row with nothing selected: [words, the keys' words (hidden on touch screens)]. */
  idleText(ctx) {
    if (ctx.view.phase === "setup") return ["Select a hand card and a face-up card to swap them.", " Keys: 1–9, Shift+1–9, Enter."];
    return ["Select cards to play them.", " Keys: 1–9, then Enter."];
  },
  /** Why a selection is no move (the page offers only legal commands). */
  noMoveText(selection, ctx) {
    const view = ctx.view;
    const hand = view.hands[ctx.seat] || [];
    if (view.phase === "setup") {
      const inHand = selection.filter((c) => hand.includes(c)).length;
      if (selection.length === 1) return inHand ? "Now select a face-up card to swap it with." : "Now select a hand card to swap it with.";
      return "A swap is one hand card and one face-up card.";
    }
    return `${cardsText(selection)}: not a play you can make now.`;
  },
  fill: (cmd) => cmd,
  label(cmd) {
    switch (cmd.kind) {
      case "Swap": return `Swap: put ${cardName(cmd.hand_card)} face up, take ${cardName(cmd.up_card)} in hand`;
      case "Ready": return "Ready to play";
      case "Play": return `Play ${cmd.cards.map(cardName).join(", ")}`;
      case "PlayFaceDown": return `Turn up face-down card ${cmd.index + 1}`;
      case "Pickup": return "Pick up the pile";
      case "AddDrawn": return `Add just-drawn ${cmd.cards.map(cardName).join(", ")}`;
      case "Resign": return "Resign";
      default: return cmd.kind;
    }
  },
  /** A command's face where room is short (the selection row): cards by their symbols. */
  short(cmd) {
    switch (cmd.kind) {
      case "Swap": return `Swap ${cardSymbol(cmd.hand_card)} ↔ ${cardSymbol(cmd.up_card)}`;
      case "Play": return `Play ${cardsText(cmd.cards)}`;
      case "AddDrawn": return `Add ${cardsText(cmd.cards)}`;
      default: return null;
    }
  },
  keyHint(cmd, ctx) {
    if (cmd.kind === "PlayFaceDown" && cmd.index < 9 && ctx && palaceFaceDownKeys(ctx.view, ctx.seat)) return String(cmd.index + 1);
    return { Pickup: "P", Ready: "R" }[cmd.kind] ?? "";
  },
  key(ev, ctx) {
    const view = ctx.view;
    const d = digitOf(ev);
    if (d !== null) {
      const hand = view.hands[ctx.seat] || [];
      const up = view.up[ctx.seat] || [];
      if (palaceFaceDownKeys(view, ctx.seat)) return { kind: "PlayFaceDown", index: d - 1 };
      const zone = ev.shiftKey || !hand.length ? up : hand;
      const card = zone[d - 1];
      if (card && card !== HIDDEN) {
        ctx.toggle(card);
        return "handled";
      }
      return null;
    }
    if (ev.code === "ArrowLeft" || ev.code === "ArrowRight") {
      // a roving focus over your own card buttons: hands grow past nine cards
      const mine = [...document.querySelectorAll("#board .seat-box.me .card-btn")];
      if (!mine.length) return null;
      const at = mine.indexOf(document.activeElement);
      const next = at < 0 ? (ev.code === "ArrowLeft" ? mine.length - 1 : 0) : (at + (ev.code === "ArrowLeft" ? -1 : 1) + mine.length) % mine.length;
      mine[next].focus();
      return "handled";
    }
    if (ev.code === "Escape") {
      ctx.clearSelection();
      return "handled";
    }
    if (ev.code === "Enter" || ev.code === "NumpadEnter") return ctx.selectedCommand() ?? null;
    if (ev.key === "p" || ev.key === "P") return { kind: "Pickup" };
    if (ev.key === "r" || ev.key === "R") return { kind: "Ready" };
    return null;
  },
  board(view, ctx) {
    const me = ctx.seat;
    const n = view.hands.length;
    const current = ctx.over ? null : view.current;
    const out = [];
    const seats = [];
    for (let s = 0; s < n; s += 1) {
      if (s === me) continue;
      const badges = [
        current === s ? "to play" : null,
        view.finished.includes(s) ? `out (${view.finished.indexOf(s) + 1})` : null,
        view.resigned.includes(s) ? "resigned" : null,
        view.phase === "setup" && view.ready.includes(s) ? "ready" : null,
      ];
      seats.push(h("div", { class: `seat-box${current === s ? " turn" : ""}`, dataset: { seat: s } },
        seatHead(ctx, s, badges),
        h("div", { class: "row cards-row" },
          stackEl(view.hands[s].length, `seat ${s}'s hand`, { size: "sm" }),
          h("span", { class: "zone" }, h("span", { class: "zone-name" }, "up"),
            view.up[s].length ? view.up[s].map((c) => cardEl(c, { size: "sm" })) : slotEl(`seat ${s}: no face-up card`, { size: "sm" })),
          stackEl(view.down[s].length, `seat ${s}'s face-down cards`, { size: "sm" }))));
    }
    out.push(h("div", { class: "seats" }, seats));
    const notes = [];
    if (view.phase === "setup") notes.push("setup: swap hand and face-up cards, then say you are ready");
    else if (current !== null) notes.push(`${current === me ? "your turn" : `seat ${current} to play`}${view.follow_up ? " (again)" : ""}`);
    if (view.window) notes.push(`seat ${view.window[0]} may add just-drawn ${rankPlural(RANK_TEXT[view.window[1]] ?? view.window[1])}`);
    notes.push(view.direction === 1 ? "clockwise" : "anticlockwise");
    if (view.revealed) notes.push(`last turned up: ${cardSymbol(view.revealed)}`);
    out.push(h("div", { class: "centre" },
      stackEl(view.stock.length, "the stock", { size: "lg" }),
      pileEl(view.pile, "the pile", { show: 4, size: "lg" }),
      h("span", { class: "burned", role: "img", "aria-label": `${plural(view.burned.length, "card")} burned` }, h("span", { "aria-hidden": "true" }, `burned ${view.burned.length}`)),
      h("p", { class: "note" }, notes.join(" · "))));
    if (me !== null && me !== undefined) {
      const legal = ctx.legal;
      const hand = view.hands[me] || [];
      const up = view.up[me] || [];
      const zoneButtons = (cards, zone) => cards.map((c, i) => {
        const selected = ctx.selection.includes(c);
        const shift = zone === "face up" && hand.length ? "Shift+" : "";
        const k = i < 9 ? `${shift}${i + 1}` : null;
        const b = h("button", {
          type: "button", class: `card-btn${selected ? " selected" : ""}`, "aria-pressed": selected ? "true" : "false",
          // past the ninth card no digit is left: ← → walk the cards, Space selects
          "aria-keyshortcuts": k, dataset: { key: `sel:${zone}:${c}`, card: c, keyroute: k ? null : "arrows" },
        }, srLabel(`${cardName(c)}, ${zone}${k ? ` (key ${k})` : ""}`), cardEl(c, { decorative: true }));
        b.addEventListener("click", () => ctx.toggle(c));
        return b;
      });
      const down = (view.down[me] || []).map((c, i) => {
        const cmd = { kind: "PlayFaceDown", index: i };
        const ok = legal.some((x) => same(x, cmd));
        return ok ? actionButton(ctx, cmd, `Turn up face-down card ${i + 1}`, { cls: "card-btn", content: cardEl(HIDDEN, { decorative: true }), keyHint: palace.keyHint(cmd, ctx) })
          : cardEl(HIDDEN, { label: `your face-down card ${i + 1}` });
      });
      // the hand on a row of its own (it grows); the face-up and face-down cards side by side
      // where there is room (the controls below stay in view at 1280 × 900), else one under
      // the other
      out.push(h("div", { class: `seat-box me${current === me ? " turn" : ""}`, dataset: { seat: me } },
        seatHead(ctx, me, [current === me ? "your turn" : null, view.finished.includes(me) ? "out" : null, view.phase === "setup" && view.ready.includes(me) ? "ready" : null]),
        h("div", { class: "zone-row" }, h("span", { class: "zone-name" }, "hand"), hand.length ? zoneButtons(hand, "in hand") : h("span", { class: "help" }, "empty")),
        h("div", { class: "zone-pair" },
          h("div", { class: "zone-row" }, h("span", { class: "zone-name" }, "face up"), up.length ? zoneButtons(up, "face up") : h("span", { class: "help" }, "none")),
          h("div", { class: "zone-row" }, h("span", { class: "zone-name" }, "face down"), down.length ? down : h("span", { class: "help" }, "none")))));
    }
    return out;
  },
};

/** Whether the digit keys turn up face-down cards: hand and face-up cards are gone. */
function palaceFaceDownKeys(view, seat) {
  return seat !== null && seat !== undefined && !(view.hands[seat] || []).length && !(view.up[seat] || []).length && (view.down[seat] || []).length > 0;
}

// --------------------------------------------------------------------------- spit

const spit = {
  direct: (cmd) => cmd.kind === "Spit" && (cmd.target === null || cmd.target === undefined),
  help: () => [
    ["1–5", "play the top of your stock pile onto a spit pile (Shift: the right one), or turn it up; onto an empty space: move a card there"],
    ["M, then 1–5 twice", "move the top of one stock pile onto another: into an empty space, or stacked on an equal rank (variant)"],
    ["Space", "Spit!"], ["← →", "slap or take the left / right spit pile; in play, the pile to spit onto alone"], ["Escape", "cancel an M under way"],
  ],
  status(view, ctx) {
    if (view.phase === "CHOOSE") return view.chooser === ctx.seat ? "Choose a spit pile" : `Seat ${view.chooser} chooses a spit pile`;
    return { READY: "Ready to start", PLAY: "Play!", SLAP: "Slap!" }[view.phase] ?? view.phase;
  },
  pendingText(p) {
    return p.source === null ? "Move: press the stock pile to take from (1–5), Escape to cancel" : `Move from stock pile ${p.source + 1}: press the pile to put it on (1–5)`;
  },
  idleText: () => ["Press a stock pile to play its top card, or to turn it up.", " M moves a card between piles."],
  fill(cmd, view) {
    if (cmd.kind === "Play") return { ...cmd, expect_top: top(view.spit_piles[cmd.target]) };
    return cmd;
  },
  label(cmd, ctx) {
    const lay = ctx.view.layouts?.[ctx.seat] || [];
    switch (cmd.kind) {
      case "Play": return `Play ${cardName(top(lay[cmd.source]))} from stock pile ${cmd.source + 1} onto the ${cmd.target === 0 ? "left" : "right"} spit pile`;
      case "Flip": return `Turn up stock pile ${cmd.pile + 1}`;
      case "Move": return `Move ${cardName(top(lay[cmd.source]))} from stock pile ${cmd.source + 1} to the empty space ${cmd.target + 1}`;
      case "Stack": return `Stack stock pile ${cmd.source + 1} onto pile ${cmd.target + 1}`;
      case "Spit": return cmd.target === null || cmd.target === undefined ? "Spit!" : `Spit! onto the ${cmd.target === 0 ? "left" : "right"} spit pile`;
      case "Slap": return `Slap the ${cmd.target === 0 ? "left" : "right"} spit pile`;
      case "TakePile": return `Take the ${cmd.target === 0 ? "left" : "right"} spit pile`;
      default: return cmd.kind;
    }
  },
  keyHint(cmd) {
    if (cmd.kind === "Play") return `${cmd.target === 1 ? "Shift+" : ""}${cmd.source + 1}`;
    if (cmd.kind === "Flip") return String(cmd.pile + 1);
    if (cmd.kind === "Move" || cmd.kind === "Stack") return `M ${cmd.source + 1} ${cmd.target + 1}`;
    if (cmd.kind === "Spit" && (cmd.target === 0 || cmd.target === 1)) return cmd.target === 0 ? "←" : "→";
    if (cmd.kind === "Spit" && (cmd.target === null || cmd.target === undefined)) return "Space";
    if (cmd.kind === "Slap" || cmd.kind === "TakePile") return cmd.target === 0 ? "←" : "→";
    return "";
  },
  key(ev, ctx) {
    const view = ctx.view;
    const legal = ctx.legal;
    const d = digitOf(ev);
    const piles = (view.layouts[ctx.seat] || []).length;
    if (ctx.pending?.kind === "move") {
      if (d !== null && d <= piles) {
        if (ctx.pending.source === null) {
          ctx.setPending({ kind: "move", source: d - 1 });
          return "handled";
        }
        const source = ctx.pending.source;
        ctx.setPending(null);
        const onto = view.layouts[ctx.seat][d - 1] || [];
        return { kind: onto.length ? "Stack" : "Move", source, target: d - 1 };
      }
      ctx.setPending(null); // Escape, or any other key: the move is off (that key acts)
      if (ev.code === "Escape") return "handled";
    }
    if ((ev.key === "m" || ev.key === "M") && ctx.seat !== null) {
      ctx.setPending({ kind: "move", source: null });
      return "handled";
    }
    if (d !== null && d <= 5) {
      const i = d - 1;
      const pile = view.layouts[ctx.seat][i] || [];
      const t = top(pile);
      if (t === HIDDEN) return { kind: "Flip", pile: i };
      if (t === null) {
        // into an empty space: the move that exposes a face-down card first
        const moves = legal.filter((c) => c.kind === "Move" && c.target === i);
        const exposes = (c) => (view.layouts[ctx.seat][c.source] || []).slice(0, -1).includes(HIDDEN);
        const move = moves.find(exposes) ?? moves[0];
        return move ?? { kind: "Move", source: (i + 1) % 5, target: i };
      }
      const pref = ev.shiftKey ? 1 : 0;
      const plays = legal.filter((c) => c.kind === "Play" && c.source === i);
      const pick = plays.find((c) => c.target === pref) ?? plays[0];
      return pick ?? { kind: "Play", source: i, target: pref };
    }
    if (ev.code === "Space") return legal.find((c) => c.kind === "Spit" && c.target === null) ?? legal.find((c) => c.kind === "Spit") ?? { kind: "Spit", target: null };
    if (ev.code === "ArrowLeft" || ev.code === "ArrowRight") {
      const target = ev.code === "ArrowLeft" ? 0 : 1;
      if (view.phase === "CHOOSE") return { kind: "TakePile", target };
      if (view.phase === "PLAY") return { kind: "Spit", target };
      return { kind: "Slap", target };
    }
    return null;
  },
  board(view, ctx) {
    const me = ctx.seat ?? 0;
    const them = 1 - me;
    const layout = (seat, mine) => h("div", { class: "layout" }, view.layouts[seat].map((pile, i) => {
      const t = top(pile);
      const downs = pile.filter((c) => c === HIDDEN).length - (t === HIDDEN ? 1 : 0);
      const who = mine ? "your" : `seat ${seat}'s`;
      const label = t === null ? `${who} stock pile ${i + 1}: empty` : `${who} stock pile ${i + 1}: ${t === HIDDEN ? "face down" : cardName(t)}${downs > 0 ? `, ${downs} face down under it` : ""}`;
      const face = t === null ? slotEl("", { decorative: true }) : cardEl(t, { decorative: true });
      const body = h("span", { class: "layout-pile", dataset: { pile: i } }, face, downs > 0 ? h("span", { class: "under", "aria-hidden": "true" }, `+${downs}`) : null);
      if (!mine || ctx.seat === null || ctx.seat === undefined) return h("span", { class: "layout-slot", role: "img", "aria-label": label }, body);
      const b = h("button", { type: "button", class: "card-btn layout-slot", "aria-keyshortcuts": String(i + 1), dataset: { key: `pile:${i}`, pile: i } },
        srLabel(`${label} (key ${i + 1})`), body, h("kbd", { "aria-hidden": "true" }, String(i + 1)));
      b.addEventListener("pointerdown", (ev) => {
        if (ev.button !== 0) return;
        ev.preventDefault();
        const cmd = spit.key({ code: `Digit${i + 1}`, shiftKey: ev.shiftKey }, ctx);
        if (cmd) ctx.act(cmd, performance.now());
      });
      b.addEventListener("click", (ev) => {
        if (ev.detail !== 0) return;
        const cmd = spit.key({ code: `Digit${i + 1}`, shiftKey: false }, ctx);
        if (cmd) ctx.act(cmd, performance.now());
      });
      return b;
    }));
    const phaseWords = {
      READY: "ready: both call “Spit!” to start",
      PLAY: view.stuck ? "stuck: call “Spit!”" : "play",
      SLAP: "slap the spit pile you want (the smaller one)",
      CHOOSE: `seat ${view.chooser} chooses a spit pile`,
      OVER: "game over",
    };
    const calls = view.called.map((c, s) => (c ? `seat ${s} called` : null)).filter(Boolean);
    const piles = view.spit_piles.map((pile, j) => {
      const side = j === 0 ? "left" : "right";
      const el = pileEl(pile, `the ${side} spit pile`, { show: 3, size: "lg" });
      // the room of the slap / take button is kept in every phase: the table never grows
      const action = h("div", { class: "pile-action" });
      const wrap = h("div", { class: "spit-pile", dataset: { target: j } }, el, h("span", { class: "help" }, `${side}${view.locked === j ? " · locked" : ""}`), action);
      if (view.phase === "SLAP" || view.phase === "CHOOSE") {
        const cmd = view.phase === "SLAP" ? { kind: "Slap", target: j } : { kind: "TakePile", target: j };
        // a short face ("Slap ←": two fit side by side at 375 px), the whole name for readers
        const verb = view.phase === "SLAP" ? "Slap" : "Take";
        const arrow = j === 0 ? "←" : "→";
        const face = h("span", { class: "row", "aria-hidden": "true" }, verb, h("kbd", {}, arrow));
        action.append(actionButton(ctx, cmd, `${verb} the ${side} spit pile`, { keyHint: arrow, cls: "small", content: face }));
      }
      return wrap;
    });
    return [
      h("div", { class: "seat-box", dataset: { seat: them } }, seatHead(ctx, them, [view.called[them] ? "called Spit!" : null]),
        h("div", { class: "row" }, layout(them, false), stackEl(view.spit_counts[them], `seat ${them}'s spit cards`, { size: "sm" }))),
      h("div", { class: "centre spit-centre" }, piles, h("p", { class: "note" }, `round ${view.round} · ${phaseWords[view.phase] ?? view.phase}${calls.length ? ` · ${calls.join(", ")}` : ""}`)),
      h("div", { class: "seat-box me", dataset: { seat: me } }, seatHead(ctx, me, [view.called[me] ? "called Spit!" : null]),
        h("div", { class: "row" }, layout(me, true), stackEl(view.spit_counts[me], "your spit cards", { size: "sm" }))),
    ];
  },
};

// --------------------------------------------------------------------------- speed

const speed = {
  direct: (cmd) => cmd.kind === "Flip" || cmd.kind === "Draw",
  // runs of cards (R) are the variant multi_card_play's: without it there is no such key
  help: (rules) => [
    ["1–5", "play that hand card onto a centre pile it fits (Shift: the right one first)"],
    ["Space", "flip (to start, or when stuck)"], ["D", "draw (when the hand does not refill itself)"],
    ...(rules?.multi_card_play
      ? [["R, 1–5…, Enter", "play a run of hand cards in that order (Shift+Enter: onto the right pile)"], ["Escape", "cancel a run under way"]]
      : []),
  ],
  status(view) {
    return { READY: "Ready to start", PLAY: "Play!" }[view.phase] ?? view.phase.toLowerCase();
  },
  pendingText(p) {
    return p.cards.length ? `Run: ${p.cards.map(cardSymbol).join(" ")} — more cards (1–5), Enter to play it, Escape to cancel` : "Run: press its cards in order (1–5), then Enter";
  },
  idleText: (ctx) => ["Press a hand card to play it onto a centre pile it fits.", ctx.rules.multi_card_play ? " R starts a run of cards." : ""],
  fill(cmd, view) {
    if (cmd.kind === "Play") return { then: [], ...cmd, expect_top: top(view.centre[cmd.to]) };
    return cmd;
  },
  label(cmd) {
    switch (cmd.kind) {
      case "Play": return `Play ${cardName(cmd.card)} onto the ${cmd.to === 0 ? "left" : "right"} centre pile${cmd.then && cmd.then.length ? `, then ${cardsText(cmd.then)}` : ""}`;
      case "Flip": return "Flip";
      case "Draw": return "Draw a card";
      default: return cmd.kind;
    }
  },
  keyHint(cmd, ctx) {
    if (cmd.kind === "Flip") return "Space";
    if (cmd.kind === "Draw") return "D";
    const hand = ctx.view.hands[ctx.seat] || [];
    if (cmd.kind === "Play" && !(cmd.then && cmd.then.length)) {
      const i = hand.indexOf(cmd.card);
      return i >= 0 && i < 9 ? `${cmd.to === 1 ? "Shift+" : ""}${i + 1}` : "";
    }
    if (cmd.kind === "Play") {
      const keys = [cmd.card, ...cmd.then].map((c) => hand.indexOf(c) + 1);
      return keys.every((k) => k > 0 && k <= 9) ? `R ${keys.join(" ")} ${cmd.to === 1 ? "Shift+" : ""}Enter` : "";
    }
    return "";
  },
  key(ev, ctx) {
    const view = ctx.view;
    const d = digitOf(ev);
    const hand = view.hands[ctx.seat] || [];
    if (ctx.pending?.kind === "run") {
      if (d !== null) {
        const card = hand[d - 1];
        if (card && card !== HIDDEN && !ctx.pending.cards.includes(card)) ctx.setPending({ kind: "run", cards: [...ctx.pending.cards, card] });
        return "handled";
      }
      const cards = ctx.pending.cards;
      ctx.setPending(null);
      if ((ev.code === "Enter" || ev.code === "NumpadEnter") && cards.length) {
        const pref = ev.shiftKey ? 1 : 0;
        const then = cards.slice(1);
        const fits = ctx.legal.filter((c) => c.kind === "Play" && c.card === cards[0] && same(c.then ?? [], then));
        return fits.find((c) => c.to === pref) ?? fits[0] ?? { kind: "Play", card: cards[0], to: pref, then };
      }
      if (ev.code === "Escape" || ev.code === "Enter") return "handled";
    }
    if ((ev.key === "r" || ev.key === "R") && ctx.seat !== null && ctx.rules.multi_card_play) {
      ctx.setPending({ kind: "run", cards: [] });
      return "handled";
    }
    if (d !== null) {
      const card = (view.hands[ctx.seat] || [])[d - 1];
      if (!card) return null;
      const pref = ev.shiftKey ? 1 : 0;
      const plays = ctx.legal.filter((c) => c.kind === "Play" && c.card === card && !(c.then && c.then.length));
      return plays.find((c) => c.to === pref) ?? plays[0] ?? { kind: "Play", card, to: pref };
    }
    if (ev.code === "Space") return { kind: "Flip" };
    if (ev.key === "d" || ev.key === "D") return { kind: "Draw" };
    return null;
  },
  board(view, ctx) {
    const me = ctx.seat ?? 0;
    const them = 1 - me;
    const hand = view.hands[me] || [];
    const theirs = h("div", { class: "seat-box", dataset: { seat: them } }, seatHead(ctx, them, [view.calls.includes(them) ? "called flip" : null, `${plural(view.wins[them], "round")} won`]),
      h("div", { class: "row" }, stackEl(view.hands[them].length, `seat ${them}'s hand`, { size: "sm" }), stackEl(view.draws[them].length, `seat ${them}'s draw pile`, { size: "sm" })));
    const centre = h("div", { class: "centre speed-centre" },
      stackEl(view.sides[0].length, "the left side pile", { size: "sm" }),
      view.centre.map((pile, j) => h("div", { class: "spit-pile", dataset: { target: j } }, pileEl(pile, `the ${j === 0 ? "left" : "right"} centre pile`, { show: 3, size: "lg" }))),
      stackEl(view.sides[1].length, "the right side pile", { size: "sm" }),
      h("p", { class: "note" }, `round ${view.round} · ${view.phase === "READY" ? "both flip to start" : view.phase === "PLAY" ? "play" : view.phase.toLowerCase()}${view.calls.length ? ` · ${view.calls.map((s) => `seat ${s}`).join(", ")} called flip` : ""} · scores ${view.scores.join("–")}`));
    const cards = hand.map((c, i) => {
      if (c === HIDDEN || ctx.seat === null || ctx.seat === undefined) return cardEl(c);
      const fits = ctx.legal.filter((x) => x.kind === "Play" && x.card === c && !(x.then && x.then.length));
      const b = h("button", { type: "button", class: `card-btn${fits.length ? " fits" : ""}`, "aria-keyshortcuts": String(i + 1), dataset: { key: `hand:${i}`, card: c } },
        srLabel(`${cardName(c)}${fits.length ? `, plays onto the ${fits.map((x) => (x.to === 0 ? "left" : "right")).join(" or ")} pile` : ", fits no pile"} (key ${i + 1})`),
        cardEl(c, { decorative: true, size: "lg" }), h("kbd", { "aria-hidden": "true" }, String(i + 1)));
      b.addEventListener("pointerdown", (ev) => {
        if (ev.button !== 0) return;
        ev.preventDefault();
        const cmd = speed.key({ code: `Digit${i + 1}`, shiftKey: ev.shiftKey }, ctx);
        if (cmd) ctx.act(cmd, performance.now());
      });
      b.addEventListener("click", (ev) => {
        if (ev.detail !== 0) return;
        const cmd = speed.key({ code: `Digit${i + 1}`, shiftKey: false }, ctx);
        if (cmd) ctx.act(cmd, performance.now());
      });
      return b;
    });
    const mine = h("div", { class: "seat-box me", dataset: { seat: me } }, seatHead(ctx, me, [view.calls.includes(me) ? "called flip" : null, `${plural(view.wins[me], "round")} won`]),
      h("div", { class: "row hand" }, cards.length ? cards : h("span", { class: "help" }, "no card in hand"), stackEl(view.draws[me].length, "your draw pile", { size: "sm" })));
    return [theirs, centre, mine];
  },
};

export const GAMES = {
  ratscrew: slapGame("ratscrew"),
  slapjack: slapGame("slapjack"),
  palace,
  spit,
  speed,
};
