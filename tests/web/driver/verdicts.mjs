// `node tests/web/driver/verdicts.mjs BASE_URL < cases.json`: `cardcore verify` as the web page
// runs it (cardcore's own Python under Pyodide, in the page's worker), on each case
// [{argv: ["verify", …, "@name"], files: {name: text}}]; writes [{exit, text}] as JSON on stdout.
// The differential test of verdicts (tests/web/test_verdict_agreement.py) holds these to the
// command line's and the Node verifier's, word for word.

import { launch, person } from "./lib.mjs";

const base = process.argv[2];
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk); // a pipe: read it as a stream
const cases = JSON.parse(Buffer.concat(chunks).toString("utf8"));
const browser = await launch();
try {
  const p = await person(browser, base, { name: "verdicts" });
  await p.page.goto(`${base}/`);
  await p.page.waitForFunction(() => typeof window.__cardcore?.cli === "function");
  p.page.setDefaultTimeout(120000);
  const results = await p.page.evaluate(async (all) => {
    const out = [];
    for (const c of all) out.push(await window.__cardcore.cli(c.argv, c.files));
    return out;
  }, cases);
  if (p.errors.length) throw new Error(p.errors.join("\n"));
  process.stdout.write(JSON.stringify(results) + "\n");
} finally {
  await browser.close().catch(() => {});
}
