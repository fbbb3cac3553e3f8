"""Running nwnsim and reading its results (see the package docstring)."""
import collections.abc
import json
import numbers
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


def _bad(name, value, allowed, error=ValueError):
    """An argument's error in nwnsim's words: the argument, the value given, what is allowed."""
    shown = repr(value)
    if len(shown) > 80 or "\n" in shown:
        shown = shown.splitlines()[0][:60] + " ..."
    return error(f"{name} = {shown} ({type(value).__name__}): must be {allowed}")


def _value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    # Lists, tuples, ranges, NumPy arrays, pandas Series: nwnsim's comma-separated lists.
    if isinstance(v, collections.abc.Iterable) and not isinstance(v, (str, bytes, collections.abc.Mapping)):
        return ",".join(_value(x) for x in v)
    return str(v)


def _mapping(name, d, example):
    if d is not None and not isinstance(d, collections.abc.Mapping):
        raise _bad(name, d, f"a dict of config keys to values, e.g. {example}", TypeError)
    return d or {}


def _set_args(sets):
    out = []
    for k, v in _mapping("sets", sets, '{"router.vcs": 2}').items():
        out += ["--set", f"{k}={_value(v)}"]
    return out


def _config_args(config):
    """The TOML file as nwnsim's first argument; nwnsim says when it does not exist."""
    if config is None:
        return []
    if not isinstance(config, (str, os.PathLike)):
        raise _bad("config", config, "the path of a TOML file (str or os.PathLike), or None", TypeError)
    return [os.fspath(config)]


def _count_args(name, option, n):
    """A count (seeds, threads, jobs) as `option N`; nwnsim checks its range."""
    if n is None:
        return []
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise _bad(name, n, "a whole number (int), or None for nwnsim's default", TypeError)
    return [option, str(int(n))]


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
    args = ["run"] + _config_args(config) + _set_args(sets)
    args += _count_args("threads", "--threads", threads) + _count_args("seeds", "--seeds", seeds)
    with tempfile.TemporaryDirectory(prefix="nwnsim-py-") as tmp:
        out = os.path.join(tmp, "run.json")
        _nwnsim(args + ["--quiet", "--json", out])
        with open(out) as f:
            return json.load(f)


def sweep(vary=None, loads=None, sets=None, config=None, jobs=None, out_dir=None, seeds=None):
    """Simulates a grid: `vary` maps keys to lists of values, `loads` is a
    list of offered loads (or a "FIRST:LAST:STEP" text), each point in its
    own child process (`nwnsim sweep`, `jobs` at once). With `out_dir` the
    sweep is kept there and resumes; `seeds` N runs each point with N seeds.
    Returns frame() of the sweep's JSON."""
    args = ["sweep"] + _config_args(config) + _set_args(sets)
    for k, values in _mapping("vary", vary, '{"router.org": ["fc", "hc"]}').items():
        args += ["--vary", f"{k}={_value(values)}"]
    if loads is not None:
        args += ["--loads", _value(loads)]
    args += _count_args("jobs", "-j", jobs)
    if out_dir is not None:
        if not isinstance(out_dir, (str, os.PathLike)):
            raise _bad("out_dir", out_dir, "a directory's path (str or os.PathLike), or None", TypeError)
        args += ["--out-dir", os.fspath(out_dir)]
    args += _count_args("seeds", "--seeds", seeds)
    with tempfile.TemporaryDirectory(prefix="nwnsim-py-") as tmp:
        out = os.path.join(tmp, "sweep.json")
        _nwnsim(args + ["--json", out])
        with open(out) as f:
            return frame(json.load(f))


def compare(orgs=None, patterns=None, load=None, sets=None, config=None, quick=False, jobs=None, seeds=None):
    """Compares switch organizations (`nwnsim compare`): area, energy per
    packet, latency, EDP and EDAP, also relative to hc (`seeds` N: over N
    seeds, with intervals). Returns frame()."""
    args = ["compare"] + _config_args(config) + _set_args(sets)
    if orgs is not None:
        args += ["--orgs", _value(orgs)]
    if patterns is not None:
        args += ["--patterns", _value(patterns)]
    if load is not None:
        args += ["--load", str(load)]
    if quick not in (True, False):
        raise _bad("quick", quick, "True or False", TypeError)
    if quick:
        args.append("--quick")
    args += _count_args("jobs", "-j", jobs) + _count_args("seeds", "--seeds", seeds)
    with tempfile.TemporaryDirectory(prefix="nwnsim-py-") as tmp:
        out = os.path.join(tmp, "compare.json")
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

    if not isinstance(data, dict):
        raise _bad("data", data, "the JSON of an nwnsim result, a dict (nwnsim.read reads a file)", TypeError)
    kind = data.get("nwnsim")
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
        raise ValueError(f"data[\"nwnsim\"] = {kind!r}: not an nwnsim result; must be one of: run, sweep, compare, "
                         "saturation, complexity, topo analyze, topo search")
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

    # An int would be a file descriptor to open().
    if not isinstance(path, (str, os.PathLike)):
        raise _bad("path", path, "a file's path (str or os.PathLike)", TypeError)
    if os.fspath(path).endswith(".csv"):
        return pd.read_csv(path, comment="#", float_precision="round_trip")
    with open(path) as f:
        try:
            data = json.load(f)
        except json.JSONDecodeError as e:
            raise ValueError(f"path = {os.fspath(path)!r}: not JSON ({e}); must be a JSON or CSV "
                             "(name ending in .csv) result of nwnsim") from None
    return frame(data)


# What plot() draws, by the result's kind, and the options its figures take.
_PLOT_OPTIONS = {"sweep": ("formats", "size", "dpi", "title", "metrics"), "compare": ("formats", "size", "dpi"),
                 "complexity": ("formats", "size", "dpi"), "run": ("formats", "size", "dpi")}


def _plotted(df_or_json):
    """The JSON that plot() draws, or an error saying what it was given instead."""
    allowed = ("a DataFrame of nwnsim.frame, read (of a JSON), sweep or compare, or the JSON of a run, sweep, "
               "compare or complexity result (a dict)")
    if isinstance(df_or_json, dict):
        data = df_or_json
    elif isinstance(getattr(df_or_json, "attrs", None), dict):
        data = df_or_json.attrs.get("nwnsim")
        if not isinstance(data, dict):
            columns = list(getattr(df_or_json, "columns", []))
            raise ValueError(f"df_or_json = a {type(df_or_json).__name__} with columns {columns[:6]}"
                             f"{' ...' if len(columns) > 6 else ''} and no nwnsim JSON in its "
                             f"attrs[\"nwnsim\"] (a CSV's frame, or not from this package): must be {allowed}")
    else:
        raise _bad("df_or_json", df_or_json, allowed, TypeError)
    kind = data.get("nwnsim")
    if kind not in _PLOT_OPTIONS:
        raise ValueError(f"df_or_json: an nwnsim result of kind {kind!r} (its \"nwnsim\" field); plot draws: "
                         f"{', '.join(_PLOT_OPTIONS)}")
    return data, kind


def plot(df_or_json, prefix, **options):
    """Draws the figures of a sweep, compare or complexity result (a frame()
    or its JSON), or of a run (latency CDF, time series, port utilization),
    with nwnsim.plots; `options`: formats, size, dpi (a sweep's also title
    and metrics). Returns the files written."""
    from . import plots

    data, kind = _plotted(df_or_json)
    if not isinstance(prefix, (str, os.PathLike)):
        raise _bad("prefix", prefix, "the files' path without -FIGURE.FORMAT (str or os.PathLike)", TypeError)
    prefix = os.fspath(prefix)
    for name in options:
        if name not in _PLOT_OPTIONS[kind]:
            raise TypeError(f"plot option {name} = {options[name]!r}: not one for a {kind}; must be one of: "
                            f"{', '.join(_PLOT_OPTIONS[kind])}")
    if kind == "sweep":
        return plots.sweep(data, prefix, **options)
    if kind == "compare":
        return plots.compare(data, prefix, **options)
    if kind == "complexity":
        return plots.complexity(data, prefix, **options)
    runs, window = plots.runs_of([data])
    return (plots.latency_cdf(runs, prefix, **options) + plots.time_series(runs, prefix, window=window, **options) +
            plots.utilization(data, prefix, **options))
