"""The page's weight: the bytes a browser downloads for the home page and a table (issue 25;
docs/web.md "Fonts, install, offline").

Starts ``getaway serve`` (a temporary SQLite file) and Debian's Chromium (Playwright), then in
one fresh browser profile:

1. **first visit**: the home page, until the fonts are loaded and (when the page has one) the
   service worker has installed its cache; then "Play alone against bots" to the table;
2. **later visit**: the home page again in a new tab of the same profile, then the table.

Bytes are what came over the network (Playwright's ``request.sizes()``: headers and encoded
body), the service worker's own fetches included (Chromium reports them on the context); an
answer from the worker's cache or the memory cache costs nothing.

    .venv/bin/python bench/page_weight.py                       # this code
    .venv/bin/python bench/page_weight.py --src /work/main/src  # another checkout (before/after)
    .venv/bin/python bench/page_weight.py --lang hi --json

Offline play's files (Pyodide and the game's zip, under ``/offline/`` and ``/static/offline/``)
are counted apart, in the phase "offline play's files (once)", whenever their worker fetches
them (a few seconds on the lobby); the bench waits for them at the end (``<html data-offline>``).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serverproc import serve_cli  # noqa: E402

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]


#: The phase of offline play's files (docs/web.md "Offline against bots").
OFFLINE = "offline play's files (once)"


class Meter:
    """Bytes per phase and per kind (``html``, ``js``, ``css``, ``font``, ``svg``, ``api`` …)."""

    def __init__(self) -> None:
        self.phase = "first visit: home"
        self.bytes: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))

    def count(self, response) -> None:
        if response.from_service_worker:
            return  # answered from the worker's cache: nothing over the network
        try:
            sizes = response.request.sizes()
        except Exception:  # noqa: BLE001 - a request that never finished
            return
        path = response.url.split("//", 1)[1].split("/", 1)[-1]
        if path.startswith(("offline/", "static/offline/")):
            # offline play's files (Pyodide, the game's zip), fetched once by their own worker
            # after a few seconds on the lobby: apart, whenever they come
            self.bytes[OFFLINE][path.rsplit(".", 1)[-1] if "." in path.rsplit("/", 1)[-1] else "json"] += (
                sizes["responseBodySize"] + sizes["responseHeadersSize"]
            )
            return
        kind = (
            "api"
            if path.startswith("api/")
            else "font"
            if path.endswith(".woff2")
            else path.rsplit(".", 1)[-1]
            if "." in path.rsplit("/", 1)[-1]
            else "html"
        )
        self.bytes[self.phase][kind] += sizes["responseBodySize"] + sizes["responseHeadersSize"]


def settle(page, worker: bool) -> None:
    page.wait_for_function(
        "() => document.body.dataset.status === 'lobby' || document.body.dataset.status === 'playing'"
    )
    page.wait_for_function("() => document.fonts.status === 'loaded'")
    if worker and page.evaluate("() => !!document.querySelector('script[src=\"/static/shell.js\"]')"):
        # a page with a service worker (static/shell.js registers it): until it has installed
        page.wait_for_function("() => navigator.serviceWorker.controller?.state === 'activated'", timeout=60_000)
    time.sleep(1.5)  # the worker's last fetches


def measure(base: str, lang: str) -> dict[str, dict[str, int]]:
    from playwright.sync_api import sync_playwright

    meter = Meter()
    with sync_playwright() as p, tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as profile:
        ctx = p.chromium.launch_persistent_context(
            profile, executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS, base_url=base, locale=lang
        )
        ctx.on("response", meter.count)
        ctx.add_init_script(f"localStorage.setItem('getaway.lang', {json.dumps(lang)})")
        for visit in ("first visit", "later visit"):
            page = ctx.new_page()
            meter.phase = f"{visit}: home"
            page.goto("/")
            settle(page, worker=True)
            meter.phase = f"{visit}: table"
            page.get_by_test_id("name-input").fill("Asha")
            page.get_by_test_id("bot-level").select_option("easy")
            page.get_by_test_id("play-alone").click()
            page.wait_for_url("**/r/*")
            page.wait_for_function("() => document.body.dataset.status === 'playing'", timeout=60_000)
            page.get_by_test_id("hand-card").first.wait_for()
            settle(page, worker=False)
            page.close()
        # offline play's files, kept once the lobby has been open a few seconds (static/offline.js),
        # where the server has offline play (not before issue 25 item 6)
        if ctx.request.get(f"{base}/offline/files.json").status == 200:
            page = ctx.new_page()
            meter.phase = "a third visit: home"
            page.goto("/")
            page.wait_for_function(
                "() => ['ready', 'unavailable'].includes(document.documentElement.dataset.offline)", timeout=180_000
            )
            page.close()
        ctx.close()
    return {phase: dict(kinds) for phase, kinds in meter.bytes.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--src", help="a source folder to serve instead of the installed package")
    parser.add_argument("--lang", default="en", help="the page's language (default en)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory() as tmp,
        serve_cli(Path(tmp) / "weight.db", "--bot-delay", "0", src=args.src) as (
            port,
            _,
        ),
    ):
        figures = measure(f"http://127.0.0.1:{port}", args.lang)
    if args.json:
        print(json.dumps(figures, indent=1))
        return
    for phase, kinds in figures.items():
        detail = ", ".join(f"{k} {v / 1000:.1f}" for k, v in sorted(kinds.items(), key=lambda kv: -kv[1]))
        print(f"{phase:20} {sum(kinds.values()) / 1000:8.1f} kB  ({detail})")


if __name__ == "__main__":
    main()
