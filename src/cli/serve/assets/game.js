// The game room: a thin view over /api/game/new, /api/game/ID, /api/game/ID/move and
// /api/game/ID/cheat. The server's session for player 1 says what he sees and may play.
"use strict";

const room = { doc: null, selected: [] };
const SUITS = { H: "♥", D: "♦", S: "♠", C: "♣" };
const SUIT_NAMES = { Hearts: "♥", Diamonds: "♦", Spades: "♠", Clubs: "♣" };

function showError(err) {
  const box = $("error");
  box.hidden = !err;
  box.textContent = err ? err.message || String(err) : "";
}

function cardText(c) {
  if (c === "JK") return "🃏";
  const suit = c.slice(-1);
  return c.slice(0, -1).replace("T", "10") + (SUITS[suit] || suit);
}

function cardEl(c, extra) {
  const e = el("span", cardText(c), "card" + (extra ? " " + extra : ""));
  if (/[HD]$/.test(c)) e.classList.add("heart");
  e.dataset.card = c;
  return e;
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

function option(value) {
  const o = el("option", value);
  o.value = value;
  return o;
}

// The view's trump is Option<Option<Suit>>, and JSON writes "no trumps" as null too: once the
// cards are played a null trump means no trumps.
function trumpText(t, phase) {
  if (t === null || t === undefined) {
    return ["play", "claim", "over"].includes(phase) ? "no trumps" : "not yet known";
  }
  return SUIT_NAMES[t] || String(t);
}

async function newGame() {
  showError(null);
  const body = {
    game: $("game-name").value,
    variant: $("game-variant").value,
    backend: $("game-backend").value,
    seed: Number($("game-seed").value || 0),
    deals: Number($("game-deals").value || 1),
  };
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
  const doc = await answer("POST", `/api/game/${room.doc.id}/move`, JSON.stringify({ move: mv }));
  room.selected = [];
  if (doc) show(doc);
}

async function cheat() {
  showError(null);
  const body = { player: Number($("cheat-player").value), kind: $("cheat-kind").value };
  const doc = await answer("POST", `/api/game/${room.doc.id}/cheat`, JSON.stringify(body));
  if (doc) show(doc);
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
  const moves = $("game-moves");
  moves.replaceChildren();
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
    moves.appendChild(b);
  }
  doc.legal.forEach((m, i) => {
    if (m.play || m.bid) return;
    const b = el("button", doc.legal_text[i]);
    b.className = "game-move";
    b.addEventListener("click", () => play(m));
    moves.appendChild(b);
  });
  if (v.dummy !== null && v.to_play === v.dummy && v.open_hands[v.dummy]) {
    moves.appendChild(el("span", " Play for the dummy: "));
    for (const c of v.open_hands[v.dummy]) {
      const e = cardEl(c, legalPlay(c) ? "playable" : "");
      e.addEventListener("click", () => clickCard(c));
      moves.appendChild(e);
    }
  }
}

function showTable(doc) {
  const v = doc.view;
  const seats = [];
  for (let s = 0; s < doc.players; s++) {
    const bid = v.shown_bids[s] ? cards(v.shown_bids[s]) : "—";
    const open = v.open_hands[s] ? cards(v.open_hands[s]) : "—";
    const name = s === 0 ? "player 1 (you)" : `player ${s + 1} (bot)`;
    seats.push(row([name, v.hand_sizes[s], v.won[s], bid, open]));
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
  const when = v.at_play_time ? "at play time" : "at the end-of-hand audit";
  return `names player ${v.offender} (${when}): ${v.reason || ""}`;
}

function showVerdict(doc) {
  const r = doc.result;
  $("verdict-section").hidden = !r;
  if (!r) return;
  const cheaters = new Set(doc.cheats.map((c) => c.player));
  $("verdict-summary").textContent = r.offender === null
    ? (cheaters.size ? "Nobody was named: the cheat pressed found no chance to be tried." : "Every move checked, every hand audited: nobody cheated, nobody was named.")
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
  const hands = r.views.length ? r.views[0].game.hands : [];
  $("verdict-points").textContent = hands
    .map((h, i) => (h.outcome ? `deal ${i + 1}: points ${h.outcome.points.join(", ")}` : `deal ${i + 1}: stopped`))
    .join("; ");
}

function statusText(doc) {
  if (doc.status === "over") return `The game is over (${doc.result.hands} deal(s), ${doc.result.tricks} tricks).`;
  if (doc.status === "closed") return "The game was closed.";
  if (doc.status === "waiting") return "The other players are playing…";
  return `Your move (phase: ${doc.view.phase}).`;
}

function show(doc) {
  room.doc = doc;
  $("game-table").hidden = false;
  $("game-status").textContent = statusText(doc);
  $("game-status").dataset.status = doc.status;
  $("game-status").dataset.moves = doc.moves;
  if (doc.view) showTable(doc);
  $("cheat-pressed").textContent = doc.cheats.map((c) => `player ${c.player}: ${c.kind}`).join("; ");
  const players = $("cheat-player");
  if (players.options.length !== doc.players) {
    players.replaceChildren(...Array.from({ length: doc.players }, (_, i) => option(String(i + 1))));
  }
  showCost(doc);
  showVerdict(doc);
  if (doc.status === "waiting") setTimeout(refresh, 400);
}

window.addEventListener("DOMContentLoaded", () => {
  $("cheat-kind").replaceChildren(
    ...["revoke", "not-in-hand", "false-bid", "changed-bid", "dummy"].map(option),
  );
  $("game-new").addEventListener("click", newGame);
  $("cheat-press").addEventListener("click", cheat);
});
