"""The page's language on a first visit (issue 25, item 4; docs/web.md "Texts"): a browser in
Hindi or Punjabi gets the page in its language from ``navigator.languages``, the server's
refusals and HTML pages from ``Accept-Language``, and the page keeps that language on the next
visit even if the browser's languages change.

Same server and browser as tests/test_web_e2e.py (Debian's chromium; skipped without it unless
``GETAWAY_REQUIRE_BROWSER=1``).
"""

from __future__ import annotations

import pytest

import test_web_e2e as e2e
from test_web_e2e import MISSING, REQUIRE, wait_status

# the browser tests' fixtures: the server, the browser, a page in a fresh context
server, browser, new_page = e2e.server, e2e.browser, e2e.new_page

if MISSING and not REQUIRE:
    pytestmark = pytest.mark.skip(reason=f"browser tests skipped: {MISSING} (GETAWAY_REQUIRE_BROWSER=1 fails instead)")

#: A browser whose languages have since become French (the page must not follow them).
_NOW_FRENCH = "Object.defineProperty(navigator, 'languages', { get: () => ['fr-FR', 'fr'] });"


@pytest.mark.timeout(120)
@pytest.mark.parametrize(("locale", "lang", "start"), [("hi-IN", "hi", "मैच शुरू करें"), ("pa-IN", "pa", "ਮੈਚ ਸ਼ੁਰੂ ਕਰੋ")])
def test_a_first_visit_takes_the_browsers_language_and_keeps_it(new_page, locale, lang, start):
    page = new_page(locale=locale)
    page.goto("/")
    wait_status(page, "lobby")
    assert page.evaluate("() => navigator.languages[0]") == locale
    assert page.evaluate("() => document.documentElement.lang") == lang
    assert page.get_by_test_id("lang").input_value() == lang
    assert page.evaluate("() => localStorage.getItem('getaway.lang')") == lang  # remembered
    texts = page.evaluate(f"() => fetch('/api/strings/{lang}').then((r) => r.json())")
    assert texts["strings"]["Start the match"] == start
    # the next visit keeps it, though the browser now prefers French
    page.add_init_script(_NOW_FRENCH)
    page.reload()
    wait_status(page, "lobby")
    assert page.evaluate("() => navigator.languages[0]") == "fr-FR"
    assert page.evaluate("() => document.documentElement.lang") == lang
    # the server's own pages follow the browser's Accept-Language (hi-IN, pa-IN …)
    page.goto("/no/such/page")
    assert page.evaluate("() => document.documentElement.lang") == lang


@pytest.mark.timeout(120)
def test_a_browser_with_no_catalog_language_gets_english_and_keeps_choosing(new_page):
    page = new_page(locale="de-DE")
    page.goto("/")
    wait_status(page, "lobby")
    assert page.evaluate("() => document.documentElement.lang") == "en"
    # nothing remembered: a later catalog in the browser's language can still be chosen
    assert page.evaluate("() => localStorage.getItem('getaway.lang')") is None


@pytest.mark.timeout(120)
def test_a_language_picked_while_the_page_starts_is_not_overwritten(new_page):
    """The page remembers the browser's language only if no pick was stored meanwhile: a pick
    (the select, another tab, a test's localStorage) made while the first visit still asked
    the server's default (GET /api/lang) is kept (CI once saw a French lesson come in English)."""
    page = new_page(locale="en-US")
    held = []
    page.route("**/api/lang", lambda route: held.append(route))  # answered once the pick is stored
    page.goto("/")
    page.evaluate("() => localStorage.setItem('getaway.lang', 'fr')")
    page.wait_for_timeout(200)
    assert held, "the page did not ask GET /api/lang"
    held[0].continue_()
    wait_status(page, "lobby")
    assert page.evaluate("() => localStorage.getItem('getaway.lang')") == "fr"
    page.reload()
    wait_status(page, "lobby")
    assert page.evaluate("() => document.documentElement.lang") == "fr"


#: The chosen option's words, measured in the select's own font, fit inside the select (its
#: padding and its arrow, about 20 px, beside them): a select cuts words off silently.
_SELECTS_CUT = """() => [...document.querySelectorAll('.top select')].flatMap((s) => {
  const cs = getComputedStyle(s), ctx = document.createElement('canvas').getContext('2d');
  ctx.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
  const words = s.options[s.selectedIndex].text;
  const room = s.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 20;
  return ctx.measureText(words).width > room ? [[s.dataset.testid, words, ctx.measureText(words).width, room]] : [];
})"""


@pytest.mark.timeout(240)
def test_the_phones_header_cuts_no_word_in_any_language(new_page):
    """At 390x844, on a table, the header's selects (speed, language) show their chosen words
    whole in each of the nine languages, and the header keeps to at most three rows."""
    for lang in ("en", "fr", "it", "pt", "es", "hi", "ur", "bn", "pa"):
        page = new_page(e2e.PHONE, locale=lang)
        e2e.create_room(page, "Asha", players=4, alone=True, takes="off")
        assert page.evaluate("() => document.documentElement.lang") == lang
        page.get_by_test_id("speed").wait_for()
        assert page.evaluate(_SELECTS_CUT) == [], lang
        row = page.get_by_test_id("speed").bounding_box()["height"]
        assert page.locator(".top").bounding_box()["height"] <= 3 * row + 40, lang
        page.context.close()
