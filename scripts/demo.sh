#!/usr/bin/env bash
# The main job, end to end: build the provider (Cargo profile `demo`: release settings at
# opt-level 1, which compiles in about half the time of a full release build), build the real
# Pulumi CLI, YAML host and Terraform random provider (cached; see scripts/test-tools.sh;
# only these three), then run the Pulumi YAML example examples/pulumi-yaml/random through
# `pulumi up`, a preview that must show no changes, and `pulumi destroy`, fully offline in a
# throw-away workspace, print the stack outputs, and print the commands to type next.
#
#   scripts/demo.sh                           # with our provider
#   DEMO_IMPLEMENTATION=go scripts/demo.sh    # the same run with the Go implementation
#   DEMO_KEEP=1 scripts/demo.sh               # keep the workspace (state, logs) afterwards
#   DEMO_PROFILE=release scripts/demo.sh      # any Cargo profile (dist, release, dev, ...)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

implementation=${DEMO_IMPLEMENTATION:-ours}
tools=${TFBRIDGE_TOOLS_DIR:-$HOME/.cache/tfbridge-tools}

case "$implementation" in
  ours)
    profile=${DEMO_PROFILE:-demo}
    build_plugin=(cargo build --profile "$profile" --locked --bin pulumi-resource-terraform-provider)
    # Cargo's dev profile builds into target/debug; every other profile into its own name.
    [[ "$profile" == dev ]] && profile_dir=debug || profile_dir=$profile
    plugin=${CARGO_TARGET_DIR:-$repo/target}/$profile_dir/pulumi-resource-terraform-provider
    # The workspace version in Cargo.toml, which the plugin reports.
    version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
    # Only what the demo runs: random, the CLI and the YAML host (not every test peer).
    groups=(random pulumi-cli pulumi-language-yaml)
    ;;
  go)
    plugin=$tools/anchor/3.136.0/pulumi-resource-terraform-provider
    version=1.1.3
    groups=(random pulumi-cli pulumi-language-yaml anchor)
    build_plugin=(true)
    ;;
  *)
    echo "DEMO_IMPLEMENTATION must be ours or go, not $implementation" >&2
    exit 2
    ;;
esac
[[ -n "$version" ]] || { echo "could not read the version from Cargo.toml" >&2; exit 1; }

# The peers (Go) build beside the plugin (Rust): a cold Cargo build spends minutes on a few
# large crates one core at a time, and the Go builds fill the other core meanwhile.
bash scripts/test-tools.sh "${groups[@]}" &
tools_job=$!
trap 'kill "$tools_job" 2>/dev/null || true' EXIT
"${build_plugin[@]}"
wait "$tools_job" || { echo "scripts/test-tools.sh ${groups[*]} failed (its log is above)" >&2; exit 1; }
trap - EXIT
random=$tools/providers/random/3.9.0/terraform-provider-random

work=$(mktemp -d "${TMPDIR:-/tmp}/tfbridge-demo.XXXXXX")
if [[ -z "${DEMO_KEEP:-}" ]]; then
  trap 'rm -rf "$work"' EXIT
else
  echo "workspace: $work"
fi

# An isolated, offline Pulumi: its own home, a file backend, passphrase secrets, no update
# checks, no plugin downloads.
export PATH="$tools/pulumi/3.259.0/bin:$PATH"
export PULUMI_HOME=$work/pulumi-home
export PULUMI_BACKEND_URL=file://$work/backend
export PULUMI_CONFIG_PASSPHRASE=demo
export PULUMI_SKIP_UPDATE_CHECK=true
export PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true
export PULUMI_DISABLE_REGISTRY_RESOLVE=true
mkdir -p "$work/backend" "$work/project" "$PULUMI_HOME/plugins/language-yaml-v1.38.1"
# The YAML host as an installed plugin: on PATH, the CLI warns about it in every run.
ln -s "$tools/pulumi-yaml/1.38.1/bin/pulumi-language-yaml" "$PULUMI_HOME/plugins/language-yaml-v1.38.1/"
cp examples/pulumi-yaml/random/Pulumi.yaml "$work/project/"
cd "$work/project"

step() { printf '\n==> %s\n' "$*"; }

step "pulumi plugin install resource terraform-provider $version ($implementation)"
pulumi plugin install resource terraform-provider "$version" --file "$plugin"
step "pulumi package add terraform-provider@$version $random"
pulumi package add "terraform-provider@$version" "$random"
pulumi stack init dev --secrets-provider passphrase --non-interactive
step "pulumi up"
pulumi up --yes --skip-preview --non-interactive --color never
step "pulumi preview --expect-no-changes"
pulumi preview --expect-no-changes --non-interactive --color never
step "pulumi stack output --json --show-secrets"
pulumi stack output --json --show-secrets
step "pulumi destroy"
pulumi destroy --yes --skip-preview --non-interactive --color never
step "done: $implementation served random 3.9.0 through up, preview and destroy"

cat <<NEXT

Next, in a project of your own (see README.md, Install and Using it with Pulumi):

  export PATH="$tools/pulumi/3.259.0/bin:\$PATH"   # this Pulumi CLI, or your own
  pulumi plugin install resource terraform-provider $version --file $plugin
  pulumi package add terraform-provider@$version hashicorp/random 3.9.0
  pulumi up

To package the plugin for teammates (a release archive for \`pulumi plugin install --server\`):

  scripts/release.sh
NEXT
