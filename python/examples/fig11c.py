#!/usr/bin/python3
"""Fig. 11(c) of the NWN paper from Python: load-latency of radix-64 switch
organizations under uniform random traffic (the same runs as
`nwnsim reproduce fig11c-ur`), as a DataFrame, a table of each
organization's last unsaturated load, and the plot.

    python/examples/fig11c.py [--quick] [--seeds N] [OUT_PREFIX]
        ->  OUT_PREFIX-{latency,throughput,power}.{png,pdf,svg}

With --seeds N every point is the mean over N seeds, drawn with its 95 %
interval, and the table gives the zero-load latency's interval.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import nwnsim  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("prefix", nargs="?", default="results/fig11c-python", help="output path without -FIGURE.FORMAT")
    ap.add_argument("--quick", action="store_true", help="shorter windows, fewer loads")
    ap.add_argument("--seeds", type=int, help="run every point with N seeds (means with 95 %% intervals)")
    a = ap.parse_args()
    quick, seeds, prefix = a.quick, a.seeds, a.prefix
    os.makedirs(os.path.dirname(prefix) or ".", exist_ok=True)
    sets = {"traffic.pattern": "uniform", "router.cn_crossbar_stages": 10}
    if quick:
        sets.update({"sim.warmup_cycles": 1000, "sim.measure_cycles": 4000})
    df = nwnsim.sweep({"router.org": ["cn", "hc", "fc", "trv", "trm", "hxv", "hxm"]},
                      loads="0.1:0.9:0.2" if quick else "0.1:1.0:0.1", sets=sets, seeds=seeds)
    ok = df[~df["saturated"]]
    columns = dict(last_unsaturated_load=("traffic.load", "max"), zero_load_latency=("latency_avg", "first"))
    if seeds:
        columns["its_95pct_interval"] = ("latency_avg_ci95", "first")
    table = ok.groupby("router.org", sort=False).agg(**columns)
    print(table.to_string())
    for path in nwnsim.plot(df, prefix):
        print("wrote", path)


if __name__ == "__main__":
    main()
