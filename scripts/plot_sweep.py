#!/usr/bin/python3
"""Load-latency and throughput curves from `nwnsim sweep --json` output: one
curve per combination of the swept keys other than traffic.load, coloured by
organization (python/nwnsim/plots.py).

    scripts/plot_sweep.py sweep.json out/curves   ->  out/curves-{latency,throughput}.{png,pdf,svg}
                                                      (and -power when the points carry the routers' power)
    scripts/plot_sweep.py sweep.json out/curves --metric p99,fairness   ->  out/curves-{p99,fairness}.*

With --seeds, each point carries its 95 % interval as an error bar.

Saturated points (marked packets that did not drain, or accepted below
sim.saturation_accept_ratio of offered) are drawn as a cross in the curve's
colour (grey in the legend) and do not set the y-range; those above it as a
triangle in the curve's colour on the top edge, stacked downward when several
curves are off scale at one load.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from nwnsim import plots  # noqa: E402


def main():
    a = plots.arguments(__doc__.splitlines()[0], [("sweep_json", "nwnsim sweep --json output"),
                                                  ("prefix", "output path without -METRIC.FORMAT")],
                        metric=True)
    with open(a.sweep_json) as f:
        data = json.load(f)
    try:
        plots.sweep(data, a.prefix, a.formats, a.size, a.dpi, metrics=a.metric)
    except ValueError as e:
        sys.exit(f"plot_sweep.py: {a.sweep_json}: {e}")


if __name__ == "__main__":
    main()
