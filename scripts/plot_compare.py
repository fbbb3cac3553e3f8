#!/usr/bin/python3
"""Bar charts of `nwnsim compare --json` output, like Fig. 16 and 19 of the
NWN paper: energy per packet, EDP and EDAP of each organization relative to
the reference, one group of bars per traffic pattern (python/nwnsim/plots.py).

    scripts/plot_compare.py compare.json out/compare   ->  out/compare-{energy,edp,edap}.{png,pdf,svg}

Saturated points are hatched, clipped to the axis (set by the unsaturated
ones) and labelled with their value.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from nwnsim import plots  # noqa: E402


def main():
    a = plots.arguments(__doc__.splitlines()[0], [("compare_json", "nwnsim compare --json output"),
                                                  ("prefix", "output path without -METRIC.FORMAT")])
    with open(a.compare_json) as f:
        data = json.load(f)
    plots.compare(data, a.prefix, a.formats, a.size, a.dpi)


if __name__ == "__main__":
    main()
