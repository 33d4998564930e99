// bin/cardcore-verify.js as a process of its own, with no network at all (test/no-network.js):
// a LOG named relative to its working directory, judged as the Python CLI judges it — the same
// standard output, standard error and exit status. One boot of Pyodide.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { GOLDEN, forge, pythonVerify } from './logs.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.join(here, '../bin/cardcore-verify.js');
const NO_NETWORK = path.join(here, 'no-network.js');

let dir;
after(() => dir && rmSync(dir, { recursive: true, force: true }));

test('no-network.js refuses the network', () => {
  for (const code of ['require("node:net").connect(80, "127.0.0.1")', 'fetch("http://127.0.0.1/")']) {
    const args = ['--import', NO_NETWORK, '-e', code];
    const out = spawnSync(process.execPath, args, { encoding: 'utf8' });
    assert.notEqual(out.status, 0, code);
    assert.match(out.stderr, /no network here/, code);
  }
});

test('a forged winner, named relative to the working directory: INVALID, as the CLI says', async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'cardcore-cli-'));
  const golden = readFileSync(path.join(GOLDEN, 'ratscrew/default-2p-seed11.jsonl'), 'utf8');
  const text = forge(golden, 'winner forged');
  writeFileSync(path.join(dir, 'forged.jsonl'), text);
  const args = ['--import', NO_NETWORK, BIN, 'forged.jsonl'];
  const node = spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8' });
  const python = await pythonVerify(['forged.jsonl'], { 'forged.jsonl': text });
  assert.deepEqual(
    { exit: node.status, stdout: node.stdout, stderr: node.stderr },
    { exit: python.exit, stdout: python.stdout, stderr: python.stderr },
  );
  assert.equal(node.status, 1);
  assert.match(node.stdout, /^INVALID/);
});
