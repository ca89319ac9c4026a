// The hall page: every board live as a small board; click one to open it
// large with its moves.  Read-only: it only listens to the hall's WebSocket.
"use strict";

const boards = {};  // board id -> summary (names, position, result, ...)
const games = {};   // board id -> {game_id, moves, positions, times, turns}
const NO_GAME = {moves: [], positions: [], times: [], turns: []};
let link = null, stats = null;
let openId = null;
const dirty = new Set();
let frame = 0;

const $ = (sel) => document.querySelector(sel);

function parsePosition(position) {
  // ranks from the top down, '/' separated: {square index: "A" | "D"}
  const out = {};
  const ranks = position.split(" ")[0].split("/");
  const size = ranks.length;
  ranks.forEach((rank, r) => {
    [...rank].forEach((ch, f) => {
      if (ch === "A" || ch === "D") out[(size - 1 - r) * size + f] = ch;
    });
  });
  return {size, pieces: out};
}

function squareName(i, size) {
  return String.fromCharCode(97 + (i % size)) + (Math.floor(i / size) + 1);
}

function lastSquares(move) {
  // the squares a move token names (from, to, or the placement)
  return move ? (move.match(/[a-z][0-9]+/g) || []) : [];
}

function drawBoard(el, position, move, geo) {
  // geo: the board the service sent with its state (points with x and y,
  // lines, dark squares); without it, a square board read from the position.
  el.textContent = "";
  el.classList.remove("points");
  el.style.aspectRatio = "";
  if (!position) return;
  if (!geo) {
    const rows = position.split(" ")[0].split("/");
    if (rows.some((row) => row.length !== rows.length)) return;  // not square: wait for the state
    const {size, pieces} = parsePosition(position);
    geo = {kind: "grid", width: size, height: size, dark: [], lines: [],
           centre: squareName(Math.floor(size * size / 2), size),
           points: Array.from({length: size * size}, (_, i) =>
             [squareName(i, size), i % size, size - 1 - Math.floor(i / size)])};
  }
  const order = [...geo.points].sort((p, q) => p[2] - q[2] || p[1] - q[1]);
  const cells = [...position.split(" ")[0].replace(/\//g, "")];
  const pieces = {};
  order.forEach((p, k) => { if ("ADad".includes(cells[k] || ".")) pieces[p[0]] = cells[k]; });
  const lit = new Set(lastSquares(move));
  const dark = new Set(geo.dark);
  const w = geo.width, h = geo.height;
  // the opened board names its squares, as its moves and status line do
  const named = el.classList.contains("big") && geo.kind !== "points";
  const square = (name, odd) => {
    const sq = document.createElement("div");
    sq.className = "sq" + (odd ? " odd" : "") + (name === geo.centre ? " malha" : "");
    sq.dataset.square = name;
    if (named) {
      const label = document.createElement("span");
      label.className = "name";
      label.textContent = name;
      sq.appendChild(label);
    }
    if (lit.has(name)) sq.classList.add("moved");
    const ch = pieces[name];
    if (ch) {
      const p = document.createElement("div");
      // a lowercase letter: a king (a crowned soldier)
      p.className = "p " + ch.toUpperCase() + (ch === ch.toLowerCase() ? " king" : "");
      sq.appendChild(p);
    }
    return sq;
  };
  el.style.aspectRatio = `${w} / ${h}`;
  if (geo.kind !== "points") {
    el.style.gridTemplateColumns = `repeat(${w}, 1fr)`;
    el.style.gridTemplateRows = `repeat(${h}, 1fr)`;
    const at = new Map(geo.points.map((p) => [`${p[1]},${p[2]}`, p[0]]));
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const name = at.get(`${x},${y}`);
        // dark squares where the board has them (draughts); a Kharbga board's are all alike
        const odd = dark.has(name);
        el.appendChild(name ? square(name, odd) : document.createElement("div"));
      }
    }
    return;
  }
  // A board of points and lines (the 37-point board).
  el.classList.add("points");
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.setAttribute("preserveAspectRatio", "none");
  const at = new Map(geo.points.map((p) => [p[0], p]));
  for (const [a, b] of geo.lines) {
    const line = document.createElementNS(ns, "line");
    line.setAttribute("x1", at.get(a)[1] + 0.5); line.setAttribute("y1", at.get(a)[2] + 0.5);
    line.setAttribute("x2", at.get(b)[1] + 0.5); line.setAttribute("y2", at.get(b)[2] + 0.5);
    svg.appendChild(line);
  }
  el.appendChild(svg);
  for (const [name, x, y] of geo.points) {
    const sq = square(name, false);
    sq.style.left = `${(x + 0.5) / w * 100}%`;
    sq.style.top = `${(y + 0.5) / h * 100}%`;
    sq.style.width = `${70 / w}%`;
    el.appendChild(sq);
  }
}

function clock(t) {
  // "10:42:03 (5 s ago)"
  if (!t) return "";
  const d = new Date(t * 1000);
  const ago = Math.max(0, Math.round(Date.now() / 1000 - t));
  const hms = d.toLocaleTimeString([], {hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23"});
  const span = ago < 60 ? `${ago} s` : ago < 7200 ? `${Math.round(ago / 60)} min`
    : `${Math.floor(ago / 3600)} h ${Math.round(ago % 3600 / 60)} min`;
  return `${hms} (${span} ago)`;
}

// A move read from the board's record (the hall started after it) has no
// time the hall knows: said so, not shown as made when the record came.
const NO_TIME = "time not known";
const NO_TIME_WHY = "time not known (read from the board's record: the hall started " +
  "after this move was made)";

function moveTime(t) {
  // the opened board's words: why the time is not known
  return t ? clock(t) : NO_TIME_WHY;
}

function lastMoveText(g) {
  // "25. d3xd4 · 10:42:03 (5 s ago)", or "" before the first move
  const last = g.turns[g.turns.length - 1];
  return last ? `${turnText(last)} · ${moveTime(g.times[g.moves.length - 1])}` : "";
}

function turnText(turn) {
  // a turn as the board page and the record write it: "4. @c5 @e5"
  return turn ? `${turn[0]}. ${turn[1].join(" ")}` : "";
}

function lastTurn(g) {
  // the squares to light: the last turn's (both placements of a setting
  // turn, a whole chain), still lit after a resignation
  const last = g.turns[g.turns.length - 1];
  return last ? last[1].join(" ") : g.moves[g.moves.length - 1];
}

const LINK_DOWN = "The hall's link to the broker is down: this is how the board was " +
  "when last heard.";
const PAGE_LOST = "hall page disconnected";  // this page's own link to the hall

function linkNote() {
  // what every card says while no board can be heard, or ""
  if (!linkDown()) return "";
  return link.error === PAGE_LOST ? "This page has lost the hall (it keeps trying): " +
    "this is how the board was when last heard." : LINK_DOWN;
}

function linkDown() {
  // the hall hears no board: every card is as it was (a board's last will
  // just before may be the broker's own shutdown, not the board's)
  return link !== null && !link.connected;
}

function setLink(next) {
  const was = linkDown();
  link = next;
  if (linkDown() !== was) Object.keys(boards).forEach((id) => dirty.add(id));
  later();
}

function silence(s) {
  // a board that went quiet (its last will, or restarting), in words
  // (and, when the hall saw it go, since when it is off: a board quiet
  // for ten minutes while its players think may have gone a minute ago)
  // (the same second twice is said once: "...; offline since then")
  if (s.online !== false) return "";
  const heard = clock(s.heard);
  const gone = clock(s.gone);
  const off = !gone ? "" : gone === heard ? "offline since then" : `offline since ${gone}`;
  const never = "Silent all the time this hall has run";
  if (!s.heard) return off ? `${never}; ${off}` : never;
  return `Not heard from since ${heard}` + (off ? `; ${off}` : "");
}

function variantText(s) {
  return (s.variant || "") + (s.options ? ` (${s.options})` : "");
}

function showNames(el, attacker, defender, turn) {
  // "Attacker – Defender", each name isolated in its own direction; the
  // side to move (while the game goes on) marked "▸" and in bold
  const text = `${attacker} – ${defender}`;
  const title = turn ? `${text}; ${turn === "attacker" ? attacker : defender} to move` : text;
  if (el.title === title) return;
  const a = document.createElement("bdi"), d = document.createElement("bdi");
  const dash = document.createElement("span");
  a.textContent = attacker;
  d.textContent = defender;
  dash.className = "dash";
  dash.textContent = "–";
  const names = [a, dash, d];
  if (turn === "attacker" || turn === "defender") {
    const mover = turn === "attacker" ? a : d;
    const mark = document.createElement("span");
    mark.className = "turn-mark";
    mark.textContent = "▸";
    mover.classList.add("turn");
    names.splice(names.indexOf(mover), 0, mark);
  }
  el.replaceChildren(...names);
  el.title = title;
}

function twinNote(s) {
  // two boards send under this id (a copied configuration): the card
  // follows one of them, and cannot tell which is which
  return s.twin ? `Two boards send as ${s.board}: give each its own board_id. ` +
    `This card shows one of them, not store ${s.twin.slice(0, 8)}.` : "";
}

function unknownVariant(s) {
  // a game of a variant these rules do not know (a board of a newer version)
  return s.known_variant === false
    ? `This hall does not know the variant “${s.variant}”: its moves are shown as the ` +
      "board sent them, unchecked, and the game is not in the download." : "";
}

function card(id) {
  let el = document.querySelector(`.card[data-board="${CSS.escape(id)}"]`);
  if (!el) {
    el = document.createElement("article");
    el.className = "card";
    el.dataset.board = id;
    el.innerHTML = '<h3><span class="name"></span><span class="result"></span></h3>' +
      '<div class="board"></div><div class="names"></div><div class="variant"></div>' +
      '<div class="when"></div><div class="silent"></div><div class="link-note"></div>' +
      '<div class="note"></div>';
    el.querySelector(".name").textContent = id;
    el.addEventListener("click", () => openBoard(id));
    const grid = $("#grid");
    const after = [...grid.children].find((c) => c.dataset.board > id);
    grid.insertBefore(el, after || null);
  }
  return el;
}

// The cards as large as the window lets every board show at once: a
// projector showing three boards shows them large, twenty boards share it
// (docs/broadcast.md). A card's height is its board's (a 37-point board is
// taller than wide) and its words' (at least TEXT pixels), as measured.
// Fitted again when a board comes or the window changes, not at each move
// (the words' height only grows: no card width flickering with a move).
const CARD_MIN = 170, CARD_MAX = 560, TEXT = 115;
let fitted = 0, ratio = 1, text = TEXT;

function measureCards(grid) {
  for (const el of grid.children) {
    const board = el.querySelector(".board");
    const width = el.getBoundingClientRect().width;
    if (!board || !width) continue;
    const b = board.getBoundingClientRect().height;
    let words = 12;  // the card's padding, border and margins
    for (const child of el.children) {
      if (child !== board) words += child.getBoundingClientRect().height;
    }
    ratio = Math.max(ratio, b / width);
    text = Math.max(text, words);
  }
}

function cardWidth(n, width, height, gap) {
  for (let cols = 1; cols <= n; cols++) {
    const w = Math.min(Math.floor((width - gap * (cols - 1)) / cols), CARD_MAX);
    if (w < CARD_MIN) break;
    const rows = Math.ceil(n / cols);
    if (rows * (w * ratio + text) + gap * (rows - 1) <= height) return w;
  }
  return CARD_MIN;
}

function fitCards() {
  const grid = $("#grid");
  const n = grid.children.length;
  if (!n) return;
  const gap = parseFloat(getComputedStyle(grid).columnGap) || 10;
  const pad = parseFloat(getComputedStyle(grid.parentElement).paddingTop) || 0;
  const height = window.innerHeight - $("header").offsetHeight - 2 * pad;
  measureCards(grid);
  fitted = n;
  const w = cardWidth(n, grid.clientWidth, height, gap);
  grid.style.gridTemplateColumns =
    `repeat(auto-fill, minmax(${w}px, ${w >= CARD_MAX ? w + "px" : "1fr"}))`;
}

function renderCard(id) {
  const s = boards[id];
  const g = games[id] || NO_GAME;
  const el = card(id);
  const down = linkDown();
  el.classList.toggle("offline", s.online === false || down);
  const n = g.moves.length;
  const position = n ? g.positions[n - 1] : s.position;
  el.dataset.ply = n;
  el.querySelector(".result").textContent = s.result || "";
  const last = g.turns[g.turns.length - 1];
  drawBoard(el.querySelector(".board"), position, lastTurn(g), s.geometry);
  showNames(el.querySelector(".names"), s.attacker || "Attacker", s.defender || "Defender",
            (s.result || s.ending) ? null : s.to_move);
  el.querySelector(".variant").textContent = variantText(s);
  // On a card (170 px at the narrowest) "time not known" in short, the
  // reason in its tooltip and in the opened board.
  const untimed = !s.ending && !!last && !g.times[n - 1];
  const when = el.querySelector(".when");
  when.textContent = s.ending || (last
    ? `${turnText(last)} · ${untimed ? NO_TIME : clock(g.times[n - 1])}` : "no move yet");
  if (untimed) when.title = NO_TIME_WHY; else when.removeAttribute("title");
  el.querySelector(".silent").textContent = down ? "" : silence(s);
  el.querySelector(".link-note").textContent = linkNote();
  el.querySelector(".note").textContent = [twinNote(s), unknownVariant(s)].filter(Boolean)
    .join(" ");
  el.classList.toggle("twin", !!s.twin);
}

// A player's name with the side they play ("Amel (Attacker)"); the side
// alone where the board gave no name or the side's own.
function player(name, side) {
  const n = (name || "").trim();
  if (!n || n.toLowerCase() === side.toLowerCase()) return side;
  // "Computer (1 s)": the side inside its brackets, not a second pair
  const inner = n.match(/^(.*\S) \(([^()]*)\)$/);
  return inner ? `${inner[1]} (${inner[2]}, ${side})` : `${n} (${side})`;
}

function renderLarge() {
  const box = $("#large");
  box.hidden = openId === null;
  if (openId === null) return;
  const s = boards[openId];
  const g = games[openId] || NO_GAME;
  const n = g.moves.length;
  $("#large-title").textContent = `${openId}, game ${s.game_id ?? ""}`;
  $("#large-variant").textContent = variantText(s);
  $("#large-players").textContent = `${player(s.attacker, "Attacker")} – ` +
    `${player(s.defender, "Defender")}` + (s.result ? `  ${s.result}` : "");
  drawBoard($("#large-board"), n ? g.positions[n - 1] : s.position, lastTurn(g), s.geometry);
  // A quiet board's last status ("Defender to move") may be stale: say so instead.
  const quiet = silence(s);
  const status = $("#large-status");
  status.textContent = linkDown() ? linkNote() : quiet ? `${quiet}: the board is off or ` +
    "restarting; this is how it was when last heard." : (s.ending || s.status || "");
  status.classList.toggle("silent", !!quiet || linkDown());
  $("#large-note").textContent = [twinNote(s), unknownVariant(s)].filter(Boolean).join(" ");
  const lastMove = lastMoveText(g);
  $("#large-when").textContent = lastMove && `Last move ${lastMove}`;
  renderMoves(g, s.ending);
}

function renderMoves(g, ending) {
  // One column of turns, kept scrolled to the newest unless the reader
  // scrolled up to read an earlier one.
  const list = $("#large-moves");
  const atEnd = list.dataset.board !== openId ||
    list.scrollTop + list.clientHeight >= list.scrollHeight - 8;
  list.dataset.board = openId;
  const rows = g.turns.map((t) => [t[0], t[1].join(" "), ""]);
  if (ending) rows.push([null, ending, "end"]);
  while (list.children.length > rows.length) list.lastChild.remove();
  rows.forEach(([num, text, cls], i) => {
    const li = list.children[i] || list.appendChild(document.createElement("li"));
    if (num !== null) li.value = num;
    if (li.textContent !== text) li.textContent = text;
    li.className = cls;
  });
  if (atEnd) list.scrollTop = list.scrollHeight;
}

function renderHeader() {
  const el = $("#link");
  if (link) {
    // since when the link is down: "for how long have we seen nothing?"
    const since = link.since ? ` since ${clock(link.since)}` : "";
    el.textContent = link.connected ? `broker ${link.url}: connected`
      : link.error === PAGE_LOST ? `the hall does not answer this page${since}: reconnecting…`
      : `broker ${link.url}: not connected${since}${link.error ? ": " + link.error : ""}`;
    el.className = "link " + (link.connected ? "up" : "down");
  }
  if (stats) {
    const moves = Object.values(games).reduce((a, g) => a + g.moves.length, 0);
    const n = (count, what) => `${count} ${what}${count === 1 ? "" : "s"}`;
    $("#counts").textContent = `${n(stats.boards, "board")} · ${n(moves, "move")} shown · ` +
      `${n(stats.ignored, "message")} ignored`;
  }
  $("#empty").hidden = Object.keys(boards).length > 0;
}

function safely(what, draw) {
  // One board that cannot be drawn must not stop the others.
  try { draw(); } catch (err) { console.error(`hall: ${what}:`, err); }
}

function render() {
  frame = 0;
  const ids = [...dirty];
  dirty.clear();
  for (const id of ids) safely(id, () => renderCard(id));
  if (openId !== null && ids.includes(openId)) safely(openId, renderLarge);
  renderHeader();
  if ($("#grid").children.length !== fitted) safely("cards", fitCards);
}

function later(id) {
  if (id !== undefined) dirty.add(id);
  if (!frame) frame = requestAnimationFrame(render);
}

async function refetch(id) {
  // the page missed a step: take the board whole
  const r = await fetch(`/api/boards/${encodeURIComponent(id)}`);
  if (!r.ok) return;
  const d = await r.json();
  games[id] = {game_id: d.game_id, moves: d.moves, positions: d.positions, times: d.times,
               turns: d.turns};
  boards[id] = Object.assign(boards[id] || {}, d);
  later(id);
}

function apply(update) {
  for (const s of update.boards) { boards[s.board] = s; later(s.board); }
  for (const [id, m] of Object.entries(update.moves || {})) {
    let g = games[id];
    if (!g || g.game_id !== m.game_id) {
      if (m.from !== 0 || m.turns_from !== 0) { refetch(id); continue; }
      g = games[id] = {game_id: m.game_id, moves: [], positions: [], times: [], turns: []};
    }
    if (m.from > g.moves.length || m.turns_from > g.turns.length) { refetch(id); continue; }
    g.moves = g.moves.slice(0, m.from).concat(m.moves);
    g.positions = g.positions.slice(0, m.from).concat(m.positions);
    g.times = g.times.slice(0, m.from).concat(m.times);
    g.turns = g.turns.slice(0, m.turns_from).concat(m.turns);
  }
  if (update.link) setLink(update.link);
  if (update.stats) stats = update.stats;
  later();
}

function openBoard(id) {
  openId = id;
  dirty.add(id);
  later();
  renderLarge();
}

// For tests and scripts: the moves the page shows for a board.
window.hallMoves = (id) => (games[id] ? games[id].moves.slice() : []);
window.hallTurns = (id) => (games[id] ? games[id].turns.map(turnText) : []);

function connect() {
  const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
  ws.onmessage = (e) => apply(JSON.parse(e.data));
  ws.onclose = () => {
    const lost = link && link.error === PAGE_LOST ? link.since : Date.now() / 1000;
    setLink({url: link ? link.url : "", connected: false, error: PAGE_LOST, since: lost});
    setTimeout(connect, 1000);
  };
}

window.addEventListener("resize", () => safely("cards", fitCards));
$("#close").addEventListener("click", () => { openId = null; renderLarge(); });
document.addEventListener("keydown", (e) => { if (e.key === "Escape") { openId = null; renderLarge(); } });
setInterval(() => { Object.keys(boards).forEach((id) => later(id)); later(); }, 5000);  // the "ago" clocks
connect();
