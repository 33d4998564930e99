#!/usr/bin/env node
// Verify cardcore game logs in Node: `cardcore-verify-js LOG...` (exit 0 valid, 1 invalid,
// 3 consistent so far but not yet revealed, 2 unreadable), like `cardcore verify`.
import { readFileSync } from 'node:fs';

import { VerifyError, verifyLog } from '../src/verify.js';

let status = 0;
for (const file of process.argv.slice(2)) {
  let data;
  try {
    data = readFileSync(file);
  } catch (e) {
    console.error(`${file}: ${e.message}`);
    status = Math.max(status, 2);
    continue;
  }
  try {
    const r = verifyLog(data);
    if (r.complete) {
      console.log(`${file}: valid ${r.game} log, ${r.entries} entries, deal re-dealt from seed ${r.seed}`);
    } else {
      console.log(`${file}: consistent so far (${r.entries} entries); the seed is not revealed yet`);
      status = Math.max(status, 3);
    }
  } catch (e) {
    if (!(e instanceof VerifyError)) throw e;
    console.log(`${file}: INVALID at ${e.message}`);
    status = 1;
  }
}
process.exit(status);
