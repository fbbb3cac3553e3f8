#!/usr/bin/python3
"""Fig. 5 of the NWN paper: buffers, aggregate fanout, crosspoints and area of
each organization relative to hc against radix, from
`nwnsim complexity --radices 16,36,64,144,256 --json` output (python/nwnsim/plots.py).

    scripts/plot_complexity.py fig05.json out/fig05   ->  out/fig05-complexity.{png,pdf,svg}
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from nwnsim import plots  # noqa: E402


def main():
    a = plots.arguments(__doc__.splitlines()[0], [("complexity_json", "nwnsim complexity --json output"),
                                                  ("prefix", "output path without -complexity.FORMAT")])
    with open(a.complexity_json) as f:
        data = json.load(f)
    plots.complexity(data, a.prefix, a.formats, a.size, a.dpi)


if __name__ == "__main__":
    main()
