#!/usr/bin/env python3
"""grafana-units.py DASHBOARD.json: every axis of every time-series panel
has one unit.

Each query's quantity is read from its PromQL (a quantile of a _seconds
histogram is a time, rate() of a counter is per second, increase() a
count, DCGM's power watts, ...); each query's axis and unit from the
panel's defaults and its overrides (by query refId or by name), as
Grafana applies them.  A panel fails when two queries of different
quantities share an axis, or when an axis's unit is not the quantity of
its queries (seconds drawn on a "short" axis).  Prints one line per
fault, exits 1 if there was any.
"""
import json
import re
import sys

# What a PromQL expression measures, first match wins.
RULES = [
    (r"DCGM_FI_DEV_POWER_USAGE", "power"),
    (r"DCGM_FI_DEV_GPU_TEMP", "temperature"),
    (r"DCGM_FI_DEV_FB_USED", "bytes"),
    (r"DCGM_FI_DEV_GPU_UTIL", "percent"),
    (r"DCGM_FI_DEV_(XID|ECC)", "count"),
    (r"cost", "money"),
    (r"histogram_quantile\(.*_seconds_bucket", "time"),
    (r"histogram_quantile\(.*_bytes_bucket", "bytes"),
    (r"_seconds_sum.*/.*_seconds_count", "time"),
    (r"_bytes_sum.*/.*_bytes_count", "bytes"),
    (r"\bincrease\(", "count"),
    (r"\brate\(", "per-second"),
    (r"\s/\s", "ratio"),
    (r"_seconds\b", "time"),
    (r"_bytes\b", "bytes"),
    (r".", "count"),
]

# Grafana unit ids and what they measure ("" or absent: a plain number).
UNITS = {
    "": "count", "none": "count", "short": "count",
    "s": "time", "ms": "time", "dtdurations": "time",
    "ops": "per-second", "reqps": "per-second", "cps": "per-second",
    "percentunit": "ratio", "percent": "percent",
    "bytes": "bytes", "decbytes": "bytes", "mbytes": "bytes", "decmbytes": "bytes",
    "watt": "power", "celsius": "temperature",
}


def quantity(expr):
    for pattern, q in RULES:
        if re.search(pattern, expr):
            return q
    return "count"


def unit_quantity(unit, label):
    # hpcq's prices are in no set currency (price_per_hour): a plain number
    # is a cost when its axis says so.
    if unit.startswith("currency") or (UNITS.get(unit) == "count" and "cost" in label):
        return "money"
    return UNITS.get(unit, "unknown unit " + unit)


def applies(matcher, target):
    mid, opt = matcher.get("id"), matcher.get("options")
    if mid == "byFrameRefID":
        return opt == target.get("refId")
    if mid == "byName":
        return opt == target.get("legendFormat")
    if mid == "byRegexp":
        return re.search(opt, target.get("legendFormat", "")) is not None
    return False


def axis_and_unit(panel, target):
    defaults = panel.get("fieldConfig", {}).get("defaults", {})
    unit = defaults.get("unit", "")
    place = defaults.get("custom", {}).get("axisPlacement", "auto")
    label = defaults.get("custom", {}).get("axisLabel", "")
    for o in panel.get("fieldConfig", {}).get("overrides", []):
        if not applies(o.get("matcher", {}), target):
            continue
        for p in o.get("properties", []):
            if p.get("id") == "unit":
                unit = p.get("value", "")
            elif p.get("id") == "custom.axisPlacement":
                place = p.get("value")
            elif p.get("id") == "custom.axisLabel":
                label = p.get("value", "")
    return ("right" if place == "right" else "left"), unit, label


def check(dash):
    faults = []
    for panel in dash.get("panels", []):
        if panel.get("type") != "timeseries":
            continue
        axes = {}
        for t in panel.get("targets", []):
            axis, unit, label = axis_and_unit(panel, t)
            axes.setdefault(axis, []).append((t.get("refId"), quantity(t["expr"]),
                                              (unit, label)))
        for axis, ts in sorted(axes.items()):
            title = "panel %s %r, %s axis" % (panel.get("id"), panel.get("title"), axis)
            kinds = sorted({q for _, q, _ in ts})
            units = sorted({u for _, _, u in ts})
            if len(kinds) > 1:
                faults.append("%s mixes %s (%s)" % (title, " and ".join(kinds),
                              ", ".join("%s: %s" % (r, q) for r, q, _ in ts)))
            elif len({u for u, _ in units}) > 1:
                faults.append("%s has units %s" % (title, ", ".join(u for u, _ in units)))
            elif unit_quantity(*units[0]) != kinds[0]:
                faults.append("%s draws %s in unit %r" % (title, kinds[0], units[0][0]))
    return faults


def main():
    with open(sys.argv[1]) as f:
        dash = json.load(f)
    faults = check(dash)
    for line in faults:
        print(line)
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main())
