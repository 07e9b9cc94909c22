# shellcheck shell=bash
# Sourced by scripts/test.sh and scripts/cross-test.sh: a test run leaves no process behind.
# Each run puts a marker, TFBRIDGE_TEST_RUN=<marker>, in the environment of what it starts.
#
#   no_leftovers NAME MARKER [PATTERN]
#
# Lists the processes (not this shell) whose environment holds the marker, among those whose
# command line matches the pgrep PATTERN (every process when none is given); gives them two
# seconds to finish exiting; then names what is left on stderr as NAME's failure, kills it,
# and returns 1. Returns 0 when nothing is left.

tfbridge_leftovers() {
  local marker=$1 pattern=${2:-} pid pids
  if [[ -n $pattern ]]; then
    pids=$(pgrep -f "$pattern" || true)
  else
    pids=$(cd /proc && printf '%s\n' [0-9]*)
  fi
  for pid in $pids; do
    [[ $pid == "$$" ]] && continue
    if tr '\0' '\n' 2>/dev/null <"/proc/$pid/environ" | grep -qxF "TFBRIDGE_TEST_RUN=$marker"; then
      echo "$pid"
    fi
  done
}

no_leftovers() {
  local name=$1 left
  shift
  left=$(tfbridge_leftovers "$@")
  if [[ -n $left ]]; then
    sleep 2
    left=$(tfbridge_leftovers "$@")
  fi
  [[ -z $left ]] && return 0
  echo "$name: FAILED: the run left these processes behind (now killed):" >&2
  # shellcheck disable=SC2086
  ps -o pid=,ppid=,args= -p "$(echo $left | tr ' ' ',')" >&2 || true
  # shellcheck disable=SC2086
  kill -9 $left 2>/dev/null || true
  return 1
}
