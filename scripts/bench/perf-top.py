#!/usr/bin/env python3
"""The top costs of a `perf record -g` profile, by function and by crate, self and inclusive.

    perf script -i perf.data -F comm,tid,time,ip,sym,dso --no-inline | python3 scripts/bench/perf-top.py [TOP]

(scripts/bench/stack.sh with BENCH_PERF=1 records the plugin; `--no-inline` keeps perf script
fast: costs of inlined functions are then their callers'.)

A sample's "self" is its leaf frame; "inclusive" counts a function (or crate) once per sample
in which it appears anywhere on the stack. Crates are read from the symbol: the first path
segment (`h2::proto::...` is h2; `<h2::X as core::Y>::f` is h2), with our own crate split by
module (`tfbridge::lifecycle`, `tfbridge::cty`, ...); the kernel, libc and the allocator by
their object or prefix.
"""

import re
import sys
from collections import Counter

FRAME = re.compile(r"^\s*([0-9a-f]+)\s+(.*?)\s+\((.*)\)$")


def crate(sym, dso):
    if "kernel" in dso:
        return "kernel"
    if sym.startswith(("mi_", "_mi_", "mi_")):
        return "mimalloc"
    if sym.startswith(("aws_lc", "aws-lc")) or "aws_lc_0" in sym:
        return "aws-lc"
    if "libc.so" in dso or sym.startswith(("__memmove", "__memcpy", "__memcmp", "__memset", "__GI_", "epoll_wait")):
        return "libc"
    if dso.endswith(("vdso]", "vdso")):
        return "vdso"
    s = sym.lstrip("<&*")
    s = re.sub(r"^(dyn |mut |const )", "", s)
    parts = s.split("::")
    if parts[0] in ("tfbridge", "pulumi_resource_terraform_provider") and len(parts) > 2:
        return f"{parts[0]}::{parts[1]}"
    if parts[0] == "tfbridge_proto":
        return "tfbridge_proto (prost-generated)"
    if parts[0] in ("core", "alloc", "std") and len(parts) > 1:
        return f"std ({parts[0]}::{parts[1]})"
    return parts[0] if parts[0] else "?"


def main():
    top = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    samples = []
    stack = None
    for line in sys.stdin:
        if not line.strip():
            if stack is not None:
                samples.append(stack)
            stack = None
            continue
        if not line.startswith(("\t", " ")):
            stack = []
            continue
        m = FRAME.match(line)
        if m and stack is not None:
            sym, dso = m[2], m[3]
            if sym == "[unknown]" and dso == "[unknown]":
                continue
            sym = re.sub(r"\+0x[0-9a-f]+$", "", sym)
            stack.append((sym, dso))
    if stack:
        samples.append(stack)
    n = len(samples)
    self_fn, self_crate, inc_fn, inc_crate = Counter(), Counter(), Counter(), Counter()
    for frames in samples:
        if not frames:
            continue
        leaf_sym, leaf_dso = frames[0]
        self_fn[leaf_sym] += 1
        self_crate[crate(leaf_sym, leaf_dso)] += 1
        for sym in {sym for sym, _ in frames}:
            inc_fn[sym] += 1
        for c in {crate(sym, dso) for sym, dso in frames}:
            inc_crate[c] += 1

    def table(title, counter, limit):
        print(f"\n| {title} | share of samples |\n|---|---|")
        for key, count in counter.most_common(limit):
            key = key if len(key) < 140 else key[:137] + "..."
            print(f"| `{key}` | {100 * count / n:.1f}% |")

    print(f"{n} samples")
    table("crate (self)", self_crate, top)
    table("crate (inclusive)", inc_crate, top)
    table("function (self)", self_fn, top)
    table("function (inclusive)", inc_fn, top + 25)


if __name__ == "__main__":
    main()
