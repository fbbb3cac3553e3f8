"""nwnsim.plots without running nwnsim: figures of made-up results."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from nwnsim import plots  # noqa: E402


def saturating_sweep():
    """Five organizations; three saturate off scale at loads 0.7 to 0.9."""
    points = []
    for org, saturates_at, zero_load in (("fc", 0.7, 14), ("hc", 0.9, 16), ("cn", 0.7, 16), ("hxm", 0.7, 12),
                                         ("trv", 0.5, 39)):
        for i in range(1, 10):
            load = round(0.1 * i, 1)
            sat = load >= saturates_at
            points.append({"set": {"router.org": org, "traffic.load": str(load)},
                           "results": {"latency_avg": 500.0 + 100 * i if sat else zero_load * (1 + load),
                                       "accepted_load": min(load, saturates_at), "saturated": sat}})
    return {"config": {"traffic.load": 0.5, "router.org": "fc"}, "points": points}


def test_off_scale_points_at_one_load_do_not_hide_each_other():
    fig, ax = plots.setup()
    ax.set_ylim(0, 60)
    before = len(ax.lines)
    offsets = plots.draw_off_scale(ax, [(0.7, "red"), (0.7, "blue"), (0.9, "green"), (0.7, "black")], 60)
    assert offsets == [0, -plots.OFF_SCALE_STEP, 0, -2 * plots.OFF_SCALE_STEP]
    fig.canvas.draw()
    drawn = [line.get_transform().transform(line.get_xydata()[0]) for line in ax.lines[before:]]
    at_07 = [drawn[0], drawn[1], drawn[3]]
    assert len({(round(x, 3), round(y, 3)) for x, y in at_07}) == 3  # three places on screen
    assert all(abs(x - at_07[0][0]) < 1e-6 for x, _ in at_07)       # one column, at the load
    assert drawn[0][1] > drawn[1][1] > drawn[3][1]                   # stacked down from the top edge
    assert [line.get_color() for line in ax.lines[before:]] == ["red", "blue", "green", "black"]
    plots.plt.close(fig)


def test_a_sweep_with_saturated_points_draws(tmp_path):
    written = plots.sweep(saturating_sweep(), str(tmp_path / "s"), formats=("png",), dpi=80)
    assert sorted(os.path.basename(w) for w in written) == ["s-latency.png", "s-throughput.png"]
    for w in written:
        assert os.path.getsize(w) > 5000, w


def test_wrong_output_options_are_named_before_drawing(tmp_path):
    import pytest

    cases = [
        (dict(formats="png"), TypeError, ("formats = 'png' (str)", "list or tuple")),
        (dict(formats=()), ValueError, ("formats = ()", "one or more of", "png")),
        (dict(formats=("png", "gif")), ValueError, ("formats = ('png', 'gif')", "'gif'", "pdf")),
        (dict(size=5), ValueError, ("size = 5", "(WIDTH, HEIGHT)")),
        (dict(size=(5.5,)), ValueError, ("size = (5.5,)", "(WIDTH, HEIGHT)")),
        (dict(size=(0, 3)), ValueError, ("size = (0, 3)", "above 0")),
        (dict(dpi=0), ValueError, ("dpi = 0", "above 0")),
        (dict(dpi="200"), ValueError, ("dpi = '200'", "above 0")),
        (dict(metrics="latency"), TypeError, ("metrics = 'latency'", "list of names")),
    ]
    for options, error, words in cases:
        with pytest.raises(error) as e:
            plots.sweep(saturating_sweep(), str(tmp_path / "s"), **options)
        for word in words:
            assert word in str(e.value), (options, word, str(e.value))
    runs = {"fc": ("fc", {"latency_histogram": {"latency": [10, 20], "cdf": [0.5, 1.0]}})}
    for figure in (plots.latency_cdf, plots.time_series):
        with pytest.raises(ValueError) as e:
            figure(runs, str(tmp_path / "r"), dpi=-1)
        assert "dpi = -1" in str(e.value)
    assert os.listdir(tmp_path) == []
    # Upper-case formats are matplotlib's too.
    assert plots.latency_cdf(runs, str(tmp_path / "r"), formats=("PNG",), dpi=50) == [str(tmp_path / "r-cdf.PNG")]
