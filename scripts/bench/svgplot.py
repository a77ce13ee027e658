"""Two small SVG charts for the benchmark reports, standard library only (no matplotlib on a fresh machine).

bars(path, title, unit, groups)          grouped horizontal bars: groups = [(label, [(series, value), ...]), ...]
percentiles(path, title, series)         latency by percentile, log scale: series = [(name, {50: ms, 99: ms, ...})]
"""
import math
from xml.sax.saxutils import escape

PALETTE = ["#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377", "#bbbbbb"]
FONT = 'font-family="sans-serif" font-size="12"'


def _svg(width, height, body):
    return ('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">\n'
            '<rect width="100%%" height="100%%" fill="white"/>\n%s\n</svg>\n' % (width, height, width, height,
                                                                                "\n".join(body)))


def _text(x, y, s, anchor="start", extra=""):
    return '<text x="%.1f" y="%.1f" text-anchor="%s" %s %s>%s</text>' % (x, y, anchor, FONT, extra, escape(str(s)))


def _nice_max(v):
    if v <= 0:
        return 1
    mag = 10 ** math.floor(math.log10(v))
    for step in (1, 2, 2.5, 5, 10):
        if v <= step * mag:
            return step * mag
    return 10 * mag


def _colors(names):
    order = []
    for n in names:
        if n not in order:
            order.append(n)
    return {n: PALETTE[i % len(PALETTE)] for i, n in enumerate(order)}


def _legend(body, colors, x, y):
    for i, (name, color) in enumerate(colors.items()):
        body.append('<rect x="%.1f" y="%.1f" width="12" height="12" fill="%s"/>' % (x, y + i * 18, color))
        body.append(_text(x + 18, y + i * 18 + 10, name))


def bars(path, title, unit, groups):
    """Grouped horizontal bars, value printed at the end of each bar."""
    groups = [(label, [(s, v) for s, v in items if v is not None]) for label, items in groups]
    groups = [g for g in groups if g[1]]
    if not groups:
        return False
    colors = _colors(s for _, items in groups for s, _ in items)
    vmax = _nice_max(max(v for _, items in groups for _, v in items))
    left, bar_h, gap, plot_w = 110, 18, 14, 460
    height = 40 + sum(len(items) * bar_h + gap for _, items in groups) + 10
    width = left + plot_w + 220
    body = [_text(10, 22, title, extra='font-weight="bold"')]
    y = 40
    for label, items in groups:
        body.append(_text(left - 8, y + len(items) * bar_h / 2 + 4, label, "end"))
        for series, v in items:
            w = plot_w * v / vmax
            body.append('<rect x="%d" y="%.1f" width="%.1f" height="%d" fill="%s"/>'
                        % (left, y, w, bar_h - 3, colors[series]))
            body.append(_text(left + w + 4, y + bar_h - 6, "%s %s" % (_fmt(v), unit)))
            y += bar_h
        y += gap
    body.append('<line x1="%d" y1="36" x2="%d" y2="%.1f" stroke="#333"/>' % (left, left, y - gap + 4))
    _legend(body, colors, left + plot_w + 110, 40)
    return _write(path, _svg(width, height, body))


def percentiles(path, title, series):
    """Latency (ms, log scale) against percentile (50 .. 99.9, spaced as -log10(1 - p))."""
    series = [(n, {p: v for p, v in pts.items() if v is not None and v > 0}) for n, pts in series]
    series = [(n, pts) for n, pts in series if pts]
    if not series:
        return False
    colors = _colors(n for n, _ in series)
    values = [v for _, pts in series for v in pts.values()]
    lo = 10 ** math.floor(math.log10(min(values)))
    hi = 10 ** math.ceil(math.log10(max(values)))
    if hi <= lo:
        hi = lo * 10
    left, top, plot_w, plot_h = 70, 40, 440, 260
    width, height = left + plot_w + 220, top + plot_h + 50

    def px(p):
        x = -math.log10(1 - p / 100.0)  # 50 -> 0.30, 90 -> 1, 99 -> 2, 99.9 -> 3
        return left + plot_w * (x - 0.30103) / (3 - 0.30103)

    def py(v):
        return top + plot_h * (1 - (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo)))

    body = [_text(10, 22, title, extra='font-weight="bold"')]
    body.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#333"/>'
                % (left, top, plot_w, plot_h))
    decade = lo
    while decade <= hi * 1.0001:
        y = py(decade)
        body.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>' % (left, y, left + plot_w, y))
        body.append(_text(left - 6, y + 4, "%s ms" % _fmt(decade), "end"))
        decade *= 10
    for p in (50, 75, 90, 99, 99.9):
        x = px(p)
        body.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>' % (x, top, x, top + plot_h))
        body.append(_text(x, top + plot_h + 18, "p%s" % _fmt(p), "middle"))
    for name, pts in series:
        coords = [(px(p), py(v)) for p, v in sorted(pts.items())]
        body.append('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>'
                    % (colors[name], " ".join("%.1f,%.1f" % c for c in coords)))
        for x, y in coords:
            body.append('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>' % (x, y, colors[name]))
    _legend(body, colors, left + plot_w + 20, top)
    return _write(path, _svg(width, height, body))


def _fmt(v):
    if v >= 100:
        return "%.0f" % v
    if v >= 10:
        return "%.1f" % v if v != int(v) else "%d" % v
    return ("%.3f" % v).rstrip("0").rstrip(".")


def _write(path, text):
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    return True
