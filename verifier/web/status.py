"""The status page at `/`: live throughput, queue depth, latency, verdicts and workers seen.

What an operator keeps open in a browser tab. Server-rendered HTML with inline SVG charts and a
few lines of inline JavaScript that fetch the re-rendered panel every two seconds: no front-end
build and no asset files. The numbers are this API process's own Prometheus metrics (exactly
what `/metrics` serves), sampled every SAMPLE_EVERY_S into a short in-memory history so that
rates and "the last five minutes" need no Prometheus server. `/status.json` is the same view
for scripts.

Mounted by the app factory with `app.include_router(status.router)`; the router's lifespan
starts the sampler.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import math
import time
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse
from prometheus_client import REGISTRY, CollectorRegistry

from verifier import __version__

SAMPLE_EVERY_S = 2.0
HISTORY_S = 600.0  # what the charts show
WINDOW_S = 300.0  # verdicts and latency percentiles are over this
RATE_WINDOW_S = 10.0  # "throughput now"
WORKER_FRESH_S = 300.0  # a worker counts as seen if it returned a chunk this recently
REFRESH_MS = 2000
QUANTILES = (0.5, 0.95, 0.99)
STATUS_COLOURS = {
    "correct": "#2e7d32", "wrong": "#c62828", "no_answer": "#8d6e63",
    "compile_error": "#6a1b9a", "runtime_error": "#ef6c00", "timeout": "#f9a825",
    "memory_limit": "#00838f", "output_limit": "#5d4037", "infra_error": "#424242",
}


@dataclass(frozen=True)
class Sample:
    """The cumulative counters and the gauges of the metrics registry at one instant."""

    at: float
    items_by_status: dict[str, float]
    requests: float
    rejected: float
    backlog: float
    latency_buckets: tuple[tuple[float, float], ...]  # (upper bound in s, cumulative count)
    cache_hits: float
    cache_misses: float
    workers_last_seen: dict[str, float]

    @property
    def items(self) -> float:
        return sum(self.items_by_status.values())


def take_sample(registry: CollectorRegistry = REGISTRY, now: float | None = None) -> Sample:
    """Read the service's metrics (summed over kinds, routes and modes) from `registry`."""
    items: dict[str, float] = {}
    buckets: dict[float, float] = {}
    workers: dict[str, float] = {}
    scalars = {"verifier_requests_total": 0.0, "verifier_rejected_total": 0.0,
               "verifier_backlog_items": 0.0, "verifier_cache_hits_total": 0.0,
               "verifier_cache_misses_total": 0.0}
    for family in registry.collect():
        for sample in family.samples:
            name, labels, value = sample.name, sample.labels, sample.value
            if name == "verifier_items_total":
                items[labels["status"]] = items.get(labels["status"], 0.0) + value
            elif name == "verifier_chunk_seconds_bucket":
                bound = float(labels["le"])
                buckets[bound] = buckets.get(bound, 0.0) + value
            elif name == "verifier_worker_last_seen_seconds":
                workers[labels["worker"]] = value
            elif name in scalars:
                scalars[name] += value
    return Sample(at=time.time() if now is None else now, items_by_status=items,
                  requests=scalars["verifier_requests_total"],
                  rejected=scalars["verifier_rejected_total"],
                  backlog=scalars["verifier_backlog_items"],
                  latency_buckets=tuple(sorted(buckets.items())),
                  cache_hits=scalars["verifier_cache_hits_total"],
                  cache_misses=scalars["verifier_cache_misses_total"],
                  workers_last_seen=workers)


def histogram_quantile(q: float, buckets: tuple[tuple[float, float], ...]) -> float | None:
    """Prometheus's estimate: linear interpolation inside the bucket that holds the rank."""
    if not buckets or buckets[-1][1] <= 0:
        return None
    rank = q * buckets[-1][1]
    lower, below = 0.0, 0.0
    for bound, count in buckets:
        if count >= rank:
            if math.isinf(bound):
                return lower  # past the last finite bucket: its bound is all that is known
            inside = count - below
            return lower + (bound - lower) * ((rank - below) / inside if inside else 1.0)
        lower, below = bound, count
    return lower


@dataclass
class StatusView:
    """Everything the page shows, derived from the sample history."""

    version: str
    mode: str
    throughput: float  # items/s over the last RATE_WINDOW_S
    backlog: float
    items_total: float
    requests_total: float
    rejected_total: float
    cache_hit_rate: float | None
    latency_s: dict[str, float | None]  # chunk latency percentiles over WINDOW_S
    statuses: dict[str, float]  # verdicts over WINDOW_S
    workers_seen: int | None
    series: list[tuple[float, float, float]]  # (seconds ago, items/s, backlog)


class StatusHistory:
    """Samples of the last HISTORY_S, taken every SAMPLE_EVERY_S by `run`."""

    def __init__(self, registry: CollectorRegistry = REGISTRY) -> None:
        self.registry = registry
        self.samples: deque[Sample] = deque(maxlen=int(HISTORY_S / SAMPLE_EVERY_S) + 1)

    async def run(self) -> None:
        while True:
            self.samples.append(take_sample(self.registry))
            await asyncio.sleep(SAMPLE_EVERY_S)

    def view(self, mode: str) -> StatusView:
        """The view as of now: the history plus a fresh sample, so numbers are never stale."""
        current = take_sample(self.registry)
        samples = [*self.samples, current]

        def since(seconds: float) -> Sample:
            older = [s for s in samples if s.at <= current.at - seconds]
            return older[-1] if older else samples[0]

        rate_base, window_base = since(RATE_WINDOW_S), since(WINDOW_S)
        elapsed = current.at - rate_base.at
        previous_buckets = dict(window_base.latency_buckets)
        window_buckets = tuple((bound, count - previous_buckets.get(bound, 0.0))
                               for bound, count in current.latency_buckets)
        lookups = current.cache_hits + current.cache_misses
        series = [(later.at - current.at,
                   max(0.0, later.items - earlier.items) / (later.at - earlier.at),
                   later.backlog)
                  for earlier, later in zip(samples, samples[1:], strict=False)
                  if later.at > earlier.at]
        return StatusView(
            version=__version__, mode=mode,
            throughput=(current.items - rate_base.items) / elapsed if elapsed > 0 else 0.0,
            backlog=current.backlog, items_total=current.items,
            requests_total=current.requests, rejected_total=current.rejected,
            cache_hit_rate=current.cache_hits / lookups if lookups else None,
            latency_s={f"p{round(q * 100)}": histogram_quantile(q, window_buckets)
                       for q in QUANTILES},
            statuses={status: count - window_base.items_by_status.get(status, 0.0)
                      for status, count in sorted(current.items_by_status.items())
                      if count - window_base.items_by_status.get(status, 0.0) > 0},
            workers_seen=(sum(1 for seen in current.workers_last_seen.values()
                              if seen >= current.at - WORKER_FRESH_S)
                          if current.workers_last_seen else None),
            series=series)


# --------------------------------------------------------------------------- rendering


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


# --------------------------------------------------------------------------- routes


@asynccontextmanager
async def _sampling(app: FastAPI) -> AsyncIterator[None]:
    history = StatusHistory()
    app.state.status_history = history
    sampler = asyncio.create_task(history.run())
    try:
        yield
    finally:
        sampler.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sampler


router = APIRouter(lifespan=_sampling, tags=["status"])


def _view(request: Request) -> StatusView:
    settings = getattr(request.app.state, "settings", None)
    return request.app.state.status_history.view(getattr(settings, "mode", "unknown"))


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
async def status_page(request: Request) -> HTMLResponse:
    return HTMLResponse(render_page(_view(request)), headers={"Cache-Control": "no-store"})


@router.get("/status/panel", response_class=HTMLResponse, include_in_schema=False)
async def status_panel(request: Request) -> HTMLResponse:
    return HTMLResponse(render_panel(_view(request)), headers={"Cache-Control": "no-store"})


@router.get("/status.json")
async def status_json(request: Request) -> dict:
    """The status page's numbers: throughput, queue depth, latency, verdicts, workers."""
    return asdict(_view(request))
