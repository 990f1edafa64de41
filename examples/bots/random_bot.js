#!/usr/bin/env node
// A Sixty-Six bot for Node (no npm packages): a uniformly random legal action.
//
// It speaks the sixtysix external-bot protocol 1.2 (agents/protocol/PROTOCOL.md):
// one JSON object per line on standard input, one per line on standard output,
// anything for humans on standard error. It plays every game the arena offers
// (two players or four, any rules preset): new_match names the game, and each
// request's legal list is all it needs. Run it in the arena with
//
//     sixtysix arena random "exec:node examples/bots/random_bot.js"
//
// Start a new bot from this file: replace choose().
"use strict";

const readline = require("readline");

const NAME = "random-js";
const VERSION = "1.1";
const PROTOCOL = "1.2";

// mulberry32: a small seeded generator, so a game replays from its seed.
function seeded(seed) {
  let a = seed >>> 0;
  return function () {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let random = seeded(Date.now());

// The action id to play; request.view is what this player knows (a four-player
// view has team and partner; the game's rules came in new_match).
function choose(request) {
  const legal = request.legal;
  return legal[Math.floor(random() * legal.length)].id;
}

function send(msg) {
  process.stdout.write(JSON.stringify(msg) + "\n"); // synchronous for pipes on Linux
}

const input = readline.createInterface({ input: process.stdin, terminal: false });

input.on("line", (line) => {
  const msg = JSON.parse(line);
  switch (msg.type) {
    case "hello":
      if (String(msg.protocol).split(".")[0] !== PROTOCOL.split(".")[0]) {
        process.stderr.write(`${NAME}: cannot speak protocol ${msg.protocol}\n`);
        process.exit(2);
      }
      send({ type: "hello", name: NAME, version: VERSION, protocol: PROTOCOL });
      break;
    case "new_match": {
      random = seeded(msg.seed === null ? Date.now() : msg.seed % 4294967296);
      const rules = msg.rules || { name: "german" }; // absent before protocol 1.2
      process.stderr.write(`${NAME}: seat ${msg.seat} of ${msg.players || 2}, rules ${rules.name}\n`);
      break;
    }
    case "request":
      send({ type: "action", id: msg.id, action: choose(msg) });
      break;
    case "quit":
      process.exit(0);
      break;
    default: // deal_end, match_end, and any message a later 1.x version adds: no reply
      break;
  }
});

input.on("close", () => process.exit(0)); // end of input: the arena is gone
