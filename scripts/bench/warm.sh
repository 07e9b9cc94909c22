#!/usr/bin/env bash
# Warm whole-process commands through the real Pulumi CLI, ours against the Go implementation
# in the same run (issue 35 item 1): `pulumi package get-schema` of a local provider and
# `pulumi preview` of a YAML program that uses it, each after a first run has warmed every
# cache (ours: the schema cache's provider schema and translated package).
#
#   scripts/bench/warm.sh       # BENCH_RUNS=7, BENCH_PROVIDERS="dns muxed6 synthetic"
#
# Providers: dns (hashicorp/dns 3.6.1, muxed SDKv2 + framework, protocol 5), muxed6 (our
# tests/go-providers/muxed6: proxmox-sized, protocol 6), synthetic (the fixture provider
# serving the AWS-sized schema: 1,500 resource types, 10.4 MB). The preview's program has two
# resources and needs no service (a preview of new resources only plans).
#
# Ours and Go alternate run by run, and which goes first alternates too, so a slow spell of
# the machine hits both. Wall time per command from the shell's clock; medians and the
# median of the per-pair ratios ours/Go are printed and written to
# $CARGO_TARGET_DIR/bench/warm/results.tsv.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD

runs=${BENCH_RUNS:-7}
providers=${BENCH_PROVIDERS:-dns muxed6 synthetic}
target=${CARGO_TARGET_DIR:-$PWD/target}
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
bash scripts/test-tools.sh providers pulumi anchor >/dev/null
# shellcheck source=/dev/null
. "${TFBRIDGE_TOOLS_DIR:-$HOME/.cache/tfbridge-tools}/env.sh"
tools=$TFBRIDGE_TOOLS_DIR
# shellcheck source=scripts/peers.env
. scripts/peers.env
cargo build --release --locked --bin pulumi-resource-terraform-provider -p pulumi-resource-terraform-provider
cargo build --release --locked -p terraform-provider-fixture --bin terraform-provider-fixture --example synthetic-schema

out=$target/bench/warm
rm -rf "$out" && mkdir -p "$out"
ours_binary=$out/pulumi-resource-terraform-provider
cp "$target/release/pulumi-resource-terraform-provider" "$ours_binary"
go_binary=$tools/anchor/$BRIDGE_VER/pulumi-resource-terraform-provider
git rev-parse HEAD >"$out/commit.txt"

export PULUMI_SKIP_UPDATE_CHECK=1 PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true \
  PULUMI_DISABLE_REGISTRY_RESOLVE=true PULUMI_CONFIG_PASSPHRASE=bench PULUMI_SUPPRESS_COPILOT_LINK=1 \
  BENCH_WARM_RUN="$out"

# The Go implementation can leave its Terraform provider running once the CLI is done.
kill_leftovers() {
  local environ
  { grep -lsxz "BENCH_WARM_RUN=$out" /proc/[0-9]*/environ || true; } | while read -r environ; do
    environ=${environ#/proc/}
    kill -9 "${environ%/environ}" 2>/dev/null || true
  done
}
trap kill_leftovers EXIT

"$target/release/examples/synthetic-schema" >"$out/synthetic-schema.json"
provider_path() { # the Terraform provider, behind a script named like it where it needs one
  local dir=$out/providers/$1
  # Made once: the schema cache keys a binary by its file's identity, so a wrapper written
  # again for every run would make every run cold.
  if ls "$dir"/terraform-provider-* >/dev/null 2>&1; then ls "$dir"/terraform-provider-*; return; fi
  mkdir -p "$dir"
  case $1 in
    dns) ln -sf "$tools/providers/dns/3.6.1/terraform-provider-dns" "$dir/terraform-provider-dns" ;;
    muxed6) ln -sf "$tools/providers/muxed6test/current/terraform-provider-muxed6test" "$dir/terraform-provider-muxed6test" ;;
    synthetic)
      printf '#!/bin/sh\nexec env FIXTURE_PROTOCOL=6 FIXTURE_SCHEMA_FILE=%s %s "$@"\n' \
        "$out/synthetic-schema.json" "$target/release/terraform-provider-fixture" >"$dir/terraform-provider-synthetic"
      chmod +x "$dir/terraform-provider-synthetic" ;;
  esac
  ls "$dir"/terraform-provider-*
}

program() { # program PROVIDER PULUMI-SCHEMA: two resources of the provider, planned only
  case $1 in
    dns) printf '  a:\n    type: dns:index/aRecordSet:ARecordSet\n    properties: {zone: example.com., name: a, addresses: [192.0.2.1]}\n  t:\n    type: dns:index/txtRecordSet:TxtRecordSet\n    properties: {zone: example.com., name: t, txts: [x]}\n' ;;
    muxed6) printf '  s:\n    type: muxed6test:index/sdk0:Sdk0\n    properties: {name: a, value: v1}\n  f:\n    type: muxed6test:index/fw56:Fw56\n    properties: {name: b, members: [x]}\n' ;;
    synthetic) python3 scripts/bench/program.py "$2" 2 ;;
  esac
}

setup() { # setup PROVIDER IMPL BINARY
  local provider=$1 impl=$2 binary=$3 dir=$out/$1/$2
  mkdir -p "$dir/bin" "$dir/state" "$dir/prog"
  ln -sf "$binary" "$dir/bin/pulumi-resource-terraform-provider"
  (
    export PULUMI_HOME="$dir/home" PULUMI_BACKEND_URL="file://$dir/state"
    pulumi plugin install resource terraform-provider "$version" --file "$binary" >/dev/null 2>&1
    cd "$dir/prog"
    printf 'name: bench\nruntime: yaml\nplugins:\n  providers:\n    - name: terraform-provider\n      path: %s\n' "$dir/bin" >Pulumi.yaml
    pulumi package add terraform-provider "$(provider_path "$provider")" >"$dir/package-add.log" 2>&1
    pulumi package get-schema terraform-provider "$(provider_path "$provider")" >"$dir/schema.json" 2>/dev/null
    { echo "resources:"; (cd "$repo" && program "$provider" "$dir/schema.json"); } >>Pulumi.yaml
    pulumi stack init bench >/dev/null
    if [[ $provider == synthetic ]]; then pulumi config set synthetic:region us-east-1 >/dev/null; fi
    # Warm every cache once, unmeasured (get-schema above was the first).
    pulumi preview >/dev/null 2>&1 || { echo "preview failed for $provider/$impl" >&2; pulumi preview >&2 || true; exit 1; }
  )
}

measure() { # measure PROVIDER IMPL COMMAND: one run's wall milliseconds
  local provider=$1 impl=$2 command=$3 dir=$out/$1/$2 start end
  start=$(date +%s%N)
  (
    export PULUMI_HOME="$dir/home" PULUMI_BACKEND_URL="file://$dir/state"
    cd "$dir/prog"
    case $command in
      get-schema) pulumi package get-schema terraform-provider "$(provider_path "$provider")" >/dev/null 2>"$dir/err" ;;
      preview) pulumi preview >/dev/null 2>"$dir/err" ;;
    esac
  ) || { echo "$command failed for $provider/$impl:" >&2; cat "$dir/err" >&2; exit 1; }
  end=$(date +%s%N)
  kill_leftovers
  echo $(((end - start) / 1000000))
}

printf 'provider\tcommand\tround\tours_ms\tgo_ms\n' >"$out/results.tsv"
for provider in $providers; do
  setup "$provider" ours "$ours_binary"
  setup "$provider" go "$go_binary"
  for command in get-schema preview; do
    for round in $(seq 1 "$runs"); do
      if ((round % 2)); then
        ours=$(measure "$provider" ours "$command"); go=$(measure "$provider" go "$command")
      else
        go=$(measure "$provider" go "$command"); ours=$(measure "$provider" ours "$command")
      fi
      printf '%s\t%s\t%s\t%s\t%s\n' "$provider" "$command" "$round" "$ours" "$go" >>"$out/results.tsv"
    done
  done
done

python3 - "$out/results.tsv" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
print("| provider | command | ours (median, min–max) | Go (median, min–max) | ours/Go (median of pairs) |")
print("|---|---|---|---|---|")
for key in dict.fromkeys((r["provider"], r["command"]) for r in rows):
    sel = [r for r in rows if (r["provider"], r["command"]) == key]
    ours = [int(r["ours_ms"]) for r in sel]; go = [int(r["go_ms"]) for r in sel]
    ratio = statistics.median(o / g for o, g in zip(ours, go))
    print(f"| {key[0]} | {key[1]} | {statistics.median(ours):.0f} ms ({min(ours)}–{max(ours)}) | "
          f"{statistics.median(go):.0f} ms ({min(go)}–{max(go)}) | {ratio:.2f}× |")
EOF
