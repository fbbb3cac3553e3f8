"""nwnsim from Python: run points and sweeps through the `nwnsim` program
(one child process per simulation, as `nwnsim sweep` does: SystemC elaborates
once per process), read JSON and CSV results into pandas DataFrames, compare
organizations and plot.

    import nwnsim
    point = nwnsim.run({"router.org": "fc", "traffic.load": 0.5})          # a dict: config, results, provenance
    df = nwnsim.sweep({"router.org": ["fc", "hc"]}, loads=[0.1, 0.3, 0.5])  # one row per point
    nwnsim.plot(df, "out/curves")                                          # out/curves-latency.pdf, ...
    df = nwnsim.read("results/paper/fig11c-ur.json")                       # or a CSV nwnsim wrote

The program is $NWNSIM_BINARY, else build/release/nwnsim or build/ci/nwnsim
of this source tree, else the installed <prefix>/bin/nwnsim beside this
package (cmake --install puts it in <prefix>/share/nwnsim/python), else
`nwnsim` on PATH. Uses Debian's python3-pandas and
python3-matplotlib.

Arguments are checked before nwnsim runs: a wrong type raises TypeError, a
wrong value ValueError, each naming the argument, the value given and what
is allowed. What nwnsim itself checks (a setting's value, a load, a count
out of range, an empty list) raises NwnsimError with nwnsim's message.
"""
from .core import NwnsimError, binary, compare, frame, plot, read, run, sweep

__all__ = ["NwnsimError", "binary", "compare", "frame", "plot", "read", "run", "sweep"]
