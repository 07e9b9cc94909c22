#!/usr/bin/env bash
# Checks the workspace for the platforms we do not run on, from this Linux x86_64 machine,
# and ends with one summary line per step:
#
# 1. arm64: the hermetic tier (`cargo test --workspace`: the `hermetic` test binary, every
#    crate's unit tests, the fixture provider's tests) cross-built for
#    aarch64-unknown-linux-gnu with Debian's cross gcc as linker and C compiler (aws-lc-sys
#    and libmimalloc-sys compile C), then run under qemu-user. The tests start aarch64
#    binaries themselves (the plugin, schema-gen, the fixture provider, through a shell
#    script), so besides cargo's runner the kernel must hand aarch64 ELF files to qemu:
#    binfmt_misc is mounted and qemu-user-binfmt's entry registered when missing (root), and
#    /etc/qemu-binfmt/aarch64 points at Debian's arm64 sysroot, where Debian's qemu looks
#    for the dynamic loader. Prints "tests: N passed, N failed, N ignored" and the build's
#    and the run's wall times (cold on 2 cores: the build 3 minutes on a quiet machine, 8
#    beside other builds; the run 5.5 minutes, where the native run takes half a minute);
# 2. macos: clippy with warnings as errors (so also a type check) of every target and
#    feature of the workspace, for x86_64-apple-darwin and aarch64-apple-darwin, with zig
#    (PyPI's ziglang) as the C compiler through cargo-zigbuild. Zig carries macOS's libc
#    headers and libSystem stubs, so no macOS SDK is needed to type-check;
# 3. macos-link (only when asked for): links the plugin for both macOS targets with
#    cargo-zigbuild. Without a macOS SDK (SDKROOT, which cannot be fetched here) it fails:
#    rustls-platform-verifier (through reqwest) links the Security and CoreFoundation
#    frameworks, which zig does not carry.
#
# Then it checks that the run left no process behind: any process carrying this run's
# TFBRIDGE_TEST_RUN marker (qemu-aarch64 and the aarch64 programs it runs) fails the run, is
# listed, and is killed.
#
# Usage: scripts/cross-test.sh [--check-only] [arm64|macos|macos-link]...   (default: arm64 macos)
#   --check-only: arm64 builds the tests but runs nothing (no qemu, no binfmt_misc).
#
# What it installs when missing (like scripts/test-tools.sh's services; apt-get needs root):
#   Debian's gcc-aarch64-linux-gnu, libc6-dev-arm64-cross, qemu-user, qemu-user-binfmt;
#   the rust std of each target (`rustup target add`);
#   into ${TFBRIDGE_TOOLS_DIR:-$HOME/.cache/tfbridge-tools}:
#     zig/<version>/ziglang/zig                     PyPI's ziglang (pip install --target)
#     cargo-zigbuild/<version>/bin/cargo-zigbuild   crates.io (cargo install --locked --root)
# binfmt_misc's qemu-aarch64 entry is left as the run found it (enabled or not).
set -euo pipefail
cd "$(dirname "$0")/.."

ZIG_VER=0.17.1
ZIGBUILD_VER=0.24.1
ARM64=aarch64-unknown-linux-gnu
MACOS_TARGETS=(x86_64-apple-darwin aarch64-apple-darwin)
ROOT=${TFBRIDGE_TOOLS_DIR:-$HOME/.cache/tfbridge-tools}

usage() {
  sed -n 's/^# \{0,1\}//; /^Usage:/,/^$/p' "$0" >&2
  exit 2
}

check_only=
steps=()
for arg in "$@"; do
  case $arg in
    --check-only) check_only=1 ;;
    arm64 | macos | macos-link) steps+=("$arg") ;;
    *) usage ;;
  esac
done
((${#steps[@]})) || steps=(arm64 macos)

log() { echo "cross-test: $*" >&2; }
die() { log "FAILED: $*"; exit 1; }

# install_debian PACKAGE...: apt-get install those that are not installed.
install_debian() {
  local missing=() package
  for package in "$@"; do
    [[ $(dpkg-query -W -f='${Status}' "$package" 2>/dev/null) == "install ok installed" ]] || missing+=("$package")
  done
  ((${#missing[@]})) || return 0
  ((EUID == 0)) || die "Debian's ${missing[*]} missing and not root: run 'apt-get install -y ${missing[*]}' as root"
  log "installing Debian's ${missing[*]}"
  apt-cache show "${missing[0]}" >/dev/null 2>&1 || apt-get update >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}" >&2
}

# add_targets TRIPLE...: the rust std of each, when the toolchain lacks it.
add_targets() {
  local installed triple
  installed=$(rustup target list --installed)
  for triple in "$@"; do
    grep -qxF "$triple" <<<"$installed" || rustup target add "$triple" >&2
  done
}

# Makes the kernel run aarch64 ELF files with qemu-aarch64: the tests exec them directly.
AARCH64_MAGIC=7f454c460201010000000000000000000200b700
register_binfmt() {
  local misc=/proc/sys/fs/binfmt_misc entry
  [[ -e /etc/qemu-binfmt/aarch64 ]] || {
    ((EUID == 0)) || die "/etc/qemu-binfmt/aarch64 missing and not root: run 'ln -s /usr/aarch64-linux-gnu /etc/qemu-binfmt/aarch64' as root"
    mkdir -p /etc/qemu-binfmt && ln -s /usr/aarch64-linux-gnu /etc/qemu-binfmt/aarch64
  }
  if [[ ! -e $misc/register ]]; then
    ((EUID == 0)) || die "binfmt_misc is not mounted and not root: run 'mount -t binfmt_misc binfmt_misc $misc' as root"
    mount -t binfmt_misc binfmt_misc "$misc" || die "cannot mount binfmt_misc at $misc"
  fi
  # Any enabled entry for aarch64 ELF files will do (a container host may have its own).
  for entry in "$misc"/*; do
    [[ -f $entry && $(basename "$entry") != register && $(basename "$entry") != status ]] || continue
    if grep -qx enabled "$entry" && grep -qx "magic $AARCH64_MAGIC" "$entry"; then
      return 0
    fi
  done
  ((EUID == 0)) || die "no binfmt_misc entry for aarch64 and not root: register /usr/lib/binfmt.d/qemu-aarch64.conf as root"
  if [[ -e $misc/qemu-aarch64 ]]; then
    echo 1 >"$misc/qemu-aarch64"
  else
    cat /usr/lib/binfmt.d/qemu-aarch64.conf >"$misc/register"
  fi
  log "registered qemu-aarch64 in binfmt_misc (until this run ends)"
}

# Whether qemu-aarch64 is enabled in binfmt_misc: checked before the arm64 step (installing
# Debian's qemu-user-binfmt enables it too) and restored at exit, because with it every
# aarch64 ELF file on the machine runs under qemu, which changes what other tests see
# (e2e_install's wrong-architecture archive).
binfmt_enabled() { grep -qx enabled /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null; }
BINFMT_WAS_ENABLED=
binfmt_enabled && BINFMT_WAS_ENABLED=1
restore_binfmt() {
  if [[ -z $BINFMT_WAS_ENABLED ]] && binfmt_enabled; then
    echo 0 >/proc/sys/fs/binfmt_misc/qemu-aarch64 && log "disabled qemu-aarch64 in binfmt_misc again"
  fi
}

# install_zig: PyPI's ziglang into its own directory (no virtualenv, so it can be renamed
# into place); prints the directory holding `zig`.
install_zig() {
  local leaf=$ROOT/zig/$ZIG_VER tmp
  if [[ ! -x $leaf/ziglang/zig ]]; then
    log "installing ziglang $ZIG_VER from PyPI"
    mkdir -p "$ROOT/zig"
    tmp=$(mktemp -d "$ROOT/zig/.tmp-$ZIG_VER.XXXXXX")
    python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore \
      --target "$tmp" "ziglang==$ZIG_VER" >&2 || { rm -rf "$tmp"; die "pip install ziglang==$ZIG_VER"; }
    rm -rf "$leaf" && mv "$tmp" "$leaf"
  fi
  echo "$leaf/ziglang"
}

# install_zigbuild: cargo-zigbuild from crates.io, built in a throw-away target dir; prints
# the directory holding it.
install_zigbuild() {
  local leaf=$ROOT/cargo-zigbuild/$ZIGBUILD_VER tmp
  if [[ ! -x $leaf/bin/cargo-zigbuild ]]; then
    log "installing cargo-zigbuild $ZIGBUILD_VER from crates.io (about 2 minutes)"
    mkdir -p "$ROOT/cargo-zigbuild"
    tmp=$(mktemp -d "$ROOT/cargo-zigbuild/.tmp-$ZIGBUILD_VER.XXXXXX")
    env -u CARGO_TARGET_DIR cargo install --quiet --locked --root "$tmp" \
      cargo-zigbuild --version "=$ZIGBUILD_VER" >&2 || { rm -rf "$tmp"; die "cargo install cargo-zigbuild"; }
    rm -rf "$leaf" && mv "$tmp" "$leaf"
  fi
  echo "$leaf/bin"
}

# Every process this run starts inherits the marker; this shell does not export it, so its
# own processes never match.
marker="cross-test.sh-$$-$(date +%s%N)"
logs=$(mktemp -d)
trap 'restore_binfmt; rm -rf "$logs"' EXIT
status=0
summary=()
tests=

# step NAME CMD...: runs CMD with the marker, its output also in $logs/NAME; records its
# status and wall time.
step() {
  local name=$1 start=$SECONDS rc=0
  shift
  echo "== $name: $*" >&2
  TFBRIDGE_TEST_RUN=$marker "$@" 2>&1 | tee "$logs/$name" || rc=$?
  summary+=("$name: $( ((rc == 0)) && echo ok || echo "FAILED (exit $rc)" ), $((SECONDS - start)) s")
  ((rc == 0)) || status=1
  return "$rc"
}

for s in "${steps[@]}"; do
  case $s in
    arm64)
      install_debian gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user qemu-user-binfmt
      add_targets "$ARM64"
      export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
      export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L /usr/aarch64-linux-gnu"
      export CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc
      export AR_aarch64_unknown_linux_gnu=aarch64-linux-gnu-ar
      step arm64-build cargo test --workspace --locked --no-run --target "$ARM64" || continue
      [[ -n $check_only ]] && continue
      register_binfmt
      # Debian 12's qemu-user 7.2 with glib 2.74 can deadlock in a child forked while
      # another thread translates code: the child waits for GSlice's lock, which it never
      # gets (qemu issue 285; QEMU 8.0 stopped using GTree's allocator). Every later spawn
      # waits behind it on our one spawner thread (src/tfplugin/process.rs), so the whole
      # run hangs. GSlice then takes malloc, whose locks glibc resets in a forked child.
      # Every qemu the tests start inherits it; the hermetic tier clears no environment.
      export G_SLICE=always-malloc
      step arm64-run cargo test --workspace --locked --no-fail-fast --target "$ARM64" || true
      # cargo prints one "test result:" line per test binary; add them up.
      tests=$(awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i) ~ /^passed;?$/) p += $(i-1); if ($(i) ~ /^failed;?$/) f += $(i-1); if ($(i) ~ /^ignored;?$/) g += $(i-1) } }
        END { printf "tests: %d passed, %d failed, %d ignored\n", p, f, g }' "$logs/arm64-run")
      ;;
    macos | macos-link)
      add_targets "${MACOS_TARGETS[@]}"
      zig_dir=$(install_zig)
      zigbuild_dir=$(install_zigbuild)
      export PATH="$zigbuild_dir:$zig_dir:$PATH"
      for triple in "${MACOS_TARGETS[@]}"; do
        if [[ $s == macos ]]; then
          step "clippy-$triple" cargo-zigbuild clippy --locked --workspace --all-targets --all-features \
            --target "$triple" -- -D warnings || true
        else
          [[ -n ${SDKROOT:-} ]] || log "no SDKROOT: expect 'unable to find system framework \"Security\"'"
          step "link-$triple" cargo-zigbuild zigbuild --locked --bin pulumi-resource-terraform-provider \
            --target "$triple" || true
        fi
      done
      ;;
  esac
done

# No process left behind. A process that is exiting gets two seconds to go.
# shellcheck source=leftovers.sh
. scripts/leftovers.sh
no_leftovers cross-test.sh "$marker" || status=1

printf '%s\n' "${summary[@]}"
# The runner's summary (arm64) last, as scripts/test.sh ends.
[[ -z $tests ]] || echo "$tests"
exit "$status"
