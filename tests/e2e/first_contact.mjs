// `node tests/e2e/first_contact.mjs '{"base": URL, "result": FILE}'`: a newcomer opens the web
// table that `make serve` serves from a fresh tree, creates a game of Egyptian Ratscrew against a
// bot through the lobby, plays it to the end as a person would (keys, through the page) and
// reads the verdicts the page shows. The person, the lobby and the end panel are the web tests'
// own helpers (tests/web/driver/lib.mjs, with playwright-core from the checkout's node_modules).
// Writes {game_id, steps, errors, ...endPanel} or {error} to FILE as JSON.

import fs from "node:fs";
import { createThroughLobby, endPanel, launch, person, playToEnd } from "../web/driver/lib.mjs";

const args = JSON.parse(process.argv[2] || "{}");
const browser = await launch();
let result;
try {
  const p = await person(browser, args.base, { name: "newcomer" });
  const runtime = [];
  p.page.on("response", (r) => {
    if (r.url().includes("/web/pyodide/")) runtime.push({ url: r.url(), status: r.status() });
  });
  const id = await createThroughLobby(p, { game: "ratscrew", seats: ["you", "reaction"], eventLimit: 60 });
  await p.page.waitForSelector("#board[data-seq]");
  const steps = await playToEnd(p, "ratscrew", { deadlineMs: 150000 });
  result = { game_id: id, steps, errors: p.errors, runtime, ...(await endPanel(p.page)) };
} catch (err) {
  result = { error: String(err?.stack || err) };
} finally {
  await browser.close().catch(() => {});
}
fs.writeFileSync(args.result, JSON.stringify(result));
process.exitCode = result.error ? 1 : 0;
