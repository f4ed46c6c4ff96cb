#!/usr/bin/env bash
# The browser test of `facedown serve`: installs Debian's Chromium and its WebDriver and the
# pinned Python client when missing, then drives every room (tests/browser/classroom.py) with
# the CLI at $FACEDOWN (default: the debug build). Screenshots go to $SCREENSHOTS.
set -euo pipefail
cd "$(dirname "$0")/../.."
target_dir="${CARGO_TARGET_DIR:-$(pwd)/target}"
facedown="${FACEDOWN:-$target_dir/debug/facedown}"
screenshots="${SCREENSHOTS:-$target_dir/browser-screenshots}"

sudo=$([ "$(id -u)" -eq 0 ] || echo sudo)
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium chromium-driver
fi
venv="$target_dir/browser-venv"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check -r tests/browser/requirements.txt
# BROWSER_SETUP_ONLY=1: install what the test needs and stop (.ci/run does this while
# `cargo test` runs, since it waits on the network and the disk, not the cores).
[ "${BROWSER_SETUP_ONLY:-}" = 1 ] && exit 0
[ -x "$facedown" ] || cargo build --bin facedown
"$venv/bin/python" tests/browser/classroom.py "$facedown" "$screenshots"
