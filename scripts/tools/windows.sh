# Sourced by scripts/test-tools.sh, never run alone.
# The Windows x86-64 builds and the Wine prefix they run in (group windows).
# shellcheck shell=bash
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

