#!/usr/bin/python3
"""Latency CDF and time series (latency and accepted load per interval of
sim.sample_cycles) of runs: `nwnsim run --json` files, or every point of a
`nwnsim sweep --json` (python/nwnsim/plots.py).

    scripts/plot_run.py out/runs a.json [b.json ...]  ->  out/runs-cdf.{png,pdf,svg},
                                                          out/runs-series-{latency,accepted}.{png,pdf,svg}

The time series mark the measurement window when every run has the same;
a latency that still climbs at the window's end is a point past saturation,
one that falls at its start a warm-up too short.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from nwnsim import plots  # noqa: E402


def main():
    a = plots.arguments(__doc__.splitlines()[0], [("prefix", "output path without -FIGURE.FORMAT"),
                                                  ("results...", "run or sweep JSON files")])
    data = []
    for path in a.results:
        with open(path) as f:
            data.append(json.load(f))
    try:
        runs, window = plots.runs_of(data)
    except (ValueError, KeyError) as e:
        sys.exit(f"plot_run.py: {e}")
    plots.latency_cdf(runs, a.prefix, a.formats, a.size, a.dpi)
    plots.time_series(runs, a.prefix, a.formats, a.size, a.dpi, window=window)


if __name__ == "__main__":
    main()
