#!/usr/bin/env bash
# The Windows tier, on this Linux machine: the plugin and its tests cross-built for
# x86_64-pc-windows-gnu with Debian's MinGW, run under Wine (scripts/wine-env.sh), with Windows
# builds of the real peers (scripts/test-tools.sh windows). Two parts:
#
# 1. the hermetic tier (`cargo test --workspace`, Cargo running each test binary with wine),
#    less the tests below that Wine itself cannot run, each listed with the reason;
# 2. end to end (scripts/windows-e2e.sh): the release archive installed with the Windows
#    Pulumi CLI, `package add` of the Windows random provider in every path form a Windows
#    user types, then up, a preview with no changes, an update and destroy of a YAML program.
#
# Ends with "windows: N passed, N failed, N ignored" (the hermetic tier's counts plus the
# end-to-end run's steps), and checks that no Wine process of the run is left.
#
#   scripts/test-windows.sh            # both parts
#   scripts/test-windows.sh hermetic   # one part
#   scripts/test-windows.sh e2e
set -euo pipefail
cd "$(dirname "$0")/.."
parts=("$@")
[[ $# -gt 0 ]] || parts=(hermetic e2e)
target=x86_64-pc-windows-gnu

# Debian's Wine and MinGW, when this machine lacks them (as root, as test-tools.sh installs
# the services); the Rust target from rustup.
missing=()
command -v wine >/dev/null || missing+=(wine wine64)
command -v x86_64-w64-mingw32-gcc >/dev/null || missing+=(gcc-mingw-w64-x86-64)
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "== windows: installing ${missing[*]} (Debian)" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
rustup target add "$target" >/dev/null
bash scripts/test-tools.sh windows
# shellcheck source=wine-env.sh
. scripts/wine-env.sh
logs=$(mktemp -d)
trap 'tfbridge_wine_stop; rm -rf "$logs"' EXIT

# What Wine 8 cannot do, so these run only on Windows itself (`--include-ignored` there runs
# everything). Each entry: a test-name filter for libtest's --skip, and why.
WINE_SKIPS=(
  # rustls-platform-verifier passes CertCreateCertificateChainEngine the Windows 8 structure
  # (with dwExclusiveFlags); Wine 8's crypt32 accepts only the two older sizes and fails with
  # E_INVALIDARG (dlls/crypt32/chain.c). Every test whose loopback registry uses a test CA
  # gives the installer extra roots, which take that path.
  "installer::bad_input::|Wine 8's crypt32 refuses the Windows 8 chain-engine configuration (E_INVALIDARG) that the installer's extra root certificates need"
  "installer::sources::|Wine 8's crypt32 refuses the Windows 8 chain-engine configuration (E_INVALIDARG) that the installer's extra root certificates need"
  # GenerateConsoleCtrlEvent(CTRL_BREAK_EVENT, group) fails with ERROR_INVALID_ACCESS under
  # Wine 8, even after AllocConsole; it is how pulumi's cmdutil.Interrupt stops a plugin.
  "plugin_process::started_like_the_engine_answers_and_exits_cleanly_on_sigint|Wine 8 fails GenerateConsoleCtrlEvent (ERROR_INVALID_ACCESS): no Ctrl+Break reaches the plugin"
  "plugin_process::stdout_holds_only_the_port_line|Wine 8 fails GenerateConsoleCtrlEvent (ERROR_INVALID_ACCESS): no Ctrl+Break reaches the plugin"
  "otel_traces::|Wine 8 fails GenerateConsoleCtrlEvent (ERROR_INVALID_ACCESS): the traces are flushed on the Ctrl+Break that cannot be sent"
)

status=0
passed=0 failed=0 ignored=0
count() { # sums libtest's "test result:" lines of a log
  local line
  while read -r line; do
    [[ $line =~ ([0-9]+)\ passed\;\ ([0-9]+)\ failed\;\ ([0-9]+)\ ignored ]] || continue
    passed=$((passed + BASH_REMATCH[1])) failed=$((failed + BASH_REMATCH[2])) ignored=$((ignored + BASH_REMATCH[3]))
  done < <(sed 's/\x1b\[[0-9;]*m//g' "$1" | grep '^test result:')
}

for part in "${parts[@]}"; do
  case "$part" in
    hermetic)
      echo "== windows: hermetic tier under Wine ($target)" >&2
      skip_args=()
      for entry in "${WINE_SKIPS[@]}"; do
        skip_args+=(--skip "${entry%%|*}")
        echo "   skipped under Wine: ${entry%%|*} (${entry#*|})" >&2
      done
      start=$SECONDS
      # The fixture provider's binary, which the tests start, is built by `cargo test` too.
      # Each test binary runs within a time limit, once more after a Wine hang
      # (scripts/wine-test-runner.sh).
      CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER="$PWD/scripts/wine-test-runner.sh" \
        cargo test --locked --target "$target" --workspace --no-fail-fast -- "${skip_args[@]}" 2>&1 |
        tee "$logs/hermetic" || status=1
      count "$logs/hermetic"
      echo "== windows: hermetic tier: $((SECONDS - start)) s" >&2
      ;;
    e2e)
      echo "== windows: end to end under Wine" >&2
      start=$SECONDS
      if bash scripts/windows-e2e.sh 2>&1 | tee "$logs/e2e"; then :; else status=1; fi
      # windows-e2e.sh ends with its own "e2e: N passed, N failed" line.
      if line=$(grep -E '^e2e: [0-9]+ passed, [0-9]+ failed' "$logs/e2e" | tail -n 1); then
        [[ $line =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed ]]
        passed=$((passed + BASH_REMATCH[1])) failed=$((failed + BASH_REMATCH[2]))
      else
        failed=$((failed + 1))
      fi
      echo "== windows: end to end: $((SECONDS - start)) s" >&2
      ;;
    *) echo "test-windows.sh: unknown part $part (hermetic or e2e)" >&2; exit 2 ;;
  esac
done

tfbridge_wine_stop
left=$(tfbridge_wine_ps)
if [[ -n $left ]]; then
  echo "windows: Wine processes left behind:" >&2
  echo "$left" >&2
  status=1
fi
[[ $failed -gt 0 ]] && status=1
echo "windows: $passed passed, $failed failed, $ignored ignored"
exit "$status"
