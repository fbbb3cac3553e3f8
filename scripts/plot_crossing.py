#!/usr/bin/python3
"""Fig. 10 of the NWN paper: the fraction of the packets entering a router
that cross its bisection (input and output port in different halves of the
physical ports), from `nwnsim sweep --set sim.heatmap=true --json` output.
Prints a table and draws one bar per sweep point.

    scripts/plot_crossing.py sweep.json out/fig10   ->  out/fig10-crossing.{png,svg}

Uses Debian's python3-matplotlib (run with /usr/bin/python3).
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot_crossing.py SWEEP.json OUTPUT_PREFIX")
    data = json.load(open(sys.argv[1]))
    labels, fractions = [], []
    for p in data["points"]:
        h = p.get("results", {}).get("heatmap")
        if h is None:
            sys.exit("plot_crossing.py: a point has no results.heatmap (run the sweep with --set sim.heatmap=true)")
        labels.append(", ".join(f"{k.split('.')[-1]}={v}" for k, v in p["set"].items()))
        fractions.append(h["bisection_crossing_fraction"])
    width = max(len(l) for l in labels)
    print(f"{'point':<{width}}  crossing fraction")
    for l, f in zip(labels, fractions):
        print(f"{l:<{width}}  {f:.3f}")
    fig, ax = plt.subplots(figsize=(max(4, 1.6 * len(labels)), 3.4))
    ax.bar(range(len(labels)), fractions, color="tab:blue")
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=20, ha="right", fontsize=8)
    ax.set_ylim(0, 1)
    ax.set_ylabel("packets crossing the router bisection")
    ax.set_title(data.get("config", {}).get("network.hyperx_s", ""), fontsize=9)
    fig.tight_layout()
    for ext in ("png", "svg"):
        fig.savefig(f"{sys.argv[2]}-crossing.{ext}", dpi=120)


if __name__ == "__main__":
    main()
