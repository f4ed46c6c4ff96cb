// The protocol room: a thin view over the server's JSON endpoints (the same documents as the
// CLI's --json). Nothing here computes a verdict; it only shows what the library answered.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const room = { analysis: null, trace: null, step: 0, tree: null };

async function api(method, path, body) {
  const init = { method };
  if (body !== undefined) {
    init.body = body;
    init.headers = { "Content-Type": "text/plain; charset=utf-8" };
  }
  const response = await fetch(path, init);
  const doc = await response.json();
  if (!response.ok) {
    throw doc.error;
  }
  return doc;
}

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

// ---- the protocol and its errors -------------------------------------------------------

function showError(err) {
  const box = $("error");
  if (!err) {
    box.hidden = true;
    box.textContent = "";
    delete box.dataset.line;
    return;
  }
  let text = err.message || String(err);
  if (err.line) {
    box.dataset.line = err.line;
    box.dataset.col = err.col;
    const caret = " ".repeat(Math.max(0, err.col - 1)) + "^";
    text = `line ${err.line}, column ${err.col}: ${err.message}\n${err.source_line}\n${caret}`;
    selectLine(err.line);
  }
  box.textContent = text;
  box.hidden = false;
}

function selectLine(line) {
  const area = $("source");
  const lines = area.value.split("\n");
  let start = 0;
  for (let i = 0; i < line - 1 && i < lines.length; i++) start += lines[i].length + 1;
  const end = start + (lines[line - 1] || "").length;
  area.focus();
  area.setSelectionRange(start, end);
}

async function loadLibrary() {
  const doc = await api("GET", "/api/protocols");
  const select = $("protocol-select");
  for (const p of doc.protocols) {
    const option = el("option", `${p.name} (${p.cards} cards, ${p.function})`);
    option.value = p.name;
    option.dataset.summary = `${p.summary} [${p.citation}]`;
    select.appendChild(option);
  }
  select.value = "five-card-trick";
  await loadSource();
}

async function loadSource() {
  const select = $("protocol-select");
  const doc = await api("GET", `/api/source?protocol=${encodeURIComponent(select.value)}`);
  $("source").value = doc.source;
  const chosen = select.selectedOptions[0];
  $("protocol-summary").textContent = chosen ? chosen.dataset.summary : "";
  await analyze();
}

// ---- analysis --------------------------------------------------------------------------

const VERDICT_ROWS = [
  ["correct", "Correct", (d) => (d.correct ? "yes" : "no")],
  ["security", "Security", (d) => d.security],
  ["committed", "Committed output", (d) => (d.committed ? "yes" : "no")],
  ["runtime", "Runtime", (d) => d.runtime],
  ["expected_shuffles", "Expected shuffles", (d) => d.expected_shuffles ?? "no bound"],
  ["shuffles", "Shuffles (fewest–most)", (d) => `${d.min_shuffles ?? "—"}–${d.max_shuffles ?? "∞"}`],
  ["tv_distance", "Largest distance between views that must look alike", (d) => d.tv_distance ?? "not computed"],
  ["mutual_information_bits", "I(input; view), bits", (d) => fmt(d.mutual_information_bits)],
  ["leak_beyond_output_bits", "Leak beyond the output, bits", (d) => fmt(d.leak_beyond_output_bits)],
  ["claim", "The file's claim", (d) => d.claim ?? "none stated"],
  ["claim_holds", "Claim holds", (d) => (d.claim_holds === null ? "—" : d.claim_holds ? "✓" : "✗ " + d.claim_mismatches.join("; "))],
  ["errors", "Defects", (d) => (d.errors.length ? d.errors.join("; ") : "none")],
];

function fmt(x) {
  return x === null || x === undefined ? "—" : String(x);
}

// The server's cap on a request body (a larger one is refused before it is read).
const MAX_BODY_BYTES = 64 * 1024;

async function analyze() {
  showError(null);
  const size = new TextEncoder().encode($("source").value).length;
  if (size > MAX_BODY_BYTES) {
    showError({ message: `the protocol is ${size} bytes; the server reads at most ${MAX_BODY_BYTES}` });
    return;
  }
  let doc;
  try {
    doc = await api("POST", "/api/analyze", $("source").value);
  } catch (err) {
    showError(err);
    return;
  }
  room.analysis = doc;
  room.source = $("source").value;
  const body = $("verdict").tBodies[0];
  body.replaceChildren();
  for (const [key, label, value] of VERDICT_ROWS) {
    const tr = el("tr");
    tr.appendChild(el("th", label));
    const td = el("td", value(doc));
    td.id = `verdict-${key}`;
    if (key === "correct" || key === "claim_holds") td.className = /^(yes|✓)/.test(td.textContent) ? "ok" : "bad";
    tr.appendChild(td);
    body.appendChild(tr);
  }
  const inputs = $("trace-input");
  inputs.replaceChildren(...doc.inputs.map((i) => Object.assign(el("option", i), { value: i })));
  for (const s of ["verdict-section", "trace-section", "tree-section", "simulate-section"]) $(s).hidden = false;
  $("trace").hidden = true;
  $("tree-svg").replaceChildren();
  $("sim-table").tHead.replaceChildren();
  $("sim-table").tBodies[0].replaceChildren();
  $("sim-summary").textContent = "";
}

// ---- trace -----------------------------------------------------------------------------

function cards(text) {
  const tokens = text.includes(" ") ? text.split(" ").filter((t) => t) : Array.from(text);
  return tokens.map((t) => {
    const cls = t === "▮" ? "card down" : t === "♥" ? "card heart" : "card";
    return el("span", t, cls);
  });
}

async function runTrace() {
  const input = $("trace-input").value;
  const seed = $("trace-seed").value || "0";
  try {
    room.trace = await api("POST", `/api/trace?input=${encodeURIComponent(input)}&seed=${encodeURIComponent(seed)}`, room.source);
  } catch (err) {
    showError(err);
    return;
  }
  room.step = 0;
  $("trace").hidden = false;
  showStep();
}

function showStep() {
  const t = room.trace;
  const s = t.steps[room.step];
  const last = room.step === t.steps.length - 1;
  $("trace-position").textContent = `step ${room.step + 1} of ${t.steps.length}`;
  $("trace-action").textContent = `${s.action}  (line ${s.at})`;
  $("trace-table").replaceChildren(...cards(s.table));
  $("trace-hidden").replaceChildren(...cards(s.hidden_row));
  $("trace-permutation-line").hidden = s.hidden_permutation === null;
  $("trace-permutation").textContent = s.hidden_permutation ?? "";
  $("trace-observation-line").hidden = s.observation === null;
  $("trace-observation").replaceChildren(...(s.observation ? cards(s.observation) : []));
  $("trace-end").hidden = !last;
  $("trace-output").textContent = t.output === null ? "not determined" : t.output ? "1" : "0";
  $("trace-expected").textContent = t.expected_output ? "1" : "0";
  $("trace-ending").textContent = t.ending;
  $("trace-prev").disabled = room.step === 0;
  $("trace-next").disabled = last;
}

function moveStep(delta) {
  if (!room.trace) return;
  room.step = Math.min(room.trace.steps.length - 1, Math.max(0, room.step + delta));
  showStep();
}

// ---- state tree ------------------------------------------------------------------------

const BOX = { w: 176, h: 38, gapX: 18, gapY: 64 };

function depths(tree) {
  const depth = new Map([[0, 0]]);
  const queue = [0];
  while (queue.length) {
    const v = queue.shift();
    for (const e of tree.edges) {
      if (e.from === v && !depth.has(e.to)) {
        depth.set(e.to, depth.get(v) + 1);
        queue.push(e.to);
      }
    }
  }
  for (const v of tree.vertices) if (!depth.has(v.id)) depth.set(v.id, 0);
  return depth;
}

function layout(tree) {
  const depth = depths(tree);
  const levels = [];
  for (const v of tree.vertices) {
    const d = depth.get(v.id);
    (levels[d] = levels[d] || []).push(v.id);
  }
  const step = BOX.w + BOX.gapX;
  const widest = Math.max(...levels.map((l) => l.length));
  const at = new Map();
  levels.forEach((ids, d) => {
    // Each level is centred under the widest one.
    const left = 10 + ((widest - ids.length) * step) / 2;
    ids.forEach((id, i) => at.set(id, { x: left + i * step, y: 10 + d * (BOX.h + BOX.gapY), d }));
  });
  return { at, width: 60 + widest * step, height: 20 + levels.length * (BOX.h + BOX.gapY) };
}

function svg(tag, attrs, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function short(text, n) {
  return text.length > n ? text.slice(0, n - 1) + "…" : text;
}

async function drawTree() {
  try {
    room.tree = await api("POST", "/api/tree", room.source);
  } catch (err) {
    showError(err);
    return;
  }
  const tree = room.tree;
  const { at, width, height } = layout(tree);
  const pic = $("tree-svg");
  pic.replaceChildren();
  pic.setAttribute("width", width);
  pic.setAttribute("height", height);
  for (const e of tree.edges) pic.appendChild(edge(e, at));
  for (const v of tree.vertices) pic.appendChild(vertex(v, at.get(v.id)));
}

function edge(e, at) {
  const a = at.get(e.from);
  const b = at.get(e.to);
  const g = svg("g", {});
  const x1 = a.x + BOX.w / 2;
  const y1 = a.y + BOX.h;
  const x2 = b.x + BOX.w / 2;
  if (b.d > a.d) {
    g.appendChild(svg("path", { d: `M${x1},${y1} L${x2},${b.y}` }));
    // The label sits just above the state it leads to, where siblings have room.
    g.appendChild(svg("text", { x: b.x + 4, y: b.y - 5 }, short(e.label, 26)));
  } else {
    // A loop back to a label: drawn on the right, dashed.
    const xr = Math.max(a.x, b.x) + BOX.w + 10;
    const d = `M${a.x + BOX.w},${a.y + BOX.h / 2} C${xr + 30},${a.y} ${xr + 30},${b.y + BOX.h} ${b.x + BOX.w},${b.y + BOX.h / 2}`;
    g.appendChild(svg("path", { d, class: "back" }));
    g.appendChild(svg("text", { x: xr + 4, y: (a.y + b.y) / 2 + BOX.h / 2 }, short(e.label, 20)));
  }
  return g;
}

function vertex(v, p) {
  const g = svg("g", { class: "vertex", "data-id": v.id });
  const bottom = v.sequences.some((s) => s.bottom);
  g.appendChild(svg("rect", { x: p.x, y: p.y, width: BOX.w, height: BOX.h, rx: 4, class: bottom ? "bottom" : "" }));
  g.appendChild(svg("text", { x: p.x + 6, y: p.y + 15 }, short(v.kind || `state ${v.id}`, 26)));
  g.appendChild(svg("text", { x: p.x + 6, y: p.y + 30 }, `${v.sequences.length} sequence(s)`));
  g.addEventListener("click", () => showVertex(v, g));
  return g;
}

function showVertex(v, g) {
  for (const r of document.querySelectorAll("#tree-svg rect.selected")) r.classList.remove("selected");
  g.querySelector("rect").classList.add("selected");
  const inputs = room.tree.inputs;
  const box = $("tree-details");
  box.replaceChildren();
  box.appendChild(el("p", `State ${v.id}: ${v.kind || "(start)"}`));
  box.appendChild(el("p", `Probability of reaching it, per input ${inputs.join(" ")}: ${v.reached.join("  ")}`));
  const table = el("table");
  table.id = "tree-vertex-table";
  const head = el("tr");
  head.appendChild(el("th", "cards"));
  for (const i of inputs) head.appendChild(el("th", `input ${i}`));
  table.appendChild(head);
  for (const s of v.sequences) {
    const tr = el("tr");
    tr.appendChild(el("td", s.row + (s.bottom ? "  ⊥" : "")));
    for (const q of s.probabilities) tr.appendChild(el("td", q, "num"));
    table.appendChild(tr);
  }
  box.appendChild(table);
}

// ---- simulation ------------------------------------------------------------------------

async function simulate() {
  const runs = $("sim-runs").value || "10000";
  const seed = $("sim-seed").value || "0";
  let doc;
  try {
    doc = await api("POST", `/api/simulate?runs=${encodeURIComponent(runs)}&seed=${encodeURIComponent(seed)}`, room.source);
  } catch (err) {
    showError(err);
    return;
  }
  const inputs = doc.inputs.map((i) => i.input);
  const exact = new Map((doc.exact_views || []).map((v) => [v.view, v]));
  const seen = new Map(doc.views.map((v) => [v.view, v.counts]));
  const views = [...new Set([...exact.keys(), ...seen.keys()])].sort();
  const head = el("tr");
  head.appendChild(el("th", "view"));
  for (const i of inputs) {
    head.appendChild(el("th", `exact ${i}`));
    head.appendChild(el("th", `seen ${i}`));
  }
  $("sim-table").tHead.replaceChildren(head);
  let gap = 0;
  const rows = views.map((view) => {
    const tr = el("tr");
    tr.dataset.view = view;
    tr.appendChild(el("td", view));
    inputs.forEach((_, i) => {
      const q = exact.get(view);
      const p = q ? q.probability[i] : 0;
      const f = (seen.get(view) || [])[i] / doc.runs_per_input || 0;
      gap = Math.max(gap, Math.abs(p - f));
      tr.appendChild(el("td", q ? q.exact[i] : doc.exact_views ? "0" : "—", "num exact"));
      tr.appendChild(el("td", f.toFixed(4), "num seen"));
    });
    return tr;
  });
  $("sim-table").tBodies[0].replaceChildren(...rows);
  const note = doc.exact_views ? `largest gap between a seen frequency and its exact probability: ${gap.toFixed(4)}` : "the protocol loops, so views are not enumerated exactly";
  $("sim-summary").textContent = `${doc.total_runs} runs (${doc.runs_per_input} per input, seed ${doc.seed}) in ${doc.wall_ms.toFixed(1)} ms; ${note}`;
}

// ---- wiring ----------------------------------------------------------------------------

window.addEventListener("DOMContentLoaded", () => {
  $("load").addEventListener("click", loadSource);
  $("analyze").addEventListener("click", analyze);
  $("trace-run").addEventListener("click", runTrace);
  $("trace-prev").addEventListener("click", () => moveStep(-1));
  $("trace-next").addEventListener("click", () => moveStep(1));
  $("hidden-row").addEventListener("change", (e) => document.body.classList.toggle("show-hidden", e.target.checked));
  $("tree-draw").addEventListener("click", drawTree);
  $("sim-run").addEventListener("click", simulate);
  loadLibrary().catch(showError);
});
