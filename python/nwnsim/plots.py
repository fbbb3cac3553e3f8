"""Paper-ready figures of nwnsim results (matplotlib): one colour and marker
per switch organization in every figure, saturated points marked and kept out
of the y-range, legends outside the data, PDF/PNG/SVG.

The scripts/plot_*.py programs call these; from Python:

    from nwnsim import plots
    plots.sweep(json.load(open("sweep.json")), "out/curves", formats=("pdf",))
"""
import argparse
import hashlib
import math
import numbers

import matplotlib
import matplotlib.backend_bases
import matplotlib.transforms

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

FORMATS = ("png", "pdf", "svg")

# One colour and marker per organization, the same in every figure.
_PALETTE = plt.get_cmap("tab20").colors
ORG_STYLE = {
    "cn": ("#000000", "o"), "hc": ("#7f7f7f", "s"), "fc": ("#1f77b4", "^"), "fc5": ("#aec7e8", "v"),
    "fc6": ("#17becf", "<"), "fc5-isu2": ("#2ca02c", ">"), "fc6-isu2": ("#98df8a", "D"),
    "trv": ("#d62728", "p"), "trm": ("#ff9896", "h"), "hxv": ("#9467bd", "P"), "hxm": ("#c5b0d5", "X"),
    "hx05": ("#ff7f0e", "d"), "hx10": ("#ffbb78", "*"), "bb": ("#8c564b", "8"),
}
_MARKERS = "os^vD<>ph*PXd8"
# Saturated points: a cross in the curve's colour, or a triangle on the top edge when off scale
# (the legend shows both in grey). Off-scale triangles at one load stack down
# from the top edge, OFF_SCALE_STEP points apart, so each stays visible.
SATURATED = dict(marker="x", color="#444444", markersize=7, markeredgewidth=1.5, linestyle="none", zorder=5)
OFF_SCALE = dict(SATURATED, marker="v", markersize=6, markeredgewidth=0.5, markeredgecolor="black", clip_on=False)
OFF_SCALE_STEP = 6.5

# Readable names of config keys and values in labels.
KEY_NAMES = {
    "router.org": "", "router.vcs": "VCs", "router.radix": "radix", "traffic.pattern": "",
    "network.routing": "", "router.vc_depth_flits": "VC depth", "traffic.packet_flits": "packet flits",
    "network.topology": "", "router.subswitch_radix": "subswitch radix", "network.hyperx_s": "S",
}
PATTERN_NAMES = {
    "uniform": "uniform random", "bitcomp": "bit complement", "bitrot": "bit rotation", "bitrev": "bit reverse",
    "transpose": "transpose", "transpose_random": "random transpose", "worst_case": "worst case",
}


def org_style(org):
    """(colour, marker) of an organization; unknown names get a fixed pick by name."""
    if org in ORG_STYLE:
        return ORG_STYLE[org]
    h = int(hashlib.md5(str(org).encode()).hexdigest(), 16)
    return _PALETTE[h % len(_PALETTE)], _MARKERS[h % len(_MARKERS)]


def value_name(key, value):
    if key == "traffic.pattern":
        return PATTERN_NAMES.get(str(value), str(value))
    name = KEY_NAMES.get(key, key.split(".")[-1].replace("_", " "))
    return f"{name} {value}" if name else str(value)


def setup(size=None):
    plt.rcParams.update({"font.size": 9, "axes.titlesize": 10, "axes.labelsize": 9, "legend.fontsize": 8,
                         "xtick.labelsize": 8, "ytick.labelsize": 8, "savefig.bbox": "tight"})
    fig, ax = plt.subplots(figsize=size or (5.5, 3.6))
    ax.grid(alpha=0.3)
    return fig, ax


def _check_output(formats, size, dpi):
    """Checked before drawing, so that a wrong option writes no file."""
    if not isinstance(formats, (list, tuple)):
        raise TypeError(f"formats = {formats!r} ({type(formats).__name__}): must be a list or tuple of file "
                        "formats, e.g. ('pdf',)")
    allowed = matplotlib.backend_bases.FigureCanvasBase.get_supported_filetypes()
    bad = [f for f in formats if not isinstance(f, str) or f.lower() not in allowed]
    if bad or not formats:
        raise ValueError(f"formats = {formats!r}: " + (f"{bad[0]!r} is not one matplotlib writes; " if bad else "") +
                         f"must be one or more of: {', '.join(sorted(allowed))}")
    inches = list(size) if isinstance(size, (list, tuple)) else []
    if size is not None and (len(inches) != 2 or not all(_positive(x) for x in inches)):
        raise ValueError(f"size = {size!r}: must be (WIDTH, HEIGHT) in inches, both above 0, e.g. (5.5, 3.6)")
    if not _positive(dpi):
        raise ValueError(f"dpi = {dpi!r}: must be a number of dots per inch above 0, e.g. 200")


def _positive(x):
    return isinstance(x, numbers.Real) and not isinstance(x, bool) and x > 0


def save(fig, path_without_ext, formats=FORMATS, dpi=200):
    """Writes path.png/.pdf/.svg; returns the paths."""
    out = []
    for ext in formats:
        out.append(f"{path_without_ext}.{ext}")
        fig.savefig(out[-1], dpi=dpi, bbox_inches="tight")
    plt.close(fig)
    return out


def legend_outside(ax, extra=()):
    handles, labels = ax.get_legend_handles_labels()
    for h, lab in extra:
        handles.append(h)
        labels.append(lab)
    if handles:
        ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0, frameon=False)


def y_range_of(values, floor=None):
    """Limits that show `values` (the unsaturated points) with a margin."""
    values = [v for v in values if v is not None and math.isfinite(v)]
    if not values:
        return None
    lo, hi = min(values), max(values)
    if floor is not None:
        lo = min(lo, floor)
    pad = 0.08 * (hi - lo or abs(hi) or 1.0)
    return (lo - pad if floor is None else floor, hi + pad)


def sweep_curves(data):
    """{label: (org, [(load, results), ...])} from `nwnsim sweep --json` output."""
    config = data["config"]
    trace = config.get("traffic.source") == "trace"
    curves = {}
    for p in data["points"]:
        if "results" not in p:
            continue
        s = dict(p["set"])
        load = float(s.pop("traffic.load", config.get("traffic.load")))
        if trace:
            s.pop("traffic.trace_time_scale", None)
            load = p["results"]["offered_load_measured"]
        org = s.get("router.org", config.get("router.org"))
        label = ", ".join(value_name(k, v) for k, v in s.items()) or str(org)
        curves.setdefault(label, (org, []))[1].append((load, p["results"]))
    for _, pts in curves.values():
        pts.sort(key=lambda x: x[0])
    return curves


# The figures sweep() draws by name: (results field, y label).
METRICS = {
    "latency": ("latency_avg", "average packet latency (cycles)"),
    "throughput": ("accepted_load", "accepted load (fraction of capacity)"),
    "power": ("power.switch_power_w", "switch power of all routers (W)"),
    "p99": ("latency_p99", "99th-percentile packet latency (cycles)"),
    "network-latency": ("network_latency_avg", "average network latency (cycles)"),
    "hops": ("hops_avg", "average hops"),
    "fairness": ("fairness.by_source.jain_index", "Jain's fairness index of accepted load per source"),
    "min-node": ("accepted_min_node", "accepted load of the least served node"),
    "util-avg": ("utilization.router_port_avg", "average utilization of router output channels"),
    "util-max": ("utilization.router_port_max", "utilization of the busiest router output channel"),
}


def field(results, path):
    """The value at a dotted path of a results dict ("power.switch_power_w"), or None."""
    v = results
    for part in path.split("."):
        if isinstance(v, dict) and part in v:
            v = v[part]
        elif isinstance(v, list) and part.isdigit() and int(part) < len(v):
            v = v[int(part)]
        else:
            return None
    return v


def interval(results, path):
    """The half-width of the 95 % interval of a figure over seeds (0 without seeds)."""
    f = results.get("confidence", {}).get("figures", {}).get(path, {})
    return f.get("ci95", 0.0)


def sweep(data, prefix, formats=FORMATS, size=None, dpi=200, title=None, metrics=None):
    """Latency, throughput (and power, for networks) against offered load, or
    the `metrics` named (METRICS' names, or any results field by its dotted
    path). Points over seeds carry their 95 % interval as error bars.
    Writes PREFIX-METRIC.FORMAT (PREFIX-{latency,throughput[,power]} by
    default); returns the paths."""
    _check_output(formats, size, dpi)
    if metrics is not None and (isinstance(metrics, str) or not all(isinstance(m, str) for m in metrics)):
        raise TypeError(f"metrics = {metrics!r}: must be a list of names, e.g. ['latency', 'p99']")
    curves = sweep_curves(data)
    every = [r for _, pts in curves.values() for _, r in pts]
    if metrics is None:
        metrics = ["latency", "throughput"] + (["power"] if every and all("power" in r for r in every) else [])
    chosen = []
    for m in metrics:
        path, ylabel = METRICS.get(m, (m, m))
        if every and all(not isinstance(field(r, path), (int, float)) for r in every):
            raise ValueError(f"metric {m!r}: no point has a number at results.{path}")
        chosen.append((m.replace(".", "-"), ylabel, path))
    # Curves of one organization that differ in another key: one line style each.
    styles = ["-", "--", ":", "-."]
    seen_org = {}
    out = []
    for metric, ylabel, path in chosen:
        fig, ax = setup(size)
        unsaturated, saturated = [], []
        seen_org.clear()
        with_intervals = False
        for label, (org, pts) in curves.items():
            colour, marker = org_style(org)
            ls = styles[seen_org.get(org, 0) % len(styles)]
            seen_org[org] = seen_org.get(org, 0) + 1
            pts = [(x, r) for x, r in pts if isinstance(field(r, path), (int, float))]
            ok = [(x, field(r, path)) for x, r in pts if not r["saturated"]]
            ax.plot([x for x, _ in ok], [y for _, y in ok], color=colour, marker=marker, linestyle=ls,
                    markersize=4, label=label)
            errors = [interval(r, path) for x, r in pts if not r["saturated"]]
            if any(errors):
                with_intervals = True
                ax.errorbar([x for x, _ in ok], [y for _, y in ok], yerr=errors, fmt="none", ecolor=colour,
                            elinewidth=0.8, capsize=2)
            unsaturated += [y + e for (_, y), e in zip(ok, errors)]
            sat = [(x, field(r, path)) for x, r in pts if r["saturated"]]
            if sat:
                # A dotted line on to the saturated points, which are marked.
                last = ok[-1:] if ok and ok[-1][0] < sat[0][0] else []
                ax.plot([x for x, _ in last + sat], [y for _, y in last + sat], color=colour, linestyle=":",
                        linewidth=1)
                saturated += [(x, y, colour) for x, y in sat]
        extra = []
        if metric == "throughput":
            loads = [x for _, pts in curves.values() for x, _ in pts]
            if loads:
                top = max(loads)
                ax.plot([0, top], [0, top], color="#bbbbbb", linewidth=0.8, zorder=0, label="accepted = offered")
            ax.set_ylim(0, None)
        else:
            limits = y_range_of(unsaturated, floor=0)
            if limits:
                ax.set_ylim(*limits)
        top = ax.get_ylim()[1]
        for x, y, colour in saturated:
            if y <= top:
                ax.plot([x], [y], **dict(SATURATED, color=colour))
        draw_off_scale(ax, [(x, colour) for x, y, colour in saturated if y > top], top)
        if any(y <= top for _, y, _ in saturated):
            extra.append((plt.Line2D([], [], **SATURATED), "saturated"))
        if any(y > top for _, y, _ in saturated):
            extra.append((plt.Line2D([], [], **OFF_SCALE), "saturated, off scale"))
        if with_intervals:
            seeds = next(len(r["confidence"]["seeds"]) for r in every if "confidence" in r)
            extra.append((plt.Line2D([], [], color="#444444", marker="|", markersize=8, linestyle="none"),
                          f"95 % interval, {seeds} seeds"))
        ax.set_xlabel("offered load (fraction of capacity)")
        ax.set_ylabel(ylabel)
        ax.set_xlim(0, None)
        if title:
            ax.set_title(title)
        legend_outside(ax, extra)
        out += save(fig, f"{prefix}-{metric}", formats, dpi)
    return out


def draw_off_scale(ax, points, top):
    """Saturated points above the y-range, [(x, colour), ...] in curve order:
    a triangle in the curve's colour pointing down from the top edge; the
    k-th at one load sits k steps lower, so points of several curves at the
    same load do not hide each other. Returns the offsets in points (tests)."""
    offsets, at_x = [], {}
    for x, colour in points:
        k = at_x.get(x, 0)
        at_x[x] = k + 1
        shift = matplotlib.transforms.offset_copy(ax.transData, fig=ax.figure, x=0, y=-k * OFF_SCALE_STEP,
                                                  units="points")
        ax.plot([x], [top], transform=shift, **dict(OFF_SCALE, color=colour))
        offsets.append(-k * OFF_SCALE_STEP)
    return offsets


def compare(data, prefix, formats=FORMATS, size=None, dpi=200):
    """Energy, EDP and EDAP per packet relative to the reference organization,
    one group of bars per traffic pattern. Saturated points (their latency is
    the drain cap's, not the switch's) are hatched, clipped to the axis and
    labelled with their value; over seeds, error bars show the 95 % interval.
    Writes PREFIX-{energy,edp,edap}.FORMAT."""
    _check_output(formats, size, dpi)
    points = data["points"]
    patterns = list(dict.fromkeys(p["pattern"] for p in points))
    orgs = list(dict.fromkeys(p["org"] for p in points))
    by = {(p["org"], p["pattern"]): p for p in points}
    ref = data.get("reference", "hc")
    out = []
    for metric, label in (("energy", "energy per packet"), ("edp", "EDP"), ("edap", "EDAP")):
        fig, ax = setup(size or (max(6.0, 0.18 * len(patterns) * len(orgs) + 1.5), 3.4))
        width = 0.8 / max(1, len(orgs))
        unsaturated = [p["relative"][metric] + interval(p, f"relative.{metric}") for p in points
                       if "relative" in p and not p["results"]["saturated"]]
        top = (y_range_of(unsaturated, floor=0) or (0, 2))[1]
        any_saturated = any_interval = False
        for i, org in enumerate(orgs):
            colour, _ = org_style(org)
            for j, pat in enumerate(patterns):
                p = by.get((org, pat))
                if not p or "relative" not in p:
                    continue
                v = p["relative"][metric]
                x = j + (i - (len(orgs) - 1) / 2) * width
                sat = p["results"]["saturated"]
                any_saturated |= sat
                ax.bar(x, min(v, top), width, color=colour, label=org if j == 0 else None,
                       hatch="////" if sat else None, edgecolor="white" if not sat else "black", linewidth=0.3)
                ci = interval(p, f"relative.{metric}")
                if ci and not sat:
                    any_interval = True
                    # Black on light bars, white on dark ones (cn's).
                    light = sum(matplotlib.colors.to_rgb(colour)) > 1.2
                    ax.errorbar([x], [v], yerr=[ci], fmt="none", ecolor="black" if light else "white",
                                elinewidth=0.7, capsize=1.5)
                if sat:
                    ax.text(x, 0.97 * min(v, top), f"{v:.3g}", rotation=90, ha="center", va="top", fontsize=6.5,
                            bbox=dict(facecolor="white", edgecolor="none", pad=0.6))
        ax.set_xticks(range(len(patterns)))
        ax.set_xticklabels([PATTERN_NAMES.get(p, p) for p in patterns])
        ax.axhline(1.0, color="black", linewidth=0.6)
        ax.set_ylim(0, top)
        ax.set_ylabel(f"{label} relative to {ref}")
        cfg = data["config"]
        ax.set_title(f"{label}, radix {cfg['router.radix']}, offered load {cfg['traffic.load']}")
        ax.grid(alpha=0.3, axis="y")
        ax.grid(False, axis="x")
        extra = []
        if any_saturated:
            extra.append((plt.Rectangle((0, 0), 1, 1, facecolor="white", edgecolor="black", hatch="////"),
                          "saturated (value printed)"))
        if any_interval:
            extra.append((plt.Line2D([], [], color="black", marker="|", markersize=8, linestyle="none"),
                          f"95 % interval, {len(data['seeds'])} seeds"))
        legend_outside(ax, extra)
        out += save(fig, f"{prefix}-{metric}", formats, dpi)
    return out


def complexity(data, prefix, formats=FORMATS, size=None, dpi=200):
    """Fig. 5: buffers, aggregate fanout, crosspoints and area relative to the
    reference against radix (`nwnsim complexity --radices ... --json`).
    Writes PREFIX-complexity.FORMAT."""
    _check_output(formats, size, dpi)
    rows = data["rows"] if isinstance(data, dict) else data
    panels = [("rel_subswitch_buffers", "buffers"), ("rel_aggregate_fanout", "aggregate fanout"),
              ("rel_crosspoints", "crosspoints"), ("rel_area", "area")]
    plt.rcParams.update({"font.size": 9, "legend.fontsize": 8})
    fig, axes = plt.subplots(1, 4, figsize=size or (11, 2.9), sharex=True)
    orgs = list(dict.fromkeys(r["org"] for r in rows))
    radices = sorted({r["radix"] for r in rows})
    for ax, (key, name) in zip(axes, panels):
        for org in orgs:
            pts = sorted((r["radix"], r[key]) for r in rows if r["org"] == org and key in r)
            colour, marker = org_style(org)
            ax.plot([x for x, _ in pts], [y for _, y in pts], color=colour, marker=marker, markersize=4, label=org)
        ax.set_xscale("log", base=2)
        ax.set_xticks(radices)
        ax.set_xticklabels([str(k) for k in radices])
        ax.minorticks_off()
        ax.set_yscale("log")
        ax.set_title(name)
        ax.set_xlabel("radix")
        ax.grid(alpha=0.3, which="both")
    axes[0].set_ylabel("relative to hc")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False)
    fig.tight_layout()
    return save(fig, f"{prefix}-complexity", formats, dpi)


def crossing(data, prefix, formats=FORMATS, size=None, dpi=200):
    """Fig. 10: the fraction of packets crossing each router's bisection, one
    bar per sweep point (`sweep --set sim.heatmap=true --json`)."""
    _check_output(formats, size, dpi)
    labels, fractions, orgs = [], [], []
    cfg = data.get("config", {})
    for p in data["points"]:
        h = p.get("results", {}).get("heatmap")
        if h is None:
            raise ValueError("a point has no results.heatmap (run the sweep with --set sim.heatmap=true)")
        labels.append(", ".join(value_name(k, v) for k, v in p["set"].items()) or cfg.get("router.org", ""))
        fractions.append(h["bisection_crossing_fraction"])
        orgs.append(p["set"].get("router.org", cfg.get("router.org")))
    fig, ax = setup(size or (max(4.0, 0.9 * len(labels) + 1.5), 3.4))
    ax.bar(range(len(labels)), fractions, color=[org_style(o)[0] for o in orgs])
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=30, ha="right")
    ax.set_ylim(0, 1)
    ax.set_ylabel("packets crossing the\nrouter bisection (fraction)")
    what = cfg.get("network.topology", "network")
    if what == "hyperx":
        what = f"HyperX S={cfg.get('network.hyperx_s')}, T={cfg.get('network.hyperx_t')}"
    ax.set_title(f"{what}, {value_name('traffic.pattern', cfg.get('traffic.pattern', ''))}")
    ax.grid(alpha=0.3, axis="y")
    return labels, fractions, save(fig, f"{prefix}-crossing", formats, dpi)


def heatmap(rows, router, prefix, formats=FORMATS, size=None, dpi=200):
    """Packets from each input port to each output port of one router
    (rows of `run --heatmap` CSV as dicts)."""
    _check_output(formats, size, dpi)
    rows = [r for r in rows if int(r["router"]) == router]
    if not rows:
        raise ValueError(f"router {router} has no packets")
    k = max(max(int(r["input"]), int(r["output"])) for r in rows) + 1
    grid = [[0] * k for _ in range(k)]
    for r in rows:
        grid[int(r["input"])][int(r["output"])] = int(r["packets"])
    fig, ax = setup(size or (4.6, 3.9))
    ax.grid(False)
    im = ax.imshow(grid, cmap="viridis", origin="upper")
    ax.set_xlabel("output port")
    ax.set_ylabel("input port")
    ax.set_title(f"router {router}: packets per port pair")
    fig.colorbar(im, ax=ax, label="packets")
    return save(fig, prefix, formats, dpi)


def utilization(data, prefix, formats=FORMATS, size=None, dpi=200):
    """Channel utilization of every router output port in the window (rows:
    routers, columns: ports; results.utilization of a `run --json`, any
    topology), with the busiest port named. Writes PREFIX-utilization.FORMAT."""
    _check_output(formats, size, dpi)
    u = data["results"]["utilization"]
    grid = u["router_ports"]
    routers, ports = len(grid), max(len(r) for r in grid)
    fig, ax = setup(size or (min(10.0, max(4.5, 2.5 + 0.12 * ports)), min(8.0, max(3.2, 1.8 + 0.06 * routers))))
    ax.grid(False)
    im = ax.imshow([r + [float("nan")] * (ports - len(r)) for r in grid], cmap="viridis", vmin=0, vmax=1,
                   aspect="auto", interpolation="nearest", origin="upper")
    ax.set_xlabel("output port")
    ax.set_ylabel("router")
    cfg = data["config"]
    ax.set_title(f"{cfg['network.topology']}, {value_name('traffic.pattern', cfg['traffic.pattern'])}, "
                 f"load {cfg['traffic.load']}\nbusiest: router {u['busiest_router']}, port {u['busiest_port']} "
                 f"({u['router_port_max']:.2f})")
    fig.colorbar(im, ax=ax, label="utilization (fraction of the window)")
    return save(fig, f"{prefix}-utilization", formats, dpi)


def _line_styles(runs):
    """A line style per run: curves of one organization differ by style."""
    styles, seen, out = ["-", "--", ":", "-."], {}, []
    for org, _ in runs.values():
        out.append(styles[seen.get(org, 0) % len(styles)])
        seen[org] = seen.get(org, 0) + 1
    return out


def runs_of(results_files):
    """{label: (org, results)} of runs for latency_cdf and time_series from
    JSON results (`run --json` files, each point of a `sweep --json`), and
    the measurement window (first, last cycle) when every run has the same."""
    runs, windows = {}, set()
    for data in results_files:
        cfg = data["config"]
        if data.get("nwnsim") == "sweep":
            items = [(p["set"], p["results"]) for p in data["points"] if "results" in p]
        elif data.get("nwnsim") == "run":
            items = [({}, data["results"])]
        else:
            raise ValueError(f"not a run or sweep result (nwnsim = {data.get('nwnsim')!r})")
        for s, r in items:
            c = dict(cfg, **s)
            if c.get("traffic.source") == "trace" or c.get("traffic.mode") == "batch":
                windows.add(None)
            else:
                w = int(c["sim.warmup_cycles"])
                windows.add((w, w + int(c["sim.measure_cycles"])))
            label = ", ".join(value_name(k, v) for k, v in s.items()) or \
                f"{c['router.org']}, {value_name('traffic.pattern', c['traffic.pattern'])}, load {c['traffic.load']}"
            while label in runs:
                label += "'"
            runs[label] = (c.get("router.org"), r)
    return runs, (windows.pop() if len(windows) == 1 else None)


def latency_cdf(runs, prefix, formats=FORMATS, size=None, dpi=200):
    """CDF of packet latency of each run: {label: (org, results)}
    (results.latency_histogram; over seeds, the pooled histogram).
    Writes PREFIX-cdf.FORMAT."""
    _check_output(formats, size, dpi)
    fig, ax = setup(size)
    for (label, (org, r)), ls in zip(runs.items(), _line_styles(runs)):
        h = r["latency_histogram"]
        colour, _ = org_style(org)
        ax.step(h["latency"], h["cdf"], where="post", color=colour, linestyle=ls, label=label)
    ax.set_xlabel("packet latency (cycles)")
    ax.set_ylabel("fraction of packets")
    ax.set_ylim(0, 1.02)
    legend_outside(ax)
    return save(fig, f"{prefix}-cdf", formats, dpi)


def time_series(runs, prefix, formats=FORMATS, size=None, dpi=200, window=None):
    """Latency and accepted load per interval of each run: {label: (org,
    results)} (results.time_series); `window` (first, last cycle) marks the
    measurement window. Writes PREFIX-series-{latency,accepted}.FORMAT."""
    _check_output(formats, size, dpi)
    out = []
    for metric, ylabel in (("latency_avg", "latency of packets delivered (cycles)"),
                           ("accepted_load", "accepted load (fraction of capacity)")):
        fig, ax = setup(size)
        for (label, (org, r)), ls in zip(runs.items(), _line_styles(runs)):
            t = r["time_series"]
            colour, marker = org_style(org)
            # Intervals without deliveries (the drain's end) have no latency.
            pts = [(c, v) for c, v, n in zip(t["cycle"], t[metric], t["packets"]) if n or metric != "latency_avg"]
            ax.plot([c for c, _ in pts], [v for _, v in pts], color=colour, marker=marker, markersize=3,
                    linestyle=ls, label=label, drawstyle="steps-post")
        extra = []
        if window:
            for c in window:
                ax.axvline(c, color="#888888", linewidth=0.8, linestyle="--")
            extra.append((plt.Line2D([], [], color="#888888", linewidth=0.8, linestyle="--"),
                          "measurement window"))
        ax.set_xlabel("cycle")
        ax.set_ylabel(ylabel)
        ax.set_ylim(0, None)
        legend_outside(ax, extra)
        out += save(fig, f"{prefix}-series-{metric.split('_')[0]}", formats, dpi)
    return out


def arguments(description, positional, metric=False):
    """The command line of a plot script: its positional arguments, then
    --format, --size and --dpi (and --metric when `metric`)."""
    ap = argparse.ArgumentParser(description=description)
    for name, help_text in positional:
        if name.endswith("..."):
            ap.add_argument(name[:-3], nargs="+", help=help_text)
        else:
            ap.add_argument(name, help=help_text)
    if metric:
        ap.add_argument("--metric", help="comma-separated figures to draw: " + ", ".join(METRICS) +
                        ", or any results field by its dotted path (default: latency, throughput and, for "
                        "networks, power)")
    ap.add_argument("--format", default=",".join(FORMATS),
                    help="comma-separated output formats (default: %(default)s)")
    ap.add_argument("--size", help="figure size in inches, WIDTH,HEIGHT")
    ap.add_argument("--dpi", type=int, default=200, help="resolution of PNG output (default: %(default)s)")
    args = ap.parse_args()
    if metric:
        args.metric = [m.strip() for m in args.metric.split(",") if m.strip()] if args.metric else None
    args.formats = tuple(f.strip() for f in args.format.split(",") if f.strip())
    bad = [f for f in args.formats if f not in ("png", "pdf", "svg", "eps", "jpg")]
    if bad or not args.formats:
        ap.error(f"--format {args.format!r}: allowed png, pdf, svg, eps, jpg")
    if args.size:
        try:
            w, h = (float(x) for x in args.size.split(","))
            args.size = (w, h)
        except ValueError:
            ap.error(f"--size {args.size!r}: expected WIDTH,HEIGHT in inches, e.g. 5.5,3.6")
    return args
