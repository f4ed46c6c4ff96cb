"""The dealer's harnesses and the poker bench from Python: single players learn nothing beyond
their cards, players 1 and 3 read player 2's hand, what a coalition learns beyond the opened
cards shrinks as more are opened, every steering cheater is caught and no honest player is
framed, and a seed fixes every Monte-Carlo figure."""

import math

import pytest

import facedown


def test_single_players_learn_nothing_beyond_their_cards():
    out = facedown.dealer_collusion(3, cards=5)
    assert out["method"] == "exact" and out["players"] == 3
    singles = [r for r in out["rows"] if len(r["coalition"]) == 1]
    assert singles and all(r["excess_is_zero"] for r in singles)


def test_players_1_and_3_read_player_2s_hand():
    out = facedown.dealer_collusion(3, cards=5)
    rows = [
        r
        for r in out["rows"]
        if r["coalition"] == [1, 3] and r["target"] == "hand of player 2"
    ]
    assert rows and all(r["excess_bits"] > 0 and not r["excess_is_zero"] for r in rows)


def test_collusion_monte_carlo_is_fixed_by_its_seed():
    args = dict(cards=6, hand=1, public=1, samples=30)
    a = facedown.dealer_collusion(3, seed=5, **args)
    b = facedown.dealer_collusion(3, seed=5, **args)
    assert a["seed"] == 5 and len(a["monte_carlo"]) == 1
    assert a["monte_carlo"][0]["rows"] == b["monte_carlo"][0]["rows"]


def test_leakage_shrinks_as_cards_are_opened_and_single_players_learn_nothing():
    out = facedown.dealer_leakage(3, cards=5)
    points = out["points"]
    assert out["method"] == "exact" and points
    assert all(p["excess_is_zero"] for p in points if len(p["coalition"]) == 1)
    # Players 1 and 2 of the general scheme together hold everything: all 5! deals.
    start = [p for p in points if p["coalition"] == [1, 2] and p["openings"] == 0]
    assert start and start[0]["excess_bits"] == pytest.approx(math.log2(math.factorial(5)))
    series = {}
    for p in points:
        if p["kind"] == "public":
            series.setdefault(tuple(p["coalition"]), []).append(p)
    for ps in series.values():
        ps.sort(key=lambda p: p["openings"])
        bits = [p["excess_bits"] for p in ps]
        assert bits == sorted(bits, reverse=True), ps
        assert ps[-1]["excess_is_zero"], ps


def test_every_cheater_is_caught_and_no_honest_player_is_framed():
    out = facedown.dealer_cheat(3, cards=6, samples=5, seed=1)
    rows = out["rows"]
    assert out["seed"] == 1 and out["trials"] == 5 and len(rows) >= 12
    assert all(r["framed"] == 0 for r in rows)
    assert all(r["trials"] == 5 for r in rows)
    # A deviation that changed a card somebody learned is always detected by the audit.
    steered = [r for r in rows if r["steered"] > 0]
    assert steered and all(r["detected"] >= r["steered"] for r in steered)
    again = facedown.dealer_cheat(3, cards=6, samples=5, seed=1)
    assert [r["detected"] for r in again["rows"]] == [r["detected"] for r in rows]


def test_the_poker_bench_reports_every_deck_size():
    out = facedown.poker_bench([8, 16], reps=1, token_reps=1, seed=2)
    assert out["seed"] == 2
    assert [r["cards"] for r in out["reports"]] == [8, 16]


def test_bad_harness_arguments_raise():
    with pytest.raises(facedown.DealError):
        facedown.dealer_collusion(3, cards=5, hand=3)
    with pytest.raises(ValueError, match="three players"):
        facedown.dealer_leakage(4, scheme="published")
    with pytest.raises(ValueError, match="deck size"):
        facedown.poker_bench([])
    with pytest.raises(facedown.DealError):
        facedown.poker_bench([1], reps=1, token_reps=1)
