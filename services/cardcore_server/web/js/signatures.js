// The server's Ed25519 signatures on a log's header and end line (docs/log-format.md,
// "Signatures"; cardcore/signatures.py), checked in the page with Web Crypto against the key
// the page fetched from GET /v1/server when the game began — so a log swapped or altered later,
// even with a consistent hash chain, is caught. Pyodide has no `cryptography`, so this check is
// the browser's own, written to say what `cardcore verify --server-key` says.

const ALG = "ed25519";
const DOMAIN = "cardcore-log-signature/1\n";
const B64URL = /^[A-Za-z0-9_-]*$/;

/** base64url without padding, strictly: the one spelling cardcore writes (else null). */
export function unb64(text) {
  if (typeof text !== "string" || !B64URL.test(text) || text.length % 4 === 1) return null;
  const std = text.replaceAll("-", "+").replaceAll("_", "/") + "=".repeat((4 - (text.length % 4)) % 4);
  let bin;
  try {
    bin = atob(std);
  } catch {
    return null;
  }
  const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
  return b64(bytes) === text ? bytes : null;
}

export function b64(bytes) {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** Whether this browser can check Ed25519 here (Web Crypto needs a secure context). */
export async function available() {
  if (!globalThis.crypto?.subtle) return false;
  try {
    await crypto.subtle.importKey("raw", new Uint8Array(32).fill(1), { name: "Ed25519" }, false, ["verify"]);
    return true;
  } catch {
    return false;
  }
}

/**
 * Check the signatures of a log (JSON Lines text) against `serverKey` (base64url, as
 * /v1/server publishes it): the header's, and the end line's when there is one.
 * Returns {status: "valid" | "invalid" | "unavailable", checked, where, text}.
 */
export async function checkSignatures(logText, serverKey) {
  const lines = String(logText).split("\n").filter((l) => l.trim());
  let parsed;
  try {
    parsed = lines.map((l) => JSON.parse(l));
  } catch {
    return { status: "invalid", checked: 0, where: null, text: "the log is not JSON Lines" };
  }
  if (!parsed.length || parsed[0].type !== "header") {
    return { status: "invalid", checked: 0, where: "header", text: "the log has no header" };
  }
  const raw = unb64(serverKey);
  if (!raw || raw.length !== 32) {
    return { status: "unavailable", checked: 0, where: null, text: "no server key to check against" };
  }
  if (!(await available())) {
    return { status: "unavailable", checked: 0, where: null, text: "this browser cannot check Ed25519 signatures here (Web Crypto needs a secure context: https or localhost)" };
  }
  const key = await crypto.subtle.importKey("raw", raw, { name: "Ed25519" }, false, ["verify"]);
  const signed = [[null, parsed[0]]];
  const last = parsed[parsed.length - 1];
  if (parsed.length > 1 && last.type === "end") signed.push([last.seq ?? null, last]);
  for (const [seq, line] of signed) {
    const where = seq === null ? "the header" : "the end line";
    const at = seq === null ? "header" : `seq ${seq}`;
    const sig = line.signature;
    const fields = sig && typeof sig === "object" && !Array.isArray(sig) ? Object.keys(sig).sort().join(",") : "";
    if (fields !== "alg,key,sig" || sig.alg !== ALG) {
      return { status: "invalid", checked: 0, where: at, text: `${where} is not signed (an Ed25519 signature was expected)` };
    }
    if (sig.key !== serverKey) {
      return { status: "invalid", checked: 0, where: at, text: `${where} is signed by another key: ${sig.key}` };
    }
    const bytes = unb64(sig.sig);
    const ok = bytes !== null && bytes.length === 64 && typeof line.hash === "string" &&
      (await crypto.subtle.verify({ name: "Ed25519" }, key, bytes, new TextEncoder().encode(DOMAIN + line.hash)));
    if (!ok) return { status: "invalid", checked: 0, where: at, text: `${where}'s signature does not match it` };
  }
  const n = signed.length;
  return {
    status: "valid", checked: n, where: null,
    text: `${n === 2 ? "the header and the end line are" : "the header is"} signed by the server key ${serverKey}`,
  };
}
