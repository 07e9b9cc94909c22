#!/usr/bin/env bash
# RPC-level figures, ours against the Go implementation in one run, driven by the tests'
# stand-in engine (benches/startup.rs): (a) Parameterize(args) + GetSchema, (b) program
# start-up (launch -> Parameterize(value) -> CheckConfig -> Configure), the plugin's RSS after
# start-up, and (d) the floor (the Terraform provider's launch, and launch + GetProviderSchema),
# on random 3.9.0 and on the fixture serving the AWS-sized synthetic schema; cold and warm
# PULUMI_HOME.
#
#   scripts/bench/rpc.sh        # BENCH_RUNS=10 paired rounds
#
# Prints one table per provider and writes $CARGO_TARGET_DIR/bench/rpc/results.json for
# scripts/bench/plot.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."

target=${CARGO_TARGET_DIR:-$PWD/target}
bash scripts/test-tools.sh providers anchor >/dev/null
cargo build --release --locked --bin pulumi-resource-terraform-provider -p pulumi-resource-terraform-provider
cargo build --release --locked -p terraform-provider-fixture --bin terraform-provider-fixture --example synthetic-schema
out=$target/bench/rpc
rm -rf "$out" && mkdir -p "$out"
# A private copy: the shared target dir's binary may be rebuilt from another checkout mid-run.
cp "$target/release/pulumi-resource-terraform-provider" "$out/pulumi-resource-terraform-provider"
"$target/release/examples/synthetic-schema" >"$out/synthetic-schema.json"
git rev-parse HEAD >"$out/commit.txt"
BENCH_SYNTHETIC_SCHEMA=$out/synthetic-schema.json BENCH_OUT=$out/results.json \
  BENCH_OURS_BINARY=$out/pulumi-resource-terraform-provider \
  cargo bench --locked --features peer-tests --bench startup | tee "$out/summary.md"
