#!/usr/bin/env bash
# End to end on Windows, under Wine: the Windows Pulumi CLI 3.259.0 and YAML host, the
# Windows build of hashicorp/random 3.9.0, and our plugin's Windows release archive.
#
# 1. scripts/release.sh packages the Windows plugin (the build `cargo test` or
#    `cargo build --target x86_64-pc-windows-gnu` left; PLUGIN_EXE to choose another), and
#    `pulumi plugin install --file` installs the archive;
# 2. `pulumi package add` of the local provider in every form a Windows user types, from a
#    folder whose name has a space and non-ASCII letters: `C:\…\x.exe`, `C:/…/x.exe`, `.\…`,
#    `./…`, and a path without `.exe`; each must give the package `random`;
# 3. a YAML program through up, a preview with no changes, an update, a preview with no
#    changes again and destroy, the stack's state checked after each;
# 4. no process of the run is left: the plugin and the provider end with the CLI.
#
# Needs scripts/test-tools.sh windows and scripts/wine-env.sh (scripts/test-windows.sh does
# both). Prints each command and its output, and ends with "e2e: N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
# shellcheck source=wine-env.sh
. scripts/wine-env.sh
target=x86_64-pc-windows-gnu
target_dir=${CARGO_TARGET_DIR:-$repo/target}
plugin_exe=${PLUGIN_EXE:-$target_dir/$target/debug/pulumi-resource-terraform-provider.exe}
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | sed -n 1p)
[[ -f $plugin_exe ]] || { echo "windows-e2e: no Windows plugin at $plugin_exe: cargo build --target $target" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/tfbridge-wine-e2e.XXXXXX")
# The program's folder and the provider's live on C:, inside the prefix, as on Windows.
drive_c=$WINEPREFIX/drive_c
run_dir="tfbridge e2e $$"
trap 'tfbridge_wine_stop; rm -rf "$work" "${drive_c:?}/$run_dir"' EXIT
project_unix=$drive_c/$run_dir/project
providers_unix="$drive_c/$run_dir/Terraform Providers Ünïcødé"
mkdir -p "$project_unix/bin" "$providers_unix" "$work/backend"
provider_name=terraform-provider-random_v3.9.0_x5.exe
cp "$TFBRIDGE_WINDOWS_RANDOM" "$providers_unix/$provider_name"
cp "$TFBRIDGE_WINDOWS_RANDOM" "$project_unix/bin/$provider_name"

winpath() { local path=${1//\//\\}; echo "Z:$path"; }
export PULUMI_HOME
PULUMI_HOME=$(winpath "$work/home")
export PULUMI_BACKEND_URL="file://$work/backend"
export PULUMI_CONFIG_PASSPHRASE=e2e PULUMI_SKIP_UPDATE_CHECK=true
export PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true PULUMI_DISABLE_REGISTRY_RESOLVE=true
# Our plugin from the plugin cache only, never one that happens to be on PATH.
export PULUMI_IGNORE_AMBIENT_PLUGINS=1

passed=0 failed=0
check() { # check NAME COMMAND...: runs it, counts it
  local name=$1
  shift
  if "$@"; then
    passed=$((passed + 1))
    echo "ok: $name"
  else
    failed=$((failed + 1))
    echo "FAILED: $name"
  fi
}
pulumi_() { # runs the Windows CLI in the project folder, echoing the command and its output
  echo "\$ pulumi $*"
  (cd "$project_unix" && wine "$TFBRIDGE_WINDOWS_PULUMI" "$@" 2>&1) | tee "$work/last"
  return "${PIPESTATUS[0]}"
}
output_has() { grep -qF -- "$1" "$work/last" || { echo "  (the output lacks: $1)"; return 1; }; }

echo "== the release archive, installed with the Windows CLI"
dist=$work/dist
# sed, not head: head would close the pipe before release.sh printed its second line.
archive=$(scripts/release.sh --binary "$plugin_exe" --target "$target" --out "$dist" | sed -n 1p)
tar -tzvf "$archive"
check "the archive holds the .exe, LICENSE and README.md at its root" \
  test "$(tar -tzf "$archive" | sort | tr '\n' ' ')" = "LICENSE README.md pulumi-resource-terraform-provider.exe "
check "pulumi plugin install --file accepts the archive" \
  pulumi_ plugin install resource terraform-provider "$version" --file "$(winpath "$archive")"
check "the plugin is in the cache" test -f "$work/home/plugins/resource-terraform-provider-v$version/pulumi-resource-terraform-provider.exe"
pulumi_ plugin ls || true

cat >"$project_unix/Pulumi.yaml" <<'YAML'
name: wine-e2e
runtime: yaml
config:
  petLength:
    type: integer
    default: 2
resources:
  pet:
    type: random:index/pet:Pet
    properties:
      length: ${petLength}
      prefix: wine
  token:
    type: random:index/string:String
    properties:
      length: 12
      special: false
outputs:
  petId: ${pet.id}
  tokenLength: ${token.length}
YAML
mkdir -p "$work/home/plugins/language-yaml-v$YAML_VER"
cp "$TFBRIDGE_WINDOWS_LANGUAGE_YAML" "$work/home/plugins/language-yaml-v$YAML_VER/"

echo "== pulumi package add, in every form of a local path"
forms=(
  "C:\\$run_dir\\Terraform Providers Ünïcødé\\$provider_name"
  "C:/$run_dir/Terraform Providers Ünïcødé/$provider_name"
  ".\\bin\\$provider_name"
  "./bin/$provider_name"
  "C:\\$run_dir\\Terraform Providers Ünïcødé\\${provider_name%.exe}"
)
for form in "${forms[@]}"; do
  # A second package add must replace the YAML package's lock file under sdks/, which the
  # Windows CLI's os.RemoveAll cannot do under Wine 8 ("unlinkat …: Invalid function": Go's
  # RemoveAll asks for FileDispositionInfoEx, which Wine 8 does not implement); a fresh start.
  rm -rf "$project_unix/sdks"
  if pulumi_ package add "terraform-provider@$version" "$form" && grep -q '^  random:' "$project_unix/Pulumi.yaml"; then
    check "package add $form" true
  else
    check "package add $form" false
  fi
done
cat "$project_unix/Pulumi.yaml"
check "Pulumi.yaml records the last form, as typed" grep -qF -- "${forms[-1]}" "$project_unix/Pulumi.yaml"

echo "== the program's lifecycle"
check "stack init" pulumi_ stack init dev --non-interactive
check "up" pulumi_ up --yes --skip-preview --non-interactive --color never
# The one error Wine adds: the CLI stops a plugin with Ctrl+Break (GenerateConsoleCtrlEvent),
# which Wine 8 refuses ("Explicitly ignoring and discarding error: Invalid access." in the
# CLI's log), so after 10 s it kills the schema loader's plugin and calls that "exited
# prematurely". Any other error fails the run.
check "up reports no error but Wine's" \
  bash -c "! grep -E 'error:' '$work/last' | grep -v 'exited prematurely'"
pulumi_ stack export >/dev/null
check "the state holds the pet and the string" grep -q '"type": "random:index/string:String"' "$work/last"
pulumi_ stack output --json >/dev/null
pet=$(grep -o '"petId": "[^"]*"' "$work/last" | cut -d'"' -f4)
check "the pet is named wine-…" test "${pet#wine-}" != "$pet"
check "a preview with no changes" pulumi_ preview --expect-no-changes --non-interactive --color never
check "config petLength 3" pulumi_ config set petLength 3
check "up replaces the pet" pulumi_ up --yes --skip-preview --non-interactive --color never
check "the update replaced the pet" output_has "replaced"
pulumi_ stack output --json >/dev/null
pet2=$(grep -o '"petId": "[^"]*"' "$work/last" | cut -d'"' -f4)
check "the new pet has three words" test "$(tr -cd '-' <<<"$pet2" | wc -c)" -eq 3
check "a preview with no changes after the update" pulumi_ preview --expect-no-changes --non-interactive --color never
check "destroy" pulumi_ destroy --yes --skip-preview --non-interactive --color never
pulumi_ stack export >/dev/null
check "the state holds no random resource" bash -c "! grep -q '\"type\": \"random:' '$work/last'"

echo "== nothing left behind"
# The CLI has exited; its plugins and their providers must have gone with it.
sleep 2
left=$(tfbridge_wine_ps | grep -E 'pulumi-resource-terraform-provider|terraform-provider-random|pulumi-language-yaml|pulumi\.exe' || true)
echo "${left:-(none of ours)}"
check "no plugin, provider or CLI process is left" test -z "$left"

echo "e2e: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
