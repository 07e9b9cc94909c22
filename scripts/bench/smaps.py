#!/usr/bin/env python3
"""Where a process's resident set is: one /proc/PID/smaps (a file, or a live pid) grouped into
parts, as a Markdown table of resident KiB (Rss) and of proportional KiB (Pss).

    python3 scripts/bench/smaps.py SMAPS_FILE_OR_PID [EXECUTABLE_PATH_SUFFIX]

The executable is the file with the largest r-x mapping that is not a shared library (`.so`),
unless named.

Parts, by what each mapping is:
  - the executable's own pages, split by permission: code (r-x), read-only data (r--; the
    relocated read-only data, .data.rel.ro and the GOT, is in the r-- mapping after
    relocation), and writable data (rw-, .data and .bss);
  - shared libraries (libc, libm, ld.so, ...), the vdso and vvar;
  - [heap]: the brk heap (glibc malloc's main arena: what C code and the system allocator
    take; our Rust code allocates through mimalloc instead);
  - [stack]: the main thread's stack;
  - thread stacks: anonymous rw mappings directly after a no-access guard page;
  - glibc arenas: anonymous rw mappings directly before a no-access reservation, together
    64 MiB, as glibc's per-thread arenas are;
  - other anonymous memory: mimalloc's segments and arenas (it maps large regions and lets
    the kernel commit pages as they are touched), and anything else mmapped.
"""

import re
import sys
from collections import defaultdict

HEADER = re.compile(r"^([0-9a-f]+)-([0-9a-f]+) (\S{4}) \S+ \S+ \d+\s*(.*)$")


def parse(text):
    maps = []
    for line in text.splitlines():
        m = HEADER.match(line)
        if m:
            maps.append({"start": int(m[1], 16), "end": int(m[2], 16), "perms": m[3], "path": m[4].strip(),
                         "Rss": 0, "Pss": 0, "Anonymous": 0, "Private_Dirty": 0})
        elif maps and ":" in line:
            key, _, rest = line.partition(":")
            if key in ("Rss", "Pss", "Anonymous", "Private_Dirty"):
                maps[-1][key] = int(rest.split()[0])
    return maps


def classify(maps, exe):
    parts = []
    for i, m in enumerate(maps):
        path, perms = m["path"], m["perms"]
        if path and exe and path.endswith(exe):
            kind = {"r-x": "executable: code (r-x)", "r--": "executable: read-only data (r--)",
                    "rw-": "executable: writable data (rw-)"}.get(perms[:3], "executable: other")
        elif path == "[heap]":
            kind = "[heap] (brk: glibc malloc's main arena)"
        elif path == "[stack]":
            kind = "[stack] (main thread)"
        elif path in ("[vdso]", "[vvar]", "[vsyscall]", "[vvar_vclock]"):
            kind = "vdso, vvar"
        elif path.startswith("/"):
            kind = "shared libraries and other files"
        elif perms.startswith("---"):
            kind = "no-access reservations"
        else:
            prev = maps[i - 1] if i else None
            nxt = maps[i + 1] if i + 1 < len(maps) else None
            size = m["end"] - m["start"]
            if prev and prev["perms"].startswith("---") and prev["end"] == m["start"] and not prev["path"] \
                    and prev["end"] - prev["start"] <= 64 << 10 and size <= 16 << 20:
                kind = "thread stacks"
            elif nxt and nxt["perms"].startswith("---") and nxt["start"] == m["end"] and not nxt["path"] \
                    and (nxt["end"] - m["start"]) == 64 << 20:
                kind = "glibc arenas (per-thread malloc heaps)"
            else:
                kind = "other anonymous (mimalloc segments/arenas, other mmaps)"
        parts.append((kind, m))
    return parts


def main():
    source = sys.argv[1]
    if source.isdigit():
        text = open(f"/proc/{source}/smaps").read()
    else:
        text = open(source).read()
    maps = parse(text)
    if len(sys.argv) > 2:
        exe = sys.argv[2]
    else:
        code = [m for m in maps if m["perms"].startswith("r-x") and m["path"].startswith("/") and ".so" not in m["path"]]
        exe = max(code, key=lambda m: m["end"] - m["start"])["path"] if code else None
    totals = defaultdict(lambda: [0, 0, 0, 0])
    for kind, m in classify(maps, exe):
        t = totals[kind]
        t[0] += m["Rss"]
        t[1] += m["Pss"]
        t[2] += m["Anonymous"]
        t[3] += 1
    rss = sum(t[0] for t in totals.values())
    print("| part | RSS KiB | share | PSS KiB | anonymous KiB | mappings |")
    print("|---|---|---|---|---|---|")
    for kind, (r, p, a, n) in sorted(totals.items(), key=lambda kv: -kv[1][0]):
        if r == 0 and n == 0:
            continue
        print(f"| {kind} | {r} | {100 * r / max(rss, 1):.0f}% | {p} | {a} | {n} |")
    print(f"| **total** | **{rss}** ({rss / 1024:.1f} MiB) | | {sum(t[1] for t in totals.values())} "
          f"| {sum(t[2] for t in totals.values())} | {sum(t[3] for t in totals.values())} |")


if __name__ == "__main__":
    main()
