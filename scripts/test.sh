#!/usr/bin/env bash
# Runs every test: builds the real test peers first (Terraform providers, the Pulumi CLI
# with its YAML, Python, Node.js and Go language hosts and their SDKs, and the Go
# implementation for the comparison tests; all cached by version, see
# scripts/test-tools.sh), then the whole workspace's tests, and ends with one summary line.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ -f scripts/test-tools.sh ]]; then
  # The end-to-end tests (tests/e2e_*.rs) also need the Pulumi CLI, its language hosts and
  # SDKs, and the Go implementation.
  bash scripts/test-tools.sh providers pulumi languages anchor
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
cargo test --workspace --locked --no-fail-fast 2>&1 | tee "$log" || status=$?

# cargo prints one "test result:" line per test binary; add them up so the run ends with a
# single line that says how many tests ran.
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i) ~ /^passed;?$/) p += $(i-1); if ($(i) ~ /^failed;?$/) f += $(i-1); if ($(i) ~ /^ignored;?$/) g += $(i-1) } }
     END { printf "tests: %d passed, %d failed, %d ignored\n", p, f, g }' "$log"
exit "$status"
