"""Open notebooks in JupyterLab in headless Chromium, run them, and save screenshots.

For looking at the workbook as a consultant's room sees it: each notebook at 1440×900 and
1280×720 (the file browser open), in English and with every panel switched to 中文.

Usage: ``python scripts/screenshots.py [NOTEBOOK ...] [--out DIR]`` (default: every
notebook, ``build/screenshots``). Needs Debian's ``chromium`` and the ``playwright``
package (no ``playwright install``: it drives /usr/bin/chromium).
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

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
SIZES = [(1440, 900), (1280, 720)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def copy_workbook(dest: Path) -> Path:
    """The notebooks and the files they read, copied: JupyterLab autosaves what it runs,
    and the committed notebooks must stay as they are."""
    for name in ("notebooks", "templates", "data"):
        shutil.copytree(ROOT / name, dest / name)
    return dest


def start_lab(port: int, runtime: Path, root: Path, code: Path | None = None) -> subprocess.Popen:
    """JupyterLab on 127.0.0.1:``port`` serving ``root``, no token, no news; ``code`` the
    hubplan checkout its kernels import (default: the installed one)."""
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(runtime)}
    if code is not None:
        env["PYTHONPATH"] = str(code)
    cmd = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--IdentityProvider.token=",
        "--ServerApp.password=",
        f"--ServerApp.root_dir={root}",
        "--LabApp.expose_app_in_browser=True",
        "--LabApp.news_url=None",
    ]
    if os.geteuid() == 0:
        cmd.append("--allow-root")
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(120):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return proc
        except OSError:
            time.sleep(0.5)
    proc.terminate()
    raise RuntimeError("JupyterLab did not start on 127.0.0.1")


def shoot(page, notebook: str, out: Path, port: int) -> list[Path]:
    # ?reset: a fresh workspace, so only this notebook is open
    page.goto(
        f"http://127.0.0.1:{port}/lab/tree/notebooks/{notebook}?reset",
        wait_until="domcontentloaded",
        timeout=120_000,
    )
    page.wait_for_function("window.jupyterapp && window.jupyterapp.started", timeout=120_000)
    page.wait_for_selector(".jp-Notebook >> visible=true", timeout=120_000)
    page.wait_for_timeout(3000)
    page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
    page.wait_for_timeout(2000)
    page.wait_for_function(
        "!document.querySelector('.jp-Notebook-ExecutionIndicator[data-status=\\'busy\\']')"
        " && ![...document.querySelectorAll('.jp-InputArea-prompt')]"
        ".some(e => e.textContent.includes('*'))",
        timeout=300_000,
    )
    page.wait_for_timeout(4000)
    stem = notebook.removesuffix(".ipynb")
    shots = []
    # The last live panel (the one with a language toggle) at the top of the window, or the
    # notebook's end when it has none; then shoot the window in both languages.
    page.evaluate(
        "document.querySelectorAll('.jp-WindowedPanel-outer').forEach(e => e.scrollTo(0, 1e9))"
    )
    page.wait_for_timeout(1500)
    toggles = page.locator(".jp-OutputArea-output button:has-text('中文')")
    if toggles.count():
        toggles.last.evaluate("b => b.closest('.jp-OutputArea-output').scrollIntoView()")
        page.wait_for_timeout(1500)
    for lang in ("en", "zh"):
        if lang == "zh":
            for button in page.locator("button:has-text('中文')").all():
                button.click()
            page.wait_for_timeout(2500)
        path = out / f"{stem}-{page.viewport_size['width']}-{lang}.png"
        page.screenshot(path=str(path))
        shots.append(path)
    return shots


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("notebooks", nargs="*")
    ap.add_argument("--out", default=str(ROOT / "build" / "screenshots"))
    args = ap.parse_args()
    names = args.notebooks or sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
    names = [Path(n).name for n in names]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    runtime = Path(tempfile.mkdtemp(prefix="hubplan-lab-"))
    root = copy_workbook(runtime / "workbook")
    port = free_port()
    lab = start_lab(port, runtime, root)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=shutil.which("chromium") or "/usr/bin/chromium",
                headless=True,
                args=CHROMIUM_ARGS,
            )
            for width, height in SIZES:
                for name in names:
                    page = browser.new_page(viewport={"width": width, "height": height})
                    for path in shoot(page, name, out, port):
                        print(path)
                    page.evaluate("window.jupyterapp.commands.execute('kernelmenu:shutdown')")
                    page.close()
            browser.close()
    finally:
        lab.terminate()
        lab.wait(timeout=30)
        shutil.rmtree(runtime, ignore_errors=True)


if __name__ == "__main__":
    main()
