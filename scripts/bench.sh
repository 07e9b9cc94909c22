#!/usr/bin/env bash
# The whole benchmark harness: RPC-level figures (bench-rpc.sh), whole commands through the
# real CLI (bench-e2e.sh), then the charts (bench-plot.sh into docs/bench/). Ours against the
# Go implementation in one run on this machine; see scripts/README.md and BENCHMARKS.md.
#
#   scripts/bench.sh      # about 20 minutes on 2 cores
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bench-rpc.sh
bash scripts/bench-e2e.sh
bash scripts/bench-plot.sh
