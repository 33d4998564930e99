// The command line of the Node verifier (bin/cardcore-verify.js): `cardcore verify` run by
// cardcore's own verifier under Pyodide (verify.js) on the host's files, or --batch on many.
import { readFileSync, statSync } from 'node:fs';

import { createVerifier } from './verify.js';

const ME = 'cardcore-verify (Node)';
const HELP = `usage: cardcore-verify.js [NODE OPTIONS] [ARGUMENTS OF cardcore verify]
       cardcore-verify.js [--cardcore DIR] [--verbose] --batch < CASES.json > RESULTS.json

Runs cardcore's own verifier, \`cardcore verify\`: the cardcore package's Python sources under
Pyodide (CPython compiled to WebAssembly, from the npm package), on the files named. What it
prints (standard output and standard error) and its exit status are cardcore verify's, word for
word: 0 valid, 1 invalid, 2 unreadable input or a usage error, 3 consistent so far. Neither
CPython nor cardcore's Python tooling is needed, and nothing is read from the network.

Beside the verdict, Node checks every complete log named by itself (the header's hash, the
seed commitment, each entry's seq, link and keyed hash, the end line's hash, the deal re-dealt
from the revealed seed), from the documents alone: where it finds a fault in a log cardcore
called valid, it says so on standard error and exits 1. It never turns INVALID into valid.

Node options (anywhere before a "--"; the rest is cardcore verify's):
  --cardcore DIR  the cardcore package's sources to run (default: $CARDCORE_SRC, else the
                  repository's cardcore/, two levels above clients/node)
  --batch         many verifications, one boot of Pyodide: standard input is a JSON array of
                  cases {"argv": [ARGUMENTS OF cardcore verify], "files": {"NAME": "TEXT"},
                  "stdin": "TEXT"} ("files" and "stdin" optional; NAME as argv names it,
                  relative to the case's own empty directory; "stdin" is read for a LOG of
                  "-"); standard output is a JSON array of {"exit", "stdout", "stderr"}, one per
                  case, in order. Exit status 0 once every case ran, 2 for malformed cases.
  --verbose       say on standard error which cardcore runs, how long it took, and what Node's
                  own check covered
  --version       print which cardcore (version and directory), Pyodide and Python run
  -h, --help      this help, then cardcore verify's own
`;

class UsageError extends Error {}

/** Node's options, and the arguments of cardcore verify (all else, in order). */
function parseArgs(argv) {
  const opts = { cardcore: undefined, batch: false, verbose: false, version: false, help: false };
  const flags = {
    '--batch': 'batch',
    '--verbose': 'verbose',
    '--version': 'version',
    '--help': 'help',
    '-h': 'help',
  };
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      rest.push(...argv.slice(i)); // cardcore verify's own "--" too
      break;
    }
    if (arg in flags) opts[flags[arg]] = true;
    else if (arg === '--cardcore' || arg.startsWith('--cardcore=')) {
      opts.cardcore = arg.includes('=') ? arg.slice('--cardcore='.length) : argv[++i];
      if (!opts.cardcore) throw new UsageError('--cardcore needs a directory');
    } else rest.push(arg);
  }
  return { opts, rest };
}

/** The host's files and directories the arguments name (any argument, or an option's inline
 *  value, that is one): what cardcore may open, copied into Pyodide at the same paths. */
async function hostInputs(args, io) {
  const files = {};
  const dirs = [];
  for (const name of new Set(args.flatMap((a) => [a, a.replace(/^--[^=]*=/, '')]))) {
    try {
      const stat = statSync(name);
      // a pipe too: `verify <(curl …)` names /dev/fd/63
      if (stat.isFile() || stat.isFIFO()) files[name] = readFileSync(name);
      else if (stat.isDirectory()) dirs.push(name);
    } catch {
      // not a readable file: an option, a key, a seat, or missing (cardcore says which)
    }
  }
  const stdin = args.includes('-') ? await io.readStdin() : '';
  return { files, dirs, stdin };
}

async function verifyOnce(verifier, args, verbose, io) {
  const { files, dirs, stdin } = await hostInputs(args, io);
  const started = performance.now();
  const result = await verifier.run(args, files, { stdin, dirs });
  io.stdout(result.stdout);
  io.stderr(result.stderr);
  if (verbose) {
    const ms = Math.round(performance.now() - started);
    io.stderr(`${ME}: verified in ${ms} ms\n`);
    for (const c of result.crosschecked) {
      io.stderr(`${ME}: ${c.name}: Node's own check: ${c.checked}: ${c.fault ?? 'no fault'}\n`);
    }
  }
  return result.exit;
}

/** The cases of --batch, checked: [{ argv, files, stdin }]. */
function readCases(text) {
  const cases = JSON.parse(text);
  const strings = (v) => Array.isArray(v) && v.every((s) => typeof s === 'string');
  const named = (v) => v !== null && typeof v === 'object' && strings(Object.values(v));
  if (!Array.isArray(cases)) throw new UsageError('--batch reads a JSON array of cases');
  cases.forEach((c, i) => {
    const ok = c && strings(c.argv) && (c.files === undefined || named(c.files));
    if (!ok || !(c.stdin === undefined || typeof c.stdin === 'string')) {
      const shape = '{"argv": [strings], "files": {name: text}, "stdin": text}';
      throw new UsageError(`case ${i} is not ${shape}`);
    }
  });
  return cases;
}

async function batch(verifier, verbose, io) {
  let cases;
  try {
    cases = readCases((await io.readStdin()).toString('utf8'));
  } catch (e) {
    throw new UsageError(e instanceof UsageError ? e.message : `--batch: ${e.message}`);
  }
  const started = performance.now();
  const results = [];
  for (const c of cases) {
    try {
      const stdin = c.stdin ?? '';
      const { exit, stdout, stderr } = await verifier.run(c.argv, c.files ?? {}, { stdin });
      results.push({ exit, stdout, stderr });
    } catch (e) {
      results.push({ exit: 2, stdout: '', stderr: `${ME}: ${e.message}\n` });
    }
  }
  io.stdout(`${JSON.stringify(results)}\n`);
  if (verbose) {
    const ms = Math.round(performance.now() - started);
    io.stderr(`${ME}: ${cases.length} cases in ${ms} ms\n`);
  }
  return 0;
}

const PROCESS_IO = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  // read as a stream: readFileSync(0) fails with EAGAIN on a pipe Node has made non-blocking
  // (`cat cases.json | cardcore-verify.js --batch`, or input from another program)
  readStdin: async () => {
    const chunks = [];
    for await (const chunk of process.stdin) chunks.push(chunk);
    return Buffer.concat(chunks);
  },
  boot: createVerifier,
};

/** Run the command line `argv`; resolves to its exit status. `io` replaces the process's
 *  streams, and `boot` (({ cardcore }) => a Verifier) lets a test reuse its verifier. */
export async function main(argv, io = PROCESS_IO) {
  try {
    return await run(argv, io);
  } catch (e) {
    const usage = e instanceof UsageError ? `\n${HELP.split('\n\n')[0]}` : '';
    io.stderr(`${ME}: ${e.message}${usage}\n`);
    return 2;
  }
}

async function run(argv, io) {
  const { opts, rest } = parseArgs(argv);
  if (opts.batch && rest.length) {
    throw new UsageError('--batch reads its cases from standard input, no LOG');
  }
  if (opts.help) io.stdout(`${HELP}\n`);
  const verifier = await io.boot({ cardcore: opts.cardcore }).catch((e) => {
    throw new Error(`cannot run cardcore: ${e.message}`);
  });
  if (opts.verbose) {
    io.stderr(`${ME}: ${verifier.describe()}, booted in ${verifier.info.bootMs} ms\n`);
  }
  if (opts.version) {
    io.stdout(`${ME}: ${verifier.describe()}\n`);
    return 0;
  }
  if (opts.help) return verifyOnce(verifier, ['--help'], false, io);
  if (opts.batch) return batch(verifier, opts.verbose, io);
  return verifyOnce(verifier, rest, opts.verbose, io);
}
