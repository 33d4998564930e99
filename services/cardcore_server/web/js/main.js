// The web table's entry point: routes by the URL's fragment (#game=ID, #invite=CODE, else the
// lobby), so that a reload or a link lands on the same screen and no secret reaches a server.

import { h } from "./dom.js";
import { renderInvite, renderLobby } from "./lobby.js";
import { renderTable } from "./table.js";
import { checkCopy, cli, verifyLog, warmUp } from "./verify.js";

const main = document.getElementById("main");
let cleanup = () => {};
const probe = (window.__cardcore ??= { acks: [], renders: 0, firstRenderMs: null });
Object.assign(probe, { verifyLog, checkCopy, warmUp, cli });

function route() {
  const params = new URLSearchParams(location.hash.slice(1));
  return { game: params.get("game"), invite: params.get("invite") };
}

async function show() {
  cleanup();
  cleanup = () => {};
  const r = route();
  probe.route = r;
  try {
    if (r.game) cleanup = await renderTable(main, r.game);
    else if (r.invite) await renderInvite(main, r.invite);
    else {
      document.title = "cardcore — the web table";
      await renderLobby(main);
    }
  } catch (err) {
    main.replaceChildren(h("h1", {}, "Something went wrong"),
      h("p", { class: "problem", role: "alert" }, err?.code ? `${err.code}: ${err.detail}` : String(err?.message || err)),
      h("p", {}, h("a", { href: "#" }, "Back to the lobby")));
  }
  probe.shown = (probe.shown || 0) + 1;
  if (probe.firstShownMs === undefined) probe.firstShownMs = performance.now();
}

// A new screen starts at its top: the browser keeps the scroll of the screen before (the lobby's
// form is long on a phone: "Create the table" lies far down it), which would land the table
// scrolled past its status and cards.
addEventListener("hashchange", () => {
  scrollTo(0, 0);
  show();
});
show();
