#!/usr/bin/env bash
# Build the real test peers (Terraform providers, Pulumi CLI + language hosts,
# the Go anchor pulumi-resource-terraform-provider) from the Go module proxy,
# and our own test providers from tests/go-providers/, into a cache keyed by
# version (or, for our own providers, by a hash of their sources); install the
# Pulumi SDKs programs need (PyPI, npm, Go module proxy), pinned. See
# scripts/README.md.
#
# Usage: scripts/test-tools.sh [all|providers|pulumi|languages|anchor|terraform|services|windows|<tool>...]
#   default: all (which leaves out windows).  <tool> is one of the names in the table printed by -h.
#
# Cache root: ${TFBRIDGE_TOOLS_DIR:-$HOME/.cache/tfbridge-tools}
#   providers/<name>/<version>/terraform-provider-<name>
#   providers/bridgetests/<bridge-version>/terraform-provider-{pfprovider,sdkv1,conflictsprovider}
#                                                    the Go implementation's test providers
#   providers/<name>/<hash12>/terraform-provider-<name>   our own providers (sdkv2test, framework6test, muxed6test,
#                                                    bridgecases, replay)
#   providers/<name>/current -> <hash12>                   symlink: the one matching the sources of the last run
#   pulumi/<version>/bin/{pulumi,pulumi-language-go,pulumi-language-python,pulumi-language-nodejs,
#                         pulumi-language-python-exec,pulumi-resource-pulumi-python,pulumi-resource-pulumi-nodejs}
#   sdk/python/<version>/venv/           virtualenv with pulumi==<version> (run venv/bin/python, not bin/pip)
#   sdk/python/<version>/wheels/         its wheels, plus setuptools and wheel, for offline installs
#   sdk/nodejs/<version>/node_modules/   @pulumi/pulumi, typescript, @types/node, ts-node (pinned)
#   sdk/nodejs/<version>/npm-cache/      npm cache for `npm install --offline --cache …`
#   pnpm/<pnpm-version>/{node_modules/.bin/pnpm,store,cache}  pnpm, and a store and metadata cache
#                                        with what sdk/nodejs holds plus a generated SDK's dependencies
#   sdk/go/<version>/{go.mod,go.sum,gomodcache}  sdk/v3 downloaded into the GOMODCACHE named in gomodcache
#   pulumi/<newest>/bin/pulumi         the newest CLI; the hosts beside it link to <version>'s
#   sdk/python/<newest-sdk>/...         the Python SDK its programs use
#   pulumi-yaml/<version>/bin/pulumi-language-yaml
#   pulumi-java/<version>/bin/pulumi-language-java   the Java language host (pulumi-java/pkg)
#   sdk/java/<version>/m2/               Maven repository: com.pulumi:pulumi and the plugins, for `mvn -o`
#   anchor/<bridge-version>/pulumi-resource-terraform-provider
#   terraform/<version>/terraform                           the Terraform CLI (the fixture's oracle)
#   converter/<version>/pulumi-converter-terraform          Pulumi's Terraform converter plugin
#   (windows: Windows x86-64 builds of some peers, and the Wine prefix they run in; scripts/wine-env.sh)
#   wine/<wine-version>-<hash12>/{prefix/,bcryptprimitives.dll}  a Wine prefix with our stand-in DLL in
#                                        system32; <hash12> covers scripts/wine/bcryptprimitives.c and the recipe
#   wine/current -> <wine-version>-<hash12>                 symlink: the prefix of the last run
#   windows-amd64/providers/random/<version>/terraform-provider-random_v<version>_x5.exe
#   windows-amd64/pulumi/<version>/bin/pulumi.exe
#   windows-amd64/pulumi-yaml/<version>/bin/pulumi-language-yaml.exe
#   windows-amd64/anchor/<bridge-version>/pulumi-resource-terraform-provider.exe
#   (services: mariadb is Debian's mariadb-server/-client, bind9 Debian's bind9/bind9-dnsutils,
#   pdns Debian's pdns-server/pdns-backend-sqlite3/sqlite3, installed system-wide with apt-get when missing)
#   src/<tool>-<version>/   one throw-away wrapper Go module per tool
#   logs/<tool>-<version>.log
#   env.sh                  exports TFBRIDGE_TOOLS_DIR and puts the Pulumi bin dirs on PATH
#
# Tools whose upstream module the build machine's proxy refuses (the language
# hosts, tfcoremock) are tried on the proxy first (one quick `go mod download`),
# then built from the unmodified upstream source in ../shared/peers (next to
# this checkout, or next to the main checkout of a git worktree, or
# $TFBRIDGE_SHARED_PEERS).
#
# Every leaf is created atomically (built into a temp dir next to it, then
# renamed). A leaf that exists is never rebuilt, so a warm run takes a few
# seconds.
# Progress goes to stderr ("built <tool> <version> in <N>s" / "cached <tool>
# <version>"); stdout stays quiet. A failed tool does not stop the others; the
# script reports every failure at the end and exits 1.
#
# The machine's GOPROXY/GOSUMDB/GOFLAGS/GOTOOLCHAIN are used as they are.
set -euo pipefail

ROOT=${TFBRIDGE_TOOLS_DIR:-$HOME/.cache/tfbridge-tools}

# --- pinned versions ---------------------------------------------------------
# The versions (*_VER, *_GOVER) live in scripts/peers.env, shared with the tests;
# the module paths and replaces they need stay here.
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=peers.env
. "$REPO/scripts/peers.env"
# The project's build machine's proxy answers 403 "This module version is not
# available" for many versions (null 3.x, tfcoremock, time 0.8.0, the three
# untagged language-host modules below). tfcoremock and the hosts fall back to
# the sources in ../shared/peers (see peers_dir below).
RANDOM_MOD=github.com/terraform-providers/terraform-provider-random
LOCAL_MOD=github.com/terraform-providers/terraform-provider-local
# null 2.1.2 (tag v2.1.2 = 8d3d85a60e20) predates terraform-plugin-sdk: it is
# built on Terraform v0.12's own helper/schema and speaks protocol 4 (netrpc)
# unless the client offers 5 in PLUGIN_PROTOCOL_VERSIONS. null 3.x is refused.
NULL_MOD=github.com/terraform-providers/terraform-provider-null
# tls, http and time: terraform-plugin-framework providers served on protocol 5.
# tls: a main-branch commit after v4.3.0 (2026-05-12), the newest the proxy has.
TLS_MOD=github.com/hashicorp/terraform-provider-tls
# http: the v3.6.1 release commit (CHANGELOG top entry). Its go.mod declares
# the terraform-providers path but the proxy serves it under hashicorp/.
HTTP_MOD=github.com/terraform-providers/terraform-provider-http
HTTP_REPLACES=("$HTTP_MOD=github.com/hashicorp/terraform-provider-http@$HTTP_GOVER")
TIME_MOD=github.com/hashicorp/terraform-provider-time
# tfcoremock: HashiCorp's protocol-6 test provider (framework). Proxy first,
# else ../shared/peers/tfcoremock.
TFCOREMOCK_MOD=github.com/hashicorp/terraform-provider-tfcoremock

PULUMI_REPLACES=(
  github.com/atotto/clipboard=github.com/tgummerer/clipboard@v0.0.0-20241001131231-d02d263e614e
  golang.org/x/text=golang.org/x/text@v0.39.0
)
# The newest CLI: pkg/v3's go.mod at that version replaces only clipboard (and sdk, locally);
# the golang.org/x/text it requires is served, so it needs no pin.
PULUMI_NEWEST_REPLACES=(
  github.com/atotto/clipboard=github.com/tgummerer/clipboard@v0.0.0-20241001131231-d02d263e614e
)
# The SDKs programs use, from the ordinary registries, pinned. @pulumi/pulumi
# takes typescript < 7 and ts-node < 12 as optional peers.
SDK_VER=$PULUMI_VER   # pulumi (PyPI), @pulumi/pulumi (npm), github.com/pulumi/pulumi/sdk/v3 (Go)
NODE_DEV_PACKAGES=(typescript@5.9.3 @types/node@20.19.43 ts-node@10.9.2)
# Only in the npm cache: what a generated SDK's own package.json asks for as
# devDependencies (typescript ^4.7.0). `pulumi package add` in a TypeScript
# project runs `npm install`, which resolves the linked SDK's devDependencies too.
NODE_CACHE_ONLY=(typescript@4.9.5)
# What the package.json of a local SDK that 3.259.0's Node.js codegen writes for a
# parameterized package depends on (pkg/v3 codegen/nodejs: MinimumValidParameterizationSDKVersion,
# MinimumTypescriptVersion, MinimumNodeTypesVersion): the pnpm store gets what they resolve to
# beside the program's own packages.
PNPM_SDK_DEPS=("@pulumi/pulumi@^3.238.0" "typescript@^4.7.0" "@types/node@^20")
# What a generated Python SDK requires beside pulumi (its pyproject.toml).
PYTHON_SDK_DEPS=(parver==1.0.1.post0)   # semver comes with pulumi

# --- Terraform CLI (begin) ---
# The oracle the fixture provider's own tests run (tests/fixture-provider/tests/terraform/).
TERRAFORM_MOD=github.com/hashicorp/terraform
# Terraform's go.mod points nine remote-state backends (azurerm, consul, cos, gcs,
# kubernetes, oci, oss, pg, s3) and internal/legacy at nested modules by local `replace`;
# the module zip leaves nested modules out and the proxy has no version of them at this
# commit. The build drops those backends (nothing here stores state remotely); the local,
# remote, http, inmem and cloud backends stay.
TERRAFORM_DROPPED_BACKENDS=(azure consul cos gcs kubernetes oci oss pg s3)
# --- Terraform CLI (end) ---

ANCHOR_REPLACES=(
  github.com/hashicorp/terraform-plugin-sdk/v2=github.com/pulumi/terraform-plugin-sdk/v2@v2.0.0-20260318212141-5525259d096b
)

# Our own test providers, built from this checkout; cached by source hash.
declare -A OWN_PROVIDER_SRC=(
  [sdkv2test]=$REPO/tests/go-providers/sdkv2
  [framework6test]=$REPO/tests/go-providers/framework6
  [muxed6test]=$REPO/tests/go-providers/muxed6
  [bridgecases]=$REPO/tests/go-providers/bridgecases
  [replay]=$REPO/tests/go-providers/replay
)

PROVIDERS=(random random-golden bridgetests local null tls http time tfcoremock sdkv2test framework6test muxed6test bridgecases replay mysql dns restful)
PULUMI_TOOLS=(pulumi-cli pulumi-cli-newest pulumi-language-yaml)
LANGUAGE_TOOLS=(language-hosts sdk-python sdk-nodejs pnpm sdk-go sdk-python-newest language-java sdk-java)
# Real services the tests start throw-away instances of (tests/common/mariadb.rs, tests/common/bind.rs,
# tests/common/pdns.rs).
SERVICE_TOOLS=(mariadb bind9 pdns)
ALL_TOOLS=("${PROVIDERS[@]}" "${PULUMI_TOOLS[@]}" "${LANGUAGE_TOOLS[@]}" anchor terraform converter "${SERVICE_TOOLS[@]}")
# Windows x86-64 builds of a few peers (same modules, versions and replaces as the Linux ones) and
# the Wine prefix that runs them (scripts/wine-env.sh). Not part of `all`: it needs Wine (wine64)
# and MinGW-w64 (x86_64-w64-mingw32-gcc).
WINDOWS_TOOLS=(wine-prefix random-windows pulumi-cli-windows pulumi-language-yaml-windows anchor-windows)
KNOWN_TOOLS=("${ALL_TOOLS[@]}" "${WINDOWS_TOOLS[@]}")

usage() {
  cat >&2 <<EOF
usage: $0 [all|providers|pulumi|languages|anchor|terraform|converter|services|windows|<tool>]...   (default: all)
  providers: ${PROVIDERS[*]}
  pulumi:    ${PULUMI_TOOLS[*]}
  languages: ${LANGUAGE_TOOLS[*]}
             (language-hosts: pulumi-language-{python,nodejs,go} and the release's helper scripts;
              language-java: pulumi-language-java v$JAVA_HOST_VER; sdk-java: a Maven repository)
  anchor:    anchor (pulumi-terraform-bridge/v3/dynamic v$BRIDGE_VER)
  terraform: terraform (the Terraform CLI v$TERRAFORM_VER)
  converter: converter (pulumi-converter-terraform v$CONVERTER_VER, from ../shared/peers)
  services:  ${SERVICE_TOOLS[*]} (Debian's packages, apt-get install when missing)
  windows:   ${WINDOWS_TOOLS[*]}
             (not in all; Windows x86-64 builds, and a Wine prefix for them: scripts/wine-env.sh)
cache root: \$TFBRIDGE_TOOLS_DIR (now: $ROOT)
EOF
}

# --- argument parsing ----------------------------------------------------------
selected=()
[[ $# -eq 0 ]] && set -- all
for arg in "$@"; do
  case $arg in
    all) selected+=("${ALL_TOOLS[@]}") ;;
    providers) selected+=("${PROVIDERS[@]}") ;;
    pulumi) selected+=("${PULUMI_TOOLS[@]}") ;;
    languages) selected+=("${LANGUAGE_TOOLS[@]}") ;;
    services) selected+=("${SERVICE_TOOLS[@]}") ;;
    windows) selected+=("${WINDOWS_TOOLS[@]}") ;;
    # The three hosts are built together.
    pulumi-language-go|pulumi-language-python|pulumi-language-nodejs) selected+=(language-hosts) ;;
    pulumi-language-java) selected+=(language-java) ;;
    -h|--help) usage; exit 0 ;;
    *)
      found=
      for t in "${KNOWN_TOOLS[@]}"; do [[ $t == "$arg" ]] && found=1; done
      if [[ -z $found ]]; then echo "test-tools: unknown group or tool: $arg" >&2; usage; exit 2; fi
      selected+=("$arg") ;;
  esac
done

command -v go >/dev/null || { echo "test-tools: 'go' not found on PATH" >&2; exit 1; }
mkdir -p "$ROOT/src" "$ROOT/logs"
ROOT=$(cd "$ROOT" && pwd)

# One run at a time per cache (wrapper dirs under src/ are shared).
exec 9>"$ROOT/.lock"
if command -v flock >/dev/null && ! flock -n 9; then
  echo "test-tools: waiting for another run holding $ROOT/.lock" >&2
  flock 9
fi

export CGO_ENABLED=0

failures=()
CUR_TOOL= CUR_VER= CUR_LOG=

log() { echo "$*" >&2; }

# run CMD...: run inside the current tool's log; on failure say which tool and
# which command failed, show the tail of the log, and return 1.
run() {
  echo "+ $*" >>"$CUR_LOG"
  local rc=0
  "$@" >>"$CUR_LOG" 2>&1 || rc=$?
  ((rc == 0)) && return 0
  {
    echo "test-tools: FAILED $CUR_TOOL $CUR_VER (exit $rc): $*"
    echo "  (in $PWD; full log: $CUR_LOG)"
    tail -n 15 "$CUR_LOG" | sed 's/^/  | /'
    if grep -q 'This module version is not available' "$CUR_LOG"; then
      echo "  hint: the Go module proxy refuses a module version this tool needs (403 above)."
    fi
  } >&2
  return 1
}

# wrapper NAME REPLACE...: fresh wrapper module $ROOT/src/NAME, cd into it (NAME gets
# WRAPPER_SUFFIX, set by for_windows, so a cross build keeps its own wrapper).
wrapper() {
  local dir=$ROOT/src/$1${WRAPPER_SUFFIX:-}; shift
  rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || return 1
  run go mod init "e2e.invalid/wrapper/$(basename "$dir")" || return 1
  local r
  for r in "$@"; do run go mod edit -replace="$r" || return 1; done
}

# check_version MOD WANT: the wrapper really resolved MOD at WANT.
check_version() {
  local got
  got=$(go list -m -f '{{.Version}}' "$1" 2>>"$CUR_LOG") || {
    echo "test-tools: FAILED $CUR_TOOL $CUR_VER: go list -m $1 (log: $CUR_LOG)" >&2; return 1; }
  if [[ $got != "$2" ]]; then
    echo "test-tools: $CUR_TOOL: $1 resolved to $got, wanted $2" >&2
    return 1
  fi
}

# install_leaf TOOL VERSION LEAF BUILDER [KIND [STAMP]]: build into a temp dir
# beside LEAF via "BUILDER <tmpdir>", then rename it to LEAF. KIND dir
# (default): the temp dir becomes LEAF. file: the file basename(LEAF) inside it
# becomes LEAF. files: every file inside it moves into dirname(LEAF),
# basename(LEAF) last, so LEAF existing means the whole set is there. Skips
# when LEAF exists, unless (kind dir) STAMP is given and differs from
# LEAF/.stamp: then the new build replaces LEAF (used where the leaf's name,
# a version, does not say everything it holds, e.g. the pinned extras of an SDK).
install_leaf() {
  local tool=$1 ver=$2 leaf=$3 builder=$4 kind=${5:-dir} stamp=${6:-}
  if [[ -e $leaf ]] && { [[ -z $stamp ]] || [[ $(cat "$leaf/.stamp" 2>/dev/null) == "$stamp" ]]; }; then
    log "cached $tool $ver"
    return 0
  fi
  CUR_TOOL=$tool CUR_VER=$ver CUR_LOG=$ROOT/logs/$tool-$ver.log
  : >"$CUR_LOG"
  mkdir -p "$(dirname "$leaf")"
  local tmp start=$SECONDS ok=
  tmp=$(mktemp -d "$(dirname "$leaf")/.tmp-$(basename "$leaf").XXXXXX")
  log "building $tool $ver (log: $CUR_LOG)"
  if ( "$builder" "$tmp" ); then
    if [[ $kind == file ]]; then
      [[ -f $tmp/$(basename "$leaf") ]] && chmod 0755 "$tmp/$(basename "$leaf")" &&
        mv -f "$tmp/$(basename "$leaf")" "$leaf" && ok=1
    elif [[ $kind == files ]]; then
      local f
      if [[ -f $tmp/$(basename "$leaf") ]]; then
        ok=1
        for f in "$tmp"/*; do
          [[ $f == "$tmp/$(basename "$leaf")" ]] && continue
          chmod 0755 "$f" && mv -f "$f" "$(dirname "$leaf")/" || ok=
        done
        [[ -n $ok ]] && chmod 0755 "$tmp/$(basename "$leaf")" && mv -f "$tmp/$(basename "$leaf")" "$leaf" || ok=
      fi
    elif [[ -n $stamp ]]; then
      # Replace an older build: the old leaf is moved aside first, then deleted.
      printf '%s\n' "$stamp" >"$tmp/.stamp" && chmod 0755 "$tmp" &&
        { [[ ! -e $leaf ]] || mv -T "$leaf" "$tmp.old"; } && mv -T "$tmp" "$leaf" && ok=1
      rm -rf "$tmp.old"
    else
      chmod 0755 "$tmp" && { mv -T "$tmp" "$leaf" 2>/dev/null || [[ -e $leaf ]]; } && ok=1
    fi
    [[ -z $ok ]] && echo "test-tools: FAILED $tool $ver: could not move the build output into $leaf" >&2
  fi
  rm -rf "$tmp"
  if [[ -n $ok ]]; then
    log "built $tool $ver in $((SECONDS - start))s"
  else
    failures+=("$tool $ver (log: $CUR_LOG)")
  fi
  return 0
}

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

# --- SDKs for programs, from the ordinary registries --------------------------
# The wheels of pulumi from PyPI and its dependencies, plus setuptools and
# wheel (what `pip install` of a generated SDK builds with), in wheels/, and a
# virtualenv with pulumi installed from them. Both are built in a temp dir and
# renamed, so the console scripts in venv/bin carry a stale shebang: use
# venv/bin/python (and `venv/bin/python -m pip`), which does not depend on
# where the venv is. Other venvs install offline with
# `pip install --no-index --find-links <wheels>`.
b_sdk-python() {
  local out=$1
  command -v python3 >/dev/null || { echo "test-tools: sdk-python: python3 not found on PATH" >&2; return 1; }
  run python3 -m pip download --no-input --disable-pip-version-check -d "$out/wheels" \
    "pulumi==$SDK_VER" "${PYTHON_SDK_DEPS[@]}" setuptools wheel || return 1
  run python3 -m venv "$out/venv" || return 1
  run "$out/venv/bin/python" -m pip install --no-input --disable-pip-version-check --no-index \
    --find-links "$out/wheels" "pulumi==$SDK_VER" "${PYTHON_SDK_DEPS[@]}" || return 1
  run "$out/venv/bin/python" -c "import pulumi, parver, semver" || return 1
}

# A node_modules tree with @pulumi/pulumi and the TypeScript toolchain, pinned
# exactly, and the npm cache it was installed through, so programs and
# generated SDKs install with `npm install --offline --cache <npm-cache>`.
b_sdk-nodejs() {
  local out=$1
  command -v npm >/dev/null || { echo "test-tools: sdk-nodejs: npm not found on PATH" >&2; return 1; }
  cd "$out" || return 1
  printf '{ "name": "tfbridge-sdk-nodejs", "private": true }\n' >package.json
  run npm install --cache "$out/npm-cache" --no-audit --no-fund --save-exact \
    "@pulumi/pulumi@$SDK_VER" "${NODE_DEV_PACKAGES[@]}" || return 1
  run npm cache add --cache "$out/npm-cache" "${NODE_CACHE_ONLY[@]}" || return 1
  run node_modules/.bin/tsc --version || return 1
}

# pnpm (PNPM_VER) from npm, and a pnpm store and metadata cache holding every package a
# TypeScript program on the SDK (the example's package.json: @pulumi/pulumi and the dev
# packages above) and a local SDK that `pulumi package add` generates need, so the tests run
# pnpm offline (npm_config_offline, npm_config_store_dir, npm_config_cache_dir). Filled by a
# real install of a stand-in program with a stand-in SDK linked by `file:`, as the Node.js host
# links one, then checked by installing it again offline.
#   pnpm/<PNPM_VER>/node_modules/.bin/pnpm   store/   cache/
# deps_json NAME@SPEC...: a package.json dependency map.
deps_json() {
  local sep= p
  printf '{'
  for p in "$@"; do printf '%s"%s": "%s"' "$sep" "${p%@*}" "${p##*@}"; sep=', '; done
  printf '}'
}
b_pnpm() {
  local out=$1 fill=$1/fill pnpm=$1/node_modules/.bin/pnpm
  command -v npm >/dev/null || { echo "test-tools: pnpm: npm not found on PATH" >&2; return 1; }
  run npm install --prefix "$out" --no-audit --no-fund --save-exact "pnpm@$PNPM_VER" || return 1
  [[ $("$pnpm" --version 2>>"$CUR_LOG") == "$PNPM_VER" ]] || {
    echo "test-tools: pnpm: $pnpm --version is not $PNPM_VER" >>"$CUR_LOG"; return 1; }
  mkdir -p "$fill/sdk" || return 1
  printf '{ "name": "tfbridge-pnpm-fill", "private": true,\n  "dependencies": %s,\n  "devDependencies": %s }\n' \
    "$(deps_json "@pulumi/pulumi@$SDK_VER" "@tfbridge-fill/sdk@file:sdk")" "$(deps_json "${NODE_DEV_PACKAGES[@]}")" \
    >"$fill/package.json"
  printf '{ "name": "@tfbridge-fill/sdk", "version": "0.0.1",\n  "dependencies": %s }\n' \
    "$(deps_json "${PNPM_SDK_DEPS[@]}")" >"$fill/sdk/package.json"
  local env=(env "npm_config_store_dir=$out/store" "npm_config_cache_dir=$out/cache" npm_config_update_notifier=false)
  cd "$fill" || return 1
  run "${env[@]}" "$pnpm" install || return 1
  # Offline from here on: the same install must need nothing more.
  rm -rf node_modules pnpm-lock.yaml
  run "${env[@]}" npm_config_offline=true "$pnpm" install || return 1
  run node -e 'require.resolve("@pulumi/pulumi")' || return 1
  # The store links every project that used it (store/v10/projects); the stand-in goes.
  cd "$out" && rm -rf "$fill" && find "$out/store" -xtype l -delete
}

# github.com/pulumi/pulumi/sdk/v3 and everything the packages of a generated Go
# SDK import, downloaded into the Go module cache (`go env GOMODCACHE`, named in
# gomodcache), with a go.mod/go.sum pair that builds them: a generated SDK's
# module copies both and then builds with GOPROXY=off.
b_sdk-go() {
  local out=$1
  wrapper "sdk-go-$SDK_VER" || return 1
  cat >main.go <<'GO'
// Imports what SDKs from `pulumi package gen-sdk --language go` import.
package main

import (
	_ "github.com/blang/semver"
	_ "github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	_ "github.com/pulumi/pulumi/sdk/v3/go/pulumi/internals"
	_ "github.com/pulumi/pulumi/sdk/v3/go/pulumix"
)

func main() {}
GO
  run go get "github.com/pulumi/pulumi/sdk/v3@v$SDK_VER" github.com/blang/semver || return 1
  check_version github.com/pulumi/pulumi/sdk/v3 "v$SDK_VER" || return 1
  run go mod tidy || return 1
  run go build -o /dev/null . || return 1
  run go vet . || return 1
  cp go.mod go.sum "$out/" && go env GOMODCACHE >"$out/gomodcache"
}

b_pulumi-language-yaml() {
  local out=$1
  wrapper "pulumi-language-yaml-$YAML_VER" || return 1
  run go get "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml@v$YAML_VER" || return 1
  check_version github.com/pulumi/pulumi-yaml "v$YAML_VER" || return 1
  mkdir -p "$out/bin"
  run go build -trimpath -ldflags "-s -w -X github.com/pulumi/pulumi-yaml/pkg/version.Version=v$YAML_VER" \
    -o "$out/bin/pulumi-language-yaml${EXE:-}" github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml || return 1
}

# --- Java (begin) ---
# The Java language host: pulumi-java's pkg module, which the proxy serves at this exact
# version. `go install` refuses a module with `replace` lines, so it is built as the main
# module from a writable copy of the downloaded source (its go.sum applies).
JAVA_HOST_MOD=github.com/pulumi/pulumi-java/pkg
b_language-java() {
  local out=$1 src=$ROOT/src/pulumi-language-java-$JAVA_HOST_VER dir
  run go mod download "$JAVA_HOST_MOD@v$JAVA_HOST_VER" || return 1
  dir=$(go env GOMODCACHE)/$JAVA_HOST_MOD@v$JAVA_HOST_VER
  rm -rf "$src" && cp -R "$dir" "$src" && chmod -R u+w "$src" && cd "$src" || return 1
  mkdir -p "$out/bin"
  run go build -trimpath -ldflags "-s -w -X $JAVA_HOST_MOD/version.Version=$JAVA_HOST_VER" \
    -o "$out/bin/pulumi-language-java" ./cmd/pulumi-language-java || return 1
}

# A Maven repository holding everything the Java example (examples/pulumi-java/pom.xml) and a
# generated SDK's Maven build (sdk-pom.xml, through install-sdk.sh) need, so every later Maven
# run is offline (`mvn -o -Dmaven.repo.local=<m2>`). Filled by building both for real: a
# stand-in SDK shaped like package add's output is installed, and a program on it runs through
# `compile exec:java`, as the Java host runs programs, and through the host's own bootstrap
# (com.pulumi.bootstrap.internal.Main packages), which reads the SDK's plugin.json.
JAVA_EXAMPLE=$REPO/examples/pulumi-java
b_sdk-java() {
  local out=$1 work=$1/bootstrap m2=$1/m2
  command -v mvn >/dev/null || { echo "test-tools: sdk-java: mvn not found on PATH" >&2; return 1; }
  command -v java >/dev/null || { echo "test-tools: sdk-java: java not found on PATH" >&2; return 1; }
  local mvn=(mvn --batch-mode --no-transfer-progress "-Dmaven.repo.local=$m2")
  mkdir -p "$work/sdk/src/main/java/com/pulumi/bootstrapsdk" "$work/sdk/src/main/resources/com/pulumi/bootstrapsdk" \
    "$work/program/src/main/java/boot" || return 1
  # As `pulumi package add` lays out a Java SDK: sources with a Utilities class, and version.txt.
  printf '0.0.1' >"$work/sdk/src/main/resources/com/pulumi/bootstrapsdk/version.txt"
  cat >"$work/sdk/src/main/java/com/pulumi/bootstrapsdk/Utilities.java" <<'JAVA'
package com.pulumi.bootstrapsdk;

import com.pulumi.core.Output;

public final class Utilities {
    public static Output<String> greeting() { return Output.of("hello"); }
}
JAVA
  run env MAVEN_GOAL=install bash "$JAVA_EXAMPLE/install-sdk.sh" "$work/sdk" "-Dmaven.repo.local=$m2" || return 1
  sed -e '/<!-- SDKS/,/<!-- \/SDKS -->/c\        <dependency><groupId>com.pulumi</groupId><artifactId>bootstrapsdk</artifactId><version>[0,)</version></dependency>' \
    -e 's#<mainClass>e2e.App</mainClass>#<mainClass>boot.App</mainClass>#' \
    "$JAVA_EXAMPLE/pom.xml" >"$work/program/pom.xml" || return 1
  cat >"$work/program/src/main/java/boot/App.java" <<'JAVA'
package boot;

public final class App {
    public static void main(String[] args) {
        com.pulumi.bootstrapsdk.Utilities.greeting();
        System.out.println("bootstrap program ran");
    }
}
JAVA
  cd "$work/program" || return 1
  run "${mvn[@]}" compile exec:java || return 1
  grep -q '^bootstrap program ran$' "$CUR_LOG" || { echo "test-tools: sdk-java: the program did not run" >>"$CUR_LOG"; return 1; }
  run "${mvn[@]}" -Dorg.slf4j.simpleLogger.logFile=System.err compile exec:java \
    -DmainClass=com.pulumi.bootstrap.internal.Main -DmainArgs=packages || return 1
  grep -q '"name":"bootstrapsdk"' "$CUR_LOG" || {
    echo "test-tools: sdk-java: the host's bootstrap did not find the SDK's plugin.json" >>"$CUR_LOG"; return 1; }
  # Offline from here on: the same builds must need nothing more.
  rm -rf target && run "${mvn[@]}" -o compile exec:java || return 1
  # The stand-in SDK is not part of the repository the tests use.
  rm -rf "$m2/com/pulumi/bootstrapsdk" "$work"
}
# --- Java (end) ---

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

# --- Windows (begin) ---
# Windows x86-64 builds of the peers an end-to-end run under Wine needs, by the Linux builders
# above (same modules, versions and replaces), and the Wine prefix they run in.

# for_windows: the rest of this builder (a subshell) cross-compiles for Windows x86-64, in a
# wrapper module of its own, and names the binaries NAME.exe.
for_windows() {
  export GOOS=windows GOARCH=amd64
  EXE=.exe WRAPPER_SUFFIX=-windows-amd64
}
# The provider is named as in the registry's zip (terraform-provider-<name>_v<version>_x5.exe).
b_random-windows() {
  for_windows
  build_provider random "$RANDOM_MOD" "$RANDOM_GOVER" "$RANDOM_VER" "$1" || return 1
  mv "$1/terraform-provider-random" "$1/terraform-provider-random_v${RANDOM_VER}_x5.exe"
}
b_pulumi-cli-windows() {
  for_windows
  build_pulumi_bin pulumi.exe github.com/pulumi/pulumi/pkg/v3/cmd/pulumi "v$PULUMI_VER" "$1"
}
b_pulumi-language-yaml-windows() { for_windows; b_pulumi-language-yaml "$1"; }
b_anchor-windows() { for_windows; b_anchor "$1"; }

# The Wine prefix (WINEPREFIX; scripts/wine-env.sh exports it and the same WINEDEBUG and
# WINEDLLOVERRIDES), made without a display or the network: mscoree and mshtml are disabled,
# so wineboot never offers to download Wine Mono or Gecko, and winemenubuilder too, so nothing
# is written outside the prefix. Its system32 gets our stand-in bcryptprimitives.dll
# (scripts/wine/bcryptprimitives.c says why), then a tiny program loads it from there, as Go
# does, and calls ProcessPrng. About 700 MB (Wine copies its DLLs into the prefix).
WINE_DLL_SRC=$REPO/scripts/wine/bcryptprimitives.c
WINE_CC=x86_64-w64-mingw32-gcc
WINE_DLL_FLAGS=(-shared -O2 -s -nostdlib -Wall '-Wl,--no-insert-timestamp')
WINE_ENV=(env -u DISPLAY -u WAYLAND_DISPLAY WINEDEBUG=-all 'WINEDLLOVERRIDES=mscoree,mshtml,winemenubuilder.exe=')

# wine_prefix_key: <wine version>-<hash12>, the hash over Wine's full version line, the DLL's
# source and the recipe (b_wine-prefix and the settings above), so a change of any is a new leaf.
wine_prefix_key() {
  local version
  command -v wine >/dev/null ||
    { echo "test-tools: FAILED wine-prefix: 'wine' not found on PATH (Debian: wine, wine64)" >&2; return 1; }
  version=$(WINEDEBUG=-all wine --version) || return 1   # wine-8.0 (Debian 8.0~repack-4)
  printf '%s-%s\n' "$(sed -E 's/^wine-([^ ]+).*/\1/' <<<"$version")" "$(
    { echo "$version"; cat "$WINE_DLL_SRC"; echo "$WINE_CC ${WINE_DLL_FLAGS[*]} ${WINE_ENV[*]}"
      declare -f b_wine-prefix; } | sha256sum | cut -c1-12)"
}

b_wine-prefix() {
  local out=$1 prog
  command -v "$WINE_CC" >/dev/null ||
    { echo "test-tools: wine-prefix: $WINE_CC not found on PATH (Debian: gcc-mingw-w64-x86-64)" >&2; return 1; }
  # Not local: the EXIT trap below (this builder runs in a subshell) still needs it.
  wine=("${WINE_ENV[@]}" "WINEPREFIX=$out/prefix")
  # Whatever happens, no wineserver of this (temporary) prefix outlives the build.
  trap '"${wine[@]}" wineserver -k >/dev/null 2>&1 || true' EXIT
  run "$WINE_CC" "${WINE_DLL_FLAGS[@]}" -o "$out/bcryptprimitives.dll" "$WINE_DLL_SRC" -ladvapi32 || return 1
  prog=$out/prng-check
  cat >"$prog.c" <<'C'
/* Loads bcryptprimitives.dll from system32 only, as Go does, and calls ProcessPrng. */
#include <windows.h>
#include <stdio.h>

typedef BOOL(WINAPI *process_prng)(PBYTE, SIZE_T);

int main(void)
{
    HMODULE dll = LoadLibraryExW(L"bcryptprimitives.dll", NULL, LOAD_LIBRARY_SEARCH_SYSTEM32);
    process_prng prng = dll ? (process_prng)(void *)GetProcAddress(dll, "ProcessPrng") : NULL;
    BYTE buf[64] = {0};
    int i, any = 0;
    if (!prng || !prng(buf, sizeof buf)) {
        puts("ProcessPrng not found or failed");
        return 1;
    }
    for (i = 0; i < (int)sizeof buf; i++)
        any |= buf[i];
    puts(any ? "ProcessPrng ok" : "ProcessPrng gave only zeros");
    return !any;
}
C
  run "$WINE_CC" -O2 -s -o "$prog.exe" "$prog.c" || return 1
  run timeout 600 "${wine[@]}" wine wineboot --init || return 1
  run cp "$out/bcryptprimitives.dll" "$out/prefix/drive_c/windows/system32/" || return 1
  run timeout 120 "${wine[@]}" wine "$prog.exe" || return 1
  grep -q '^ProcessPrng ok' "$CUR_LOG" || { echo "test-tools: wine-prefix: no 'ProcessPrng ok'" >>"$CUR_LOG"; return 1; }
  # The services wineboot started end with the wineserver (a few seconds after the last
  # program), and the prefix is renamed only then.
  run timeout 120 "${wine[@]}" wineserver -w || return 1
  rm -f "$prog.c" "$prog.exe"
}
# --- Windows (end) ---

# --- main ----------------------------------------------------------------------
declare -A done_tools=()
for tool in "${selected[@]}"; do
  [[ -n ${done_tools[$tool]:-} ]] && continue
  done_tools[$tool]=1
  case $tool in
    random)     install_leaf random     "$RANDOM_VER"     "$ROOT/providers/random/$RANDOM_VER"         b_random ;;
    null)       install_leaf null       "$NULL_VER"       "$ROOT/providers/null/$NULL_VER"             b_null ;;
    local)      install_leaf local      "$LOCAL_VER"      "$ROOT/providers/local/$LOCAL_VER"           b_local ;;
    tls)        install_leaf tls        "$TLS_VER"        "$ROOT/providers/tls/$TLS_VER"               b_tls ;;
    http)       install_leaf http       "$HTTP_VER"       "$ROOT/providers/http/$HTTP_VER"             b_http ;;
    time)       install_leaf time       "$TIME_VER"       "$ROOT/providers/time/$TIME_VER"             b_time ;;
    tfcoremock) install_leaf tfcoremock "$TFCOREMOCK_VER" "$ROOT/providers/tfcoremock/$TFCOREMOCK_VER" b_tfcoremock ;;
    mysql)      install_leaf mysql      "$MYSQL_VER"      "$ROOT/providers/mysql/$MYSQL_VER"           b_mysql ;;
    random-golden) install_leaf random "$RANDOM_GOLDEN_VER" "$ROOT/providers/random/$RANDOM_GOLDEN_VER" b_random-golden ;;
    bridgetests) install_leaf bridgetests "$BRIDGE_VER" "$ROOT/providers/bridgetests/$BRIDGE_VER" b_bridgetests ;;
    dns)        install_leaf dns        "$DNS_VER"        "$ROOT/providers/dns/$DNS_VER"               b_dns ;;
    restful)    install_leaf restful    "$RESTFUL_VER"    "$ROOT/providers/restful/$RESTFUL_VER"       b_restful ;;
    mariadb)    install_debian mariadb "mariadbd mariadb mariadb-install-db" mariadb-server mariadb-client ;;
    bind9)      install_debian bind9 "named nsupdate dig" bind9 bind9-dnsutils ;;
    pdns)       install_debian pdns "pdns_server sqlite3" pdns-server pdns-backend-sqlite3 sqlite3 ;;
    sdkv2test|framework6test|muxed6test|bridgecases|replay)
      if ! own_hash=$(source_hash "${OWN_PROVIDER_SRC[$tool]}"); then
        echo "test-tools: FAILED $tool: cannot hash ${OWN_PROVIDER_SRC[$tool]}" >&2
        failures+=("$tool (cannot hash ${OWN_PROVIDER_SRC[$tool]})")
        continue
      fi
      install_leaf "$tool" "$own_hash" "$ROOT/providers/$tool/$own_hash" "b_$tool"
      point_current "$ROOT/providers/$tool" "$own_hash" ;;
    pulumi-cli)
      # bin/ is shared, so each binary is its own atomically renamed leaf.
      install_leaf pulumi-cli "$PULUMI_VER" "$ROOT/pulumi/$PULUMI_VER/bin/pulumi" b_pulumi-cli file ;;
    pulumi-cli-newest)
      install_leaf pulumi-cli "$PULUMI_NEWEST_VER" "$ROOT/pulumi/$PULUMI_NEWEST_VER/bin/pulumi" \
        b_pulumi-cli-newest file
      link_newest_hosts || failures+=("pulumi-cli $PULUMI_NEWEST_VER (linking the language hosts)") ;;
    language-hosts)
      # Into the CLI's own bin/, where it looks for them; the set is complete once the
      # python host (moved last) is there.
      install_leaf language-hosts "$PULUMI_VER" "$ROOT/pulumi/$PULUMI_VER/bin/pulumi-language-python" \
        b_language-hosts files ;;
    sdk-python)
      install_leaf sdk-python "$SDK_VER" "$ROOT/sdk/python/$SDK_VER" b_sdk-python dir \
        "pulumi==$SDK_VER ${PYTHON_SDK_DEPS[*]} setuptools wheel" ;;
    sdk-nodejs)
      install_leaf sdk-nodejs "$SDK_VER" "$ROOT/sdk/nodejs/$SDK_VER" b_sdk-nodejs dir \
        "@pulumi/pulumi@$SDK_VER ${NODE_DEV_PACKAGES[*]} cache:${NODE_CACHE_ONLY[*]}" ;;
    pnpm)
      install_leaf pnpm "$PNPM_VER" "$ROOT/pnpm/$PNPM_VER" b_pnpm dir \
        "pnpm@$PNPM_VER @pulumi/pulumi@$SDK_VER ${NODE_DEV_PACKAGES[*]} sdk:${PNPM_SDK_DEPS[*]}" ;;
    sdk-python-newest)
      SDK_VER=$PULUMI_NEWEST_PYTHON_SDK install_leaf sdk-python "$PULUMI_NEWEST_PYTHON_SDK" \
        "$ROOT/sdk/python/$PULUMI_NEWEST_PYTHON_SDK" b_sdk-python dir \
        "pulumi==$PULUMI_NEWEST_PYTHON_SDK ${PYTHON_SDK_DEPS[*]} setuptools wheel" ;;
    sdk-go)
      install_leaf sdk-go "$SDK_VER" "$ROOT/sdk/go/$SDK_VER" b_sdk-go dir \
        "github.com/pulumi/pulumi/sdk/v3@v$SDK_VER github.com/blang/semver" ;;
    language-java)
      install_leaf language-java "$JAVA_HOST_VER" "$ROOT/pulumi-java/$JAVA_HOST_VER" b_language-java ;;
    sdk-java)
      # The leaf is named by the Java SDK version; the stamp is a hash of the two poms, whose
      # pinned plugins it holds.
      install_leaf sdk-java "$JAVA_SDK_VER" "$ROOT/sdk/java/$JAVA_SDK_VER" b_sdk-java dir \
        "$(cat "$JAVA_EXAMPLE/pom.xml" "$JAVA_EXAMPLE/sdk-pom.xml" | sha256sum | cut -c1-12)" ;;
    pulumi-language-yaml)
      install_leaf pulumi-language-yaml "$YAML_VER" "$ROOT/pulumi-yaml/$YAML_VER" b_pulumi-language-yaml ;;
    anchor)     install_leaf anchor     "$BRIDGE_VER"     "$ROOT/anchor/$BRIDGE_VER"                   b_anchor ;;
    terraform)  install_leaf terraform  "$TERRAFORM_VER"  "$ROOT/terraform/$TERRAFORM_VER"             b_terraform ;;
    converter)  install_leaf converter  "$CONVERTER_VER"  "$ROOT/converter/$CONVERTER_VER"             b_converter ;;
    wine-prefix)
      if ! wine_key=$(wine_prefix_key); then
        failures+=("wine-prefix (no Wine)")
        continue
      fi
      install_leaf wine-prefix "$wine_key" "$ROOT/wine/$wine_key" b_wine-prefix
      point_current "$ROOT/wine" "$wine_key" ;;
    random-windows)
      install_leaf random-windows "$RANDOM_VER" "$ROOT/windows-amd64/providers/random/$RANDOM_VER" b_random-windows ;;
    pulumi-cli-windows)
      install_leaf pulumi-cli-windows "$PULUMI_VER" "$ROOT/windows-amd64/pulumi/$PULUMI_VER/bin/pulumi.exe" \
        b_pulumi-cli-windows file ;;
    pulumi-language-yaml-windows)
      install_leaf pulumi-language-yaml-windows "$YAML_VER" "$ROOT/windows-amd64/pulumi-yaml/$YAML_VER" \
        b_pulumi-language-yaml-windows ;;
    anchor-windows)
      install_leaf anchor-windows "$BRIDGE_VER" "$ROOT/windows-amd64/anchor/$BRIDGE_VER" b_anchor-windows ;;
  esac
done

env_tmp=$(mktemp "$ROOT/.env.sh.XXXXXX")
cat >"$env_tmp" <<EOF
# generated by scripts/test-tools.sh; source it: . "$ROOT/env.sh"
export TFBRIDGE_TOOLS_DIR='$ROOT'
export PATH='$ROOT/pulumi/$PULUMI_VER/bin:$ROOT/pulumi-yaml/$YAML_VER/bin:$ROOT/pulumi-java/$JAVA_HOST_VER/bin':"\$PATH"
# The SDKs (scripts/test-tools.sh languages); see scripts/README.md.
export TFBRIDGE_PYTHON_VENV='$ROOT/sdk/python/$SDK_VER/venv'
export TFBRIDGE_PYTHON_WHEELS='$ROOT/sdk/python/$SDK_VER/wheels'
export TFBRIDGE_NODE_MODULES='$ROOT/sdk/nodejs/$SDK_VER/node_modules'
export TFBRIDGE_NPM_CACHE='$ROOT/sdk/nodejs/$SDK_VER/npm-cache'
export TFBRIDGE_MAVEN_REPO='$ROOT/sdk/java/$JAVA_SDK_VER/m2'
EOF
mv -f "$env_tmp" "$ROOT/env.sh"

if ((${#failures[@]})); then
  echo "test-tools: ${#failures[@]} tool(s) FAILED:" >&2
  printf '  %s\n' "${failures[@]}" >&2
  exit 1
fi
