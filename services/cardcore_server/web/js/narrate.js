// Each adjudication in plain words, from the events' JSON as this seat was shown them (the
// wording of `cardcore replay`, which narrates with the games' own `narrate`), with one
// difference: piles are named as the board names them — Spit's stock piles and Palace's
// face-down cards 1, 2, … (the commands' fields count from 0), the two spit piles and Speed's
// centre and side piles left and right.

import { HIDDEN, cardSymbol, cardsText, rankIndex } from "./cards.js";

const rankNum = (card) => (card === "JK" ? 0 : rankIndex(card));

const n = (k, one, many = `${one}s`) => `${k} ${k === 1 ? one : many}`;
const pattern = (cards) => (cards || []).map(cardSymbol).join("-");
const shown = (card) => (card === HIDDEN ? "a face-down card" : cardSymbol(card));
const RANKS = ["JK", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
/** One of a pair of piles, as the board shows it: "the left spit pile". */
const side = (j, what) => `the ${j === 0 ? "left" : "right"} ${what}`;

function ratscrew(e) {
  switch (e.kind) {
    case "Dealt":
      return "dealt " + e.stacks.map((s, i) => `seat ${i}: ${s.length} cards`).join(", ");
    case "CardPlayed": {
      let t = `seat ${e.seat} played ${cardSymbol(e.card)}`;
      if (e.challenge && e.challenge[0] === e.seat) t += `: challenge, seat ${e.current} must play ${e.challenge[1]}`;
      else if (e.challenge) t += ` (${e.challenge[1]} more to answer)`;
      return t;
    }
    case "PileOwed":
      return `the pile is owed to seat ${e.seat}`;
    case "Slapped":
      return e.valid
        ? `seat ${e.seat} slapped on the ${e.rule} ${pattern(e.pattern)}: valid`
        : `seat ${e.seat} slapped: false slap`;
    case "PileTaken":
      return `seat ${e.seat} ${e.by === "collect" ? "collects" : "takes"} the pile (${e.cards} cards) and plays next`;
    case "PenaltyPaid":
      return `seat ${e.seat} pays ${shown(e.card)} ${e.to === null ? "under the pile" : `to seat ${e.to}`}`;
    case "TurnPassed":
      return `the turn passes to seat ${e.current}`;
    case "ChallengeLapsed":
      return `the claim lapses; seat ${e.current} plays next`;
    case "PlayerEliminated":
      return `seat ${e.seat} is eliminated`;
    case "Resigned":
      if (!e.cards.length) return `seat ${e.seat} resigned with no cards and is out`;
      return `seat ${e.seat} resigned and is out; their ${e.cards.length === 1 ? "1 card goes" : `${e.cards.length} cards go`} under the pile`;
    case "GameResigned":
      return `seat ${e.seat} resigned; seat ${e.winner} wins`;
    default:
      return null;
  }
}

function slapjack(e) {
  switch (e.kind) {
    case "Dealt":
      return "dealt " + e.stacks.map((s, i) => `seat ${i}: ${s.length} cards`).join(", ");
    case "CardPlayed":
      return `seat ${e.seat} played ${cardSymbol(e.card)}${e.current === null ? "; nobody holds a card" : ""}`;
    case "Slapped":
      return e.valid
        ? `seat ${e.seat} slapped on the ${e.target} ${pattern(e.pattern)}: valid`
        : `seat ${e.seat} slapped: false slap`;
    case "PileTaken":
      return (e.by === "return"
        ? `nobody else holds a card: the pile (${e.cards} cards) returns to seat ${e.seat}`
        : `seat ${e.seat} takes the pile (${e.cards} cards)`) + `; seat ${e.current} plays next`;
    case "StackShuffled":
      return `seat ${e.seat} shuffles its stack (${e.stack.length} cards)`;
    case "PenaltyPaid":
      return `seat ${e.seat} pays ${shown(e.card)} to seat ${e.to}`;
    case "TurnPassed":
      return `the turn passes to seat ${e.current}`;
    case "PlayerEliminated":
      return `seat ${e.seat} is eliminated`;
    case "Resigned": {
      const k = e.stack.length;
      let t = `seat ${e.seat} resigned`;
      if (k) t += `; their ${k} card${k > 1 ? "s go" : " goes"} under the pile`;
      if (e.winner !== null) return t + `; seat ${e.winner} wins`;
      if (e.current === null) return t + "; nobody holds a card";
      return t + `; seat ${e.current} plays next`;
    }
    default:
      return null;
  }
}

function palace(e) {
  const rankOf = (r) => `${RANKS[r] ?? r}s`; // "8s", "Ks": as `cardcore replay` says it
  switch (e.kind) {
    case "Dealt":
      return "dealt " + e.down.map((d, q) => `seat ${q}: ${d.length} down, ${e.up[q].length} up, ${e.hands[q].length} in hand`).join(", ")
        + `; ${e.stock.length} cards in the stock`;
    case "Swapped":
      return `seat ${e.seat} put ${cardSymbol(e.hand_card)} face up and took ${cardSymbol(e.up_card)} in hand`;
    case "Readied":
      return `seat ${e.seat} is ready`;
    case "PlayStarted":
      return `everybody is ready: seat ${e.starter} starts`;
    case "CardsPlayed": {
      const cards = [...e.from_hand, ...e.from_up];
      if (e.out_of_turn) return `seat ${e.seat} completed four ${rankOf(rankNum(cards[0]))} out of turn with ${cardsText(cards)}`;
      const where = !e.from_up.length ? "hand" : !e.from_hand.length ? "face-up cards" : "hand and up";
      return `seat ${e.seat} played ${cardsText(cards)} from ${where}`;
    }
    case "FaceDownTurned":
      return `seat ${e.seat} turned up face-down card ${e.index + 1}: ${cardSymbol(e.card)}`;
    case "CardsAdded":
      return `seat ${e.seat} added just-drawn ${cardsText(e.cards)}`;
    case "PileBurned":
      return `${e.by === "ten" ? "a 10" : "four of a kind"}: the pile burns (${e.cards} cards), by seat ${e.seat}`;
    case "CardsDrawn":
      if (e.cards.length && e.cards[0] === HIDDEN) return `seat ${e.seat} drew ${n(e.cards.length, "card")}`;
      return `seat ${e.seat} drew ${cardsText(e.cards)}`;
    case "PileTaken": {
      const why = {
        pickup: "picks up the pile",
        failed_blind: "cannot play the blind card: takes it with the pile",
        special_finish: "may not go out on a power card: takes the pile",
      }[e.reason] ?? "takes the pile";
      return `seat ${e.seat} ${why} (${e.cards} cards)`;
    }
    case "PlayerWentOut":
      return `seat ${e.seat} has no cards left: out in place ${e.place}`;
    case "PlayerResigned":
      return `${e.by == null ? `seat ${e.seat} resigned` : `seat ${e.seat} forfeited (${e.by})`}; its ${e.cards} ${e.cards === 1 ? "card leaves" : "cards leave"} the game face down`;
    case "DirectionReversed":
      return "play reverses: now " + (e.direction === 1 ? "clockwise" : "anticlockwise");
    case "TurnPassed": {
      if (e.current === null) return "one player is left holding cards: the game is over";
      let t = `seat ${e.current} ${e.follow_up ? "plays again" : "to play"}`;
      if (e.skipped && e.skipped.length) t += " (skipped " + e.skipped.map((q) => `seat ${q}`).join(", ") + ")";
      if (e.window) t += `; seat ${e.window[0]} may add just-drawn ${rankOf(e.window[1])}`;
      return t;
    }
    default:
      return null;
  }
}

function layoutText(layout) {
  return layout.map((p) => String(p.length)).join("-");
}

function spit(e) {
  switch (e.kind) {
    case "Dealt":
      return "dealt 26 cards each; " + e.layouts.map((lay, p) => `seat ${p}: stock piles ${layoutText(lay)}, ${e.spit_cards[p].length} spit cards`).join("; ");
    case "SpitCalled":
      return `seat ${e.seat} called "Spit!"${e.target === null ? "" : ` (naming ${side(e.target, "spit pile")})`}`;
    case "Spat":
      return `seat ${e.seat} spat ${cardSymbol(e.card)} onto ${side(e.target, "spit pile")}${e.lock ? "; that pile is now locked for the solo spits" : ""}`;
    case "PlayStarted":
      return "play starts";
    case "CardPlayed":
      return `seat ${e.seat} played ${cardSymbol(e.card)} on ${side(e.target, "spit pile")} (from stock pile ${e.source + 1})`;
    case "Flipped":
      return `seat ${e.seat} turned up ${cardSymbol(e.card)} on stock pile ${e.pile + 1}${e.auto ? " (automatically)" : ""}`;
    case "Moved":
      return `seat ${e.seat} moved ${cardSymbol(e.card)} from stock pile ${e.source + 1} to the space ${e.target + 1}`;
    case "Stacked":
      return `seat ${e.seat} stacked ${cardSymbol(e.card)} from stock pile ${e.source + 1} onto pile ${e.target + 1}`;
    case "RoundEnded": {
      const why = e.reason === "layout_empty" ? `seat ${e.seat} emptied its layout` : "stalemate, no spit cards left";
      const then = { slap: "slap for the spit piles", choose: `seat ${e.seat} chooses a spit pile`, none: "one spit pile, no slapping" }[e.claim];
      return `round over (${why}): ${then}`;
    }
    case "PileClaimed":
      return `seat ${e.seat} ${e.by === "slap" ? "slapped" : "chose"} ${side(e.target, "spit pile")} first and takes it`;
    case "NewLayout": {
      const took = e.takers.map((p, j) => (p === null ? null : `seat ${p} takes ${side(j, "spit pile")}`)).filter(Boolean).join(", ");
      if (e.winner !== null) return `${took || "no spit pile taken"}; seat ${e.winner} has no cards left and wins`;
      return `${took}; new layouts: ` + e.layouts.map((lay, p) => `seat ${p}: stock piles ${layoutText(lay)}, ${e.spit_cards[p].length} spit cards`).join("; ");
    }
    case "Resigned":
      return `seat ${e.seat} resigned: seat ${1 - e.seat} wins; the cards stay where they lie`;
    default:
      return null;
  }
}

function speed(e) {
  switch (e.kind) {
    case "Dealt":
      return `round ${e.round} dealt: 2 centre cards face down, side piles ${e.sides[0].length} and ${e.sides[1].length}; `
        + e.hands.map((h, p) => `seat ${p}: hand ${h.length} + draw pile ${e.draws[p].length}`).join(", ");
    case "FlipCalled":
      return `seat ${e.seat} calls ${e.stalemate ? "a stalemate flip" : "flip to start"}`;
    case "Started":
      return `both players called: the centre cards are turned up: ${e.centre.map(shown).join(" and ")}`;
    case "CardPlayed":
      return `seat ${e.seat} played ${cardSymbol(e.card)} on ${side(e.to, "centre pile")}`;
    case "CardDrawn":
      return `seat ${e.seat} drew ${shown(e.card)}`;
    case "SidePileRebuilt":
      return `${side(e.pile, "side pile")} was empty: rebuilt from the ${e.cards.length} cards under ${side(e.pile, "centre pile")}'s top, shuffled`;
    case "SideCardsTurned":
      return "both players called: stalemate flip turned " + e.cards.map((c, j) => (c === null ? null : `${cardSymbol(c)} onto ${side(j, "centre pile")}`)).filter(Boolean).join(" and ");
    case "RoundVoided":
      return "both players called a dead stalemate: no flip can help, the round ends with no winner and every card is re-dealt";
    case "RoundWon":
      return `seat ${e.seat} emptied hand and draw pile: wins the round and scores ${e.points} (totals ${e.scores[0]}–${e.scores[1]})`
        + (e.final ? ": game over" : "; all cards are re-dealt");
    case "Resigned":
      return `seat ${e.seat} resigned: seat ${1 - e.seat} wins the game; the cards stay where they lie`;
    default:
      return null;
  }
}

const BY_GAME = { ratscrew, slapjack, palace, spit, speed };

/** The words for one event (its kind and JSON when the game has none for it). */
export function narrateEvent(game, event) {
  let text = null;
  try {
    text = (BY_GAME[game] ?? (() => null))(event);
  } catch {
    text = null;
  }
  return text ?? `${event.kind} ${JSON.stringify(event)}`;
}

/** One entry in words: who did what, then what the rules decided. */
export function narrateEntry(game, entry) {
  const parts = (entry.events || []).map((e) => narrateEvent(game, e));
  const action = entry.action || {};
  if (action.kind === "Abort") return `the host aborted the game (${action.by})`;
  if (!parts.length) {
    if (action.kind === "Resign") return `seat ${entry.seat} resigned`;
    return `seat ${entry.seat}: ${action.kind}`;
  }
  if (action.by === "timer" && action.kind === "Resign") parts.unshift(`seat ${entry.seat}'s time ran out`);
  return parts.join("; ");
}
