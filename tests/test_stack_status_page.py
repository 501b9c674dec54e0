"""The status page at `/`: its arithmetic, and the page itself in real headless Chromium
(Debian's chromium and chromedriver): it loads, its charts draw, its numbers move while a
batch runs."""

from __future__ import annotations

import math
import shutil
import threading
import time
from pathlib import Path

import httpx
import pytest
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from verifier.web.history import HISTORY_S, StatusHistory, histogram_quantile, take_sample
from verifier.web.page import line_chart, render_page

CHROMIUM = shutil.which("chromium")
CHROMEDRIVER = shutil.which("chromedriver")


def test_histogram_quantile_interpolates_like_prometheus() -> None:
    buckets = ((0.1, 10.0), (0.5, 30.0), (1.0, 40.0), (math.inf, 40.0))
    assert histogram_quantile(0.25, buckets) == pytest.approx(0.1)
    assert histogram_quantile(0.5, buckets) == pytest.approx(0.3)
    assert histogram_quantile(0.99, buckets) == pytest.approx(0.5 + 0.5 * (39.6 - 30) / 10)
    assert histogram_quantile(0.5, ((1.0, 0.0), (math.inf, 0.0))) is None
    assert histogram_quantile(0.99, ((1.0, 1.0), (math.inf, 5.0))) == 1.0  # past the last bound


def registry_with_traffic() -> tuple[CollectorRegistry, Counter, Histogram, Gauge]:
    registry = CollectorRegistry()
    items = Counter("verifier_items_total", "", ["kind", "status"], registry=registry)
    chunks = Histogram("verifier_chunk_seconds", "", ["mode"], registry=registry,
                       buckets=(0.01, 0.1, 1.0))
    seen = Gauge("verifier_worker_last_seen_seconds", "", ["worker"], registry=registry)
    Gauge("verifier_backlog_items", "", registry=registry).set(7)
    return registry, items, chunks, seen


def test_view_derives_rates_verdicts_latency_and_workers() -> None:
    registry, items, chunks, seen = registry_with_traffic()
    history = StatusHistory(registry)
    for ago in (200, 150):
        history.samples.append(take_sample(registry, now=time.time() - ago))
    items.labels("math", "correct").inc(30)
    items.labels("code", "correct").inc(10)
    items.labels("code", "timeout").inc(2)
    for _ in range(9):
        chunks.labels("distributed").observe(0.05)
    chunks.labels("distributed").observe(0.5)
    seen.labels("celery@a").set_to_current_time()
    seen.labels("celery@gone").set(1.0)
    view = history.view("distributed")
    assert view.items_total == 42 and view.backlog == 7
    assert view.statuses == {"correct": 40, "timeout": 2}
    assert 0.01 < view.latency_s["p50"] < 0.1 < view.latency_s["p99"] <= 1.0
    assert view.workers_seen == 1
    # Over the span from the latest sample at least 10 s old (150 s ago) to now.
    assert view.throughput == pytest.approx(42 / 150, rel=0.05)
    html = render_page(view)
    assert 'id="throughput-chart-line"' in html and "timeout" in html


def test_chart_scales_to_the_history_it_has() -> None:
    svg = line_chart([(-30.0, 0.0), (-10.0, 5.0), (0.0, 2.0)], "items/s", "#000", "c")
    assert "−60 s" in svg and "<polyline" in svg  # a minute at least
    long = line_chart([(-HISTORY_S * 2, 1.0), (0.0, 1.0)], "items/s", "#000", "c")
    assert f"−{HISTORY_S / 60:.0f} min" in long
    assert "collecting samples" in line_chart([], "items/s", "#000", "c")


# --------------------------------------------------------------------------- in a browser


@pytest.fixture
def browser():
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
    if not (CHROMIUM and CHROMEDRIVER):
        pytest.skip("Debian's chromium and chromium-driver are not installed")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1280,900"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=CHROMEDRIVER),
                              options=options)
    yield driver
    driver.quit()


def number(text: str) -> float:
    return float(text.split()[0].replace(",", ""))


def test_status_page_loads_draws_and_moves_in_chromium(verifier_url: str, browser,
                                                       tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    page = httpx.get(f"{verifier_url}/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    browser.get(f"{verifier_url}/")
    assert browser.title == "RLVR verifier · status"
    before = number(browser.find_element(By.ID, "items").text)

    items = [{"kind": "math", "response": f"\\boxed{{{n}}}", "answer": str(n % 3)}
             for n in range(40)]
    posted = threading.Thread(target=lambda: httpx.post(
        f"{verifier_url}/v1/verify", json={"items": items}, timeout=120), daemon=True)
    posted.start()
    # The page polls: the counters move without a reload.
    WebDriverWait(browser, 60, poll_frequency=0.5).until(
        lambda d: number(d.find_element(By.ID, "items").text) >= before + len(items))
    WebDriverWait(browser, 30, poll_frequency=0.5).until(
        lambda d: number(d.find_element(By.ID, "throughput").text) > 0)
    posted.join(timeout=60)
    # The chart draws: a line with real extent, in the rendered layout.
    WebDriverWait(browser, 30, poll_frequency=0.5).until(lambda d: d.execute_script(
        "const line = document.getElementById('throughput-chart-line');"
        "return line !== null && line.getBBox().width > 0 && line.getBBox().height > 0;"))
    legend = {e.get_attribute("data-status"): number(e.text)
              for e in browser.find_elements(By.CSS_SELECTOR, "[data-status]")}
    assert legend.get("correct", 0) >= 1 and legend.get("wrong", 0) >= 1
    browser.save_screenshot(str(tmp_path / "status.png"))
    assert (tmp_path / "status.png").stat().st_size > 10_000
