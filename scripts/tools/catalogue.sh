# Sourced by scripts/test-tools.sh, never run alone.
# What it builds: each peer's module path and replaces (the versions are in
# scripts/peers.env), the tool groups, and the usage text.
# shellcheck shell=bash
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

