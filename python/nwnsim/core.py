"""Running nwnsim and reading its results (see the package docstring)."""
import json
import os
import shutil
import subprocess
import tempfile

# The source tree this package is in, or <prefix>/share/nwnsim when installed.
_SOURCE_TREE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class NwnsimError(RuntimeError):
    """nwnsim exited with an error; `exit_code` and `output` say why."""

    def __init__(self, args, exit_code, output):
        super().__init__(f"nwnsim {' '.join(args)} failed (exit {exit_code}):\n{output}")
        self.exit_code = exit_code
        self.output = output


def binary():
    """The nwnsim program this package runs."""
    if os.environ.get("NWNSIM_BINARY"):
        return os.environ["NWNSIM_BINARY"]
    for build in ("release", "ci"):
        path = os.path.join(_SOURCE_TREE, "build", build, "nwnsim")
        if os.access(path, os.X_OK):
            return path
    # Installed (cmake --install): this package is <prefix>/share/nwnsim/python/nwnsim.
    installed = os.path.normpath(os.path.join(_SOURCE_TREE, "..", "..", "bin", "nwnsim"))
    if os.access(installed, os.X_OK):
        return installed
    found = shutil.which("nwnsim")
    if not found:
        raise FileNotFoundError("no nwnsim program: set NWNSIM_BINARY, or build it (scripts/build)")
    return found


def _value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return ",".join(_value(x) for x in v)
    return str(v)


def _set_args(sets):
    out = []
    for k, v in (sets or {}).items():
        out += ["--set", f"{k}={_value(v)}"]
    return out


def _nwnsim(args, quiet=True):
    """Runs nwnsim with `args` (a list, no shell); returns its stdout."""
    p = subprocess.run([binary()] + args, capture_output=True, text=True)
    if p.returncode != 0:
        raise NwnsimError(args, p.returncode, p.stdout + p.stderr)
    return p.stdout


def run(sets=None, config=None, threads=None, seeds=None):
    """Simulates one point: `sets` maps config keys to values (nwnsim config
    --keys), `config` is an optional TOML file; `seeds` N runs it with N
    seeds (means and 95 % intervals, results.confidence). Returns the run's
    JSON as a dict: nwnsim, provenance, config, results."""
    with tempfile.TemporaryDirectory(prefix="nwnsim-py-") as tmp:
        out = os.path.join(tmp, "run.json")
        args = ["run"] + ([config] if config else []) + _set_args(sets)
        if threads:
            args += ["--threads", str(threads)]
        if seeds:
            args += ["--seeds", str(seeds)]
        _nwnsim(args + ["--quiet", "--json", out])
        with open(out) as f:
            return json.load(f)


def sweep(vary=None, loads=None, sets=None, config=None, jobs=None, out_dir=None, seeds=None):
    """Simulates a grid: `vary` maps keys to lists of values, `loads` is a
    list of offered loads (or a "FIRST:LAST:STEP" text), each point in its
    own child process (`nwnsim sweep`, `jobs` at once). With `out_dir` the
    sweep is kept there and resumes; `seeds` N runs each point with N seeds.
    Returns frame() of the sweep's JSON."""
    with tempfile.TemporaryDirectory(prefix="nwnsim-py-") as tmp:
        out = os.path.join(tmp, "sweep.json")
        args = ["sweep"] + ([config] if config else []) + _set_args(sets)
        for k, values in (vary or {}).items():
            args += ["--vary", f"{k}={_value(values)}"]
        if loads is not None:
            args += ["--loads", loads if isinstance(loads, str) else _value(loads)]
        if jobs:
            args += ["-j", str(jobs)]
        if out_dir:
            args += ["--out-dir", str(out_dir)]
        if seeds:
            args += ["--seeds", str(seeds)]
        _nwnsim(args + ["--json", out])
        with open(out) as f:
            return frame(json.load(f))


def compare(orgs=None, patterns=None, load=None, sets=None, config=None, quick=False, jobs=None, seeds=None):
    """Compares switch organizations (`nwnsim compare`): area, energy per
    packet, latency, EDP and EDAP, also relative to hc (`seeds` N: over N
    seeds, with intervals). Returns frame()."""
    with tempfile.TemporaryDirectory(prefix="nwnsim-py-") as tmp:
        out = os.path.join(tmp, "compare.json")
        args = ["compare"] + ([config] if config else []) + _set_args(sets)
        if orgs:
            args += ["--orgs", _value(orgs)]
        if patterns:
            args += ["--patterns", _value(patterns)]
        if load is not None:
            args += ["--load", str(load)]
        if quick:
            args.append("--quick")
        if jobs:
            args += ["-j", str(jobs)]
        if seeds:
            args += ["--seeds", str(seeds)]
        _nwnsim(args + ["--json", out])
        with open(out) as f:
            return frame(json.load(f))


def _flat(prefix, d, row):
    for k, v in d.items():
        if k == "confidence" and isinstance(v, dict) and "figures" in v:
            # Results over seeds: each figure's 95 % half-width beside it.
            for path, f in v["figures"].items():
                if "ci95" in f:
                    row[f"{prefix}{path}_ci95"] = f["ci95"]
            row[prefix + "seeds"] = len(v["seeds"])
        elif isinstance(v, dict):
            _flat(f"{prefix}{k}.", v, row)
        elif not isinstance(v, list):
            row[prefix + k] = v


def frame(data):
    """A DataFrame of an nwnsim JSON result (run, sweep, compare,
    saturation, complexity): one row per point, its varied keys and its
    results' figures as columns (nested ones dotted, e.g. power.switch_power_w;
    lists such as the latency histogram stay in the JSON). Results over
    seeds (--seeds) hold the means, with a FIELD_ci95 column (half-width of
    the 95 % interval) beside each figure and a `seeds` column. The JSON
    itself is kept in df.attrs["nwnsim"]."""
    import pandas as pd

    kind = data.get("nwnsim") if isinstance(data, dict) else None
    rows = []
    if kind == "run":
        row = {}
        _flat("", data["results"], row)
        rows.append(row)
    elif kind == "sweep":
        for p in data["points"]:
            row = dict(p["set"])
            if "results" in p:
                _flat("", p["results"], row)
            else:
                row["missing"] = True
            rows.append(row)
    elif kind == "compare":
        for p in data["points"]:
            row = {}
            _flat("", {k: v for k, v in p.items() if k != "results"}, row)  # its confidence too
            _flat("results.", p["results"], row)
            rows.append(row)
    elif kind == "saturation":
        rows = list(data["probes"])
    elif kind in ("complexity", "topo analyze") or (isinstance(kind, str) and kind.startswith("topo search")):
        rows = list(data.get("rows", data.get("cases", [])))
    else:
        raise ValueError(f"not an nwnsim result (nwnsim = {kind!r})")
    df = pd.DataFrame(rows)
    # Sweep keys arrive as text: numbers become numbers.
    for col in df.columns:
        if df[col].dtype == object:
            try:
                df[col] = pd.to_numeric(df[col])
            except (ValueError, TypeError):
                pass
    df.attrs["nwnsim"] = data
    return df


def read(path):
    """A results file nwnsim wrote: JSON as frame(), CSV (its first line, a
    comment naming the nwnsim build, skipped) as a DataFrame."""
    import pandas as pd

    if str(path).endswith(".csv"):
        return pd.read_csv(path, comment="#", float_precision="round_trip")
    with open(path) as f:
        return frame(json.load(f))


def plot(df_or_json, prefix, **options):
    """Draws the figures of a sweep, compare or complexity result (a frame()
    or its JSON), or of a run (latency CDF, time series, port utilization),
    with nwnsim.plots; `options`: formats, size, dpi. Returns the files
    written."""
    from . import plots

    data = df_or_json.attrs["nwnsim"] if hasattr(df_or_json, "attrs") else df_or_json
    kind = data.get("nwnsim") if isinstance(data, dict) else None
    if kind == "sweep":
        return plots.sweep(data, prefix, **options)
    if kind == "compare":
        return plots.compare(data, prefix, **options)
    if kind == "complexity":
        return plots.complexity(data, prefix, **options)
    if kind == "run":
        runs, window = plots.runs_of([data])
        return (plots.latency_cdf(runs, prefix, **options) + plots.time_series(runs, prefix, window=window, **options) +
                plots.utilization(data, prefix, **options))
    raise ValueError(f"nothing to plot for nwnsim = {kind!r}")
