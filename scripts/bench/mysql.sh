#!/usr/bin/env bash
# Whole-command wall time of the MySQL example (examples/pulumi-yaml/mysql: 4 resources and an
# explicit provider, against a throw-away MariaDB server on loopback) through the real CLI:
# up, a no-change preview, refresh and destroy, ours against the Go implementation in one
# run. Per round, command by command, ours and Go alternate, and which goes first alternates
# by round; round 0 is a warm-up. Prints medians and the median of the paired ratios;
# raw rows go to $CARGO_TARGET_DIR/bench/mysql/results.tsv.
#
#   scripts/bench/mysql.sh            # BENCH_RUNS=5; OURS_BINARY=<path> to skip the release build
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${BENCH_RUNS:-5}
target=${CARGO_TARGET_DIR:-$PWD/target}
bash scripts/test-tools.sh mysql pulumi anchor services >/dev/null
# shellcheck source=scripts/peers.env
. scripts/peers.env
export TOOLS=${TFBRIDGE_TOOLS_DIR:-$HOME/.cache/tfbridge-tools}
out=$target/bench/mysql
mkdir -p "$out"
if [[ -z ${OURS_BINARY:-} ]]; then
  cargo build --release --locked --bin pulumi-resource-terraform-provider -p pulumi-resource-terraform-provider >&2
  # A private copy: the shared target dir's binary may be rebuilt from another checkout mid-run.
  cp "$target/release/pulumi-resource-terraform-provider" "$out/"
  OURS_BINARY=$out/pulumi-resource-terraform-provider
fi
export OURS_BINARY
export GO_BINARY=$TOOLS/anchor/$BRIDGE_VER/pulumi-resource-terraform-provider
export MYSQL_PROVIDER=$TOOLS/providers/mysql/$MYSQL_VER/terraform-provider-mysql
# The version our plugin is installed under: the workspace's.
OURS_VERSION=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
GO_VERSION=${ANCHOR_LDVERSION#v}
export OURS_VERSION GO_VERSION PULUMI_VER YAML_VER
git rev-parse HEAD >"$out/commit.txt"
python3 scripts/mysql-session.py bench "$runs" "$out/results.tsv"
