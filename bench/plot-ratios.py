#!/usr/bin/env python3
"""bench/plot-ratios.py - bar chart of hpcq's advantage over Slurm (default
and tuned configurations) from bench/run.sh's results.tsv, log scale; 1 is
parity, above 1 hpcq is better.

    plot-ratios.py RESULTS.tsv OUT.png      (needs python3-matplotlib)
"""
import statistics
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

METRICS = [  # metric, short label, higher is better
    ("submit_jobs_per_s", "submission", True),
    ("e2e_jobs_per_s", "end-to-end", True),
    ("latency_median_ms", "start latency\nmedian", False),
    ("latency_p95_ms", "start latency\np95", False),
    ("qfull_ms", "full listing\nat depth", False),
    ("qone_ms", "one job\nat depth", False),
    ("depth_submit_ms", "submit\nat depth", False),
    ("recovery_s", "recovery\ntime", False),
    ("rss_mib", "memory\nat depth", False),
]


def main():
    tsv, out = sys.argv[1:3]
    data = {}
    for line in open(tsv):
        p = line.rstrip("\n").split("\t")
        if len(p) == 3 and p[2] != "n/a":
            data.setdefault((p[0], p[1]), []).append(float(p[2]))
    med = {k: statistics.median(v) for k, v in data.items()}
    labels = [m[1] for m in METRICS]
    fig, ax = plt.subplots(figsize=(11, 4.5))
    width = 0.38
    for j, ref in enumerate(["slurm-default", "slurm-tuned"]):
        vals = []
        for metric, _, higher in METRICS:
            a, b = med.get(("hpcq", metric)), med.get((ref, metric))
            vals.append((a / b if higher else b / a) if a and b else 0)
        xs = [i + (j - 0.5) * width for i in range(len(METRICS))]
        bars = ax.bar(xs, vals, width, label="vs " + ref.replace("slurm-", "Slurm "))
        for x, v in zip(xs, vals):
            if v:
                ax.text(x, v, "%.2g" % v, ha="center", va="bottom", fontsize=7)
    ax.axhline(1, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_xticks(range(len(METRICS)))
    ax.set_xticklabels(labels, fontsize=8)
    ax.set_ylabel("hpcq's advantage (×, log scale; >1 = hpcq better)")
    ax.set_title("hpcq vs Slurm 22.05, same machine, same run (bench/run.sh)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
