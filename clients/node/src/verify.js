// Verify cardcore game logs in Node with cardcore's own verifier: CPython compiled to WebAssembly
// (the npm `pyodide` package) loads the cardcore package's Python sources (stdlib only) and runs
// `cardcore verify` itself, `cardcore.cli.main(["verify", ...])`. So Node, the command line and
// the web table (which does the same in the browser) give one verdict, word for word, with the
// same exit codes, and a doubter needs neither CPython nor cardcore's Python tooling to get it.
// Nothing is read from the network: the runtime is the npm package's files, the sources a
// directory, the logs the files given. Node's own check of a complete log (crosscheck.js) runs
// beside the verdict, and can only add doubt to it.
//
//   const verifier = await createVerifier();     // boots Pyodide: seconds, once per process
//   const { exit, stdout, stderr } = await verifier.run(['game.jsonl'], { 'game.jsonl': text });

import { readFileSync, readdirSync } from 'node:fs';
import { constants } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadPyodide } from 'pyodide';

import { crossCheck } from './crosscheck.js';

/** The cardcore package of this repository: clients/node/src → <repository>/cardcore. */
export const REPO_CARDCORE = fileURLToPath(new URL('../../../cardcore', import.meta.url));

/** The cardcore sources to run: `given`, else $CARDCORE_SRC, else the repository's. */
export const cardcoreDir = (given) =>
  path.resolve(given ?? process.env.CARDCORE_SRC ?? REPO_CARDCORE);

// Where things live in Pyodide's (in-memory) file system: the sources, each run's directory (its
// files, and its working directory), each run's standard input.
const SRC = '/cardcore-src';
const RUNS = '/cardcore-runs';
const STDIN = '/cardcore-stdin';

// In Pyodide's __main__: _boot imports cardcore from the sources alone; _run is `cardcore verify`
// as CPython's `python -m cardcore verify …` runs it — its stdout, its stderr, its exit status.
const HOST_PY = String.raw`
import errno, io, json, os, re, sys, traceback

def _boot(src, host_errno):
    global cli, _host_errno
    _host_errno = json.loads(host_errno)
    # the sources alone: never a run's directory (which holds the logs, any of them "json.py")
    sys.path[:] = [src, *(p for p in sys.path if p)]
    import cardcore.cli as cli
    from cardcore import __version__
    return json.dumps({"cardcore": __version__, "python": sys.version.split()[0]})

def _errno(text):
    # Emscripten numbers errno values its own way ([Errno 44] for ENOENT), CPython the host's:
    # the host's, wherever cardcore prints an OSError as str() does
    def host(m):
        return f"[Errno {_host_errno.get(errno.errorcode.get(int(m[1])), m[1])}]"
    return re.sub(r"\[Errno (\d+)\]", host, text)

def _exit_status(code, err):
    # what CPython makes of SystemExit(code): None is 0, an int itself, anything else is printed
    if code is None or isinstance(code, int):
        return code or 0
    print(code, file=err)
    return 1

def _run(argv, cwd, stdin):
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdout, sys.stderr, sys.stdin
    os.chdir(cwd)
    sys.stdout, sys.stderr, sys.stdin = out, err, open(stdin, encoding="utf-8")
    try:
        code = cli.main(["verify", *argv], out)
    except SystemExit as exc:  # argparse: --help, a usage error
        code = _exit_status(exc.code, err)
    except BaseException:  # a crash: the traceback, exit 1
        traceback.print_exc(file=err)
        code = 1
    finally:
        sys.stdin.close()
        sys.stdout, sys.stderr, sys.stdin = saved
        os.chdir("/")
    return json.dumps({"exit": code, "stdout": out.getvalue(), "stderr": _errno(err.getvalue())})
`;

/** The package's Python sources under `dir`: [relative path, bytes], as the page's cardcore.zip
 *  has them (*.py, no caches). Throws when `dir` is not cardcore's. */
export function readSources(dir) {
  const files = readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((f) => f.isFile() && f.name.endsWith('.py'))
    .map((f) => path.relative(dir, path.join(f.parentPath ?? f.path, f.name)))
    .filter((rel) => !rel.split(path.sep).includes('__pycache__'))
    .sort();
  if (!['__init__.py', 'cli.py'].every((f) => files.includes(f))) {
    throw new Error(`${dir}: not the cardcore package (no __init__.py and cli.py)`);
  }
  return files.map((rel) => [rel.split(path.sep).join('/'), readFileSync(path.join(dir, rel))]);
}

/**
 * Boot Pyodide with cardcore's sources (`cardcore`: their directory, default `cardcoreDir()`).
 * Resolves to a Verifier; boot costs seconds, so make one per process and run it many times.
 */
export async function createVerifier({ cardcore } = {}) {
  const dir = cardcoreDir(cardcore);
  const sources = readSources(dir);
  const started = performance.now();
  // nothing of ours prints outside a run (whose streams _run captures): the rest is Pyodide's
  const py = await loadPyodide({ stdout: () => {}, stderr: () => {} });
  for (const [rel, bytes] of sources) {
    py.FS.mkdirTree(path.posix.dirname(`${SRC}/cardcore/${rel}`));
    py.FS.writeFile(`${SRC}/cardcore/${rel}`, bytes);
  }
  py.FS.mkdirTree(RUNS);
  py.FS.mkdirTree(STDIN);
  py.runPython(HOST_PY);
  const boot = py.globals.get('_boot');
  const versions = JSON.parse(boot(SRC, JSON.stringify(constants.errno)));
  boot.destroy();
  const info = {
    cardcore: versions.cardcore,
    cardcoreDir: dir,
    pyodide: py.version,
    python: versions.python,
    bootMs: Math.round(performance.now() - started),
  };
  return new Verifier(py, info);
}

export class Verifier {
  #py;
  #run;
  #runs = 0;

  constructor(py, info) {
    this.#py = py;
    this.#run = py.globals.get('_run');
    /** { cardcore (its version), cardcoreDir, pyodide, python (versions), bootMs } */
    this.info = info;
  }

  /** "cardcore 0.1.0 from DIR, on Pyodide 314.0.8 (Python 3.14.2)" */
  describe() {
    const { cardcore, cardcoreDir: dir, pyodide, python } = this.info;
    return `cardcore ${cardcore} from ${dir}, on Pyodide ${pyodide} (Python ${python})`;
  }

  /**
   * `cardcore verify ARGV…`, on `files` ({ name: text or bytes }: a relative name is in the run's
   * working directory, an absolute one where it says) and `stdin` (read for a LOG of "-");
   * `dirs`: names that are directories. Resolves to { exit, stdout, stderr, crosschecked }:
   * cardcore's exit status and output, unless Node's own check of a complete log given
   * disagrees with a verdict of valid (then exit 1, and stderr says so); `crosschecked` lists
   * those checks, [{ name, checked, fault }]. Runs one at a time; each sees only its own files.
   */
  async run(argv, files = {}, { stdin = '', dirs = [] } = {}) {
    if (!Array.isArray(argv) || !argv.every((a) => typeof a === 'string')) {
      throw new TypeError('argv: the arguments of cardcore verify, an array of strings');
    }
    const n = ++this.#runs;
    const cwd = `${RUNS}/${n}`;
    const made = [];
    try {
      this.#mkdirs(cwd, made);
      for (const name of dirs) this.#mkdirs(path.posix.resolve(cwd, name), made);
      for (const [name, data] of Object.entries(files)) {
        this.#put(path.posix.resolve(cwd, name), data, made);
      }
      this.#put(`${STDIN}/${n}`, stdin, made);
      const result = JSON.parse(this.#run(argv, cwd, `${STDIN}/${n}`));
      return withCrossCheck(result, argv, files, stdin);
    } finally {
      for (const p of made.reverse()) this.#remove(p);
    }
  }

  /** Create `dir` and its missing parents, noting each one made. */
  #mkdirs(dir, made) {
    const FS = this.#py.FS;
    if (dir === '/' || FS.analyzePath(dir).exists) return;
    this.#mkdirs(path.posix.dirname(dir), made);
    FS.mkdir(dir);
    made.push(dir);
  }

  #put(file, data, made) {
    const FS = this.#py.FS;
    if (made.includes(file)) return; // one file named twice ("x", "./x")
    if (FS.analyzePath(file).exists) {
      throw new Error(`${file}: Pyodide has a file of its own there (for standard input: -)`);
    }
    this.#mkdirs(path.posix.dirname(file), made);
    FS.writeFile(file, typeof data === 'string' ? data : new Uint8Array(data));
    made.push(file);
  }

  #remove(p) {
    const FS = this.#py.FS;
    if (!FS.analyzePath(p).exists) return;
    if (FS.isDir(FS.stat(p).mode)) {
      for (const name of FS.readdir(p)) {
        if (name !== '.' && name !== '..') this.#remove(`${p}/${name}`);
      }
      FS.rmdir(p);
    } else FS.unlink(p);
  }
}

/** cardcore's result, unless Node's own check finds a fault in a complete log it called valid
 *  (or consistent so far): then exit 1, and stderr names the fault. Never the other way. */
export function withCrossCheck(result, argv, files, stdin) {
  const named = new Set(argv.flatMap((a) => [a, a.replace(/^--[^=]*=/, '')]));
  const inputs = Object.entries(files).filter(([name]) => named.has(name));
  if (named.has('-')) inputs.push(['standard input', stdin]);
  const crosschecked = inputs
    .map(([name, data]) => ({ name, ...crossCheck(data) }))
    .filter((c) => c.checked !== undefined);
  const faults = crosschecked.filter((c) => c.fault !== null);
  if (!faults.length || ![0, 3].includes(result.exit)) return { ...result, crosschecked };
  const doubts = faults.map(
    (c) =>
      `cardcore-verify (Node): ${c.name}: Node's own check disagrees with cardcore's verdict: ` +
      `${c.fault}. Do not trust this log; report the disagreement (one of the two is wrong).\n`,
  );
  return { exit: 1, stdout: result.stdout, stderr: result.stderr + doubts.join(''), crosschecked };
}
