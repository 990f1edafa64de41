// Sixty-Six tables, the browser side: what both pages (the play table and the viewer) use.
// Plain ES modules, no build step; nothing here holds state.

export const SUITS = { C: "♣", S: "♠", H: "♥", D: "♦" };
export const SUIT_NAMES = { C: "clubs", S: "spades", H: "hearts", D: "diamonds" };
const RED = new Set(["H", "D"]);
export const FAST = new URLSearchParams(location.search).has("fast");  // tests: no pauses
export const $ = (id) => document.getElementById(id);
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// "1 trick", "2 tricks"
export const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

export function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
export const rankText = (r) => (r === "T" ? "10" : r);
export const cardText = (name) => rankText(name[0]) + SUITS[name[1]];
export const isRed = (suit) => RED.has(suit);

export function cardEl(name, small) {
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
export const backEl = (small) => el("div", "card back" + (small ? " small" : ""));

// Scroll a list (not the page) so that one of its items shows.
export function scrollToItem(item) {
  const list = item.parentElement;
  const top = item.offsetTop;  // the lists are position: relative
  if (top < list.scrollTop) list.scrollTop = top;
  else if (top + item.offsetHeight > list.scrollTop + list.clientHeight) {
    list.scrollTop = top + item.offsetHeight - list.clientHeight;
  }
}

// Text with card names drawn as coloured cards ("TH" -> "10♥"), built from text nodes only.
export function richText(node, text) {
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

// One call of the server's JSON API; an error reply throws with its message and status.
export async function api(method, path, body) {
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

// The talon: a stack of backs with the trump card under it, and its label.
export function renderTalon(box, label, count, trumpCard, trump, state, closer) {
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

// Show one page ("play" or "viewer").
export function showTab(name) {
  $("play").hidden = name !== "play";
  $("viewer").hidden = name !== "viewer";
  $("tab-play").classList.toggle("active", name === "play");
  $("tab-viewer").classList.toggle("active", name === "viewer");
}
