"""facedown from Python: card-based cryptography, the permutation-sharing dealer and
Barnett–Smart mental poker, computed by the Rust library (the same code as the ``facedown``
command-line tool) and returned as native Python objects.

Every function returns dicts, lists, strings, numbers, booleans and ``None``, shaped as the
CLI's ``--json`` output of the same command. Exact values (probabilities, expected shuffles,
total-variation distances) are strings such as ``"3/8"``; :func:`fraction` turns one into a
:class:`fractions.Fraction`. Seeded functions take ``seed`` (default 0) and record it in the
result; the same seed gives the same result whatever the number of threads.

Errors raise a subclass of :class:`FacedownError` with the library's own message; arguments
of the wrong shape raise :class:`ValueError`.

Research code, not audited: do not use it to protect anything of value.
"""

from __future__ import annotations

from fractions import Fraction

from . import _native
from ._native import (
    AnalysisError,
    CompareError,
    DealError,
    FacedownError,
    ProtocolError,
    SearchError,
    __version__,
    analyze,
    check,
    compare,
    deal,
    dealer_cheat,
    dealer_collusion,
    dealer_leakage,
    poker_bench,
    protocols,
    search,
    simulate,
    state_tree,
    state_tree_dot,
    trace,
    workloads,
)

#: The largest ``max_steps`` that :func:`search` accepts.
MAX_SEARCH_STEPS = 24

analyse = analyze


def fraction(text: str | None) -> Fraction | None:
    """An exact rational printed by facedown (``"3/8"``, ``"0"``, ``"1"``) as a Fraction."""
    return None if text is None else Fraction(text)


__all__ = [
    "AnalysisError",
    "CompareError",
    "DealError",
    "FacedownError",
    "MAX_SEARCH_STEPS",
    "ProtocolError",
    "SearchError",
    "__version__",
    "analyse",
    "analyze",
    "check",
    "compare",
    "deal",
    "dealer_cheat",
    "dealer_collusion",
    "dealer_leakage",
    "fraction",
    "poker_bench",
    "protocols",
    "search",
    "simulate",
    "state_tree",
    "state_tree_dot",
    "trace",
    "workloads",
]
del _native
