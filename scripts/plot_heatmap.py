#!/usr/bin/python3
"""Heatmap of packets from each input port to each output port of one router
(Fig. 6 and 7 of the NWN paper), from `nwnsim run --heatmap FILE`.

    scripts/plot_heatmap.py heat.csv ROUTER out/heat      ->  out/heat.{png,svg}
    scripts/plot_heatmap.py heat.csv 0,256,512 out/heat   ->  out/heat-r{0,256,512}.{png,svg}
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: plot_heatmap.py HEATMAP.csv ROUTER[,ROUTER...] OUTPUT_PREFIX")
    routers = [int(x) for x in sys.argv[2].split(",")]
    table = list(csv.DictReader(open(sys.argv[1])))
    for router in routers:
        plot(table, router, sys.argv[3] if len(routers) == 1 else f"{sys.argv[3]}-r{router}", sys.argv[1])


def plot(table, router, prefix, source):
    rows = [r for r in table if int(r["router"]) == router]
    if not rows:
        sys.exit(f"router {router} has no packets in {source}")
    k = max(max(int(r["input"]), int(r["output"])) for r in rows) + 1
    grid = [[0] * k for _ in range(k)]
    for r in rows:
        grid[int(r["input"])][int(r["output"])] = int(r["packets"])
    fig, ax = plt.subplots(figsize=(5, 4.2))
    im = ax.imshow(grid, cmap="viridis", origin="upper")
    ax.set_xlabel("output port")
    ax.set_ylabel("input port")
    ax.set_title(f"router {router}: packets per port pair")
    fig.colorbar(im, ax=ax)
    fig.tight_layout()
    for ext in ("png", "svg"):
        fig.savefig(f"{prefix}.{ext}", dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    main()
