"""The page's shell in a real browser (issue 25, items 3, 5 and 7; docs/web.md "Fonts, install,
offline"), on Debian's Chromium, which has no emoji font and no Devanagari, Bengali, Gurmukhi or
Urdu font of its own:

- the shipped faces draw every text of the page, in every language of the page's language list
  (the CSS Font Loading API: ``document.fonts``, ``FontFace.status``, ``document.fonts.check``;
  and Chromium's own account of the fonts each node's text was drawn with,
  ``CSS.getPlatformFontsForNode``), the suits included; the bots' mark is an SVG with a name;
- the page is installable (``Page.getInstallabilityErrors`` finds nothing), its service worker
  is active, never keeps an API answer, and serves the home page with the server stopped;
- bad input degrades quietly: ``?lang=xx``, a malformed ``Accept-Language``, the font files
  missing, a corrupted or emptied cache entry: the page renders, in English or with a system
  font or from a fresh fetch, with no error shown.

Same browser as tests/test_web_e2e.py (skipped without chromium unless ``GETAWAY_REQUIRE_BROWSER=1``).
"""

from __future__ import annotations

import contextlib
import tempfile
import time

import httpx
import pytest

import test_web_e2e as e2e
from test_web_e2e import CHROMIUM, CHROMIUM_ARGS, MISSING, PHONE, REQUIRE, create_room, wait_status
from web_helpers import server_process

# the browser tests' fixtures: the server, the browser, a page in a fresh context
server, browser, new_page = e2e.server, e2e.browser, e2e.new_page

if MISSING and not REQUIRE:
    pytestmark = pytest.mark.skip(reason=f"browser tests skipped: {MISSING} (GETAWAY_REQUIRE_BROWSER=1 fails instead)")

#: The faces the page ships (static/fonts/, static/fonts.css).
SHIPPED = {
    "Noto Sans",
    "Noto Sans Devanagari",
    "Noto Sans Bengali",
    "Noto Sans Gurmukhi",
    "Noto Nastaliq Urdu",
    "Noto Sans Symbols 2",
    "Noto Sans Math",
    "Getaway Language Names",
}
#: The face of each language's own script (tools/shell_assets.py SCRIPT_OF); any other: Latin.
SCRIPT_FACE = {
    "hi": "Noto Sans Devanagari",
    "bn": "Noto Sans Bengali",
    "pa": "Noto Sans Gurmukhi",
    "ur": "Noto Nastaliq Urdu",
}

_LOADED = """async () => { await document.fonts.ready;
  return [...document.fonts].filter((f) => f.status === "loaded").map((f) => f.family.replaceAll('"', "")); }"""
_SAMPLE = """() => { const m = document.querySelector("main");
  const w = document.createTreeWalker(m, NodeFilter.SHOW_TEXT); let s = "";
  while (w.nextNode() && s.length < 400) s += w.currentNode.data.trim(); return s; }"""
_NO_ERROR = "() => document.querySelector('[data-testid=\"error\"]').hidden"


def fonts_used(page, selector: str = "body *") -> dict[str, set[str]]:
    """The fonts Chromium drew the text of each element matching ``selector`` with (CDP
    ``CSS.getPlatformFontsForNode``): ``{family: {tags of the elements}}``, a family that is
    not a web font (a system fallback) as ``"system:" + family``."""
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
        used: dict[str, set[str]] = {}
        for node in cdp.send("DOM.querySelectorAll", {"nodeId": root, "selector": selector})["nodeIds"]:
            tag = cdp.send("DOM.describeNode", {"nodeId": node})["node"]["nodeName"].lower()
            for font in cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]:
                name = font["familyName"] if font["isCustomFont"] else "system:" + font["familyName"]
                used.setdefault(name, set()).add(tag)
        return used
    finally:
        cdp.detach()


def languages_of(page) -> list[str]:
    """The page's language list: the header's select (static/i18n.js LANGUAGES)."""
    return page.eval_on_selector_all('[data-testid="lang"] option', "os => os.map((o) => o.value)")


def switch_lang(page, code: str) -> None:
    page.get_by_test_id("lang").select_option(code)
    page.wait_for_function("c => document.documentElement.lang === c", arg=code)
    page.wait_for_function("() => document.fonts.status === 'loaded'")


@pytest.mark.timeout(240)
def test_the_shipped_faces_draw_every_language_and_the_bots_mark_is_an_svg(new_page):
    page = new_page(PHONE, is_mobile=True, has_touch=True)
    page.goto("/")
    wait_status(page, "lobby")
    codes = languages_of(page)
    assert {"en", "fr"} <= set(codes)
    # first, in English: the select names each language in its own script with a few letters'
    # face, not the script's (once a language of that script is shown, its face stays loaded)
    page.evaluate("""() => { const s = document.querySelector('[data-testid="lang"]');
      for (const [c, n] of [["hi", "हिन्दी"], ["bn", "বাংলা"], ["pa", "ਪੰਜਾਬੀ"], ["ur", "اردو"]]) {
        if (![...s.options].some((o) => o.value === c)) s.append(new Option(n, c)); } }""")
    page.wait_for_function("() => document.fonts.status === 'loaded'")
    loaded = set(page.evaluate(_LOADED))
    assert "Getaway Language Names" in loaded and not loaded & set(SCRIPT_FACE.values()), loaded
    assert set(fonts_used(page, '[data-testid="lang"] *')) <= SHIPPED
    for code in codes:
        switch_lang(page, code)
        face = SCRIPT_FACE.get(code, "Noto Sans")
        loaded = set(page.evaluate(_LOADED))
        assert face in loaded and loaded <= SHIPPED, (code, loaded)
        sample = page.evaluate(_SAMPLE)
        assert page.evaluate("([f, s]) => document.fonts.check(`16px '${f}'`, s)", [face, sample]), code
        used = fonts_used(page)
        assert set(used) <= SHIPPED and face in used, (code, used)  # no system fallback anywhere
    switch_lang(page, "en")

    # a table: the cards' suits, the arrows and the bots' mark, all drawn by the shipped faces
    create_room(page, "Asha", players=4, alone=True)
    page.get_by_test_id("hand-card").first.wait_for()
    page.wait_for_function("() => document.fonts.status === 'loaded'")
    used = fonts_used(page)
    assert set(used) <= SHIPPED and "Noto Sans Symbols 2" in used, used
    assert page.evaluate("() => document.fonts.check(\"16px 'Noto Sans Symbols 2'\", '♠♥♦♣')")
    marks = page.locator('[data-testid="bot-mark"]')
    assert marks.count() >= 3  # one for each bot's seat at least
    assert marks.evaluate_all(
        """ms => ms.every((e) => e instanceof SVGSVGElement
          && e.getAttribute('role') === 'img' && e.getAttribute('aria-label') === 'bot')"""
    )
    assert page.get_by_role("img", name="bot").count() >= 3  # the accessible name (of the marks not hidden)
    assert "\U0001f916" not in page.evaluate("() => document.body.innerText")  # no emoji left to draw
    assert (
        page.evaluate('() => document.querySelectorAll(\'[title*="\U0001f916"], [aria-label*="\U0001f916"]\').length')
        == 0
    )
    e2e.shot(page, "shell-table-phone.png")


def until(page, script: str, timeout: float = 30) -> None:
    """Wait until the async function ``script`` resolves to a truthy value (``page.evaluate``
    awaits it; ``wait_for_function`` would take its promise for a truthy value)."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(script):
        assert time.monotonic() < deadline, f"still false after {timeout} s: {script}"
        page.wait_for_timeout(100)


def _wait_worker(page) -> None:
    page.wait_for_function("() => navigator.serviceWorker.controller?.state === 'activated'", timeout=30_000)
    until(page, "async () => (await caches.keys()).length === 1")


@pytest.mark.timeout(180)
def test_the_page_installs_and_its_worker_serves_the_shell_with_the_server_stopped(browser, tmp_path):
    with contextlib.ExitStack() as stack:
        srv = stack.enter_context(server_process(tmp_path))
        manifest = httpx.get(f"{srv.base}/static/manifest.webmanifest")
        assert manifest.headers["content-type"].startswith("application/manifest+json")
        worker = httpx.get(f"{srv.base}/sw.js")
        assert (
            worker.headers["content-type"].startswith("text/javascript")
            and worker.headers["cache-control"] == "no-cache"
        )
        build = worker.text.split('const BUILD = "', 1)[1].split('"', 1)[0]
        assert len(build) == 16
        profile = stack.enter_context(tempfile.TemporaryDirectory())
        # a profile on disk: Chromium does not install from an incognito context (Playwright's default)
        ctx = browser.browser_type.launch_persistent_context(
            profile, executable_path=CHROMIUM, args=CHROMIUM_ARGS, base_url=srv.base
        )
        stack.callback(ctx.close)
        # an older build's cache, with a page of its own: the new worker deletes it
        ctx.add_init_script("""caches.open("getaway-shell-0123456789abcdef").then((c) =>
          c.put("/", new Response("<p>an old build</p>", { headers: { "content-type": "text/html" } })))""")
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto("/")
        wait_status(page, "lobby")
        cdp = ctx.new_cdp_session(page)
        assert cdp.send("Page.getInstallabilityErrors")["installabilityErrors"] == []
        assert cdp.send("Page.getAppManifest")["errors"] == []
        _wait_worker(page)
        until(page, "async () => !(await caches.has('getaway-shell-0123456789abcdef'))")
        names = page.evaluate("async () => await caches.keys()")
        assert names == [f"getaway-shell-{build}"]  # the older build's cache is gone
        cached = page.evaluate(
            "async () => (await (await caches.open((await caches.keys())[0])).keys()).map((r) => r.url)"
        )
        paths = {url.removeprefix(srv.base) for url in cached}
        assert {
            "/",
            "/static/app.js",
            "/static/fonts.css",
            "/static/fonts/noto-sans-400.woff2",
            "/static/cards/svg-cards.svg",
        } <= paths
        assert not [p for p in paths if p.startswith("/api/")]  # never an API answer (hidden cards)

        srv.stop()  # the server is gone: the shell still comes
        page.reload()
        wait_status(page, "lobby")
        page.get_by_test_id("play-alone").wait_for()
        assert page.evaluate(_NO_ERROR)
        assert "Noto Sans" in page.evaluate(_LOADED)  # the shipped face, from the cache
        page.goto("/r/ABCDE")  # any page of the app is the shell
        assert page.locator("#main").count() == 1
        assert not errors, errors


@pytest.mark.timeout(180)
def test_bad_input_degrades_quietly(browser, server):
    def context(**options):
        ctx = browser.new_context(base_url=server, service_workers="block", **options)
        ctx.set_default_timeout(20_000)
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        return ctx, page, errors

    # ?lang=xx and a malformed Accept-Language: English, no error
    for options, path in (
        ({}, "/?lang=xx"),
        ({"extra_http_headers": {"Accept-Language": ";q=x,, -@@;;q=2, \t*"}}, "/"),
    ):
        ctx, page, errors = context(**options)
        page.goto(path)
        wait_status(page, "lobby")
        assert page.evaluate("() => document.documentElement.lang") == "en"
        assert page.get_by_test_id("play-alone").inner_text() == "Play alone against bots"
        assert page.evaluate(_NO_ERROR) and not errors
        ctx.close()
    assert httpx.get(f"{server}/api/lang", headers={"Accept-Language": ";q=x,, -@@;;q=2"}).status_code == 200

    # the font files missing: a system font, the page whole
    ctx, page, errors = context()
    page.route("**/static/fonts/*.woff2", lambda route: route.fulfill(status=404, body="not found"))
    page.goto("/")
    wait_status(page, "lobby")
    page.wait_for_function("() => document.fonts.status === 'loaded'")
    statuses = page.evaluate(
        "() => [...document.fonts].filter((f) => f.family.includes('Noto Sans')).map((f) => f.status)"
    )
    assert "error" in statuses and "loaded" not in statuses
    assert not (set(fonts_used(page, "main *")) & SHIPPED)  # drawn with the machine's own font
    page.get_by_test_id("play-alone").wait_for()
    assert page.evaluate(_NO_ERROR) and not errors
    ctx.close()


@pytest.mark.timeout(180)
def test_a_corrupted_or_emptied_cache_entry_is_fetched_again(new_page):
    page = new_page()
    page.goto("/")
    wait_status(page, "lobby")
    _wait_worker(page)
    page.evaluate("""async () => {
      const cache = await caches.open((await caches.keys())[0]);
      await cache.put("/static/app.js", new Response("garbage(", { headers: { "content-type": "text/javascript" } }));
      await cache.put("/", new Response("<p>an old page</p>", { headers: { "content-type": "text/html" } }));
      await cache.delete("/static/style.css");
    }""")
    page.reload()
    wait_status(page, "lobby")
    page.get_by_test_id("play-alone").wait_for()
    assert page.evaluate(_NO_ERROR)
    assert page.evaluate("() => getComputedStyle(document.body).display") == "flex"  # the style sheet came
    again = page.evaluate("""async () => {
      const cache = await caches.open((await caches.keys())[0]);
      const text = async (u) => (await (await cache.match(u))?.text()) ?? "";
      return Promise.all(["/static/app.js", "/static/style.css"].map(text));
    }""")
    assert again[0].startswith("// Getaway in the browser") and again[1].startswith("/* Getaway")  # stored afresh
    page.context.set_offline(True)  # and offline, the repaired cache serves the page
    page.reload()
    wait_status(page, "lobby")
    assert page.evaluate(_NO_ERROR)
    page.context.set_offline(False)
