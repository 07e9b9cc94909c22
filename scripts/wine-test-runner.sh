#!/usr/bin/env bash
# Cargo's runner for the Windows tier's test binaries (scripts/test-windows.sh sets
# CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER to this file): runs one test binary under wine,
# within a time limit.
#
# Why: Wine 8's wineserver can fall into a busy loop (100% CPU in recvfrom/epoll_wait) while a
# Windows process waits on it. Every thread of that process then blocks in its reply pipe to
# the wineserver, and the test binary never ends. This was seen once in the hermetic tier, in
# schema_cache_lazy, after a provider had panicked mid-call; the same binary then passed when
# run again. A hang is Wine's, not the test's, so the binary is killed, every process of the
# prefix ends, and the binary runs once more. A second hang, or any failure, fails the tier.
#
#   TFBRIDGE_WINE_TEST_LIMIT   seconds one run of a test binary may take (default 600; the
#                              longest, the hermetic tier's, takes about 150)
set -uo pipefail
limit=${TFBRIDGE_WINE_TEST_LIMIT:-600}
for attempt in 1 2; do
  timeout --kill-after=10 "$limit" wine "$@"
  status=$?
  # timeout answers 124 when it stopped the program, 137 when it had to kill it.
  [[ $status -eq 124 || $status -eq 137 ]] || exit "$status"
  echo "windows: ${1##*/} ran past ${limit} s under Wine (run $attempt of 2); ending the prefix's processes" >&2
  wineserver -k 2>/dev/null || true
  wineserver -w 2>/dev/null || true
done
echo "windows: ${1##*/} hung under Wine twice: failed" >&2
exit "$status"
