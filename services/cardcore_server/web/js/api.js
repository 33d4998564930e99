// The public REST API and its event stream, nothing else. Errors are RFC 9457 problem
// documents: an ApiError carries their `code` (the rules' RejectCode or a service reason) and
// `detail`, which the page shows as they are.

const API_KEY = "cardcore.api";

/** Where the API is: `?api=URL` (remembered), else this page's own origin. */
export function apiBase() {
  const params = new URLSearchParams(location.search);
  const given = params.get("api");
  if (given) {
    try {
      const url = new URL(given);
      localStorage.setItem(API_KEY, url.origin);
    } catch {
      /* not a URL: ignored */
    }
  }
  return localStorage.getItem(API_KEY) || location.origin;
}

export class ApiError extends Error {
  constructor(status, problem) {
    const code = problem?.code || `HTTP${status}`;
    const detail = problem?.detail || problem?.title || "request failed";
    super(`${code}: ${detail}`);
    this.status = status;
    this.code = code;
    this.detail = detail;
    this.problem = problem ?? {};
  }
}

/** A network failure (no answer at all): worth retrying. */
export class NetworkError extends Error {}

function headers(token, extra = {}) {
  const h = { Accept: "application/json", ...extra };
  if (token) h.Authorization = `Bearer ${token}`;
  return h;
}

async function problemOf(res) {
  try {
    return await res.json();
  } catch {
    return { code: `HTTP${res.status}`, detail: res.statusText || "error" };
  }
}

/** One API call: JSON in, JSON out (or text for `text: true`). */
export async function call(path, { method = "GET", token, body, text = false, signal } = {}) {
  const init = { method, headers: headers(token), signal, cache: "no-store" };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers["Content-Type"] = "application/json";
  }
  let res;
  try {
    res = await fetch(apiBase() + path, init);
  } catch (err) {
    if (err?.name === "AbortError") throw err;
    throw new NetworkError(String(err?.message || err));
  }
  if (!res.ok) throw new ApiError(res.status, await problemOf(res));
  if (text) return { text: await res.text(), headers: res.headers };
  return res.json();
}

/**
 * The event stream of a game, read with fetch so that the seat's token travels in the
 * Authorization header (an EventSource cannot send one, and a token in the URL would reach
 * server and proxy logs). Yields {event, id, data} per Server-Sent Event (WHATWG parsing);
 * resumes after `lastEventId` (the last seq received) with no gap and no duplicate.
 */
export async function* events(gameId, { token, lastEventId = null, signal } = {}) {
  const h = headers(token, { Accept: "text/event-stream" });
  if (lastEventId !== null && lastEventId !== undefined) h["Last-Event-ID"] = String(lastEventId);
  let res;
  try {
    res = await fetch(`${apiBase()}/v1/games/${encodeURIComponent(gameId)}/events`, {
      headers: h, signal, cache: "no-store",
    });
  } catch (err) {
    if (err?.name === "AbortError") throw err;
    throw new NetworkError(String(err?.message || err));
  }
  if (!res.ok) throw new ApiError(res.status, await problemOf(res));
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let ev = { event: "message", id: null, data: [] };
  try {
    for (;;) {
      let chunk;
      try {
        chunk = await reader.read();
      } catch (err) {
        if (err?.name === "AbortError") throw err;
        throw new NetworkError(String(err?.message || err));
      }
      if (chunk.done) return;
      buffer += chunk.value;
      let nl;
      while ((nl = buffer.search(/\r\n|\r|\n/)) >= 0) {
        const line = buffer.slice(0, nl);
        const skip = buffer.startsWith("\r\n", nl) ? 2 : 1;
        buffer = buffer.slice(nl + skip);
        if (line === "") {
          if (ev.data.length || ev.event !== "message") {
            yield { event: ev.event, id: ev.id, data: ev.data.join("\n") };
          }
          ev = { event: "message", id: null, data: [] };
          continue;
        }
        if (line.startsWith(":")) continue; // a heartbeat comment
        const colon = line.indexOf(":");
        const name = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? "" : line.slice(colon + 1);
        if (value.startsWith(" ")) value = value.slice(1);
        if (name === "data") ev.data.push(value);
        else if (name === "event") ev.event = value;
        else if (name === "id") ev.id = value;
      }
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

let serverInfo = null;

/** GET /v1/server (once per page): the Ed25519 key this server signs its logs with. A page
 * keeps the key it saw when a game began: the final log must be signed by it (cardcore verify
 * --server-key, run in the page). */
export async function serverKey() {
  serverInfo ??= call("/v1/server").catch((err) => {
    serverInfo = null;
    throw err;
  });
  return (await serverInfo).server_key;
}

const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

/** 16 random bytes as 32 hex digits: what a seat adds to the deal (log format 2). */
export function entropy() {
  return hex(crypto.getRandomValues(new Uint8Array(16)));
}

/** What a commitment hashes before the entropy (docs/rng.md, "Committed entropy"). */
const COMMITMENT_TAG = new TextEncoder().encode("cardcore-entropy-commitment/1");

/**
 * SHA-256("cardcore-entropy-commitment/1" || the 16 bytes) as 64 hex digits: what a seat joins
 * with instead of its entropy, revealed once nobody can join or leave. null where the page has
 * no Web Crypto digest (crypto.subtle exists in a secure context only: https, localhost).
 */
export async function entropyCommitment(entropyHex) {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle || !/^[0-9a-f]{32}$/.test(entropyHex)) return null;
  const message = new Uint8Array(COMMITMENT_TAG.length + 16);
  message.set(COMMITMENT_TAG);
  for (let i = 0; i < 16; i += 1) message[COMMITMENT_TAG.length + i] = parseInt(entropyHex.slice(2 * i, 2 * i + 2), 16);
  try {
    return hex(new Uint8Array(await subtle.digest("SHA-256", message)));
  } catch {
    return null;
  }
}

/**
 * What a join adds to the deal: `body` (its fields for JoinTable or an invite's POST) and
 * `reveal`, the entropy the seat must reveal once its table is `revealing` (null: none, the
 * entropy went in the open). A commitment where the page can compute one; else, as before
 * commitments, the entropy itself (the server then knows it before the start).
 */
export async function joinEntropy() {
  const value = entropy();
  const commitment = await entropyCommitment(value);
  return commitment
    ? { body: { entropy_commitment: commitment }, reveal: value }
    : { body: { entropy: value }, reveal: null };
}

/** RevealEntropy: the entropy this seat committed to, once its table is `revealing`; the
 * answer is the table (the last reveal deals it: status `playing`). */
export function revealEntropy(gameId, token, value) {
  return call(`/v1/games/${encodeURIComponent(gameId)}/reveal`, { method: "POST", token, body: { entropy: value } });
}

/** A fresh action id (resubmitting it returns the original result: no double action). */
export function actionId() {
  return "web-" + hex(crypto.getRandomValues(new Uint8Array(12)));
}
