"""Helpers shared by the facedown teaching notebooks.

The notebooks never compute a protocol result themselves: every number comes from the
``facedown`` Python package (``pip install ./python``) or, for the harnesses it does not wrap,
from the ``facedown`` command-line tool's ``--json`` output.  This module finds the binary,
runs it, sets the figure style and saves figures.

* ``FACEDOWN``          path to the ``facedown`` binary; when unset, ``target/release/facedown``
                        (under ``CARGO_TARGET_DIR`` if set) is used if it exists, else
                        ``cargo run --release --quiet --`` from the repository root.
* ``FACEDOWN_FIGURES``  when set, every figure is also saved there as PNG (CI checks them).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

#: The repository root (this file lives in ``<root>/notebooks``).
ROOT = Path(__file__).resolve().parent.parent


def command() -> list[str]:
    """The command line that runs ``facedown``."""
    explicit = os.environ.get("FACEDOWN")
    if explicit:
        return shlex.split(explicit)
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    if not target.is_absolute():
        target = ROOT / target
    built = target / "release" / "facedown"
    if built.is_file():
        return [str(built)]
    return ["cargo", "run", "--release", "--quiet", "--"]


def shown_command() -> str:
    """The command line that runs ``facedown``, with paths inside the repository written
    relative to it (so an executed notebook names no path of the machine it ran on)."""
    def rel(arg: str) -> str:
        try:
            return str(Path(arg).resolve().relative_to(ROOT))
        except ValueError:
            return arg if not Path(arg).is_absolute() else Path(arg).name
    return " ".join(rel(a) for a in command())


class MissingSubcommand(RuntimeError):
    """The binary has no such subcommand (an older build)."""


def run(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    """Runs ``facedown ARGS`` from the repository root and returns the finished process."""
    cmd = command() + [str(a) for a in args]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise RuntimeError(
            f"`{' '.join(cmd)}` exited with status {proc.returncode}:\n{proc.stderr.strip()}"
        )
    return proc


def run_json(*args: str):
    """Runs ``facedown ARGS --json`` and parses what it prints."""
    return json.loads(run(*args, "--json").stdout)


def has_subcommand(*path: str) -> bool:
    """True when this build has the subcommand ``facedown PATH…``.

    False only when the binary itself works and clap rejects the subcommand as unrecognized;
    any other failure (a missing or broken binary) raises, so it can never pass as a skip.
    """
    run("--version")
    proc = run(*path, "--help", check=False)
    if proc.returncode == 0:
        return True
    if "unrecognized subcommand" in proc.stderr:
        return False
    raise RuntimeError(f"`facedown {' '.join(path)} --help` failed:\n{proc.stderr.strip()}")


def skipped(notebook: str, reason: str) -> None:
    """Says loudly that part of a notebook did not run, and records it for ci.sh.

    Used only when the binary lacks a subcommand; writes ``$FACEDOWN_FIGURES/NOTEBOOK.SKIPPED``.
    """
    print(f"SKIPPED: {reason}")
    out = os.environ.get("FACEDOWN_FIGURES")
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        with open(Path(out) / f"{notebook}.SKIPPED", "a", encoding="utf-8") as f:
            f.write(reason + "\n")


#: Resolution of saved and embedded figures (print quality).
DPI = 200


def style() -> None:
    """Figure defaults for print: readable fonts, and figures embedded in the notebook at
    ``DPI`` (shown at their normal size, as on a high-resolution screen)."""
    import matplotlib.pyplot as plt

    plt.rcParams.update({
        "figure.dpi": DPI / 2,
        "savefig.dpi": DPI,
        "font.size": 11,
        "axes.titlesize": 12,
        "axes.labelsize": 11,
        "xtick.labelsize": 10,
        "ytick.labelsize": 10,
        "legend.fontsize": 9,
    })
    try:
        from matplotlib_inline.backend_inline import set_matplotlib_formats

        set_matplotlib_formats("retina")   # PNG at 2 × figure.dpi = DPI
    except ImportError:   # outside Jupyter
        pass


def save(fig, name: str) -> None:
    """Saves ``fig`` as ``$FACEDOWN_FIGURES/NAME.png`` (at ``DPI``) when that variable is set."""
    out = os.environ.get("FACEDOWN_FIGURES")
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        fig.savefig(Path(out) / f"{name}.png", dpi=DPI, bbox_inches="tight")


def wall_ms(doc: dict) -> float:
    """The wall time of a CLI JSON document in ms (``wall_ms``; ``wall_time_ms`` in older builds)."""
    return doc["wall_ms"] if "wall_ms" in doc else doc["wall_time_ms"]


def frac(text: str) -> float:
    """A rational printed by facedown (``"3/8"``, ``"0"``, ``"1"``) as a float, for plotting only."""
    if "/" in text:
        num, den = text.split("/")
        return int(num) / int(den)
    return float(text)


def plot_deal_cost(players: list[int], deals: list[dict], title: str):
    """Bytes (left axis), messages and rounds (right axis) of one deal per player count, from
    the ``cost`` field of ``dealer deal --json`` / ``poker deal --json``; returns the figure."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(players, [d["cost"]["bytes"] / 1024 for d in deals], "o-", color="tab:blue", label="bytes (KiB)")
    ax.set_xlabel("players N")
    ax.set_ylabel("bytes sent, all players (KiB)")
    ax2 = ax.twinx()
    ax2.plot(players, [d["cost"]["messages"] for d in deals], "s--", color="tab:orange", label="messages")
    ax2.plot(players, [d["cost"]["rounds"] for d in deals], "^:", color="tab:red", label="rounds")
    ax2.set_ylabel("messages / rounds (count)")
    lines = ax.get_lines() + ax2.get_lines()
    ax.legend(lines, [line.get_label() for line in lines], loc="upper left")
    ax.set_title(title)
    ax.set_xticks(players)
    fig.tight_layout()
    return fig
