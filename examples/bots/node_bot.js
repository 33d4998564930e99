#!/usr/bin/env node
// A bot for cardcore's bot protocol v1 (docs/bots.md) in Node, with no dependencies: it plays a
// sensible command (the host's hint) when one exists, the first one, as soon as it may, and
// passes otherwise. One JSON object per line on stdin (hello, decide..., end) and on stdout
// (ready, then act or pass for each decide). Logs go to stderr, never to stdout.
//
//   load_bot("cmd:node examples/bots/node_bot.js", seat, game, setup, seed)
"use strict";

const readline = require("node:readline");

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

function answer(decide) {
  const sensible = decide.sensible || [];
  const index = sensible.indexOf(true);
  if (index < 0) return { type: "pass", id: decide.id };
  // "index" names the host's own text, legal[index]; "command": decide.legal[index] would too.
  return { type: "act", id: decide.id, index, delay_ms: 0 };
}

const input = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
input.on("line", (line) => {
  const message = JSON.parse(line);
  switch (message.type) {
    case "hello":
      process.stderr.write(`node_bot.js: seat ${message.seat} of ${message.game}\n`);
      send({ type: "ready", name: "node_bot.js" });
      break;
    case "decide":
      send(answer(message));
      break;
    case "end":
      input.close();
      break;
  }
});
