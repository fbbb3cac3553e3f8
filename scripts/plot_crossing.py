#!/usr/bin/python3
"""Fig. 10 of the NWN paper: the fraction of the packets entering a router
that cross its bisection (input and output port in different halves of the
physical ports), from `nwnsim sweep --set sim.heatmap=true --json` output.
Prints a table and draws one bar per sweep point (python/nwnsim/plots.py).

    scripts/plot_crossing.py sweep.json out/fig10   ->  out/fig10-crossing.{png,pdf,svg}
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from nwnsim import plots  # noqa: E402


def main():
    a = plots.arguments(__doc__.splitlines()[0], [("sweep_json", "nwnsim sweep --json output with heatmaps"),
                                                  ("prefix", "output path without -crossing.FORMAT")])
    with open(a.sweep_json) as f:
        data = json.load(f)
    try:
        labels, fractions, _ = plots.crossing(data, a.prefix, a.formats, a.size, a.dpi)
    except ValueError as e:
        sys.exit(f"plot_crossing.py: {e}")
    width = max(len(l) for l in labels)
    print(f"{'point':<{width}}  crossing fraction")
    for l, f in zip(labels, fractions):
        print(f"{l:<{width}}  {f:.3f}")


if __name__ == "__main__":
    main()
