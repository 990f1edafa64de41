// The play table: draws the frames the server sends (only what this player may see), sends
// moves, waits for the bot's moves and shows them one by one. Its state lives in this module.
// Names the frame-contract test reads: `f` a frame, `m` a move, `side` a side, `result` a deal
// result, `ev` a log event, `g` the game (tables/frame.py, tables/session.py declare them).
import {
  $, FAST, api, backEl, cardEl, cardText, el, plural, renderTalon, richText, scrollToItem, showTab, sleep,
  SUITS,
} from "./common.js";
import { renderFour, renderFourSide, seatName } from "./four.js";

const DELAY = FAST ? 10 : 700;  // ms between the opponent's moves
const P = {
  game: null, state: null, version: -1, shown: -1, chain: Promise.resolve(),
  polling: false, sending: false, busy: false, seen: new Set(), hint: null,
  bannerDone: null, openViewer: null,
};

const botName = () => (P.game ? P.game.bot : "Opponent");
const four = () => !!(P.game && P.game.players === 4);  // a four-player game (four.js draws its table)
const who = (w) => (four() ? seatName(w, P.game) : (w === "you" ? "You" : botName()));
// Over, and the server still writing it to the record file (a four-player game is not recorded).
const unsaved = (g) => g.over && g.record === null && g.players !== 4;
const bannerOpen = () => !$("banner").hidden;

function setStatus(text) { richText($("status"), text); }
function showError(err) { setStatus("⚠ " + (err && err.message ? err.message : err)); }

// Handle one reply of the game API: show its new frames in order, then the latest state.
function receive(res) {
  P.chain = P.chain.then(() => handle(res)).catch(showError);
  return P.chain;
}

async function handle(res) {
  P.game = res.game;
  P.version = Math.max(P.version, res.state.version);
  const frames = (res.frames || []).filter((f) => f.version > P.shown);
  P.busy = true;
  try {
    for (const f of frames) await showFrame(f, true);
  } finally { P.busy = false; }
  if (res.state.version >= P.shown) showFrame(res.state, false);
  renderSide();
  const g = P.game;
  if (unsaved(g)) poll();
  else if (g.over) await gameOver();
  else if (g.thinking) poll();
}

async function showFrame(f, animate) {
  P.shown = Math.max(P.shown, f.version);
  P.state = f;
  if (P.hint && P.hint.version !== f.version) clearHint();
  render(f);
  renderSide();
  let opponentMoved = false;
  for (const ev of f.events || []) {
    if (P.seen.has(ev.seq)) continue;
    P.seen.add(ev.seq);
    logEvent(ev);
    if (ev.who && ev.who !== "you") opponentMoved = true;
  }
  if (!animate) return;
  if (f.deal_result && !f.deal_result.match_over) {
    await banner(dealTitle(f.deal_result), f.deal_result.text, ["banner-next"]);
  } else if (opponentMoved) {
    await sleep(DELAY);
  }
}

function dealTitle(result) {
  if (result.winner === null) return `Deal ${result.deal}: drawn`;
  const pts = plural(result.game_points, "game point");
  if (four()) return `Deal ${result.deal}: ${result.winner === "you" ? "your team wins" : "the opponents win"} ${pts}`;
  return result.winner === "you" ? `Deal ${result.deal}: you win ${pts}` : `Deal ${result.deal}: ${botName()} wins ${pts}`;
}

function logEvent(ev) {
  const li = richText(el("li", ev.who || "result"), ev.text);
  $("log").append(li);
  scrollToItem(li);
}

async function poll() {
  if (P.polling) return;
  P.polling = true;
  try {
    for (;;) {
      const res = await api("GET", `/api/game?since=${P.version}&wait=25`);
      await receive(res);
      const g = res.game;
      if (!(g.thinking || unsaved(g))) break;
    }
  } catch (err) {
    showError(err);
  } finally {
    P.polling = false;
  }
}

function myTurn() {
  return P.state && P.state.to_act === "you" && !P.busy && !P.sending && !bannerOpen();
}

function sideText(side) {
  let text = `${plural(side.score, "point")} · ${plural(side.tricks, "trick")}`;
  if (side.marriages.length) text += " · marriage " + side.marriages.map((s) => SUITS[s]).join(" ");
  if (side.pending) text += ` (${side.pending} after a first trick)`;
  return text;
}

function render(f) {
  const t = $("table");
  t.dataset.version = f.version;
  t.dataset.turn = P.busy ? "wait" : (f.to_act || "none");  // "wait": still showing the bot's moves
  t.dataset.over = String(!!(P.game && P.game.over));
  t.dataset.players = four() ? "4" : "2";
  if (four()) renderFour(f, P.game);
  else renderTwo(f);
  renderHand(f);
  renderActions(f);
  setStatus(statusText(f));
}

function renderTwo(f) {
  $("my-name").textContent = "You";
  $("opp-name").textContent = botName();
  richText($("opp-stats"), sideText(f.opponent));
  richText($("my-stats"), sideText(f.you) + (f.dealer === "you" ? " · dealer" : ""));
  $("opp-hand").replaceChildren(...Array.from({ length: f.opponent_cards }, () => backEl()));
  const known = $("opp-known");
  known.replaceChildren();
  if (f.opponent_known.length) {
    known.append(el("span", "", "holds"), ...f.opponent_known.map((c) => cardEl(c, true)));
  }
  renderTalon($("talon"), $("talon-label"), f.talon, f.trump_card, f.trump, f.talon_state,
    f.closed_by ? who(f.closed_by) : null);
  renderTrick(f);
  const lt = $("last-trick");
  lt.replaceChildren(...(f.last_trick ? f.last_trick.cards.map((c) => cardEl(c.card, true)) : []));
  $("last-label").textContent = f.last_trick ? `Last trick · ${who(f.last_trick.taken_by)}` : "Last trick";
}

function renderTrick(f) {
  const box = $("trick");
  box.replaceChildren();
  box.classList.toggle("taken", !!f.trick.taken_by);
  for (const c of f.trick.cards) {
    const node = cardEl(c.card);
    node.classList.add(c.who === "you" ? "from-you" : "from-opponent");
    box.append(node);
  }
  let label = "";
  if (f.trick.taken_by) label = `${who(f.trick.taken_by)} ${f.trick.taken_by === "you" ? "take" : "takes"} the trick`;
  else if (f.trick.cards.length) label = `${who(f.trick.cards[0].who)} led`;
  $("trick-label").textContent = label;
}

function renderHand(f) {
  const hand = $("hand");
  hand.replaceChildren();
  const playable = new Set(f.legal.filter((m) => m.kind === "card").map((m) => m.card));
  const mine = f.to_act === "you";
  for (const name of f.hand) {
    const c = cardEl(name);
    if (mine) {
      c.classList.add(playable.has(name) ? "legal" : "illegal");
      c.tabIndex = 0;  // keyboard: Tab to a card, Enter or Space plays it
      c.setAttribute("role", "button");
      c.setAttribute("aria-label", cardText(name) + (playable.has(name) ? "" : " (not playable now)"));
      c.addEventListener("keydown", (kev) => {
        if (kev.key === "Enter" || kev.key === " ") { kev.preventDefault(); onCard(name, c); }
      });
      if (f.illegal[name]) c.title = f.illegal[name].replace(/\b([9JQKTA])([CSHD])\b/g, (x) => cardText(x));
    }
    c.addEventListener("click", () => onCard(name, c));
    hand.append(c);
  }
}

function renderActions(f) {
  const box = $("actions");
  box.replaceChildren();
  for (const m of f.legal) {
    if (m.kind === "card") continue;
    const b = richText(el("button", m.false ? "warn" : ""), m.label);
    b.type = "button";
    b.dataset.kind = m.kind;
    b.dataset.action = m.action;
    b.addEventListener("click", () => {
      if (!myTurn()) return;
      if (m.false && !confirm("You have less than 66: a false declaration gives the opponent 2 game points. Declare?")) return;
      sendMove(m.action);
    });
    box.append(b);
  }
}

function statusText(f) {
  if (P.game && P.game.over) return "Game over.";
  if (f.to_act && f.to_act !== "you") return `${who(f.to_act)} is thinking…`;
  if (f.to_act !== "you") return "";
  const w = {
    lead: "Your lead: play a card" + (f.legal.some((m) => m.kind !== "card") ? " or use a button" : ""),
    follow: "Your turn: play a card to the trick",
    draw: "You took the trick: draw, or close the talon",
    close_response: "The talon was closed: continue, or exchange the nine of trumps",
    final: "Last trick taken: declare 66, or continue",
  };
  return w[f.window] || "Your turn";
}

function onCard(name, node) {
  if (!myTurn()) return;
  const f = P.state;
  const m = f.legal.find((x) => x.kind === "card" && x.card === name);
  if (!m) {  // an illegal card: nothing is sent, the game is unchanged
    node.classList.remove("shake");
    void node.offsetWidth;
    node.classList.add("shake");
    const why = f.illegal[name];
    if (why) setStatus(`${cardText(name)}: ${why}`);
    return;
  }
  sendMove(m.action);
}

async function sendMove(action) {
  if (P.sending) return;
  P.sending = true;
  clearHint();
  try {
    const res = await api("POST", "/api/game/move", { action, version: P.state.version });
    P.sending = false;
    await receive(res);
  } catch (err) {
    showError(err);
    if (err.status === 409) loadGame();
  } finally {
    P.sending = false;
  }
}

function hintAllowed() {
  const g = P.game;
  return !!(g && g.hint_bot && !g.over && !bannerOpen());
}

function renderSide() {
  const g = P.game;
  const f = P.state;
  if (!g || !f) return;
  $("hint-btn").disabled = !hintAllowed();
  $("hint-bot").textContent = g.hint_bot ? `Hints from ${g.hint_bot}` : "No hint bot in this game";
  $("resign-btn").disabled = g.over;
  if (four()) { renderFourSide(f, g); return; }
  $("match-you-name").textContent = "You";
  $("match-you").textContent = f.match.you;
  $("match-opp").textContent = f.match.opponent;
  $("match-opp-name").textContent = g.bot;
  const dealer = f.dealer === "you" ? "you" : g.bot;
  const rules = g.rules === "german" ? "" : ` · ${g.rules}`;
  $("match-info").textContent = (g.episode === "match"
    ? `Match to ${f.match.target} · deal ${f.deal} · dealer ${dealer}` : `One deal · dealer ${dealer}`) + rules;
}

async function gameOver() {
  const g = P.game;
  const last = g.deals.length ? g.deals[g.deals.length - 1].text : "";
  const text = g.forfeit ? `${last ? last + " " : ""}(${g.forfeit.detail})` : last;
  setStatus(`Game over. ${g.record !== null ? "Saved as game " + g.record + "." : ""}`);
  const stop = text && !text.endsWith(".") ? "." : "";
  const seat = g.players === 4 ? "" : `, seat ${g.seat.replace("player_", "")}`;
  const setup = g.seed !== null ? `${stop} Seed ${g.seed}${seat}.` : stop;
  const title = g.title === "drawn" ? "Drawn" : g.title;
  const pick = await banner(title, text + setup, g.players === 4 ? ["banner-new"] : ["banner-view", "banner-new"]);
  if (pick === "banner-view" && g.record !== null) P.openViewer("mine", g.record);
  if (pick === "banner-new") newGame();
}

// A banner over the table (the end of a deal or of the game); resolves with the button pressed.
function banner(title, text, buttons) {
  $("banner-title").textContent = title;
  richText($("banner-text"), text || "");
  for (const id of ["banner-next", "banner-view", "banner-new"]) $(id).hidden = !buttons.includes(id);
  $("banner").hidden = false;
  $("hint-btn").disabled = true;
  $(buttons[0]).focus();
  return new Promise((resolve) => { P.bannerDone = resolve; });
}

function closeBanner(id) {
  $("banner").hidden = true;
  renderSide();
  if (P.bannerDone) { const done = P.bannerDone; P.bannerDone = null; done(id); }
}

// ------------------------------------------------------------------ hints
async function askHint() {
  if (!myTurn()) return;
  const btn = $("hint-btn");
  btn.disabled = true;
  $("hint-out").textContent = "Thinking…";
  try {
    const res = await api("POST", "/api/game/hint", {});
    if (res.stale || res.hint.version !== P.state.version) { $("hint-out").textContent = ""; return; }
    showHint(res.hint);
  } catch (err) {
    $("hint-out").textContent = err.message;
  } finally {
    btn.disabled = !hintAllowed();
  }
}

const moveLabel = (m) => (m.kind === "card" ? m.card : m.label);

function showHint(h) {
  P.hint = h;
  const out = $("hint-out");
  out.replaceChildren();
  const f = P.state;
  const byAction = new Map(f.legal.map((m) => [m.action, m]));
  const best = byAction.get(h.action);
  out.append(richText(el("div", "pick"), `${h.bot} would play ${best ? moveLabel(best) : h.action}`));
  if (h.detail) out.append(el("div", "small", h.detail));
  const values = h.values.map((v) => v.value);
  const lo = Math.min(0, ...values);
  const hi = Math.max(...values, lo + 1e-9);
  for (const v of h.values) {
    const m = byAction.get(v.action);
    if (!m) continue;
    const row = el("div", "hint-row" + (v.action === h.action ? " best" : ""));
    row.dataset.action = v.action;
    const bar = el("div", "meter");
    const fill = el("i");
    fill.style.width = `${Math.max(3, (100 * (v.value - lo)) / (hi - lo))}%`;
    bar.append(fill);
    row.append(richText(el("span"), moveLabel(m)), bar, el("span", "num", fmt(h, v)));
    out.append(row);
  }
  // badges on the cards and buttons
  for (const v of h.values) {
    const m = byAction.get(v.action);
    if (!m) continue;
    const node = m.kind === "card"
      ? $("hand").querySelector(`.card[data-card="${m.card}"]`)
      : $("actions").querySelector(`button[data-action="${m.action}"]`);
    if (!node) continue;
    node.append(el("span", "badge", fmt(h, v)));
    if (v.action === h.action) node.classList.add("hinted");
  }
  if (!h.values.length) {
    const node = best && best.kind === "card" ? $("hand").querySelector(`.card[data-card="${best.card}"]`) : null;
    if (node) node.classList.add("hinted");
  }
}

function fmt(h, v) {
  if (h.kind === "probability") return `${Math.round(100 * v.value)}%`;
  return (v.value >= 0 ? "+" : "") + v.value.toFixed(2);
}

function clearHint() {
  P.hint = null;
  $("hint-out").replaceChildren();
  for (const n of document.querySelectorAll(".badge")) n.remove();
  for (const n of document.querySelectorAll(".hinted")) n.classList.remove("hinted");
}

// ------------------------------------------------------------------ new game, loading
async function loadBots() {
  const b = await api("GET", "/api/bots");
  const vs = $("vs");
  const hint = $("hint");
  vs.replaceChildren();
  hint.replaceChildren(new Option("none", "none"));
  const specs = b.bots.map((x) => x.spec).concat(b.extra);
  for (const s of specs) {
    const info = b.bots.find((x) => x.spec === s);
    const label = info && info.cheats ? `${s} (cheats)` : s;
    vs.append(new Option(label, s, s === b.vs, s === b.vs));
    if (!(info && info.cheats)) hint.append(new Option(s, s, s === b.hint, s === b.hint));
  }
  for (const [sel, value] of [[vs, b.vs], [hint, b.hint]]) {
    if (![...sel.options].some((o) => o.value === value)) sel.append(new Option(value, value, true, true));
  }
  const rules = $("rules");
  rules.replaceChildren();
  for (const r of b.rules) rules.append(new Option(r, r, r === b.rules_default, r === b.rules_default));
  for (const id of ["partner", "opponents"]) {
    $(id).replaceChildren(...b.four_bots.map((s) => new Option(s, s, s === "heuristic", s === "heuristic")));
  }
}

async function newGame(submit) {
  if (submit) submit.preventDefault();
  const g = P.game;
  if (g && !g.over && !confirm("Abandon the game in progress and start a new one? It is not saved.")) return;
  const body = $("players").value === "4"
    ? { players: 4, partner: $("partner").value, opponents: $("opponents").value, episode: $("episode").value }
    : { vs: $("vs").value, hint: $("hint").value, episode: $("episode").value, rules: $("rules").value };
  const seed = $("seed").value.trim();
  if (seed !== "") body.seed = Number(seed);
  const seat = $("seat").value;
  if (seat !== "" && !body.players) body.seat = Number(seat);
  showTab("play");
  $("new").disabled = true;
  try {
    const res = await api("POST", "/api/games", body);
    resetPlay();
    await receive(res);
  } catch (err) {
    showError(err);
  } finally {
    $("new").disabled = false;
  }
}

function resetPlay() {
  P.version = -1;
  P.shown = -1;
  P.seen = new Set();
  $("log").replaceChildren();
  if (!$("banner").hidden || P.bannerDone) closeBanner(null);
  clearHint();
}

async function loadGame() {
  try {
    const res = await api("GET", "/api/game");
    resetPlay();
    await receive(res);
  } catch (err) {
    if (err.status !== 404) showError(err);
  }
}

async function resign() {
  const g = P.game;
  if (!g || g.over || !confirm("Resign this game? It counts as lost.")) return;
  try {
    await receive(await api("POST", "/api/game/resign", {}));
  } catch (err) { showError(err); }
}

// Wire the play page; ``openViewer(source, index)`` shows a recorded game in the viewer.
export function initTable(openViewer) {
  P.openViewer = openViewer;
  $("new-game").addEventListener("submit", newGame);
  $("players").addEventListener("change", () => { $("new-game").dataset.players = $("players").value; });
  $("hint-btn").addEventListener("click", askHint);
  $("resign-btn").addEventListener("click", resign);
  for (const id of ["banner-next", "banner-view", "banner-new"]) {
    $(id).addEventListener("click", () => closeBanner(id));
  }
  loadBots().catch(showError);
  loadGame();
}
