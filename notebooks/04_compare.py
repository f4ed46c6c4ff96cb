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
# # 4. One face-down table, three backends: cost and security side by side
#
# The same workloads — secure AND by the five-card trick [dB89], the MKS AND [MKS12], the
# Mizuki–Sone committed AND and XOR [MS09], the Ninety-Nine deal (3 players, 37 cards) and a
# 52-card poker deal — run unchanged on three implementations of one face-down table:
#
# * **ideal**: physical cards with trusted randomness (the model card-based papers assume);
# * **dealer**: the permutation-sharing dealer (information-theoretic, honest-but-curious,
#   no collusion);
# * **encrypted**: ElGamal ciphertexts on ristretto255 with shuffle and reveal proofs
#   [BS03, BG12] (malicious up to N − 1 players).
#
# `facedown compare --json` runs every workload on every backend and reports per run: wall and
# CPU time, messages, bytes, rounds, the security model, and — for information-theoretic
# backends — the harness's worst excess leakage to a single party. A backend that cannot do an
# operation securely says so in the row's notes; nothing falls back silently.

# %%
import matplotlib.pyplot as plt
import numpy as np

import facedown
import fdnb

fdnb.style()

SEED = 0
print("facedown", facedown.__version__, "(Python package)")

# %%
cmp = facedown.compare(seed=SEED, games="none")   # the games have their own section below
rows = cmp["rows"]
workloads = list(dict.fromkeys(r["workload"] for r in rows))
backends = list(dict.fromkeys(r["backend"] for r in rows))
cell = {(r["workload"], r["backend"]): r for r in rows}
def num(x, digits=2):
    return "—" if x is None else (f"{x:,.{digits}f}" if isinstance(x, float) else f"{x:,}")
def bits(x):
    return "n/a" if x is None else ("0" if x == 0 else f"{x:.4f}")
ww = max(len(w) for w in workloads)
short = {w: w.split(" (")[0] for w in workloads}   # "poker (4p, 52 cards, …)" → "poker" on axes
print(f"seed {cmp['seed']}; means per run\n")
print(f"{'workload':<{ww}} {'backend':<10} {'runs':>5} {'wall ms':>9} {'CPU ms':>9} {'messages':>9} "
      f"{'bytes':>10} {'rounds':>7} {'excess bits':>11}  security")
for r in rows:
    print(f"{r['workload']:<{ww}} {r['backend']:<10} {r['runs']:>5} {num(r['wall_ms'], 3):>9} "
          f"{num(r['cpu_ms'], 3):>9} {num(r['messages'], 1):>9} {num(r['bytes'], 0):>10} "
          f"{num(r['rounds'], 1):>7} {bits(r['excess_bits']):>11}  {r['security']}")
    for n in r.get("notes", []):
        print(f"{'':<{ww + 12}}note: {n}")

# %% [markdown]
# ## Cost
#
# Times are means per run of the whole workload (setup and audit included) on this machine;
# messages, bytes and rounds come from the backends' accounting, not from timing. A missing bar
# means the backend reports no figure for that workload (see the notes above). Log scales: the
# backends differ by orders of magnitude.

# %%
def grouped(ax, key, ylabel, log=True):
    x = np.arange(len(workloads))
    w = 0.8 / len(backends)
    for i, b in enumerate(backends):
        vals = [cell.get((wl, b), {}).get(key) for wl in workloads]
        xs = x + (i - (len(backends) - 1) / 2) * w
        ax.bar(xs, [v if v else np.nan for v in vals], w, label=b)
        for xi, v in zip(xs, vals):
            if not v:   # None: not reported; 0: nothing to draw on a log scale
                ax.text(xi, 0.01, "n/a" if v is None else "0", ha="center", va="bottom",
                        fontsize=9, transform=ax.get_xaxis_transform())
    if log:
        ax.set_yscale("log")
    ax.set_xticks(x, [short[w] for w in workloads], rotation=30, ha="right", fontsize=9)
    ax.set_ylabel(ylabel)
    ax.grid(axis="y", alpha=0.3)

fig, axes = plt.subplots(2, 2, figsize=(14, 9))
grouped(axes[0, 0], "cpu_ms", "CPU time per run (ms, log)")
axes[0, 0].set_title("CPU time")
grouped(axes[0, 1], "messages", "messages per run (log)")
axes[0, 1].set_title("Messages (point-to-point deliveries)")
grouped(axes[1, 0], "bytes", "bytes per run (log)")
axes[1, 0].set_title("Bytes sent")
grouped(axes[1, 1], "rounds", "rounds per run (log)")
axes[1, 1].set_title("Rounds (longest chain of sequential messages)")
handles, labels = axes[0, 0].get_legend_handles_labels()
fig.legend(handles, labels, title="backend", loc="upper right", ncol=len(backends), fontsize=9)
fig.suptitle(f"Cost of every workload on every backend (facedown compare, seed {cmp['seed']})", x=0.35)
fig.tight_layout(rect=(0, 0, 1, 0.95))
fdnb.save(fig, "04_cost")
plt.show()

# %%
fig, ax = plt.subplots(figsize=(10, 4.5))
grouped(ax, "wall_ms", "wall-clock time per run (ms, log)")
ax.set_title("Wall-clock time per run (shared machine: compare with the CPU time above)")
ax.legend(title="backend", fontsize=9)
fig.tight_layout()
fdnb.save(fig, "04_wall")
plt.show()

# %% [markdown]
# ## Security
#
# Each cell: the security model the backend offers for the workload, and (information-theoretic
# backends only) the worst excess leakage to a single party, in bits, from the leakage harness.
# Red means a single party learns something an ideal dealer would not have told it; grey means
# the figure does not apply (the encrypted deck's security is computational, and the deals'
# exact figures are the leakage harness's — see notebook 2) or the backend cannot run the
# workload securely and refused it.

# %%
grid = np.full((len(workloads), len(backends)), np.nan)
for (wl, b), r in cell.items():
    if r["excess_bits"] is not None:
        grid[workloads.index(wl), backends.index(b)] = r["excess_bits"]
fig, ax = plt.subplots(figsize=(3.2 * len(backends) + 2, 0.6 * len(workloads) + 2))
vmax = max(1.0, np.nanmax(grid) if np.isfinite(grid).any() else 1.0)
cmap = plt.get_cmap("Reds").copy()
cmap.set_bad("0.88")   # grey: the harness does not apply (computational security) or not run
im = ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, vmin=0, vmax=vmax, aspect="auto")
for i, wl in enumerate(workloads):
    for j, b in enumerate(backends):
        r = cell.get((wl, b))
        if r is None:
            text = "not run"
        elif r["runs"] == 0:
            text = f"{r['security']}\nunsupported (see notes)"
        else:
            text = f"{r['security']}\nexcess: {bits(r['excess_bits'])}"
        ax.text(j, i, text, ha="center", va="center", fontsize=9)
ax.set_xticks(range(len(backends)), backends)
ax.set_yticks(range(len(workloads)), [short[w] for w in workloads])
ax.set_xlabel("backend")
ax.set_ylabel("workload")
fig.colorbar(im, ax=ax, label="worst single-party excess leakage (bits; grey = n/a)")
ax.set_title("Security model and excess leakage per workload and backend")
fig.tight_layout()
fdnb.save(fig, "04_security")
plt.show()
leaky = [r for r in rows if r["excess_bits"]]
for r in leaky:
    party = f" to player {r['excess_party']}" if r.get("excess_party") else ""
    print(f"LEAKS: {r['workload']} on {r['backend']}: {r['excess_bits']:.4f} bits{party}")
if not leaky:
    print("no workload leaks to a single party on any backend where the harness applies")

# %% [markdown]
# ## Games as workloads: cost per trick or move
#
# `facedown compare --only game` plays one hand of each game (a Ninety-Nine deal, a Golf round, a
# Девятка deal) among distrustful players on every backend. Each row's `game` field divides the
# hand's cost by its tricks (or moves, `trick_unit`), so games of different length compare. The
# ideal table sends nothing, so its messages and bytes are 0 and not drawn on the log scale.

# %%
games = facedown.compare(seed=SEED, only="game")
grows = [r for r in games["rows"] if r.get("game")]
gnames = list(dict.fromkeys(r["workload"] for r in grows))
gcell = {(r["workload"], r["backend"]): r for r in grows}
print(f"{'game':<44} {'backend':<10} {'tricks':>6} {'unit':<6} {'CPU ms/trick':>12} {'messages/trick':>14} "
      f"{'bytes/trick':>11}")
for r in grows:
    g = r["game"]
    t = g["per_trick"]
    print(f"{r['workload']:<44} {r['backend']:<10} {g['tricks']:>6.0f} {g['trick_unit']:<6} {t['cpu_ms']:>12.3f} "
          f"{t['messages']:>14.1f} {t['bytes']:>11,.0f}")
fig, axes = plt.subplots(1, 3, figsize=(15, 4.8))
x = np.arange(len(gnames))
w = 0.8 / len(backends)
for ax, key, label in zip(axes, ("cpu_ms", "messages", "bytes"),
                          ("CPU ms per trick/move", "messages per trick/move", "bytes per trick/move")):
    for i, b in enumerate(backends):
        vals = [gcell[(g, b)]["game"]["per_trick"][key] if (g, b) in gcell else None for g in gnames]
        ax.bar(x + (i - (len(backends) - 1) / 2) * w, [v if v else np.nan for v in vals], w, label=b)
    ax.set_yscale("log")
    units = [gcell[(g, backends[0])]["game"]["trick_unit"] if (g, backends[0]) in gcell else "?" for g in gnames]
    ax.set_xticks(x, [f"{g.removeprefix('game ').split(',')[0]}\n(per {u})" for g, u in zip(gnames, units)],
                  rotation=20, ha="right", fontsize=9)
    ax.set_ylabel(f"{label} (log)")
    ax.set_title(label)
    ax.grid(axis="y", alpha=0.3)
axes[0].legend(title="backend", fontsize=9)
fig.suptitle(f"Cost of one hand of each game per trick or move, on every backend (seed {games['seed']})")
fig.tight_layout(rect=(0, 0, 1, 0.94))
fdnb.save(fig, "04_games")
plt.show()

# %% [markdown]
# ## Exercises
#
# 1. **Latency.** Rerun the comparison with `facedown.compare(seed=SEED, latency_ms=20)` (it takes
#    longer) and plot `wall_ms_at_latency` per backend. Which backend suffers most from a slow
#    network, and which column of the table predicts it?
# 2. **One workload.** `facedown.workloads()` lists the rows; `facedown.compare(only=...)` runs
#    one. Compare the ideal table's messages with the dealer's for `mks-four-card-and`: where do
#    the dealer's messages come from?
# 3. **Leakage.** Which rows have a non-zero `excess_bits`? Read their notes and explain what a
#    single curious player learns there.
# 4. **Seeds.** Run the comparison with two seeds. Which columns change, and which cannot?
# 5. **A whole game.** Rerun the games section with `games="full"` (Ninety-Nine to 100, nine
#    rounds of Golf). Does the cost per trick change from one hand to the whole game, and why
#    does the encrypted deck's cost per trick differ between Golf and Ninety-Nine?

# %%
# A starting point for exercise 2.
print(facedown.workloads())
