// The RNG of docs/rng.md, implemented in Node from the document alone (src/rng.js), reproduces
// every known-answer vector the document gives, and log format 2's deal-seed derivation: so
// the document is enough to re-deal a game in another language. And cardcore's canonical JSON
// (src/json.js), in which receipts are written and Node's own check hashes, is byte for byte
// what Python writes.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { canonical, parseJson } from '../src/json.js';
import {
  COMMITMENT_TAG,
  DERIVATION,
  RNG_ALGORITHM,
  Rng,
  dealSeedInput,
  deriveDealSeed,
  entropyCommitment,
  shuffled,
  standardDeck,
} from '../src/rng.js';
import { goldenLogs } from './logs.js';
import { REPO } from './server.js';

const RNG_MD = readFileSync(path.join(REPO, 'docs/rng.md'), 'utf8');

function checkRngVectors(vectors) {
  let n = 0;
  const eq = (got, want, what) => {
    if (got !== want) throw new Error(`${what}: got ${got}, want ${want}`);
    n++;
  };
  const hex = (x) => x.toString(16).padStart(16, '0');
  eq(vectors.algorithm, RNG_ALGORITHM, 'algorithm');
  for (const v of vectors.streams) {
    const rng = new Rng(BigInt(v.seed), v.stream);
    eq(hex(rng.key), v.key, `key(${v.seed}, ${v.stream})`);
    v.outputs.forEach((o, k) => eq(hex(rng.next()), o, `draw ${k + 1} of (${v.seed}, ${v.stream})`));
  }
  for (const v of vectors.below) {
    const rng = new Rng(BigInt(v.seed), v.stream);
    v.values.forEach((x, k) => eq(rng.below(v.n), x, `below(${v.n}) #${k} of (${v.seed}, ${v.stream})`));
  }
  for (const v of vectors.shuffles) {
    const [lo, hi] = v.input.split('..').map(Number);
    const items = Array.from({ length: hi - lo + 1 }, (_, k) => lo + k);
    eq(canonical(shuffled(BigInt(v.seed), v.stream, items)), canonical(v.output), `shuffle ${v.seed}`);
  }
  for (const v of vectors.deals) {
    eq(shuffled(BigInt(v.seed), v.stream, standardDeck()).join(' '), v.deck, `deal ${v.seed}`);
  }
  return n;
}

/** The ```json block of docs/rng.md. */
function rngVectorsFromMarkdown(markdown) {
  const m = /```json\n([\s\S]*?)\n```/.exec(markdown);
  if (!m) throw new Error('no ```json block');
  return JSON.parse(m[1]);
}

/** Check the deal-seed derivation vectors of docs/rng.md (its "derivation" ```json block): the
 *  hashed bytes, the digest, the deal seed and the deck it deals (stream 0). Returns how many. */
function checkDerivationVectors(block) {
  if (block.derivation !== DERIVATION) {
    throw new Error(`derivation: got ${block.derivation}, want ${DERIVATION}`);
  }
  let n = 0;
  const eq = (got, want, what) => {
    if (got !== want) throw new Error(`${what}: got ${got}, want ${want}`);
    n++;
  };
  for (const v of block.vectors) {
    const what = `deal seed of ${v.server_seed} with ${v.contributions.length} contributions`;
    const input = dealSeedInput(BigInt(v.server_seed), v.contributions);
    eq(input.toString('hex'), v.hashed_hex, `${what}: hashed bytes`);
    const digest = createHash('sha256').update(input).digest();
    eq(digest.toString('hex'), v.sha256, `${what}: sha256`);
    const seed = digest.readBigUInt64BE(0);
    eq(seed.toString(), v.deal_seed, what);
    eq(shuffled(seed, 0, standardDeck()).join(' '), v.deck, `${what}: deck`);
  }
  return n;
}

/** The ```json block of docs/rng.md that has the deal-seed derivation vectors. */
function derivationVectorsFromMarkdown(markdown) {
  for (const m of markdown.matchAll(/```json\n([\s\S]*?)\n```/g)) {
    const block = JSON.parse(m[1]);
    if (block.derivation !== undefined) return block;
  }
  throw new Error('no ```json block with "derivation"');
}

test('the RNG reproduces every known-answer vector of docs/rng.md', () => {
  const checked = checkRngVectors(rngVectorsFromMarkdown(RNG_MD));
  assert.ok(checked >= 40, `only ${checked} values checked`);
});

test('the deal seed reproduces every derivation vector of docs/rng.md (format 2)', () => {
  const block = derivationVectorsFromMarkdown(RNG_MD);
  assert.equal(block.derivation, 'sha256-deal-seed/1');
  assert.ok(block.vectors.length >= 3);
  // hashed bytes, digest, deal seed and the deck it deals, for each vector
  assert.equal(checkDerivationVectors(block), 4 * block.vectors.length);
  // spelled out once: contributions are hashed in seat order whatever order they come in
  const v = block.vectors.find((x) => x.contributions.length > 1);
  const input = dealSeedInput(BigInt(v.server_seed), v.contributions);
  assert.equal(input.toString('hex'), v.hashed_hex);
  assert.equal(createHash('sha256').update(input).digest('hex'), v.sha256);
  const reversed = [...v.contributions].reverse();
  assert.equal(deriveDealSeed(BigInt(v.server_seed), reversed), BigInt(v.deal_seed));
  assert.throws(() => deriveDealSeed(0n, [{ seat: 1, entropy: 'ab' }]), RangeError);
  const twice = [1, 1].map((seat, k) => ({ seat, entropy: String(k).repeat(32) }));
  assert.throws(() => deriveDealSeed(0n, twice), RangeError);
});

/** The ```json block of docs/rng.md that has the entropy commitments ("Committed entropy"). */
function commitmentVectorsFromMarkdown(markdown) {
  for (const m of markdown.matchAll(/```json\n([\s\S]*?)\n```/g)) {
    const block = JSON.parse(m[1]);
    if (block.commitment !== undefined) return block;
  }
  throw new Error('no ```json block with "commitment"');
}

test('entropyCommitment reproduces every commitment vector of docs/rng.md', () => {
  const block = commitmentVectorsFromMarkdown(RNG_MD);
  assert.equal(block.commitment, COMMITMENT_TAG);
  assert.equal(Buffer.from(block.tag_hex, 'hex').toString('ascii'), COMMITMENT_TAG);
  assert.equal(Buffer.from(COMMITMENT_TAG, 'ascii').length, 29);
  assert.ok(block.vectors.length >= 3);
  for (const v of block.vectors) {
    const bytes = Buffer.from(v.entropy, 'hex');
    // the same commitment from the bytes, a Uint8Array of them, and their hex digits
    for (const given of [bytes, new Uint8Array(bytes), v.entropy, v.entropy.toUpperCase()]) {
      const got = entropyCommitment(given);
      assert.ok(Buffer.isBuffer(got) && got.length === 32, v.entropy);
      assert.equal(got.toString('hex'), v.commitment, v.entropy);
    }
    // spelled out: SHA-256 of the tag's bytes, then the entropy's
    const spelled = createHash('sha256')
      .update(Buffer.concat([Buffer.from(block.tag_hex, 'hex'), bytes]))
      .digest('hex');
    assert.equal(spelled, v.commitment, v.entropy);
  }
  // exactly 16 bytes
  assert.throws(() => entropyCommitment(Buffer.alloc(15)), RangeError);
  assert.throws(() => entropyCommitment('00'.repeat(17)), RangeError);
  assert.throws(() => entropyCommitment('xyz'), TypeError);
  assert.throws(() => entropyCommitment(16), TypeError);
});

test('canonical JSON is byte for byte what Python wrote, every line of every golden log', () => {
  assert.ok(goldenLogs.length >= 10, goldenLogs.join(', '));
  for (const file of goldenLogs) {
    for (const line of readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
      assert.equal(canonical(parseJson(line)), line, file);
    }
  }
});

test('seeds beyond 2^53 survive parsing and printing; floats are refused', () => {
  const text = '{"seed":18446744073709551615,"x":[1,-2]}';
  const v = parseJson(text);
  assert.equal(v.seed, 18446744073709551615n);
  assert.equal(canonical(v), text);
  assert.throws(() => parseJson('{"x":1.5}'), /floats/);
});
