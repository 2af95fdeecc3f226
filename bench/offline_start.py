"""Offline play against bots (issue 25 item 6, docs/web.md "Offline"): what the first visit
downloads for it, how long that takes from a loopback server, and how long the first offline
start takes (the click on "Play alone against bots" with the network gone, until the hand is
shown: Pyodide and the game's zip loaded from the Cache API, the deal dealt) and one bot move.

Rerun with::

    .venv/bin/python bench/offline_start.py              # 3 fresh browser contexts
    .venv/bin/python bench/offline_start.py --runs 5

Each run is a fresh context (an empty cache: a first visit), then the network is cut
(``context.set_offline``). Needs Playwright and Debian's Chromium (``/usr/bin/chromium``), as
the browser tests. The machine is shared: the figures move with its load.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import httpx
from serverproc import serve_cli

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]


def run_once(browser, base: str) -> dict[str, float]:
    """One first visit, then one offline start: seconds for each step."""
    ctx = browser.new_context(base_url=base)
    try:
        page = ctx.new_page()
        page.goto("/")
        page.wait_for_function("() => document.body.dataset.status === 'lobby'")
        page.get_by_test_id("name-input").fill("Bench")
        shown = time.monotonic()
        page.wait_for_function(
            "() => ['ready', 'unavailable'].includes(document.documentElement.dataset.offline)", timeout=300_000
        )
        prepared = time.monotonic() - shown  # includes the page's PREPARE_AFTER wait (5 s)
        ctx.set_offline(True)
        began = time.monotonic()
        page.get_by_test_id("play-alone").click()
        page.wait_for_function(
            "() => ['offline-playing', 'offline-over'].includes(document.body.dataset.status)", timeout=300_000
        )
        started = time.monotonic() - began
        return {"prepare_s": prepared, "start_s": started}
    finally:
        ctx.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3, help="fresh contexts (first visits)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, serve_cli(Path(tmp) / "bench.db", "--bot-delay", "0") as (port, _proc):
        base = f"http://127.0.0.1:{port}"
        manifest = httpx.get(f"{base}/offline/files.json", timeout=10).json()
        total = sum(f["bytes"] for f in manifest["files"])
        print(f"files kept for offline play: {len(manifest['files'])}, {total / 1e6:.2f} MB")
        for f in manifest["files"]:
            print(f"  {f['url']:<48} {f['bytes'] / 1e3:>9.1f} kB")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            rows = [run_once(browser, base) for _ in range(args.runs)]
            browser.close()
    for key in ("prepare_s", "start_s"):
        values = [r[key] for r in rows]
        print(
            f"{key}: median {statistics.median(values):.1f} s, min {min(values):.1f}, max {max(values):.1f}"
            f" ({', '.join(f'{v:.1f}' for v in values)})"
        )


if __name__ == "__main__":
    main()
