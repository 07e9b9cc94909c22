# Sourced by scripts/test-tools.sh, never run alone.
# The language hosts and the SDKs programs use (Python, Node.js with pnpm, Go,
# Java), from the ordinary registries (group languages).
# shellcheck shell=bash
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

