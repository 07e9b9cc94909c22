#!/usr/bin/env bash
# Whole-command costs through the real Pulumi CLI, ours against the Go implementation, on the
# same machine in one run: measure (c) of issue 15, and the parallel load of item 4.
#
#   scripts/bench/e2e.sh        # BENCH_RESOURCES=200, BENCH_RUNS=5, BENCH_PROVIDERS="random synthetic parallel"
#
# Providers:
#   random     random 3.9.0: half random_pet, half random_string.
#   synthetic  the fixture provider serving the AWS-sized schema (10.4 MB, 1,500 resource
#              types), with the program spread over five of its resource types.
#   parallel   time 0.14.2: time_sleep resources of 1 s each, `up --parallel 64`.
#
# Per round and implementation, in this order: `up` (creates), a no-change `preview`,
# `refresh`, `destroy`; for `parallel` only `up --parallel 64` (destroy is not timed). Ours
# and Go alternate command by command, and which goes first alternates by round, so a slow
# spell of the shared machine hits both. Each command's wall time comes from /usr/bin/time;
# each plugin process runs under scripts/bench/usage.py, which records its own CPU (user+sys,
# without the Terraform provider it reaps) and peak RSS; that wrapper adds about 30 ms to
# each plugin launch, for both implementations alike. hyperfine cannot alternate two
# commands run by run, and the per-process figures need the wrapper anyway.
#
# Raw rows go to $CARGO_TARGET_DIR/bench/e2e/results.tsv; scripts/bench/summary.py prints
# medians and ratios and writes results.json for scripts/bench/plot.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."

n=${BENCH_RESOURCES:-200}
runs=${BENCH_RUNS:-5}
providers=${BENCH_PROVIDERS:-random synthetic parallel}
target=${CARGO_TARGET_DIR:-$PWD/target}
# The plugin cache slot each Pulumi home gets, whichever implementation fills it: Cargo.toml's
# version (the program names the plugin by path, so the label only has to exist).
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
bash scripts/test-tools.sh providers pulumi anchor >/dev/null
# shellcheck source=/dev/null
. "${TFBRIDGE_TOOLS_DIR:-$HOME/.cache/tfbridge-tools}/env.sh"
tools=$TFBRIDGE_TOOLS_DIR
# shellcheck source=scripts/peers.env
. scripts/peers.env
cargo build --release --locked --bin pulumi-resource-terraform-provider --bin schema-gen -p pulumi-resource-terraform-provider
cargo build --release --locked -p terraform-provider-fixture --bin terraform-provider-fixture --example synthetic-schema

go_binary=$tools/anchor/$BRIDGE_VER/pulumi-resource-terraform-provider
out=$target/bench/e2e
rm -rf "$out" && mkdir -p "$out"
# A private copy: the shared target dir's binary may be rebuilt from another checkout mid-run.
ours_binary=$out/pulumi-resource-terraform-provider
cp "$target/release/pulumi-resource-terraform-provider" "$ours_binary"
git rev-parse HEAD >"$out/commit.txt"

export PULUMI_SKIP_UPDATE_CHECK=1 PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true \
  PULUMI_DISABLE_REGISTRY_RESOLVE=true PULUMI_CONFIG_PASSPHRASE=bench PULUMI_SUPPRESS_COPILOT_LINK=1

# A Terraform provider behind a script named like it: local providers are named after their
# file, and the synthetic one needs its environment.
provider_wrapper() { # provider_wrapper DIR NAME COMMAND...: DIR/terraform-provider-NAME runs COMMAND
  local dir=$1 name=$2; shift 2
  mkdir -p "$dir"
  printf '#!/bin/sh\nexec %s "$@"\n' "$*" >"$dir/terraform-provider-$name"
  chmod +x "$dir/terraform-provider-$name"
}

synthetic_schema=$out/synthetic-schema.json
if [[ " $providers " == *" synthetic "* ]]; then
  "$target/release/examples/synthetic-schema" >"$synthetic_schema"
fi

provider_path() { # provider_path PROVIDER: the wrapped Terraform provider the program uses
  local dir=$out/providers/$1
  case $1 in
    random) provider_wrapper "$dir" random "$tools/providers/random/$RANDOM_VER/terraform-provider-random" ;;
    parallel) provider_wrapper "$dir" time "$tools/providers/time/$TIME_VER/terraform-provider-time" ;;
    synthetic) provider_wrapper "$dir" synthetic env FIXTURE_PROTOCOL=6 "FIXTURE_SCHEMA_FILE=$synthetic_schema" \
      "$target/release/terraform-provider-fixture" ;;
  esac
  ls "$dir"/terraform-provider-*
}

program() { # program PROVIDER: the resources of Pulumi.yaml
  case $1 in
    random)
      for i in $(seq 1 $((n / 2))); do
        printf '  pet%d:\n    type: random:index/pet:Pet\n    properties: {length: 3}\n' "$i"
        printf '  str%d:\n    type: random:index/string:String\n    properties: {length: 12, special: false}\n' "$i"
      done ;;
    parallel)
      for i in $(seq 1 "$n"); do
        printf '  sleep%d:\n    type: time:index/sleep:Sleep\n    properties: {createDuration: 1s}\n' "$i"
      done ;;
    synthetic)
      "$target/release/schema-gen" "$(provider_path synthetic)" >"$out/synthetic-pulumi-schema.json"
      python3 scripts/bench/program.py "$out/synthetic-pulumi-schema.json" "$n" ;;
  esac
}

# setup PROVIDER IMPL BINARY: an isolated Pulumi home, backend and program using BINARY as the
# terraform-provider plugin, through a wrapper that records each plugin process's own CPU and
# peak RSS (scripts/bench/usage.py) during a measured step, labelled with the step.
setup() {
  local provider=$1 impl=$2 binary=$3 dir=$out/$1/$2
  mkdir -p "$dir/bin" "$dir/state" "$dir/prog" "$dir/usage" "$dir/logs"
  cat >"$dir/bin/pulumi-resource-terraform-provider" <<EOF
#!/bin/sh
[ -n "\${BENCH_USAGE_DIR:-}" ] || exec "$binary" "\$@"
exec /usr/bin/python3 -S "$PWD/scripts/bench/usage.py" "\$BENCH_USAGE_DIR/plugin.txt" "\$BENCH_STEP" "$binary" "\$@"
EOF
  chmod +x "$dir/bin/pulumi-resource-terraform-provider"
  {
    printf 'name: bench\nruntime: yaml\nplugins:\n  providers:\n    - name: terraform-provider\n      path: %s\n' "$dir/bin"
    echo "resources:"
    cat "$out/$provider/program.yaml"
  } >"$dir/prog/Pulumi.yaml"
  (
    export PULUMI_HOME="$dir/home" PULUMI_BACKEND_URL="file://$dir/state"
    pulumi plugin install resource terraform-provider "$version" --file "$dir/bin/pulumi-resource-terraform-provider" >/dev/null 2>&1
    cd "$dir/prog"
    pulumi package add terraform-provider "$(provider_path "$provider")" >"$dir/logs/package-add.log" 2>&1
    pulumi stack init bench >/dev/null
    if [[ $provider == synthetic ]]; then pulumi config set synthetic:region us-east-1 >/dev/null; fi
  )
}

# The Go implementation can leave its Terraform provider running once the CLI is done with
# the plugin. Every process a measured command starts carries BENCH_E2E_RUN=$out in its
# environment; after each command (outside its timing) those still running are killed.
kill_leftovers() {
  local environ
  # grep exits 2 when a process in the glob is gone before it is read; that is no error here.
  { grep -lsxz "BENCH_E2E_RUN=$out" /proc/[0-9]*/environ || true; } | while read -r environ; do
    environ=${environ#/proc/}
    kill -9 "${environ%/environ}" 2>/dev/null || true
  done
}
trap kill_leftovers EXIT

# step PROVIDER IMPL ROUND STEP PULUMI-ARGS...: runs one command and appends its row to
# results.tsv: wall seconds, then the plugin processes' own CPU seconds (summed), peak RSS in
# KiB (the largest) and how many plugin processes the CLI started.
step() {
  local provider=$1 impl=$2 round=$3 name=$4 dir=$out/$1/$2
  shift 4
  rm -f "$dir/usage/plugin.txt"
  if ! (cd "$dir/prog" && PULUMI_HOME="$dir/home" PULUMI_BACKEND_URL="file://$dir/state" BENCH_STEP=$name BENCH_E2E_RUN=$out \
    BENCH_USAGE_DIR="$dir/usage" /usr/bin/time -o "$dir/usage/wall.txt" -f %e \
    pulumi --color never "$@" >"$dir/logs/$round-$name.log" 2>&1); then
    echo "bench-e2e: pulumi $* failed for $provider/$impl; see $dir/logs/$round-$name.log" >&2
    tail -20 "$dir/logs/$round-$name.log" >&2
    exit 1
  fi
  kill_leftovers
  local usage
  usage=$(awk '{ cpu += $2 + $3; if ($4 > rss) rss = $4; n++ } END { printf "%.2f\t%d\t%d", cpu, rss, n }' "$dir/usage/plugin.txt")
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$provider" "$impl" "$round" "$name" "$(tail -1 "$dir/usage/wall.txt")" "$usage" >>"$out/results.tsv"
}

printf 'provider\timpl\tround\tstep\twall_s\tplugin_cpu_s\tplugin_rss_kib\tplugin_processes\n' >"$out/results.tsv"
for provider in $providers; do
  mkdir -p "$out/$provider"
  program "$provider" >"$out/$provider/program.yaml"
  setup "$provider" ours "$ours_binary"
  setup "$provider" go "$go_binary"
  echo "== $provider: $runs rounds of $n resources" >&2
  for round in $(seq 0 "$runs"); do # round 0 is a warm-up, not counted
    order="ours go"
    if ((round % 2)); then order="go ours"; fi
    if [[ $provider == parallel ]]; then
      for impl in $order; do step "$provider" "$impl" "$round" up up --yes --skip-preview --parallel 64; done
      for impl in $order; do step "$provider" "$impl" "$round" destroy-untimed destroy --yes --skip-preview; done
      continue
    fi
    for impl in $order; do step "$provider" "$impl" "$round" up up --yes --skip-preview; done
    for impl in $order; do step "$provider" "$impl" "$round" preview preview --expect-no-changes; done
    for impl in $order; do step "$provider" "$impl" "$round" refresh refresh --yes --skip-preview; done
    for impl in $order; do step "$provider" "$impl" "$round" destroy destroy --yes --skip-preview; done
  done
done
python3 scripts/bench/summary.py "$out/results.tsv" "$n" >"$out/summary.md"
cat "$out/summary.md"
