# shellcheck shell=bash source-path=SCRIPTDIR
# Source this for a test run under Wine: Windows x86-64 programs on this Linux machine, in the
# Wine prefix `scripts/test-tools.sh windows` (or `wine-prefix`) builds. See scripts/README.md.
#
#   scripts/test-tools.sh windows
#   . scripts/wine-env.sh || exit 1
#   cargo test --target x86_64-pc-windows-gnu ...    # Cargo runs the test binaries with `wine`
#   wine "$TFBRIDGE_WINDOWS_PULUMI" version
#   tfbridge_wine_stop                               # at the end, always: no Wine process stays
#   tfbridge_wine_ps                                 # lists what is left of the prefix: nothing
#
# Exports:
#   WINEPREFIX        $TFBRIDGE_TOOLS_DIR/wine/<key>/prefix (wine/current, resolved, so a rebuild
#                     during the run does not move it); shared: a run writes into its registry
#   WINEDEBUG=-all    no Wine debug output (and no "wine32 is missing" hint from Debian's wine)
#   WINEDLLOVERRIDES  mscoree, mshtml and winemenubuilder.exe disabled, as when the prefix was
#                     made: Wine never offers to download Wine Mono or Gecko, and writes nothing
#                     outside the prefix
#   WINEPATH          put first on the Windows PATH (Wine ignores the Unix PATH): the bin dirs of
#                     pulumi.exe and pulumi-language-yaml.exe, as Z:\... paths
#   CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=wine   Debian's /usr/bin/wine (it runs
#                     /usr/lib/wine/wine64 when, as here, there is no wine32; `wine64` is not on PATH)
#   TFBRIDGE_WINDOWS_DIR                  $TFBRIDGE_TOOLS_DIR/windows-amd64
#   TFBRIDGE_WINDOWS_PULUMI               .../pulumi/<PULUMI_VER>/bin/pulumi.exe
#   TFBRIDGE_WINDOWS_LANGUAGE_YAML        .../pulumi-yaml/<YAML_VER>/bin/pulumi-language-yaml.exe
#   TFBRIDGE_WINDOWS_RANDOM               .../providers/random/<RANDOM_VER>/terraform-provider-random_v<RANDOM_VER>_x5.exe
#   TFBRIDGE_WINDOWS_ANCHOR               .../anchor/<BRIDGE_VER>/pulumi-resource-terraform-provider.exe
# and unsets DISPLAY and WAYLAND_DISPLAY, so Wine never opens a window, and the variables that
# name Linux files a Windows program would misread as its own (SSL_CERT_FILE, SSL_CERT_DIR,
# TF_CLI_CONFIG_FILE: this machine sets them; \etc\ssl\... is no Windows path). Defines
# tfbridge_wine_stop: ends every process of the prefix and waits for its wineserver to exit;
# tfbridge_wine_ps: lists the processes of the prefix (nothing, after tfbridge_wine_stop).
# Returns 1, having changed nothing, when the prefix has not been built.

tfbridge_wine_env() {
  local repo root prefix bin
  repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd) || return 1
  root=${TFBRIDGE_TOOLS_DIR:-$HOME/.cache/tfbridge-tools}
  if ! prefix=$(cd "$root/wine/current/prefix" 2>/dev/null && pwd -P) || [[ ! -d $prefix/drive_c ]]; then
    echo "wine-env: no Wine prefix at $root/wine/current/prefix: run scripts/test-tools.sh windows" >&2
    return 1
  fi
  # shellcheck source=peers.env
  . "$repo/scripts/peers.env" || return 1
  bin=$root/windows-amd64
  unset DISPLAY WAYLAND_DISPLAY SSL_CERT_FILE SSL_CERT_DIR TF_CLI_CONFIG_FILE
  export WINEPREFIX=$prefix WINEDEBUG=-all WINEDLLOVERRIDES='mscoree,mshtml,winemenubuilder.exe='
  export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=wine
  export TFBRIDGE_WINDOWS_DIR=$bin
  export TFBRIDGE_WINDOWS_PULUMI=$bin/pulumi/$PULUMI_VER/bin/pulumi.exe
  export TFBRIDGE_WINDOWS_LANGUAGE_YAML=$bin/pulumi-yaml/$YAML_VER/bin/pulumi-language-yaml.exe
  export TFBRIDGE_WINDOWS_RANDOM=$bin/providers/random/$RANDOM_VER/terraform-provider-random_v${RANDOM_VER}_x5.exe
  export TFBRIDGE_WINDOWS_ANCHOR=$bin/anchor/$BRIDGE_VER/pulumi-resource-terraform-provider.exe
  # Drive Z: is / in every Wine prefix, so a Unix path is Z: plus the path with backslashes.
  local pulumi_bin=Z:${TFBRIDGE_WINDOWS_PULUMI%/*} yaml_bin=Z:${TFBRIDGE_WINDOWS_LANGUAGE_YAML%/*}
  export WINEPATH="${pulumi_bin//\//\\};${yaml_bin//\//\\}"
}

# tfbridge_wine_stop: kill every Wine process of $WINEPREFIX, then wait until its wineserver
# has exited (it lingers a few seconds after the last program otherwise).
tfbridge_wine_stop() {
  wineserver -k 2>/dev/null || true
  wineserver -w 2>/dev/null || true
}

# tfbridge_wine_ps: "PID COMMAND" of every Wine process of this WINEPREFIX (the Windows
# programs, their wineserver and Wine's own services: each runs a wine* executable, with the
# prefix in its environment); prints nothing when none is left. Another prefix's processes
# (another checkout's run) are not listed.
tfbridge_wine_ps() {
  local environ pid exe
  for environ in /proc/[0-9]*/environ; do
    pid=${environ#/proc/} pid=${pid%/environ}
    exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || continue
    [[ ${exe##*/} == wine* ]] || continue
    if tr '\0' '\n' <"$environ" 2>/dev/null | grep -qxF "WINEPREFIX=$WINEPREFIX"; then
      echo "$pid $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)"
    fi
  done
}

tfbridge_wine_env
