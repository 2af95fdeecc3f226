"""Languages of the command line: gettext catalogs (managed with Babel), card and suit names.

Satellite of the core. The messages are English in the code, wrapped in :func:`_` /
:func:`ngettext`; the catalogs ``locale/<lang>/LC_MESSAGES/getaway.po`` translate them and
their compiled ``.mo`` files ship with the package (docs/cli.md, "Languages").

>>> _ = use("fr")
>>> card_name(Card.parse("qh"))
'dame de cœur'
>>> _ = use("en")
>>> card_name(Card.parse("10s"))
'ten of spades'
"""

from __future__ import annotations

import gettext as _gettext
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from ..core.cards import Card
from ..core.messages import Reason, Text

__all__ = [
    "LANGUAGES",
    "LOCALE_DIR",
    "DOMAIN",
    "_",
    "N_",
    "Reason",
    "localize",
    "ngettext",
    "use",
    "current",
    "isolate",
    "language",
    "RTL_LANGUAGES",
    "detect",
    "card_name",
    "command_word",
    "suit_name",
    "suit_plural",
]

#: Languages with a catalog (English is the source language and needs none).
LANGUAGES: Final = ("en", "fr", "it", "pt", "es", "hi", "ur", "bn", "pa")
#: The languages written right to left (their sentences isolate the values put in them: :func:`isolate`).
RTL_LANGUAGES: Final = frozenset({"ur"})
LOCALE_DIR: Final = Path(__file__).resolve().parent / "locale"
DOMAIN: Final = "getaway"
#: Click's own messages ("Usage:", "Options", "No such option …"), extracted from the installed
#: Click into ``locale/click.pot`` and translated in ``locale/<lang>/LC_MESSAGES/click.po``.
CLICK_DOMAIN: Final = "click"
#: Click's modules that translate with ``from gettext import gettext as _`` (and ``ngettext``).
_CLICK_MODULES: Final = (
    "core", "decorators", "exceptions", "formatting", "parser", "types", "utils", "termui",
    "shell_completion", "_termui_impl",
)  # fmt: skip

_translations: _gettext.NullTranslations = _gettext.NullTranslations()
_click_translations: _gettext.NullTranslations = _gettext.NullTranslations()
_language = "en"


def detect(environ: Mapping[str, str] | None = None) -> str:
    """The language chosen by the locale: the first of ``LANGUAGE`` (a ``:`` list), ``LC_ALL``,
    ``LC_MESSAGES``, ``LANG`` that names a known language; English otherwise.

    >>> detect({"LANG": "pt_BR.UTF-8"}), detect({"LANGUAGE": "de:es", "LANG": "fr_FR"}), detect({})
    ('pt', 'es', 'en')
    """
    env = os.environ if environ is None else environ
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(var, "")
        for item in value.split(":"):
            code = item.split(".")[0].split("@")[0].split("_")[0].split("-")[0].lower()
            if code in LANGUAGES:
                return code
            if code in ("c", "posix"):
                return "en"
    return "en"


def use(language: str | None) -> str:
    """Switch every message to ``language`` (``None``: :func:`detect`); returns the code used.

    Raises:
        ValueError: not one of :data:`LANGUAGES`.
    """
    global _translations, _click_translations, _language
    lang = detect() if language is None else language.lower().replace("-", "_").split("_")[0]
    if lang not in LANGUAGES:
        raise ValueError(f"language: {language!r} is not one of {', '.join(LANGUAGES)}")
    if lang == "en":
        _translations = _gettext.NullTranslations()
        _click_translations = _gettext.NullTranslations()
    else:
        _translations = _gettext.translation(DOMAIN, LOCALE_DIR, languages=[lang])
        _click_translations = _gettext.translation(CLICK_DOMAIN, LOCALE_DIR, languages=[lang], fallback=True)
    _language = lang
    _install_click()
    return lang


def click_gettext(message: str) -> str:
    """One of Click's own messages in the current language (installed in Click's modules)."""
    return _click_translations.gettext(message)


def click_ngettext(singular: str, plural: str, n: int) -> str:
    """The plural-aware form of :func:`click_gettext`."""
    return _click_translations.ngettext(singular, plural, n)


def _install_click() -> None:
    """Make Click's own messages follow :func:`use`, if Click is loaded (the bots never load it).

    Click 8 translates with the standard library's module-level ``gettext.gettext`` /
    ``ngettext`` (default domain, language from the environment only), imported by name into
    each of its modules as ``_`` and ``ngettext``; those names are pointed at
    :func:`click_gettext` / :func:`click_ngettext`, which read our ``click`` catalog of the
    language in use. Only names that are still the standard library's functions (or already
    ours) are replaced, so another Click that translates differently is left alone.
    """
    import importlib
    import sys

    if "click" not in sys.modules:
        return
    for name in _CLICK_MODULES:
        try:
            module = importlib.import_module(f"click.{name}")
        except ImportError:  # pragma: no cover - a Click without this module
            continue
        for attr, stdlib, ours in (
            ("_", _gettext.gettext, click_gettext),
            ("ngettext", _gettext.ngettext, click_ngettext),
        ):
            if getattr(module, attr, None) is stdlib:
                setattr(module, attr, ours)


def current() -> str:
    """The language in use."""
    return _language


@contextmanager
def language(lang: str) -> Iterator[str]:
    """Switch to ``lang`` for a ``with`` block, then back to the language before (the web
    server speaks each connection's language in turn). Synchronous use only: the language
    is process-wide, so no ``await`` inside the block.

    >>> with language("fr"):
    ...     _("{who} plays {cards}").format(who="A", cards="Q♥")
    'A joue Q♥'
    >>> current()
    'en'

    Raises:
        ValueError: not one of :data:`LANGUAGES`.
    """
    previous = _language
    if lang == previous:
        yield lang
        return
    used = use(lang)
    try:
        yield used
    finally:
        use(previous)


def translations() -> _gettext.NullTranslations:
    """The catalog in use (tests wrap it to find missing messages)."""
    return _translations


def set_translations(catalog: _gettext.NullTranslations) -> None:
    """Install ``catalog`` as the one in use (for tests)."""
    global _translations
    _translations = catalog


def _(message: str) -> str:
    """``message`` in the current language."""
    return _translations.gettext(message)


def isolate(value: object, *, ltr: bool = False) -> str:
    """``value`` as text to put in a sentence of the current language: in a right-to-left one
    (:data:`RTL_LANGUAGES`) between FIRST STRONG ISOLATE and POP DIRECTIONAL ISOLATE (U+2068,
    U+2069), so that a Latin name, a seat letter, a number or a card ("10♥") keeps its place
    in the Urdu sentence instead of joining the text around it (Unicode bidi, UAX #9); in the
    others ``str(value)`` unchanged. ``ltr``: a LEFT-TO-RIGHT ISOLATE (U+2066) instead, for
    cards: a card's rank and suit read left to right whatever follows them (the page draws a
    card's name for screen readers inside it, in Urdu letters, which an FSI would follow).

    >>> isolate("B")
    'B'
    >>> with language("ur"):
    ...     isolate("10♥")
    '\u206810♥\u2069'
    >>> with language("ur"):
    ...     isolate("10♥", ltr=True)
    '\u206610♥\u2069'
    """
    text = str(value)
    if _language not in RTL_LANGUAGES:
        return text
    opening = "\u2066" if ltr else "\u2068"
    return f"{opening}{text}\u2069"


def N_(message: str) -> str:
    """Mark ``message`` for the catalog without translating it now (translated where shown)."""
    return message


def localize(text: str | BaseException, seats: Sequence[str] | None = None) -> str:
    """``text`` in the current language when it is a :class:`Reason`, a core message
    (:class:`getaway.core.messages.Text`) or an exception whose message is one (the core's
    ``RulesError``, ``RecordError`` …: its template is looked up, its fields filled with the same
    values, fields that are messages translated in turn); else ``str(text)`` unchanged.

    ``seats``: how the interface names the seats (``seats[n]`` for seat ``n``): a core
    message's ``seat`` and ``turn`` fields are shown so (the web page counts from 1, the
    terminal says A, B, C …) instead of the engine's 0-based number.

    >>> from getaway import Rules
    >>> try:
    ...     Rules.profile("punjab", players=2)
    ... except ValueError as exc:
    ...     error = exc
    >>> _ = use("es"); localize(error)
    'players: punjab se juega con 3 a 8 jugadores, no 2'
    >>> _ = use("en"); localize(error)
    'players: punjab is for 3 to 8 players, not 2'
    >>> localize(Text(N_("seat {turn} is to play, not seat {seat}"), turn=2, seat=0), seats="ABCD")
    'seat C is to play, not seat A'
    >>> r = Reason(N_("Lead {card}: everyone should follow, and it empties your {suit}."), card="Q♥", suit=1)
    >>> _ = use("fr"); localize(r)
    "Entamez Q♥ : tout le monde devrait fournir, et vous n'aurez plus de cœur."
    >>> _ = use("en"); localize(r)
    'Lead Q♥: everyone should follow, and it empties your hearts.'
    """
    if isinstance(text, BaseException):
        arg = text.args[0] if len(text.args) == 1 else None
        return localize(arg, seats) if isinstance(arg, Text) else str(text)
    if isinstance(text, Text):
        fields = {k: _field(k, v, seats) for k, v in text.args.items()}
        return _(text.template).format(**fields)
    if not isinstance(text, Reason):
        return str(text)
    args = {
        k: suit_plural(v) if k == "suit" else localize(v) if isinstance(v, Reason) else v  # type: ignore[arg-type]
        for k, v in text.args.items()
    }
    return _(text.template).format(**args)


def _field(key: str, value: object, seats: Sequence[str] | None) -> object:
    if isinstance(value, (str, BaseException)):
        return localize(value, seats)
    if seats is not None and key in ("seat", "turn") and type(value) is int and 0 <= value < len(seats):
        return seats[value]
    return value


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural form for ``n``, in the current language."""
    return _translations.ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """``message`` in the current language, disambiguated by ``context``."""
    return _translations.pgettext(context, message)


def command_word(word: str) -> str:
    """The translated name of a command word (``hint``, ``take`` …); the English one works too.

    Raises:
        KeyError: ``word`` is not one of the command words.
    """
    return {
        "hint": pgettext("command", "hint"),
        "rules": pgettext("command", "rules"),
        "history": pgettext("command", "history"),
        "save": pgettext("command", "save"),
        "quit": pgettext("command", "quit"),
        "help": pgettext("command", "help"),
        "take": pgettext("command", "take"),
        "pass": pgettext("command", "pass"),
        "pickup": pgettext("command", "pickup"),
        "say": pgettext("command", "say"),
        "yes": pgettext("command", "yes"),
        "no": pgettext("command", "no"),
    }[word]


def _rank_names() -> tuple[str, ...]:
    return (
        pgettext("rank", "two"),
        pgettext("rank", "three"),
        pgettext("rank", "four"),
        pgettext("rank", "five"),
        pgettext("rank", "six"),
        pgettext("rank", "seven"),
        pgettext("rank", "eight"),
        pgettext("rank", "nine"),
        pgettext("rank", "ten"),
        pgettext("rank", "jack"),
        pgettext("rank", "queen"),
        pgettext("rank", "king"),
        pgettext("rank", "ace"),
    )


def suit_plural(suit: int) -> str:
    """The name of a suit as in "no hearts": ``spades`` … (translated)."""
    return (pgettext("suit", "spades"), pgettext("suit", "hearts"), pgettext("suit", "diamonds"),
            pgettext("suit", "clubs"))[suit]  # fmt: skip


def suit_name(suit: int) -> str:
    """The suit as in "queen of hearts" (some languages inflect it differently)."""
    return (pgettext("of suit", "spades"), pgettext("of suit", "hearts"), pgettext("of suit", "diamonds"),
            pgettext("of suit", "clubs"))[suit]  # fmt: skip


def card_name(card: Card) -> str:
    """The full name of a card in the current language: ``queen of hearts``, ``dame de cœur``."""
    if card.is_joker:
        return pgettext("card", "joker")
    return _("{rank} of {suit}").format(rank=_rank_names()[card.rank - 2], suit=suit_name(card.suit or 0))
