// The board page: draws the live state, sends clicks on the simulated board,
// the on-screen buttons, new games; shows the archive.
"use strict";

let state = null;
let pending = 0;  // clicks on the simulated board not yet answered

function accept(next) {
  // While clicks are in flight the page's own idea of the board wins.
  if (pending > 0 && state && state.sim_occ !== null) next.sim_occ = state.sim_occ;
  if (!state || next.version === undefined || next.version >= state.version) state = next;
  render();
}

const $ = (sel) => document.querySelector(sel);

function squareName(i, size) {
  return String.fromCharCode(97 + (i % size)) + (Math.floor(i / size) + 1);
}

function parsePosition(position, size) {
  // ranks from the top down, '/' separated: returns {square index: "A"|"D"}
  const board = {};
  const ranks = position.split(" ")[0].split("/");
  ranks.forEach((rank, r) => {
    [...rank].forEach((ch, f) => {
      const i = (size - 1 - r) * size + f;
      if (ch === "A" || ch === "D") board[i] = ch;
    });
  });
  return board;
}

function drawBoard(el, size, pieces, occ, leds, clickable) {
  el.innerHTML = "";
  el.style.gridTemplateColumns = `repeat(${size}, 1fr)`;
  el.classList.toggle("sim", clickable);
  const centre = Math.floor(size * size / 2);
  const flipped = localStorage.getItem("flipped") === "1";
  for (let r = size - 1; r >= 0; r--) {
    for (let c = 0; c < size; c++) {
      const row = flipped ? size - 1 - r : r;
      const col = flipped ? size - 1 - c : c;
      const i = row * size + col;
      const name = squareName(i, size);
      const sq = document.createElement("div");
      sq.className = "sq";
      sq.dataset.square = name;
      if (i === centre) sq.classList.add("malha");
      const role = leds && leds[name];
      if (role) { sq.classList.add("led-" + role); sq.dataset.led = role; }
      const label = document.createElement("span");
      label.className = "label";
      label.textContent = name;
      sq.appendChild(label);
      const here = occ ? occ[i] === "1" : pieces[i] !== undefined;
      if (here) {
        const p = document.createElement("div");
        const kind = pieces[i] === "A" ? "attacker" : pieces[i] === "D" ? "defender" : "unknown";
        p.className = "piece " + kind;
        sq.appendChild(p);
      }
      if (clickable) sq.addEventListener("click", () => toggle(i));
      el.appendChild(sq);
    }
  }
}

// A camera board: its picture with the readings, refreshed twice a second.
function refreshCamera() {
  const img = new Image();
  img.onload = () => { $("#camera-img").src = img.src; setTimeout(refreshCamera, 500); };
  img.onerror = () => setTimeout(refreshCamera, 2000);
  img.src = "/api/camera.jpg?t=" + Date.now();
}

function render() {
  if (!state) return;
  const size = state.size;
  const pieces = parsePosition(state.position, size);
  // A piece lifted off the simulated board keeps its colour in memory.
  const occ = state.sim_occ;
  drawBoard($("#board"), size, pieces, occ, state.leds, occ !== null);
  $("#sim-help").hidden = occ === null;
  const camera = typeof state.board === "string" && state.board.startsWith("camera:");
  if (camera && $("#camera").hidden) {
    $("#camera").hidden = false;
    refreshCamera();
  }
  $("#status").textContent = state.status;
  $("#name-attacker").textContent = state.players.attacker;
  $("#name-defender").textContent = state.players.defender;
  $("#count-attacker").textContent = state.counts.attacker;
  $("#count-defender").textContent = state.counts.defender;
  $("#turn").textContent = state.outcome ? state.outcome.result : state.to_move + " to play";
  const sel = document.querySelector("#computer select");
  if (sel && document.activeElement !== sel) sel.value = state.computer || "";
  const list = $("#moves");
  list.innerHTML = "";
  for (const m of state.moves) {
    const li = document.createElement("li");
    li.textContent = m;
    list.appendChild(li);
  }
}

async function api(path, body) {
  const options = body === undefined ? {} : {
    method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body),
  };
  const response = await fetch(path, options);
  const data = await response.json();
  const err = $("#error");
  if (!response.ok) {
    err.textContent = data.error || "request refused";
    err.hidden = false;
    throw new Error(data.error);
  }
  err.hidden = true;
  return data;
}

async function toggle(i) {
  if (!state || state.sim_occ === null) return;
  const occ = [...state.sim_occ];
  occ[i] = occ[i] === "1" ? "0" : "1";
  state.sim_occ = occ.join("");
  render();
  pending += 1;
  try {
    const next = await api("/api/sim/occupancy", {occ: state.sim_occ});
    pending -= 1;
    accept(next);
  } catch (e) {
    pending -= 1;
  }
}

function connect() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${proto}//${location.host}/ws`);
  ws.onopen = () => { $("#conn").textContent = "live"; };
  ws.onmessage = (ev) => {
    accept(JSON.parse(ev.data));
    loadGames();
  };
  ws.onclose = () => {
    $("#conn").textContent = "reconnecting…";
    setTimeout(connect, 1000);
  };
}

let gamesShown = "";
async function loadGames() {
  const games = await api("/api/games");
  const key = JSON.stringify(games);
  if (key === gamesShown) return;
  gamesShown = key;
  const body = $("#games tbody");
  body.innerHTML = "";
  for (const g of games) {
    const tr = document.createElement("tr");
    tr.innerHTML = `<td>#${g.id}</td><td>${g.variant}</td><td></td><td>${g.result}</td>` +
      `<td><a href="/api/games/${g.id}.kgn">record</a></td><td><button>view</button></td>`;
    tr.children[2].textContent = `${g.attacker} – ${g.defender}`;
    tr.querySelector("button").addEventListener("click", () => view(g.id));
    body.appendChild(tr);
  }
}

async function view(id) {
  const g = await api(`/api/games/${id}`);
  const size = g.variant === "sabouiyya" ? 5 : 7;
  let ply = g.positions.length - 1;
  const show = () => {
    drawBoard($("#viewer-board"), size, parsePosition(g.positions[ply], size), null, {}, false);
    $("#v-ply").textContent = `${ply} / ${g.positions.length - 1}` + (ply ? ` ${g.actions[ply - 1]}` : "");
  };
  $("#viewer").hidden = false;
  $("#viewer-title").textContent = `Game #${g.id}: ${g.attacker} – ${g.defender} (${g.result})`;
  $("#v-first").onclick = () => { ply = 0; show(); };
  $("#v-prev").onclick = () => { ply = Math.max(0, ply - 1); show(); };
  $("#v-next").onclick = () => { ply = Math.min(g.positions.length - 1, ply + 1); show(); };
  $("#v-last").onclick = () => { ply = g.positions.length - 1; show(); };
  show();
}

let drawOffer = null;
for (const b of document.querySelectorAll("[data-button]")) {
  b.addEventListener("click", async () => {
    let side = state ? state.to_move : undefined;
    if (b.dataset.button === "draw") {
      // On screen both players share the button: an offer, then the answer.
      side = drawOffer && drawOffer === side ? (side === "attacker" ? "defender" : "attacker") : side;
      drawOffer = side;
    }
    accept(await api("/api/button", {button: b.dataset.button, side}));
  });
}

$("#new-game").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const form = new FormData(ev.target);
  accept(await api("/api/new", Object.fromEntries(form.entries())));
  loadGames();
});

$("#computer").addEventListener("change", async (ev) => {
  const form = new FormData(ev.currentTarget);
  const side = form.get("side") || null;
  accept(await api("/api/computer", {side, seconds: Number(form.get("seconds"))}));
});

const flip = $("#flip");
flip.checked = localStorage.getItem("flipped") === "1";
flip.addEventListener("change", () => {
  localStorage.setItem("flipped", flip.checked ? "1" : "0");
  render();
});

api("/api/state").then(accept);
loadGames();
connect();
