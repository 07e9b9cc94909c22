#!/usr/bin/env python3
"""Medians and ratios of scripts/bench/e2e.sh's raw rows (results.tsv), as a Markdown table on
stdout and as results.json beside the TSV for scripts/bench/plot.py.

    python3 scripts/bench/summary.py RESULTS.TSV N_RESOURCES

Round 0 is the warm-up and is left out. A ratio is the median of the per-round ratios
ours/Go (the two ran back to back in each round), so a slow spell of the machine that hit
both cancels out. Plugin CPU and peak RSS are the plugin processes' own (scripts/bench/usage.py),
CPU summed over the plugin processes the CLI started for the command, RSS the largest.
"""

import csv
import json
import math
import os
import statistics
import sys
from collections import defaultdict


def main():
    path, n_resources = sys.argv[1], int(sys.argv[2])
    rows = defaultdict(dict)  # (provider, step) -> {(impl, round): figures}
    with open(path, newline="") as tsv:
        reader = csv.reader(tsv, delimiter="\t")
        next(reader)
        for provider, impl, rnd, step, wall, cpu, rss, n_processes in reader:
            if rnd == "0" or step.endswith("-untimed"):
                continue
            rows[(provider, step)][(impl, int(rnd))] = {
                "wall_s": float(wall),
                "plugin_cpu_s": float(cpu),
                "plugin_rss_mib": int(rss) / 1024,
                "plugin_processes": int(n_processes),
            }

    figures = ["wall_s", "plugin_cpu_s", "plugin_rss_mib", "plugin_processes"]
    results = []
    print(f"Per command, {n_resources} resources; medians over rounds, ratio = median of per-round ours/Go.\n")
    print("| provider | command | wall ours | wall Go | ours/Go | plugin CPU ours | plugin CPU Go | ours/Go "
          "| plugin peak RSS ours | plugin peak RSS Go | ours/Go | plugin processes ours / Go |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for (provider, step), by_run in rows.items():
        rounds = sorted({rnd for _, rnd in by_run})
        entry = {"provider": provider, "step": step, "rounds": len(rounds)}
        if provider == "parallel":
            # 64 at a time, one second each: the sleeping alone takes this long.
            entry["ideal_s"] = math.ceil(n_resources / 64) * 1.0
        for figure in figures:
            for impl in ("ours", "go"):
                values = [by_run[(impl, rnd)][figure] for rnd in rounds if (impl, rnd) in by_run]
                entry[f"{figure}_{impl}"] = statistics.median(values) if values else None
                entry[f"{figure}_{impl}_samples"] = values
            ratios = [by_run[("ours", rnd)][figure] / by_run[("go", rnd)][figure]
                      for rnd in rounds
                      if ("ours", rnd) in by_run and ("go", rnd) in by_run and by_run[("go", rnd)][figure] > 0]
            entry[f"{figure}_ratio"] = statistics.median(ratios) if ratios else None
        results.append(entry)

        def cell(figure, fmt):
            return [fmt(entry[f"{figure}_ours"]), fmt(entry[f"{figure}_go"]), ratio(entry[f"{figure}_ratio"])]

        seconds = lambda v: "" if v is None else f"{v:.2f} s"
        mib = lambda v: "" if v is None else f"{v:.0f} MiB"
        label = step + (f" (ideal {entry['ideal_s']:.0f} s)" if "ideal_s" in entry else "")
        cells = [provider, label] + cell("wall_s", seconds) + cell("plugin_cpu_s", seconds) \
            + cell("plugin_rss_mib", mib) \
            + [f"{entry['plugin_processes_ours']:g} / {entry['plugin_processes_go']:g}"]
        print("| " + " | ".join(cells) + " |")

    out = os.path.join(os.path.dirname(path), "results.json")
    with open(out, "w") as f:
        json.dump(results, f, indent=2)


def ratio(value):
    return "" if value is None else f"{value:.2f}×"


if __name__ == "__main__":
    main()
