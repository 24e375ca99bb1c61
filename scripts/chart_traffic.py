"""What the live charts cost a page: kernel websocket bytes, copies of the Vega bundle sent,
JavaScript heap and time until every chart is drawn, in Voilà and in JupyterLab.

Each chart draws with vega-embed, Vega and Vega-Lite (about 0.9 MB of JavaScript bundled
by vl-convert, so nothing comes from a CDN). The page receives what the kernel sends over
its websocket; this script counts those bytes and how many messages carry a copy of the
bundle, then checks that every chart on the page has drawn (a ``.marks`` canvas or SVG in
each ``.vega-embed`` element). In JupyterLab it also reloads the page with the kernel
still running: the widget manager then fetches every live widget from the kernel again.

Usage::

    python scripts/chart_traffic.py voila [NOTEBOOK]   # default notebooks/00_overview.ipynb
    python scripts/chart_traffic.py lab [NOTEBOOK]     # runs the notebook, then reloads
    python scripts/chart_traffic.py voila --code ../other-checkout   # another hubplan

Needs Debian's ``chromium`` and the ``playwright`` package (no ``playwright install``).
Prints one table row per page load: websocket MB, copies of the bundle, charts, charts
drawn, the page's clock when the last one drew (seconds since that page load began; on a
first load this includes running the notebook), JS heap after a garbage collection, and
console errors.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright
from screenshots import copy_workbook, free_port, start_lab  # scripts/, beside this file

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--disable-extensions",
]
#: Occurs once in vl-convert's bundle (its last line) and nowhere else on the page.
BUNDLE_MARKER = b"__default as default"

#: (charts on the page, charts drawn, page clock [ms]): a chart is a ``.vega-embed``
#: element, drawn once Vega has put its ``.marks`` canvas or SVG inside.
COUNT_JS = """() => {
  const charts = [...document.querySelectorAll('.vega-embed')];
  return [charts.length, charts.filter(c => c.querySelector('.marks')).length,
          performance.now()];
}"""


def wait_port(port: int, proc: subprocess.Popen) -> None:
    for _ in range(240):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError("the server exited") from None
            time.sleep(0.5)
    raise RuntimeError("the server did not start on 127.0.0.1")


class Meter:
    """Websocket bytes and bundle copies received by one page, and its console errors."""

    def __init__(self, page):
        self.page = page
        self.bytes = 0
        self.bundles = 0
        self.errors: list[str] = []
        page.on("websocket", self._socket)
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))

    def _socket(self, ws) -> None:
        ws.on("framereceived", self._frame)

    def _frame(self, payload) -> None:
        data = payload.encode() if isinstance(payload, str) else payload
        self.bytes += len(data)
        self.bundles += data.count(BUNDLE_MARKER)

    def reset(self) -> None:
        self.bytes, self.bundles, self.errors = 0, 0, []

    def wait_drawn(self, timeout_s: float = 240) -> tuple[int, int, float]:
        """Wait until every chart has drawn and the count holds for 3 s; return the
        counts and the page's clock (seconds since it began loading) when they last
        changed, to the 0.1 s the polling allows."""
        start = time.perf_counter()
        last, stable_since, drawn_at = None, time.perf_counter(), 0.0
        while time.perf_counter() - start < timeout_s:
            *counts, clock = self.page.evaluate(COUNT_JS)
            now = tuple(counts)
            if now != last:
                last, stable_since, drawn_at = now, time.perf_counter(), clock / 1000
            elif now[0] and now[0] == now[1] and time.perf_counter() - stable_since > 3:
                break
            self.page.wait_for_timeout(100)
        return last[0], last[1], drawn_at

    def heap_mb(self) -> float:
        cdp = self.page.context.new_cdp_session(self.page)
        cdp.send("HeapProfiler.collectGarbage")
        cdp.send("Performance.enable")
        metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
        return metrics["JSHeapUsedSize"] / 1e6


def row(what: str, meter: Meter, charts: int, drawn: int, seconds: float) -> None:
    print(
        f"{what:<34} {meter.bytes / 1e6:>9.2f} {meter.bundles:>8} {charts:>7} {drawn:>6} "
        f"{seconds:>8.1f} {meter.heap_mb():>8.1f} {len(meter.errors):>7}"
    )
    for e in meter.errors[:5]:
        print("    console:", e[:200])


HEADER = (
    f"{'page load':<34} {'ws MB':>9} {'bundles':>8} {'charts':>7} {'drawn':>6} "
    f"{'page s':>8} {'heap MB':>8} {'errors':>7}"
)


def run_voila(notebook: Path, browser, code: Path) -> None:
    port = free_port()
    runtime = Path(tempfile.mkdtemp(prefix="hubplan-voila-"))
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(runtime), "PYTHONPATH": str(code)}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "voila",
            str(notebook),
            "--no-browser",
            "--Voila.ip=127.0.0.1",
            f"--port={port}",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_port(port, proc)
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        meter = Meter(page)
        print(HEADER)
        for what in ("voila: first load", "voila: reload (new kernel)"):
            meter.reset()
            if what.endswith("first load"):
                page.goto(
                    f"http://127.0.0.1:{port}/", wait_until="domcontentloaded", timeout=300_000
                )
            else:
                page.reload(wait_until="domcontentloaded", timeout=300_000)
            charts, drawn, seconds = meter.wait_drawn()
            row(what, meter, charts, drawn, seconds)
        page.close()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        shutil.rmtree(runtime, ignore_errors=True)


def run_lab(notebook: Path, browser, code: Path) -> None:
    runtime = Path(tempfile.mkdtemp(prefix="hubplan-lab-"))
    # JupyterLab saves what it runs: a copy of the workbook
    workbook = copy_workbook(runtime / "workbook")
    port = free_port()
    proc = start_lab(port, runtime, workbook, code)  # returns once it listens
    try:
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        meter = Meter(page)
        url = f"http://127.0.0.1:{port}/lab/tree/notebooks/{notebook.name}?reset"
        page.goto(url, wait_until="domcontentloaded", timeout=120_000)
        page.wait_for_function("window.jupyterapp && window.jupyterapp.started", timeout=120_000)
        page.wait_for_selector(".jp-Notebook >> visible=true", timeout=120_000)
        page.wait_for_timeout(3000)
        meter.reset()
        page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
        page.wait_for_timeout(2000)
        page.wait_for_function(
            "![...document.querySelectorAll('.jp-InputArea-prompt')]"
            ".some(e => e.textContent.includes('*'))",
            timeout=600_000,
        )
        # Outputs below the fold are not attached by the windowed notebook: show them all.
        page.evaluate(
            "document.querySelectorAll('.jp-WindowedPanel-outer').forEach(e => e.scrollTo(0, 1e9))"
        )
        print(HEADER)
        charts, drawn, seconds = meter.wait_drawn()
        row("lab: run all cells", meter, charts, drawn, seconds)
        # Saved, so the reloaded page shows the widget outputs and asks the kernel for them.
        page.evaluate("window.jupyterapp.commands.execute('docmanager:save')")
        page.wait_for_timeout(3000)
        meter.reset()
        page.reload(wait_until="domcontentloaded", timeout=120_000)
        page.wait_for_function("window.jupyterapp && window.jupyterapp.started", timeout=120_000)
        page.wait_for_selector(".jp-Notebook >> visible=true", timeout=120_000)
        page.wait_for_timeout(3000)
        page.evaluate(
            "document.querySelectorAll('.jp-WindowedPanel-outer').forEach(e => e.scrollTo(0, 1e9))"
        )
        charts, drawn, seconds = meter.wait_drawn()
        row("lab: reload, kernel still live", meter, charts, drawn, seconds)
        page.evaluate("window.jupyterapp.commands.execute('kernelmenu:shutdown')")
        page.wait_for_timeout(1000)
        page.close()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        shutil.rmtree(runtime, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("where", choices=["voila", "lab"])
    ap.add_argument("notebook", nargs="?", default=str(ROOT / "notebooks" / "00_overview.ipynb"))
    ap.add_argument(
        "--code",
        type=Path,
        default=ROOT,
        help="the hubplan checkout the kernel imports (default: this one)",
    )
    args = ap.parse_args()
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=shutil.which("chromium") or "/usr/bin/chromium",
            headless=True,
            args=CHROMIUM_ARGS,
        )
        try:
            (run_voila if args.where == "voila" else run_lab)(
                Path(args.notebook), browser, args.code.resolve()
            )
        finally:
            browser.close()


if __name__ == "__main__":
    main()
