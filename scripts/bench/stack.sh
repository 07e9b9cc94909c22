#!/usr/bin/env bash
# One big stack through the real Pulumi CLI, ours against the Go implementation, paired:
# `pulumi up --parallel P` of N random_id resources (random 3.9.0, Pulumi YAML), with and
# without the engine's checkpoints (PULUMI_SKIP_CHECKPOINTS=true). Issue 35's measure of the
# plugin's CPU per resource, its resident set across a long run, and where `up`'s wall time goes.
#
#   scripts/bench/stack.sh     # BENCH_RESOURCES=2000 BENCH_RUNS=3 BENCH_PARALLEL=16
#                              # BENCH_CHECKPOINTS="on off" BENCH_IMPLS="ours go"
#
# BENCH_OURS_BINARY picks our plugin (default: a release build of this checkout); with
# BENCH_BASE_BINARY set, BENCH_IMPLS may also name `base`, a second build of ours to compare
# (before and after a change), run like the others.
# BENCH_PERF=1 records ours with `perf record --call-graph dwarf` (attached to the plugin
# process, so its stdout and signals stay the engine's; BENCH_PERF_FREQ samples a second, 999)
# into $out/perf/<round>-<ckpt>-<pid>.data, for scripts/bench/perf-top.py.
#
# Per round, per checkpoint setting, ours and Go alternate (which goes first alternates by
# round). Each `up` starts from an empty stack: the stack is removed with `stack rm --force`
# between runs (random's resources exist only in the state, so nothing is left behind).
# Each plugin process runs under scripts/bench/usage.py: its own CPU (without the Terraform
# provider it reaps), its context switches (wake-ups and preemptions, summed over the run's
# plugin processes), its peak RSS, its RSS every 50 ms and its last /proc/PID/smaps
# (usage/<round>-<ckpt>-<pid>.rss and .smaps; scripts/bench/smaps.py groups the latter).
#
# Rows: $CARGO_TARGET_DIR/bench/stack/results.tsv (or $BENCH_OUT/results.tsv; round 0 is a
# warm-up, not counted); scripts/bench/stack-summary.py prints medians and paired ratios at the end.
set -euo pipefail
cd "$(dirname "$0")/../.."

n=${BENCH_RESOURCES:-2000}
runs=${BENCH_RUNS:-3}
parallel=${BENCH_PARALLEL:-16}
checkpoints=${BENCH_CHECKPOINTS:-on off}
impls=${BENCH_IMPLS:-ours go}
target=${CARGO_TARGET_DIR:-$PWD/target}
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
bash scripts/test-tools.sh providers pulumi anchor >/dev/null
# shellcheck source=/dev/null
. "${TFBRIDGE_TOOLS_DIR:-$HOME/.cache/tfbridge-tools}/env.sh"
tools=$TFBRIDGE_TOOLS_DIR
# shellcheck source=scripts/peers.env
. scripts/peers.env

out=${BENCH_OUT:-$target/bench/stack}
rm -rf "$out" && mkdir -p "$out"
if [[ -z ${BENCH_OURS_BINARY:-} ]]; then
  cargo build --release --locked --bin pulumi-resource-terraform-provider -p pulumi-resource-terraform-provider
  BENCH_OURS_BINARY=$target/release/pulumi-resource-terraform-provider
fi
# A private copy: the shared target dir's binary may be rebuilt from another checkout mid-run.
ours_binary=$out/pulumi-resource-terraform-provider
cp "$BENCH_OURS_BINARY" "$ours_binary"
go_binary=$tools/anchor/$BRIDGE_VER/pulumi-resource-terraform-provider

export PULUMI_SKIP_UPDATE_CHECK=1 PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true \
  PULUMI_DISABLE_REGISTRY_RESOLVE=true PULUMI_CONFIG_PASSPHRASE=bench PULUMI_SUPPRESS_COPILOT_LINK=1

provider_dir=$out/providers/random
mkdir -p "$provider_dir"
printf '#!/bin/sh\nexec %s "$@"\n' "$tools/providers/random/$RANDOM_VER/terraform-provider-random" \
  >"$provider_dir/terraform-provider-random"
chmod +x "$provider_dir/terraform-provider-random"

for i in $(seq 1 "$n"); do
  printf '  id%d:\n    type: random:index/id:Id\n    properties: {byteLength: 8}\n' "$i"
done >"$out/program.yaml"

setup() { # setup IMPL BINARY
  local impl=$1 binary=$2 dir=$out/$1
  mkdir -p "$dir/bin" "$dir/state" "$dir/prog" "$dir/usage" "$dir/logs" "$out/perf"
  local perf_line=""
  if [[ $impl == ours && -n ${BENCH_PERF:-} ]]; then
    # Attached to the plugin (the child of this script once it execs bench/usage.py) rather
    # than wrapping it, so the plugin's stdout (the port) and the engine's signals reach it.
    perf_line="(sleep 0.3; pid=\$(pgrep -n -P \$\$ -f -- '$binary') && exec env -u BENCH_STACK_RUN perf record -q --call-graph dwarf,32768 -F ${BENCH_PERF_FREQ:-999} -o \"$out/perf/\$BENCH_STEP-\$pid.data\" -p \$pid >/dev/null 2>&1) &"
  fi
  cat >"$dir/bin/pulumi-resource-terraform-provider" <<EOF
#!/bin/sh
[ -n "\${BENCH_USAGE_DIR:-}" ] || exec "$binary" "\$@"
$perf_line
exec /usr/bin/python3 -S "$PWD/scripts/bench/usage.py" "\$BENCH_USAGE_DIR/plugin.txt" "\$BENCH_STEP" "$binary" "\$@"
EOF
  chmod +x "$dir/bin/pulumi-resource-terraform-provider"
  {
    printf 'name: bench\nruntime: yaml\nplugins:\n  providers:\n    - name: terraform-provider\n      path: %s\n' "$dir/bin"
    echo "resources:"
    cat "$out/program.yaml"
  } >"$dir/prog/Pulumi.yaml"
  (
    export PULUMI_HOME="$dir/home" PULUMI_BACKEND_URL="file://$dir/state"
    pulumi plugin install resource terraform-provider "$version" --file "$dir/bin/pulumi-resource-terraform-provider" >/dev/null 2>&1
    cd "$dir/prog"
    pulumi package add terraform-provider "$provider_dir/terraform-provider-random" >"$dir/logs/package-add.log" 2>&1
  )
}

kill_leftovers() {
  local environ
  { grep -lsxz "BENCH_STACK_RUN=$out" /proc/[0-9]*/environ || true; } | while read -r environ; do
    environ=${environ#/proc/}
    kill -9 "${environ%/environ}" 2>/dev/null || true
  done
}
trap kill_leftovers EXIT

# run IMPL ROUND CKPT: a fresh stack, then `up`; one row in results.tsv.
run() {
  local impl=$1 round=$2 ckpt=$3 dir=$out/$1
  local step=$round-$ckpt
  local skip=false
  [[ $ckpt == off ]] && skip=true
  (
    export PULUMI_HOME="$dir/home" PULUMI_BACKEND_URL="file://$dir/state"
    cd "$dir/prog"
    pulumi stack rm --yes --force bench >/dev/null 2>&1 || true
    pulumi stack init bench >/dev/null 2>&1
  )
  rm -f "$dir/usage/plugin.txt"
  if ! (cd "$dir/prog" && PULUMI_HOME="$dir/home" PULUMI_BACKEND_URL="file://$dir/state" BENCH_STEP=$step \
    BENCH_STACK_RUN=$out BENCH_USAGE_DIR="$dir/usage" BENCH_USAGE_SERIES="$dir/usage/$step" \
    PULUMI_SKIP_CHECKPOINTS=$skip /usr/bin/time -o "$dir/usage/wall.txt" -f '%e %U %S' \
    pulumi --color never up --yes --skip-preview --parallel "$parallel" >"$dir/logs/$step.log" 2>&1); then
    echo "bench-stack: up failed for $impl; see $dir/logs/$step.log" >&2
    tail -20 "$dir/logs/$step.log" >&2
    exit 1
  fi
  kill_leftovers
  # perf (outside the run's marker) writes its file once the plugin has exited.
  while pgrep -f -- "perf record .*$out/perf/" >/dev/null; do sleep 0.2; done
  local usage
  usage=$(awk '{ cpu += $2 + $3; if ($4 > rss) rss = $4; n++; wake += $5; preempt += $6 } END { printf "%.2f\t%d\t%d\t%d\t%d", cpu, rss, n, wake, preempt }' "$dir/usage/plugin.txt")
  read -r wall cli_user cli_sys <"$dir/usage/wall.txt"
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$impl" "$round" "$ckpt" "$wall" "$(awk "BEGIN { print $cli_user + $cli_sys }")" "$usage" >>"$out/results.tsv"
  echo "bench-stack: $impl round $round checkpoints $ckpt: wall ${wall}s, plugin cpu/rss/processes/wake-ups/preemptions $usage" >&2
}

printf 'impl\tround\tcheckpoints\twall_s\tcli_and_children_cpu_s\tplugin_cpu_s\tplugin_rss_kib\tplugin_processes\tplugin_wakeups\tplugin_preemptions\n' >"$out/results.tsv"
for impl in $impls; do
  case $impl in
    ours) setup ours "$ours_binary" ;;
    go) setup go "$go_binary" ;;
    base)
      cp "$BENCH_BASE_BINARY" "$out/pulumi-resource-terraform-provider-base"
      setup base "$out/pulumi-resource-terraform-provider-base" ;;
  esac
done
for round in $(seq 0 "$runs"); do # round 0 is a warm-up, not counted
  order=$impls
  if ((round % 2)); then order=$(echo "$impls" | awk '{ for (i = NF; i > 0; i--) printf "%s ", $i }'); fi
  for ckpt in $checkpoints; do
    for impl in $order; do run "$impl" "$round" "$ckpt"; done
  done
done
python3 scripts/bench/stack-summary.py "$out/results.tsv" "$n" | tee "$out/summary.md"
