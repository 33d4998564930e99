// Logs for the verifier's tests: the golden logs; forgeries of a log made as anyone holding it
// after the end can make them (the end line reveals the salt: rewrite, then recompute every
// keyed hash; nothing is re-signed); and Python's own `cardcore verify` to hold Node's to.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { generateKeyPairSync, sign } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { endHash, entryHash, headerHash } from '../src/crosscheck.js';
import { canonical, parseJson } from '../src/json.js';
import { cardcoreDir } from '../src/verify.js';
import { REPO } from './server.js';

export const GOLDEN = path.join(REPO, 'tests/golden');
/** Every golden log, tests/golden/<dir>/*.jsonl (legacy ones too). */
export const goldenLogs = readdirSync(GOLDEN, { withFileTypes: true })
  .filter((d) => d.isDirectory() && !d.name.startsWith('_'))
  .flatMap((d) =>
    readdirSync(path.join(GOLDEN, d.name))
      .filter((f) => f.endsWith('.jsonl'))
      .map((f) => path.join(GOLDEN, d.name, f)),
  );

export const linesOf = (text) => String(text).split('\n').filter(Boolean).map(parseJson);
export const textOf = (lines) => lines.map((l) => `${canonical(l)}\n`).join('');
export const clone = (lines) => lines.map((l) => parseJson(canonical(l)));

/** Every hash of a complete log recomputed, links included, with its revealed salt. */
export function rehash(lines) {
  const salt = Buffer.from(lines.at(-1).salt, 'hex');
  lines[0].hash = headerHash(lines[0]);
  for (let k = 1; k < lines.length; k++) {
    lines[k].prev = lines[k - 1].hash;
    lines[k].hash = lines[k].type === 'end' ? endHash(lines[k]) : entryHash(salt, lines[k]);
  }
  return lines;
}

const CARD = /^(10|[2-9AJQK])[SHDC]$/;

/** The paths of the card values in `value` (a JSON value), in order. */
function cardPaths(value, at = []) {
  if (typeof value === 'string') return CARD.test(value) ? [at] : [];
  if (value === null || typeof value !== 'object') return [];
  const key = (k) => (Array.isArray(value) ? Number(k) : k);
  return Object.keys(value).flatMap((k) => cardPaths(value[k], [...at, key(k)]));
}
const getAt = (v, at) => at.reduce((x, k) => x[k], v);
const setAt = (v, at, x) => (getAt(v, at.slice(0, -1))[at.at(-1)] = x);

/** The first entry from the middle of the log on whose events `pick` finds something. */
function middle(lines, pick) {
  const entries = lines.slice(1, -1);
  for (let k = Math.floor(entries.length / 3); k < entries.length; k++) {
    if (pick(entries[k])) return entries[k];
  }
  throw new Error('no entry to forge');
}

/** Forgeries of a complete log, each re-hashed with its revealed salt: name → lines. */
export const FORGERIES = {
  // a later time for an entry, still in order: the rules never look at it
  'at_ms changed': (lines) => {
    const entry = middle(lines, (e) => lines[e.seq + 2].at_ms > e.at_ms);
    entry.at_ms = lines[entry.seq + 2].at_ms;
    return lines;
  },
  'winner forged': (lines) => {
    const outcome = lines.at(-1).outcome;
    const seats = lines[0].setup.seats;
    outcome.winners = outcome.winners.length ? outcome.winners.map((s) => (s + 1) % seats) : [0];
    return lines;
  },
  'entry dropped, the rest renumbered': (lines) => {
    const entry = middle(lines, () => true);
    lines.splice(entry.seq + 1, 1);
    for (const line of lines.slice(entry.seq + 1)) line.seq -= 1;
    return lines;
  },
  'deal changed': (lines) => {
    const events = lines[1].events;
    const [a, ...rest] = cardPaths(events);
    const [x, b] = [getAt(events, a), rest.find((at) => getAt(events, at) !== getAt(events, a))];
    setAt(events, a, getAt(events, b));
    setAt(events, b, x);
    return lines;
  },
  'event rewritten': (lines) => {
    const entry = middle(lines, (e) => cardPaths(e.events).length > 0);
    const at = cardPaths(entry.events)[0];
    const card = getAt(entry.events, at);
    setAt(entry.events, at, card === 'AS' ? 'KS' : 'AS');
    return lines;
  },
};

/** `name` forged into the log `text`: the forged log's text. */
export const forge = (text, name) => textOf(rehash(FORGERIES[name](clone(linesOf(text)))));

/** A new Ed25519 key: { key (the public key, base64url, as servers publish it), sign(lines) (the
 *  header and end line signed as a signing server signs them: docs/log-format.md#signatures) }. */
export function signingKey() {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const key = publicKey.export({ format: 'jwk' }).x;
  const signed = (line) => {
    const message = Buffer.from(`cardcore-log-signature/1\n${line.hash}`, 'ascii');
    const sig = sign(null, message, privateKey).toString('base64url');
    return { ...line, signature: { alg: 'ed25519', key, sig } };
  };
  return {
    key,
    sign: (lines) => [signed(lines[0]), ...lines.slice(1, -1), signed(lines.at(-1))],
  };
}

const VENV_PYTHON = path.join(REPO, '.venv/bin/python');
export const PYTHON = process.env.CARDCORE_PYTHON ?? (existsSync(VENV_PYTHON) ? VENV_PYTHON : 'python3');

let running = 0;
const waiting = [];
const MAX_PYTHONS = 2; // the machine's cores are shared

/**
 * Python's `cardcore verify ARGS…` (the cardcore sources Node runs: `cardcoreDir()`), in a
 * directory of its own holding `files` ({ name: text }), `stdin` on its standard input:
 * resolves to { exit, stdout, stderr }, what a process of its own answers. The runs share
 * MAX_PYTHONS Python processes (verify_runs.py): starting Python and importing cardcore was
 * three quarters of each run's CPU, over some three hundred runs. `pythonVerifyProcess` runs
 * one in a process of its own, as a person types it (the tests hold the two to one answer).
 */
export const pythonVerify = (args, files = {}, stdin = '') =>
  runner().run({ args, files, stdin });

/** `python -m cardcore verify ARGS…` in a process of its own: what pythonVerify stands for. */
export const pythonVerifyProcess = (args, files = {}, stdin = '') =>
  python(['-m', 'cardcore', 'verify', ...args], files, stdin);

const pythonEnv = () => ({ ...process.env, PYTHONPATH: path.dirname(cardcoreDir()) });

/** One Python process of verify_runs.py: runs are sent as JSON lines, answered in order. It
 *  keeps this process alive only while a run is out (node --test ends a file when nothing is). */
class VerifyRunner {
  constructor() {
    this.child = spawn(PYTHON, [path.join(import.meta.dirname, 'verify_runs.py')], {
      env: pythonEnv(),
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    this.pending = new Map();
    this.next = 0;
    this.buffered = '';
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk) => this.read(chunk));
    this.child.on('exit', (code) => {
      for (const { reject } of this.pending.values()) reject(new Error(`verify_runs.py exited ${code}`));
      this.pending.clear();
    });
    this.idle();
  }

  run({ args, files, stdin }) {
    const id = this.next++;
    const answer = new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
    this.child.ref();
    this.child.stdout.ref();
    // files and standard input as base64: bytes (a file that is not UTF-8), as a process gets them
    const b64 = (text) => Buffer.from(text).toString('base64');
    const named = Object.fromEntries(Object.entries(files).map(([name, text]) => [name, b64(text)]));
    this.child.stdin.write(`${JSON.stringify({ id, args, files: named, stdin: b64(stdin) })}\n`);
    return answer;
  }

  read(chunk) {
    const lines = (this.buffered + chunk).split('\n');
    this.buffered = lines.pop();
    for (const line of lines) {
      const { id, exit, stdout, stderr } = JSON.parse(line);
      this.pending.get(id).resolve({ exit, stdout, stderr });
      this.pending.delete(id);
    }
    if (this.pending.size === 0) this.idle();
  }

  idle() {
    this.child.unref();
    this.child.stdout.unref();
    this.child.stdin.unref();
  }

  get load() {
    return this.pending.size;
  }
}

const runners = [];
/** The least busy runner, a new one while there are fewer than MAX_PYTHONS. */
function runner() {
  const free = runners.find((r) => r.load === 0);
  if (free) return free;
  if (runners.length < MAX_PYTHONS) {
    runners.push(new VerifyRunner());
    return runners.at(-1);
  }
  return runners.reduce((a, b) => (b.load < a.load ? b : a));
}

/** `python ARGS…` with the cardcore sources Node runs, in a directory of its own holding
 *  `files`, `stdin` on its standard input: { exit, stdout, stderr }. */
async function python(args, files, stdin) {
  if (running >= MAX_PYTHONS) await new Promise((go) => waiting.push(go));
  running++;
  const dir = mkdtempSync(path.join(tmpdir(), 'cardcore-py-'));
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
    return await new Promise((resolve, reject) => {
      const child = spawn(PYTHON, args, { cwd: dir, env: pythonEnv() });
      const out = { stdout: '', stderr: '' };
      child.stdout.on('data', (d) => (out.stdout += d));
      child.stderr.on('data', (d) => (out.stderr += d));
      child.on('error', reject);
      child.on('close', (exit) => resolve({ exit, ...out }));
      child.stdin.end(stdin);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
    running--;
    waiting.shift()?.();
  }
}

// A game under race_policy "compensated" as a host logs it (format 3, with format 2's
// contributions), two seats' actions from the bots received so that every third is credited
// after the last entry, every third credited at the same time as it and received later (a
// tie, in order of arrival), every third received too late for its credit (clamped).
const RACED_GAME = `
import sys
from cardcore import log, rng
from cardcore.bots import ask, seat_bots
from cardcore.match import Match
from cardcore.registry import get_game

game = get_game(sys.argv[1])
server_seed, contributions = 20240607, ((0, bytes(range(16))), (1, bytes(range(16, 32))))
seed = rng.derive_deal_seed(server_seed, contributions)
rules = {"race_policy": "compensated", "race_cap_ms": 80}
setup = game.make_setup(2, seed, rules, 5000)
match = Match(game, setup, server_seed=server_seed, contributions=contributions,
              salt=bytes(range(16)), game_id="raced")
bots = seat_bots("reaction", 2, 7)
k = 0
while match.outcome is None:
    proposals = [(b.seat, p[1]) for b in bots if (p := ask(b, game, match.state)) is not None]
    seat, command = proposals[k % len(proposals)]
    last = match.last_at_ms
    received, delay = [(last + 140, 40), (last + 60, 60), (last + 10, 40)][k % 3]
    match.submit_received(seat, command, received, delay)
    k += 1
sys.stdout.buffer.write(log.dumps(match.writer.lines))
`;

/** A complete format-3 log of `game` (a two-seat real-time game) with contributions, ties and
 *  clamps, written by cardcore (the sources Node runs): its text. */
export async function racedLog(game) {
  const { exit, stdout, stderr } = await python(['-c', RACED_GAME, game], {}, '');
  assert.equal(exit, 0, stderr);
  return stdout;
}

// A Slapjack table of three as a host logs it after committed entropy (docs/rng.md, "Committed
// entropy"): the creator's seat 0 gave its entropy in the open, seats 1 and 2 committed to
// theirs before the start; the header records each one's commitment beside its reveal. A few
// random actions, then the host aborts (the end line reveals the seed and salt).
const COMMITTED_GAME = `
import random, sys
from cardcore import log, rng
from cardcore.match import Match
from cardcore.registry import get_game

game = get_game("slapjack")
server_seed = 20261206
contributions = tuple((s, bytes(range(16 * s, 16 * s + 16))) for s in range(3))
setup = game.make_setup(3, rng.derive_deal_seed(server_seed, contributions))
match = Match(game, setup, server_seed=server_seed, contributions=contributions,
              committed={1, 2}, salt=bytes(range(16)), game_id="committed")
r = random.Random(5)
at = 0
for _ in range(30):
    options = [(s, c) for s in range(3) for c in game.legal_commands(match.state, s)]
    if match.outcome is not None or not options:
        break
    seat, command = r.choice(options)
    at += r.randrange(0, 400)
    match.submit(seat, command, at)
if match.outcome is None:
    match.abort(at + 5, "admin")
sys.stdout.buffer.write(log.dumps(match.writer.lines))
`;

/** A complete format-2 Slapjack log whose seats 1 and 2 committed to their entropy before the
 *  start (seat 0 gave it in the open), written by cardcore (the sources Node runs): its text. */
export async function committedLog() {
  const { exit, stdout, stderr } = await python(['-c', COMMITTED_GAME], {}, '');
  assert.equal(exit, 0, stderr);
  return stdout;
}

/** Assert that `verifier` (a Verifier) calls the complete log `text` valid, and that Node's own
 *  check agrees, the deal re-dealt; resolves to the log's lines. */
export async function assertValid(verifier, text, what) {
  const r = await verifier.run(['game.jsonl'], { 'game.jsonl': text });
  assert.equal(r.exit, 0, `${what}: ${r.stdout}${r.stderr}`);
  const [own] = r.crosschecked;
  assert.equal(own.fault, null, what);
  assert.match(own.checked, /the deal re-dealt from the revealed seed$/, what);
  return linesOf(text);
}

/** Node's (`verifier`'s) and Python's `cardcore verify ARGS…` on `files` ({ name: text }) and
 *  `stdin`: { node, python }. */
export async function both(verifier, args, files = {}, stdin = '') {
  const [node, python] = await Promise.all([
    verifier.run(args, files, { stdin }),
    pythonVerify(args, files, stdin),
  ]);
  return { node, python };
}

/** Node said what Python said: exit status and standard output; standard error too, unless
 *  it is a crash's traceback (whose file paths differ). */
export function same({ node, python }, what) {
  const pick = ({ exit, stdout }) => ({ exit, stdout });
  assert.deepEqual(pick(node), pick(python), what);
  if (!python.stderr.includes('Traceback')) assert.equal(node.stderr, python.stderr, what);
}
