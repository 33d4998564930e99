// The page's verifier: `cardcore verify` itself, run in the browser (verify-worker.js), on
// the receipts this page kept, on the final log and on any log a person drops on the page.
// Its verdicts are the command line's, word for word, with the same exit codes: the server's
// signatures are checked there too (--server-key; cardcore's own Ed25519, in Python).

let worker = null;
let next = 1;
const waiting = new Map();

function failAll(message) {
  for (const w of waiting.values()) w.reject(new Error(message));
  waiting.clear();
  worker = null;
}

function ensureWorker() {
  if (worker) return worker;
  worker = new Worker(new URL("./verify-worker.js", import.meta.url), { type: "module" });
  worker.onmessage = (msg) => {
    const { id, ok, result, error } = msg.data;
    const w = waiting.get(id);
    if (!w) return;
    waiting.delete(id);
    if (ok) w.resolve(result);
    else w.reject(new Error(error));
  };
  // a worker that cannot even start (its script missing): say which, never just "failed"
  worker.onerror = (ev) => failAll(`the verifier's worker did not start: ${ev.message || "its script did not load"}`);
  return worker;
}

/** `cardcore ARGV…` in the page, on `files` ({name: text}; `@name` in argv is its path):
 * {exit, text}, text being what it printed (its standard output, else its standard error). */
export function cli(argv, files) {
  const w = ensureWorker();
  const id = next++;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    w.postMessage({ id, argv, files });
  });
}

function run(argv, files) {
  return cli(["verify", "--json", ...argv], files).then(verdictOf);
}

let warming = null;

/** Start loading Pyodide now (it takes a few seconds the first time): the worker boots on a
 * message with no command. */
export function warmUp() {
  if (warming && worker) return warming;
  const w = ensureWorker();
  const id = next++;
  warming = new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    w.postMessage({ id, argv: null, files: {} });
  }).catch(() => { warming = null; });
  return warming;
}

const STATUSES = {
  valid: "valid",
  "self-consistent": "self-consistent",
  "consistent so far": "partial",
  INVALID: "invalid",
  unsupported: "unsupported",
};

/** {status: valid|self-consistent|partial|invalid|unsupported|error, seq, where, exit, text}
 * of `cardcore verify --json`'s answer (anything else it printed, e.g. a usage error, is an
 * "error" with that text). */
export function verdictOf({ exit, text }) {
  let v = null;
  try {
    v = JSON.parse(text || "");
  } catch {
    v = null;
  }
  if (!v || typeof v.text !== "string") return { status: "error", seq: null, where: null, exit, text };
  const seq = typeof v.at === "number" ? v.at : null;
  const where = seq !== null ? `seq ${seq}` : v.at === "header" ? "header" : null;
  return { status: STATUSES[v.status] ?? "error", seq, where, exit: v.exit, text: v.text };
}

const keyArgs = (serverKey) => (serverKey ? ["--server-key", serverKey] : []);

/** `cardcore verify [--server-key KEY] LOG`: a log, a copy or a receipts file. */
export function verifyLog(text, { serverKey = null } = {}) {
  return run([...keyArgs(serverKey), "@log.jsonl"], { "log.jsonl": text });
}

/** `cardcore verify [--server-key KEY] --receipts MINE FINAL`: what this seat was shown, held
 * to the final log. */
export function checkCopy(mine, final, { serverKey = null } = {}) {
  return run([...keyArgs(serverKey), "--receipts", "@mine.jsonl", "@final.jsonl"], {
    "mine.jsonl": mine,
    "final.jsonl": final,
  });
}
