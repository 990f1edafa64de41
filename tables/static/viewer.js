// The viewer: recorded games move by move, both hands face up. Its state lives in this module.
// Names the frame-contract test reads: `f` a viewer frame (tables/viewer.py declares it).
import { $, FAST, SUITS, api, cardEl, el, plural, renderTalon, richText, scrollToItem, showTab } from "./common.js";

const V = { data: null, i: 0, timer: null, upload: null };

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

function showMessage(text) {
  if (V.data) $("v-move").textContent = text;
  else $("v-empty-text").textContent = text;
}

async function loadSources() {
  const box = $("sources");
  try {
    const res = await api("GET", "/api/records");
    box.replaceChildren();
    for (const s of res.sources) {
      const d = el("details", "source");
      d.open = s.id === "mine" || res.sources.length <= 2;
      d.dataset.source = s.id;
      d.append(el("summary", "", `${s.title} (${s.total})`));
      const ul = el("ul");
      for (const g of s.games) ul.append(gameButton(g, () => openViewer(s.id, g.index)));
      d.append(ul);
      box.append(d);
    }
  } catch (err) {
    box.textContent = err.message;
  }
}

// Show the viewer page with game ``index`` of ``source`` ("mine" or a records file's number).
export async function openViewer(source, index) {
  showViewer();
  try {
    viewGame(await api("GET", `/api/records/${encodeURIComponent(source)}/${index}`));
  } catch (err) {
    showMessage(err.message);
  }
}

// Show the viewer page (the game shown before, or how to pick one).
export function showViewer() {
  showTab("viewer");
  loadSources();
}

async function onUpload() {
  const file = $("upload").files[0];
  if (!file) return;
  V.upload = await file.text();
  const box = $("sources");
  try {
    const res = await api("POST", "/api/replay", { jsonl: V.upload });
    const d = el("details", "source");
    d.open = true;
    d.append(el("summary", "", `${file.name} (${res.total})`));
    const ul = el("ul");
    for (const g of res.games) {
      ul.append(gameButton(g, async () => {
        try { viewGame(await api("POST", "/api/replay", { jsonl: V.upload, game: g.index })); } catch (err) { showMessage(err.message); }
      }));
    }
    d.append(ul);
    box.prepend(d);
  } catch (err) {
    showMessage(err.message);
  }
}

function viewGame(res) {
  stopPlay();
  V.data = res;
  V.i = 0;
  $("v-empty").hidden = true;
  $("v-game").hidden = false;
  const list = $("v-moves");
  list.replaceChildren();
  res.frames.forEach((f, i) => {
    const text = f.move ? `${f.move.text}` : (f.result ? resultText(f) : "");
    const li = richText(el("li", f.move ? "" : "result"), text);
    li.addEventListener("click", () => showV(i));
    list.append(li);
  });
  $("v-slider").max = String(Math.max(0, res.frames.length - 1));
  showV(0);
}

function resultText(f) {
  const p = V.data.game.players;
  const who = f.result.winner === null ? "drawn"
    : `${p[f.result.winner]} (player_${f.result.winner}) wins ${f.result.game_points}`;
  return `Deal ${f.deal}: ${who} (${f.result.reason.replace("_", " ")}, ${f.result.scores[0]}:${f.result.scores[1]})`;
}

function showV(i) {
  if (!V.data) return;
  const frames = V.data.frames;
  V.i = Math.max(0, Math.min(i, frames.length - 1));
  const f = frames[V.i];
  const p = V.data.game.players;
  for (const s of [0, 1]) {
    $(`v-name-${s}`).textContent = `${p[s]} (player_${s})${f.dealer === s ? " · dealer" : ""}`;
    let text = `${plural(f.scores[s], "point")} · ${plural(f.tricks[s], "trick")} · match ${f.match[s]}`;
    if (f.marriages[s].length) text += " · marriage " + f.marriages[s].map((m) => SUITS[m]).join(" ");
    richText($(`v-stats-${s}`), text);
    const hand = $(`v-hand-${s}`);
    hand.replaceChildren(...f.hands[s].map((c) => cardEl(c)));
    hand.classList.toggle("to-act", f.to_act === s);
  }
  renderTalon($("v-talon"), $("v-talon-label"), f.stock, f.trump_card, f.trump,
    f.closed_by !== null ? "closed" : (f.stock ? "open" : "spent"), f.closed_by !== null ? p[f.closed_by] : null);
  $("v-facedown").replaceChildren(...f.talon.map((c) => cardEl(c, true)));
  const tr = $("v-trick");
  tr.replaceChildren();
  for (const c of f.trick) {
    const node = cardEl(c.card);
    node.classList.add(c.seat === 0 ? "from-you" : "from-opponent");
    tr.append(node);
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
  if (items[V.i]) scrollToItem(items[V.i]);
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

// Wire the viewer page.
export function initViewer() {
  $("upload").addEventListener("change", onUpload);
  $("v-first").addEventListener("click", () => { stopPlay(); showV(0); });
  $("v-prev").addEventListener("click", () => { stopPlay(); showV(V.i - 1); });
  $("v-next").addEventListener("click", () => { stopPlay(); showV(V.i + 1); });
  $("v-last").addEventListener("click", () => { stopPlay(); showV(V.data ? V.data.frames.length - 1 : 0); });
  $("v-play").addEventListener("click", togglePlay);
  $("v-slider").addEventListener("input", () => { stopPlay(); showV(Number($("v-slider").value)); });
  document.addEventListener("keydown", (kev) => {
    if ($("viewer").hidden || kev.target.tagName === "INPUT") return;
    if (kev.key === "ArrowRight") showV(V.i + 1);
    if (kev.key === "ArrowLeft") showV(V.i - 1);
  });
}
