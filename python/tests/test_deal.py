"""Deals from Python: every card dealt once, the audit passes for honest players and names a
cheater, and a seed fixes the deal."""

import pytest

import facedown


def dealt_cards(d):
    return [c for hand in d["hands"] for c in hand] + d["public"]


@pytest.mark.parametrize("backend", ["dealer", "poker"])
def test_an_honest_deal_gives_distinct_cards_and_passes_its_audit(backend):
    d = facedown.deal(3, cards=12, hand=3, public=2, seed=7, backend=backend)
    assert d["backend"] == backend and d["seed"] == 7
    cards = dealt_cards(d)
    assert len(cards) == 3 * 3 + 2 and len(set(cards)) == len(cards)
    assert all(0 <= c < 12 for c in cards)
    assert d["audit"]["passed"] and d["audit"]["blame"] is None
    assert d["cost"]["messages"] > 0 and d["cost"]["bytes"] > 0


@pytest.mark.parametrize("backend", ["dealer", "poker"])
def test_a_seed_fixes_the_deal(backend):
    a = facedown.deal(3, cards=20, seed=1, backend=backend)
    b = facedown.deal(3, cards=20, seed=1, backend=backend)
    c = facedown.deal(3, cards=20, seed=2, backend=backend)
    assert a["hands"] == b["hands"]
    assert a["hands"] != c["hands"]


def test_the_dealer_phases_add_up_to_the_total():
    d = facedown.deal(4, cards=16, hand=2, public=1, seed=3)
    for key in ("messages", "bytes"):
        assert sum(p["cost"][key] for p in d["phases"]) == d["cost"][key]


@pytest.mark.parametrize(
    "cheater, kind", [(1, "value@0"), (2, "value@0"), (3, "switch"), (3, "helper"), (2, "reveal")]
)
def test_a_cheating_player_is_caught_and_named(cheater, kind):
    d = facedown.deal(3, cards=12, hand=3, seed=4, cheat=f"{cheater}:{kind}")
    assert not d["audit"]["passed"]
    assert d["audit"]["blame"] == cheater
    assert all(f["player"] == cheater for f in d["audit"]["findings"])


def test_bad_deals_raise():
    with pytest.raises(facedown.DealError, match="players"):
        facedown.deal(2)
    with pytest.raises(facedown.DealError):
        facedown.deal(3, cards=4, hand=3)
    with pytest.raises(ValueError, match="no player 9"):
        facedown.deal(3, cheat="9:value")
    with pytest.raises(ValueError, match="dealer backend only"):
        facedown.deal(3, backend="poker", cheat="1:value")
    with pytest.raises(ValueError, match="backend"):
        facedown.deal(3, backend="oracle")
