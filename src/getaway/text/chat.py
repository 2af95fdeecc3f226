"""Quick chat at the table: preset phrases and emotes, each a fixed key (no free text, so nothing
to moderate). The one list the web server (the socket's ``chat`` message), the page (``GET
/api/strings/{lang}``'s ``chat``) and the terminal game read.

>>> PHRASES[0], phrase_text("well_played")
('hello', 'Well played!')
>>> phrase_text("heart")
'♥'
"""

from __future__ import annotations

from typing import Final

from .i18n import N_, _

__all__ = ["PHRASES", "TEXTS", "EMOTES", "phrase_text", "chat_texts"]

#: Each phrase's key → its English text (a msgid of the catalogs); emotes are glyphs that any
#: font draws (no emoji font needed) and are the same in every language.
TEXTS: Final[dict[str, str]] = {
    "hello": N_("Hello!"),
    "good_luck": N_("Good luck!"),
    "well_played": N_("Well played!"),
    "nice_take": N_("Nice take!"),
    "oops": N_("Oops!"),
    "hurry_up": N_("Hurry up!"),
    "thanks": N_("Thanks!"),
    "good_game": N_("Good game!"),
}
#: Each emote's key → its glyph.
EMOTES: Final[dict[str, str]] = {"smile": "☺", "heart": "♥", "star": "★", "wow": "!"}
#: Every key, phrases first, in the palette's order.
PHRASES: Final[tuple[str, ...]] = (*TEXTS, *EMOTES)


def phrase_text(key: str) -> str:
    """The text of phrase ``key`` in the language in use (an emote's glyph as it is).

    Raises:
        KeyError: ``key`` is not one of :data:`PHRASES`.
    """
    if key in EMOTES:
        return EMOTES[key]
    return _(TEXTS[key])


def chat_texts() -> dict[str, str]:
    """Every phrase's key → its text in the language in use, in :data:`PHRASES` order."""
    return {key: phrase_text(key) for key in PHRASES}
