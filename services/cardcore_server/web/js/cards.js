// Cards as the API writes them ("QS", "10H", "JK"; "??" for a card this seat may not see),
// their names for screen readers ("queen of spades") and their drawing (CSS cards).

export const HIDDEN = "??";
const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const RANK_NAMES = {
  A: "ace", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight",
  9: "nine", 10: "ten", J: "jack", Q: "queen", K: "king",
};
const RANK_PLURALS = { six: "sixes" };
const SUITS = { S: ["spades", "♠"], H: ["hearts", "♥"], D: ["diamonds", "♦"], C: ["clubs", "♣"] };

/** {rank, suit, red, joker} of a card code, or null for a hidden card or anything else. */
export function parseCard(code) {
  if (typeof code !== "string" || code === HIDDEN) return null;
  if (code === "JK") return { rank: "JK", suit: "", red: false, joker: true };
  const suit = code.slice(-1);
  const rank = code.slice(0, -1);
  if (!SUITS[suit] || !RANKS.includes(rank)) return null;
  return { rank, suit, red: suit === "H" || suit === "D", joker: false };
}

/** "queen of spades", "ten of hearts", "joker", "face-down card". */
export function cardName(code) {
  const c = parseCard(code);
  if (c === null) return code === HIDDEN ? "face-down card" : String(code);
  if (c.joker) return "joker";
  return `${RANK_NAMES[c.rank]} of ${SUITS[c.suit][0]}`;
}

/** "Q♠", "10♥", "JK" (rules.md's notation); "??" stays. */
export function cardSymbol(code) {
  const c = parseCard(code);
  if (c === null) return String(code);
  if (c.joker) return "JK";
  return c.rank + SUITS[c.suit][1];
}

/** The plural of a rank's name: "queens", "sixes". */
export function rankPlural(rank) {
  const name = RANK_NAMES[rank] ?? String(rank);
  return RANK_PLURALS[name] ?? `${name}s`;
}

export function rankIndex(code) {
  const c = parseCard(code);
  return c === null || c.joker ? 0 : RANKS.indexOf(c.rank) + 1;
}

export function cardsText(codes) {
  return codes.map(cardSymbol).join(" ");
}

/**
 * A card drawn with CSS: a face (rank and suit in the corners, the suit in the middle, red or
 * black) or a back for a hidden card. It is an image to assistive technology, named by
 * `label` (default: the card's name). `decorative`: hidden from it (a button names it).
 */
export function cardEl(code, { label, decorative = false, size = "" } = {}) {
  const el = document.createElement("span");
  const c = parseCard(code);
  el.className = "card" + (size ? ` card-${size}` : "");
  if (c === null) {
    el.classList.add("back");
  } else {
    el.dataset.card = code;
    el.classList.add(c.red ? "red" : "black");
    if (c.joker) el.classList.add("joker");
    const corner = document.createElement("span");
    corner.className = "corner";
    corner.textContent = c.joker ? "JK" : c.rank;
    const suit = document.createElement("span");
    suit.className = "corner-suit";
    suit.textContent = c.joker ? "★" : SUITS[c.suit][1];
    const pip = document.createElement("span");
    pip.className = "pip";
    pip.textContent = c.joker ? "★" : SUITS[c.suit][1];
    const corner2 = corner.cloneNode(true);
    corner2.className = "corner corner-bottom";
    el.append(corner, suit, pip, corner2);
    for (const child of el.children) child.setAttribute("aria-hidden", "true");
  }
  if (decorative) {
    el.setAttribute("aria-hidden", "true");
  } else {
    el.setAttribute("role", "img");
    el.setAttribute("aria-label", label ?? cardName(code));
  }
  return el;
}

/** An empty place where a card may lie (a pile with no card, an empty layout space). */
export function slotEl(label, { decorative = false, size = "" } = {}) {
  const el = document.createElement("span");
  el.className = "card slot" + (size ? ` card-${size}` : "");
  if (decorative) el.setAttribute("aria-hidden", "true");
  else {
    el.setAttribute("role", "img");
    el.setAttribute("aria-label", label);
  }
  return el;
}

/**
 * A face-down stack shown as one back with its count ("seat 1's stack: 26 cards face down").
 * The count is the only thing a seat learns of it.
 */
export function stackEl(count, label, { size = "" } = {}) {
  const el = document.createElement("span");
  el.className = "stack";
  el.setAttribute("role", "img");
  el.setAttribute("aria-label", `${label}: ${count} card${count === 1 ? "" : "s"}`);
  el.append(count > 0 ? cardEl(HIDDEN, { decorative: true, size }) : slotEl("", { decorative: true, size }));
  const n = document.createElement("span");
  n.className = "count";
  n.setAttribute("aria-hidden", "true");
  n.textContent = String(count);
  el.append(n);
  return el;
}

/**
 * A table pile (bottom first, the top last): its top `show` cards fanned, the rest counted.
 * The fan always takes the same room, so nothing around it moves as cards come and go.
 */
export function pileEl(cards, label, { show = 3, size = "" } = {}) {
  const el = document.createElement("span");
  el.className = "pile";
  const top = cards.length ? cards[cards.length - 1] : null;
  const desc = top === null
    ? `${label}: empty`
    : `${label}: ${cards.length} card${cards.length === 1 ? "" : "s"}, ${cardName(top)} on top`;
  el.setAttribute("role", "img");
  el.setAttribute("aria-label", desc);
  const fan = document.createElement("span");
  fan.className = "fan";
  fan.setAttribute("aria-hidden", "true");
  const shown = cards.slice(-show);
  if (!shown.length) fan.append(slotEl("", { decorative: true, size }));
  shown.forEach((code, i) => {
    const c = cardEl(code, { decorative: true, size });
    c.style.setProperty("--i", String(i));
    fan.append(c);
  });
  el.append(fan);
  const n = document.createElement("span");
  n.className = "count";
  n.setAttribute("aria-hidden", "true");
  n.textContent = String(cards.length);
  el.append(n);
  return el;
}
