// A module worker that runs cardcore's own verifier in Pyodide (CPython in WebAssembly), so
// that the page settles a game without trusting the server: the runtime and cardcore's
// stdlib-only sources are static files, fetched once; nothing else is loaded.

const HELPER = `
import io, json, sys
from cardcore import cli

def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    old = sys.stderr
    sys.stderr = err
    try:
        code = cli.main(argv, out)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 2
    finally:
        sys.stderr = old
    text = out.getvalue().strip() or err.getvalue().strip()
    return json.dumps({"exit": code, "text": text})
`;

let ready = null;

/** The server's own words when a file the verifier needs is missing (its 404 says what to do). */
async function missing(url) {
  try {
    const res = await fetch(url, { cache: "no-cache" });
    if (!res.ok) return `${new URL(url).pathname}: HTTP ${res.status}: ${(await res.text()).trim().slice(0, 300)}`;
  } catch (err) {
    return `${new URL(url).pathname}: ${err.message || err}`;
  }
  return null;
}

async function boot() {
  const base = new URL("../", import.meta.url);
  const runtime = new URL("pyodide/pyodide.mjs", base).href;
  let loadPyodide;
  try {
    ({ loadPyodide } = await import(runtime));
  } catch (err) {
    throw new Error(`the Pyodide runtime did not load: ${(await missing(runtime)) || err.message || err}`);
  }
  const py = await loadPyodide({
    indexURL: new URL("pyodide/", base).href,
    stdout: () => {},
    stderr: () => {},
  });
  const res = await fetch(new URL("cardcore.zip", base), { cache: "no-cache" });
  if (!res.ok) throw new Error(`cardcore's sources did not load: /web/cardcore.zip: HTTP ${res.status}`);
  py.unpackArchive(await res.arrayBuffer(), "zip", { extractDir: "/cardcore_src" });
  py.runPython(`import sys; sys.path.insert(0, "/cardcore_src")\n${HELPER}`);
  py.FS.mkdirTree("/work");
  return py;
}

self.onmessage = async (msg) => {
  const { id, files, argv } = msg.data;
  try {
    ready ??= boot();
    ready.catch(() => { ready = null; }); // a later check tries again (the runtime may be back)
    const py = await ready;
    if (!argv) {
      self.postMessage({ id, ok: true, result: { exit: 0, text: "ready" } }); // a warm-up
      return;
    }
    for (const [name, text] of Object.entries(files || {})) {
      py.FS.writeFile(`/work/${name}`, text, { encoding: "utf8" });
    }
    const run = py.globals.get("_run");
    const args = py.toPy(argv.map((a) => (a.startsWith("@") ? `/work/${a.slice(1)}` : a)));
    const out = JSON.parse(run(args));
    args.destroy();
    run.destroy();
    self.postMessage({ id, ok: true, result: out });
  } catch (err) {
    self.postMessage({ id, ok: false, error: String(err?.message || err) });
  }
};
