// The four-player table: you (bottom) and your partner (top) against the bots on your left and
// right. table.js runs the game (frames, moves, the log) and calls renderFour for the seats,
// the trump card, the trick and the scores of a four-player frame (tables/four_frame.py).
// Names the frame-contract test reads: `f` a four-player frame, `g` the game.
import { $, SUITS, SUIT_NAMES, backEl, cardEl, el, plural, richText } from "./common.js";

export const SEAT_NAMES = { you: "You", left: "Left", partner: "Partner", right: "Right" };

// How texts call a seat, with its bot: "Partner (heuristic)".
export function seatName(w, g) {
  if (w === "you" || !g) return SEAT_NAMES[w] || w;
  return `${SEAT_NAMES[w]} (${w === "partner" ? g.partner : g.bot})`;
}

function teamText(side) {
  let text = `${plural(side.score, "point")} · ${plural(side.tricks, "trick")}`;
  if (side.marriages.length) text += " · marriage " + side.marriages.map((s) => SUITS[s]).join(" ");
  if (side.pending) text += ` (${side.pending} after a first trick)`;
  return text;
}

function seatStats(f, w) {
  const parts = [];
  if (f.dealer === w) parts.push("dealer");
  if (f.to_act === w) parts.push("to play");
  return parts.join(" · ");
}

function renderSeat(f, g, w, ids) {
  const seat = f.seats[w];
  $(ids.name).textContent = seatName(w, g);
  $(ids.stats).textContent = seatStats(f, w);
  $(ids.hand).replaceChildren(...Array.from({ length: seat.cards }, () => backEl()));
  const known = $(ids.known);
  known.replaceChildren();
  if (seat.marriages.length) known.append(el("span", "", "showed " + seat.marriages.map((s) => SUITS[s]).join(" ")));
  if (seat.known.length) known.append(el("span", "", "holds"), ...seat.known.map((c) => cardEl(c, true)));
}

function renderTrump(f) {
  const box = $("talon");
  box.replaceChildren();
  box.classList.remove("closed");
  const tc = cardEl(f.trump_card, true);
  tc.classList.add("turned");
  box.append(tc);
  const dealer = f.dealer === "you" ? "you" : SEAT_NAMES[f.dealer].toLowerCase();
  const held = f.trump_held ? ` · the dealer (${dealer}) holds ${f.trump_card}` : "";
  richText($("talon-label"), `Trumps ${SUITS[f.trump]} ${SUIT_NAMES[f.trump]}${held}`);
}

function renderTrick(f, g) {
  const box = $("trick");
  box.replaceChildren();
  box.classList.toggle("taken", !!f.trick.taken_by);
  for (const c of f.trick.cards) {
    const node = cardEl(c.card, true);
    node.classList.add("from-" + c.who);
    node.title = seatName(c.who, g);
    box.append(node);
  }
  let label = "";
  if (f.trick.taken_by) label = `${SEAT_NAMES[f.trick.taken_by]} ${f.trick.taken_by === "you" ? "take" : "takes"} the trick`;
  else if (f.trick.cards.length) label = `${SEAT_NAMES[f.trick.cards[0].who]} led`;
  $("trick-label").textContent = label;
  const lt = $("last-trick");
  lt.replaceChildren(...(f.last_trick ? f.last_trick.cards.map((c) => {
    const node = cardEl(c.card, true);
    node.title = seatName(c.who, g);
    return node;
  }) : []));
  $("last-label").textContent = f.last_trick ? `Last trick · ${SEAT_NAMES[f.last_trick.taken_by]}` : "Last trick";
}

// Draw the seats, the trump card, the trick and both teams' scores of four-player frame `f`.
export function renderFour(f, g) {
  renderSeat(f, g, "partner", { name: "opp-name", stats: "opp-stats", hand: "opp-hand", known: "opp-known" });
  renderSeat(f, g, "left", { name: "left-name", stats: "left-stats", hand: "left-hand", known: "left-known" });
  renderSeat(f, g, "right", { name: "right-name", stats: "right-stats", hand: "right-hand", known: "right-known" });
  renderTrump(f);
  renderTrick(f, g);
  $("my-name").textContent = "You";
  const mine = [`Your team: ${teamText(f.you)}`, `Opponents: ${teamText(f.opponent)}`];
  if (f.dealer === "you") mine.push("you deal");
  richText($("my-stats"), mine.join(" · "));
}

// The scoreboard of a four-player game: teams, not players.
export function renderFourSide(f, g) {
  $("match-you-name").textContent = "Your team";
  $("match-opp-name").textContent = "Opponents";
  $("match-you").textContent = f.match.you;
  $("match-opp").textContent = f.match.opponent;
  const what = g.episode === "match" ? `Match to ${f.match.target} · deal ${f.deal}` : "One deal";
  $("match-info").textContent = `${what} · four players · partner ${g.partner}, opponents ${g.bot}`;
}
