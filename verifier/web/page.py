"""The status page's HTML: server-rendered, with inline SVG charts and CSS, and a few lines of
inline JavaScript that fetch the re-rendered panel every REFRESH_MS: no front-end build and no
asset files.
"""

from __future__ import annotations

import html

from verifier.web.history import HISTORY_S, StatusView

REFRESH_MS = 2000
STATUS_COLOURS = {
    "correct": "#2e7d32", "wrong": "#c62828", "no_answer": "#8d6e63",
    "compile_error": "#6a1b9a", "runtime_error": "#ef6c00", "timeout": "#f9a825",
    "memory_limit": "#00838f", "output_limit": "#5d4037", "infra_error": "#424242",
}


def _number(value: float | None, unit: str = "", digits: int = 1) -> str:
    if value is None:
        return "—"
    if abs(value) >= 1000:
        return f"{value:,.0f}{unit}"
    return f"{value:.{digits}f}{unit}" if value % 1 else f"{value:.0f}{unit}"


def _seconds(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.2f} s"


def _span_label(seconds: float) -> str:
    return f"−{seconds / 60:.0f} min" if seconds >= 120 else f"−{seconds:.0f} s"


def line_chart(points: list[tuple[float, float]], title: str, colour: str, chart_id: str,
               width: int = 560, height: int = 150) -> str:
    """An SVG line chart of (seconds ago, value): the history so far, a minute at least."""
    pad_left, pad_bottom, pad_top = 44, 18, 20
    top = max((v for _, v in points), default=0.0)
    top = top * 1.1 if top > 0 else 1.0
    span = min(HISTORY_S, max(60.0, -min((ago for ago, _ in points), default=0.0)))
    plot_w, plot_h = width - pad_left - 8, height - pad_bottom - pad_top

    def xy(ago: float, value: float) -> str:
        x = pad_left + plot_w * (1 + max(ago, -span) / span)
        y = pad_top + plot_h * (1 - value / top)
        return f"{x:.1f},{y:.1f}"

    line = " ".join(xy(ago, value) for ago, value in points)
    body = (f'<polyline id="{chart_id}-line" points="{line}" fill="none" stroke="{colour}" '
            'stroke-width="2"/>' if len(points) >= 2 else
            f'<text x="{width / 2}" y="{height / 2}" text-anchor="middle" class="muted">'
            "collecting samples…</text>")
    return (
        f'<svg id="{chart_id}" class="chart" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{html.escape(title)}">'
        f'<text x="{pad_left}" y="13" class="label">{html.escape(title)}</text>'
        f'<line x1="{pad_left}" y1="{pad_top}" x2="{pad_left}" y2="{pad_top + plot_h}" '
        'class="axis"/>'
        f'<line x1="{pad_left}" y1="{pad_top + plot_h}" x2="{width - 8}" '
        f'y2="{pad_top + plot_h}" class="axis"/>'
        f'<text x="{pad_left - 4}" y="{pad_top + 4}" text-anchor="end" class="tick">'
        f"{_number(top, digits=1)}</text>"
        f'<text x="{pad_left - 4}" y="{pad_top + plot_h}" text-anchor="end" class="tick">0</text>'
        f'<text x="{pad_left}" y="{height - 4}" class="tick">{_span_label(span)}</text>'
        f'<text x="{width - 8}" y="{height - 4}" text-anchor="end" class="tick">now</text>'
        f"{body}</svg>")


def status_bar(statuses: dict[str, float]) -> str:
    """Verdicts of the last WINDOW_S as one stacked bar, with a legend of counts."""
    total = sum(statuses.values())
    if not total:
        return '<p class="muted">no items scored in the last five minutes</p>'
    segments, legend, offset = [], [], 0.0
    for status, count in statuses.items():
        share = 100 * count / total
        colour = STATUS_COLOURS.get(status, "#9e9e9e")
        segments.append(f'<rect x="{offset:.2f}%" width="{share:.2f}%" height="18" '
                        f'fill="{colour}"><title>{html.escape(status)}: {count:.0f}</title>'
                        "</rect>")
        legend.append(f'<li><span class="dot" style="background:{colour}"></span>'
                      f'{html.escape(status)} <b data-status="{html.escape(status)}">'
                      f"{count:.0f}</b></li>")
        offset += share
    return (f'<svg class="bar" width="100%" height="18">{"".join(segments)}</svg>'
            f'<ul class="legend">{"".join(legend)}</ul>')


def render_panel(view: StatusView) -> str:
    """The live part of the page (re-fetched by the browser every REFRESH_MS)."""
    cards = [
        ("throughput", "Throughput", _number(view.throughput, " items/s")),
        ("backlog", "Queue depth", _number(view.backlog, " items")),
        ("p50", "Chunk latency p50", _seconds(view.latency_s["p50"])),
        ("p95", "p95", _seconds(view.latency_s["p95"])),
        ("p99", "p99", _seconds(view.latency_s["p99"])),
        ("workers", "Workers seen (5 min)", _number(view.workers_seen)),
        ("items", "Items scored", _number(view.items_total)),
        ("requests", "Requests", _number(view.requests_total)),
        ("rejected", "Refused (429/413)", _number(view.rejected_total)),
        ("cache", "Cache hit rate",
         "—" if view.cache_hit_rate is None else f"{100 * view.cache_hit_rate:.0f} %"),
    ]
    card_html = "".join(f'<div class="card"><div class="muted">{label}</div>'
                        f'<div class="value" id="{key}">{html.escape(value)}</div></div>'
                        for key, label, value in cards)
    return (
        f'<div class="cards">{card_html}</div>'
        '<div class="charts">'
        + line_chart([(ago, rate) for ago, rate, _ in view.series], "items/s", "#1565c0",
                     "throughput-chart")
        + line_chart([(ago, depth) for ago, _, depth in view.series], "queue depth (items)",
                     "#6a1b9a", "backlog-chart")
        + "</div><h2>Verdicts, last five minutes</h2>" + status_bar(view.statuses))


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>RLVR verifier · status</title>
<noscript><meta http-equiv="refresh" content="5"></noscript>
<style>
 body {{ font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #212121; max-width: 1200px; }}
 h1 {{ font-size: 20px; margin: 0 0 4px; }} h2 {{ font-size: 15px; margin: 20px 0 8px; }}
 .muted {{ color: #757575; }} .cards {{ display: grid; gap: 10px;
   grid-template-columns: repeat(auto-fill, minmax(170px, 1fr)); margin: 16px 0; }}
 .card {{ border: 1px solid #e0e0e0; border-radius: 8px; padding: 10px 12px; }}
 .value {{ font-size: 22px; font-weight: 600; font-variant-numeric: tabular-nums; }}
 .charts {{ display: flex; flex-wrap: wrap; gap: 16px; }}
 .chart {{ width: 560px; max-width: 100%; border: 1px solid #e0e0e0; border-radius: 8px; }}
 .axis {{ stroke: #bdbdbd; }} .tick, .label {{ font-size: 11px; fill: #757575; }}
 .bar {{ border-radius: 4px; }} .legend {{ list-style: none; padding: 0; display: flex;
   flex-wrap: wrap; gap: 14px; }} .dot {{ display: inline-block; width: 10px; height: 10px;
   border-radius: 50%; margin-right: 5px; }}
</style></head>
<body>
<h1>RLVR verifier</h1>
<div class="muted">version {version} · {mode} mode · updated every {refresh_s:g} s ·
 <a href="/metrics">/metrics</a> · <a href="/status.json">/status.json</a> ·
 <a href="/docs">API</a></div>
<main id="panel">{panel}</main>
<script>
setInterval(async () => {{
  try {{
    const reply = await fetch("/status/panel", {{cache: "no-store"}});
    if (reply.ok) document.getElementById("panel").innerHTML = await reply.text();
  }} catch (error) {{ /* the service restarts: keep the last view */ }}
}}, {refresh_ms});
</script>
</body></html>
"""


def render_page(view: StatusView) -> str:
    return PAGE.format(version=html.escape(view.version), mode=html.escape(view.mode),
                       refresh_s=REFRESH_MS / 1000, refresh_ms=REFRESH_MS,
                       panel=render_panel(view))
