"""Keeps the teaching notebooks' two forms in step and executes them.

Each notebook is written as a jupytext percent-format source, ``NN_name.py`` (what a diff
shows), paired with ``NN_name.ipynb`` (what Jupyter opens; committed executed, with its
figures). Run with the notebooks' virtualenv (``notebooks/ci.sh`` makes it):

    python notebooks/notebooks.py check            # every .ipynb has exactly its source's cells
    python notebooks/notebooks.py execute OUT      # execute every notebook into OUT/, fail on any error
    python notebooks/notebooks.py execute --write  # execute and update the committed .ipynb files

A notebook fails when a cell raises, when it runs longer than ``--timeout`` seconds per cell,
or when none of its outputs is an image.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import jupytext
import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

HERE = Path(__file__).resolve().parent


def sources() -> list[Path]:
    """The notebook sources, in order."""
    found = sorted(HERE.glob("[0-9][0-9]_*.py"))
    if not found:
        sys.exit(f"notebooks: no NN_*.py sources in {HERE}")
    return found


def cells(nb) -> list[tuple[str, str]]:
    """What pairing must preserve: each cell's type and source."""
    return [(c.cell_type, c.source.strip()) for c in nb.cells]


def check() -> int:
    """Exit status 1 when some .ipynb is missing or differs from its source (outputs aside)."""
    stale = []
    for src in sources():
        paired = src.with_suffix(".ipynb")
        if not paired.is_file():
            stale.append(f"{paired.name}: missing")
            continue
        want = cells(jupytext.read(src))
        have = cells(nbformat.read(paired, as_version=4))
        if want != have:
            first = next((i for i, (a, b) in enumerate(zip(want, have)) if a != b), min(len(want), len(have)))
            stale.append(f"{paired.name}: differs from {src.name} at cell {first + 1} "
                         f"({len(have)} cells, source has {len(want)})")
    for line in stale:
        print(f"notebooks: {line}", file=sys.stderr)
    if stale:
        print("notebooks: run `jupytext --sync notebooks/NN_*.py` (or `notebooks.py execute --write`)",
              file=sys.stderr)
        return 1
    print(f"notebooks: {len(sources())} .ipynb files match their jupytext sources")
    return 0


def images(nb) -> int:
    """Outputs that embed a PNG or SVG figure."""
    return sum(
        1
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if "image/png" in o.get("data", {}) or "image/svg+xml" in o.get("data", {})
    )


def execute_one(src: Path, timeout: int) -> tuple[object, float]:
    """Executes one notebook from its source, in the notebooks directory."""
    nb = jupytext.read(src)
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    start = time.monotonic()
    NotebookClient(nb, timeout=timeout, kernel_name="python3",
                   resources={"metadata": {"path": str(HERE)}}).execute()
    return nb, time.monotonic() - start


def execute(out: Path | None, write: bool, timeout: int, only: list[str]) -> int:
    """Exit status 1 when a notebook fails or draws no figure; `only` names the notebooks to
    execute (`01_cards`), all when empty."""
    failed = []
    chosen = [s for s in sources() if not only or s.stem in only]
    if only and len(chosen) != len(set(only)):
        print(f"notebooks: no notebook among {only} is {sorted(set(only) - {s.stem for s in chosen})}",
              file=sys.stderr)
        return 1
    for src in chosen:
        try:
            nb, seconds = execute_one(src, timeout)
        except CellExecutionError as err:
            failed.append(f"{src.name}: {str(err).strip().splitlines()[-1]}")
            print(f"notebooks: {src.name} FAILED\n{err}", file=sys.stderr)
            continue
        figures = images(nb)
        print(f"notebooks: {src.name}: executed in {seconds:.1f} s, {figures} figure(s)")
        if figures == 0:
            failed.append(f"{src.name}: no figure")
        targets = ([out / src.with_suffix(".ipynb").name] if out else []) + (
            [src.with_suffix(".ipynb")] if write else [])
        for target in targets:
            target.parent.mkdir(parents=True, exist_ok=True)
            jupytext.write(nb, target, fmt="ipynb")
    for line in failed:
        print(f"notebooks: FAILED {line}", file=sys.stderr)
    return 1 if failed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("check", help="every .ipynb has its source's cells")
    run = sub.add_parser("execute", help="execute every notebook")
    run.add_argument("out", nargs="?", type=Path, help="directory for the executed notebooks")
    run.add_argument("--write", action="store_true", help="update the committed .ipynb files")
    run.add_argument("--timeout", type=int, default=600, help="seconds per cell (default 600)")
    run.add_argument("--only", action="append", default=[], metavar="NAME",
                     help="execute only this notebook (01_cards; repeatable)")
    args = parser.parse_args()
    if args.command == "check":
        return check()
    return execute(args.out, args.write, args.timeout, args.only)


if __name__ == "__main__":
    sys.exit(main())
