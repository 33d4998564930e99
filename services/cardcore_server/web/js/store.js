// What the page keeps across a reload: the seat's token (sessionStorage: this tab only; the
// "your games" list in localStorage) and, beside it until the seat has revealed it, the entropy
// it committed to when it joined (`entropy_to_reveal`, docs/rng.md), and the receipts — every entry as the server sent it,
// verbatim, one key per entry (a write per entry, never the whole list again), the game's
// header and the end line. From the last seq kept the stream resumes with no gap and no
// duplicate.

const S = sessionStorage;
const L = localStorage;
const MINE = "cardcore.mine";

const key = (gameId, what) => `cardcore.${gameId}.${what}`;

/** {game_id, game, token, seat, viewer, creator_token, invites, entropy_to_reveal} of this
 * tab's seat, or null. */
export function loadSession(gameId) {
  const raw = S.getItem(key(gameId, "session"));
  if (raw) return JSON.parse(raw);
  const mine = myGames().find((g) => g.game_id === gameId);
  return mine ?? null;
}

export function saveSession(session) {
  S.setItem(key(session.game_id, "session"), JSON.stringify(session));
  const list = myGames().filter((g) => g.game_id !== session.game_id);
  list.unshift({ ...session, saved_ms: Date.now() });
  L.setItem(MINE, JSON.stringify(list.slice(0, 20)));
}

/** The seat's entropy is revealed (or can never be): it goes from wherever the session is kept,
 * the "your games" list keeping its order. Returns the session as it is now (or null). */
export function forgetEntropy(gameId) {
  const drop = (x) => {
    const y = { ...x };
    delete y.entropy_to_reveal;
    return y;
  };
  const raw = S.getItem(key(gameId, "session"));
  if (raw) S.setItem(key(gameId, "session"), JSON.stringify(drop(JSON.parse(raw))));
  const list = myGames();
  if (list.some((g) => g.game_id === gameId && g.entropy_to_reveal)) {
    L.setItem(MINE, JSON.stringify(list.map((g) => (g.game_id === gameId ? drop(g) : g))));
  }
  return loadSession(gameId);
}

/** The games this browser holds tokens of, newest first. */
export function myGames() {
  try {
    return JSON.parse(L.getItem(MINE) || "[]");
  } catch {
    return [];
  }
}

export function forgetGame(gameId) {
  L.setItem(MINE, JSON.stringify(myGames().filter((g) => g.game_id !== gameId)));
}

/** The receipts kept for one game in this tab. */
export class Receipts {
  constructor(gameId, viewer) {
    this.gameId = gameId;
    this.viewer = viewer;
    this.entries = [];
    this.header = S.getItem(key(gameId, "header"));
    this.end = S.getItem(key(gameId, "end"));
    const last = Number(S.getItem(key(gameId, "last") ?? "-1"));
    for (let seq = 0; seq <= last; seq += 1) {
      const raw = S.getItem(key(gameId, `e${seq}`));
      if (raw === null) break; // never: each entry is written before `last` moves past it
      this.entries.push(raw);
    }
  }

  /** The last seq received (-1: none yet). */
  get lastSeq() {
    return this.entries.length - 1;
  }

  add(seq, data) {
    if (seq !== this.entries.length) throw new Error(`receipt ${seq} out of order (have ${this.entries.length})`);
    // the entry exactly as the server sent it, marked as an entry (as the Python client writes
    // receipts; `cardcore verify` settles a game only from lines marked so)
    const raw = data.startsWith('{"type":') ? data : `{"type":"entry",${data.slice(1)}`;
    S.setItem(key(this.gameId, `e${seq}`), raw);
    S.setItem(key(this.gameId, "last"), String(seq));
    this.entries.push(raw);
  }

  setHeader(line) {
    this.header = line;
    S.setItem(key(this.gameId, "header"), line);
  }

  setEnd(line) {
    this.end = line;
    S.setItem(key(this.gameId, "end"), line);
  }

  /** The receipts file (JSON Lines) `cardcore verify` reads: a first line naming the game and
   * the viewer, the header, every entry as it was received, the end line. */
  text() {
    const head = JSON.stringify({ game_id: this.gameId, type: "receipts", viewer: this.viewer });
    const lines = [head];
    if (this.header) lines.push(this.header);
    lines.push(...this.entries);
    if (this.end) lines.push(this.end);
    return lines.join("\n") + "\n";
  }
}
