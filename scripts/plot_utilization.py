#!/usr/bin/python3
"""Channel utilization of every router output port, routers by ports, from
`nwnsim run --json` output of any topology (results.utilization;
python/nwnsim/plots.py).

    scripts/plot_utilization.py run.json out/net   ->  out/net-utilization.{png,pdf,svg}
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from nwnsim import plots  # noqa: E402


def main():
    a = plots.arguments(__doc__.splitlines()[0], [("run_json", "nwnsim run --json output"),
                                                  ("prefix", "output path without -utilization.FORMAT")])
    with open(a.run_json) as f:
        data = json.load(f)
    if data.get("nwnsim") != "run" or "utilization" not in data.get("results", {}):
        sys.exit(f"plot_utilization.py: {a.run_json}: not a run result with results.utilization")
    plots.utilization(data, a.prefix, a.formats, a.size, a.dpi)


if __name__ == "__main__":
    main()
