"""The Python package gets the same numbers as the nwnsim program (run by
scripts/test through ctest, NWNSIM_BINARY naming the built program)."""
import json
import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import nwnsim  # noqa: E402

SHORT = {"router.radix": 16, "sim.warmup_cycles": 200, "sim.measure_cycles": 1500}


def cli(*args):
    p = subprocess.run([nwnsim.binary(), *args], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


def sets(d):
    return [a for k, v in d.items() for a in ("--set", f"{k}={v}")]


def test_a_point_has_the_cli_results(tmp_path):
    point = nwnsim.run(dict(SHORT, **{"router.org": "fc", "traffic.load": 0.4}))
    out = tmp_path / "r.json"
    cli("run", *sets(SHORT), "--set", "router.org=fc", "--set", "traffic.load=0.4", "--json", str(out))
    want = json.loads(out.read_text())
    assert point["results"] == want["results"]
    assert point["config"] == want["config"]
    assert point["provenance"]["version"] == want["provenance"]["version"]
    df = nwnsim.frame(point)
    assert len(df) == 1
    assert df["latency_avg"][0] == want["results"]["latency_avg"]
    assert df["power.switch_power_w"][0] == want["results"]["power"]["switch_power_w"]


def test_a_sweep_has_the_cli_numbers_and_reads_back(tmp_path):
    df = nwnsim.sweep({"router.org": ["fc", "hc"]}, loads=[0.2, 0.5], sets=SHORT, jobs=2)
    assert list(df["router.org"]) == ["fc", "fc", "hc", "hc"]
    assert list(df["traffic.load"]) == [0.2, 0.5, 0.2, 0.5]
    csv = tmp_path / "s.csv"
    cli("sweep", *sets(SHORT), "--vary", "router.org=fc,hc", "--loads", "0.2,0.5", "-j", "1", "--csv", str(csv))
    assert csv.read_text().startswith("# nwnsim ")
    from_cli = nwnsim.read(str(csv))
    for col in ("accepted_load", "latency_avg", "latency_p99", "saturated", "flit_hops"):
        assert list(df[col]) == list(from_cli[col]), col
    # The histogram in the JSON agrees with the frame's p50.
    first = df.attrs["nwnsim"]["points"][0]["results"]["latency_histogram"]
    p50 = next(v for v, c in zip(first["latency"], first["cdf"]) if c >= 0.5)
    assert p50 == df["latency_p50"][0]


def test_plots_and_files_with_spaces(tmp_path):
    df = nwnsim.sweep({"router.org": ["fc", "cn"]}, loads="0.3:0.9:0.3", sets=SHORT, jobs=2)
    prefix = tmp_path / "my plots" / "curves"
    prefix.parent.mkdir()
    written = nwnsim.plot(df, str(prefix), formats=("png", "pdf"))
    assert sorted(os.path.basename(w) for w in written) == sorted(
        f"curves-{m}.{e}" for m in ("latency", "throughput", "power") for e in ("png", "pdf"))
    for w in written:
        assert os.path.getsize(w) > 1000, w
    saved = tmp_path / "s.json"
    saved.write_text(json.dumps(df.attrs["nwnsim"]))
    assert nwnsim.read(str(saved))["latency_avg"].tolist() == df["latency_avg"].tolist()


def test_errors_carry_the_message():
    with pytest.raises(nwnsim.NwnsimError) as e:
        nwnsim.run({"router.vcs": 0})
    assert e.value.exit_code == 2
    assert "router.vcs" in e.value.output


def test_seeds_give_means_and_interval_columns(tmp_path):
    df = nwnsim.sweep({"router.org": ["fc"]}, loads=[0.3, 0.6], sets=SHORT, jobs=2, seeds=3)
    assert list(df["seeds"]) == [3, 3]
    data = df.attrs["nwnsim"]
    for i, p in enumerate(data["points"]):
        fig = p["results"]["confidence"]["figures"]["latency_avg"]
        assert len(fig["values"]) == 3
        assert df["latency_avg"][i] == fig["mean"] == p["results"]["latency_avg"]
        assert df["latency_avg_ci95"][i] == fig["ci95"] > 0
    written = nwnsim.plot(df, str(tmp_path / "ci"), formats=("png",))
    assert len(written) == 3
    one = nwnsim.run(dict(SHORT, **{"router.org": "fc", "traffic.load": 0.6}), seeds=3)
    assert one["results"] == data["points"][1]["results"]


def test_run_plots_and_plot_run_script(tmp_path):
    point = nwnsim.run(dict(SHORT, **{"router.org": "fc", "traffic.load": 0.95}))
    written = nwnsim.plot(point, str(tmp_path / "run"), formats=("png",))
    assert sorted(os.path.basename(w) for w in written) == [
        "run-cdf.png", "run-series-accepted.png", "run-series-latency.png", "run-utilization.png"]
    # The script, on files in a directory with spaces: a sweep's points as runs.
    d = tmp_path / "my runs"
    d.mkdir()
    (d / "r.json").write_text(json.dumps(point))
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "plot_run.py")
    p = subprocess.run([sys.executable, script, str(d / "out"), str(d / "r.json"), "--format", "pdf"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert sorted(os.listdir(d)) == ["out-cdf.pdf", "out-series-accepted.pdf", "out-series-latency.pdf", "r.json"]


def test_compare_has_the_cli_numbers(tmp_path):
    """nwnsim.compare's frame holds `compare --json`'s figures, point by point:
    area, latency, energy, EDP, EDAP, the relative ones and the run results."""
    df = nwnsim.compare(orgs=["hc", "fc"], patterns=["uniform", "bitcomp"], load=0.4, sets=SHORT, jobs=2)
    out = tmp_path / "c.json"
    cli("compare", *sets(SHORT), "--orgs", "hc,fc", "--patterns", "uniform,bitcomp", "--load", "0.4", "-j", "1",
        "--json", str(out))
    want = json.loads(out.read_text())
    points = want["points"]
    assert len(df) == len(points) == 4
    assert list(df["org"]) == [p["org"] for p in points]
    assert list(df["pattern"]) == [p["pattern"] for p in points]
    for i, p in enumerate(points):
        for col in ("area_mm2", "latency_cycles", "latency_ns", "edp_pj_ns", "edap_pj_ns_mm2", "power_w",
                    "relative.area", "relative.energy", "relative.edp", "relative.edap"):
            value = p
            for part in col.split("."):
                value = value[part]
            assert df[col][i] == value, (col, p["org"], p["pattern"])
        for col in ("accepted_load", "latency_avg", "flit_hops", "saturated"):
            assert df[f"results.{col}"][i] == p["results"][col], (col, p["org"], p["pattern"])
    # The reference's relative figures are 1; fc's are its figures over hc's of the same pattern.
    hc = df[df["org"] == "hc"].set_index("pattern")
    fc = df[df["org"] == "fc"].set_index("pattern")
    assert (hc["relative.edp"] == 1.0).all()
    for pattern in ("uniform", "bitcomp"):
        assert fc["relative.edp"][pattern] == pytest.approx(fc["edp_pj_ns"][pattern] / hc["edp_pj_ns"][pattern],
                                                            rel=1e-12)


# Wrong arguments, checked before nwnsim runs: with no program to run, an
# unchecked one would end in FileNotFoundError instead. (argument, value) in the message.
CHECKED = [
    (lambda: nwnsim.run("router.vcs=2"), TypeError, ("sets", "'router.vcs=2'", "dict")),
    (lambda: nwnsim.run([("router.vcs", 2)]), TypeError, ("sets", "[('router.vcs', 2)]", "dict")),
    (lambda: nwnsim.sweep(sets=""), TypeError, ("sets", "''", "dict")),
    (lambda: nwnsim.sweep(vary="router.org=fc,hc"), TypeError, ("vary", "'router.org=fc,hc'", "dict")),
    (lambda: nwnsim.sweep(vary=["fc", "hc"]), TypeError, ("vary", "['fc', 'hc']", "dict")),
    (lambda: nwnsim.run(config={"router.vcs": 2}), TypeError, ("config", "{'router.vcs': 2}", "path")),
    (lambda: nwnsim.compare(config=3), TypeError, ("config", "3", "path")),
    (lambda: nwnsim.run(seeds=2.0), TypeError, ("seeds", "2.0", "whole number")),
    (lambda: nwnsim.run(seeds="3"), TypeError, ("seeds", "'3'", "whole number")),
    (lambda: nwnsim.run(threads=True), TypeError, ("threads", "True", "whole number")),
    (lambda: nwnsim.sweep(jobs=1.5), TypeError, ("jobs", "1.5", "whole number")),
    (lambda: nwnsim.sweep(seeds=[3]), TypeError, ("seeds", "[3]", "whole number")),
    (lambda: nwnsim.compare(jobs="2"), TypeError, ("jobs", "'2'", "whole number")),
    (lambda: nwnsim.compare(seeds=0.5), TypeError, ("seeds", "0.5", "whole number")),
    (lambda: nwnsim.sweep(out_dir=7), TypeError, ("out_dir", "7", "path")),
    (lambda: nwnsim.compare(quick="no"), TypeError, ("quick", "'no'", "True or False")),
    (lambda: nwnsim.compare(quick=None), TypeError, ("quick", "None", "True or False")),
    (lambda: nwnsim.frame("run.json"), TypeError, ("data", "'run.json'", "dict")),
    (lambda: nwnsim.frame({"nwnsim": "nonsense"}), ValueError, ('data["nwnsim"]', "'nonsense'", "sweep")),
    (lambda: nwnsim.frame({"points": []}), ValueError, ('data["nwnsim"]', "None", "sweep")),
    (lambda: nwnsim.read(0), TypeError, ("path", "0", "path")),
    (lambda: nwnsim.read(None), TypeError, ("path", "None", "path")),
]


@pytest.mark.parametrize("call,error,words", CHECKED, ids=[c[2][0] + "-" + c[2][1] for c in CHECKED])
def test_wrong_arguments_are_named_before_nwnsim_runs(monkeypatch, call, error, words):
    monkeypatch.setenv("NWNSIM_BINARY", "/nonexistent/nwnsim")
    with pytest.raises(error) as e:
        call()
    for word in words:
        assert word in str(e.value), (word, str(e.value))


def test_a_file_that_is_not_a_result_is_named(tmp_path):
    bad = tmp_path / "notes.json"
    bad.write_text("not json\n")
    with pytest.raises(ValueError) as e:
        nwnsim.read(bad)
    assert "path" in str(e.value) and str(bad) in str(e.value) and ".csv" in str(e.value)
    other = tmp_path / "other.json"
    other.write_text('{"nwnsim": "bench"}')
    with pytest.raises(ValueError) as e:
        nwnsim.read(other)
    assert 'data["nwnsim"] = \'bench\'' in str(e.value)


def test_plot_names_what_it_cannot_draw(tmp_path, monkeypatch):
    import pandas as pd

    monkeypatch.setenv("NWNSIM_BINARY", "/nonexistent/nwnsim")
    with pytest.raises(ValueError) as e:
        nwnsim.plot(pd.DataFrame({"a": [1]}), str(tmp_path / "x"))
    assert "df_or_json" in str(e.value) and "DataFrame with columns ['a']" in str(e.value)
    assert 'attrs["nwnsim"]' in str(e.value)
    with pytest.raises(TypeError) as e:
        nwnsim.plot("sweep.json", str(tmp_path / "x"))
    assert "df_or_json = 'sweep.json' (str)" in str(e.value)
    with pytest.raises(ValueError) as e:
        nwnsim.plot({"nwnsim": "saturation", "probes": []}, str(tmp_path / "x"))
    assert "df_or_json" in str(e.value) and "'saturation'" in str(e.value) and "sweep, compare" in str(e.value)
    run = {"nwnsim": "run", "config": {}, "results": {}}
    with pytest.raises(TypeError) as e:
        nwnsim.plot(run, None)
    assert "prefix = None" in str(e.value)
    with pytest.raises(TypeError) as e:
        nwnsim.plot(run, str(tmp_path / "x"), metrics=["p99"])
    assert "metrics = ['p99']" in str(e.value) and "for a run" in str(e.value) and "formats, size, dpi" in str(e.value)
    with pytest.raises(TypeError) as e:
        nwnsim.plot({"nwnsim": "sweep", "config": {}, "points": []}, str(tmp_path / "x"), formats="png")
    assert "formats = 'png' (str)" in str(e.value)
    assert os.listdir(tmp_path) == []


# What nwnsim checks reaches it: 0, a negative count or an empty list is no
# longer dropped for the default but refused in nwnsim's words (no simulation runs).
REFUSED_BY_NWNSIM = [
    (lambda: nwnsim.run(SHORT, seeds=0), "--seeds: Value 0 not in range"),
    (lambda: nwnsim.run(SHORT, threads=0), "--threads: Value 0 not in range"),
    (lambda: nwnsim.run(SHORT, seeds=-1), "--seeds: Value -1 not in range"),
    (lambda: nwnsim.sweep(loads=[0.2], sets=SHORT, jobs=0), "--jobs: Value 0 not in range"),
    (lambda: nwnsim.sweep(loads=[0.2], sets=SHORT, seeds=0), "--seeds: Value 0 not in range"),
    (lambda: nwnsim.sweep(loads=[], sets=SHORT), "--loads '': an empty list"),
    (lambda: nwnsim.sweep(loads=[0.2, 1.5], sets=SHORT), "traffic.load = '1.5'"),
    (lambda: nwnsim.sweep(vary={"router.org": []}, loads=[0.2], sets=SHORT), "--vary router.org '': an empty list"),
    (lambda: nwnsim.sweep(loads=[0.2], sets=SHORT, out_dir=""), "--out-dir: '': an empty path"),
    (lambda: nwnsim.compare(orgs=[], sets=SHORT), "--orgs '': an empty list"),
    (lambda: nwnsim.compare(patterns=[], sets=SHORT), "--patterns '': an empty list"),
    (lambda: nwnsim.compare(load=-0.1, sets=SHORT), "traffic.load = '-0.1'"),
    (lambda: nwnsim.compare(sets=SHORT, jobs=0), "--jobs: Value 0 not in range"),
    (lambda: nwnsim.compare(sets=SHORT, seeds=0), "--seeds: Value 0 not in range"),
    (lambda: nwnsim.run(config=""), "File does not exist"),
]


@pytest.mark.parametrize("call,message", REFUSED_BY_NWNSIM, ids=[m for _, m in REFUSED_BY_NWNSIM])
def test_what_nwnsim_checks_reaches_it(call, message):
    with pytest.raises(nwnsim.NwnsimError) as e:
        call()
    assert e.value.exit_code == 2
    assert message in e.value.output


def test_arrays_and_paths_are_arguments_too(tmp_path):
    """A NumPy array of loads is a list of loads; a pathlib.Path names a file."""
    import numpy as np

    config = tmp_path / "short.toml"
    config.write_text("[router]\nradix = 16\n[sim]\nwarmup_cycles = 200\nmeasure_cycles = 1500\n")
    df = nwnsim.sweep(loads=np.array([0.2, 0.4]), config=config, sets={"router.org": "fc"}, jobs=np.int64(2))
    assert list(df["traffic.load"]) == [0.2, 0.4]
    assert df.attrs["nwnsim"]["config"]["router.radix"] in (16, "16")
    with pytest.raises(nwnsim.NwnsimError) as e:
        nwnsim.run(config=tmp_path / "missing.toml")
    assert "missing.toml" in str(e.value)
