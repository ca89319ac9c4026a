// The board page: draws the live state, sends clicks on the simulated board,
// the on-screen buttons, new games; shows the archive and the lights' legend.
//
// The page always shows the service's truth: a click is drawn at once, but
// if the service refuses it (or cannot be reached) the board goes back to
// the last state the service sent, and the reason is shown.
"use strict";

let state = null;      // the last state the service sent
let clicks = [];       // simulated-board clicks not yet answered: {i, value, setup}
const pointSent = new Map();  // point index -> its last click's request, answered or not
// A click the service has not answered in this time is given up (so the
// clicks after it on the same point are not held up by a lost request).
const CLICK_TIMEOUT = 10000;
let legendRoles = {};  // role -> {colour, blink, meaning}
let legendShown = null;  // the looks the legend lists now, joined
let shownVariant = null;  // the variant the new-game form was last set to
let ponderSent = null;  // the thinking box's click on its way to the service

const $ = (sel) => document.querySelector(sel);
const TITLE = (side) => side ? side[0].toUpperCase() + side.slice(1) : "";
const OTHER = (side) => side === "attacker" ? "defender" : "attacker";
// A turn of steps (a placement, a removal, a pass or H'ajeb is none).
const isStep = (token) => /^[a-z]\d/.test(token || "");

// -- the token (a service open to the network) ---------------------------

function takeTokenFromAddress() {
  // The service prints an address with ?token=...: keep it, then drop it
  // from the address bar (it is not shown nor sent to other sites).
  const url = new URL(location.href);
  const token = url.searchParams.get("token");
  if (token) {
    localStorage.setItem("kharbga-token", token);
    url.searchParams.delete("token");
    history.replaceState(null, "", url.pathname + url.search + url.hash);
  }
}

function tokenHeaders() {
  const token = localStorage.getItem("kharbga-token");
  return token ? {"Authorization": "Bearer " + token} : {};
}

function askForToken(message) {
  $("#token-why").textContent = message;
  $("#token-form").hidden = false;
}

$("#token-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const value = $("#token-input").value.trim();
  if (value) localStorage.setItem("kharbga-token", value);
  $("#token-form").hidden = true;
  showError("");
});

// -- talking to the service ----------------------------------------------

let unreachable = false;  // the error shown is the service not reached
function showError(message, lost = false) {
  const err = $("#error");
  err.textContent = message;
  err.hidden = !message;
  unreachable = lost;
}

async function api(path, body, timeout) {
  const options = body === undefined ? {headers: tokenHeaders()} : {
    method: "POST",
    headers: {"Content-Type": "application/json", ...tokenHeaders()},
    body: JSON.stringify(body),
  };
  let response;
  // A request given a timeout (ms) that the service never answers (a
  // dropped Wi-Fi link) is given up then.
  const abort = new AbortController();
  const timer = timeout ? setTimeout(() => abort.abort(), timeout) : null;
  try {
    response = await fetch(path, {...options, signal: abort.signal});
  } catch (e) {
    clearTimeout(timer);
    const message = abort.signal.aborted ?
      `The board service did not answer within ${timeout / 1000} s. ` +
      "The board shows what the service holds now." :
      "The board service cannot be reached: nothing was changed. " +
      "The board shows the last state it sent.";
    if (body !== undefined) showError(message, !abort.signal.aborted);
    throw new Error(message);
  }
  let data = null;
  try { data = await response.json(); } catch (e) { data = null; }
  clearTimeout(timer);
  if (!response.ok) {
    const message = (data && data.error) || `refused (HTTP ${response.status})`;
    if (body !== undefined) showError("Refused: " + message);
    if (response.status === 401) askForToken(message);
    const refused = new Error(message);
    refused.refused = true;  // the service said no (not: could not be reached)
    throw refused;
  }
  if (body !== undefined) showError("");
  return data;
}

function accept(next, force) {
  // A new start of the service (its own identity) resets the versions.
  const restarted = !state || next.server !== state.server;
  if (force || restarted || next.version === undefined || next.version >= state.version) {
    state = next;
  }
  if (restarted) gamesShown = "";
  render();
}

async function resync() {
  // After a refusal or a lost connection: what the service holds now.
  try { accept(await api("/api/state"), true); } catch (e) { render(); }
}

// -- drawing ---------------------------------------------------------------

// The Defender's side at the bottom: as the player chose on this browser;
// until they choose, when the computer plays the Attacker (the person
// plays the Defender from that side of the board).
function isFlipped() {
  const chosen = localStorage.getItem("flipped");
  const flipped = chosen === null ? !!state && state.computer === "attacker" : chosen === "1";
  const box = document.getElementById("flip");
  if (box) box.checked = flipped;
  return flipped;
}

// The board comes from the service as points with their place in a grid
// (x the file, y the row from the top), the lines joining them (boards of
// points and lines), its dark squares (draughts) and its centre (malha).

function positionPieces(position, geo) {
  // The position's rows run from the top, left to right, over every point:
  // returns {point name: "A" | "D" | "a" | "d"} (lowercase: a king).
  const order = [...geo.points].sort((p, q) => p[2] - q[2] || p[1] - q[1]);
  const cells = [...position.split(" ")[0].replace(/\//g, "")];
  const board = {};
  order.forEach((p, k) => {
    if ("ADad".includes(cells[k] || ".")) board[p[0]] = cells[k];
  });
  return board;
}

function paintLight(sq, role) {
  sq.classList.add("lit", "led-" + role);
  sq.dataset.led = role;
  const style = legendRoles[role];
  if (style) {
    sq.style.setProperty("--led", style.colour);
    if (style.blink > 0) {
      sq.classList.add("blink");
      sq.style.setProperty("--period", style.blink + "s");
    }
    sq.title = `${sq.dataset.square}: ${meaning(role)}`;
  }
}

function drawPoint(name, geo, dark, pieces, present, leds, hint) {
  const sq = document.createElement("div");
  sq.className = "sq";
  sq.dataset.square = name;
  if (name === geo.centre) {
    sq.classList.add("malha");
    sq.title = `${name}: ${MALHA}`;
  }
  if (dark.has(name)) sq.classList.add("dark");
  const role = leds && leds[name];
  if (role) paintLight(sq, role);
  const label = document.createElement("span");
  label.className = "label";
  label.textContent = name;
  sq.appendChild(label);
  if (hint && role === "hint" && (hint.from === name || hint.to === name)) {
    const end = hint.from === name ? "from" : "to";
    sq.dataset.hint = end;
    // The hint's end shows the hint-to colour, as the board's LEDs do.
    const toStyle = legendRoles["hint-to"];
    if (end === "to" && hint.from && toStyle) sq.style.setProperty("--led", toStyle.colour);
    // Its words on hover, as the list of lit squares says them.
    const whose = hintWhose();
    sq.title = `${name}: ${!hint.from ? oneSquareWords(whose, pieces[name])
      : `${whose} ${end === "from" ? "starts" : "ends"} here`}`
      + (name === geo.centre ? ` (${MALHA})` : "");
    const tag = document.createElement("span");
    tag.className = "tag";
    // A soldier to take off (a huff, a removal) is not where a move goes.
    tag.textContent = end === "to" && !hint.from && pieces[name] ? "off" : end;
    sq.appendChild(tag);
  }
  if (present) {
    const p = document.createElement("div");
    const ch = pieces[name];
    const kind = ch === "A" || ch === "a" ? "attacker" : ch === "D" || ch === "d" ? "defender"
      : "unknown";
    p.className = "piece " + kind;
    if (ch === "a" || ch === "d") {
      // A king: a crowned soldier (a captured one stacked on the man).
      p.classList.add("king");
      p.textContent = "♛";
      p.title = `${TITLE(kind)}'s king`;
      sq.dataset.king = kind;
    }
    sq.appendChild(p);
  }
  return sq;
}

function drawBoard(el, geo, pieces, occ, leds, clickable, hint) {
  el.innerHTML = "";
  el.classList.toggle("sim", clickable);
  el.classList.toggle("points", geo.kind === "points");
  el.classList.toggle("grid", geo.kind !== "points");
  el.classList.toggle("draughts", geo.dark.length > 0);
  el.dataset.geometry = geo.name;
  const flipped = isFlipped();
  const w = geo.width, h = geo.height;
  const place = (p) => flipped ? [w - 1 - p[1], h - 1 - p[2]] : [p[1], p[2]];
  const dark = new Set(geo.dark);
  const point = (p, i) => {
    const present = occ ? occ[i] === "1" : pieces[p[0]] !== undefined;
    const sq = drawPoint(p[0], geo, dark, pieces, present, leds, hint);
    if (clickable) sq.dataset.index = i;  // a click on it: see takeClicks
    return sq;
  };
  if (geo.kind !== "points") {
    // Equal tracks whatever a square holds (a king's crown, as text, once
    // made its row taller than the others, and the king an oval in it).
    el.style.gridTemplateColumns = `repeat(${w}, minmax(0, 1fr))`;
    el.style.gridTemplateRows = `repeat(${h}, minmax(0, 1fr))`;
    el.style.width = "";
    el.style.aspectRatio = `${w} / ${h}`;
    const at = new Map(geo.points.map((p, i) => [place(p).join(","), i]));
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const i = at.get(`${x},${y}`);
        el.appendChild(i === undefined ? document.createElement("div")
          : point(geo.points[i], i));
      }
    }
    return;
  }
  // A board of points and lines: the lines drawn under the points.
  el.style.gridTemplateColumns = el.style.gridTemplateRows = "";
  el.style.aspectRatio = `${w} / ${h}`;
  el.style.width = `min(100%, ${(el.classList.contains("small") ? 45 : 68) * w / h}vh)`;
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.setAttribute("preserveAspectRatio", "none");
  svg.classList.add("lines");
  const where = new Map(geo.points.map((p) => [p[0], place(p)]));
  for (const [a, b] of geo.lines) {
    const line = document.createElementNS(ns, "line");
    const [x1, y1] = where.get(a), [x2, y2] = where.get(b);
    line.setAttribute("x1", x1 + 0.5); line.setAttribute("y1", y1 + 0.5);
    line.setAttribute("x2", x2 + 0.5); line.setAttribute("y2", y2 + 0.5);
    svg.appendChild(line);
  }
  el.appendChild(svg);
  geo.points.forEach((p, i) => {
    const sq = point(p, i);
    const [x, y] = place(p);
    sq.classList.add("pt");
    sq.style.left = `${(x + 0.5) / w * 100}%`;
    sq.style.top = `${(y + 0.5) / h * 100}%`;
    sq.style.width = `${68 / w}%`;
    el.appendChild(sq);
  });
}

// The lights lit now, in words: why each is on (the status says what to do).
// The computer's move, lit for the person to make, is its own, not a suggestion.
// Its reply to a stop is lit in the person's optional chain: made, it stops the chain.
const COMPUTERS_MOVE = "the computer's move";
const COMPUTERS_REPLY = "the computer's reply, should you stop the chain,";
function hintWhose() {
  if (state.expected && state.computer && state.computer === state.to_move) return COMPUTERS_MOVE;
  return state.after_pass ? COMPUTERS_REPLY : "the suggested move";
}

// A move of one square (a placement, a huff, a removal) does not start
// there: it is said what to do there.
function oneSquareWords(whose, soldier) {
  return soldier ? `${whose}: take this soldier off` : `${whose}: set a soldier here`;
}

// Points in the order the status line names them (the board's own order:
// the first player's nearest row first, left to right), not by name.
function byPoint(names, geo = state.geometry) {
  const index = new Map(geo.points.map((p, k) => [p[0], k]));
  return [...names].sort((a, b) => index.get(a) - index.get(b));
}

function renderLit(leds, hint, hajeb, pieces) {
  const byRole = {};
  // The soldiers to remove at the end of H'ajeb are told apart (their own reason).
  const removals = new Set(hajeb ? hajeb.removals : []);
  for (const [name, role] of Object.entries(leds || {})) {
    if (removals.has(name) && role === "capture") continue;
    // A hint's end square shows the hint-to look (its role stays hint).
    const look = role === "hint" && hint && hint.from && hint.to === name ? "hint-to" : role;
    (byRole[look] ||= []).push(name);
  }
  // A hint lit on the chain's soldier covers its own light: its reason stays listed.
  if (state.chain && leds && leds[state.chain] === "hint") {
    (byRole.continue ||= []).push(state.chain);
  }
  const list = $("#lit");
  list.innerHTML = "";
  const whose = hintWhose();
  const computers = whose === COMPUTERS_MOVE || whose === COMPUTERS_REPLY;
  const single = hint && !hint.from && hint.to && (byRole.hint || []).includes(hint.to);
  const one = single && oneSquareWords(whose, pieces[hint.to]);
  const words = (r) => (one && r === "hint" ? one
    : computers && r === "hint" ? `${whose} starts here`
    : computers && r === "hint-to" ? `${whose} ends here`
    // Against the computer a chain stops with its reply, not a pass of one's own.
    : r === "continue" && state.after_pass
      ? "this soldier may capture again, or stop there: make the computer's lit reply"
      : meaning(r));
  for (const r of Object.keys(legendRoles)) {
    if (!byRole[r]) continue;
    const li = document.createElement("li");
    li.dataset.role = r;
    const swatch = document.createElement("span");
    swatch.className = "swatch";
    swatch.style.setProperty("--led", legendRoles[r].colour);
    const text = document.createElement("span");
    const names = byPoint(byRole[r]);
    // Several squares lit alike: "put these squares right", "remove these pieces".
    const said = names.length > 1 ? words(r).replace(/\bthis (square|point|piece)\b/g, "these $1s")
      : words(r);
    text.textContent = `${names.join(", ")}: ${said}`;
    li.append(swatch, text);
    list.appendChild(li);
  }
  if (removals.size && legendRoles.capture) {
    const li = document.createElement("li");
    li.dataset.role = "hajeb-removal";
    const swatch = document.createElement("span");
    swatch.className = "swatch";
    swatch.style.setProperty("--led", legendRoles.capture.colour);
    const text = document.createElement("span");
    text.textContent = `${byPoint(removals).join(", ")}: H'ajeb is over: the ` +
      `${TITLE(state.to_move)} removes one of these`;
    li.append(swatch, text);
    list.appendChild(li);
  }
  list.hidden = !list.children.length;
}

// -- the engine's thinking (it ponders on the person's time) -------------------

const WON = 90000;
const signed = (x) => (x > 0 ? "+" : x < 0 ? "\u2212" : "") + Math.abs(x).toFixed(1);

function evalShare(t) {
  // The Attacker's share of the bar: half when even, towards all as it gains.
  if (Math.abs(t.score) >= WON) return t.score > 0 ? 100 : 0;
  return 50 + 50 * Math.tanh(t.pieces / 3);
}

function renderThinking() {
  const box = $("#ponder");
  // A click not yet answered stands: the states sent meanwhile (several a
  // second while the engine thinks) would tick the box back.
  box.checked = ponderSent !== null ? ponderSent : !!state.ponder;
  const show = !!state.ponder && !state.outcome;
  const bar = $("#evalbar"), t = state.thought;
  bar.hidden = !show;
  $("#thinking").hidden = !show;
  if (!show) return;
  bar.classList.toggle("flipped", isFlipped());
  bar.classList.toggle("idle", !t);
  // A square lit as an error: the board is not in the recorded position,
  // for which the bar and the line were worked out; they are greyed and
  // say so, so that no one plays from them on the board as it stands.
  const astray = !!t && Object.values(state.leds || {}).includes("error");
  bar.classList.toggle("astray", astray);
  $("#thinking").classList.toggle("astray", astray);
  $("#eval-astray").hidden = !astray;
  const fill = bar.querySelector(".fill"), num = bar.querySelector(".num");
  const line = $("#eval-line");
  line.textContent = "";
  if (!t) {
    fill.style.height = "50%";
    num.textContent = "";
    bar.title = "";
    $("#eval-words").textContent = state.computer && state.computer === state.to_move
      ? (state.expected ? (state.waiting_clear
        ? `The computer plays ${state.expected}: make it once the board is cleared`
        : `The computer plays ${state.expected}: make it on the board`)
        : state.engine_gave_up ? "The engine gave no move: make the computer's by hand"
          : "The computer is thinking…")
      : "The engine is thinking…";
    $("#eval-depth").textContent = "";
    return;
  }
  const won = Math.abs(t.score) >= WON;
  fill.style.height = evalShare(t) + "%";
  num.textContent = won ? `${t.score > 0 ? "Attacker" : "Defender"} wins` : signed(t.pieces);
  // The score is the engine's judgement of the position, in soldiers'
  // worth: not the count of soldiers on the board (both 24 may be +5).
  bar.title = `${t.words}${won ? "" : ` (${signed(t.pieces)}: the engine's judgement for the `
    + "Attacker, in soldiers' worth, of the position as a whole, not a count of soldiers)"}`;
  bar.setAttribute("aria-valuenow", String(t.pieces));
  // In words with its unit, for a phone that shows no hover title: the
  // bar's signed number is the Attacker's, so the Defender's lead is minus.
  const by = Math.abs(t.pieces).toFixed(1);
  $("#eval-words").textContent = won || by === "0.0" ? t.words
    : `${t.words} by ${by} soldier${by === "1.0" ? "'s" : "s'"} worth (${signed(t.pieces)} on the bar)`;
  const cores = t.threads > 1 ? ` on ${t.threads} cores` : "";
  $("#eval-depth").textContent =
    `depth ${t.depth}, ${t.seconds} s${cores}${t.done ? "" : ", still thinking"}`;
  const turns = lineTurns();
  // The first turn is the side to move's: in its colour. Each turn as the
  // move list writes it (a chain one token), so the sides alternate.
  line.classList.toggle("defender", state.to_move === "defender");
  line.append("Best line: ");
  const sides = t.sides || [];
  turns.forEach((m, i) => {
    const el = document.createElement(i === 0 ? "b" : "span");
    el.textContent = m;
    if (i > 0 && sides[i] && sides[i] === sides[i - 1] && isStep(m) && isStep(turns[i - 1])) {
      el.append(againTag(sides[i]));
    }
    line.append(el, i < turns.length - 1 ? " · " : "");
  });
  if ((t.turns || t.line).length > turns.length) line.append(" …");
}

// -- H'ajeb (sabouiyya's option): the Defender's button and what it allows -----

function renderHajeb() {
  const h = state.hajeb, button = $("#hajeb"), info = $("#hajeb-info");
  button.hidden = !h;
  info.hidden = !h;
  if (!h) return;
  button.textContent = h.action === "rescind" ? "Rescind H'ajeb" : "Declare H'ajeb";
  button.disabled = !!h.refusal;
  button.title = h.refusal ? `Not now: ${h.refusal}` : "for the Defender";
  let text;
  if (h.state === "end" && h.reason) {
    text = h.reason;
  } else if (h.state === "on") {
    text = `H'ajeb in force: ${h.allows}.`;
    if (h.refusal) text += ` (Rescinding is not possible now: ${h.refusal}.)`;
  } else if (h.refusal) {
    text = `H'ajeb cannot be declared now: ${h.refusal}.`;
  } else {
    text = "The Defender may declare H'ajeb now: its soldiers hold a blockade " +
      "that cannot be taken.";
  }
  info.textContent = text;
  info.dataset.state = h.state;
  info.classList.toggle("refused", h.state === "off" && !!h.refusal);
  info.classList.toggle("ending", h.state === "end");
}

// A camera board: its picture with the readings, refreshed twice a second.
function refreshCamera() {
  const img = new Image();
  img.onload = () => { $("#camera-img").src = img.src; setTimeout(refreshCamera, 500); };
  img.onerror = () => setTimeout(refreshCamera, 2000);
  img.src = "/api/camera.jpg?t=" + Date.now();
}

function outcomeText(o) {
  const who = o.winner ? `${TITLE(o.winner)} wins` : "Draw";
  return `${who}: ${o.words || o.reason}`;
}

// The notation of the moves listed, in words: each kind of move that
// appears, once, with its first example from this game.
const NOTATION = [
  [(t) => /^@/.test(t), (t) => `a soldier set on ${t.slice(1)}`],
  // A removal: a huff in the leap games; in the Kharbga family a blocked
  // side's own soldier (the "remove" rule) or one of H'ajeb's end.
  [(t) => /^x[a-z]/.test(t), (t) => `the soldier on ${t.slice(1)} removed`
    + (state.rules === "leap" ? " (huffed)" : " (as the rules ask: not a capture)")],
  [(t) => /^[a-z]\d+-[a-z]\d+=?$/.test(t), (t) => `a step from ${t.slice(0, t.indexOf("-"))}`
    + ` to ${t.replace("=", "").slice(t.indexOf("-") + 1)}`],
  [(t) => /^[a-z]\d+x[a-z]\d+=?$/.test(t), (t) => `a capture: the soldier on `
    + `${t.slice(0, t.indexOf("x"))} goes to ${t.replace("=", "").slice(t.indexOf("x") + 1)}`],
  [(t) => /^[a-z]\d+(x[a-z]\d+){2,}/.test(t), () => "a chain: one soldier capturing again"],
  [(t) => /=$/.test(t), () => "a step with the exchange flag raised (two for one:"
    + " the Defender asks or takes, the Attacker accepts or offers)"],
  [(t) => t === "pass", () => "the chain stopped"],
  [(t) => t === "hajeb", () => "the Defender declares H'ajeb"],
  [(t) => t === "rescind", () => "the Defender rescinds H'ajeb"],
];

function renderMoves() {
  const list = $("#moves");
  list.innerHTML = "";
  let before = null;
  for (const [n, tokens, side] of state.turns || []) {
    const li = document.createElement("li");
    li.value = n;
    li.dataset.side = side;
    li.textContent = tokens.join(" ");
    // Two moves of one side in a row: the other side was blocked (kharbga).
    const move = isStep(tokens[0]) ? side : null;
    if (move && move === before) li.append(againTag(side));
    list.appendChild(li);
    before = move;
  }
  // An empty list says so: the key under it (a best line's moves, explained
  // before any is played) is not read as moves made.
  $("#no-moves").hidden = !!list.children.length;
}

// A turn after one of the same side's: said, so the list is not read as
// the sides' alternate moves.
function againTag(side) {
  const tag = document.createElement("span");
  tag.className = "again";
  tag.textContent = ` (${TITLE(side)} again: the ${TITLE(OTHER(side))} is blocked)`;
  return tag;
}

// The moves of the engine's best line shown under the board (none when the
// thinking is off or not yet in).
function lineTurns() {
  const t = state.thought;
  return state.ponder && !state.outcome && t ? (t.turns || t.line).slice(0, 8) : [];
}

// Those turns' tokens (a setting turn holds two), for the key.
function lineShown() {
  return lineTurns().flatMap((turn) => turn.split(" "));
}

// The key under the moves: every kind of move the page shows in notation
// now, the list's, the best line's, the hint's and the computer's move to
// make, so a line read before such a move was played is explained too.
function renderKey() {
  const shown = (state.turns || []).flatMap(([, tokens]) => tokens)
    .concat(state.hint_move ? [state.hint_move] : [], state.expected ? [state.expected] : [],
            state.after_pass ? [state.after_pass] : [],
            lineShown());
  const key = fillKey($("#notation"), shown);
  $("#notation-title").hidden = key.hidden;
  // The same key for the best line alone, folded under it: its `xc6` or
  // `b5-c5=` explained where it is read (the fold-out keeps its open state).
  const lineKey = fillKey($("#eval-key-list"), lineShown());
  $("#eval-key").hidden = lineKey.hidden;
}

// Each kind of move among ``tokens`` said in words in ``key``, once, with
// its first example, in the order of NOTATION; hidden when there is none.
// A step or capture is shown by one without the exchange flag where there
// is one: a flagged move is the example of the flag's own line.
function fillKey(key, tokens) {
  key.innerHTML = "";
  const seen = new Set();
  const flagged = (t) => t.endsWith("=");
  for (const t of [...tokens.filter((t) => !flagged(t)), ...tokens.filter(flagged)]) {
    NOTATION.forEach(([is, words], kind) => {
      if (seen.has(kind) || !is(t)) return;
      seen.add(kind);
      const item = document.createElement("li");
      item.dataset.kind = String(kind);
      const code = document.createElement("code");
      code.textContent = t;
      item.append(code, `: ${words(t)}`);
      key.appendChild(item);
    });
  }
  // In the order of the table, not of the game: placements, then steps, captures...
  [...key.children].sort((a, b) => a.dataset.kind - b.dataset.kind)
    .forEach((item) => key.appendChild(item));
  key.hidden = !key.children.length;
  return key;
}

function renderOffer() {
  const offer = state.draw_offer;
  $("#draw-offer").hidden = !offer;
  if (offer) {
    $("#draw-offer-text").textContent = `${TITLE(offer)} offers a draw.`;
    $("#draw-accept").textContent = `${TITLE(OTHER(offer))} accepts`;
    $("#draw-decline").textContent = `${TITLE(OTHER(offer))} declines`;
  }
}

// Why the board is not being read (a camera with no picture, the board's
// link down): the moves made meanwhile are read once it is back.
function renderSensor() {
  const el = $("#sensor-problem");
  el.hidden = !state.sensor_problem;
  el.textContent = state.sensor_problem ? `The board is not being read: ${state.sensor_problem}. ` +
    "Moves made meanwhile are read when it is back." : "";
  // The board is read, but its lights fail (a broken LED chain): they may be wrong.
  const fault = $("#board-fault");
  fault.hidden = !state.board_fault;
  fault.textContent = state.board_fault ? `The board is read, but ${state.board_fault}.` : "";
  // The archive cannot be written (a full disk, a read-only card).
  const rec = $("#record-problem");
  rec.hidden = !state.record_problem;
  rec.textContent = state.record_problem ? `Not saved: ${state.record_problem}.` : "";
}

// The MQTT broadcast link (kharbga-board run --broker), when there is one.
function renderBroker() {
  const b = state.broker, el = $("#broker");
  el.hidden = !b;
  if (!b) return;
  el.textContent = (b.connected ? `broker: connected (${b.board_id})`
    : `broker: not connected${b.error ? " – " + b.error : ""}; moves wait in the queue`)
    + (b.twin ? ` – ${b.twin}` : "");
  el.classList.toggle("offline", !b.connected || !!b.twin);
}

// Where the pieces shown come from, on a real board (the simulated board
// has its own help): the player moves the pieces on the board, not here.
function renderBoardHelp() {
  const el = $("#board-help"), kind = String(state.board || "");
  el.hidden = state.sim_occ !== null;
  if (el.hidden) return;
  const from = kind.startsWith("camera:") ? `the overhead camera (${kind})`
    : kind.startsWith("serial:") ? `the board's switches, through its microcontroller on ${kind.slice(7)}`
    : kind === "gpio" ? "the board's switches, on the Pi's GPIO pins"
    : `the board (${kind})`;
  // The pieces drawn are the game's: one set where none belongs is lit, not drawn (the
  // status asks to take it off); said here, or the lit empty square reads as a fault.
  el.textContent = `Read from ${from}: move the pieces on the board; this page follows them `
    + "(a piece out of place is lit here, not drawn).";
}

function render() {
  if (!state) return;
  renderBroker();
  renderSensor();
  const geo = state.geometry;
  const pieces = positionPieces(state.position, geo);
  const occ = simBoard();
  drawBoard($("#board"), geo, pieces, occ, state.leds, state.sim_occ !== null,
            state.hint_squares);
  renderLit(state.leds, state.hint_squares, state.hajeb, pieces);
  renderThinking();
  renderHajeb();
  $("#sim-help").hidden = state.sim_occ === null;
  // The board's own places: points on the 37-point board, squares elsewhere.
  const place = geo.kind === "points" ? "point" : "square";
  $("#sim-help-words").textContent = "Simulated board: click a piece to lift it, "
    + `click an empty ${place} to set a piece down.`;
  // Clearing by hand is a click a soldier: offered where the game asks for
  // a cleared board (a new game waiting, a game over).
  $("#sim-clear").hidden = state.sim_occ === null || !state.sim_occ.includes("1")
    || !(state.waiting_clear || state.outcome);
  renderBoardHelp();
  // The exchange belongs to kharbga's rules only.
  $('[data-button="exchange"]').hidden = !state.exchange;
  // A game over takes no hint, offer or resignation, nor does a new game
  // still waiting for its board (the board reads no press then): the
  // buttons say so, in a line under them too (a phone shows no hover title).
  const waiting = !state.outcome && !!state.waiting_clear;
  const off = [];
  for (const name of ["hint", "exchange", "draw", "resign"]) {
    const b = $(`[data-button="${name}"]`);
    b.disabled = !!state.outcome || waiting;
    b.title = state.outcome ? "The game is over: clear the board or start a new game"
      : waiting ? "The new game begins once its board is ready (the line above says what it needs)"
        : "";
    if (b.disabled && !b.hidden) off.push(b.textContent);
  }
  const last = off.pop();
  $("#buttons-off").hidden = !last;
  $("#buttons-off").textContent = !last ? "" : `${off.length ? `${off.join(", ")} and ` : ""}`
    + `${last} ${off.length ? "are" : "is"} off until `
    + (waiting ? "the new game begins: its board is not ready yet." : "a new game: this one is over.");
  if (state.outcome) $("#confirm").hidden = true;
  // The game the question was about has ended, or another took its place.
  if (!turnsInPlay()) $("#new-confirm").hidden = true;
  renderLegend();
  const camera = typeof state.board === "string" && state.board.startsWith("camera:");
  if (camera && $("#camera").hidden) {
    $("#camera").hidden = false;
    refreshCamera();
  }
  $("#status").textContent = state.status;
  // A number stays with its word in a name that wraps ("1 s", "level 3").
  const unbroken = (name) => name.replace(/(\d) s\b/g, "$1\u00a0s")
    .replace(/\blevel (\d)/g, "level\u00a0$1");
  $("#name-attacker").textContent = unbroken(state.players.attacker);
  $("#name-defender").textContent = unbroken(state.players.defender);
  // Each name with its side (when the players are named) and its soldiers
  // on the board.
  for (const side of ["attacker", "defender"]) {
    const named = state.players[side] !== TITLE(side) ? `${TITLE(side)} · ` : "";
    const count = $(`#count-${side}`);
    // No break inside "24 in play" (it wrapped as "24 in / play").
    count.textContent = `${named}${state.counts[side]}\u00a0in\u00a0play`;
    count.title = "The side's soldiers in the game: a captured soldier not yet lifted"
      + " is not counted, and one Undo gave back is counted before it is set down";
  }
  $("#turn").textContent = state.outcome ? outcomeText(state.outcome)
    : `${TITLE(state.to_move)} to play`;
  // The new-game form offers the variant being played (until changed).
  const variantSel = document.querySelector('#new-game select[name="variant"]');
  if (variantSel && state.variant !== shownVariant && document.activeElement !== variantSel) {
    shownVariant = state.variant;
    variantSel.value = state.variant;
    // each rule option's checkbox as this game has it ("hajeb=true" among its options)
    const words = (state.options || "").split(" ");
    for (const label of document.querySelectorAll("#new-game .rule-option")) {
      label.querySelector("input").checked = words.includes(`${label.dataset.option}=true`);
    }
    showVariantChoice();
  }
  // A name left empty in the form keeps this game's: shown greyed in it.
  // The computer's side is named by its level: no name is typed for it.
  for (const side of ["attacker", "defender"]) {
    const input = document.querySelector(`#new-game input[name="${side}"]`);
    const kept = (state.names || {})[side] || "";
    const computers = state.computer === side;
    input.disabled = computers;
    input.title = computers ? `The computer plays the ${TITLE(side)}: it is named by its level`
      + " (Computer, below)" : "";
    input.placeholder = computers ? (state.players || {})[side] || "Computer"
      : kept && kept !== TITLE(side) ? kept : "";
  }
  const sel = document.querySelector("#computer select[name=side]");
  if (sel && document.activeElement !== sel) sel.value = state.computer || "";
  const level = document.querySelector("#computer select[name=level]");
  if (level && document.activeElement !== level && state.level) level.value = String(state.level);
  const secs = document.querySelector("#computer input[name=seconds]");
  if (secs && document.activeElement !== secs && state.think) secs.value = state.think;
  renderMoves();
  renderKey();
  renderOffer();
}

// -- the simulated board ---------------------------------------------------

function simBoard() {
  // The board the service sent, with the clicks still on their way drawn
  // over it (those made on its set-up: after a new game set the board up,
  // clicks made on the old one are not drawn, and the service refuses them).
  if (state.sim_occ === null) return null;  // not a simulated board
  const occ = [...state.sim_occ];
  for (const c of clicks) if (c.setup === state.sim_setup) occ[c.i] = c.value;
  return occ.join("");
}

function takeClicks(board) {
  // The board is drawn anew with every state the service sends (an engine
  // pondering sends several a second): a press on the old drawing released
  // on the new one would be no click to the browser (its element is gone),
  // so the board itself pairs the press with the release on the same point.
  let pressed = null;
  const at = (ev) => {
    const sq = ev.target.closest && ev.target.closest("[data-index]");
    return sq && board.contains(sq) ? sq.dataset.index : null;
  };
  board.addEventListener("pointerdown", (ev) => {
    pressed = ev.button === 0 ? at(ev) : null;
  });
  // Heard wherever the press is let go: one let go off the board ends it too.
  document.addEventListener("pointerup", (ev) => {
    const i = at(ev);
    if (i !== null && i === pressed) toggle(Number(i));
    pressed = null;
  });
  // A press that became a scroll or left the page is no click.
  board.addEventListener("pointercancel", () => { pressed = null; });
}

async function toggle(i) {
  if (!state || state.sim_occ === null) return;
  // One click is one point: a piece set down or lifted, the rest of the
  // board as the service holds it (two pages clicking at once lose nothing).
  const click = {i, value: simBoard()[i] === "1" ? "0" : "1", setup: state.sim_setup};
  const point = state.geometry.points[i][0];
  clicks.push(click);
  render();
  // Clicks on one point go one after the other (a piece set down and at
  // once lifted must not reach the service lifted first); other points'
  // clicks go at once.
  const before = pointSent.get(i) || Promise.resolve();
  const send = () => sendClick(click, point);
  const sent = before.then(send, send);  // whatever became of the one before
  pointSent.set(i, sent);
  try {
    await sent;
  } finally {
    if (pointSent.get(i) === sent) pointSent.delete(i);
  }
}

async function sendClick(click, point) {
  try {
    const next = await api("/api/sim/occupancy",
                           {point, occupied: click.value === "1", setup: click.setup},
                           CLICK_TIMEOUT);
    clicks = clicks.filter((c) => c !== click);
    accept(next);
  } catch (e) {
    // Refused or unreachable: the click is not the board's truth.
    clicks = clicks.filter((c) => c !== click);
    await resync();
  }
}

// -- the live connection ---------------------------------------------------

let retry = 500;
function setConn(text, live) {
  const conn = $("#conn");
  conn.textContent = text;
  conn.classList.toggle("offline", !live);
  document.body.classList.toggle("offline", !live);  // the board shown may be stale
}

function connect() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${proto}//${location.host}/ws`);
  ws.onopen = () => {
    retry = 500;
    setConn("live", true);
    // The service is heard again: "cannot be reached" no longer holds.
    if (unreachable) showError("");
  };
  ws.onmessage = (ev) => {
    accept(JSON.parse(ev.data));
    loadGames();
  };
  ws.onclose = () => {
    setConn("offline: the board service is not answering; trying again", false);
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 4000);
  };
}

// -- the archive -----------------------------------------------------------

let gamesShown = "";
const outcomes = {};  // game id -> how it ended, in words (the viewer's title)
async function loadGames() {
  let games;
  try { games = await api("/api/games"); } catch (e) { return; }
  const key = JSON.stringify(games);
  if (key === gamesShown) return;
  gamesShown = key;
  const body = $("#games tbody");
  body.innerHTML = "";
  for (const g of games) {
    const tr = document.createElement("tr");
    // The players with the game's variant under them, the viewer's button
    // with the record's link: the list fits a phone.
    tr.innerHTML = `<td>#${g.id}</td><td class="names"></td><td></td>` +
      `<td class="open"><button>view</button> <a href="/api/games/${g.id}.kgn">record</a></td>`;
    tr.children[1].textContent = `${g.attacker} – ${g.defender}`;
    const variant = document.createElement("small");
    variant.textContent = g.variant;
    tr.children[1].appendChild(variant);
    // The result and, under it, how the game ended in words.
    tr.children[2].className = "result";
    tr.children[2].innerHTML = "<b></b><small></small>";
    tr.children[2].firstChild.textContent = g.result === "*" ? "" : g.result;
    tr.children[2].lastChild.textContent = g.outcome;
    outcomes[g.id] = g.outcome;
    tr.querySelector("button").addEventListener("click", () => view(g.id));
    body.appendChild(tr);
  }
}

// What one action changed, from the positions before and after it:
// {point: "from" | "to" | "taken" | "off"}. A point a piece arrived on (or
// was crowned on) is "to", and the arriving piece's side is the mover's; a
// point the mover's piece left is "from", one the other side's left is
// "taken" (captured); with nothing arriving (a removal, a huff) "off".
function actionChanges(before, after) {
  const was = {};
  let mover = null;
  for (const [p, ch] of Object.entries(after)) {
    if (before[p] !== ch) { was[p] = "to"; mover = mover || ch.toUpperCase(); }
  }
  for (const [p, ch] of Object.entries(before)) {
    if (after[p] !== undefined) continue;
    was[p] = !mover ? "off" : ch.toUpperCase() === mover ? "from" : "taken";
  }
  return was;
}

const WAS_WORDS = {from: "moved from here", to: "moved here", taken: "captured",
                   off: "taken off"};
function changeWords(was, geo) {
  const at = (kind) => byPoint(Object.keys(was).filter((p) => was[p] === kind), geo);
  const from = at("from"), to = at("to"), taken = at("taken"), off = at("off");
  const parts = [];
  if (from.length && to.length) parts.push(`${from.join(", ")} to ${to.join(", ")}`);
  else if (to.length) parts.push(`set on ${to.join(", ")}`);
  if (taken.length) parts.push(`${taken.join(", ")} captured`);
  if (off.length) parts.push(`${off.join(", ")} taken off`);
  return parts.join("; ");
}

let viewerStep = null;  // the open viewer's step(kind): its buttons and keys
async function view(id) {
  const g = await api(`/api/games/${id}`);
  const last = g.positions.length - 1;
  let ply = last;
  const show = () => {
    const pieces = positionPieces(g.positions[ply], g.geometry);
    const board = $("#viewer-board");
    drawBoard(board, g.geometry, pieces, null, {}, false);
    // The action shown is marked on the board and said under it.
    const was = ply ? actionChanges(positionPieces(g.positions[ply - 1], g.geometry), pieces)
      : {};
    for (const [p, kind] of Object.entries(was)) {
      const sq = board.querySelector(`[data-square="${p}"]`);
      sq.dataset.was = kind;
      sq.title = `${p}: ${WAS_WORDS[kind]}`;
    }
    const turn = ply ? g.labels[ply - 1] : "start";
    $("#v-ply").textContent = `${turn} (action ${ply} of ${last})`;
    // A step with the exchange flag raised says so ("=": asked, offered or taken).
    const flagged = ply && g.labels[ply - 1].endsWith("=") ? " (with the exchange flag raised)" : "";
    $("#v-what").textContent = changeWords(was, g.geometry) + flagged;
  };
  $("#viewer").hidden = false;
  $("#viewer-title").textContent = `Game #${g.id}: ${g.attacker} – ${g.defender}: ` +
    (outcomes[g.id] || g.result);
  viewerStep = (kind) => {
    ply = {first: 0, prev: Math.max(0, ply - 1), next: Math.min(last, ply + 1),
           last}[kind];
    show();
  };
  show();
  // Opened from the list, it may be below the screen's edge: brought into sight.
  $("#viewer").scrollIntoView({block: "nearest"});
}

for (const kind of ["first", "prev", "next", "last"]) {
  $(`#v-${kind}`).addEventListener("click", () => viewerStep && viewerStep(kind));
}
// The arrow keys step through the open viewer's game (Home and End: its
// start and end), unless a field of the page is being typed in.
const VIEWER_KEYS = {ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last"};
document.addEventListener("keydown", (e) => {
  const kind = VIEWER_KEYS[e.key];
  if (!kind || !viewerStep || $("#viewer").hidden || e.altKey || e.ctrlKey || e.metaKey
      || e.target.closest("input, select, textarea")) return;
  e.preventDefault();
  viewerStep(kind);
});
$("#v-close").addEventListener("click", () => { $("#viewer").hidden = true; });

// -- the legend of the lights --------------------------------------------------

async function loadLegend() {
  let roles;
  try { roles = await api("/api/legend"); } catch (e) { return; }
  legendRoles = {};
  for (const r of roles) legendRoles[r.role] = r;
  legendShown = null;
  render();
}

// The legend lists the lights this game can show (no king's look in a
// game without kings, no exchange where there is none), in this game's
// words; every look stays known, so a lit square is always explained.
function meaning(role) {
  const here = state && state.lights ? state.lights[role] : undefined;
  return here || (legendRoles[role] || {}).meaning || role;
}

// The cross on the Kharbga family's centre square, said in the legend.
const MALHA = "the malha, the centre square: it stays empty while the soldiers " +
  "are set, and the first move goes into it";

function renderLegend() {
  const looks = Object.keys(state.lights || legendRoles).filter((r) => legendRoles[r]);
  const centre = state.geometry ? state.geometry.centre : null;
  const key = looks.map((r) => r + "=" + meaning(r)).join("|") + "|centre=" + centre;
  if (key === legendShown) return;
  legendShown = key;
  const list = $("#legend");
  list.innerHTML = "";
  for (const role of looks) {
    const r = legendRoles[role];
    const li = document.createElement("li");
    li.dataset.role = r.role;
    const swatch = document.createElement("span");
    swatch.className = "swatch" + (r.blink > 0 ? " blink" : "");
    swatch.style.setProperty("--led", r.colour);
    swatch.style.setProperty("--period", r.blink + "s");
    const text = document.createElement("span");
    const blink = r.blink > 0 ? ` (blinks every ${r.blink} s)` : "";
    // The light's meaning in words: its role's name ("hint-to", "last-from")
    // is the program's, not a player's.
    text.textContent = `${meaning(role)}${blink}`;
    li.append(swatch, text);
    list.appendChild(li);
  }
  if (centre) {
    const li = document.createElement("li");
    li.dataset.role = "malha";
    const mark = document.createElement("span");
    mark.className = "swatch malha";
    const text = document.createElement("span");
    text.textContent = `${centre}: ${MALHA}`;
    li.append(mark, text);
    list.appendChild(li);
  }
}

// -- buttons and forms -------------------------------------------------------

async function send(path, body, form) {
  // ``form``: a refusal is said in it too, beside the field it is about
  // (on a phone the line at the top is out of sight from the forms)
  try {
    accept(await api(path, body));
    if (form) formError(form, "");
  } catch (e) {
    if (form) formError(form, e.refused ? `Refused: ${e.message}` : e.message);
    await resync();
  }
}

function formError(form, message) {
  let p = form.querySelector(".form-error");
  if (!p) {
    p = document.createElement("p");
    p.className = "error form-error";
    p.setAttribute("role", "alert");
    form.append(p);
  }
  p.textContent = message;
  p.hidden = !message;
}

for (const b of document.querySelectorAll("[data-button]")) {
  b.addEventListener("click", () => {
    if (!state) return;
    const name = b.dataset.button;
    // Against the computer the page's player is the other side: its Draw
    // and Resign are theirs, also while the computer's move is lit.
    const person = state.computer ? OTHER(state.computer) : null;
    if (name === "resign") {
      const side = person || state.to_move;
      $("#confirm-text").textContent =
        `${TITLE(side)} resigns: ${TITLE(OTHER(side))} wins. Resign for the ${TITLE(side)}?`;
      $("#confirm-yes").textContent = `Yes, ${TITLE(side)} resigns`;
      $("#confirm-yes").onclick = () => {
        $("#confirm").hidden = true;
        send("/api/button", {button: "resign", side});
      };
      $("#confirm").hidden = false;
      return;
    }
    let side = state.to_move;
    // On screen both players share the Draw button: the other side's press
    // answers an offer.
    if (name === "draw") side = person || (state.draw_offer ? OTHER(state.draw_offer) : side);
    if (name === "draw" && person && !state.draw_offer) {
      // The computer answers at once, and an agreed draw ends the game for
      // good: asked first, as Resign is.
      $("#confirm-text").textContent = `${TITLE(person)} offers the computer a draw: `
        + `${state.draw_terms}, and a draw agreed ends the game (it is not taken back). `
        + "Offer a draw?";
      $("#confirm-yes").textContent = "Yes, offer a draw";
      $("#confirm-yes").onclick = () => {
        $("#confirm").hidden = true;
        send("/api/button", {button: "draw", side});
      };
      $("#confirm").hidden = false;
      return;
    }
    send("/api/button", {button: name, side});
  });
}
$("#confirm-no").addEventListener("click", () => { $("#confirm").hidden = true; });
$("#sim-clear").addEventListener("click", () => {
  if (state && state.sim_occ) send("/api/sim/occupancy", {occ: "0".repeat(state.sim_occ.length)});
});
$("#draw-accept").addEventListener("click", () => send("/api/draw", {answer: "accept"}));
$("#draw-decline").addEventListener("click", () => send("/api/draw", {answer: "decline"}));

// The chosen variant's rules in a line under it, and the rule options a
// player may switch on for it (H'ajeb: sabouiyya's), both from the rules
// (the service writes them on each variant's choice).
function chosenVariant() {
  const sel = document.querySelector('#new-game select[name="variant"]');
  return sel.selectedOptions[0] || null;
}
function offersOption(name) {
  const chosen = chosenVariant();
  return !!chosen && (chosen.dataset.options || "").split(" ").includes(name);
}
function showVariantChoice() {
  const chosen = chosenVariant();
  $("#variant-about").textContent = chosen ? chosen.dataset.about || "" : "";
  for (const label of document.querySelectorAll("#new-game .rule-option")) {
    label.hidden = !offersOption(label.dataset.option);
  }
}
document.querySelector('#new-game select[name="variant"]')
  .addEventListener("change", showVariantChoice);
showVariantChoice();

// The turns of the game in play (0: none played, or the game is over): a
// new game started then loses nothing.
function turnsInPlay() {
  return state && !state.outcome ? (state.turns || []).length : 0;
}

async function startNewGame(form) {
  $("#new-confirm").hidden = true;
  const body = {variant: form.get("variant"), attacker: form.get("attacker"),
                defender: form.get("defender")};
  // the rule options the chosen variant offers and the player ticked
  const options = [...document.querySelectorAll("#new-game .rule-option")]
    .map((label) => label.dataset.option)
    .filter((name) => offersOption(name) && form.get(name))
    .map((name) => `${name}=true`);
  if (options.length) body.options = options.join(" ");
  await send("/api/new", body, $("#new-game"));
  loadGames();
}

// A game in play (a move made, not over) is not left by a slip: Start asks
// first, beside the button, as Resign does (the game is kept, as abandoned).
$("#new-game").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const form = new FormData(ev.target);
  const turns = turnsInPlay();
  if (!turns) {
    await startNewGame(form);
    return;
  }
  $("#new-confirm-text").textContent = `This ${state.variant} game is in play (${turns} `
    + `turn${turns === 1 ? "" : "s"} played): a new game ends it unfinished, kept in the games `
    + "list as abandoned. Start a new game?";
  $("#new-confirm-yes").onclick = () => startNewGame(form);
  $("#new-confirm").hidden = false;
});
$("#new-confirm-no").addEventListener("click", () => { $("#new-confirm").hidden = true; });

$("#hajeb").addEventListener("click", () => {
  send("/api/button", {button: "hajeb", side: "defender"});
});

$("#ponder").addEventListener("change", async (ev) => {
  const sent = ponderSent = ev.target.checked;
  await send("/api/ponder", {on: sent});
  if (ponderSent === sent) ponderSent = null;
  render();
});

$("#computer").addEventListener("change", (ev) => {
  const form = new FormData(ev.currentTarget);
  const side = form.get("side") || null;
  send("/api/computer", {side, seconds: Number(form.get("seconds")),
                         level: Number(form.get("level"))}, ev.currentTarget);
});

const flip = $("#flip");
isFlipped();  // ticks the box as the board is drawn
flip.addEventListener("change", () => {
  localStorage.setItem("flipped", flip.checked ? "1" : "0");
  render();
});

takeClicks($("#board"));
takeTokenFromAddress();
loadLegend();
resync();
loadGames();
connect();
