"""The comparison from Python: three backends per workload, the ideal table leaks nothing."""

import pytest

import facedown


def test_a_workload_runs_on_every_backend():
    out = facedown.compare(only="five-card-trick", seed=3)
    assert out["seed"] == 3
    rows = out["rows"]
    assert [r["backend"] for r in rows] == ["ideal", "dealer", "encrypted"]
    ideal, dealer, encrypted = rows
    assert ideal["excess_bits"] == 0 and ideal["messages"] == 0
    assert dealer["messages"] > 0 and encrypted["bytes"] > dealer["bytes"]
    assert encrypted["excess_bits"] is None  # computational security: no exact leakage
    assert all(r["runs"] > 0 for r in rows)


def test_workloads_are_listed_and_only_must_match_one():
    names = facedown.workloads()
    assert "five-card-trick" in names and any(n.startswith("poker") for n in names)
    with pytest.raises(ValueError, match="matches no workload"):
        facedown.compare(only="pokr")
