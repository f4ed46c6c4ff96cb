# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 2. The permutation-sharing dealer: a deal, a cheater, collusion and leakage
#
# The dealer replaces a trusted card dealer by $N \ge 3$ players who each hold **layers** of a
# secret permutation of the deck: the deal is the composition of the layers, and a card is
# opened by passing a value along a chain of players, each applying his layer. Messages are
# signed, every permutation is committed to (a salted SHA3-256 hash of its Lehmer rank), and an
# end-of-game **audit** opens every commitment, recomputes every forwarded value and names the
# first player who deviated (see `papers/notes/perm-sharing-dealer.md` and the `facedown-dealer`
# docs).
#
# The scheme is information-theoretic and **honest-but-curious without collusion**: the harness
# below measures exactly what a coalition learns beyond what an ideal dealer would tell it
# (the *excess leakage*, in bits), and how often the audit catches and names a cheater.
#
# Every number comes from `facedown dealer … --json`. Parameters are small so CI runs fast.

# %%
import matplotlib.pyplot as plt
import numpy as np

import fdnb

SEED = 3
print("facedown =", " ".join(fdnb.command()))

# %% [markdown]
# ## A deal: each player's hand as he sees it, and what it cost
#
# Three players, a 12-card deck, three cards each and one card face up. The cost counts
# point-to-point messages (a broadcast counts $N-1$), bytes, and **rounds** — the longest chain
# of messages that must follow one another, which dominates on a real network.

# %%
deal = fdnb.run_json("dealer", "deal", "--players", 3, "--cards", 12, "--hand", 3,
                     "--public", 1, "--seed", SEED)
for i, hand in enumerate(deal["hands"], start=1):
    print(f"player {i} sees his hand: {hand}   (the others see nothing of it)")
print(f"public card: {deal['public']}")
print(f"audit: {'passed' if deal['audit']['passed'] else 'FAILED'}; scheme {deal['scheme']}, seed {deal['seed']}")
c = deal["cost"]
print(f"total: {c['messages']} messages, {c['bytes']:,} bytes, {c['rounds']} rounds\n")
print(f"{'phase':<44} {'messages':>8} {'bytes':>8} {'rounds':>6}")
for p in deal["phases"]:
    pc = p["cost"]
    print(f"{p['name']:<44} {pc['messages']:>8} {pc['bytes']:>8} {pc['rounds']:>6}")
assert deal["audit"]["passed"]

# %%
fig, ax = plt.subplots(figsize=(8, 3.5))
names = [p["name"] for p in deal["phases"]]
y = np.arange(len(names))
ax.barh(y - 0.2, [p["cost"]["messages"] for p in deal["phases"]], 0.4, label="messages")
ax.barh(y + 0.2, [p["cost"]["rounds"] for p in deal["phases"]], 0.4, label="rounds")
ax.set_yticks(y, names)
ax.invert_yaxis()
ax.set_xlabel("count")
ax.set_title("Cost of each phase of a deal: N = 3, n = 12, 3 cards per hand, 1 public")
ax.legend()
fig.tight_layout()
fdnb.save(fig, "02_deal_phases")
plt.show()

# %% [markdown]
# ## How the cost grows with the number of players
#
# A 52-card poker-style deal (2 cards per hand, 5 public) for $N = 3 \ldots 6$.

# %%
players = [3, 4, 5, 6]
deals = [fdnb.run_json("dealer", "deal", "--players", n, "--cards", 52, "--hand", 2,
                       "--public", 5, "--seed", SEED) for n in players]
assert all(d["audit"]["passed"] for d in deals)
fig = fdnb.plot_deal_cost(players, deals, "Dealer: cost of a 52-card deal (2 per hand, 5 public)")
fdnb.save(fig, "02_deal_cost")
plt.show()

# %% [markdown]
# ## A cheater caught by the audit
#
# Player 2 forwards a wrong value in the first opening he takes part in (`--cheat 2:value@0`).
# The other players cannot tell at the time — the value looks like any other — but the
# end-of-game audit recomputes every forwarded value from the opened permutations and names him.
# The transcript is saved and re-audited by `facedown dealer audit`, which exits with status 2
# when the audit fails.

# %%
import tempfile, os, json
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "cheat.json")
    cheat = fdnb.run_json("dealer", "deal", "--players", 3, "--cards", 12, "--hand", 3,
                          "--public", 1, "--seed", SEED, "--cheat", "2:value@0", "--save", path)
    re_audit = fdnb.run("dealer", "audit", path, "--json", check=False)
a = cheat["audit"]
print("honest hands:  ", deal["hands"], " public", deal["public"])
print("with a cheater:", cheat["hands"], " public", cheat["public"])
print(f"audit passed: {a['passed']}; blamed player: {a['blame']}")
print(f"first finding: {a['first']}")
print(f"`dealer audit` of the saved transcript: exit status {re_audit.returncode}")
again = json.loads(re_audit.stdout)
print(f"  re-audit blames player {again.get('audit', again).get('blame')}")
assert not a["passed"] and a["blame"] == 2, "the audit must catch and name player 2"
assert re_audit.returncode == 2

# %% [markdown]
# ## The harnesses: collusion, leakage against openings, cheating
#
# The next cells use `facedown dealer collusion|leakage|cheat` (the `facedown-leakage` harness).
# If the binary in use predates them, the cells say so and draw nothing — they never invent data.

# %%
HAVE_HARNESS = all(fdnb.has_subcommand("dealer", c) for c in ("collusion", "leakage", "cheat"))
if not HAVE_HARNESS:
    fdnb.skipped("02_dealer", "this facedown binary has no `dealer collusion|leakage|cheat` "
                 "subcommands; rebuild it from a tree that contains crates/leakage to draw the "
                 "collusion, leakage and cheating figures")

# %% [markdown]
# ### The collusion table
#
# For $N = 3$ players and $n = 6$ cards, exact enumeration of all $n!$ deals: for every coalition
# and target, the excess leakage in bits (mutual information between target and the coalition's
# whole view, minus what an ideal dealer would tell it), the fraction of hidden cards the
# coalition determines, and the attack that achieves it. Three opening schedules: every card
# public, all cards dealt privately, and a mixed deal.

# %%
if HAVE_HARNESS:
    coll = fdnb.run_json("dealer", "collusion", "--players", 3, "--cards", 6, "--exact")
    rows = coll["rows"]
    print(f"{coll['scheme']} scheme, N = {coll['players']}, n = {coll['cards']}, method {coll['method']}, "
          f"{len(rows)} rows in {coll['wall_time_ms']:.0f} ms\n")
    print(f"{'schedule':<28} {'coalition':<10} {'target':<22} {'excess bits':>11} {'determined':>10}  attack")
    for r in rows:
        coal = "+".join(map(str, r["coalition"]))
        det = "—" if r["determined_fraction"] is None else f"{r['determined_fraction']:.2f}"
        print(f"{r['schedule'][:28]:<28} {coal:<10} {r['target'][:22]:<22} {r['excess_bits']:>11.4f} {det:>10}  {r['attack']}")

# %%
if HAVE_HARNESS:
    schedules = list(dict.fromkeys(r["schedule"] for r in rows))
    coalitions = list(dict.fromkeys("+".join(map(str, r["coalition"])) for r in rows))
    vmax = max(1.0, max(r["excess_bits"] for r in rows))   # one colour scale for every panel
    fig, axes = plt.subplots(1, len(schedules), figsize=(4.4 * len(schedules) + 1.5, 4.2), squeeze=False,
                             sharey=True, layout="constrained")
    for ax, sch in zip(axes[0], schedules):
        sub = [r for r in rows if r["schedule"] == sch]
        targets = list(dict.fromkeys(r["target"] for r in sub))
        grid = np.full((len(coalitions), len(targets)), np.nan)
        for r in sub:
            grid[coalitions.index("+".join(map(str, r["coalition"]))), targets.index(r["target"])] = r["excess_bits"]
        cmap = plt.get_cmap("Reds").copy()
        cmap.set_bad("0.88")   # grey: the target is (part of) the coalition's own cards
        im = ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, vmin=0, vmax=vmax, aspect="auto")
        ax.set_xticks(range(len(targets)), targets, rotation=40, ha="right", fontsize=8)
        ax.set_yticks(range(len(coalitions)), [f"players {c}" for c in coalitions], fontsize=8)
        ax.set_xlabel("target")
        for (i, j), v in np.ndenumerate(grid):
            if not np.isnan(v):
                ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=7)
        ax.set_title(f"schedule: {sch}", fontsize=9)
    fig.colorbar(im, ax=axes[0].tolist(), label="excess leakage (bits; grey = own cards)")
    fig.suptitle(f"Collusion table: excess leakage per coalition and target, N = {coll['players']}, "
                 f"n = {coll['cards']} (exact)")
    fdnb.save(fig, "02_collusion")
    plt.show()

# %% [markdown]
# ### Leakage about the whole deal against the number of openings
#
# Each point: a coalition's excess leakage about the whole deal after $k$ openings (public or
# private). A secure scheme keeps single players at 0 bits; coalitions may learn everything.

# %%
if HAVE_HARNESS:
    leak = fdnb.run_json("dealer", "leakage", "--players", 3, "--cards", 6)
    pts = leak["points"]
    series = {}
    for p in pts:
        series.setdefault(("+".join(map(str, p["coalition"])), p["kind"]), []).append((p["openings"], p["excess_bits"]))
    fig, ax = plt.subplots(figsize=(9, 4.5))
    styles = {"public": "-", "private": "--"}
    coals = sorted({c for c, _ in series}, key=lambda c: (c.count("+"), c))
    colour = {c: plt.get_cmap("tab10")(i) for i, c in enumerate(coals)}
    zero = []
    for (coal, kind), xy in sorted(series.items()):
        xy.sort()
        if all(y == 0 for _, y in xy):
            zero.append(f"{coal} ({kind})")
            continue
        i = coals.index(coal)   # markers of decreasing size, so coinciding series stay visible
        ax.plot([x for x, _ in xy], [y for _, y in xy], marker="osD^vP"[i % 6], ms=9 - i, color=colour[coal],
                linestyle=styles.get(kind, ":"), label=f"players {coal}, {kind} openings")
    if zero:   # drawn once: these series coincide on the 0 line
        allx = sorted({p["openings"] for p in pts})
        ax.plot(allx, [0] * len(allx), color="0.4", marker=".", lw=2,
                label="0 bits at every k: " + ", ".join(zero))
    ax.set_xlabel("number of openings k")
    ax.set_ylabel("excess leakage about the whole deal (bits)")
    ax.set_title(f"Dealer leakage against openings ({leak['scheme']}, N = {leak['players']}, "
                 f"n = {leak['cards']}, {leak['method']})")
    import textwrap
    handles, labels = ax.get_legend_handles_labels()
    ax.legend(handles, ["\n".join(textwrap.wrap(l, 60)) for l in labels], fontsize=7, loc="upper right")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fdnb.save(fig, "02_leakage")
    plt.show()

# %% [markdown]
# ### The cheating harness
#
# Every deviation of every player over a few seeded games: how often it steered a card, how
# often the audit detected it and named the cheater (with the Wilson interval the CLI reports,
# 99.9 % two-sided), and whether an honest player was ever framed. Some deviations (e.g. a
# selective abort) only apply in some games, so the number of games varies by row.

# %%
if HAVE_HARNESS:
    ch = fdnb.run_json("dealer", "cheat", "--players", 3, "--cards", 6, "--samples", 10, "--seed", SEED)
    crow = ch["rows"]
    print(f"{ch['trials']} games per deviation, seed {ch['seed']}, {ch['wall_time_ms']:.0f} ms\n")
    print(f"{'player':>6} {'deviation':<16} {'games':>5} {'steered':>7} {'detected':>8} {'named':>5} "
          f"{'framed':>6}  named: 99.9 % Wilson interval")
    for r in crow:
        lo, hi = r["named_interval"]
        print(f"{r['player']:>6} {r['deviation']:<16} {r['trials']:>5} {r['steered']:>7} {r['detected']:>8} "
              f"{r['named']:>5} {r['framed']:>6}  [{lo:.2f}, {hi:.2f}]")
    assert all(r["framed"] == 0 for r in crow), "the audit must never name an honest player"
    labels = [f"{r['player']}:{r['deviation']}" for r in crow]
    named = np.array([r["named"] / r["trials"] for r in crow])
    lo = np.array([r["named_interval"][0] for r in crow])
    hi = np.array([r["named_interval"][1] for r in crow])
    fig, ax = plt.subplots(figsize=(max(6, 0.35 * len(crow)) + 3.5, 4))
    x = np.arange(len(crow))
    ax.bar(x, named, yerr=[named - lo, hi - named], capsize=2, label="audit names the cheater (99.9 % Wilson interval)")
    ax.plot(x, [r["steered"] / r["trials"] for r in crow], "kx", label="games where the cheat changed a card")
    ax.set_xticks(x, labels, rotation=60, ha="right", fontsize=7)
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("cheater : deviation")
    ax.set_ylabel("fraction of games")
    ax.set_title(f"Cheating harness, N = {ch['players']}, n = {ch['cards']}, up to {ch['trials']} games per deviation")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    fdnb.save(fig, "02_cheat")
    plt.show()

# %% [markdown]
# ### A full-size deck: 52 cards, checked by running the attacks on real games
#
# Exact enumeration stops at small decks; for $n = 52$ (3 players, 2 cards each, 5 public) the
# harness gives the closed form, and `--samples K` runs each coalition's constructive attack on
# K real, seeded games. Bars: the fraction of hidden cards the closed form says the coalition
# determines, and the fraction the attack actually recovered; the interval is the CLI's
# 99.9 % Wilson interval for "recovered every hidden card".

# %%
if HAVE_HARNESS:
    big = fdnb.run_json("dealer", "collusion", "--players", 3, "--cards", 52, "--hand", 2,
                        "--public", 5, "--samples", 200, "--seed", SEED)
    mc = {(tuple(r["coalition"]), r["target"]): r for r in big["monte_carlo"][0]["rows"]}
    pairs = [r for r in big["rows"] if (tuple(r["coalition"]), r["target"]) in mc]
    labels = [f"{'+'.join(map(str, r['coalition']))} → {r['target']}" for r in pairs]
    det = np.array([r["determined_fraction"] or 0.0 for r in pairs])
    rec = np.array([mc[(tuple(r["coalition"]), r["target"])]["recovered_fraction"] for r in pairs])
    allr = [mc[(tuple(r["coalition"]), r["target"])] for r in pairs]
    fig, ax = plt.subplots(figsize=(max(8, 0.45 * len(pairs)), 4.2))
    x = np.arange(len(pairs))
    ax.bar(x - 0.2, det, 0.4, label=f"determined ({big['method']})")
    ax.bar(x + 0.2, rec, 0.4, label=f"recovered by the attack ({big['samples']} games)")
    lo = np.array([a["all_recovered_interval"][0] for a in allr])
    hi = np.array([a["all_recovered_interval"][1] for a in allr])
    mid = np.array([a["all_recovered"] / a["trials"] for a in allr])
    ax.errorbar(x + 0.2, mid, yerr=[mid - lo, hi - mid], fmt="k.", capsize=2,
                label="games with every hidden card recovered (99.9 % Wilson)")
    ax.set_xticks(x, labels, rotation=60, ha="right", fontsize=7)
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("coalition → target")
    ax.set_ylabel("fraction of hidden cards / of games")
    ax.set_title(f"52-card deal, N = 3, 2 per hand, 5 public: what coalitions recover (seed {big['seed']})")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    fdnb.save(fig, "02_collusion_52")
    plt.show()
    singles = [r for r in big["rows"] if len(r["coalition"]) == 1]
    print(f"single players: largest excess leakage {max(r['excess_bits'] for r in singles):.4f} bits; "
          f"coalitions of two: largest {max(r['excess_bits'] for r in big['rows'] if len(r['coalition']) == 2):.4f} bits")
