# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 3. Mental poker on ristretto255: keys, masking, shuffle with proof, opening
#
# Barnett–Smart mental poker [BS03] deals cards without any trusted party: every card is an
# ElGamal ciphertext under a **joint key** that no single player knows, every player shuffles
# the deck in turn and **proves** his shuffle correct (a Bayer–Groth argument [BG12]), and a card
# is opened only when every player contributes a **reveal token** with a proof. Unlike the
# permutation-sharing dealer (notebook 2), it resists up to N − 1 malicious players, at the cost
# of public-key arithmetic.
#
# Every number below is printed by `facedown poker deal --json` or `facedown poker bench --json`;
# the notebook only arranges and plots them. Parameters are small so that CI runs fast; change
# `CARDS`, `REPS` to reproduce the README's figures.

# %%
import matplotlib.pyplot as plt
import numpy as np

import facedown
import fdnb

fdnb.style()

PLAYERS = 4
CARDS = 52
HAND = 2
PUBLIC = 5
SEED = 7
REPS = 3          # shuffle prove/verify repetitions per deck size (the README uses 101)
TOKEN_REPS = 201  # reveal-token and masking repetitions (the README uses 1001)
print("facedown", facedown.__version__, "(Python package); CLI:", fdnb.shown_command())

# %% [markdown]
# ## The protocol, step by step
#
# | step | what each player does | proof | who checks |
# |---|---|---|---|
# | **keys** | picks a secret share $x_i$, publishes $h_i = x_i G$ with a Schnorr proof of knowledge of $x_i$; the joint key is $H = \sum_i h_i$ | Schnorr (bound to session, round, player) | everyone |
# | **masking** | the deck starts as the public card points $M_c$; each card is encrypted as $(rG,\; M_c + rH)$ and can be re-masked by anyone | Chaum–Pedersen: the same $r$ in both halves | everyone |
# | **shuffle** | each player in turn permutes the deck by a secret $\pi$ and re-randomises every ciphertext | Bayer–Groth shuffle argument ($m = 1$, $3n + 4$ scalars) | everyone |
# | **opening** | for a card, each player publishes (public opening) or sends to the owner (private opening) the token $x_i \cdot C_1$; with all $N$ tokens, $M_c = C_2 - \sum_i x_i C_1$ | Chaum–Pedersen: the token uses the same $x_i$ as $h_i$ | everyone / the owner |
#
# As long as one player shuffled honestly, nobody knows the permutation; as long as one player
# keeps his share, nobody can open a card alone.

# %% [markdown]
# ## A deal: hands, public cards, audit, cost

# %%
deal = facedown.deal(PLAYERS, cards=CARDS, hand=HAND, public=PUBLIC, seed=SEED, backend="poker")
RANKS, SUITS = "23456789TJQKA", "♣♦♥♠"
def card_name(c):
    """Card number 0..51 as rank and suit (only a display convention for 52 cards)."""
    return RANKS[c % 13] + SUITS[c // 13] if deal["cards"] == 52 else str(c)

for i, hand in enumerate(deal["hands"], start=1):
    print(f"player {i} sees his hand: {' '.join(card_name(c) for c in hand)}")
print("public cards:", " ".join(card_name(c) for c in deal["public"]))
audit = deal["audit"]
print("audit:", "passed" if audit["passed"] else f"FAILED, blame {audit['blame']}: {audit['error']}")
cost = deal["cost"]
print(f"cost: {cost['messages']} messages, {cost['bytes']:,} bytes, {cost['rounds']} rounds (seed {deal['seed']})")
assert audit["passed"], "an honest deal must pass its audit"
dealt = [c for h in deal["hands"] for c in h] + deal["public"]
assert len(set(dealt)) == len(dealt), "no card is dealt twice"

# %% [markdown]
# ## What each step costs: sizes and timings
#
# `poker bench` measures each proof on one machine: the median wall-clock time over the
# repetitions and, because the CI machine is shared, the mean CPU time of the measuring thread
# (what the operation costs when it has a core). Sizes are exact byte counts of the canonical
# encoding.

# %%
bench = fdnb.run_json("poker", "bench", "--cards", CARDS, "--reps", REPS,
                      "--token-reps", TOKEN_REPS, "--seed", SEED)
build = "optimised" if bench["optimized"] else "UNOPTIMISED debug build: timings meaningless"
load = bench.get("load_average")
print(f"{bench['cards']} cards, {build}, 1-min load average {load if load is not None else 'unknown'}")
rows = [
    ("mask a card + proof", bench["mask_prove_ms"], None, bench["mask_verify_ms"], None, bench["mask_bytes"]),
    ("shuffle the deck + proof", bench["shuffle_prove_ms"], bench["shuffle_prove_cpu_ms"],
     bench["shuffle_verify_ms"], bench["shuffle_verify_cpu_ms"], bench["shuffle_proof_bytes"]),
    ("reveal token + proof", bench["reveal_prove_ms"], bench["reveal_prove_cpu_ms"],
     bench["reveal_verify_ms"], bench["reveal_verify_cpu_ms"], bench["reveal_bytes"]),
]
# The CPU clock (/proc/thread-self/schedstat) advances in scheduler ticks: a total below a tick
# reads as 0, so a CPU figure of exactly 0 means "too few repetitions to measure", not "free".
fmt = lambda x: "n/a" if x is None else ("<tick" if x == 0 else f"{x:.3f}")
print(f"{'step':<26} {'prove ms':>9} {'(CPU)':>7} {'verify ms':>10} {'(CPU)':>7} {'proof B':>8}")
for name, p, pc, v, vc, b in rows:
    print(f"{name:<26} {p:9.3f} {fmt(pc):>7} {v:10.3f} {fmt(vc):>7} {b:8d}")
print(f"the shuffled deck itself: {bench['deck_bytes']} B (+ {bench['deck_decode_ms']:.3f} ms to decode)")

# %%
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 3.8))
names = [r[0] for r in rows]
y = np.arange(len(rows))
nz = lambda v: v if v else 0   # no bar where the CPU figure is unavailable or below a tick
ax1.barh(y - 0.3, [r[1] for r in rows], 0.2, color="tab:blue", label="prove, median wall")
ax1.barh(y - 0.1, [nz(r[2]) for r in rows], 0.2, color="tab:blue", alpha=0.45, hatch="//", label="prove, mean CPU")
ax1.barh(y + 0.1, [r[3] for r in rows], 0.2, color="tab:orange", label="verify, median wall")
ax1.barh(y + 0.3, [nz(r[4]) for r in rows], 0.2, color="tab:orange", alpha=0.45, hatch="//", label="verify, mean CPU")
ax1.set_yticks(y, names)
ax1.set_xscale("log")
ax1.set_xlabel("time per operation (ms, log scale)")
ax1.set_title(f"Time of each step, {CARDS}-card deck")
ax1.legend(loc="lower right", fontsize=9)
ax2.barh(y, [r[5] for r in rows], color="tab:green", label="proof / token size")
ax2.set_yticks(y, names)
ax2.set_xscale("log")
ax2.set_xlabel("bytes (log scale)")
ax2.set_title("Size of each proof")
ax2.legend(loc="lower right")
fig.tight_layout()
fdnb.save(fig, "03_steps")
plt.show()

# %% [markdown]
# ## How the shuffle proof grows with the deck
#
# The Bayer–Groth argument with one row has 8 points and $3n + 4$ scalars of 32 bytes each,
# i.e. $32\,(3n + 12)$ bytes before framing, so its size is linear in $n$; the verifier does one multiscalar multiplication of $5n + 11$
# points. We measure a few deck sizes. On a loaded machine an operation longer than a scheduler
# time slice is usually preempted, so its *wall-clock* median jumps; the *CPU-time* curves show
# what the operation costs when it has a core, and should be close to linear in $n$.

# %%
sizes = [8, 16, 32, CARDS]
# enough repetitions that each size runs ≈ 200 card-operations, so CPU totals span several ticks
sweep = [fdnb.run_json("poker", "bench", "--cards", n, "--reps", max(REPS, -(-200 // n)),
                       "--token-reps", 3, "--seed", SEED) for n in sizes]
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 3.8))
ax1.plot(sizes, [b["shuffle_proof_bytes"] for b in sweep], "o-", label="shuffle proof")
ax1.plot(sizes, [b["deck_bytes"] for b in sweep], "s--", label="shuffled deck (ciphertexts)")
ax1.set_xlabel("deck size n (cards)")
ax1.set_ylabel("bytes")
ax1.set_title("Shuffle message size against deck size")
ax1.legend()
ax1.grid(alpha=0.3)
ax2.plot(sizes, [b["shuffle_prove_ms"] for b in sweep], "o-", label="prove (median wall)")
ax2.plot(sizes, [b["shuffle_verify_ms"] for b in sweep], "s-", label="verify (median wall)")
for key, style, label in (("shuffle_prove_cpu_ms", "o:", "prove (mean CPU)"),
                          ("shuffle_verify_cpu_ms", "s:", "verify (mean CPU)")):
    cpu = [b[key] for b in sweep]
    if all(c for c in cpu):   # None: no CPU clock on this OS; 0: below one tick
        ax2.plot(sizes, cpu, style, label=label)
ax2.set_xlabel("deck size n (cards)")
ax2.set_ylabel("time (ms)")
ax2.set_title(f"Shuffle proof time (1-min load {sweep[-1].get('load_average')})")
ax2.legend()
ax2.grid(alpha=0.3)
fig.tight_layout()
fdnb.save(fig, "03_shuffle_scaling")
plt.show()
for n, b in zip(sizes, sweep):
    raw = 32 * (3 * n + 12)
    print(f"n = {n:3d}: proof {b['shuffle_proof_bytes']:6d} B (8 points + 3n+4 scalars = {raw} B, "
          f"framing {b['shuffle_proof_bytes'] - raw:+d} B), deck {b['deck_bytes']:6d} B")

# %% [markdown]
# ## What a whole deal costs against the number of players
#
# The steps are broadcasts — key shares, each player's shuffle with its proof, the reveal tokens
# (batched per step) — from every player to every other, so the message count grows like
# $N(N-1)$ (the last column divides it out), while the number of rounds grows by about one per
# player because the shuffles are sequential. Bytes grow faster than messages: each extra player
# adds a whole shuffled deck and proof that everyone receives.

# %%
players = [2, 3, 4, 5, 6]
deals = [facedown.deal(p, cards=CARDS, hand=HAND, public=PUBLIC, seed=SEED, backend="poker")
         for p in players]
assert all(d["audit"]["passed"] for d in deals)
fig = fdnb.plot_deal_cost(players, deals, f"Cost of a {CARDS}-card deal ({HAND} per hand, {PUBLIC} public)")
fdnb.save(fig, "03_deal_cost")
plt.show()
for p, d in zip(players, deals):
    c = d["cost"]
    print(f"N = {p}: {c['messages']:4d} messages, {c['bytes']:8,d} bytes, {c['rounds']:3d} rounds, "
          f"messages / (N(N-1)) = {c['messages'] / (p * (p - 1)):.2f}")

# %% [markdown]
# ## Exercises
#
# 1. **Where do the bytes go?** For one deal, compare `deal["cost"]["bytes"]` with the proof
#    and deck sizes from the bench: what fraction of the traffic are shuffle proofs?
# 2. **Two players.** Mental poker works for $N = 2$, the permutation-sharing dealer does not
#    (`facedown.deal(2)` raises `DealError`). Why does the dealer need a third player?
# 3. **Deck size.** Deal with `cards=13, 26, 52` and plot bytes against the deck size. Is it
#    linear, as the $3n + 4$ scalars of the shuffle argument suggest?
# 4. **Seeds.** Show that two deals with the same seed are identical, and that the seed is
#    recorded in the result. Why does a reproducible deal not weaken the protocol?

# %%
# A starting point for exercise 4.
a = facedown.deal(2, cards=10, seed=1, backend="poker")
b = facedown.deal(2, cards=10, seed=1, backend="poker")
print(a["hands"], b["hands"], a["seed"])
