#!/usr/bin/env bash
# The benchmark harness's one entry point: each pipeline of this folder by name, ours
# against the Go implementation in one run on this machine. With no name (or `all`), the
# whole harness: RPC-level figures (rpc), whole commands through the real CLI (e2e), then
# the charts (plot, into docs/bench/). Index: scripts/bench/README.md; figures: BENCHMARKS.md.
#
#   scripts/bench/bench.sh                 # all: about 20 minutes on 2 cores
#   scripts/bench/bench.sh stack           # one pipeline: rpc, e2e, plot, stack, warm, schema, mysql
#
# Each pipeline's own settings are environment variables (BENCH_RUNS, ...), read by its script.
set -euo pipefail
cd "$(dirname "$0")/../.."
pipelines=(rpc e2e plot stack warm schema mysql)
case "${1:-all}" in
  all)
    bash scripts/bench/rpc.sh
    bash scripts/bench/e2e.sh
    bash scripts/bench/plot.sh
    ;;
  rpc | e2e | plot | stack | warm | schema | mysql)
    exec bash "scripts/bench/$1.sh"
    ;;
  *)
    (IFS='|' && echo "usage: scripts/bench/bench.sh [all|${pipelines[*]}]" >&2)
    exit 2
    ;;
esac
