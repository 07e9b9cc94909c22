#!/usr/bin/env bash
# Whole-process schema translation of an AWS-sized provider: the fixture provider (release
# build) serves the synthetic schema (1,500 resources, 600 data sources, about 61,000
# attributes) from a JSON file, and `schema-gen` (release build) launches it, reads its schema
# over the plugin protocol and prints the Pulumi package schema, as Parameterize + GetSchema
# do. Reports hyperfine's median and schema-gen's peak RSS; checks the output is the same
# bytes on every run.
#
#   scripts/bench/schema.sh      # BENCH_RUNS=5
#
# Needs hyperfine (apt-get install hyperfine).
set -euo pipefail
cd "$(dirname "$0")/../.."

runs=${BENCH_RUNS:-5}
command -v hyperfine >/dev/null || { echo "bench-schema: hyperfine is missing (apt-get install hyperfine)" >&2; exit 1; }
target=${CARGO_TARGET_DIR:-$PWD/target}
cargo build --release --locked --bin schema-gen -p pulumi-resource-terraform-provider
cargo build --release --locked -p terraform-provider-fixture --bin terraform-provider-fixture --example synthetic-schema

out=$target/bench-schema
rm -rf "$out" && mkdir -p "$out/bin"
out=$(cd "$out" && pwd)
"$target/release/examples/synthetic-schema" >"$out/schema.json"
# Local providers are named after their file: this one becomes the package `synthetic`.
cat >"$out/bin/terraform-provider-synthetic" <<EOF
#!/bin/sh
FIXTURE_PROTOCOL=6 FIXTURE_SCHEMA_FILE='$out/schema.json' exec '$target/release/terraform-provider-fixture' "\$@"
EOF
chmod +x "$out/bin/terraform-provider-synthetic"

schema_gen=$target/release/schema-gen
provider=$out/bin/terraform-provider-synthetic
echo "schema file: $(wc -c <"$out/schema.json") bytes"

hyperfine --warmup 1 --runs "$runs" --export-markdown "$out/hyperfine.md" \
  -n "schema-gen (AWS-sized, whole process)" "$schema_gen $provider >/dev/null 2>&1"

/usr/bin/time -f "%M" -o "$out/rss.txt" "$schema_gen" "$provider" >"$out/first.json" 2>/dev/null
"$schema_gen" "$provider" >"$out/second.json" 2>/dev/null
cmp -s "$out/first.json" "$out/second.json" || { echo "bench-schema: two runs printed different schemas" >&2; exit 1; }
echo "Pulumi schema: $(wc -c <"$out/first.json") bytes, identical on two runs"
echo "schema-gen peak RSS: $(( $(cat "$out/rss.txt") / 1024 )) MiB"
