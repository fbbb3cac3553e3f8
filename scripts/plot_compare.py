#!/usr/bin/python3
"""Bar charts of `nwnsim compare --json` output, like Fig. 16 and 19 of the
NWN paper: energy per packet, EDP and EDAP of each organization relative to
the reference, one group of bars per traffic pattern.

    scripts/plot_compare.py compare.json out/compare   ->  out/compare-{energy,edp,edap}.{png,svg}

Uses Debian's python3-matplotlib (run with /usr/bin/python3).
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot_compare.py COMPARE.json OUTPUT_PREFIX")
    data = json.load(open(sys.argv[1]))
    prefix = sys.argv[2]
    points = data["points"]
    patterns = list(dict.fromkeys(p["pattern"] for p in points))
    orgs = list(dict.fromkeys(p["org"] for p in points))
    by = {(p["org"], p["pattern"]): p for p in points}
    for metric, label in (("energy", "energy per packet"), ("edp", "EDP"), ("edap", "EDAP")):
        fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(patterns) * len(orgs) / 4), 3.6))
        width = 0.8 / len(orgs)
        colors = plt.get_cmap("tab20").colors
        for i, org in enumerate(orgs):
            xs, ys = [], []
            for j, pat in enumerate(patterns):
                p = by.get((org, pat))
                if p and "relative" in p:
                    xs.append(j + i * width)
                    ys.append(p["relative"][metric])
            ax.bar(xs, ys, width, label=org, color=colors[i % len(colors)])
        ax.set_xticks([j + 0.4 - width / 2 for j in range(len(patterns))])
        ax.set_xticklabels(patterns)
        ax.axhline(1.0, color="black", linewidth=0.6)
        # Saturated points are tens of times the reference: a log axis keeps
        # the unsaturated differences visible.
        ax.set_yscale("log")
        ax.set_ylabel(f"{label} relative to {data.get('reference', 'hc')}")
        ax.legend(ncol=min(len(orgs), 6), fontsize=7)
        ax.set_title(f"{label}, radix {data['config']['router.radix']}, load {data['config']['traffic.load']}")
        fig.tight_layout()
        for ext in ("png", "svg"):
            fig.savefig(f"{prefix}-{metric}.{ext}", dpi=120)
        plt.close(fig)


if __name__ == "__main__":
    main()
