import { launch, person, createThroughLobby, shown, decide, gesture, nextRender, session } from "./lib.mjs";
const b = await launch();
const p = await person(b, process.argv[2]);
p.page.on("console", (m) => console.log("console:", m.type(), m.text()));
await createThroughLobby(p, { game: "palace", seats: ["you", "reaction"] });
await p.page.waitForSelector("#board[data-seq]");
for (let i = 0; i < 12; i++) {
  const s = await shown(p.page);
  const g = decide("palace", s.view, 0);
  console.log(i, s.view?.seq, JSON.stringify(g), s.rejection, JSON.stringify(await p.page.evaluate(() => window.__cardcore.acks.slice(-2))));
  if (g) await gesture(p.page, g);
  try { await nextRender(p.page, s.renders, 3000); } catch {}
}
console.log(await p.page.evaluate(() => document.querySelector("#selection").outerHTML));
await b.close();
