#!/usr/bin/python3
"""Heatmap of packets from each input port to each output port of one router
(Fig. 6 and 7 of the NWN paper), from `nwnsim run --heatmap FILE` (python/nwnsim/plots.py).

    scripts/plot_heatmap.py heat.csv ROUTER out/heat      ->  out/heat.{png,pdf,svg}
    scripts/plot_heatmap.py heat.csv 0,256,512 out/heat   ->  out/heat-r{0,256,512}.{png,pdf,svg}
"""
import csv
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from nwnsim import plots  # noqa: E402


def main():
    a = plots.arguments(__doc__.splitlines()[0], [("heatmap_csv", "nwnsim run --heatmap output"),
                                                  ("routers", "router id, or ids comma-separated"),
                                                  ("prefix", "output path without .FORMAT")])
    routers = [int(x) for x in a.routers.split(",")]
    with open(a.heatmap_csv) as f:
        table = list(csv.DictReader(line for line in f if not line.startswith("#")))  # the provenance line
    for router in routers:
        prefix = a.prefix if len(routers) == 1 else f"{a.prefix}-r{router}"
        try:
            plots.heatmap(table, router, prefix, a.formats, a.size, a.dpi)
        except ValueError as e:
            sys.exit(f"plot_heatmap.py: {a.heatmap_csv}: {e}")


if __name__ == "__main__":
    main()
