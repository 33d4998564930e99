// The page's verifier: `cardcore verify` itself, run in the browser (verify-worker.js), on
// the receipts this page kept, on the final log and on any log a person drops on the page.
// Its verdicts are the command line's, word for word, with the same exit codes.

let worker = null;
let next = 1;
const waiting = new Map();

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
  worker.onerror = (ev) => {
    for (const w of waiting.values()) w.reject(new Error(ev.message || "the verifier failed to load"));
    waiting.clear();
    worker = null;
  };
  return worker;
}

function run(argv, files) {
  const w = ensureWorker();
  const id = next++;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    w.postMessage({ id, argv, files });
  }).then((r) => ({ ...r, ...verdictOf(r) }));
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

/** {status: valid|invalid|partial|error, seq: first bad seq or null, where} of a verdict. */
export function verdictOf({ exit, text }) {
  const m = /INVALID at (?:seq|entry) (\d+)/.exec(text || "");
  const header = /INVALID at header/.test(text || "");
  const status = exit === 0 ? "valid" : exit === 1 ? "invalid" : exit === 3 ? "partial" : "error";
  return { status, seq: m ? Number(m[1]) : null, where: m ? `seq ${m[1]}` : header ? "header" : null };
}

/** `cardcore verify LOG`: a log, a copy or a receipts file. */
export function verifyLog(text) {
  return run(["verify", "@log.jsonl"], { "log.jsonl": text });
}

/** `cardcore verify --receipts MINE FINAL`: what this seat was shown, held to the final log. */
export function checkCopy(mine, final) {
  return run(["verify", "--receipts", "@mine.jsonl", "@final.jsonl"], {
    "mine.jsonl": mine,
    "final.jsonl": final,
  });
}
