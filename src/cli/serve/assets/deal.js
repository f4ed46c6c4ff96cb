// The deal room: a thin view over /api/deal, /api/collusion and /api/poker-deal.
"use strict";

const $ = (id) => document.getElementById(id);
const room = { deal: null, opening: 0 };

const CARRIES = {
  Hello: "the session's hello: who takes part, bound into every proof",
  KeyShare: "a public key share with a Schnorr proof of its secret",
  Shuffle: "the whole deck re-encrypted and permuted, with a Bayer–Groth shuffle argument",
  Reveal: "reveal tokens for cards, each with a Chaum–Pedersen proof",
  RestrictedShuffle: "a shuffle restricted to some positions, with its argument",
};

async function api(path) {
  const response = await fetch(path);
  const doc = await response.json();
  if (!response.ok) throw doc.error;
  return doc;
}

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

function row(cells) {
  const tr = el("tr");
  for (const c of cells) tr.appendChild(el("td", String(c)));
  return tr;
}

function showError(err) {
  const box = $("error");
  box.hidden = !err;
  box.textContent = err ? err.message || String(err) : "";
}

function query() {
  const names = ["players", "cards", "hand", "public", "seed"];
  return names.map((n) => `${n}=${encodeURIComponent($(n).value || "0")}`).join("&");
}

function who(p) {
  return p === "everyone" ? "everyone" : `player ${p}`;
}

async function deal() {
  showError(null);
  let doc;
  try {
    doc = await api(`/api/deal?${query()}`);
  } catch (err) {
    showError(err);
    return;
  }
  room.deal = doc;
  room.opening = 0;
  const audit = doc.audit.passed ? "the audit passed" : `the audit FAILED (blame player ${doc.audit.blame})`;
  $("deal-summary").textContent = `${doc.players} players, ${doc.cards} cards; ${doc.cost.messages} messages, ${doc.cost.bytes} bytes, ${doc.cost.rounds} rounds; ${audit}.`;
  const hands = doc.hands.map((h, i) => row([`player ${i + 1}`, h.join(" ") || "—"]));
  hands.push(row(["public", doc.public.join(" ") || "—"]));
  $("deal-hands").tBodies[0].replaceChildren(...hands);
  $("layers").tBodies[0].replaceChildren(
    ...doc.layers.map((l) => row([l.slot, who(l.holder), l.perm.map((x, i) => `${i}→${x}`).join(" ")])),
  );
  $("told").tBodies[0].replaceChildren(
    ...doc.told.map((t) => row([`player ${t.player}`, Object.entries(t.received).map(([k, n]) => `${k} × ${n}`).join(", ")])),
  );
  for (const s of ["deal-section", "coalition-section", "poker-section"]) $(s).hidden = false;
  showOpening();
}

function showOpening() {
  const ops = room.deal.openings;
  const op = ops[room.opening];
  $("opening-position").textContent = `opening ${room.opening + 1} of ${ops.length}: position ${op.position}`;
  $("opening-route").textContent = `Route: ${op.route}; the card is learned by ${who(op.learner)}.`;
  $("opening-chain").replaceChildren(
    ...op.hops.map((h) => el("li", `${who(h.from)} → ${who(h.to)}: ${h.value}`)),
  );
  $("opening-prev").disabled = room.opening === 0;
  $("opening-next").disabled = room.opening === ops.length - 1;
}

function moveOpening(delta) {
  if (!room.deal) return;
  room.opening = Math.min(room.deal.openings.length - 1, Math.max(0, room.opening + delta));
  showOpening();
}

async function collusion() {
  let doc;
  try {
    doc = await api(`/api/collusion?${query()}`);
  } catch (err) {
    showError(err);
    return;
  }
  $("collusion-note").textContent = doc.exact
    ? "Exact: every deal of this deck enumerated."
    : "Closed form (the deck is too large to enumerate; the tests check the form against enumeration on small decks).";
  $("collusion-table").tBodies[0].replaceChildren(
    ...doc.rows.map((r) => row([
      `{${r.coalition.join(", ")}}`, r.target, r.excess_bits, r.excess_is_zero ? "yes" : "no",
      `${r.determined} of ${r.hidden}`, r.attack,
    ])),
  );
}

async function poker() {
  let doc;
  try {
    doc = await api(`/api/poker-deal?${query()}`);
  } catch (err) {
    showError(err);
    return;
  }
  const a = doc.report.audit;
  const c = doc.report.cost;
  $("poker-audit").textContent = `${a.passed ? "Every proof verified" : "FAILED: " + a.error}; ${c.messages} messages, ${c.bytes} bytes, ${c.rounds} rounds.`;
  const kinds = new Map();
  for (const d of doc.deliveries) {
    const k = kinds.get(d.kind) || { n: 0, bytes: 0 };
    k.n += 1;
    k.bytes += d.bytes;
    kinds.set(d.kind, k);
  }
  $("poker-table").tBodies[0].replaceChildren(
    ...[...kinds].map(([kind, k]) => {
      const tr = row([kind, CARRIES[kind] || "", k.n, k.bytes]);
      tr.dataset.kind = kind;
      return tr;
    }),
  );
}

window.addEventListener("DOMContentLoaded", () => {
  $("deal-run").addEventListener("click", deal);
  $("opening-prev").addEventListener("click", () => moveOpening(-1));
  $("opening-next").addEventListener("click", () => moveOpening(1));
  $("collusion-run").addEventListener("click", collusion);
  $("poker-run").addEventListener("click", poker);
  deal();
});
