// Cross-language verification, without Python: the RNG known-answer vectors of docs/rng.md (and
// format 2's deal-seed derivation), every golden log (hash chain, commitment, re-dealt first
// shuffle), tampering detection, Ed25519 signatures, and what a viewer's copy can prove. Logs
// from a live server (format 2, signed, copies, receipts): verify-live.test.js.
import assert from 'node:assert/strict';
import { createHash, createHmac, generateKeyPairSync, sign } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import {
  VerifyError,
  canonical,
  checkDerivationVectors,
  checkRngVectors,
  checkSignatures,
  dealSeedInput,
  deriveDealSeed,
  derivationVectorsFromMarkdown,
  endHash,
  headerHash,
  parseJson,
  parseServerKey,
  rngVectorsFromMarkdown,
  signatureMessage,
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

test('the deal seed reproduces every derivation vector of docs/rng.md (format 2)', () => {
  const block = derivationVectorsFromMarkdown(readFileSync(path.join(REPO, 'docs/rng.md'), 'utf8'));
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

test('there are golden logs to check', () => {
  assert.ok(goldenLogs.length >= 10, goldenLogs.join(', '));
});

for (const file of goldenLogs) {
  test(`golden ${path.relative(GOLDEN, file)} verifies and re-deals`, () => {
    const text = readFileSync(file, 'utf8');
    const r = verifyLog(text);
    assert.equal(r.complete, true);
    assert.equal(r.dealChecked, true);
    assert.equal(r.format, 1);
    assert.equal(r.dealSeed, r.seed, 'format 1 deals from the revealed seed itself');
    assert.equal(r.signedBy, null);
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
  // another seed revealed: the end line's reveal does not match the header's commitment
  const end = parseJson(lines[lines.length - 1]);
  end.seed = BigInt(end.seed) + 1n;
  assert.equal(at([...lines.slice(0, -1), canonical(end)]), 'end');
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

// --------------------------------------------------------------------------- signatures, offline

/** A golden log signed here by a key of our own, as a signing server would sign it. */
function signedGolden() {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const key = publicKey.export({ format: 'jwk' }).x;
  const file = goldenLogs.find((f) => f.includes('speed'));
  const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean).map(parseJson);
  for (const line of [lines[0], lines[lines.length - 1]]) {
    const sig = sign(null, signatureMessage(line.hash), privateKey).toString('base64url');
    line.signature = { alg: 'ed25519', key, sig };
  }
  return { key, lines };
}

const faultOf = (fn) => {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof VerifyError, e.stack);
    return e;
  }
  return null;
};
const copyOf = (lines) => lines.map((l) => parseJson(canonical(l)));

test('signatures: the hashes leave them out; the key given must have made them', () => {
  const { key, lines } = signedGolden();
  assert.equal(headerHash(lines[0]), lines[0].hash, 'the header hash is computed without signature');
  assert.equal(endHash(lines.at(-1)), lines.at(-1).hash, 'the end hash is computed without signature');
  const r = verifyLog(lines, { serverKey: key });
  assert.deepEqual([r.signedBy, r.signaturesChecked], [key, 2]);
  assert.equal(verifyLog(lines).signaturesChecked, 0, 'not checked without a key');
  const hex = parseServerKey(key).toString('hex');
  assert.equal(verifyLog(lines, { serverKey: hex }).signaturesChecked, 2);

  const other = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x;
  const wrong = faultOf(() => verifyLog(lines, { serverKey: other }));
  assert.equal(wrong.at, 'header');
  assert.match(wrong.message, /^header: the header is signed by another key/);

  const bad = copyOf(lines);
  const sig = Buffer.from(bad.at(-1).signature.sig, 'base64url');
  sig[10] ^= 1;
  bad.at(-1).signature.sig = sig.toString('base64url');
  const e = faultOf(() => verifyLog(bad, { serverKey: key }));
  assert.equal(e.at, 'end');
  assert.equal(e.seq, lines.length - 2);
  assert.match(e.message, /end line \(seq \d+\): the end line's signature does not match it/);
  // another spelling of the same bytes is not the signature either (base64url is read strictly)
  const respelled = copyOf(lines);
  const s0 = respelled[0].signature.sig;
  respelled[0].signature.sig = s0.slice(0, -1) + (s0.at(-1) === 'A' ? 'B' : 'A');
  const e2 = faultOf(() => verifyLog(respelled, { serverKey: key }));
  assert.match(e2.message, /header's signature does not match/);

  const unsigned = copyOf(lines);
  delete unsigned[0].signature;
  assert.equal(verifyLog(unsigned).signedBy, null, 'the header hash does not cover the signature');
  const e3 = faultOf(() => verifyLog(unsigned, { serverKey: key }));
  assert.match(e3.message, /the header is not signed/);
  // a signed header whose content changed: the hash says so before any signature is looked at
  const altered = copyOf(lines);
  altered[0].game_id = 'another';
  assert.match(faultOf(() => verifyLog(altered, { serverKey: key })).message, /header hash mismatch/);
  assert.throws(() => checkSignatures(lines, 'not a key'), TypeError);
  assert.throws(() => parseServerKey('ab'.repeat(31)), TypeError);
});

// --------------------------------------------------------------------------- copies, offline

/** A golden log as a viewer's copy of it in progress: marked, no end line (its events are not
 *  redacted: the checks that follow are the structural ones). */
function markedCopy(n = 6) {
  const { lines } = signedGolden();
  const copy = lines.slice(0, n + 1);
  copy[0].copy = { viewer: '1' };
  return copy;
}

test('a copy: consistent so far, whatever its events; its structure is checked', () => {
  const copy = markedCopy();
  const r = verifyLog(copy);
  assert.deepEqual([r.copy, r.complete, r.entries], ['1', false, 6]);
  assert.deepEqual(r.notChecked.slice(0, 2), [
    '6 decisions (hidden cards)',
    '6 entry hashes (salt secret)',
  ]);
  const fault = (mutate) => {
    const c = copyOf(copy);
    mutate(c);
    const e = faultOf(() => verifyLog(c));
    assert.ok(e, 'caught');
    return e.message;
  };
  const end = signedGolden().lines.at(-1);
  assert.match(fault((c) => c.push(end)), /^header: a viewer's copy .* has no end line/);
  assert.match(fault((c) => (c[0].copy = { viewer: '7' })), /^header: the header's "copy" must be/);
  assert.match(fault((c) => (c[0].copy = { viewer: 'referee' })), /^header: the header's "copy"/);
  assert.match(fault((c) => (c[0].setup_hash = '0'.repeat(64))), /^header: setup_hash/);
  assert.match(fault((c) => (c[0].rules_version = 'x')), /^header: header hash mismatch/);
  assert.match(fault((c) => (c[3].seat = null)), /^seq 2: an entry without a seat must be the host/);
  assert.match(fault((c) => (c[3].seat = 5)), /^seq 2: seat 5 is not a seat/);
  assert.match(fault((c) => (c[1].seat = 0)), /^seq 0: entry 0 must be the deal/);
  assert.match(fault((c) => (c[4].at_ms = -1)), /^seq 3: at_ms -1 is not a time/);
  assert.match(fault((c) => (c[4].hash = 'x')), /^seq 3: the entry's hash is not a sha256 digest/);
  assert.match(fault((c) => (c[5].prev = c[3].hash)), /^seq 4: hash chain broken/);
  assert.match(fault((c) => c.splice(3, 1)), /^seq 2: entry missing or out of order/);
  // the host's abort: no seat, no events, nothing after it
  const abort = (c, k) =>
    Object.assign(c[k], { seat: null, action: { kind: 'Abort', by: 'creator' }, events: [] });
  const aborted = copyOf(copy);
  abort(aborted, 6);
  assert.equal(verifyLog(aborted).entries, 6);
  assert.match(fault((c) => abort(c, 4)), /^seq 4: an entry after the host's abort at seq 3/);
  const withEvents = (c) => abort(c, 6) && (c[6].events = [{ kind: 'X' }]);
  assert.match(fault(withEvents), /^seq 5: an entry without a seat/);
  assert.match(fault((c) => abort(c, 6) && (c[6].action.by = '')), /^seq 5: an entry without a seat/);
  // a start position hidden from the viewer: the hash cannot be checked, and it says so
  const positioned = copyOf(copy);
  positioned[0].position = 'a position';
  positioned[1].events = [];
  assert.deepEqual(verifyLog(positioned).notes, [
    'header not checked: the start position is hidden from this viewer',
  ]);
});

test('a full log: a host abort is valid only as the last entry, with an "aborted" outcome', () => {
  const file = goldenLogs.find((f) => f.includes('ratscrew'));
  const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean).map(parseJson);
  const salt = Buffer.from(lines.at(-1).salt, 'hex');
  const rehash = (ls) => {
    for (let k = 1; k < ls.length; k++) {
      ls[k].prev = ls[k - 1].hash;
      delete ls[k].hash;
      ls[k].hash =
        ls[k].type === 'end'
          ? createHash('sha256').update(canonical(ls[k])).digest('hex')
          : createHmac('sha256', salt).update(canonical(ls[k])).digest('hex');
    }
    return ls;
  };
  // the game aborted by the host after seq 4
  const abort = {
    type: 'entry',
    seq: 5,
    at_ms: lines[5].at_ms,
    seat: null,
    action: { kind: 'Abort', by: 'admin' },
    events: [],
  };
  const end = copyOf([lines.at(-1)])[0];
  const ABORTED = { termination: 'aborted', winners: [], losers: [], scores: [] };
  Object.assign(end, { seq: 6, outcome: ABORTED });
  const cut = [...copyOf(lines.slice(0, 6)), abort];
  const aborted = rehash([...cut, end]);
  const r = verifyLog(aborted);
  assert.deepEqual([r.complete, r.dealChecked, r.outcome.termination], [true, true, 'aborted']);
  const e1 = faultOf(() => {
    const x = copyOf(aborted);
    x.at(-1).outcome = { termination: 'resigned', winners: [0], losers: [1], scores: [] };
    verifyLog(rehash(x));
  });
  assert.match(e1.message, /^end line \(seq 6\): the host aborted at seq 5/);
  const e2 = faultOf(() => {
    const x = copyOf(lines);
    x.at(-1).outcome = ABORTED;
    verifyLog(rehash(x));
  });
  assert.match(e2.message, /the outcome is "aborted", but the log has no host abort/);
  const e3 = faultOf(() => {
    const x = copyOf(aborted);
    x.splice(7, 0, { ...x[5], seq: 6 }); // an entry after the abort
    x.at(-1).seq = 7;
    verifyLog(rehash(x));
  });
  assert.match(e3.message, /^seq 6: an entry after the host's abort at seq 5/);
  // a "copy" mark in a log with its end line
  const marked = copyOf(lines);
  marked[0].copy = { viewer: '0' };
  assert.match(faultOf(() => verifyLog(marked)).message, /^header: a viewer's copy/);
});
