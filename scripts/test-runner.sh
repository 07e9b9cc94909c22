#!/bin/sh
# The runner cargo starts each test binary of scripts/test.sh with (CARGO_TARGET_<host>_RUNNER):
# it asks libtest for each test's own time (`<1.234s>` after its result), which test.sh ranks
# at the end ("slowest tests"). `--report-time` is an unstable libtest option; RUSTC_BOOTSTRAP
# unlocks it here, in the test process only: set for cargo, it would change every crate's
# fingerprint and rebuild the world.
exec env RUSTC_BOOTSTRAP=1 "$@" -Z unstable-options --report-time
