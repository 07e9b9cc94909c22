# Sourced by scripts/test-tools.sh, never run alone.
# The Go implementation (anchor), the Terraform CLI and Pulumi's Terraform
# converter (groups anchor, terraform, converter).
# shellcheck shell=bash
b_anchor() {
  local out=$1
  wrapper "anchor-$BRIDGE_VER" "${ANCHOR_REPLACES[@]}" || return 1
  run go get "github.com/pulumi/pulumi-terraform-bridge/v3/dynamic@v$BRIDGE_VER" || return 1
  check_version github.com/pulumi/pulumi-terraform-bridge/v3 "v$BRIDGE_VER" || return 1
  run go build -trimpath \
    -ldflags "-s -w -X google.golang.org/protobuf/reflect/protoregistry.conflictPolicy=ignore -X github.com/pulumi/pulumi-terraform-bridge/v3/dynamic/version.version=$ANCHOR_LDVERSION" \
    -o "$out/pulumi-resource-terraform-provider${EXE:-}" github.com/pulumi/pulumi-terraform-bridge/v3/dynamic ||
    return 1
}

# The Go implementation's own test providers (dynamic/test/ in the bridge's module at
# BRIDGE_VER), which its gRPC goldens were made with; for the conformance tier
# (tests/peer/conformance.rs). Named as the bridge's tests name them, since a local provider's
# file name gives its package name (pfprovider, sdkv1, conflictsprovider).
BRIDGE_TEST_PROVIDERS=(pfprovider:pfprovider sdkv1provider:sdkv1 conflictsprovider:conflictsprovider)
b_bridgetests() {
  local out=$1 entry pkgs=()
  wrapper "bridgetests-$BRIDGE_VER" "${ANCHOR_REPLACES[@]}" || return 1
  for entry in "${BRIDGE_TEST_PROVIDERS[@]}"; do
    pkgs+=("github.com/pulumi/pulumi-terraform-bridge/v3/dynamic/test/${entry%%:*}@v$BRIDGE_VER")
  done
  run go get "${pkgs[@]}" || return 1
  check_version github.com/pulumi/pulumi-terraform-bridge/v3 "v$BRIDGE_VER" || return 1
  for entry in "${BRIDGE_TEST_PROVIDERS[@]}"; do
    run go build -trimpath -ldflags "-s -w" -o "$out/terraform-provider-${entry#*:}" \
      "github.com/pulumi/pulumi-terraform-bridge/v3/dynamic/test/${entry%%:*}" || return 1
  done
}

# --- Terraform CLI (begin) ---
# The module's source is copied out of the module cache and built as the main module (its
# go.sum applies), with the backends above taken out of internal/backend/init.
b_terraform() {
  local out=$1 src=$ROOT/src/terraform-$TERRAFORM_VER dir b
  run go mod download "$TERRAFORM_MOD@v$TERRAFORM_VER" || return 1
  dir=$(go env GOMODCACHE)/$TERRAFORM_MOD@v$TERRAFORM_VER
  rm -rf "$src" && cp -R "$dir" "$src" && chmod -R u+w "$src" && cd "$src" || return 1
  local pattern
  pattern=$(IFS='|'; echo "${TERRAFORM_DROPPED_BACKENDS[*]}")
  sed -i -E "\#^\s*backend[A-Za-z0-9]+ \"$TERRAFORM_MOD/internal/backend/remote-state/($pattern)\"#d" \
    internal/backend/init/init.go || return 1
  sed -i -E '/^\s*"(azurerm|consul|cos|gcs|kubernetes|oss|pg|s3|oci)": +func\(\) backend\.Backend/d' \
    internal/backend/init/init.go || return 1
  if grep -Eq "remote-state/($pattern)\"" internal/backend/init/init.go; then
    echo "test-tools: terraform: internal/backend/init/init.go still imports a dropped backend" >>"$CUR_LOG"
    return 1
  fi
  for b in "${TERRAFORM_DROPPED_BACKENDS[@]/#/internal/backend/remote-state/}" internal/legacy; do
    run go mod edit -droprequire="$TERRAFORM_MOD/$b" -dropreplace="$TERRAFORM_MOD/$b" || return 1
  done
  run go build -trimpath -ldflags "-s -w -X $TERRAFORM_MOD/version.dev=no" -o "$out/terraform" . || return 1
  CHECKPOINT_DISABLE=1 run "$out/terraform" version || return 1
  grep -q "^Terraform v$TERRAFORM_VER\$" "$CUR_LOG" || {
    echo "test-tools: terraform: 'terraform version' does not say v$TERRAFORM_VER" >>"$CUR_LOG"; return 1; }
}
# --- Terraform CLI (end) ---

# Pulumi's Terraform converter plugin. The proxy refuses its module (list and tags), so it is
# built from the unmodified source in ../shared/peers, whose build.sh stamps CONVERTER_VER.
# build.sh ends by running `pulumi-converter-terraform --help`, but the converter is a plugin
# server: it ignores flags, prints its port and serves until killed. So once the binary runs
# as a child of build.sh, that one process (by pid) is ended and build.sh's own fallback
# check (`-x`) finishes the build.
b_converter() {
  local out=$1 peers pid child
  peers=$(peers_dir pulumi-converter-terraform) || {
    no_source converter github.com/pulumi/pulumi-converter-terraform pulumi-converter-terraform
    return 1
  }
  grep -q "Version=v$CONVERTER_VER\"" "$peers/build.sh" || {
    echo "test-tools: converter: $peers/build.sh does not build v$CONVERTER_VER (scripts/peers.env)" >&2; return 1; }
  echo "+ bash $peers/build.sh $out" >>"$CUR_LOG"
  bash "$peers/build.sh" "$out" >>"$CUR_LOG" 2>&1 &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    for child in $(pgrep -P "$pid" || true); do
      if [[ $(readlink "/proc/$child/exe" 2>/dev/null) == "$out/pulumi-converter-terraform" ]]; then
        kill "$child" 2>/dev/null || true
      fi
    done
    sleep 2
  done
  wait "$pid" || { echo "test-tools: FAILED converter $CUR_VER: build.sh failed (log: $CUR_LOG)" >&2; return 1; }
  [[ -x $out/pulumi-converter-terraform ]]
}

