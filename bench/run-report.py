#!/usr/bin/env python3
"""bench/run-report.py - the table of bench/run.sh.

    run-report.py RESULTS.tsv META.txt OUT.md

RESULTS.tsv has one line per measurement: system, metric, value.  Prints
the table (median, min-max of the repeated runs, and hpcq's advantage as a
ratio to each Slurm configuration: above 1 means hpcq is better) and writes
it as Markdown to OUT.md.  Standard library only.
"""
import statistics
import sys

SYSTEMS = ["hpcq", "slurm-default", "slurm-tuned"]
# metric, label, higher is better?, format
# metric, label, higher is better?, format.  A metric ending in "@" is
# measured at each queue depth ("qfull_ms@100000"): one row per depth.
METRICS = [
    ("spawn_floor_per_s", "same shell loop running /bin/true (runs/s): the ceiling", None, "%.0f"),
    ("submit_jobs_per_s", "submission, one job per command (jobs/s)", True, "%.0f"),
    ("submit_par_jobs_per_s", "submission, one job per command, PAR at once (jobs/s)", True, "%.0f"),
    ("array_tasks_per_s", "submission, job array (tasks/s)", True, "%.0f"),
    ("e2e_jobs_per_s", "end-to-end, /bin/true jobs (jobs/s)", True, "%.1f"),
    ("latency_median_ms", "submit-to-start, median (ms)", False, "%.1f"),
    ("latency_p95_ms", "submit-to-start, p95 (ms)", False, "%.1f"),
    ("qfull_ms@", "full listing (ms)", False, "%.1f"),
    ("qone_ms@", "one job (ms)", False, "%.1f"),
    ("depth_submit_ms@", "submit (ms per job)", False, "%.1f"),
    ("rss_mib@", "controller resident memory (MiB)", False, "%.1f"),
    ("depth_jobs@", "jobs queued", None, "%.0f"),
    ("recovery_s", "kill -9 to answering again (s)", False, "%.2f"),
    ("acked", "acknowledged before kill -9", None, "%.0f"),
    ("present", "present after restart", None, "%.0f"),
    ("lost", "acknowledged but lost", None, "%.0f"),
    ("submit_over_floor", "qsub/sbatch per-call cost ÷ the spawn floor's", False, "%.2f"),
    ("bigarray_s", "one big held array acknowledged (s)", False, "%.3f"),
    ("qone_busy_median_ms@", "one job while others read every job in full (BUSYN of them), median (ms)", False, "%.1f"),
    ("qone_busy_p99_ms@", "one job while others read every job in full (BUSYN of them), p99 (ms)", False, "%.1f"),
    ("busy_full_reads@", "full reads completed meanwhile", None, "%.0f"),
    ("busy_nodes_down@", "nodes marked down meanwhile", None, "%.0f"),
    # bench/swarm.sh, hpcq only: "@" is the number of connected nodes.
    ("swarm_connect_s@", "swarm: all nodes up (s)", None, "%.1f"),
    ("swarm_idle_cpu_pct@", "swarm: scheduler CPU idle, heartbeats only (% of a core)", None, "%.2f"),
    ("swarm_queued_cpu_pct@", "swarm: scheduler CPU with the jobs queued (% of a core)", None, "%.2f"),
    ("swarm_rss_mib_idle@", "swarm: scheduler memory, no jobs (MiB)", None, "%.1f"),
    ("swarm_rss_mib_queued@", "swarm: scheduler memory, jobs queued (MiB)", None, "%.1f"),
    ("swarm_latency_median_ms@", "swarm: start latency, median (ms)", None, "%.1f"),
    ("swarm_latency_max_ms@", "swarm: start latency, max (ms)", None, "%.1f"),
    ("swarm_e2e_finished@", "swarm: one-second jobs finished", None, "%.0f"),
    ("swarm_e2e_jobs_per_s@", "swarm: end to end, overall (jobs/s)", None, "%.0f"),
    ("swarm_e2e_sustained_per_s@", "swarm: end to end, median per-second rate (jobs/s)", None, "%.0f"),
    ("swarm_e2e_cpu_pct@", "swarm: scheduler CPU during end to end (% of a core)", None, "%.1f"),
    ("swarm_swarm_hb_missed@", "swarm: heartbeats missed", None, "%.0f"),
    ("swarm_nodes_marked_down@", "swarm: nodes marked down", None, "%.0f"),
]


def expand(metrics, data):
    """Each per-depth metric once per depth found in data, shallow first."""
    out = []
    for metric, label, higher, fmt in metrics:
        if not metric.endswith("@"):
            out.append((metric, label, higher, fmt))
            continue
        depths = sorted({int(k[1].split("@")[1]) for k in data if k[1].startswith(metric)})
        for d in depths:
            unit = "nodes" if metric.startswith("swarm_") else "jobs"
            out.append(("%s%d" % (metric, d), "%s at %d %s" % (label, d, unit), higher, fmt))
    return out


def main():
    tsv, meta, out = sys.argv[1:4]
    data = {}
    for line in open(tsv):
        parts = line.rstrip("\n").split("\t")
        if len(parts) != 3:
            continue
        data.setdefault((parts[0], parts[1]), []).append(parts[2])
    systems = [s for s in SYSTEMS if any(k[0] == s for k in data)]
    metrics = expand(METRICS, data)

    def summary(sysname, metric):
        vals = data.get((sysname, metric))
        if not vals:
            return None, "-"
        if vals[0] == "n/a":
            return None, "n/a"
        nums = sorted(float(v) for v in vals)
        med = statistics.median(nums)
        fmt = dict((m[0], m[3]) for m in metrics)[metric]
        text = fmt % med
        if len(nums) > 1:
            text += " (" + fmt % nums[0] + "–" + fmt % nums[-1] + ")"
        return med, text

    head = ["measure"] + systems + ["hpcq ÷ " + s.replace("slurm-", "Slurm ") for s in systems if s != "hpcq"]
    rows = []
    for metric, label, higher, _ in metrics:
        cells, meds = [], {}
        for s in systems:
            meds[s], text = summary(s, metric)
            cells.append(text)
        if all(c == "-" for c in cells):
            continue
        ratios = []
        for s in systems:
            if s == "hpcq":
                continue
            a, b = meds.get("hpcq"), meds.get(s)
            if higher is None or a is None or b is None or a == 0 or b == 0:
                ratios.append("")
            else:
                ratios.append("%.2f×" % (a / b if higher else b / a))
        rows.append([label] + cells + ratios)

    meta_lines = [l[2:].rstrip() for l in open(meta) if l.startswith("# ")]
    md = []
    for l in meta_lines:
        md.append("- " + l)
    md.append("")
    md.append("| " + " | ".join(head) + " |")
    md.append("| --- |" + " ---: |" * (len(head) - 1))
    for r in rows:
        md.append("| " + " | ".join(r) + " |")
    md.append("")
    md.append("Median of the repeated runs (min–max in brackets); the ratios are "
              "hpcq's advantage (above 1: hpcq better), from the medians of the same run.")
    open(out, "w").write("\n".join(md) + "\n")

    widths = [max(len(r[i]) for r in [head] + rows) for i in range(len(head))]
    for l in meta_lines:
        print(l)
    for r in [head] + rows:
        print("  ".join(c.ljust(widths[i]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(r)))


if __name__ == "__main__":
    main()
