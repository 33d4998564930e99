// Start a real `cardcore serve` on ephemeral loopback ports for the Node tests.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const REPO = path.resolve(here, '../../..');

function python() {
  if (process.env.CARDCORE_PYTHON) return process.env.CARDCORE_PYTHON;
  const venv = path.join(REPO, '.venv/bin/python');
  return existsSync(venv) ? venv : 'python3';
}

/** How long a server may take to say where it serves: its first start compiles the tree's
 * modules (a fresh clone's), on a machine busy with the rest of `make test`. */
const START_TIMEOUT_MS = 90_000;

/** Resolves to { target, restUrl, stop(), logs() } once the server accepts calls; rejects, the
 * server killed, when it does not start (its pipes would keep this process alive for ever). */
export function startServer(...args) {
  const dir = mkdtempSync(path.join(tmpdir(), 'cardcore-node-'));
  const child = spawn(
    python(),
    ['-m', 'cardcore.cli', 'serve', '--port', '0', '--rest-port', '0', '--db', path.join(dir, 'db'), ...args],
    { cwd: REPO, env: { ...process.env, PYTHONUNBUFFERED: '1' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  // never leave a server behind, even when a test run dies
  const reap = () => child.exitCode === null && child.kill('SIGKILL');
  process.once('exit', reap);
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      reap();
      reject(new Error(`server did not start in ${START_TIMEOUT_MS / 1000} s:\n${err}`));
    }, START_TIMEOUT_MS);
    child.on('exit', (code) => reject(new Error(`server exited ${code}:\n${err}`)));
    child.stdout.on('data', (d) => {
      out += d;
      const grpcLine = /cardcore serving on (\S+)\n/.exec(out);
      const restLine = /cardcore REST on (\S+)\n/.exec(out);
      if (!grpcLine || !restLine) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      resolve({
        target: grpcLine[1],
        restUrl: restLine[1],
        logs: () => err,
        stop: () =>
          new Promise((res) => {
            child.on('exit', (code) => {
              rmSync(dir, { recursive: true, force: true });
              res(code);
            });
            child.kill('SIGTERM');
          }),
      });
    });
  });
}
