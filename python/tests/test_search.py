"""The bounded protocol search from Python reproduces the known minimal protocols."""

import pytest

import facedown


def test_four_card_las_vegas_and_exists_KWH15():
    r = facedown.search("♣♣♥♥", "and", 6, runtime="las-vegas", committed=True, first=True)
    assert r["found"] and r["length"] is not None
    assert len(r["protocols"]) == 1
    verdict = r["analyses"][0]
    assert verdict["security"] == "perfect" and verdict["runtime"] == "las-vegas"
    # The protocol found is a .cards text the analyzer accepts again from Python.
    again = facedown.analyze(r["protocols"][0])
    assert again["correct"] and again["security"] == "perfect"


def test_no_finite_four_card_committed_and_within_a_small_bound():
    r = facedown.search("♣♣♥♥", "and", 3, committed=True)
    assert not r["found"] and r["protocols"] == []
    assert [d["depth"] for d in r["per_depth"]] == [1, 2, 3]


def test_the_search_is_bounded():
    with pytest.raises(ValueError, match="bound"):
        facedown.search("♣♣♥♥", "and", facedown.MAX_SEARCH_STEPS + 1)


def test_bad_queries_raise_search_errors():
    with pytest.raises(facedown.SearchError, match="bad deck"):
        facedown.search("♣♣X", "and", 2)
    with pytest.raises(facedown.SearchError, match="bad function"):
        facedown.search("♣♣♥♥", "maybe", 2)
    with pytest.raises(ValueError, match="shuffles"):
        facedown.search("♣♣♥♥", "and", 2, shuffles="sometimes")
