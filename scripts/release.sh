#!/usr/bin/env bash
# Builds the release archive of the plugin in the layout `pulumi plugin install` expects, and
# a SHA-256 checksums file beside it:
#
#   <out>/pulumi-resource-terraform-provider-v<version>-<os>-<arch>.tar.gz
#       pulumi-resource-terraform-provider[.exe]   (built with the `dist` profile: stripped)
#       LICENSE
#       README.md
#   <out>/pulumi-resource-terraform-provider_<version>_checksums.txt   ("<sha256>  <archive>")
#
#   scripts/release.sh                                   # build for this machine, package it
#   scripts/release.sh --target aarch64-apple-darwin     # cross target (toolchain must exist)
#   scripts/release.sh --binary PATH [--target TRIPLE]   # package an already built binary
#   scripts/release.sh --out DIR                         # default: $CARGO_TARGET_DIR/dist
#
# The version is Cargo.toml's (the plugin's --version and GetPluginInfo report the same); a
# --binary this machine can run must report it too, so an archive never carries a binary of
# another version under this version's name. <os>-<arch> is Pulumi's spelling of the target
# triple (linux|darwin|windows, amd64|arm64); the archive's members sit at its root, as Pulumi
# unpacks an archive straight into the plugin's directory. stdout gets the archive's path and
# the checksums file's, one per line; progress goes to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
name=pulumi-resource-terraform-provider

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" >&2; exit 2; }
binary='' target='' out=''
while [[ $# -gt 0 ]]; do
  case "$1" in
    --binary) binary=${2:?--binary needs a path}; shift 2 ;;
    --target) target=${2:?--target needs a target triple}; shift 2 ;;
    --out) out=${2:?--out needs a directory}; shift 2 ;;
    -h|--help) usage ;;
    *) echo "release.sh: unknown argument $1" >&2; usage ;;
  esac
done

host=$(rustc -vV | sed -n 's/^host: //p')
target=${target:-$host}
case "$target" in
  x86_64-*) arch=amd64 ;;
  aarch64-*) arch=arm64 ;;
  *) echo "release.sh: no Pulumi architecture for target $target (x86_64 or aarch64)" >&2; exit 2 ;;
esac
case "$target" in
  *-linux-*) os=linux exe='' ;;
  *-apple-darwin) os=darwin exe='' ;;
  *-windows-*) os=windows exe=.exe ;;
  *) echo "release.sh: no Pulumi OS for target $target (linux, apple-darwin or windows)" >&2; exit 2 ;;
esac

# `cargo pkgid` ends in `#<name>@<version>`: Cargo.toml's version, the one source of truth.
pkgid=$(cargo pkgid --quiet -p "$name")
version=${pkgid##*@}
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+ ]] || { echo "release.sh: no version in $pkgid" >&2; exit 1; }

target_dir=${CARGO_TARGET_DIR:-$repo/target}
if [[ -z "$binary" ]]; then
  # The `dist` profile (Cargo.toml) is release without debug information, stripped.
  target_args=()
  [[ "$target" != "$host" ]] && target_args=(--target "$target")
  cargo build --locked --profile dist --bin "$name" "${target_args[@]}" >&2
  if [[ "$target" == "$host" ]]; then binary=$target_dir/dist/$name$exe
  else binary=$target_dir/$target/dist/$name$exe; fi
fi
[[ -f "$binary" && -x "$binary" ]] || { echo "release.sh: $binary is not an executable file" >&2; exit 1; }

# What the binary's header says it is: "<format> <architecture>". Pulumi installs whatever an
# archive holds, so a binary under another platform's name would only fail when first run.
le_hex() { od -An -tx1 -j "$2" -N "$3" "$1" | tr -d ' \n' | sed 's/\(..\)/\1 /g' | awk '{for (i = NF; i > 0; i--) printf "%s", $i}'; }
binary_kind() {
  local magic
  magic=$(od -An -tx1 -N4 "$1" | tr -d ' \n')
  case "$magic" in
    7f454c46)
      case $(le_hex "$1" 18 2) in 003e) echo "ELF x86_64" ;; 00b7) echo "ELF aarch64" ;; *) echo "ELF other" ;; esac ;;
    cffaedfe)
      case $(le_hex "$1" 4 4) in 01000007) echo "Mach-O x86_64" ;; 0100000c) echo "Mach-O aarch64" ;; *) echo "Mach-O other" ;; esac ;;
    4d5a*)
      local pe
      pe=$((16#$(le_hex "$1" 60 4)))
      case $(le_hex "$1" $((pe + 4)) 2) in 8664) echo "PE x86_64" ;; aa64) echo "PE aarch64" ;; *) echo "PE other" ;; esac ;;
    *) echo "unknown" ;;
  esac
}
case "$os" in linux) want_format=ELF ;; darwin) want_format=Mach-O ;; windows) want_format=PE ;; esac
want_kind="$want_format ${target%%-*}"
kind=$(binary_kind "$binary")
if [[ "$kind" != "$want_kind" ]]; then
  echo "release.sh: $binary: the binary is $kind; target $target needs $want_kind" >&2
  exit 1
fi
if [[ "$target" == "$host" ]]; then
  reported=$("$binary" --version)
  # "<name> <version> (Rust implementation)": a Go implementation's binary (it prints
  # "v<version>") is refused too.
  if [[ "$reported" != "$name $version (Rust implementation)" ]]; then
    echo "release.sh: $binary reports \"$reported\", but Cargo.toml's version is $version" >&2
    exit 1
  fi
fi

out=${out:-$target_dir/dist}
mkdir -p "$out"
archive=$name-v$version-$os-$arch.tar.gz
checksums=${name}_${version}_checksums.txt

# Stage the three members under fixed names and modes, then archive them with fixed owners
# and times, so the same binary always gives the same archive bytes.
stage=$(mktemp -d "${TMPDIR:-/tmp}/release-stage.XXXXXX")
trap 'rm -rf "$stage"' EXIT
install -m 0755 "$binary" "$stage/$name$exe"
install -m 0644 LICENSE README.md "$stage/"
# Written beside the final name and renamed into place: a reader never sees half an archive.
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 --format=gnu \
  -C "$stage" -cf - "$name$exe" LICENSE README.md | gzip -9 -n > "$out/.$archive.partial"
mv -f "$out/.$archive.partial" "$out/$archive"

# One line per archive of this version, as a release collects them from every platform: a
# rerun for one platform replaces its own line and keeps the others.
(
  cd "$out"
  line="$(sha256sum "$archive" | cut -d' ' -f1)  $archive"
  { [[ -f "$checksums" ]] && grep -v "  $archive\$" "$checksums" || true; echo "$line"; } | sort -k2 > ".$checksums.partial"
  mv -f ".$checksums.partial" "$checksums"
)
size() { stat -c %s "$1" 2>/dev/null || stat -f %z "$1"; }
echo "release.sh: $archive: binary $(size "$stage/$name$exe") bytes, archive $(size "$out/$archive") bytes" >&2
echo "$out/$archive"
echo "$out/$checksums"
