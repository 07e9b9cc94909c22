#!/usr/bin/env bash
# Runs every test, in four tiers, and ends with one summary line
# ("tests: N passed, N failed, N ignored"):
#
# 1. the hermetic tier, `cargo test --workspace`: no Go, no network, no peers;
# 2. the peer tier: every test target declared in a Cargo.toml with
#    `required-features = ["peer-tests"]` (tests/peer/, one binary: the e2e_* tests and the
#    others that need real Terraform providers, the Pulumi CLI with its YAML, Python, Node.js
#    and Go language hosts and their SDKs, the Go implementation or the Terraform CLI; and
#    Terraform itself against the fixture provider), after scripts/test-tools.sh has built
#    those peers (cached by version);
# 3. the newest Pulumi CLI: the peer-tier tests NEWEST_CLI_FILTERS selects once more, with
#    TFBRIDGE_TEST_PULUMI_VERSION set to PULUMI_NEWEST_VER from scripts/peers.env (the same
#    language hosts; tests/common/pulumi.rs picks the CLI), in the same queue as tier 2
#    (scripts/peer-schedule.py);
# 4. Windows under Wine (scripts/test-windows.sh; below).
#
# Then it checks that the run left no process behind: any terraform-provider-*,
# pulumi-resource-terraform-provider, pulumi-language-*, mariadbd (tests/common/mariadb.rs),
# named (tests/common/bind.rs) or pdns_server (tests/common/pdns.rs) process carrying this run's TFBRIDGE_TEST_RUN marker fails the run, is listed, and is killed.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ -f scripts/test-tools.sh ]]; then
  bash scripts/test-tools.sh providers pulumi languages anchor terraform converter services
fi

# Each test's own time, from libtest through scripts/test-runner.sh, for the "slowest tests"
# list at the end. Only the host's binaries: the Windows tier runs its own under Wine.
host_triple=$(rustc -vV | sed -n 's/^host: //p')
export "CARGO_TARGET_$(echo "$host_triple" | tr 'a-z-' 'A-Z_')_RUNNER=$PWD/scripts/test-runner.sh"

# Every process this run starts inherits the marker (tests/common/pulumi.rs passes it to the
# Pulumi CLI, whose environment is otherwise cleared).
export TFBRIDGE_TEST_RUN="test.sh-$$-$(date +%s%N)"
logs=$(mktemp -d)
# Every test's scratch directories (tests/common's scratch_dir, the workspaces, the providers'
# plugin sockets) go under one directory of this run's, removed at the end: a test that
# fails, or forgets, leaves nothing in /tmp (the runs had left half a gigabyte and ten
# thousand socket directories there). Short, for the Unix sockets' 108-byte path limit.
# Open to others, as /tmp is: the services' daemons run as their own users when we are root
# (tests/common/service.rs) and must reach their directories below it.
scratch=$(mktemp -d /tmp/tfbridge-run.XXXXXX)
chmod 755 "$scratch"
export TMPDIR=$scratch
trap 'rm -rf "$logs" "$scratch"' EXIT
status=0

echo "== hermetic tier: cargo test --workspace" >&2
cargo test --workspace --locked --no-fail-fast 2>&1 | tee "$logs/hermetic" || status=$?

# The peer tier's targets, from the manifests (so a new one needs no edit here).
mapfile -t peer_targets < <(cargo metadata --no-deps --format-version 1 --locked | python3 -c '
import json, sys
for package in json.load(sys.stdin)["packages"]:
    for target in package["targets"]:
        if "test" in target["kind"] and "peer-tests" in (target.get("required-features") or []):
            print(target["name"])
')
echo "== peer tier: ${#peer_targets[@]} test targets with --features peer-tests" >&2
# The peer binary's tests and the newest CLI's re-run of some of them share one queue
# (scripts/peer-schedule.py): each test in a process of its own, the longest first, three at a
# time on two cores (a third keeps both busy while a test waits on its processes;
# TFBRIDGE_PEER_TEST_THREADS), so the newest CLI's pass fills the tier's gaps instead of
# running alone after it, and the log gives each test's CPU time. The tier is CPU-bound:
# what shortens it is less work (scripts/README.md, "How long the test loop takes"). The times of this run order
# the next one ($target_dir/peer-test-times.tsv); tests/peer/times.tsv orders a machine with
# no history.
#
# The newest CLI: the peer-tier tests whose names hold one of these filters (libtest's
# substring match; several filters select their union), with TFBRIDGE_TEST_PULUMI_VERSION set
# to PULUMI_NEWEST_VER from scripts/peers.env (the same language hosts; tests/common/pulumi.rs
# picks the CLI). A test's name starts with its module, and `::` keeps a later e2e_mysql_*
# module out. One SDK language (TypeScript), to keep the added time down.
NEWEST_CLI_FILTERS=(
  'e2e_yaml::'
  'e2e_mysql::'
  'e2e_lang::typescript::'
)
newest=$(bash -c '. scripts/peers.env && echo "$PULUMI_NEWEST_VER"')
peer_threads=${TFBRIDGE_PEER_TEST_THREADS:-3}
target_dir=$(cargo metadata --no-deps --format-version 1 --locked | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
: >"$logs/peer"
: >"$logs/newest"
peer_start=$SECONDS
echo "== peer tier: ${peer_targets[*]} with --features peer-tests, and the newest CLI ($newest) on tests matching ${NEWEST_CLI_FILTERS[*]}" >&2
peer_binaries=$(cargo test --workspace --locked --features peer-tests "${peer_targets[@]/#/--test=}" --no-run \
  --message-format=json-render-diagnostics | python3 -c '
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message.get("reason") == "compiler-artifact" and message.get("executable") and message["target"]["kind"] == ["test"]:
        print(message["executable"], message["manifest_path"].rsplit("/", 1)[0])
') || status=$?
newest_filters=$(IFS='|'; echo "${NEWEST_CLI_FILTERS[*]}")
while read -r binary package_dir; do
  [[ -n $binary ]] || continue
  python3 scripts/peer-schedule.py --binary "$binary" --cwd "$package_dir" --slots "$peer_threads" \
    --times "$target_dir/peer-test-times.tsv" --seed tests/peer/times.tsv \
    --tier "peer=$logs/peer" \
    --tier "newest=$logs/newest,TFBRIDGE_TEST_PULUMI_VERSION=$newest|$newest_filters" || status=$?
done <<<"$peer_binaries"
echo "== peer tier and newest CLI: $((SECONDS - peer_start)) s on $peer_threads slots" >&2

# 4. Windows, under Wine (scripts/test-windows.sh): the hermetic tier cross-built for
#    x86_64-pc-windows-gnu and the end-to-end run with the Windows CLI and random provider.
#    TFBRIDGE_WINDOWS_TIER=0 leaves it out (a machine without Wine).
: >"$logs/windows"
if [[ ${TFBRIDGE_WINDOWS_TIER:-1} != 0 ]]; then
  windows_start=$SECONDS
  bash scripts/test-windows.sh 2>&1 | tee "$logs/windows" || status=1
  echo "== windows: $((SECONDS - windows_start)) s" >&2
fi

# No process left behind (scripts/leftovers.sh). The pattern is anchored at a path component,
# so that no shell whose command line merely mentions these names (this one included) matches.
# shellcheck source=leftovers.sh
. scripts/leftovers.sh
no_leftovers test.sh "$TFBRIDGE_TEST_RUN" \
  '(^|/)(terraform-provider-|pulumi-resource-terraform-provider|pulumi-language-|mariadbd |named |pdns_server )' ||
  status=1

# The slowest tests of the host's tiers, by libtest's own time: where the run's time goes.
python3 - "$logs/hermetic" "$logs/peer" "$logs/newest" <<'PY' || true
import re, sys
timed = []
for path, tier in zip(sys.argv[1:], ["hermetic", "peer", "newest CLI"]):
    for line in open(path, errors="replace"):
        m = re.match(r"^test (\S+) \.\.\. (ok|FAILED) <([0-9.]+)s>", line)
        if m:
            timed.append((float(m.group(3)), tier, m.group(1)))
timed.sort(reverse=True)
print(f"== slowest 20 of {len(timed)} timed tests (s, tier, test)", file=sys.stderr)
for seconds, tier, name in timed[:20]:
    print(f"{seconds:8.1f}  {tier:10}  {name}", file=sys.stderr)
PY

# cargo prints one "test result:" line per test binary; add them up.
# The Windows tier's own closing line ("windows: N passed, N failed, N ignored") counts its
# hermetic tests and its end-to-end checks.
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i) ~ /^passed;?$/) p += $(i-1); if ($(i) ~ /^failed;?$/) f += $(i-1); if ($(i) ~ /^ignored;?$/) g += $(i-1) } }
     FILENAME ~ /windows$/ && /^windows: [0-9]+ passed, [0-9]+ failed, [0-9]+ ignored$/ { p += $2; f += $4; g += $6 }
     END { printf "tests: %d passed, %d failed, %d ignored\n", p, f, g }' "$logs/hermetic" "$logs/peer" "$logs/newest" "$logs/windows"
exit "$status"
