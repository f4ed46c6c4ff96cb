"""The card-protocol functions reproduce the library's claims from Python."""

from fractions import Fraction

import pytest

import facedown


def test_every_builtin_claim_holds_through_check(library):
    for name in library:
        verdict = facedown.check(name)
        assert verdict["holds"], (name, verdict["mismatches"])


def test_five_card_trick_is_correct_and_perfectly_secure_dB89():
    a = facedown.analyze("five-card-trick")
    assert a["correct"] is True
    assert a["security"] == "perfect"
    assert a["runtime"] == "finite"
    assert facedown.fraction(a["tv_distance"]) == 0
    assert facedown.fraction(a["expected_shuffles"]) == 1
    assert a["claim_holds"] is True and a["claim_mismatches"] == []


def test_mks_and_expects_two_shuffles_MKS12():
    a = facedown.analyse("mks-four-card-and")
    assert a["cards"] == 4 and a["correct"] and a["security"] == "perfect"
    assert facedown.fraction(a["expected_shuffles"]) == Fraction(2)


def test_the_trick_without_its_cut_is_flagged_insecure(library):
    assert library["five-card-trick-no-cut"]["negative_example"]
    a = facedown.analyze("five-card-trick-no-cut")
    assert a["security"] == "insecure"
    assert facedown.fraction(a["tv_distance"]) > 0
    assert a["leak_beyond_output_bits"] > 0


def test_analyze_reads_protocol_text_and_files(library, tmp_path):
    source = library["five-card-trick"]["source"]
    from_text = facedown.analyze(source)
    path = tmp_path / "trick.cards"
    path.write_text(source, encoding="utf-8")
    from_file = facedown.analyze(str(path))
    builtin = facedown.analyze("five-card-trick")
    for a in (from_text, from_file):
        for key in ("correct", "security", "expected_shuffles", "tv_distance", "branches"):
            assert a[key] == builtin[key]


def test_check_reports_an_expectation_that_fails():
    verdict = facedown.check("five-card-trick-no-cut", expect="perfect")
    assert not verdict["holds"]
    assert any("perfect" in m for m in verdict["mismatches"])


def test_simulation_is_seeded_and_counts_every_run():
    first = facedown.simulate("mks-four-card-and", runs=2000, seed=11)
    again = facedown.simulate("mks-four-card-and", runs=2000, seed=11)
    other = facedown.simulate("mks-four-card-and", runs=2000, seed=12)
    assert first["views"] == again["views"]
    assert first["views"] != other["views"]
    assert first["seed"] == 11 and first["total_runs"] == 4 * 2000
    for row, correct in zip(first["inputs"], first["correct_runs"]):
        assert row["runs"] == 2000 and correct == 2000
    for view in first["views"]:
        assert len(view["counts"]) == 4
    assert sum(sum(v["counts"]) for v in first["views"]) == first["total_runs"]


def test_simulation_of_one_input():
    s = facedown.simulate("five-card-trick", runs=500, seed=0, input="1,1")
    assert [r["input"] for r in s["inputs"]] == ["11"]
    assert s["correct_runs"] == [500]


def test_simulation_of_any_deck_and_of_numbers():
    # Four colours [CK93]: the general simulator, every run right.
    colours = facedown.simulate("ms09-xor-four-colours", runs=400, seed=3)
    assert colours["correct_runs"] == [400] * 4
    # Numbers modulo 3: each input's committed result always held its sum.
    add = facedown.simulate("one-hot-add-mod-3", runs=300, seed=3)
    for row in add["inputs"]:
        number = row["number"]
        assert number["modulus"] == 3
        assert number["counts"][number["expected"]] == 300


@pytest.mark.parametrize("bits", ["00", "01", "10", "11"])
def test_trace_outputs_the_and_of_its_input(bits):
    t = facedown.trace("five-card-trick", input=[int(b) for b in bits], seed=5)
    assert t["input"] == bits
    assert t["output"] == (bits == "11")
    assert t["shuffles"] == 1 and t["steps"]


def test_state_tree_probabilities_sum_to_one_per_input():
    tree = facedown.state_tree("five-card-trick")
    root = tree["vertices"][0]
    assert all(facedown.fraction(p) == 1 for p in root["reached"])
    ends = [v for v in tree["vertices"] if v["kind"].startswith("end")]
    for column in range(len(tree["inputs"])):
        assert sum(facedown.fraction(v["reached"][column]) for v in ends) == 1
    assert facedown.state_tree_dot("five-card-trick").startswith("digraph")
