#!/usr/bin/env node
// Verify cardcore game logs in Node, trusting neither Python nor the server (`cardcore verify`):
//
//   cardcore-verify-js [--server-key KEY] LOG...
//   cardcore-verify-js [--server-key KEY] [--as VIEWER] --receipts MINE FINAL
//   cardcore-verify-js [--server-key KEY] [--as VIEWER] MINE --final FINAL
//
// LOG: a complete log (exit 0 valid), a log in progress or a viewer's copy (exit 3: consistent so
// far; the seed and salt are not revealed yet). --server-key KEY (base64url or 64 hex digits, or a
// file holding it; ListGames' `server_key`): the header's and the end line's Ed25519 signatures
// must be that key's. --receipts MINE FINAL: MINE (a copy downloaded before the end, or a receipts
// file written by `stream({ receipts })`) against FINAL, the complete log, which must verify:
// exit 0 when every entry of MINE is in FINAL unchanged. Node has no per-game redaction: where
// MINE shows a hidden value "??", FINAL's value there is not checked to be one hidden from you
// (`cardcore verify --receipts` checks that too). --as VIEWER ("0", …, "spectator"): whose MINE
// is, when it does not say.
//
// Exit codes: 0 valid; 1 invalid (the message names the first bad line: "header", "seq N",
// "end line (seq N)"; with --receipts "entry N"); 2 unreadable input or usage error; 3 consistent
// so far (a game in progress, or a viewer's copy).
import { readFileSync, statSync } from 'node:fs';

import {
  UsageError,
  VerifyError,
  checkReceipts,
  parseServerKey,
  verifyLog,
  whose,
} from '../src/verify.js';

const EXIT = { ok: 0, invalid: 1, usage: 2, unrevealed: 3 };
const USAGE = `usage: cardcore-verify-js [--server-key KEY] LOG...
       cardcore-verify-js [--server-key KEY] [--as VIEWER] --receipts MINE FINAL
       cardcore-verify-js [--server-key KEY] [--as VIEWER] MINE --final FINAL`;

function usage(message) {
  console.error(`cardcore-verify-js: ${message}\n${USAGE}`);
  process.exit(EXIT.usage);
}

function parseArgs(argv) {
  const out = { files: [], serverKey: null, receipts: null, final: null, as: null };
  const value = (i, name) => {
    if (i >= argv.length) usage(`${name} needs a value`);
    return argv[i];
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [name, inline] =
      arg.startsWith('--') && arg.includes('=') ? arg.split(/=(.*)/s) : [arg, undefined];
    if (name === '-h' || name === '--help') {
      console.log(USAGE);
      process.exit(EXIT.ok);
    } else if (name === '--server-key') out.serverKey = inline ?? value(++i, name);
    else if (name === '--as') out.as = inline ?? value(++i, name);
    else if (name === '--final') out.final = inline ?? value(++i, name);
    else if (name === '--receipts') out.receipts = [value(++i, name), value(++i, name)];
    else if (name === '--') out.files.push(...argv.slice(i + 1)), (i = argv.length);
    else if (arg.startsWith('-') && arg !== '-') usage(`unknown option ${arg}`);
    else out.files.push(arg);
  }
  return out;
}

/** --server-key: the key itself, or a file holding it. */
function serverKeyOf(given) {
  let text = given;
  try {
    if (given.length < 200 && statSync(given).isFile()) text = readFileSync(given, 'utf8');
  } catch {
    // not a file: the key itself
  }
  try {
    return parseServerKey(text);
  } catch (e) {
    return usage(`--server-key: ${e.message}`);
  }
}

const plural = (n, one) => `${n} ${one}${n === 1 ? '' : 's'}`;
const read = (file) => (file === '-' ? readFileSync(0) : readFileSync(file));

function signedText(r, keyGiven) {
  const n = r.signaturesChecked;
  if (n) return `; signed by the server key (${plural(n, 'signature')} ok)`;
  if (r.signedBy && !keyGiven) return `; signed by ${r.signedBy} (not checked: pass --server-key)`;
  return '';
}

function describe(r, keyGiven) {
  const signed = signedText(r, keyGiven);
  if (r.copy !== null) {
    const notes = r.notes.map((n) => `; ${n}`).join('');
    return {
      status: EXIT.unrevealed,
      text:
        `consistent so far: ${r.game}, ${whose(r.copy)} copy, ${r.entries} entries; ` +
        `not checked yet: ${r.notChecked.join(', ')}${notes}${signed}`,
    };
  }
  if (!r.complete) {
    return {
      status: EXIT.unrevealed,
      text:
        `consistent so far: ${r.game}, ${r.entries} entries; the seed is not yet revealed, so ` +
        `${r.notChecked.join(' and ')} cannot be checked${signed}`,
    };
  }
  const o = r.outcome;
  let ending = `; ${o.termination}`;
  if (o.winners.length) ending += `, winners ${o.winners.map((s) => `seat ${s}`).join(', ')}`;
  if (o.losers.length) ending += `, losers ${o.losers.map((s) => `seat ${s}`).join(', ')}`;
  const derived =
    r.contributions === null
      ? ''
      : ` (derived from the server seed ${r.seed} and ` +
        `${plural(r.contributions.length, 'contribution')})`;
  const deal = r.dealChecked
    ? `, deal re-dealt from seed ${r.dealSeed}${derived}`
    : `; ${r.notes.join('; ')}`;
  return {
    status: EXIT.ok,
    text: `valid: ${r.game}, ${r.entries} entries, seed commitment ok${deal}${ending}${signed}`,
  };
}

function verifyFiles(files, key) {
  let invalid = false;
  let unreadable = false;
  let unrevealed = false;
  for (const file of files) {
    let data;
    try {
      data = read(file);
    } catch (e) {
      console.error(`${file}: ${e.message}`);
      unreadable = true;
      continue;
    }
    try {
      const { status, text } = describe(verifyLog(data, { serverKey: key }), key !== null);
      console.log(`${file}: ${text}`);
      if (status === EXIT.unrevealed) unrevealed = true;
    } catch (e) {
      if (!(e instanceof VerifyError)) throw e;
      console.log(`${file}: INVALID at ${e.message}`);
      invalid = true;
    }
  }
  if (invalid) return EXIT.invalid;
  if (unreadable) return EXIT.usage;
  return unrevealed ? EXIT.unrevealed : EXIT.ok;
}

function checkFiles(minePath, finalPath, key, as) {
  const data = [];
  for (const file of [minePath, finalPath]) {
    try {
      data.push(read(file));
    } catch (e) {
      console.error(`${file}: ${e.message}`);
      return EXIT.usage;
    }
  }
  let r;
  try {
    r = checkReceipts(data[0], data[1], { serverKey: key, viewer: as ?? undefined });
  } catch (e) {
    if (e instanceof UsageError) {
      console.error(`cardcore-verify-js: ${e.message}`);
      return EXIT.usage;
    }
    if (!(e instanceof VerifyError)) throw e;
    console.log(`INVALID at ${e.message}`);
    return EXIT.invalid;
  }
  const span = r.firstSeq === null ? '' : ` (seq ${r.firstSeq}–${r.lastSeq})`;
  const hidden = r.hidden
    ? `; ${plural(r.hidden, 'hidden value')} ("??") taken from the final log: Node ` +
      'does not redact events per game, so it does not check they were hidden from you'
    : '';
  const notes = r.notes.map((n) => `; ${n}`).join('');
  console.log(
    `your ${r.entries} entries${span} are in the final log, unchanged: ${r.game}, ` +
      `${whose(r.viewer)} ${r.source}; the final log is valid (${r.final.entries} entries, seed ` +
      `commitment ok)${hidden}${notes}${signedText(r.final, key !== null)}`,
  );
  return EXIT.ok;
}

const args = parseArgs(process.argv.slice(2));
const key = args.serverKey === null ? null : serverKeyOf(args.serverKey);
let status;
if (args.receipts) {
  if (args.files.length || args.final) {
    usage('--receipts MINE FINAL takes no other log (nor --final)');
  }
  status = checkFiles(args.receipts[0], args.receipts[1], key, args.as);
} else if (args.final) {
  if (args.files.length !== 1) usage('MINE --final FINAL takes one MINE');
  status = checkFiles(args.files[0], args.final, key, args.as);
} else {
  if (args.as !== null) usage('--as names whose copy MINE is: it goes with --receipts or --final');
  if (args.files.length === 0) usage('no LOG given');
  status = verifyFiles(args.files, key);
}
process.exit(status);
