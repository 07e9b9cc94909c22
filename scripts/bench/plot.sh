#!/usr/bin/env bash
# Draws the results of scripts/bench/rpc.sh and scripts/bench/e2e.sh as PNG charts into
# docs/bench/ (ours, the Go implementation and the floor side by side), with matplotlib from
# PyPI in a virtualenv under ~/.cache (made on first use).
#
#   scripts/bench/plot.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

target=${CARGO_TARGET_DIR:-$PWD/target}
venv=${TFBRIDGE_BENCH_VENV:-$HOME/.cache/tfbridge-bench-venv}
if ! "$venv/bin/python" -c 'import matplotlib' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet matplotlib==3.9.2
fi
"$venv/bin/python" scripts/bench/plot.py "$target/bench/rpc/results.json" "$target/bench/e2e/results.json" docs/bench
ls docs/bench/*.png
