// `node tests/web/driver/run.mjs SCENARIO '{"base": URL, "out": DIR, "result": FILE, ...}'`:
// runs one browser scenario and writes its result as JSON to FILE (else to stdout).

import fs from "node:fs";
import { launch } from "./lib.mjs";
import * as scenarios from "./scenarios.mjs";

const [name, json] = process.argv.slice(2);
const args = JSON.parse(json || "{}");
const fn = scenarios[name];
if (!fn) {
  console.error(`no scenario ${name}; have: ${Object.keys(scenarios).join(", ")}`);
  process.exit(2);
}
const browser = await launch();
let result;
let code = 0;
try {
  result = await fn(browser, args);
} catch (err) {
  result = { error: String(err?.stack || err) };
  code = 1;
} finally {
  await browser.close().catch(() => {});
}
const text = JSON.stringify(result);
if (args.result) fs.writeFileSync(args.result, text);
else process.stdout.write(text + "\n");
if (result.error) process.stderr.write(result.error + "\n");
process.exitCode = code;
