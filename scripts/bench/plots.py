"""The benchmark reports' charts, drawn with matplotlib (pinned in requirements.txt; scripts/venv.sh gives a
python that has it). Every function writes one file (SVG or PNG, by the path's extension) and returns False,
writing nothing, when it has no data to draw.

SVGs are written reproducibly (fixed id salt, no date), so the same data gives the same file.
"""
import os

import matplotlib

matplotlib.use("Agg")  # no display: files only
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator  # noqa: E402

plt.rcParams.update({
    "svg.hashsalt": "dht",
    "svg.fonttype": "none",  # text stays text: smaller files that diff well
    "figure.dpi": 100,
    "font.size": 9,
    "axes.grid": True,
    "grid.color": "#dddddd",
    "axes.spines.top": False,
    "axes.spines.right": False,
})


def _fmt(v):
    if v >= 100:
        return "%.0f" % v
    if v >= 10:
        return "%.1f" % v
    if v >= 1:
        return "%.2f" % v
    return "%.3g" % v


def _save(fig, path):
    fig.tight_layout()
    meta = {"Date": None} if path.endswith(".svg") else {}
    fig.savefig(path, metadata=meta)
    plt.close(fig)
    return True


def _tail(p):
    """A percentile's place on an HDR-style axis: 50 -> 2, 90 -> 10, 99 -> 100, 99.9 -> 1000 (1 / (1 - p))."""
    return 1.0 / (1.0 - min(p, 99.999) / 100.0)


def _ms_axis(ax):
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(LogLocator(base=10))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: "%g ms" % v))


def bars(path, title, unit, groups):
    """Grouped horizontal bars with the value at the end of each: groups = [(label, [(series, value)])]."""
    groups = [(label, [(s, v) for s, v in items if v is not None]) for label, items in groups]
    groups = [g for g in groups if g[1]]
    if not groups:
        return False
    names = []
    for _, items in groups:
        for s, _v in items:
            if s not in names:
                names.append(s)
    colors = {n: "C%d" % i for i, n in enumerate(names)}
    rows = sum(len(items) for _, items in groups) + len(groups)
    fig, ax = plt.subplots(figsize=(7.5, 0.8 + 0.3 * rows))
    y, ticks, labels, seen = 0, [], [], set()
    vmax = max(v for _, items in groups for _, v in items)
    for label, items in reversed(groups):
        start = y
        for s, v in reversed(items):
            ax.barh(y, v, color=colors[s], label=None if s in seen else s)
            seen.add(s)
            ax.text(v + vmax * 0.01, y, "%s %s" % (_fmt(v), unit), va="center")
            y += 1
        ticks.append((start + y - 1) / 2.0)
        labels.append(label)
        y += 1
    ax.set_yticks(ticks, labels)
    ax.set_xlim(0, vmax * 1.25)
    ax.set_xlabel(unit)
    ax.grid(axis="y", visible=False)
    ax.set_title(title, loc="left", fontweight="bold")
    handles, hlabels = ax.get_legend_handles_labels()
    order = sorted(range(len(hlabels)), key=lambda i: names.index(hlabels[i]))
    ax.legend([handles[i] for i in order], [hlabels[i] for i in order], loc="upper left", bbox_to_anchor=(1.0, 1.0),
              frameon=False)
    return _save(fig, path)


def percentiles(path, title, series):
    """Latency (ms, log scale) by percentile (HDR-style axis): series = [(name, {percentile: ms})]."""
    series = [(n, {p: v for p, v in pts.items() if v is not None and v > 0}) for n, pts in series]
    series = [(n, pts) for n, pts in series if pts]
    if not series:
        return False
    fig, ax = plt.subplots(figsize=(7.5, 4))
    ps = sorted({p for _, pts in series for p in pts})
    for name, pts in series:
        xs = sorted(pts)
        ax.plot([_tail(p) for p in xs], [pts[p] for p in xs], marker="o", linewidth=1.8, label=name)
    ax.set_xscale("log")
    ax.set_xticks([_tail(p) for p in ps], ["p%s" % ("%g" % p) for p in ps])
    ax.minorticks_off()
    _ms_axis(ax)
    ax.set_xlabel("percentile")
    ax.set_title(title, loc="left", fontweight="bold")
    ax.legend(frameon=False, loc="upper left")
    return _save(fig, path)


def spectrum(path, title, series):
    """Latency by percentile from p0 to p99.99 and max, log-log: series = [(name, [[percentile, ms], ...])]."""
    series = [(n, [(p, v) for p, v in pts if v is not None and v > 0 and p < 100]) for n, pts in series]
    series = [(n, pts) for n, pts in series if pts]
    if not series:
        return False
    fig, ax = plt.subplots(figsize=(7.5, 4))
    for name, pts in series:
        ax.plot([_tail(p) for p, _ in pts], [v for _, v in pts], marker=".", linewidth=1.5, label=name)
    marks = [50, 90, 99, 99.9, 99.99]
    ax.set_xscale("log")
    ax.set_xticks([_tail(p) for p in marks], ["p%g" % p for p in marks])
    ax.minorticks_off()
    _ms_axis(ax)
    ax.set_xlabel("percentile")
    ax.set_title(title, loc="left", fontweight="bold")
    ax.legend(frameon=False, loc="upper left", fontsize=8)
    return _save(fig, path)


def timeseries(path, title, series, p99_threshold=None, marks=(), xlabel="seconds into the tape"):
    """Two panels over time, one line per series = [(name, rows)] (rows as runner/series.py writes them):
    the achieved rate (and the target when it is given) above, p99 (log scale) below. marks = [(name, t_s)]:
    vertical lines (e.g. a ramp's saturation point)."""
    series = [(n, rows) for n, rows in series if rows]
    if not series:
        return False
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7.5, 5), sharex=True)
    for i, (name, rows) in enumerate(series):
        color = "C%d" % i
        t = [r["t_s"] for r in rows]
        top.plot(t, [r["rps"] for r in rows], color=color, linewidth=1.5, label=name)
        if any(r.get("target_rps") is not None for r in rows):
            top.plot(t, [r.get("target_rps") for r in rows], color=color, linewidth=1, linestyle="--",
                     alpha=0.7)
        pts = [(r["t_s"], r["p99_ms"]) for r in rows if r.get("p99_ms")]
        if pts:
            bottom.plot([x for x, _ in pts], [y for _, y in pts], color=color, linewidth=1.5, label=name)
        err = [(r["t_s"], r["p99_ms"] or 1) for r in rows if (r.get("errors") or 0) + (r.get("dropped") or 0)]
        if err:
            bottom.scatter([x for x, _ in err], [y for _, y in err], color=color, marker="x", s=18)
    for name, t in marks:
        for ax in (top, bottom):
            ax.axvline(t, color="#aa0000", linewidth=1, linestyle=":")
        top.annotate(name, (t, 0), xytext=(3, 3), textcoords="offset points", color="#aa0000", fontsize=8)
    if p99_threshold:
        bottom.axhline(p99_threshold, color="#aa0000", linewidth=0.8, linestyle="--")
    top.set_ylabel("req/s (dashed: target)")
    top.set_ylim(bottom=0)
    top.set_title(title, loc="left", fontweight="bold")
    top.legend(frameon=False, loc="lower center", ncol=min(5, len(series)), fontsize=8)
    _ms_axis(bottom)
    bottom.set_ylabel("p99 per second\n(x: errors or dropped)")
    bottom.set_xlabel(xlabel)
    return _save(fig, path)


def ab_ratios(path, title, rows):
    """An A/B's ratios, one row per figure, on a log axis around 1, turned so that right is always better (a latency
    or a cost is shown as base/head): each round's ratio (dots), the median (a diamond, green when judged better, red
    when worse, grey when not separable) and the noise floor as a band [1/floor, floor].
    rows = [(label, [head/base per round], median, floor, verdict, higher_is_better)]."""
    rows = [r for r in rows if r[2] is not None]
    if not rows:
        return False
    colors = {"better": "#2a9d3a", "worse": "#c0392b"}
    fig, ax = plt.subplots(figsize=(7.5, 0.9 + 0.32 * len(rows)))
    for y, (label, ratios, med, floor, verdict, hib) in enumerate(reversed(rows)):
        if floor:
            ax.fill_betweenx([y - 0.35, y + 0.35], 1 / floor, floor, color="#e6e6e6", linewidth=0)
        turn = (lambda r: r) if hib else (lambda r: 1 / r)
        pts = [turn(r) for r in ratios if r]
        ax.scatter(pts, [y] * len(pts), color="#555555", s=10, zorder=3)
        ax.scatter([turn(med)], [y], marker="D", s=36, color=colors.get(verdict, "#999999"), zorder=4)
    ax.axvline(1.0, color="#333333", linewidth=0.8)
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: "%gx" % v))
    ax.xaxis.set_minor_formatter(FuncFormatter(lambda v, _: "%gx" % v if v in (0.7, 0.8, 0.9, 1.1, 1.2, 1.5) else ""))
    ax.set_yticks(range(len(rows)), [r[0] for r in reversed(rows)])
    ax.grid(axis="y", visible=False)
    ax.set_xlabel("head over base, right is better (throughput: head/base; latency, CPU per request: base/head)")
    ax.set_title(title, loc="left", fontweight="bold")
    return _save(fig, path)


def against_members(path, title, panels):
    """Small log-log panels of cost against cluster size, each with a dashed 'linear' guide through its first
    series' first point: panels = [(title, unit, [(series, [(members, value)])])]."""
    panels = [(t, u, [(s, [(x, v) for x, v in pts if v is not None and v > 0]) for s, pts in series])
              for t, u, series in panels]
    panels = [(t, u, [(s, pts) for s, pts in series if pts]) for t, u, series in panels]
    panels = [p for p in panels if p[2]]
    if not panels:
        return False
    cols = 3
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(10, 2.9 * rows), squeeze=False)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    for ax, (ptitle, unit, series) in zip(axes.flat, panels):
        for name, pts in series:
            ax.plot([x for x, _ in pts], [v for _, v in pts], marker="o", linewidth=1.5, label=name)
        x0, v0 = series[0][1][0]
        xs = sorted({x for _, pts in series for x, _ in pts})
        ax.plot(xs, [v0 * x / x0 for x in xs], linestyle="--", color="#999999", linewidth=1, label="linear")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xticks(xs, ["%g" % x for x in xs])
        ax.minorticks_off()
        ax.set_xlabel("members")
        ax.set_ylabel(unit)
        ax.set_title(ptitle, loc="left", fontsize=9, fontweight="bold")
        ax.legend(frameon=False, fontsize=7)
    fig.suptitle(title, x=0.01, ha="left", fontweight="bold")
    return _save(fig, path)


def side_by_side(out, name, result, side, against, title, alt, rate):
    """The two charts of a report that measures a side against another in rounds (node-report, cluster-report):
    each one's median wrk maximum per operation (OUT/NAME-throughput.svg, titled title), and each one's median
    percentiles at the reference rate (OUT/NAME-latency.svg). Returns the [(file, alt text)] drawn."""
    from harness.judge import in_rounds, median
    w, o, n = result["wrk"], result["oha"], result["rounds"]
    drawn = []
    if bars(os.path.join(out, name + "-throughput.svg"), title, "req/s",
            [(op.upper(), [(who, median(in_rounds(w, "%s-%s" % (who, op), n, "rps"))) for who in (against, side)])
             for op in ("put", "get")]):
        drawn.append((name + "-throughput.svg", alt))
    lat = []
    for ref in ("%s-%s-ref" % (who, op) for op in ("put", "get") for who in (side, against)):
        q = {p: median(in_rounds(o, ref, n, f)) for p, f in ((50, "p50_ms"), (90, "p90_ms"), (99, "p99_ms"),
                                                              (99.9, "p999_ms"))}
        if None not in q.values():
            lat.append((ref, q))
    if percentiles(os.path.join(out, name + "-latency.svg"), "Latency at %s req/s (oha, corrected)" % rate, lat):
        drawn.append((name + "-latency.svg", "latency by percentile at the reference rate"))
    return drawn
