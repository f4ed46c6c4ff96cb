// The game room: a thin view over /api/game/offers, /api/game/new, /api/game/ID,
// /api/game/ID/move and /api/game/ID/cheat. The server's session for player 1 says what he
// sees and may play; the page draws it and sends back one of the legal moves.
"use strict";

const room = { doc: null, selected: [], offers: null };
const SUITS = { H: "♥", D: "♦", S: "♠", C: "♣" };
const SUIT_NAMES = { Hearts: "♥", Diamonds: "♦", Spades: "♠", Clubs: "♣" };
const CHEAT_HELP = {
  "ninety-nine": "Revoke: not following suit while holding it. Not-in-hand: naming a position that is not in his hand. False-bid: claiming a bid not made. Changed-bid: opening other cards than his bid cards at a claim. Dummy: a revoke from the dummy's face-up hand.",
  golf: "Peek: turning one of his face-down grid cards without placing a card on it, to learn it. Not-his: placing the card he drew in another player's grid. Discard-taken: throwing back the card he took from the discard pile.",
  devyatka: "Not-in-hand: naming a card of another player's hand. Not-playable: putting down a card that may not go down yet. False-pass: passing while holding a card that may go down.",
};
const RULES = {
  "ninety-nine": "Ninety-Nine: bid with three cards laid aside face down, then play twelve tricks.",
  golf: "Golf, nine-card: a 3×3 grid each, face down; turn up three, then draw (the stock, seen by you first, or the discard) and replace a grid card or discard. Lowest score wins; a column of three equal cards scores nothing.",
  devyatka: "Девятка: 36 cards dealt out; put down a nine, or a card next to one on the table in its suit; pass only when you cannot. The first to empty his hand wins.",
};

function showError(err) {
  const box = $("error");
  box.hidden = !err;
  box.textContent = err ? err.message || String(err) : "";
}

function cardText(c) {
  const face = c.split("#")[0];
  if (face === "JK") return "🃏";
  const suit = face.slice(-1);
  return face.slice(0, -1).replace("T", "10") + (SUITS[suit] || suit);
}

function cardEl(c, extra) {
  const e = el("span", cardText(c), "card" + (extra ? " " + extra : ""));
  if (/[HD](#\d+)?$/.test(c)) e.classList.add("heart");
  e.dataset.card = c;
  return e;
}

function downEl() {
  return el("span", "▒", "card down");
}

function cards(list) {
  const span = el("span");
  for (const c of list || []) span.appendChild(cardEl(c));
  return span;
}

function row(cells) {
  const tr = el("tr");
  for (const c of cells) {
    const td = el("td");
    if (c instanceof Node) td.appendChild(c);
    else td.textContent = String(c);
    tr.appendChild(td);
  }
  return tr;
}

function option(value, text) {
  const o = el("option", text || value);
  o.value = value;
  return o;
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const legalMove = (doc, mv) => doc.legal.find((m) => same(m, mv));
// Whether the move `m` is the object form `{key: …}` (a string move is not).
const is = (m, key) => m !== null && typeof m === "object" && key in m;
const seatName = (s) => (s === 0 ? "player 1 (you)" : `player ${s + 1} (bot)`);

// ---- the chooser --------------------------------------------------------------------------

function offer(name) {
  return room.offers && room.offers.games.find((g) => g.name === name);
}

function chooseGame() {
  const g = offer($("game-name").value);
  $("game-rules").textContent = RULES[$("game-name").value] || "";
  if (!g) return;
  $("game-variant-label").hidden = !g.variants.length;
  if (g.variants.length && $("game-variant").options.length !== g.variants.length) {
    $("game-variant").replaceChildren(...g.variants.map((v) => option(v)));
  }
  $("game-players-label").hidden = !g.players;
  if (g.players) {
    Object.assign($("game-players"), { min: g.players.min, max: g.players.max, value: g.players.default });
  }
  $("game-deals-label").hidden = !g.deals;
  if (g.deals) {
    $("game-deals-name").textContent = g.name === "golf" ? "Rounds" : "Deals";
    Object.assign($("game-deals"), { min: g.deals.min, max: g.deals.max, value: g.deals.default });
  }
  for (const o of $("game-backend").options) {
    const b = g.backends.find((x) => x.name === o.value);
    o.disabled = !b || b.refused !== null;
    o.title = b && b.refused ? b.refused : "";
  }
  if ($("game-backend").selectedOptions[0].disabled) $("game-backend").value = "ideal";
}

async function loadOffers() {
  room.offers = await answer("GET", "/api/game/offers");
  chooseGame();
  if (room.offers) $("game-new").dataset.ready = "1";
}

async function newGame() {
  showError(null);
  if (!room.offers) await loadOffers();
  const g = $("game-name").value;
  const o = offer(g);
  if (!o) return;
  const body = { game: g, backend: $("game-backend").value, seed: Number($("game-seed").value || 0) };
  if (o.variants.length) body.variant = $("game-variant").value;
  if (o.deals) body.deals = Number($("game-deals").value || 1);
  if (o.players) body.players = Number($("game-players").value || 3);
  room.doc = null;
  room.selected = [];
  $("game-status").textContent = "dealing…";
  const doc = await answer("POST", "/api/game/new", JSON.stringify(body));
  if (doc) show(doc);
}

async function refresh() {
  if (!room.doc) return;
  const doc = await answer("GET", `/api/game/${room.doc.id}`);
  if (doc) show(doc);
}

async function play(mv) {
  showError(null);
  const doc = await answer("POST", `/api/game/${room.doc.id}/move`, JSON.stringify({ move: mv, moves: room.doc.moves }));
  room.selected = [];
  if (doc) show(doc);
}

async function cheat() {
  showError(null);
  const body = { player: Number($("cheat-player").value), kind: $("cheat-kind").value };
  const doc = await answer("POST", `/api/game/${room.doc.id}/cheat`, JSON.stringify(body));
  if (doc) show(doc);
}

// Buttons for the legal moves that are not made by clicking a card (`clicked(m)` says which are).
function moveButtons(doc, clicked) {
  const moves = $("game-moves");
  moves.replaceChildren();
  if (doc.status !== "your-move") return moves;
  doc.legal.forEach((m, i) => {
    if (clicked(m)) return;
    const b = el("button", doc.legal_text[i]);
    b.className = "game-move";
    b.addEventListener("click", () => play(m));
    moves.appendChild(b);
  });
  return moves;
}

// ---- Ninety-Nine --------------------------------------------------------------------------

// The view's trump is Option<Option<Suit>>, and JSON writes "no trumps" as null too: once the
// cards are played a null trump means no trumps.
function trumpText(t, phase) {
  if (t === null || t === undefined) {
    return ["play", "claim", "over"].includes(phase) ? "no trumps" : "not yet known";
  }
  return SUIT_NAMES[t] || String(t);
}

function legalPlay(card) {
  return room.doc.legal.find((m) => m.play === card);
}

function sameCards(a, b) {
  return a.length === b.length && a.every((c) => b.includes(c));
}

function clickCard(card) {
  const doc = room.doc;
  if (doc.status !== "your-move") return;
  if (doc.view.phase === "bid") {
    const i = room.selected.indexOf(card);
    if (i >= 0) room.selected.splice(i, 1);
    else if (room.selected.length < 3) room.selected.push(card);
    showHand(doc);
    return;
  }
  const mv = legalPlay(card);
  if (mv) play(mv);
  else showError({ message: `${cardText(card)} cannot be played now (follow suit)` });
}

function showHand(doc) {
  const v = doc.view;
  const hand = $("game-hand");
  hand.replaceChildren();
  const mine = doc.status === "your-move";
  for (const c of v.hand) {
    const playable = mine && (v.phase === "bid" || legalPlay(c));
    const e = cardEl(c, (playable ? "playable" : "") + (room.selected.includes(c) ? " selected" : ""));
    e.addEventListener("click", () => clickCard(c));
    hand.appendChild(e);
  }
  const moves = moveButtons(doc, (m) => is(m, "play") || is(m, "bid"));
  $("game-bid-note").textContent = "";
  if (!mine) return;
  if (v.phase === "bid") {
    $("game-bid-note").textContent = `Choose three cards to lay aside face down as your bid (${room.selected.length} of 3 chosen).`;
    const b = el("button", "Lay them aside as my bid");
    b.id = "game-bid";
    b.disabled = room.selected.length !== 3;
    b.addEventListener("click", () => {
      const mv = doc.legal.find((m) => m.bid && sameCards(m.bid, room.selected));
      if (mv) play(mv);
    });
    moves.prepend(b);
  }
  if (v.dummy !== null && v.to_play === v.dummy && v.open_hands[v.dummy]) {
    moves.appendChild(el("span", " Play for the dummy: "));
    for (const c of v.open_hands[v.dummy]) {
      const e = cardEl(c, legalPlay(c) ? "playable" : "");
      e.addEventListener("click", () => clickCard(c));
      moves.appendChild(e);
    }
  }
}

function showNinetyNine(doc) {
  const v = doc.view;
  const seats = [];
  for (let s = 0; s < doc.players; s++) {
    const bid = v.shown_bids[s] ? cards(v.shown_bids[s]) : "—";
    const open = v.open_hands[s] ? cards(v.open_hands[s]) : "—";
    seats.push(row([seatName(s), v.hand_sizes[s], v.won[s], bid, open]));
  }
  $("game-seats").tBodies[0].replaceChildren(...seats);
  $("game-trump").textContent = trumpText(v.trump, v.phase);
  $("game-my-bid").textContent = v.bid ? v.bid.map(cardText).join(" ") : "not laid aside yet";
  $("game-turned").textContent = v.turned ? cardText(v.turned) : "—";
  const trick = $("game-trick");
  trick.replaceChildren();
  for (const [seat, c] of v.current) {
    trick.appendChild(el("span", ` ${seat + 1}:`));
    trick.appendChild(cardEl(c));
  }
  const last = v.tricks[v.tricks.length - 1];
  $("game-last-trick").textContent = last
    ? last.cards.map(([s, c]) => `${s + 1}: ${cardText(c)}`).join(", ") + ` — won by player ${last.winner + 1}`
    : "none yet";
  showHand(doc);
}

// ---- Golf ---------------------------------------------------------------------------------

// The moment of the student's turn, from his first legal move.
function golfStep(doc) {
  const m = doc.status === "your-move" ? doc.legal[0] : null;
  if (!m) return null;
  if (is(m, "turn_up")) return "turn-up";
  if (m === "keep" || is(m, "arrange")) return "arrange";
  if (m === "draw_stock" || m === "take_discard") return "draw";
  return "place";
}

function clickSlot(k) {
  const doc = room.doc;
  const step = golfStep(doc);
  if (step === "turn-up") {
    const i = room.selected.indexOf(k);
    if (i >= 0) room.selected.splice(i, 1);
    else if (room.selected.length < 3) room.selected.push(k);
    showGolf(doc);
  } else if (step === "place") {
    const mv = legalMove(doc, { replace: k });
    if (mv) play(mv);
  }
}

function golfGrid(doc, s, grid, step) {
  const box = el("div", undefined, "grid-seat");
  box.appendChild(el("div", seatName(s) + (doc.view.to_move === s + 1 ? " — to move" : ""), "fine"));
  const table = el("table", undefined, "grid");
  table.id = `golf-grid-${s + 1}`;
  const side = Math.round(Math.sqrt(grid.length));
  for (let r = 0; r < grid.length / side; r++) {
    const tr = el("tr");
    for (let c = 0; c < side; c++) {
      const k = r * side + c;
      const td = el("td");
      const card = grid[k] ? cardEl(grid[k]) : downEl();
      card.dataset.slot = k;
      const mine = s === 0;
      const clickable = mine && (step === "turn-up" ? !grid[k] : step === "place" && legalMove(doc, { replace: k }));
      if (clickable) card.classList.add("playable");
      if (mine && room.selected.includes(k)) card.classList.add("selected");
      if (mine) card.addEventListener("click", () => clickSlot(k));
      td.appendChild(card);
      tr.appendChild(td);
    }
    table.appendChild(tr);
  }
  box.appendChild(table);
  return box;
}

function showGolf(doc) {
  const v = doc.view;
  const step = golfStep(doc);
  $("golf-grids").replaceChildren(...v.grids.map((g, s) => golfGrid(doc, s, g, step)));
  const top = v.discard[v.discard.length - 1];
  $("golf-discard").replaceChildren(top ? cardEl(top) : el("span", "empty"));
  $("golf-discard").appendChild(el("span", ` (${v.discard.length})`, "fine"));
  $("golf-stock").textContent = v.stock;
  const holding = $("golf-holding");
  holding.replaceChildren();
  if (v.holding) {
    holding.appendChild(cardEl(v.holding));
    holding.appendChild(el("span", v.from_stock ? " drawn from the stock (shown to you alone)" : " taken from the discard", "fine"));
  } else holding.textContent = "—";
  const notes = {
    "turn-up": `Choose three of your face-down cards to turn up (${room.selected.length} of 3 chosen).`,
    arrange: "You may move a face-up card so that it lines up with an equal one, or keep the grid.",
    draw: "Draw from the stock or take the top discard.",
    place: "Click a card of your grid to replace it with the card in hand" + (legalMove(doc, "discard") ? ", or discard it." : "."),
  };
  $("golf-note").textContent = notes[step] || "";
  const moves = moveButtons(doc, (m) => is(m, "turn_up") || is(m, "replace"));
  if (step === "turn-up") {
    const b = el("button", "Turn them up");
    b.id = "golf-turn-up";
    const chosen = [...room.selected].sort((a, b) => a - b);
    const mv = doc.legal.find((m) => is(m, "turn_up") && same([...m.turn_up].sort((a, b) => a - b), chosen));
    b.disabled = !mv;
    b.addEventListener("click", () => mv && play(mv));
    moves.prepend(b);
  }
}

// ---- Девятка ------------------------------------------------------------------------------

const DEVYATKA_RANKS = ["6", "7", "8", "9", "T", "J", "Q", "K", "A"];

function showDevyatka(doc) {
  const v = doc.view;
  const down = new Set(v.table);
  $("devyatka-rows").tBodies[0].replaceChildren(
    ...["S", "C", "D", "H"].map((suit) => {
      const tr = row([SUITS[suit]]);
      for (const rank of DEVYATKA_RANKS) {
        const td = el("td");
        const c = rank + suit;
        td.appendChild(down.has(c) ? cardEl(c) : el("span", "", "card empty"));
        tr.appendChild(td);
      }
      return tr;
    }),
  );
  $("devyatka-seats").tBodies[0].replaceChildren(
    ...v.holds.map((n, s) => row([seatName(s) + (v.to_move === s + 1 ? " — to move" : ""), n])),
  );
  const hand = $("devyatka-hand");
  hand.replaceChildren();
  const mine = doc.status === "your-move";
  for (const c of v.hand) {
    const mv = mine && legalMove(doc, { play: c });
    const e = cardEl(c, mv ? "playable" : "");
    e.addEventListener("click", () => {
      if (mv) play(mv);
      else if (mine) showError({ message: `${cardText(c)} cannot go down now` });
    });
    hand.appendChild(e);
  }
  moveButtons(doc, (m) => is(m, "play"));
}

// ---- what every game shares ---------------------------------------------------------------

const SHOW = { "ninety-nine": showNinetyNine, golf: showGolf, devyatka: showDevyatka };

function showCost(doc) {
  const c = doc.cost;
  $("cost-summary").textContent = doc.backend === "ideal"
    ? "The ideal table: no messages (cards and a shuffle everybody trusts)."
    : `So far: ${c.messages} messages, ${c.bytes} bytes, ${c.rounds} rounds.`;
  $("cost-kinds").tBodies[0].replaceChildren(
    ...Object.entries(doc.log.by_kind).map(([k, n]) => {
      const tr = row([k, n.messages, n.bytes]);
      tr.dataset.kind = k;
      return tr;
    }),
  );
  $("game-log").tBodies[0].replaceChildren(
    ...doc.log.recent.slice(-30).reverse().map((m) => row([m.n, m.kind, m.from, m.to, m.bytes, m.depth])),
  );
}

function verdictText(v) {
  if (v.offender === null) return "names nobody";
  const when = v.at_play_time ? "at play time" : "at the end audit";
  return `names player ${v.offender} (${when}): ${v.reason || ""}`;
}

function pointsText(doc) {
  const r = doc.result;
  if (doc.game === "golf") {
    const rounds = r.scores.map((s, i) => (s ? `round ${i + 1}: ${s.join(", ")}` : `round ${i + 1}: stopped`));
    const totals = r.totals ? `; totals ${r.totals.join(", ")}` + (r.winner ? `, player ${r.winner} wins` : ", a tie") : "";
    return `Scores (lowest wins): ${rounds.join("; ")}${totals}.`;
  }
  if (doc.game === "devyatka") {
    return r.winner ? `Player ${r.winner} emptied his hand first; cards left: ${r.holds.join(", ")}.` : "The deal stopped.";
  }
  const hands = r.views.length ? r.views[0].game.hands : [];
  return hands
    .map((h, i) => (h.outcome ? `deal ${i + 1}: points ${h.outcome.points.join(", ")}` : `deal ${i + 1}: stopped`))
    .join("; ");
}

function showVerdict(doc) {
  const r = doc.result;
  $("verdict-section").hidden = !r;
  if (!r) return;
  const cheaters = new Set(doc.cheats.map((c) => c.player));
  $("verdict-summary").textContent = r.offender === null
    ? (cheaters.size ? "Nobody was named: the cheat pressed found no chance to be tried." : "Every move checked, everything audited: nobody cheated, nobody was named.")
    : `Player ${r.offender} cheated and was named by ${r.agreed ? "every player" : "some players"}.`;
  $("verdict-views").replaceChildren(
    ...r.views.map((v) => el("li", `Player ${v.player}'s session ${verdictText(v.game.verdict)}`)),
    ...r.errors.map((e) => el("li", `Player ${e.player} stopped: ${e.error.message}`)),
  );
  const named = new Set(r.views.map((v) => v.game.verdict.offender).filter((p) => p !== null));
  const honest = [...named].filter((p) => !cheaters.has(p));
  $("verdict-honest").textContent = honest.length
    ? `An honest player was named: ${honest.join(", ")}`
    : "No honest player was named.";
  $("verdict-honest").className = honest.length ? "bad" : "ok";
  $("verdict-points").textContent = pointsText(doc);
}

function statusText(doc) {
  if (doc.status === "over") {
    const r = doc.result;
    const what = { golf: `${r.rounds} round(s)`, devyatka: `${r.moves} moves` }[doc.game] || `${r.hands} deal(s), ${r.tricks} tricks`;
    return `The game is over (${what}).`;
  }
  if (doc.status === "closed") return "The game was closed.";
  if (doc.status === "waiting") return "The other players are playing…";
  return doc.game === "ninety-nine" ? `Your move (phase: ${doc.view.phase}).` : "Your move.";
}

function showCheats(doc) {
  $("cheat-pressed").textContent = doc.cheats.map((c) => `player ${c.player}: ${c.kind}`).join("; ");
  $("cheat-help").textContent = CHEAT_HELP[doc.game] || "";
  const players = $("cheat-player");
  if (players.options.length !== doc.players) {
    players.replaceChildren(...Array.from({ length: doc.players }, (_, i) => option(String(i + 1))));
  }
  const kinds = $("cheat-kind");
  if (!same([...kinds.options].map((o) => o.value), doc.cheat_kinds)) {
    kinds.replaceChildren(...doc.cheat_kinds.map((k) => option(k)));
  }
}

function show(doc) {
  room.doc = doc;
  $("game-table").hidden = false;
  $("game-table").dataset.game = doc.game;
  for (const part of document.querySelectorAll(".game-only")) part.hidden = part.dataset.game !== doc.game;
  $("game-status").textContent = statusText(doc);
  $("game-status").dataset.status = doc.status;
  $("game-status").dataset.moves = doc.moves;
  if (doc.view) SHOW[doc.game](doc);
  else moveButtons(doc, () => true);
  showCheats(doc);
  showCost(doc);
  showVerdict(doc);
  if (doc.status === "waiting") setTimeout(refresh, 400);
}

window.addEventListener("DOMContentLoaded", () => {
  $("game-name").addEventListener("change", chooseGame);
  $("game-new").addEventListener("click", newGame);
  $("cheat-press").addEventListener("click", cheat);
  loadOffers();
});
