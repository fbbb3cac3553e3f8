#!/usr/bin/python3
"""Fig. 11(c) of the NWN paper from Python: load-latency of radix-64 switch
organizations under uniform random traffic (the same runs as
`nwnsim reproduce fig11c-ur`), as a DataFrame, a table of each
organization's last unsaturated load, and the plot.

    python/examples/fig11c.py [--quick] [OUT_PREFIX]   ->  OUT_PREFIX-{latency,throughput,power}.{png,pdf,svg}
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import nwnsim  # noqa: E402


def main():
    quick = "--quick" in sys.argv
    args = [a for a in sys.argv[1:] if a != "--quick"]
    prefix = args[0] if args else "results/fig11c-python"
    os.makedirs(os.path.dirname(prefix) or ".", exist_ok=True)
    sets = {"traffic.pattern": "uniform", "router.cn_crossbar_stages": 10}
    if quick:
        sets.update({"sim.warmup_cycles": 1000, "sim.measure_cycles": 4000})
    df = nwnsim.sweep({"router.org": ["cn", "hc", "fc", "trv", "trm", "hxv", "hxm"]},
                      loads="0.1:0.9:0.2" if quick else "0.1:1.0:0.1", sets=sets)
    ok = df[~df["saturated"]]
    table = ok.groupby("router.org", sort=False).agg(last_unsaturated_load=("traffic.load", "max"),
                                                     zero_load_latency=("latency_avg", "first"))
    print(table.to_string())
    for path in nwnsim.plot(df, prefix):
        print("wrote", path)


if __name__ == "__main__":
    main()
