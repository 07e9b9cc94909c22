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
# shellcheck source=tools/catalogue.sh
. "$REPO/scripts/tools/catalogue.sh"
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
# shellcheck source=tools/helpers.sh
. "$REPO/scripts/tools/helpers.sh"
# shellcheck source=tools/providers.sh
. "$REPO/scripts/tools/providers.sh"
# shellcheck source=tools/languages.sh
. "$REPO/scripts/tools/languages.sh"
# shellcheck source=tools/go-tools.sh
. "$REPO/scripts/tools/go-tools.sh"
# shellcheck source=tools/windows.sh
. "$REPO/scripts/tools/windows.sh"
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
