"""Bad input refused, not changed (issue 24 item 8): a name over 24 characters and deals ≤ 0 at
room creation get a message naming the limit; an unknown page path gets an HTML page in the
player's language with a link home (the API's refusals stay JSON); a replay upload's errors are
in a player's words."""

from __future__ import annotations

import copy
import random

import pytest

from getaway import Deal, Rules
from getaway.bots import make_bot, play_deal
from getaway.core.record import record_of
from getaway.text import i18n
from web_helpers import make_client

pytestmark = pytest.mark.timeout(60)


def _record() -> dict:
    deal = play_deal(Deal(Rules.profile("punjab", players=3), 0, 1), [make_bot("easy")] * 3, random.Random(1))
    return record_of(deal)


def _said(lang: str, template: str, **args) -> str:
    with i18n.language(lang):
        return i18n._(template).format(**args)


def test_a_long_name_and_no_deals_are_refused_naming_the_limit():
    with make_client() as client:
        for lang in ("en", "fr"):
            long = client.post("/api/rooms", json={"name": "x" * 500}, headers={"Accept-Language": lang})
            assert long.status_code == 400 and long.json()["error"]["code"] == "name_too_long"
            assert long.json()["error"]["message"] == _said(lang, "names have at most {n} characters", n=24)
            for deals in (0, -3):
                none = client.post(
                    "/api/rooms", json={"name": "Asha", "deals": deals}, headers={"Accept-Language": lang}
                )
                assert none.status_code == 400 and "1" in none.json()["error"]["message"], none.text
        assert not client.app.state.service.rooms  # nothing was created


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_an_unknown_page_path_gets_a_page_in_the_players_language(lang):
    with make_client() as client:
        for asked in ({"headers": {"Accept-Language": f"{lang}-XX,en;q=0.5"}}, {"params": {"lang": lang}}):
            page = client.get("/nope/deeper", **asked)
            assert page.status_code == 404 and page.headers["content-type"].startswith("text/html"), page.text
            body = page.text
            way = "rtl" if lang in i18n.RTL_LANGUAGES else "ltr"  # Urdu's page is right to left
            assert f'<html lang="{lang}" dir="{way}">' in body and 'href="/"' in body
            assert _said(lang, "Page not found") in body and _said(lang, "Back to the home page") in body
            assert _said(lang, "There is no page at {path}.", path="/nope/deeper") in body
        assert client.head("/nope").status_code == 404
        api = client.get("/api/nope", headers={"Accept-Language": lang})  # the API's refusals stay JSON
        assert api.status_code == 404 and api.json()["error"]["code"] == "not_found"


def test_a_page_path_quoted_in_the_page_is_escaped():
    with make_client() as client:
        body = client.get("/<b>x</b>").text
        assert "<b>x</b>" not in body and "&lt;b&gt;x&lt;/b&gt;" in body


def test_a_replay_uploads_errors_are_in_a_players_words():
    record = _record()
    renamed = dict(record)
    renamed["moves"] = renamed.pop("actions")
    swapped = copy.deepcopy(record)
    swapped["actions"][3], swapped["actions"][4] = swapped["actions"][4], swapped["actions"][3]
    cases = [
        (renamed, "this record has a field the game does not know: {names}", {"names": "moves"}),
        ({"format": "getaway-match/1", "deals": []}, "this file is a saved match, not the record of one deal: "
         "open it with the getaway command", {}),
        ({"hello": 1}, "the file is not a game record ({problem})", None),
        ([1, 2], "the file is not a game record ({problem})", None),
        ("text", "the file is not a game record ({problem})", None),
        (swapped, "this record's move {n} ({where}) cannot be played: {problem}", None),
        (dict(record, dealer="x"), "this record cannot be read ({field}): {problem}", None),
    ]  # fmt: skip
    with make_client() as client:
        for data, template, args in cases:
            for lang in ("en", "fr"):
                for path, body in (("/api/replay", {"record": data}), ("/api/review", {"record": data, "seat": 0})):
                    answer = client.post(path, json=body, headers={"Accept-Language": lang})
                    assert answer.status_code == 400, (path, answer.text)
                    error = answer.json()["error"]
                    assert error["code"] == "bad_record", (path, data, error)
                    if args is not None:
                        assert error["message"] == _said(lang, template, **args)
                    else:  # the player's words first, the engine's detail after them
                        head = _said(lang, template, n="@", where="@", problem="@", field="@").split("@")[0]
                        assert error["message"].startswith(head), (error["message"], head)
                    assert "unknown field(s)" not in error["message"]
        moved = client.post("/api/replay", json={"record": swapped}).json()["error"]["message"]
        assert moved.startswith("this record's move 4 (actions[3]) cannot be played: ")
        assert "not_your_turn" not in moved  # the refusal's words, not its code
