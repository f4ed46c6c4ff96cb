#!/usr/bin/env bash
# Executes every teaching notebook (notebooks/NN_*.py, jupytext percent format) against the
# facedown binary and fails if any cell fails or a notebook draws no figure.
#
#   FACEDOWN            the binary (default: $CARGO_TARGET_DIR or target, /release/facedown if it
#                       exists, else `cargo run --release --quiet --`). This script builds nothing.
#   NOTEBOOKS_VENV      the virtualenv (default notebooks/.venv, git-ignored; reused when
#                       requirements.txt has not changed).
#   NOTEBOOKS_OUT       where the executed .ipynb files and the PNG figures go
#                       (default: a fresh temporary directory, printed at the end).
#   NOTEBOOKS_TIMEOUT   seconds allowed per notebook (default 240).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
cd "$root"

python="${PYTHON:-python3.11}"
command -v "$python" >/dev/null 2>&1 || python=python3
venv="${NOTEBOOKS_VENV:-$here/.venv}"
stamp="$venv/.requirements.sha256"
want="$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)"
if [[ ! -x "$venv/bin/python" || "$(cat "$stamp" 2>/dev/null)" != "$want" ]]; then
    echo "notebooks: installing requirements into $venv"
    rm -rf "$venv"
    "$python" -m venv "$venv"
    # requirements.txt pins the whole closure, so skip the resolver (minutes on a loaded
    # machine) and let `pip check` prove that nothing is missing or inconsistent.
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps \
        -r "$here/requirements.txt"
    "$venv/bin/python" -m pip check
    echo "$want" >"$stamp"
    echo "notebooks: installed in $SECONDS s"
fi

if [[ -z "${FACEDOWN:-}" ]]; then
    target="${CARGO_TARGET_DIR:-target}"
    [[ "$target" = /* ]] || target="$root/$target"
    if [[ -x "$target/release/facedown" ]]; then
        export FACEDOWN="$target/release/facedown"
    else
        echo "notebooks: no \$FACEDOWN and no $target/release/facedown; the notebooks will use cargo run --release" >&2
    fi
fi
echo "notebooks: facedown = ${FACEDOWN:-cargo run --release --quiet --}"

out="${NOTEBOOKS_OUT:-$(mktemp -d -t facedown-notebooks.XXXXXX)}"
mkdir -p "$out/figures"
export FACEDOWN_FIGURES="$out/figures"
export PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}"
export MPLBACKEND=Agg

shopt -s nullglob
sources=("$here"/[0-9][0-9]_*.py)
if (( ${#sources[@]} == 0 )); then
    echo "notebooks: no notebook sources found in $here" >&2
    exit 1
fi
notebooks=()
for src in "${sources[@]}"; do
    nb="$out/$(basename "${src%.py}").ipynb"
    "$venv/bin/jupytext" --quiet --to ipynb --output "$nb" "$src"
    notebooks+=("$nb")
done

start=$SECONDS
status=0
"$venv/bin/python" -m pytest --nbmake --nbmake-timeout="${NOTEBOOKS_TIMEOUT:-240}" --overwrite \
    -p no:cacheprovider -q "${notebooks[@]}" || status=$?
if (( status == 5 )); then
    echo "notebooks: pytest collected no notebooks" >&2
    exit 1
elif (( status != 0 )); then
    echo "notebooks: FAILED (pytest exit status $status); executed notebooks in $out" >&2
    exit "$status"
fi

# Every notebook must have drawn at least one figure (saved as NN_*.png by fdnb.save), unless it
# recorded that the binary lacks the subcommand it needs (NN_*.SKIPPED, written by fdnb.skipped).
skips=0
for src in "${sources[@]}"; do
    name="$(basename "${src%.py}")"
    prefix="${name:0:2}"
    figs=("$out/figures/${prefix}"_*.png)
    if [[ -f "$out/figures/$name.SKIPPED" ]]; then
        skips=$((skips + 1))
        echo "notebooks: WARNING: $name skipped part of its work:" >&2
        sed 's/^/    /' "$out/figures/$name.SKIPPED" >&2
    elif (( ${#figs[@]} == 0 )); then
        echo "notebooks: $name saved no figure" >&2
        exit 1
    fi
done
echo "notebooks: ${#notebooks[@]} notebooks executed in $((SECONDS - start)) s;" \
    "$(ls "$out/figures"/*.png 2>/dev/null | wc -l) figures in $out/figures;" \
    "$skips skipped for a missing subcommand"
