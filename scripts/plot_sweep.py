#!/usr/bin/python3
"""Load-latency and throughput curves from `nwnsim sweep --json` output: one
curve per combination of the swept keys other than traffic.load.

    scripts/plot_sweep.py sweep.json out/curves   ->  out/curves-{latency,throughput}.{png,svg}
                                                      (and -power when the points carry the routers' power)

Saturated points (marked packets that did not drain, or accepted < offered)
are drawn hollow. Uses Debian's python3-matplotlib.
"""
import json
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot_sweep.py SWEEP.json OUTPUT_PREFIX")
    data = json.load(open(sys.argv[1]))
    prefix = sys.argv[2]
    curves = defaultdict(list)
    # A trace's load is set by its time scale (traffic.trace_time_scale), not
    # traffic.load: plot those against the measured offered load.
    trace = data["config"].get("traffic.source") == "trace"
    for p in data["points"]:
        if "results" not in p:
            continue
        s = dict(p["set"])
        load = float(s.pop("traffic.load", data["config"]["traffic.load"]))
        if trace:
            s.pop("traffic.trace_time_scale", None)
            load = p["results"]["offered_load_measured"]
        label = ", ".join(f"{k.split('.')[-1]}={v}" for k, v in s.items()) or data["config"]["router.org"]
        curves[label].append((load, p["results"]))
    metrics = [("latency", "average packet latency (cycles)", "latency_avg"),
               ("throughput", "accepted load", "accepted_load")]
    # Runs of networks carry the routers' power (sim/network_power.cpp).
    if all("power" in r for pts in curves.values() for _, r in pts):
        metrics.append(("power", "switch power of all routers (W)", "switch_power_w"))
    for metric, ylabel, key in metrics:
        fig, ax = plt.subplots(figsize=(5.5, 4))
        for label, pts in curves.items():
            pts.sort(key=lambda x: x[0])
            xs = [x for x, _ in pts]
            value = (lambda r: r["power"][key]) if metric == "power" else (lambda r: r[key])
            ys = [value(r) for _, r in pts]
            line, = ax.plot(xs, ys, marker="o", label=label)
            sat = [(x, value(r)) for x, r in pts if r["saturated"]]
            if sat:
                ax.plot([x for x, _ in sat], [y for _, y in sat], "o", mfc="white", color=line.get_color())
        ax.set_xlabel("offered load (fraction of capacity)")
        ax.set_ylabel(ylabel)
        if metric == "latency":
            ax.set_yscale("log")
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
        fig.tight_layout()
        for ext in ("png", "svg"):
            fig.savefig(f"{prefix}-{metric}.{ext}", dpi=120)
        plt.close(fig)


if __name__ == "__main__":
    main()
