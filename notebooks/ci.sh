#!/usr/bin/env bash
# The Python and Jupyter step of CI: builds and installs the Python package (python/), runs its
# pytest suite, checks that every committed .ipynb matches its jupytext source, and executes
# every notebook (failing on any error, or on a notebook that draws no figure).
#
#   FACEDOWN            the binary the notebooks call for what the Python package does not wrap
#                       (the dealer harnesses, the poker bench); default: target/release/facedown
#                       if built, else `cargo run --release --quiet --`.
#   NOTEBOOKS_VENV      the virtualenv (default notebooks/.venv, git-ignored; rebuilt when
#                       requirements.txt changes).
#   NOTEBOOKS_OUT       where the executed .ipynb files and PNG figures go (default: a fresh
#                       temporary directory). The committed notebooks are never rewritten here.
#   NOTEBOOKS_TIMEOUT   seconds allowed per cell (default 600).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
cd "$root"

python="${PYTHON:-python3.11}"
command -v "$python" >/dev/null 2>&1 || python=python3
venv="${NOTEBOOKS_VENV:-$here/.venv}"
stamp="$venv/.requirements.sha256"
want="$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)"
step=$SECONDS
if [[ ! -x "$venv/bin/python" || "$(cat "$stamp" 2>/dev/null)" != "$want" ]]; then
    echo "notebooks: installing requirements into $venv"
    rm -rf "$venv"
    "$python" -m venv "$venv"
    # requirements.txt pins the whole closure, so skip the resolver and let `pip check` prove
    # that nothing is missing or inconsistent.
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps \
        -r "$here/requirements.txt"
    "$venv/bin/python" -m pip check
    echo "$want" >"$stamp"
fi
echo "notebooks: virtualenv ready in $((SECONDS - step)) s"
# NOTEBOOKS_SETUP_ONLY=1: make the virtualenv and stop (.ci/run does this while `cargo test`
# runs, since it waits on the network and the disk, not the cores).
[[ "${NOTEBOOKS_SETUP_ONLY:-}" = 1 ]] && exit 0
export PATH="$venv/bin:$PATH"   # maturin, jupytext and the kernel come from the venv

# The extension is built by maturin (pinned in requirements.txt) into the workspace's target/,
# so it reuses what `cargo test` and `cargo bench --no-run` compiled before it.
step=$SECONDS
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-build-isolation \
    --force-reinstall --no-deps "$root/python"
echo "notebooks: Python package built and installed in $((SECONDS - step)) s"

step=$SECONDS
"$venv/bin/python" -m pytest -p no:cacheprovider -q "$root/python/tests"
echo "notebooks: Python tests ran in $((SECONDS - step)) s"

"$venv/bin/python" "$here/notebooks.py" check

if [[ -z "${FACEDOWN:-}" ]]; then
    target="${CARGO_TARGET_DIR:-target}"
    [[ "$target" = /* ]] || target="$root/$target"
    if [[ -x "$target/release/facedown" ]]; then
        export FACEDOWN="$target/release/facedown"
    fi
fi
echo "notebooks: facedown binary = ${FACEDOWN:-cargo run --release --quiet --}"

out="${NOTEBOOKS_OUT:-$(mktemp -d -t facedown-notebooks.XXXXXX)}"
mkdir -p "$out/figures"
export FACEDOWN_FIGURES="$out/figures"
export PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}"
export MPLBACKEND=module://matplotlib_inline.backend_inline

step=$SECONDS
"$venv/bin/python" "$here/notebooks.py" execute --timeout "${NOTEBOOKS_TIMEOUT:-600}" "$out"

# A notebook that found the binary without a subcommand it needs says so (NN_*.SKIPPED, written
# by fdnb.skipped): a warning, never silent.
shopt -s nullglob
for skipped in "$out/figures"/*.SKIPPED; do
    echo "notebooks: WARNING: $(basename "${skipped%.SKIPPED}") skipped part of its work:" >&2
    sed 's/^/    /' "$skipped" >&2
done
echo "notebooks: executed in $((SECONDS - step)) s;" \
    "$(ls "$out/figures"/*.png 2>/dev/null | wc -l) figures saved in $out/figures"
