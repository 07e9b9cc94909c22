# Sourced by scripts/test-tools.sh, never run alone.
# The builders of the Terraform providers and of the Pulumi CLI and YAML host
# (groups providers, pulumi).
# shellcheck shell=bash
# --- builders (each runs in a subshell; $1 = output dir) ----------------------
build_provider() { # NAME GOMOD GOVERSION VERSION OUT [REPLACE...]
  local name=$1 mod=$2 gover=$3 ver=$4 out=$5
  shift 5
  wrapper "terraform-provider-$name-$ver" "$@" || return 1
  run go get "$mod@$gover" || return 1
  check_version "$mod" "$gover" || return 1
  run go build -trimpath -ldflags "-s -w -X main.version=$ver" \
    -o "$out/terraform-provider-$name" "$mod" || return 1
}
b_random()     { build_provider random     "$RANDOM_MOD"     "$RANDOM_GOVER"     "$RANDOM_VER"     "$1"; }
b_random-golden() { build_provider random "$RANDOM_MOD" "$RANDOM_GOLDEN_GOVER" "$RANDOM_GOLDEN_VER" "$1"; }
b_null()       { build_provider null       "$NULL_MOD"       "$NULL_GOVER"       "$NULL_VER"       "$1"; }
b_local()      { build_provider local      "$LOCAL_MOD"      "$LOCAL_GOVER"      "$LOCAL_VER"      "$1"; }
b_tls()        { build_provider tls        "$TLS_MOD"        "$TLS_GOVER"        "$TLS_VER"        "$1"; }
b_http()       { build_provider http       "$HTTP_MOD"       "$HTTP_GOVER"       "$HTTP_VER"       "$1" "${HTTP_REPLACES[@]}"; }
b_time()       { build_provider time       "$TIME_MOD"       "$TIME_GOVER"       "$TIME_VER"       "$1"; }

# peers_dir NAME: print the directory shared/peers/NAME (with its build.sh),
# looked up in $TFBRIDGE_SHARED_PEERS, then ../shared/peers beside this
# checkout (CI's layout), then beside the main checkout when this is a git
# worktree. Fails when none has it.
peers_dir() {
  local bases=() base common
  [[ -n ${TFBRIDGE_SHARED_PEERS:-} ]] && bases+=("$TFBRIDGE_SHARED_PEERS")
  bases+=("$REPO/../shared/peers")
  if common=$(git -C "$REPO" rev-parse --path-format=absolute --git-common-dir 2>/dev/null); then
    bases+=("$(dirname "$common")/../shared/peers")
  fi
  for base in "${bases[@]}"; do
    if [[ -f $base/$1/build.sh ]]; then (cd "$base/$1" && pwd); return 0; fi
  done
  return 1
}

# proxy_has MOD VERSION: whether the Go module proxy serves MOD@VERSION, asked
# once with a short timeout (the build machine's proxy answers 403 at once).
proxy_has() {
  local dir rc=0
  dir=$(mktemp -d) || return 1
  echo "+ (probe) go mod download $1@$2" >>"$CUR_LOG"
  (cd "$dir" && GOFLAGS= timeout 60 go mod download "$1@$2") >>"$CUR_LOG" 2>&1 || rc=$?
  rm -rf "$dir"
  if ((rc != 0)); then
    echo "  (the Go module proxy does not serve $1@$2; trying ../shared/peers)" >>"$CUR_LOG"
  fi
  return "$rc"
}

# no_source TOOL MOD@VERSION PEER: the failure message when neither source works.
no_source() {
  echo "test-tools: FAILED $CUR_TOOL $CUR_VER: the Go module proxy does not serve $2 (log: $CUR_LOG)," \
    "and no ../shared/peers/$3/build.sh was found (looked beside $REPO, beside the main checkout of" \
    "its git worktree, and in \$TFBRIDGE_SHARED_PEERS)" >&2
  return 1
}

# tfcoremock: from the proxy, else from the unmodified source in shared/peers.
b_tfcoremock() {
  local out=$1 peers
  if proxy_has "$TFCOREMOCK_MOD" "$TFCOREMOCK_GOVER"; then
    build_provider tfcoremock "$TFCOREMOCK_MOD" "$TFCOREMOCK_GOVER" "$TFCOREMOCK_VER" "$out"
  elif peers=$(peers_dir tfcoremock); then
    run bash "$peers/build.sh" "$out"
  else
    no_source tfcoremock "$TFCOREMOCK_MOD@$TFCOREMOCK_GOVER" tfcoremock
  fi
}

# A peer the proxy refuses, always built from the unmodified source in shared/peers (its
# README says what is kept there).
#   from_peers NAME MODULE@VERSION PEER_DIR OUT
from_peers() {
  local name=$1 module=$2 dir=$3 out=$4 peers
  if peers=$(peers_dir "$dir"); then
    run bash "$peers/build.sh" "$out"
  else
    no_source "$name" "$module" "$dir"
  fi
}
# mysql: petoju's module and one of its dependencies are refused.
b_mysql() { from_peers mysql "github.com/petoju/terraform-provider-mysql/v3@v$MYSQL_VER" terraform-provider-mysql "$1"; }
# dns: hashicorp/dns, muxed (SDKv2 + framework, protocol 5).
b_dns() { from_peers dns "github.com/hashicorp/terraform-provider-dns@v$DNS_VER" terraform-provider-dns "$1"; }
# restful: magodo/restful, plugin framework (protocol 6), for PowerDNS's HTTP API.
b_restful() { from_peers restful "github.com/magodo/terraform-provider-restful@v$RESTFUL_VER" terraform-provider-restful "$1"; }

# Services from Debian's packages, for the tests' throw-away servers (never started as system
# services): mariadb (mariadb-server/-client) and bind9 (named, with nsupdate and dig from
# bind9-dnsutils). Installed only when a program is missing; the package lists are fetched
# first when apt does not know the package yet. Needs root.
#   install_debian NAME "PROGRAM..." PACKAGE...
install_debian() {
  local name=$1 programs=$2 missing=() p
  shift 2
  for p in $programs; do
    command -v "$p" >/dev/null || [[ -x /usr/sbin/$p ]] || missing+=("$p")
  done
  if ((${#missing[@]} == 0)); then
    log "cached $name (Debian's $*)"
    return 0
  fi
  CUR_TOOL=$name CUR_VER=debian CUR_LOG=$ROOT/logs/$name.log
  : >"$CUR_LOG"
  local start=$SECONDS
  log "installing $name from Debian's packages (log: $CUR_LOG; missing: ${missing[*]})"
  if ((EUID != 0)); then
    echo "test-tools: FAILED $name: ${missing[*]} missing and not root: run" \
      "'apt-get install -y $*' as root" >&2
    failures+=("$name (not installed, needs root)")
    return 0
  fi
  if ! apt-cache show "$1" >/dev/null 2>&1; then
    run apt-get update || { failures+=("$name (log: $CUR_LOG)"); return 0; }
  fi
  if DEBIAN_FRONTEND=noninteractive run apt-get install -y "$@"; then
    log "built $name debian in $((SECONDS - start))s"
  else
    failures+=("$name (log: $CUR_LOG)")
  fi
}

# source_hash DIR: the first 12 hex digits of a SHA-256 over the module's
# go.mod, go.sum and non-test .go files (names and contents), so any edit
# that can change the binary gives a new cache leaf.
source_hash() {
  (
    cd "$1" || exit 1
    find . -type f \( -name go.mod -o -name go.sum -o \( -name '*.go' ! -name '*_test.go' \) \) -print0 |
      LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-12
  )
}

# Our own providers: go build inside their module in this checkout (go.sum is
# committed, so the build is -mod=readonly like any other).
build_own_provider() { # NAME OUT
  local name=$1 out=$2
  cd "${OWN_PROVIDER_SRC[$name]}" || return 1
  run go build -trimpath -buildvcs=false -ldflags "-s -w" -o "$out/terraform-provider-$name" . || return 1
}
b_sdkv2test()      { build_own_provider sdkv2test "$1"; }
b_framework6test() { build_own_provider framework6test "$1"; }
b_muxed6test()     { build_own_provider muxed6test "$1"; }
b_bridgecases()    { build_own_provider bridgecases "$1"; }
b_replay()         { build_own_provider replay "$1"; }

# point_current DIR LEAF: DIR/current -> LEAF, replaced atomically.
point_current() {
  local dir=$1
  [[ -d $dir/$2 ]] || return 0
  ln -sfn "$2" "$dir/.current.$$" && mv -T "$dir/.current.$$" "$dir/current"
}

PULUMI_LDFLAGS="-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v$PULUMI_VER"

# The CLI and each language host get their own wrapper. pkg/v3 and sdk/v3 are
# pinned explicitly: the hosts' go.mod requires are stale (hidden by local
# replaces upstream), and sdk must match pkg.
# `go get` is given the main package itself so that go.sum gets every module
# the package imports (getting only the module path is not enough).
# PULUMI_VER and PULUMI_REPLACES may be overridden by the caller (the newest CLI).
build_pulumi_bin() { # BINARY PKG PKG-VERSION OUT
  local bin=$1 pkg=$2 pkgver=$3 out=$4
  wrapper "$CUR_TOOL-$PULUMI_VER" "${PULUMI_REPLACES[@]}" || return 1
  run go get "$pkg@$pkgver" "github.com/pulumi/pulumi/pkg/v3@v$PULUMI_VER" \
    "github.com/pulumi/pulumi/sdk/v3@v$PULUMI_VER" || return 1
  check_version github.com/pulumi/pulumi/pkg/v3 "v$PULUMI_VER" || return 1
  check_version github.com/pulumi/pulumi/sdk/v3 "v$PULUMI_VER" || return 1
  run go build -trimpath -tags osusergo,grpcnotrace \
    -ldflags "-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v$PULUMI_VER" -o "$out/$bin" "$pkg" ||
    return 1
}
b_pulumi-cli() { build_pulumi_bin pulumi github.com/pulumi/pulumi/pkg/v3/cmd/pulumi "v$PULUMI_VER" "$1"; }
# The builder runs in a subshell, so the overrides stay in it.
b_pulumi-cli-newest() {
  PULUMI_VER=$PULUMI_NEWEST_VER
  PULUMI_REPLACES=("${PULUMI_NEWEST_REPLACES[@]}")
  build_pulumi_bin pulumi github.com/pulumi/pulumi/pkg/v3/cmd/pulumi "v$PULUMI_VER" "$1"
}

# The newest CLI runs PULUMI_VER's language hosts. It looks for them beside its own
# executable (the CLI warns about a host found only on PATH), so its bin/ gets relative
# links to them, re-pointed on every run (cheap, and right after a PULUMI_VER bump).
HOST_FILES=(pulumi-language-python pulumi-language-nodejs pulumi-language-go pulumi-language-python-exec
  pulumi-resource-pulumi-python pulumi-resource-pulumi-nodejs)
link_newest_hosts() {
  local bin=$ROOT/pulumi/$PULUMI_NEWEST_VER/bin f
  [[ -d $bin ]] || return 0
  for f in "${HOST_FILES[@]}"; do
    ln -sfn "../../$PULUMI_VER/bin/$f" "$bin/.$f.$$" && mv -T "$bin/.$f.$$" "$bin/$f" || return 1
  done
}

# The Python, Node.js and Go language hosts (untagged modules, at the pseudo-
# version of the v3.259.0 commit) and the helper scripts the release ships
# beside them: pulumi-language-python-exec (the Python host runs programs
# through it) and the pulumi-resource-pulumi-{python,nodejs} plugin shims.
HOST_PKGS=(
  github.com/pulumi/pulumi/sdk/python/cmd/pulumi-language-python/v3
  github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3
  github.com/pulumi/pulumi/sdk/go/pulumi-language-go/v3
)
# Paths of the helper scripts inside the github.com/pulumi/pulumi/sdk/v3 module.
HOST_SCRIPTS=(python/cmd/pulumi-language-python-exec python/dist/pulumi-resource-pulumi-python
  nodejs/dist/pulumi-resource-pulumi-nodejs)
b_language-hosts() {
  local out=$1 peers pkg script sdkdir gets=()
  if proxy_has "${HOST_PKGS[0]}" "$PULUMI_HOST_GOVER"; then
    wrapper "language-hosts-$PULUMI_VER" "${PULUMI_REPLACES[@]}" || return 1
    for pkg in "${HOST_PKGS[@]}"; do gets+=("$pkg@$PULUMI_HOST_GOVER"); done
    run go get "${gets[@]}" "github.com/pulumi/pulumi/pkg/v3@v$PULUMI_VER" \
      "github.com/pulumi/pulumi/sdk/v3@v$PULUMI_VER" || return 1
    check_version github.com/pulumi/pulumi/sdk/v3 "v$PULUMI_VER" || return 1
    run go build -trimpath -tags osusergo,grpcnotrace -ldflags "$PULUMI_LDFLAGS" -o "$out/" "${HOST_PKGS[@]}" ||
      return 1
    sdkdir=$(go list -m -f '{{.Dir}}' github.com/pulumi/pulumi/sdk/v3) || return 1
    for script in "${HOST_SCRIPTS[@]}"; do run cp "$sdkdir/$script" "$out/" || return 1; done
  elif peers=$(peers_dir pulumi-language-hosts); then
    run bash "$peers/build.sh" "$out" || return 1
  else
    no_source language-hosts "${HOST_PKGS[0]}@$PULUMI_HOST_GOVER" pulumi-language-hosts
    return 1
  fi
  for script in "${HOST_SCRIPTS[@]}"; do
    [[ -f $out/$(basename "$script") ]] || { echo "test-tools: language-hosts: no $(basename "$script")" >&2; return 1; }
  done
}

