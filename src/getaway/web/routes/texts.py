"""What the page reads besides rooms: its texts in a language, the language to show, the rules
summary (of a profile with options, or of a room), the core's option schema and the socket's
JSON Schema."""

from __future__ import annotations

from typing import Any, Final

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from pydantic import TypeAdapter, ValidationError

from ...core.cards import Card
from ...core.rules import Rules
from ...text import i18n
from ...text.i18n import N_
from .. import protocol
from ..protocol import refusal
from ..rooms.checks import check_config
from ..rooms.errors import RoomError
from .common import REFUSALS, check_reads, lang_of, service_of

__all__ = ["page_strings", "router", "rules_summary"]

_SUIT_SYMBOLS: Final = ("♠", "♥", "♦", "♣")
_OPTIONS: Final = TypeAdapter(protocol.RoomOptions)

router = APIRouter()


def page_strings(lang: str) -> dict[str, Any]:
    """What ``GET /api/strings/{lang}`` returns: ``lang``; ``strings``: each UI msgid of
    :data:`getaway.web.strings.UI_STRINGS` → its translation; ``cards``: card name such as
    ``Q♥`` → ``queen of hearts`` (the Joker included); ``ranks``: ``"Q"`` → ``queen``;
    ``suits``: symbol → name as in "queen of hearts"; ``suit_plurals``: symbol → name as
    in "no hearts"; ``chat``: each quick-chat phrase's key → its text (:mod:`getaway.text.chat`)."""
    from ...text.chat import chat_texts
    from ..strings import UI_STRINGS

    with i18n.language(lang):
        strings = {msgid: i18n._(msgid) for msgid in UI_STRINGS}
        cards = {str(Card(i)): i18n.card_name(Card(i)) for i in range(53)}
        ranks = {str(Card(i))[:-1]: name for i, name in enumerate(i18n._rank_names())}
        suits = {symbol: i18n.suit_name(s) for s, symbol in enumerate(_SUIT_SYMBOLS)}
        plurals = {symbol: i18n.suit_plural(s) for s, symbol in enumerate(_SUIT_SYMBOLS)}
        chat = chat_texts()
    answer = {"lang": lang, "strings": strings, "cards": cards, "ranks": ranks, "suits": suits}
    return {**answer, "suit_plurals": plurals, "chat": chat}


def rules_summary(lang: str, profile: str, rules: Rules | None = None) -> dict[str, Any]:
    """What ``GET /api/rules/{lang}`` returns: ``profile``, ``title`` and ``sections``
    (``[{"title", "text"}]``), the terminal's rules summary (:mod:`getaway.text.rules_text`), with
    the variants in force when the ``rules`` of a room are given."""
    from ...text.rules_text import rules_sections

    with i18n.language(lang):
        title = i18n._("Getaway: the rules (profile {profile})").format(profile=profile)
        sections = [{"title": h, "text": p} for h, p in rules_sections(profile, rules)]
    return {"profile": profile, "title": title, "sections": sections}


@router.get("/api/strings/{lang}", response_model=protocol.Strings, responses=REFUSALS)
async def strings(request: Request, lang: str) -> Any:
    """The page's texts in ``lang``."""
    return page_strings(lang_of(lang))


@router.get("/api/lang")
async def page_language(request: Request) -> Response:
    # The page's language: the one picked on the page, else this one (serve --lang), else the browser's.
    default_lang = request.app.state.settings.default_lang
    known = default_lang in i18n.LANGUAGES
    return JSONResponse({"default": default_lang if known else None, "languages": list(i18n.LANGUAGES)})


@router.get("/api/rules/schema", response_model=dict[str, Any])
async def rules_schema() -> Response:
    """The core's one option schema (``Rules.schema()``, docs/engine.md): the lobby's controls."""
    return JSONResponse(Rules.schema(), headers={"Cache-Control": "max-age=3600"})


@router.get("/api/rules/{lang}", response_model=protocol.RulesSummary, responses=REFUSALS)
async def rules(
    request: Request, lang: str, profile: str = "punjab", options: str | None = None, code: str | None = None
) -> Any:
    """The rules summary of ``profile`` with ``options`` (a JSON object), or of room ``code``."""
    game = None
    if code is not None:  # a room's rules: its profile and the variants in force
        check_reads(request)
        game = await service_of(request).read_rules(code)
        profile = game.profile
    if profile not in ("punjab", "classic"):
        raise RoomError("bad_message", N_("profile: expected punjab or classic"))
    if options and game is None:  # the options of a room being set up (JSON object)
        try:
            chosen = _OPTIONS.validate_json(options).model_dump(exclude_unset=True)
        except ValidationError as exc:
            raise refusal(exc, body=True, field="options") from None
        game = check_config({"profile": profile, "options": chosen})[1]
    return rules_summary(lang_of(lang), profile, game)


@router.get("/api/socket-schema.json", response_model=dict[str, Any])
async def socket_schema() -> Any:
    """The JSON Schema of the WebSocket's messages (client → server, server → client)."""
    return protocol.socket_schema()
