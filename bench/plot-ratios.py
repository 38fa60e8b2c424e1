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
    ("submit_par_jobs_per_s", "submission\nin parallel", True),
    ("array_tasks_per_s", "array\nsubmission", True),
    ("qfull_ms@", "full listing\nat %s", False),
    ("qone_ms@", "one job\nat %s", False),
    ("depth_submit_ms@", "submit\nat %s", False),
    ("recovery_s", "recovery\ntime", False),
    ("rss_mib@", "memory\nat %s", False),
    ("qone_busy_p99_ms@", "one job p99,\nbusy, at %s", False),
]


def main():
    tsv, out = sys.argv[1:3]
    data = {}
    for line in open(tsv):
        p = line.rstrip("\n").split("\t")
        if len(p) == 3 and p[2] != "n/a":
            data.setdefault((p[0], p[1]), []).append(float(p[2]))
    med = {k: statistics.median(v) for k, v in data.items()}
    metrics = []
    for metric, label, higher in METRICS:   # per-depth ones, once per depth
        if metric.endswith("@"):
            for d in sorted({int(k[1].split("@")[1]) for k in data if k[1].startswith(metric)}):
                metrics.append(("%s%d" % (metric, d), label % ("%dk" % (d // 1000) if d >= 1000 else d), higher))
        else:
            metrics.append((metric, label, higher))
    labels = [m[1] for m in metrics]
    fig, ax = plt.subplots(figsize=(14, 4.8))
    width = 0.38
    for j, ref in enumerate(["slurm-default", "slurm-tuned"]):
        vals = []
        for metric, _, higher in metrics:
            a, b = med.get(("hpcq", metric)), med.get((ref, metric))
            vals.append((a / b if higher else b / a) if a and b else 0)
        xs = [i + (j - 0.5) * width for i in range(len(metrics))]
        bars = ax.bar(xs, vals, width, label="vs " + ref.replace("slurm-", "Slurm "))
        for x, v in zip(xs, vals):
            if v:
                ax.text(x, v, "%.2g" % v, ha="center", va="bottom", fontsize=7)
    ax.axhline(1, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_xticks(range(len(metrics)))
    ax.set_xticklabels(labels, fontsize=8)
    ax.set_ylabel("hpcq's advantage (×, log scale; >1 = hpcq better)")
    ax.set_title("hpcq vs Slurm 22.05, same machine, same run (bench/run.sh)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
