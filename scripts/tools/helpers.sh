# Sourced by scripts/test-tools.sh, never run alone.
# Its helpers: logging, running a step inside the current tool's log, wrapper
# modules, version checks, and installing one leaf.
# shellcheck shell=bash
CUR_TOOL= CUR_VER= CUR_LOG=

log() { echo "$*" >&2; }

# run CMD...: run inside the current tool's log; on failure say which tool and
# which command failed, show the tail of the log, and return 1.
run() {
  echo "+ $*" >>"$CUR_LOG"
  local rc=0
  "$@" >>"$CUR_LOG" 2>&1 || rc=$?
  ((rc == 0)) && return 0
  {
    echo "test-tools: FAILED $CUR_TOOL $CUR_VER (exit $rc): $*"
    echo "  (in $PWD; full log: $CUR_LOG)"
    tail -n 15 "$CUR_LOG" | sed 's/^/  | /'
    if grep -q 'This module version is not available' "$CUR_LOG"; then
      echo "  hint: the Go module proxy refuses a module version this tool needs (403 above)."
    fi
  } >&2
  return 1
}

# wrapper NAME REPLACE...: fresh wrapper module $ROOT/src/NAME, cd into it (NAME gets
# WRAPPER_SUFFIX, set by for_windows, so a cross build keeps its own wrapper).
wrapper() {
  local dir=$ROOT/src/$1${WRAPPER_SUFFIX:-}; shift
  rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || return 1
  run go mod init "e2e.invalid/wrapper/$(basename "$dir")" || return 1
  local r
  for r in "$@"; do run go mod edit -replace="$r" || return 1; done
}

# check_version MOD WANT: the wrapper really resolved MOD at WANT.
check_version() {
  local got
  got=$(go list -m -f '{{.Version}}' "$1" 2>>"$CUR_LOG") || {
    echo "test-tools: FAILED $CUR_TOOL $CUR_VER: go list -m $1 (log: $CUR_LOG)" >&2; return 1; }
  if [[ $got != "$2" ]]; then
    echo "test-tools: $CUR_TOOL: $1 resolved to $got, wanted $2" >&2
    return 1
  fi
}

# install_leaf TOOL VERSION LEAF BUILDER [KIND [STAMP]]: build into a temp dir
# beside LEAF via "BUILDER <tmpdir>", then rename it to LEAF. KIND dir
# (default): the temp dir becomes LEAF. file: the file basename(LEAF) inside it
# becomes LEAF. files: every file inside it moves into dirname(LEAF),
# basename(LEAF) last, so LEAF existing means the whole set is there. Skips
# when LEAF exists, unless (kind dir) STAMP is given and differs from
# LEAF/.stamp: then the new build replaces LEAF (used where the leaf's name,
# a version, does not say everything it holds, e.g. the pinned extras of an SDK).
install_leaf() {
  local tool=$1 ver=$2 leaf=$3 builder=$4 kind=${5:-dir} stamp=${6:-}
  if [[ -e $leaf ]] && { [[ -z $stamp ]] || [[ $(cat "$leaf/.stamp" 2>/dev/null) == "$stamp" ]]; }; then
    log "cached $tool $ver"
    return 0
  fi
  CUR_TOOL=$tool CUR_VER=$ver CUR_LOG=$ROOT/logs/$tool-$ver.log
  : >"$CUR_LOG"
  mkdir -p "$(dirname "$leaf")"
  local tmp start=$SECONDS ok=
  tmp=$(mktemp -d "$(dirname "$leaf")/.tmp-$(basename "$leaf").XXXXXX")
  log "building $tool $ver (log: $CUR_LOG)"
  if ( "$builder" "$tmp" ); then
    if [[ $kind == file ]]; then
      [[ -f $tmp/$(basename "$leaf") ]] && chmod 0755 "$tmp/$(basename "$leaf")" &&
        mv -f "$tmp/$(basename "$leaf")" "$leaf" && ok=1
    elif [[ $kind == files ]]; then
      local f
      if [[ -f $tmp/$(basename "$leaf") ]]; then
        ok=1
        for f in "$tmp"/*; do
          [[ $f == "$tmp/$(basename "$leaf")" ]] && continue
          chmod 0755 "$f" && mv -f "$f" "$(dirname "$leaf")/" || ok=
        done
        [[ -n $ok ]] && chmod 0755 "$tmp/$(basename "$leaf")" && mv -f "$tmp/$(basename "$leaf")" "$leaf" || ok=
      fi
    elif [[ -n $stamp ]]; then
      # Replace an older build: the old leaf is moved aside first, then deleted.
      printf '%s\n' "$stamp" >"$tmp/.stamp" && chmod 0755 "$tmp" &&
        { [[ ! -e $leaf ]] || mv -T "$leaf" "$tmp.old"; } && mv -T "$tmp" "$leaf" && ok=1
      rm -rf "$tmp.old"
    else
      chmod 0755 "$tmp" && { mv -T "$tmp" "$leaf" 2>/dev/null || [[ -e $leaf ]]; } && ok=1
    fi
    [[ -z $ok ]] && echo "test-tools: FAILED $tool $ver: could not move the build output into $leaf" >&2
  fi
  rm -rf "$tmp"
  if [[ -n $ok ]]; then
    log "built $tool $ver in $((SECONDS - start))s"
  else
    failures+=("$tool $ver (log: $CUR_LOG)")
  fi
  return 0
}

