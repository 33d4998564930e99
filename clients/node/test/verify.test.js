// Cross-language verification, without Python: the RNG known-answer vectors of docs/rng.md, and
// every golden log (hash chain, commitment, re-dealt first shuffle), plus tampering detection.
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import {
  VerifyError,
  canonical,
  checkRngVectors,
  parseJson,
  rngVectorsFromMarkdown,
  verifyLog,
} from '../src/verify.js';
import { REPO } from './server.js';

const GOLDEN = path.join(REPO, 'tests/golden');
const goldenLogs = readdirSync(GOLDEN, { withFileTypes: true })
  .filter((d) => d.isDirectory() && !d.name.startsWith('_'))
  .flatMap((d) =>
    readdirSync(path.join(GOLDEN, d.name))
      .filter((f) => f.endsWith('.jsonl'))
      .map((f) => path.join(GOLDEN, d.name, f)),
  );

test('the RNG reproduces every known-answer vector of docs/rng.md', () => {
  const vectors = rngVectorsFromMarkdown(readFileSync(path.join(REPO, 'docs/rng.md'), 'utf8'));
  const checked = checkRngVectors(vectors);
  assert.ok(checked >= 40, `only ${checked} values checked`);
});

test('there are golden logs to check', () => {
  assert.ok(goldenLogs.length >= 10, goldenLogs.join(', '));
});

for (const file of goldenLogs) {
  test(`golden ${path.relative(GOLDEN, file)} verifies and re-deals`, () => {
    const text = readFileSync(file, 'utf8');
    const r = verifyLog(text);
    assert.equal(r.complete, true);
    assert.equal(r.dealChecked, true);
    // canonical JSON is byte-identical to what Python wrote
    for (const line of text.split('\n').filter(Boolean)) assert.equal(canonical(parseJson(line)), line);
  });
}

test('tampering is named at the first bad line', () => {
  const file = goldenLogs.find((f) => f.includes('ratscrew'));
  const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  const at = (mutated) => {
    try {
      verifyLog(mutated.join('\n'));
    } catch (e) {
      assert.ok(e instanceof VerifyError, e.message);
      return e.at;
    }
    return 'valid';
  };
  assert.equal(at(lines), 'valid');
  // an altered event (seq 3)
  const altered = [...lines];
  const entry = parseJson(altered[4]);
  entry.at_ms += 1;
  altered[4] = canonical(entry);
  assert.equal(at(altered), 3);
  // a dropped entry
  assert.equal(at([...lines.slice(0, 5), ...lines.slice(6)]), 4);
  // two entries swapped
  const swapped = [...lines];
  [swapped[6], swapped[7]] = [swapped[7], swapped[6]];
  assert.equal(at(swapped), 5);
  // another seed revealed
  const end = parseJson(lines[lines.length - 1]);
  end.seed = BigInt(end.seed) + 1n;
  assert.equal(at([...lines.slice(0, -1), canonical(end)]), 'header');
  // a forged deal whose whole chain is re-hashed with the revealed salt: only re-dealing the
  // seed can tell
  const parsed = lines.map(parseJson);
  const stacks = parsed[1].events[0].stacks;
  [stacks[0][0], stacks[1][0]] = [stacks[1][0], stacks[0][0]];
  const salt = Buffer.from(parsed[parsed.length - 1].salt, 'hex');
  for (let k = 1; k < parsed.length; k++) {
    const line = parsed[k];
    line.prev = parsed[k - 1].hash;
    delete line.hash;
    line.hash =
      line.type === 'end'
        ? createHash('sha256').update(canonical(line)).digest('hex')
        : createHmac('sha256', salt).update(canonical(line)).digest('hex');
  }
  const forged = parsed.map(canonical);
  assert.equal(at(forged), 0);
  assert.match(
    (() => {
      try {
        verifyLog(forged.join('\n'));
      } catch (e) {
        return e.message;
      }
      return '';
    })(),
    /deal differs/,
  );
});

test('seeds beyond 2^53 survive parsing and printing', () => {
  const text = '{"seed":18446744073709551615,"x":[1,-2]}';
  const v = parseJson(text);
  assert.equal(v.seed, 18446744073709551615n);
  assert.equal(canonical(v), text);
  assert.throws(() => parseJson('{"x":1.5}'), /floats/);
});
