"""What a room is made of before it is a room: the limits (names, deals, turn times), the
checks of what a client sends (:func:`check_name`, :func:`check_config`, :func:`check_lang`)
and the secrets a room is made with (tokens, codes, seeds).

Owns: those checks and constants. Imports :mod:`.errors` only.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import re
import secrets
import unicodedata
from typing import Any, Final

from confusable_homoglyphs import confusables

from ...bots import LEVELS
from ...core.rules import Rules, RulesError
from ...text import i18n
from ...text.i18n import N_
from .errors import RoomError

#: Longest display name (characters).
MAX_NAME: Final = 24

#: The mark of a bot wherever a seat's name is shown (narration, the page); no human name may hold it.
BOT_MARK: Final = "\N{ROBOT FACE}"

#: Room statuses (``room.status``).
STATUSES: Final = ("lobby", "playing", "between_deals", "finished", "closed")

#: Most deals a web match may have.
MAX_DEALS: Final = 50

#: Seconds a connected human has for a turn before a bot plays it (a room's default ``turn_time``),
#: and the range a room may choose.
TURN_TIME: Final = 45

MIN_TURN_TIME: Final = 1

MAX_TURN_TIME: Final = 600

#: Seconds a bot's lead waits, between tricks, while a connected human may take (a room's
#: default ``take_window``, docs/web.md "Takes"), and the range a room may choose.
TAKE_WINDOW: Final = 2.5

MIN_TAKE_WINDOW: Final = 0.0

MAX_TAKE_WINDOW: Final = 10.0

_CODE_ALPHABET: Final = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I

_OPTION_NAMES: Final = frozenset(n for n, spec in Rules.schema()["options"].items() if spec["group"] != "setup")


def hash_token(token: str) -> str:
    """The SHA-256 (hex) of a token: what the database keeps."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def new_token() -> str:
    """A fresh secret seat or host token (``secrets.token_urlsafe(32)``)."""
    return secrets.token_urlsafe(32)


def new_code() -> str:
    """A random 6-character invite code (no look-alike characters)."""
    return "".join(secrets.choice(_CODE_ALPHABET) for _ in range(6))


def new_seed() -> int:
    """A fresh 63-bit match seed (``secrets``): it chooses the first dealer and seeds the bots."""
    return secrets.randbits(63)


def new_secret() -> bytes:
    """A fresh 256-bit deal secret (``secrets``): every deal's 128-bit shuffle seed comes from it
    (:func:`getaway.core.match.secret_deal_seed`); it never leaves the server."""
    return secrets.token_bytes(32)


def same_token(token_hash: str | None, token: str) -> bool:
    """Whether ``token`` hashes to ``token_hash`` (constant time; ``None`` matches nothing)."""
    return token_hash is not None and hmac.compare_digest(token_hash, hash_token(token))


def check_name(name: Any) -> str:
    """A display name, stripped: 1–24 printable characters.

    Raises:
        RoomError: ``bad_message`` (not a string or empty), ``name_too_long``.
    """
    if not isinstance(name, str):
        raise RoomError("bad_message", N_("the name must be text"))
    name = " ".join(name.split())
    if not name or not name.isprintable():
        raise RoomError("bad_message", N_("the name is empty or has characters that cannot be shown"))
    if len(name) > MAX_NAME:
        raise RoomError("name_too_long", N_("names have at most {n} characters"), n=MAX_NAME)
    if BOT_MARK in name:
        raise RoomError("bad_message", N_("the name may not hold {mark}: it marks the bots"), mark=BOT_MARK)
    if _BOT_NAME.fullmatch(name_skeleton(name)):  # "Bot 3", "bot_3", "Bоt 3" (Cyrillic о): a bot's name
        message = N_("{name} is what the bots are called here: choose another name")
        raise RoomError("name_reserved", message, name=name)
    return name


#: A bot's name, "Bot n" in every language of the page, as :func:`name_skeleton` folds it ("0" may
#: stand for the "o"; the number in any script's digits).
_BOT_NAME: Final = re.compile(r"b[o0]t\d+")

#: Unicode general categories :func:`name_skeleton` drops: separators (Z), punctuation (P), symbols
#: (S), controls and invisible format characters (C), and combining marks (M) after decomposition.
_FOLDED_CATEGORIES: Final = frozenset("ZPSCM")


@functools.lru_cache(maxsize=4096)
def _latin_look_alike(char: str) -> str:
    """The ASCII letter or digit that ``char`` (one non-ASCII character) passes for in Unicode's
    confusables table (UTS #39, through :mod:`confusable_homoglyphs`), or that of its capital, or
    ``char`` itself."""
    for form in (char, char.upper()):  # the Cyrillic "т" passes for a "t" as its capital does for "T"
        for entry in confusables.is_confusable(form, greedy=True, preferred_aliases=["latin"]) or []:
            for glyph in entry["homoglyphs"]:
                if glyph["c"].isascii() and glyph["c"].isalnum():
                    return glyph["c"]
    return char


def name_skeleton(name: str) -> str:
    """What a name looks like, for the check that no human passes for a bot: NFKC, combining marks
    stripped, every non-ASCII character replaced by the ASCII letter or digit it is confusable with
    (Unicode's confusables, UTS #39 skeleton in spirit), case-folded, and separators, punctuation,
    symbols and invisible characters dropped.

    >>> {name_skeleton(n) for n in ("Bot 3", "Bo\u0301t 3", "Bot_3", "Bot-3", "B\u043et 3", "ＢＯＴ ３")}
    {'bot3'}
    """
    decomposed = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", name))
    kept = (c for c in decomposed if unicodedata.category(c)[0] not in _FOLDED_CATEGORIES)
    return "".join(c if c.isascii() else _latin_look_alike(c) for c in kept).casefold()


def name_key(name: str) -> str:
    """What two names must not share in one room: the name in Unicode NFKC form, case-folded,
    without any white space (so "Ben", "ben", " B EN" and "Ｂｅｎ" are one name).

    >>> name_key("  B En ") == name_key("ben") == name_key("Ｂｅｎ")
    True
    """
    return "".join(unicodedata.normalize("NFKC", name).casefold().split())


def check_config(data: Any) -> tuple[dict[str, Any], Rules]:
    """The room configuration of ``POST /api/rooms``, normalized, and its rules.

    ``{"profile": "punjab", "players": 4, "deals": 1, "options": {"trump": "spades"},
    "bot_level": "medium", "hints": true, "turn_time": 45, "take_window": 2.5}``; every key optional
    (defaults: punjab, 4 players, 1 deal, medium, hints on, :data:`TURN_TIME` seconds a turn,
    :data:`TAKE_WINDOW` seconds of a take window).

    Raises:
        RoomError: ``bad_message`` naming the bad field (unknown profile or option, bad value).
    """
    if not isinstance(data, dict):
        raise RoomError("bad_message", N_("expected a JSON object"))
    profile = data.get("profile", "punjab")
    players = data.get("players", 4)
    deals = data.get("deals", 1)
    options = data.get("options") or {}
    level = data.get("bot_level", "medium")
    if not isinstance(options, dict) or any(k not in _OPTION_NAMES for k in options):
        known = ", ".join(sorted(_OPTION_NAMES))
        raise RoomError("bad_message", N_("options: unknown option (known: {known})"), known=known)
    if level not in LEVELS:
        raise RoomError("bad_message", N_("bot_level: expected one of {known}"), known=", ".join(LEVELS))
    if isinstance(deals, int) and not isinstance(deals, bool) and deals > MAX_DEALS:
        raise RoomError("bad_message", N_("deals: at most {n}"), n=MAX_DEALS)
    if profile not in ("punjab", "classic"):
        raise RoomError("bad_message", N_("profile: expected punjab or classic"))
    try:
        rules = Rules.profile(profile, players=players, deals=deals, **options)
    except RulesError as exc:  # the core's refusal names the option (translated through ``cause``)
        error = RoomError("bad_message", N_("rules: {problem}"), problem=str(exc)[:200])
        error.cause = exc
        raise error from None
    except TypeError as exc:
        raise RoomError("bad_message", N_("rules: {problem}"), problem=str(exc)[:200]) from None
    config = {"profile": profile, "players": players, "deals": deals, "options": dict(options), "bot_level": level}
    hints = data.get("hints", True)
    if not isinstance(hints, bool):
        raise RoomError("bad_message", N_("hints: expected true or false"))
    if not hints:  # the host switched the hint off (web/hints.py); absent means on
        config["hints"] = False
    public = data.get("public", False)
    if not isinstance(public, bool):
        raise RoomError("bad_message", N_("public: expected true or false"))
    if public:  # listed in the lobby (GET /api/rooms?public=1); absent means private
        config["public"] = True
    turn_time = data.get("turn_time", TURN_TIME)
    if isinstance(turn_time, bool) or not isinstance(turn_time, int) or not MIN_TURN_TIME <= turn_time <= MAX_TURN_TIME:
        template = N_("turn_time: expected whole seconds from {low} to {high}")
        raise RoomError("bad_message", template, low=MIN_TURN_TIME, high=MAX_TURN_TIME)
    if turn_time != TURN_TIME:  # absent means the default (rooms made before the option)
        config["turn_time"] = turn_time
    window = data.get("take_window", TAKE_WINDOW)
    number = isinstance(window, (int, float)) and not isinstance(window, bool)
    if not number or not MIN_TAKE_WINDOW <= window <= MAX_TAKE_WINDOW:
        template = N_("take_window: expected seconds from {low} to {high}")
        raise RoomError("bad_message", template, low=MIN_TAKE_WINDOW, high=MAX_TAKE_WINDOW)
    if window != TAKE_WINDOW:  # absent means the default (rooms made before the option)
        config["take_window"] = float(window)
    return config, rules


def live_config(data: Any) -> dict[str, Any]:
    """The configuration a new room is created with: :func:`check_config`'s, with punjab's
    takes offered by the ``interject`` protocol (R-P-TAKE) unless the creator chose a
    protocol: a player who never takes is never asked (docs/web.md "Takes"). Stored with the
    room, so that rooms made before (with ``poll``) replay as they were played.

    Raises:
        RoomError: as :func:`check_config`.
    """
    config, rules = check_config(data)
    if rules.take_protocol == "poll" and "take_protocol" not in config["options"]:
        config["options"]["take_protocol"] = "interject"
        config, rules = check_config(config)
    return config


def check_lang(value: Any) -> str:
    """A language of the page (:data:`getaway.text.i18n.LANGUAGES`), lower-cased.

    Raises:
        RoomError: ``bad_message`` (not one of them).
    """
    if not isinstance(value, str) or value.lower() not in i18n.LANGUAGES:
        raise RoomError("bad_message", N_("language: expected one of {known}"), known=", ".join(i18n.LANGUAGES))
    return value.lower()
