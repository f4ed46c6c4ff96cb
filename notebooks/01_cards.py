# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 1. Card-based protocols: the five-card trick and the four-card AND
#
# Two players each hold a secret bit and want to learn only the AND of the two bits, using
# nothing but a few cards with identical backs. A bit is *committed* as two face-down cards:
# ♣♥ for 0 and ♥♣ for 1.
#
# * **The five-card trick** [dB89]: lay out $a$, one ♥, then $b$ *negated* (5 cards); apply a random
#   cut (a uniformly random rotation) and turn everything over. The hearts are three in a row
#   (cyclically) exactly when $a \wedge b = 1$.
# * **The four-card AND** of Mizuki, Kumamoto and Sone [MKS12]: two committed bits, two shuffles
#   that each pick one of two permutations uniformly (the first swaps the two halves: a random
#   bisection cut), then two turns; four cards suffice.
#
# The toolkit analyses each protocol *exactly*: it builds the KWH state tree (every reachable
# sequence of symbols with its probability for each input, as exact rationals), checks that the
# output is correct and that the **view** — what the players see face up — has the same
# distribution for every input (perfect security). Everything below is printed by
# `facedown cards … --json`; the notebook only draws it.

# %%
import matplotlib.pyplot as plt
import numpy as np

import facedown
import fdnb

fdnb.style()

SEED = 1
RUNS = 40_000   # Monte-Carlo runs per input: 95 % intervals of about ±0.004; the exact figures need none
print("facedown", facedown.__version__, "(Python package)")

# %% [markdown]
# ## The protocol library

# %%
library = facedown.protocols()
print(f"{'protocol':<28} {'cards':>5} {'f':<5} {'paper':<6} claimed security")
for e in library:
    mark = "  (negative example)" if e["negative_example"] else ""
    print(f"{e['name']:<28} {e['cards']:>5} {e['function']:<5} {e['citation']:<6} {e['claimed_security']}{mark}")

# %% [markdown]
# ## A run, step by step, as the players see it
#
# `cards trace` runs the protocol once on a given input with a seeded RNG. `table` is what lies
# on the table (▮ = face down), `hidden row` what the cards really are (nobody sees it), and
# `drew` the permutation the shuffle chose (hidden too).

# %%
def show_trace(name, bits):
    t = facedown.trace(name, input=bits, seed=SEED)
    print(f"{t['name']} on input {t['input']} (seed {t['seed']}): f = {int(t['expected_output'])}")
    for i, s in enumerate(t["steps"], start=1):
        drew = f"drew {s['hidden_permutation']}" if s["hidden_permutation"] else ""
        saw = f"saw {s['observation']}" if s["observation"] else ""
        print(f"  {i}. {s['action']:<28} table {s['table']:<12} hidden row {s['hidden_row']:<8} {drew}{saw}")
    out = "—" if t["output"] is None else int(t["output"])
    print(f"  ended {t['ending']}; output {out}; view {t['view']}; {t['shuffles']} shuffle(s)\n")
    return t

for bits in ("1,1", "1,0"):
    show_trace("five-card-trick", bits)
for bits in ("1,1", "0,1"):
    show_trace("mks-four-card-and", bits)

# %% [markdown]
# ## The state tree
#
# `cards tree --json` gives the KWH tree: each vertex is a state (every possible hidden sequence
# with its probability for each input $00, 01, 10, 11$); edges are shuffles, turns (labelled with
# what was seen) and ends. We lay it out ourselves: depth downwards, leaves spread evenly.

# %%
def tree_layout(tree):
    """Positions (x, depth) for every vertex: leaves evenly spaced, parents centred."""
    children = {}
    for e in tree["edges"]:
        children.setdefault(e["from"], []).append(e["to"])
    pos, next_x = {}, [0]
    def place(v, depth):
        kids = children.get(v, [])
        if not kids:
            pos[v] = (next_x[0], depth)
            next_x[0] += 1
        else:
            for k in kids:
                place(k, depth + 1)
            pos[v] = (np.mean([pos[k][0] for k in kids]), depth)
    place(0, 0)
    return pos, children

def draw_tree(name, ax, show_rows=True):
    tree = facedown.state_tree(name)
    pos, _ = tree_layout(tree)
    verts = {v["id"]: v for v in tree["vertices"]}
    for e in tree["edges"]:
        (x0, y0), (x1, y1) = pos[e["from"]], pos[e["to"]]
        ax.plot([x0, x1], [-y0, -y1], color="0.6", lw=0.8, zorder=1)
        label = e["label"]
        if "→" in label and len(label) > 14:   # "turn 1 2 3 4 5 → ♣♣♥♥♥": keep what was seen
            label = label.split("→")[-1].strip()
        if e["label"] != "end":
            ax.text((x0 + x1) / 2, -(y0 + y1) / 2, label, fontsize=9, ha="center", va="center",
                    color="tab:blue", bbox=dict(fc="white", ec="none", pad=0.5), zorder=3)
    colours = {"start": "tab:green", "": "0.85"}
    for vid, (x, y) in pos.items():
        v = verts[vid]
        kind = v["kind"]
        c = colours.get(kind, "tab:orange")
        ax.scatter([x], [-y], s=60, color=c, zorder=2, edgecolors="k", linewidths=0.5)
        if kind.startswith("end"):
            reached = "  ".join(v["reached"])
            rows = ", ".join(s["row"] for s in v["sequences"][:2])
            ax.text(x, -y - 0.25, f"{rows}\nPr: {reached}", fontsize=9, ha="center", va="top")
    for kind, c in [("start", "tab:green"), ("after a shuffle or turn", "0.85"), ("end (output read)", "tab:orange")]:
        ax.scatter([], [], color=c, edgecolors="k", linewidths=0.5, label=kind)
    depth = max(y for _, y in pos.values())
    ax.set_ylim(-depth - 1.2, 0.5)
    ax.set_yticks([-d for d in range(depth + 1)], [f"step {d}" for d in range(depth + 1)])
    ax.set_xticks([])
    ax.set_xlabel(f"leaves (views); 'Pr' = probability of reaching the leaf for inputs {' '.join(tree['inputs'])}")
    ax.set_title(f"KWH state tree of {name} ({len(tree['vertices'])} vertices)")
    ax.legend(loc="upper right", fontsize=9)
    return tree

fig, ax = plt.subplots(figsize=(14, 4.5))
tree5 = draw_tree("five-card-trick", ax)
fig.tight_layout()
fdnb.save(fig, "01_tree_five_card_trick")
plt.show()

fig, ax = plt.subplots(figsize=(8, 5))
tree4 = draw_tree("mks-four-card-and", ax)
fig.tight_layout()
fdnb.save(fig, "01_tree_mks_and")
plt.show()

# %% [markdown]
# The root state of the five-card trick holds one sequence per input; after the cut each input
# is spread over five rotations with probability 1/5 each:

# %%
for v in tree5["vertices"][:2]:
    print(f"vertex {v['id']} ({v['kind'] or 'inner'}):")
    for s in v["sequences"]:
        print(f"   {s['row']}   Pr[row | input {' '.join(tree5['inputs'])}] = {'  '.join(s['probabilities'])}")

# %% [markdown]
# ## The view distribution per input
#
# The exact distribution comes from the tree: a view is the sequence of turn results along the
# path to a leaf, and its probability for input $x$ is the leaf's *reached* mass. Security means:
# inputs with the same output have the same bars. Crosses are the Monte-Carlo frequencies of
# `cards simulate` (RUNS runs per input) with 95 % normal-approximation intervals — they
# must agree with the exact bars.

# %%
def exact_views(tree):
    """View (turn results joined by ' / ') → list of exact probabilities per input (as strings)."""
    parent = {e["to"]: e for e in tree["edges"]}
    views = {}
    for v in tree["vertices"]:
        if not v["kind"].startswith("end"):
            continue
        seen, cur = [], v["id"]
        while cur in parent:
            e = parent[cur]
            if e["label"].startswith("turn"):
                seen.append(e["label"].split("→")[-1].strip())
            cur = e["from"]
        key = " / ".join(reversed(seen))
        prev = views.get(key)
        probs = [fdnb.frac(p) for p in v["reached"]]
        views[key] = probs if prev is None else [a + b for a, b in zip(prev, probs)]
    return views

def plot_views(name, ax, runs=RUNS):
    tree = facedown.state_tree(name)
    exact = exact_views(tree)
    sim = facedown.simulate(name, runs=runs, seed=SEED)
    simulated = {v["view"]: v["counts"] for v in sim["views"]}
    labels = sorted(exact)
    inputs = tree["inputs"]
    w = 0.8 / len(inputs)
    x = np.arange(len(labels))
    for i, inp in enumerate(inputs):
        xs = x + (i - (len(inputs) - 1) / 2) * w
        ax.bar(xs, [exact[l][i] for l in labels], w, label=inp)
        p_hat = np.array([simulated.get(l, [0] * len(inputs))[i] / runs for l in labels])
        err = 1.96 * np.sqrt(p_hat * (1 - p_hat) / runs)
        shown = (p_hat > 0) | (np.array([exact[l][i] for l in labels]) > 0)
        ax.errorbar(xs[shown], p_hat[shown], yerr=err[shown], fmt="x", color="k", ms=4, lw=0.8,
                    label="sim." if i == 0 else None)
    ax.set_xticks(x, labels, rotation=30 if len(labels) > 4 else 0, ha="right" if len(labels) > 4 else "center")
    ax.set_xlabel("view (cards seen face up)")
    ax.set_ylabel("Pr[view | input]")
    top = max(max(p) for p in exact.values())
    ax.set_ylim(0, 1.4 * top)
    ax.set_yticks([t for t in ax.get_yticks() if t <= top + 1e-9])
    ax.set_title(f"{name}: view distribution per input")
    ax.legend(fontsize=9, ncol=5, loc="upper center", title_fontsize=9,
              title=f"input (bars: exact; ×: simulated, {runs} runs, 95 % CI)")
    missing = set(simulated) - set(exact)
    assert not missing, f"simulated views the exact tree does not have: {missing}"
    return exact, sim

fig, (a1, a2) = plt.subplots(1, 2, figsize=(14, 4.2), gridspec_kw={"width_ratios": [2, 1]})
ex5, _ = plot_views("five-card-trick", a1)
ex4, _ = plot_views("mks-four-card-and", a2)
fig.tight_layout()
fdnb.save(fig, "01_views_secure")
plt.show()

# %% [markdown]
# Inputs 00, 01 and 10 (output 0) have identical bars, and 11 has its own views: the view
# reveals the output and nothing else. The exact analysis says the same:

# %%
def analysis_row(name):
    a = facedown.analyze(name)
    return a

for name in ("five-card-trick", "mks-four-card-and"):
    a = analysis_row(name)
    print(f"{name:<20} correct {a['correct']}, security {a['security']}, runtime {a['runtime']}, "
          f"E[shuffles] {a['expected_shuffles']}, TV distance {a['tv_distance']}, "
          f"I(X;V | f(X)) = {a['leak_beyond_output_bits']:.6f} bits")
    assert a["correct"] and a["security"] == "perfect" and a["tv_distance"] == "0"

# %% [markdown]
# ## What goes wrong without a shuffle, or with a biased one
#
# * `five-card-trick-no-cut`: the same layout turned over without the cut: the view *is* the
#   input.
# * `mks-without-first-shuffle`: the MKS AND without its first shuffle: the view separates
#   inputs 01 and 10, which must look alike.
# * `five-card-trick-biased-cut`: the cut is not uniform (the bias studied in [KC25]) — every
#   view is still possible for every input (*input-possibilistic*), but with different
#   probabilities.
#
# The measure is the **total-variation distance** between the view distributions of two inputs
# with the same output (the best advantage of a distinguisher), maximised over such pairs, and
# $I(X;V \mid f(X))$, the bits the view reveals beyond the output, for uniform inputs.

# %%
bad = ["five-card-trick-no-cut", "mks-without-first-shuffle", "five-card-trick-biased-cut"]
fig, axes = plt.subplots(1, 3, figsize=(17, 4.2), gridspec_kw={"width_ratios": [2, 1, 2]})
for name, ax in zip(bad, axes):
    plot_views(name, ax)
fig.tight_layout()
fdnb.save(fig, "01_views_broken")
plt.show()

# %%
names = ["five-card-trick", "mks-four-card-and"] + bad
rows = [facedown.analyze(n) for n in names]
print(f"{'protocol':<28} {'security':<20} {'TV distance':<12} worst pair (view: Pr, Pr)")
for a in rows:
    w = a["tv_worst"]
    worst = "—" if not w or a["tv_distance"] == "0" else \
        f"{w['inputs'][0]} vs {w['inputs'][1]} on {w['view']}: {w['probabilities'][0]} vs {w['probabilities'][1]}"
    print(f"{a['name']:<28} {a['security']:<20} {a['tv_distance']:<12} {worst}")

fig, ax = plt.subplots(figsize=(9, 3.8))
y = np.arange(len(rows))
tv = [a["tv_distance_f64"] for a in rows]
mi = [a["leak_beyond_output_bits"] for a in rows]
ax.barh(y - 0.2, tv, 0.4, label="TV distance (distinguishing advantage, 0..1)")
ax.barh(y + 0.2, mi, 0.4, label="I(X;V | f(X)) (bits, uniform inputs)")
for yi, (t, m, a) in enumerate(zip(tv, mi, rows)):
    ax.text(t + 0.01, yi - 0.2, a["tv_distance"], va="center", fontsize=9)
    ax.text(m + 0.01, yi + 0.2, f"{m:.4f}", va="center", fontsize=9)
ax.set_yticks(y, names)
ax.invert_yaxis()
ax.set_xlabel("leakage (TV: probability; I: bits)")
ax.set_title("What the view leaks beyond the output (exact analysis)")
ax.legend(fontsize=9, loc="lower right")
fig.tight_layout()
fdnb.save(fig, "01_leakage")
plt.show()

# %% [markdown]
# The biased cut's TV distance of 1/16 is small but exact: a distinguisher who sees one run
# tells 00 from 01 with advantage 1/16, and the leak grows with repeated runs. The
# `tv_from_uniform_shuffles` field compares each input's view with the same protocol under a
# uniform cut:

# %%
biased = rows[-1]
print(f"{biased['name']}: TV from the uniform-cut protocol = {biased['tv_from_uniform_shuffles']}, "
      f"TV between inputs = {biased['tv_distance']} (≈ {biased['tv_distance_f64']:.4f})")
assert rows[2]["security"] == "insecure" and rows[3]["security"] == "insecure"
assert biased["tv_distance_f64"] > 0

# %% [markdown]
# ## How few cards? Searching for protocols
#
# `cards search` answers card-minimality questions by searching every protocol of a class up to
# a bound: it prints each protocol it finds — re-checked by the exact analyzer — or reports that
# none exists, with the number of states it explored (see `docs/search.md`). Four cards
# cannot compute a committed AND with finite runtime [KWH15]; with a loop (a restart-free Las
# Vegas protocol) they can, if a shuffle may be non-uniform:

# %%
lv = facedown.search("♣♣♥♥", "and", 8, committed=True, runtime="las-vegas", shuffles="closed",
                     first=True)
print(f"found: {lv['found']}, radius {lv['length']}, {lv['states_explored']} states, "
      f"analyzer: {lv['analyses'][0]['runtime']}, {lv['analyses'][0]['security']}, "
      f"expected shuffles {lv['analyses'][0]['expected_shuffles']}\n")
print(lv["protocols"][0])

# %% [markdown]
# With uniform closed shuffles only, neither kind exists [KKWHS17]: the search can show it for
# every bound it reaches. The plot shows how much work each bound costs — the state space
# grows geometrically with the number of steps, which is why published model checkers run for
# hours on these questions.

# %%
def per_depth(**bound):
    r = facedown.search("♣♣♥♥", "and", committed=True, shuffles="uniform-closed", **bound)
    assert not r["found"]
    return [d["depth"] for d in r["per_depth"]], [d["states_explored"] for d in r["per_depth"]]

fig, ax = plt.subplots(figsize=(8, 3.5))
for label, bound in [("finite runtime (steps)", dict(max_steps=16)),
                     ("restart-free Las Vegas (radius)", dict(runtime="las-vegas", max_steps=20))]:
    x, y = per_depth(**bound)
    ax.semilogy(x, y, marker="o", label=label)
ax.set_xlabel("bound")
ax.set_ylabel("states expanded at this bound")
ax.set_title("No four-card committed AND with uniform closed shuffles: work per bound")
ax.legend(fontsize=9)
fig.tight_layout()
fdnb.save(fig, "01_search")
plt.show()

# %% [markdown]
# ## Private operations: AND with three cards and no shuffle
#
# So far every action is public: everyone sees a shuffle happen, and nobody knows the
# permutation it drew. In the *private model* of Nakai, Misawa, Tokushige, Iwamoto and Ohta
# [NMTIO22] a player may also rearrange the cards behind his back, so that only he knows which
# rearrangement he chose. Then an input need not be laid out as a commitment at all: the player
# simply applies one permutation for bit 0 and another for bit 1.
#
# `private-three-card-and` lays out ♣ ♥ ♣. When $a = 0$, Alice moves the ♥ from the middle to the
# right; when $b = 1$, Bob swaps the two left cards. The left card is then ♥ exactly when
# $a \wedge b = 1$, and it is the only card turned — three cards, one fewer than any AND with
# public actions only. Security is now judged *per player*: each knows his own bit, so a view
# may differ between two inputs only when that player, given his bit and the output, could tell
# them apart anyway.
#
# The pitfall is a private result shown by a later public turn: `private-three-card-and-extra-turn`
# also turns the middle card, which is ♥ exactly when $a = 1, b = 0$.

# %%
good = facedown.analyze("private-three-card-and")
bad = facedown.analyze("private-three-card-and-extra-turn")
for a in (good, bad):
    print(f"{a['name']:<36} cards {a['cards']}, correct {a['correct']}, security {a['security']}, "
          f"shuffles {a['expected_shuffles']}, TV distance {a['tv_distance']}")
print("\nwhy the second is flagged:", bad["errors"][0])
assert good["cards"] == 3 and good["correct"] and good["security"] == "perfect"
assert bad["correct"] and bad["security"] == "insecure"
assert any("holder of b" in e for e in bad["errors"])

# %% [markdown]
# ## Private draws and looks: each player's own view
#
# With private *draws* and *looks* the players no longer share one view. In the model of Ono and
# Manabe [OM21] a player may cut cards where only he sees the offset, or look at a commitment
# where nobody else can: his view is then the public turns **plus** what he alone drew and saw,
# and the question becomes what *each* player's view reveals. For player $p$ the inputs that
# must look alike are those with his own bit (and, for a non-committed ending, the same
# output), and the information is counted beyond what he knows anyway:
# $I(X; V_p \mid X_p, f(X))$ — $I(X; V_p \mid X_p)$ when the output stays face down.
#
# * `ono-manabe-and`: a committed AND with four cards and no public shuffle. Alice flips her
#   commitment with a private random bit $r$; Bob looks at it privately and sees $a \oplus r$,
#   a fair coin whatever $a$ is.
# * `five-card-trick-one-private-cut`: the pitfall. The five-card trick with its cut done by
#   Alice alone. Everyone sees the cards uniformly cut, so **the public view is perfect** — but
#   Alice knows the offset, undoes it, and reads $b$.
#
# `facedown.analyze` gives each player's figures under `players`: the TV distance (exact, a
# string) and the bits (a float computed from the exact probabilities).

# %%
def show_players(name):
    a = facedown.analyze(name)
    print(f"{a['name']}: security {a['security']}; public view: TV {a['tv_distance']}")
    for p in a["players"]:
        given = p["player"] if a["committed"] else f"{p['player']}, f(X)"
        w = p["tv_worst"]
        worst = "" if w is None else \
            f"; worst pair {w['inputs'][0]} vs {w['inputs'][1]} on view {w['view']}: {w['probabilities'][0]} vs {w['probabilities'][1]}"
        print(f"  player {p['player']}: TV {p['tv_distance']}, I(X;V | {given}) = {p['leak_bits']:.4f} bits{worst}")
    return a

om_and = show_players("ono-manabe-and")
one_cut = show_players("five-card-trick-one-private-cut")
assert om_and["security"] == "perfect"
assert all(p["tv_distance"] == "0" for p in om_and["players"])
assert one_cut["tv_distance"] == "0" and one_cut["security"] == "insecure"
assert [p["tv_distance"] for p in one_cut["players"]] == ["1", "0"]

# %% [markdown]
# Alice's TV distance is 1: with $a = 0$ she tells $b = 0$ from $b = 1$ in every run. Beyond
# her own bit and the output she learns one bit for half of the inputs (those with $a = 0$),
# $0.5$ bits on average; Bob learns nothing beyond $a \wedge b$. Across the private library:

# %%
private = ["ono-manabe-xor", "ono-manabe-and", "ono-manabe-copy", "five-card-trick-private-cuts",
           "five-card-trick-one-private-cut", "ono-manabe-xor-early-look", "ono-manabe-xor-turned-mask"]
analyses = [facedown.analyze(n) for n in private]
fig, ax = plt.subplots(figsize=(10, 4.2))
y = np.arange(len(private))
for k, (who, colour) in enumerate([("a", "tab:blue"), ("b", "tab:orange")]):
    tv = [next(p["tv_distance_f64"] for p in a["players"] if p["player"] == who) for a in analyses]
    bits = [next(p["leak_bits"] for p in a["players"] if p["player"] == who) for a in analyses]
    ax.barh(y + (k - 0.5) * 0.4, tv, 0.2, color=colour, label=f"TV distance, player {who}")
    ax.barh(y + (k - 0.5) * 0.4 + 0.2, bits, 0.2, color=colour, alpha=0.45,
            label=f"I(X;V | {who}, …) bits, player {who}")
ax.set_yticks(y, [f"{a['name']} ({a['security']})" for a in analyses])
ax.invert_yaxis()
ax.set_xlabel("leakage of each player's own view (TV: probability; I: bits)")
ax.set_title("Private model: what each player's view reveals (exact analysis)")
ax.legend(fontsize=8, loc="lower right")
fig.tight_layout()
fdnb.save(fig, "01_players")
plt.show()

# %% [markdown]
# ## Several outputs: a half adder
#
# A protocol may also compute several named outputs at once. `half-adder` commits to the sum
# $a \oplus b$ and the carry $a \wedge b$ on ten cards with two random bisection cuts (the COPY and
# the selector of Mizuki–Sone [MS09]); its `result` names one pair per output. The analyzer
# checks each output on its own, and the simulator counts each output's readings: a run is
# right when every output is. `half-adder-sum-not-negated` writes $\neg b$ as $b$, so its sum is
# wrong exactly when $a = 1$, and its carry stays right.

# %%
for name in ("half-adder", "half-adder-sum-not-negated"):
    a = facedown.analyze(name)
    outs = ", ".join(f"{o['name']} = {o['function']}" for o in a["outputs"])
    print(f"{name}: outputs {outs}; correct {a['correct']}, security {a['security']}, "
          f"E[shuffles] {a['expected_shuffles']}")
    sim = facedown.simulate(name, runs=RUNS // 10, seed=SEED)
    for r in sim["inputs"]:
        right = "  ".join(
            f"{o['name']}={int(o['expected'])} right {o['output_1'] if o['expected'] else o['output_0']}/{r['runs']}"
            for o in r["outputs"])
        print(f"   input {r['input']}: {right}")
    if a["correct"]:
        assert all(n == RUNS // 10 for n in sim["correct_runs"])
    else:
        assert any("sum" in e for e in a["errors"])

# %% [markdown]
# ## Fewer cards: one card per bit, thresholds, numbers
#
# A commitment spends two cards on a bit so that both bits are the same two cards, ♣ and ♥. Other
# encodings spend fewer or carry more, and each has its catch.
#
# * **One card per bit** (`a[1]`: ♥ for 1). With public actions only it is hopeless — the table
#   then holds as many ♥ as there are 1s, and the format spec proves that no public protocol on
#   one-card inputs computes AND or XOR securely. `one-card-five-card-trick-attempt` is the
#   five-card trick's cut on `a[1] ♣ b[1]`: right, but it shows how many bits are 1. In the private
#   model it works: in `private-two-card-and` Bob swaps Alice's card with a ♣ behind his back when
#   $b = 0$, so the left card is ♥ exactly when $a \wedge b = 1$ — a committed AND on **two**
#   cards. The other card is then Alice's when $b = 0$, so it must never be turned
#   (`…-leftover-turned`).
# * **Thresholds** [NMTIO22]: each holder turns the row ♣♥♥♣ by one place when his bit is 1, and
#   the left card shows the majority of three on four cards.
# * **Numbers modulo $n$** [SMS+15], one-hot (`x{3}`: ♥ at the value): a cyclic shuffle adds a
#   hidden uniform number, so one shuffle adds $x + y \bmod 3$. A biased shift leaks $y$.

# %%
encodings = ["private-two-card-and", "private-two-card-and-leftover-turned",
             "one-card-five-card-trick-attempt", "private-four-card-majority",
             "private-four-card-majority-two-turned", "one-hot-add-mod-3",
             "one-hot-add-mod-3-biased-shift"]
found = {n: facedown.analyze(n) for n in encodings}
for n, a in found.items():
    print(f"{n:<40} {a['cards']:>2} cards, {len(a['inputs']):>2} input assignments, "
          f"correct {a['correct']}, security {a['security']}, TV {a['tv_distance']}")
assert found["private-two-card-and"]["cards"] == 2
assert found["private-two-card-and"]["security"] == "perfect"
assert found["private-two-card-and-leftover-turned"]["security"] == "insecure"
assert found["one-card-five-card-trick-attempt"]["security"] == "insecure"
assert found["private-four-card-majority"]["security"] == "perfect"
assert found["one-hot-add-mod-3"]["security"] == "perfect"
assert found["one-hot-add-mod-3-biased-shift"]["security"] == "output-possibilistic"

# %% [markdown]
# The simulator runs the number protocols too, counting per input which value the committed
# result held (`number`). Every run of the biased shift holds the right sum, yet the turn it
# makes shows one of only two values, and which two depends on $y$: each column below has a
# zero, in a different row for each $y$. That is the leak the analyzer reports as
# output-possibilistic.

# %%
sim = facedown.simulate("one-hot-add-mod-3-biased-shift", runs=RUNS // 10, seed=SEED)
labels = [r["input"] for r in sim["inputs"]]
assert all(r["number"]["counts"][r["number"]["expected"]] == r["runs"] for r in sim["inputs"])
views = [v["view"] for v in sim["views"]]
freq = np.array([[c / (RUNS // 10) for c in v["counts"]] for v in sim["views"]])
fig, ax = plt.subplots(figsize=(9, 2.8))
im = ax.imshow(freq, cmap="Blues", vmin=0, vmax=1, aspect="auto")
ax.set_xticks(range(len(labels)), labels, rotation=30, fontsize=8)
ax.set_yticks(range(len(views)), [f"turn shows {v}" for v in views])
for (i, j), f in np.ndenumerate(freq):
    ax.text(j, i, f"{f:.2f}", ha="center", va="center", fontsize=7,
            color="white" if f > 0.7 else "black")
ax.set_title("one-hot-add-mod-3-biased-shift: what the turn shows, per input (simulated)")
fig.colorbar(im, ax=ax, label="frequency")
fig.tight_layout()
fdnb.save(fig, "01_numbers")
plt.show()
assert (freq == 0).sum() == len(labels)

# %% [markdown]
# ## Exercises
#
# 1. **Break the trick yourself.** Take `facedown.protocols()`'s source of `five-card-trick`,
#    replace the random cut by a shuffle over only two rotations, and pass the text to
#    `facedown.analyze`. Which security level does the analyzer give, and which pair of inputs
#    does `tv_worst` name? Explain why in one sentence.
# 2. **How many runs?** The crosses above use `RUNS` runs per input. Halve `RUNS` four times
#    and watch the interval around one view's frequency: by what factor does it shrink when
#    `RUNS` quadruples, and why?
# 3. **What four cards cost.** Compare `runtime`, `expected_shuffles` and `max_shuffles` of
#    `four-card-las-vegas-and` with those of `mks-four-card-and` (both use four cards). What
#    does each protocol give up, and which kind of shuffle does each need?
# 4. **Search a different function.** Run `facedown.search("♣♣♥♥", "xor", 4, committed=True)`.
#    How long is the shortest protocol, and which published protocol in the library matches it?
# 5. **A private OR.** Starting from the source of `private-three-card-and` (printed below),
#    write a three-card OR in the private model: negate both inputs and the output (De Morgan),
#    changing only the layout's colours and which bit each private permutation belongs to.
#    Check it with `facedown.analyze`; then add a turn that makes it leak, and say which
#    player the analyzer names and what he learns.
# 6. **Whose view leaks?** Starting from the source of `five-card-trick-one-private-cut`
#    (printed below), predict each player's TV distance before you run anything when Bob
#    also cuts privately after Alice; then when, instead, Bob looks privately at Alice's
#    commitment before her cut (`private b look 1 2`). Check both with `facedown.analyze`
#    and its `players` field, and explain why the public view's TV distance never changes.

# %%
# A starting point for exercise 1: the source of the five-card trick.
print(next(p["source"] for p in library if p["name"] == "five-card-trick"))

# %%
# A starting point for exercise 5: the source of the private three-card AND.
print(next(p["source"] for p in library if p["name"] == "private-three-card-and"))

# %%
# A starting point for exercise 6: the five-card trick cut privately by Alice alone.
print(next(p["source"] for p in library if p["name"] == "five-card-trick-one-private-cut"))
