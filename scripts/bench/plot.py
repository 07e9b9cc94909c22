#!/usr/bin/env python3
"""Draws the benchmark results as PNG charts: ours, the Go implementation and the floor side
by side. Run through scripts/bench/plot.sh, which provides matplotlib.

    bench/plot.py RPC-RESULTS.json E2E-RESULTS.json OUT-DIR

RPC-RESULTS.json is written by benches/startup.rs (scripts/bench/rpc.sh), E2E-RESULTS.json by
scripts/bench/summary.py (scripts/bench/e2e.sh). Either may be missing; its charts are skipped.
"""

import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

OURS, GO, FLOOR, FLOOR2 = "#2b7bba", "#e07b39", "#7f7f7f", "#bdbdbd"
PROVIDER_TITLES = {
    "random": "random 3.9.0",
    "synthetic": "AWS-sized synthetic provider (10.4 MB schema)",
    "parallel": "time 0.14.2, 200 × time_sleep 1 s, --parallel 64",
}


def load(path):
    if not os.path.exists(path):
        print(f"bench-plot: {path} is missing; its charts are skipped", file=sys.stderr)
        return None
    with open(path) as f:
        return json.load(f)


def bars(ax, labels, series, unit):
    """Grouped bars: series is [(name, colour, values)], values aligned with labels."""
    width = 0.8 / len(series)
    for idx, (name, colour, values) in enumerate(series):
        xs = [x + (idx - (len(series) - 1) / 2) * width for x in range(len(labels))]
        heights = [v if v is not None else 0 for v in values]
        drawn = ax.bar(xs, heights, width, label=name, color=colour)
        for rect, v in zip(drawn, values):
            if v is not None:
                text = f"{v:.2f}" if unit == "s" else f"{v:.0f}"
                ax.annotate(text, (rect.get_x() + rect.get_width() / 2, rect.get_height()),
                            ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, fontsize=8)
    ax.set_ylabel({"ms": "milliseconds", "s": "seconds", "MiB": "MiB"}[unit])
    ax.grid(axis="y", alpha=0.3)


def rpc_charts(rpc, out_dir):
    by = {(r["provider"], r["measure"]): r for r in rpc}
    providers = sorted({r["provider"] for r in rpc})

    # Start-up and schema: (a) and (b), cold and warm, with the floor as lines.
    fig, axes = plt.subplots(1, len(providers), figsize=(6 * len(providers), 5.2), squeeze=False)
    measures = ["a: Parameterize + GetSchema (cold)", "a: Parameterize + GetSchema (warm)",
                "b: start-up (cold)", "b: start-up (warm)"]
    labels = ["(a) schema\ncold", "(a) schema\nwarm", "(b) start-up\ncold", "(b) start-up\nwarm"]
    for ax, provider in zip(axes[0], providers):
        rows = [by.get((provider, m), {}) for m in measures]
        floor_launch = by.get((provider, "d: launch"), {}).get("floor")
        floor_schema = by.get((provider, "d: launch + GetProviderSchema"), {}).get("floor")
        series = [("ours", OURS, [r.get("ours") for r in rows]), ("Go", GO, [r.get("go") for r in rows]),
                  ("floor: launch + GetProviderSchema", FLOOR, [floor_schema] * len(rows)),
                  ("floor: launch alone", FLOOR2, [floor_launch] * len(rows))]
        in_ms = [(name, colour, [v * 1000 if v is not None else None for v in values])
                 for name, colour, values in series]
        bars(ax, labels, in_ms, "ms")
        ax.set_title(PROVIDER_TITLES.get(provider, provider), fontsize=10)
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2)
    fig.suptitle("RPC level, driven by the stand-in engine: median of paired runs")
    fig.tight_layout()
    fig.savefig(os.path.join(out_dir, "bench-startup.png"), dpi=110)
    plt.close(fig)

    # Resident set after start-up.
    fig, ax = plt.subplots(figsize=(7, 4.5))
    rows = [by.get((p, "plugin RSS after start-up (MiB)"), {}) for p in providers]
    tf = [by.get((p, "Terraform provider RSS (MiB)"), {}) for p in providers]
    bars(ax, [PROVIDER_TITLES.get(p, p).split(" (")[0] for p in providers],
         [("ours (plugin)", OURS, [r.get("ours") for r in rows]), ("Go (plugin)", GO, [r.get("go") for r in rows]),
          ("the Terraform provider itself", FLOOR, [r.get("ours") for r in tf])], "MiB")
    ax.set_title("Resident set 1 s after start-up (launch → Configure), median", fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out_dir, "bench-rss.png"), dpi=110)
    plt.close(fig)


def e2e_charts(e2e, out_dir):
    per_provider = {}
    for row in e2e:
        per_provider.setdefault(row["provider"], []).append(row)
    cli = [p for p in ("random", "synthetic") if p in per_provider]
    if cli:
        fig, axes = plt.subplots(3, len(cli), figsize=(6 * len(cli), 10), squeeze=False)
        for col, provider in enumerate(cli):
            rows = per_provider[provider]
            labels = [r["step"] for r in rows]
            for row_idx, (figure, unit, title) in enumerate([
                ("wall_s", "s", "whole pulumi command, wall"),
                ("plugin_cpu_s", "s", "plugin's own CPU (user+sys)"),
                ("plugin_rss_mib", "MiB", "plugin's own peak RSS"),
            ]):
                ax = axes[row_idx][col]
                series = [("ours", OURS, [r[f"{figure}_ours"] for r in rows]),
                          ("Go", GO, [r[f"{figure}_go"] for r in rows])]
                bars(ax, labels, series, unit)
                ax.set_title(f"{PROVIDER_TITLES.get(provider, provider)}\n{title}", fontsize=9)
                ax.legend(fontsize=7)
        fig.suptitle("Through the real Pulumi CLI, 200 resources: median of paired runs")
        fig.tight_layout()
        fig.savefig(os.path.join(out_dir, "bench-cli.png"), dpi=110)
        plt.close(fig)
    if "parallel" in per_provider:
        row = per_provider["parallel"][0]
        fig, ax = plt.subplots(figsize=(6, 4))
        bars(ax, ["pulumi up --parallel 64"],
             [("ours", OURS, [row["wall_s_ours"]]), ("Go", GO, [row["wall_s_go"]]),
              ("ideal: 4 waves of 1 s", FLOOR, [row["ideal_s"]])], "s")
        ax.set_title(PROVIDER_TITLES["parallel"], fontsize=10)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(out_dir, "bench-parallel.png"), dpi=110)
        plt.close(fig)


def main():
    rpc_path, e2e_path, out_dir = sys.argv[1:4]
    os.makedirs(out_dir, exist_ok=True)
    rpc = load(rpc_path)
    if rpc:
        rpc_charts(rpc, out_dir)
    e2e = load(e2e_path)
    if e2e:
        e2e_charts(e2e, out_dir)


if __name__ == "__main__":
    main()
