#!/usr/bin/env python3
"""Medians and paired ratios of scripts/bench/stack.sh's rows (results.tsv), as Markdown.

    python3 scripts/bench/stack-summary.py RESULTS.TSV N_RESOURCES

Round 0 is the warm-up and is left out. A ratio is the median of the per-round ratios
ours/Go. "checkpoint share" is, per implementation and round, 1 - wall(off)/wall(on): the
part of `up`'s wall time the engine's checkpoints cost.
"""

import csv
import statistics
import sys
from collections import defaultdict


def med(values):
    return statistics.median(values) if values else float("nan")


def main():
    path, n = sys.argv[1], int(sys.argv[2])
    rows = defaultdict(dict)  # (ckpt, figure) -> {(impl, round): value}
    impls, rounds, ckpts = set(), set(), []
    with open(path, newline="") as tsv:
        reader = csv.reader(tsv, delimiter="\t")
        next(reader)
        for impl, rnd, ckpt, wall, cli_cpu, cpu, rss, procs, *switches in reader:
            if rnd == "0":
                continue
            impls.add(impl)
            rounds.add(int(rnd))
            if ckpt not in ckpts:
                ckpts.append(ckpt)
            figures = {
                "wall s": float(wall),
                "CLI + children CPU s": float(cli_cpu),
                "plugin CPU s": float(cpu),
                "plugin CPU ms/resource": 1000 * float(cpu) / n,
                "plugin peak RSS MiB": int(rss) / 1024,
            }
            # Older results.tsv files have no switch columns.
            if len(switches) == 2:
                figures["plugin wake-ups/resource"] = int(switches[0]) / n
                figures["plugin preemptions/resource"] = int(switches[1]) / n
            for figure, value in figures.items():
                rows[(ckpt, figure)][(impl, int(rnd))] = value
    print(f"`pulumi up` of {n} resources, {len(rounds)} counted rounds; medians, ratio = median of per-round ours/Go.\n")
    others = [impl for impl in ("ours", "base") if impl in impls]
    print("| checkpoints | measure | " + " | ".join(others + ["Go"]) + " | "
          + " | ".join(f"{impl}/Go" for impl in others) + (" | ours/base |" if len(others) == 2 else " |"))
    print("|---" * (2 + 2 * len(others) + 1 + (len(others) == 2)) + "|")

    def ratio(by_run, a, b):
        ratios = [by_run[(a, r)] / by_run[(b, r)] for r in rounds
                  if (a, r) in by_run and (b, r) in by_run and by_run[(b, r)]]
        return f"{med(ratios):.2f}" if ratios else ""

    for (ckpt, figure), by_run in rows.items():
        cells = [f"{med([v for (i, _), v in by_run.items() if i == impl]):.2f}" for impl in others + ["go"]]
        cells += [ratio(by_run, impl, "go") for impl in others]
        if len(others) == 2:
            cells.append(ratio(by_run, "ours", "base"))
        print(f"| {ckpt} | {figure} | " + " | ".join(cells) + " |")
    if "on" in ckpts and "off" in ckpts:
        print("\n| implementation | wall with checkpoints | without | checkpoint share of wall |")
        print("|---|---|---|---|")
        for impl in sorted(impls):
            on = rows[("on", "wall s")]
            off = rows[("off", "wall s")]
            shares = [1 - off[(impl, r)] / on[(impl, r)] for r in rounds if (impl, r) in on and (impl, r) in off]
            ons = [on[(impl, r)] for r in rounds if (impl, r) in on]
            offs = [off[(impl, r)] for r in rounds if (impl, r) in off]
            print(f"| {impl} | {med(ons):.2f} s | {med(offs):.2f} s | {100 * med(shares):.0f}% |")


if __name__ == "__main__":
    main()
