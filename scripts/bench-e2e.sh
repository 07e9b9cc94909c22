#!/usr/bin/env bash
# Whole-process comparison with the Go implementation: the same Pulumi YAML program, run by
# the real Pulumi CLI fully offline, once with our provider (release build) and once with
# the Go implementation (scripts/test-tools.sh anchor), on the same machine in one run.
#
#   scripts/bench-e2e.sh            # BENCH_RESOURCES=20 random resources, 5 runs each
#
# Prints hyperfine's tables (medians and ratios) and each provider process's peak RSS, and
# writes them to target/bench-e2e/. Needs hyperfine (apt-get install hyperfine).
set -euo pipefail
cd "$(dirname "$0")/.."

n=${BENCH_RESOURCES:-20}
runs=${BENCH_RUNS:-5}
command -v hyperfine >/dev/null || { echo "bench-e2e: hyperfine is missing (apt-get install hyperfine)" >&2; exit 1; }
bash scripts/test-tools.sh providers pulumi anchor >/dev/null
. "${TFBRIDGE_TOOLS_DIR:-$HOME/.cache/tfbridge-tools}/env.sh"
cargo build --release --locked --bin pulumi-resource-terraform-provider

random="$TFBRIDGE_TOOLS_DIR/providers/random/3.9.0/terraform-provider-random"
out=target/bench-e2e
rm -rf "$out" && mkdir -p "$out"
out=$(cd "$out" && pwd)

# setup NAME BINARY: an isolated Pulumi home, backend and program using BINARY as the
# terraform-provider plugin, through a wrapper that records the plugin's peak RSS.
setup() {
  local name=$1 binary=$2 dir="$out/$1"
  mkdir -p "$dir/bin" "$dir/state" "$dir/prog"
  cat >"$dir/bin/pulumi-resource-terraform-provider" <<EOF
#!/bin/sh
exec /usr/bin/time -a -o "$dir/rss.txt" -f "%M" "$binary" "\$@"
EOF
  chmod +x "$dir/bin/pulumi-resource-terraform-provider"
  {
    echo "name: bench"
    echo "runtime: yaml"
    echo "plugins:"
    echo "  providers:"
    echo "    - name: terraform-provider"
    echo "      path: $dir/bin"
    echo "resources:"
    for i in $(seq 1 "$n"); do
      echo "  pet$i:"
      echo "    type: random:index/pet:Pet"
      echo "    properties: {length: 3}"
      echo "  str$i:"
      echo "    type: random:index/string:String"
      echo "    properties: {length: 12, special: false}"
    done
  } >"$dir/prog/Pulumi.yaml"
  (
    export PULUMI_HOME="$dir/home" PULUMI_BACKEND_URL="file://$dir/state"
    pulumi plugin install resource terraform-provider 1.2.0 --file "$dir/bin/pulumi-resource-terraform-provider" >/dev/null 2>&1
    cd "$dir/prog" && pulumi package add terraform-provider "$random" >/dev/null 2>&1
    pulumi stack init bench >/dev/null
  )
}

export PULUMI_SKIP_UPDATE_CHECK=1 PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true \
  PULUMI_DISABLE_REGISTRY_RESOLVE=true PULUMI_CONFIG_PASSPHRASE=bench PULUMI_SUPPRESS_COPILOT_LINK=1
setup ours "$PWD/target/release/pulumi-resource-terraform-provider"
setup go "$TFBRIDGE_TOOLS_DIR/anchor/3.136.0/pulumi-resource-terraform-provider"

cmd() { # cmd NAME PULUMI-ARGS...: the shell command hyperfine runs for one implementation
  local name=$1; shift
  echo "cd $out/$name/prog && PULUMI_HOME=$out/$name/home PULUMI_BACKEND_URL=file://$out/$name/state pulumi $* >/dev/null 2>&1"
}

echo "== preview of $((2 * n)) creates"
hyperfine --runs "$runs" --warmup 1 --export-markdown "$out/preview.md" \
  -n ours "$(cmd ours preview)" -n go "$(cmd go preview)"

echo "== up then destroy of $((2 * n)) resources"
hyperfine --runs "$runs" --export-markdown "$out/up-destroy.md" \
  -n ours "$(cmd ours up --yes --skip-preview) && $(cmd ours destroy --yes --skip-preview)" \
  -n go "$(cmd go up --yes --skip-preview) && $(cmd go destroy --yes --skip-preview)"

echo "== no-change preview and refresh of $((2 * n)) existing resources"
eval "$(cmd ours up --yes --skip-preview)"
eval "$(cmd go up --yes --skip-preview)"
: >"$out/ours/rss.txt"; : >"$out/go/rss.txt"
hyperfine --runs "$runs" --export-markdown "$out/steady.md" \
  -n ours "$(cmd ours preview --expect-no-changes) && $(cmd ours refresh --yes --skip-preview)" \
  -n go "$(cmd go preview --expect-no-changes) && $(cmd go refresh --yes --skip-preview)"

for name in ours go; do
  sort -n "$out/$name/rss.txt" | awk -v n="$name" '{ a[NR] = $1 } END { printf "%s provider peak RSS: median %d KiB, max %d KiB over %d processes\n", n, a[int((NR + 1) / 2)], a[NR], NR }'
done | tee "$out/rss.txt"
eval "$(cmd ours destroy --yes --skip-preview)"
eval "$(cmd go destroy --yes --skip-preview)"
