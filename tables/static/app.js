"use strict";
// Sixty-Six tables, the browser side: plain JavaScript, no build step.
// The server sends only what this player may see, cards by name ("TH" = ten of hearts);
// this file draws them, sends moves, waits for the bot's moves and shows them one by one.

const SUITS = { C: "♣", S: "♠", H: "♥", D: "♦" };
const SUIT_NAMES = { C: "clubs", S: "spades", H: "hearts", D: "diamonds" };
const RED = new Set(["H", "D"]);
const FAST = new URLSearchParams(location.search).has("fast");  // tests: no pauses
const DELAY = FAST ? 10 : 700;  // ms between the opponent's moves
const $ = (id) => document.getElementById(id);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ------------------------------------------------------------------ drawing helpers
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
const rankText = (r) => (r === "T" ? "10" : r);
const cardText = (name) => rankText(name[0]) + SUITS[name[1]];
const who = (w) => (w === "you" ? "You" : (P.game ? P.game.bot : "Opponent"));

function cardEl(name, small) {
  const face = "JQK".includes(name[0]);
  const c = el("div", "card" + (RED.has(name[1]) ? " red" : "") + (face ? " face" : "") + (small ? " small" : ""));
  c.dataset.card = name;
  for (const pos of ["tl", "br"]) {
    const k = el("span", "corner " + pos);
    k.append(el("span", "r", rankText(name[0])), el("span", "s", SUITS[name[1]]));
    c.append(k);
  }
  c.append(el("span", "pip", face ? name[0] + SUITS[name[1]] : SUITS[name[1]]));
  return c;
}
// Scroll a list (not the page) so that one of its items shows.
function scrollTo(item) {
  const list = item.parentElement;
  const top = item.offsetTop;  // the lists are position: relative
  if (top < list.scrollTop) list.scrollTop = top;
  else if (top + item.offsetHeight > list.scrollTop + list.clientHeight) {
    list.scrollTop = top + item.offsetHeight - list.clientHeight;
  }
}
const backEl = (small) => el("div", "card back" + (small ? " small" : ""));

// Text with card names drawn as coloured cards ("TH" -> "10♥"), built from text nodes only.
function richText(node, text) {
  node.textContent = "";
  const re = /\b([9JQKTA])([CSHD])\b|([♥♦])/g;
  let last = 0;
  let m;
  while ((m = re.exec(text))) {
    node.append(document.createTextNode(text.slice(last, m.index)));
    node.append(m[3] ? el("span", "red-t", m[3]) : el("span", RED.has(m[2]) ? "red-t" : "", rankText(m[1]) + SUITS[m[2]]));
    last = re.lastIndex;
  }
  node.append(document.createTextNode(text.slice(last)));
  return node;
}

async function api(method, path, body) {
  const opts = { method, headers: {}, credentials: "same-origin" };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const r = await fetch(path, opts);
  let data = null;
  try { data = await r.json(); } catch (e) { data = null; }
  if (!r.ok) {
    const err = new Error((data && data.error) || r.statusText);
    err.status = r.status;
    throw err;
  }
  return data;
}

// ------------------------------------------------------------------ the play table
const P = {
  game: null, state: null, version: -1, shown: -1, chain: Promise.resolve(),
  polling: false, sending: false, busy: false, seen: new Set(), hint: null,
};

function setStatus(text) { richText($("status"), text); }
function showError(e) { setStatus("⚠ " + (e && e.message ? e.message : e)); }

// Handle one reply of the game API: show its new frames in order, then the latest state.
function receive(resp) {
  P.chain = P.chain.then(() => handle(resp)).catch(showError);
  return P.chain;
}

async function handle(resp) {
  P.game = resp.game;
  P.version = Math.max(P.version, resp.state.version);
  const frames = (resp.frames || []).filter((f) => f.version > P.shown);
  P.busy = true;
  try {
    for (const f of frames) await showFrame(f, true);
  } finally { P.busy = false; }
  if (resp.state.version >= P.shown) showFrame(resp.state, false);
  renderSide();
  if (P.game.over && P.game.record === null) poll();
  else if (P.game.over) await gameOver();
  else if (P.game.thinking) poll();
}

async function showFrame(f, animate) {
  P.shown = Math.max(P.shown, f.version);
  P.state = f;
  if (P.hint && P.hint.version !== f.version) clearHint();
  render(f);
  renderSide();
  let opponentMoved = false;
  for (const e of f.events || []) {
    if (P.seen.has(e.seq)) continue;
    P.seen.add(e.seq);
    logEvent(e);
    if (e.who === "opponent") opponentMoved = true;
  }
  if (!animate) return;
  if (f.deal_result && !f.deal_result.match_over) {
    await banner(dealTitle(f.deal_result), f.deal_result.text, ["banner-next"]);
  } else if (opponentMoved) {
    await sleep(DELAY);
  }
}

function dealTitle(r) {
  if (r.winner === null) return `Deal ${r.deal}: drawn`;
  const pts = `${r.game_points} game point${r.game_points > 1 ? "s" : ""}`;
  return r.winner === "you" ? `Deal ${r.deal}: you win ${pts}` : `Deal ${r.deal}: ${P.game.bot} wins ${pts}`;
}

function logEvent(e) {
  const li = richText(el("li", e.who || "result"), e.text);
  $("log").append(li);
  scrollTo(li);
}

async function poll() {
  if (P.polling) return;
  P.polling = true;
  try {
    for (;;) {
      const r = await api("GET", `/api/game?since=${P.version}&wait=25`);
      await receive(r);
      if (!(r.game.thinking || (r.game.over && r.game.record === null))) break;
    }
  } catch (e) {
    showError(e);
  } finally {
    P.polling = false;
  }
}

function myTurn() { return P.state && P.state.to_act === "you" && !P.busy && !P.sending; }

function render(f) {
  const t = $("table");
  t.dataset.version = f.version;
  t.dataset.turn = P.busy ? "wait" : (f.to_act || "none");  // "wait": still showing the bot's moves
  t.dataset.over = String(!!(P.game && P.game.over));
  const side = (s) => {
    let text = `${s.score} points · ${s.tricks} trick${s.tricks === 1 ? "" : "s"}`;
    if (s.marriages.length) text += " · marriage " + s.marriages.map((m) => SUITS[m]).join(" ");
    if (s.pending) text += ` (${s.pending} after a first trick)`;
    return text;
  };
  $("opp-name").textContent = P.game ? P.game.bot : "Opponent";
  richText($("opp-stats"), side(f.opponent));
  richText($("my-stats"), side(f.you) + (f.dealer === "you" ? " · dealer" : ""));
  const oh = $("opp-hand");
  oh.replaceChildren(...Array.from({ length: f.opponent_cards }, () => backEl()));
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
  renderHand(f);
  renderActions(f);
  setStatus(statusText(f));
}

function renderTalon(box, label, count, trumpCard, trump, state, closer) {
  box.replaceChildren();
  box.classList.toggle("closed", state === "closed");
  if (trumpCard) {
    const tc = cardEl(trumpCard);
    tc.classList.add("trump");
    box.append(tc);
  }
  const stack = el("div", "stack");
  const n = Math.max(0, count - (trumpCard ? 1 : 0));
  for (let i = 0; i < Math.min(n, 6); i++) {
    const b = backEl();
    b.style.left = `${i * 2}px`;
    b.style.top = `${-i * 2}px`;
    stack.append(b);
  }
  box.append(stack);
  if (count) box.append(el("span", "count", String(count)));
  let text = `Trumps ${SUITS[trump]} ${SUIT_NAMES[trump]}`;
  if (state === "closed") text += ` · closed by ${closer}`;
  else if (state === "spent") text += " · talon spent";
  richText(label, text);
}

function renderTrick(f) {
  const box = $("trick");
  box.replaceChildren();
  box.classList.toggle("taken", !!f.trick.taken_by);
  for (const c of f.trick.cards) {
    const e = cardEl(c.card);
    e.classList.add(c.who === "you" ? "from-you" : "from-opponent");
    box.append(e);
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
      c.addEventListener("keydown", (e) => {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); onCard(name, c); }
      });
      if (f.illegal[name]) c.title = f.illegal[name].replace(/\b([9JQKTA])([CSHD])\b/g, (m) => cardText(m));
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
  if (f.to_act === "opponent") return `${P.game ? P.game.bot : "The opponent"} is thinking…`;
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
  const m = P.state.legal.find((x) => x.kind === "card" && x.card === name);
  if (!m) {  // an illegal card: nothing is sent, the game is unchanged
    node.classList.remove("shake");
    void node.offsetWidth;
    node.classList.add("shake");
    const why = P.state.illegal[name];
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
    const r = await api("POST", "/api/game/move", { action, version: P.state.version });
    P.sending = false;
    await receive(r);
  } catch (e) {
    showError(e);
    if (e.status === 409) loadGame();
  } finally {
    P.sending = false;
  }
}

function renderSide() {
  const g = P.game;
  const f = P.state;
  if (!g || !f) return;
  $("match-you").textContent = f.match.you;
  $("match-opp").textContent = f.match.opponent;
  $("match-opp-name").textContent = g.bot;
  const dealer = f.dealer === "you" ? "you" : g.bot;
  $("match-info").textContent = g.episode === "match"
    ? `Match to ${f.match.target} · deal ${f.deal} · dealer ${dealer}` : `One deal · dealer ${dealer}`;
  $("hint-btn").disabled = !g.hint_bot || g.over;
  $("hint-bot").textContent = g.hint_bot ? `Hints from ${g.hint_bot}` : "No hint bot in this game";
  $("resign-btn").disabled = g.over;
}

async function gameOver() {
  const g = P.game;
  let title;
  if (g.winner === null) title = "Drawn";
  else if (g.episode === "match") {
    const s = g.match_score;
    title = g.winner === "you" ? `You win the match ${s.you}:${s.opponent}!` : `${g.bot} wins the match ${s.opponent}:${s.you}`;
  } else title = g.winner === "you" ? "You win the deal!" : `${g.bot} wins the deal`;
  const last = g.deals.length ? g.deals[g.deals.length - 1].text : "";
  const text = g.forfeit ? `${last ? last + " " : ""}(${g.forfeit.detail})` : last;
  setStatus(`Game over. ${g.record !== null ? "Saved as game " + g.record + "." : ""}`);
  const pick = await banner(title, text + (g.seed !== null ? ` Seed ${g.seed}.` : ""), ["banner-view", "banner-new"]);
  if (pick === "banner-view" && g.record !== null) openViewer("mine", g.record);
  if (pick === "banner-new") newGame();
}

let bannerDone = null;
function banner(title, text, buttons) {
  $("banner-title").textContent = title;
  richText($("banner-text"), text || "");
  for (const id of ["banner-next", "banner-view", "banner-new"]) $(id).hidden = !buttons.includes(id);
  $("banner").hidden = false;
  $(buttons[0]).focus();
  return new Promise((resolve) => { bannerDone = resolve; });
}
for (const id of ["banner-next", "banner-view", "banner-new"]) {
  $(id).addEventListener("click", () => {
    $("banner").hidden = true;
    if (bannerDone) { const d = bannerDone; bannerDone = null; d(id); }
  });
}

// ------------------------------------------------------------------ hints
async function askHint() {
  if (!myTurn()) return;
  const btn = $("hint-btn");
  btn.disabled = true;
  $("hint-out").textContent = "Thinking…";
  try {
    const r = await api("POST", "/api/game/hint", {});
    if (r.stale || r.hint.version !== P.state.version) { $("hint-out").textContent = ""; return; }
    showHint(r.hint);
  } catch (e) {
    $("hint-out").textContent = e.message;
  } finally {
    btn.disabled = !(P.game && P.game.hint_bot) || (P.game && P.game.over);
  }
}

function moveLabel(m) { return m.kind === "card" ? m.card : m.label; }

function showHint(h) {
  P.hint = h;
  const out = $("hint-out");
  out.replaceChildren();
  const byAction = new Map(P.state.legal.map((m) => [m.action, m]));
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
}

async function newGame(ev) {
  if (ev) ev.preventDefault();
  const body = { vs: $("vs").value, hint: $("hint").value, episode: $("episode").value };
  const seed = $("seed").value.trim();
  if (seed !== "") body.seed = Number(seed);
  showTab("play");
  $("new").disabled = true;
  try {
    const r = await api("POST", "/api/games", body);
    resetPlay();
    await receive(r);
  } catch (e) {
    showError(e);
  } finally {
    $("new").disabled = false;
  }
}

function resetPlay() {
  P.version = -1;
  P.shown = -1;
  P.seen = new Set();
  $("log").replaceChildren();
  $("banner").hidden = true;
  if (bannerDone) { const d = bannerDone; bannerDone = null; d(null); }
  clearHint();
}

async function loadGame() {
  try {
    const r = await api("GET", "/api/game");
    resetPlay();
    await receive(r);
  } catch (e) {
    if (e.status !== 404) showError(e);
  }
}

async function resign() {
  if (!P.game || P.game.over || !confirm("Resign this game? It counts as lost.")) return;
  try {
    const r = await api("POST", "/api/game/resign", {});
    await receive(r);
  } catch (e) { showError(e); }
}

// ------------------------------------------------------------------ the viewer
const V = { data: null, i: 0, timer: null, upload: null };

function showTab(name) {
  $("play").hidden = name !== "play";
  $("viewer").hidden = name !== "viewer";
  $("tab-play").classList.toggle("active", name === "play");
  $("tab-viewer").classList.toggle("active", name === "viewer");
}

function gameButton(g, open) {
  const li = el("li");
  const b = el("button");
  b.type = "button";
  const result = g.winner === null ? "drawn" : `${g.players[g.winner]} wins`;
  const score = g.unit === "match" ? ` ${g.match_score[0]}:${g.match_score[1]}` : "";
  b.textContent = `#${g.index} · ${g.players[0]} vs ${g.players[1]} · ${result}${score}${g.forfeit ? " (" + g.forfeit + ")" : ""}`;
  b.dataset.index = g.index;
  b.addEventListener("click", open);
  li.append(b);
  return li;
}

async function loadSources() {
  const box = $("sources");
  try {
    const r = await api("GET", "/api/records");
    box.replaceChildren();
    for (const s of r.sources) {
      const d = el("details", "source");
      d.open = s.id === "mine" || r.sources.length <= 2;
      d.dataset.source = s.id;
      d.append(el("summary", "", `${s.title} (${s.total})`));
      const ul = el("ul");
      for (const g of s.games) ul.append(gameButton(g, () => openViewer(s.id, g.index)));
      d.append(ul);
      box.append(d);
    }
  } catch (e) {
    box.textContent = e.message;
  }
}

async function openViewer(source, index) {
  showTab("viewer");
  loadSources();
  try {
    const r = await api("GET", `/api/records/${encodeURIComponent(source)}/${index}`);
    viewGame(r);
  } catch (e) {
    $("v-move").textContent = e.message;
  }
}

async function onUpload() {
  const file = $("upload").files[0];
  if (!file) return;
  V.upload = await file.text();
  const box = $("sources");
  try {
    const r = await api("POST", "/api/replay", { jsonl: V.upload });
    const d = el("details", "source");
    d.open = true;
    d.append(el("summary", "", `${file.name} (${r.total})`));
    const ul = el("ul");
    for (const g of r.games) {
      ul.append(gameButton(g, async () => {
        try { viewGame(await api("POST", "/api/replay", { jsonl: V.upload, game: g.index })); } catch (e) { $("v-move").textContent = e.message; }
      }));
    }
    d.append(ul);
    box.prepend(d);
  } catch (e) {
    $("v-move").textContent = e.message;
  }
}

function viewGame(r) {
  stopPlay();
  V.data = r;
  V.i = 0;
  const list = $("v-moves");
  list.replaceChildren();
  r.frames.forEach((f, i) => {
    const text = f.move ? `${f.move.text}` : (f.result ? resultText(f) : "");
    const li = richText(el("li", f.move ? "" : "result"), text);
    li.addEventListener("click", () => showV(i));
    list.append(li);
  });
  $("v-slider").max = String(Math.max(0, r.frames.length - 1));
  showV(0);
}

function resultText(f) {
  const p = V.data.game.players;
  const r = f.result;
  const who = r.winner === null ? "drawn" : `${p[r.winner]} (player_${r.winner}) wins ${r.game_points}`;
  return `Deal ${f.deal}: ${who} (${r.reason.replace("_", " ")}, ${r.scores[0]}:${r.scores[1]})`;
}

function showV(i) {
  if (!V.data) return;
  const frames = V.data.frames;
  V.i = Math.max(0, Math.min(i, frames.length - 1));
  const f = frames[V.i];
  const p = V.data.game.players;
  for (const s of [0, 1]) {
    $(`v-name-${s}`).textContent = `${p[s]} (player_${s})${f.dealer === s ? " · dealer" : ""}`;
    let text = `${f.scores[s]} points · ${f.tricks[s]} tricks · match ${f.match[s]}`;
    if (f.marriages[s].length) text += " · marriage " + f.marriages[s].map((m) => SUITS[m]).join(" ");
    richText($(`v-stats-${s}`), text);
    const hand = $(`v-hand-${s}`);
    hand.replaceChildren(...f.hands[s].map((c) => cardEl(c)));
    if (f.to_act === s) hand.classList.add("to-act"); else hand.classList.remove("to-act");
  }
  renderTalon($("v-talon"), $("v-talon-label"), f.stock, f.trump_card, f.trump,
    f.closed_by !== null ? "closed" : (f.stock ? "open" : "spent"), f.closed_by !== null ? p[f.closed_by] : null);
  $("v-facedown").replaceChildren(...f.talon.map((c) => cardEl(c, true)));
  const tr = $("v-trick");
  tr.replaceChildren();
  for (const c of f.trick) {
    const e = cardEl(c.card);
    e.classList.add(c.seat === 0 ? "from-you" : "from-opponent");
    tr.append(e);
  }
  $("v-trick-label").textContent = f.taken_by !== null && f.taken_by !== undefined && f.trick.length === 2
    ? `${p[f.taken_by]} takes the trick` : "";
  const n = frames.filter((x) => x.move).length;
  const text = f.move ? `Move ${f.move.n} of ${n}: ${f.move.text}` : (f.result ? resultText(f) : "");
  richText($("v-move"), text);
  $("v-slider").value = String(V.i);
  $("v-pos").textContent = `${V.i + 1} / ${frames.length}`;
  const items = $("v-moves").children;
  for (let k = 0; k < items.length; k++) items[k].classList.toggle("current", k === V.i);
  if (items[V.i]) scrollTo(items[V.i]);
}

function stopPlay() {
  if (V.timer) clearInterval(V.timer);
  V.timer = null;
  $("v-play").textContent = "▶ Play";
}

function togglePlay() {
  if (V.timer) { stopPlay(); return; }
  $("v-play").textContent = "⏸ Pause";
  V.timer = setInterval(() => {
    if (!V.data || V.i >= V.data.frames.length - 1) { stopPlay(); return; }
    showV(V.i + 1);
  }, FAST ? 50 : 800);
}

// ------------------------------------------------------------------ wiring
$("new-game").addEventListener("submit", newGame);
$("hint-btn").addEventListener("click", askHint);
$("resign-btn").addEventListener("click", resign);
$("tab-play").addEventListener("click", () => showTab("play"));
$("tab-viewer").addEventListener("click", () => { showTab("viewer"); loadSources(); });
$("upload").addEventListener("change", onUpload);
$("v-first").addEventListener("click", () => { stopPlay(); showV(0); });
$("v-prev").addEventListener("click", () => { stopPlay(); showV(V.i - 1); });
$("v-next").addEventListener("click", () => { stopPlay(); showV(V.i + 1); });
$("v-last").addEventListener("click", () => { stopPlay(); showV(V.data ? V.data.frames.length - 1 : 0); });
$("v-play").addEventListener("click", togglePlay);
$("v-slider").addEventListener("input", () => { stopPlay(); showV(Number($("v-slider").value)); });
document.addEventListener("keydown", (e) => {
  if ($("viewer").hidden || e.target.tagName === "INPUT") return;
  if (e.key === "ArrowRight") showV(V.i + 1);
  if (e.key === "ArrowLeft") showV(V.i - 1);
});

loadBots().catch(showError);
loadGame();
