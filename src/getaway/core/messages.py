"""Messages of the core that the command line shows in other languages.

The core speaks English and imports nothing outside the standard library, so it does not
translate. Instead, the message of each of its errors is a :class:`Text`: an English ``str``
(what ``str(exc)`` shows, unchanged for tests and library users) that also keeps its
template, marked with :func:`N_` so that ``pybabel extract`` puts it in the catalogs, and the
values of its fields. A satellite shows it in another language by looking the template up
and formatting it with the same values (``getaway.text.i18n.localize``, docs/cli.md, "Languages").
Field values that are :class:`Text` themselves (or exceptions) are translated too; anything
else (card names, option names, the user's input) is shown as it is.

>>> t = at("players", Text(N_("expected a whole number, got {value!r}"), value="x"))
>>> t
"players: expected a whole number, got 'x'"
>>> t.template, t.args["where"]
('{where}: {message}', 'players')
>>> exc = TextError(t)
>>> str(exc) == t, exc.text is t, exc.params["message"].template
(True, True, 'expected a whole number, got {value!r}')
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "ADDRESSED",
    "N_",
    "Reason",
    "Text",
    "TextError",
    "addressed",
    "at",
    "error_text",
    "seat_letter",
    "seat_letters",
    "seat_number",
    "seat_numbers",
    "default_names",
    "parse_seat",
]


def N_(message: str) -> str:
    """Mark ``message`` for the catalogs without translating it (the core never translates)."""
    return message


class Text(str):
    """An English message (a ``str``: ``template`` formatted with ``args``) that keeps its
    ``N_``-marked template and its fields, so that it can be shown in another language later.

    Attributes:
        template: the English template, with ``{name}`` fields (``str.format`` syntax).
        args: the field values: plain values are shown as they are, :class:`Text` values
            (and exceptions) are translated in their turn.
    """

    template: str
    args: dict[str, Any]

    def __new__(cls, template: str, /, **args: Any) -> Text:
        self = super().__new__(cls, template.format(**args))
        self.template = template
        self.args = args
        return self

    def __getnewargs_ex__(self) -> tuple[tuple[str], dict[str, Any]]:  # pickling, copying
        return (self.template,), self.args

    @classmethod
    def plain(cls, message: str) -> Text:
        """A message with no template of its own (shown as it is in every language)."""
        return message if isinstance(message, Text) else cls(message.replace("{", "{{").replace("}", "}}"))


def at(where: Any, message: Any) -> Text:
    """``"{where}: {message}"``: a message about one field (``players: …``, ``actions[3]: …``)."""
    return Text(N_("{where}: {message}"), where=where, message=message)


def error_text(exc: BaseException) -> Text:
    """The :class:`Text` of an exception whose message is one (else its ``str``, as a plain Text)."""
    arg = exc.args[0] if len(exc.args) == 1 else None
    return arg if isinstance(arg, Text) else Text.plain(str(exc))


class TextError(ValueError):
    """Base of the core's errors: the message is a :class:`Text` (English ``str(exc)``).

    ``template`` and ``params`` are those of the message (``args`` is taken by exceptions).
    """

    @property
    def text(self) -> Text:
        """The message as a :class:`Text`."""
        return error_text(self)

    @property
    def template(self) -> str:
        """The message's English template (``N_``-marked, with ``{name}`` fields)."""
        return self.text.template

    @property
    def params(self) -> dict[str, Any]:
        """The values of the template's fields."""
        return self.text.args


class Reason(str):
    """An English sentence (a ``str``) that remembers its ``N_``-marked template and arguments,
    so that it can be shown in another language later (``getaway.text.i18n.localize``); the bots' hint
    reasons. Arguments named ``suit`` are suit numbers (``spades`` …); a :class:`Reason`
    argument is localized too; anything else is shown as it is.

    >>> r = Reason(N_("Lead {card}: everyone should follow, and it empties your {suit}."), card="Q♥", suit=1)
    >>> r
    'Lead Q♥: everyone should follow, and it empties your hearts.'
    """

    template: str
    args: dict[str, object]

    def __new__(cls, template: str, **args: object) -> Reason:
        english = {k: _SUITS[v] if k == "suit" else v for k, v in args.items()}  # type: ignore[index,call-overload]
        self = super().__new__(cls, template.format(**english) if args else template)
        self.template = template
        self.args = args
        return self


_SUITS = ("spades", "hearts", "diamonds", "clubs")


# ---------------------------------------------------------------------- how texts name seats
#
# Seats are 0-based in every value of the engine (events, views, records, JSON). Texts name
# them in one of two ways, both defined here once: the terminal and the command line by letter
# (``A`` for seat 0, ``B`` …, clockwise), the web page by number counted from 1 (``1`` for seat
# 0); a record or a match given no player names calls them ``Seat 1`` … (:func:`default_names`).
# ``getaway.text.i18n.localize(text, seats)`` puts one of these lists into the engine's texts.


def seat_letter(seat: int) -> str:
    """Seat ``seat`` (0-based) by letter, as the terminal and the command line name it.

    >>> seat_letter(0), seat_letter(3)
    ('A', 'D')
    """
    return chr(ord("A") + seat)


def seat_letters(players: int) -> list[str]:
    """:func:`seat_letter` of each seat of a table of ``players``: ``["A", "B", …]``."""
    return [seat_letter(s) for s in range(players)]


def seat_number(seat: int) -> str:
    """Seat ``seat`` (0-based) as the web page names it in a text: counted from 1.

    >>> seat_number(0)
    '1'
    """
    return str(seat + 1)


def seat_numbers(players: int) -> list[str]:
    """:func:`seat_number` of each seat of a table of ``players``: ``["1", "2", …]``."""
    return [seat_number(s) for s in range(players)]


def default_names(players: int) -> list[str]:
    """The player names of a record or a match given none: ``Seat 1`` … ``Seat n`` (English,
    stored as they are: a name is not translated).

    >>> default_names(3)
    ['Seat 1', 'Seat 2', 'Seat 3']
    """
    return [f"Seat {seat_number(s)}" for s in range(players)]


def parse_seat(text: str, players: int) -> int | None:
    """The seat (0-based) that ``text`` names at a table of ``players``: a letter (``B``, any
    case: :func:`seat_letter`) or a number counted from 1 (``2``: :func:`seat_number`); ``None``
    when it names no seat of the table (the caller says so in its own words).

    >>> parse_seat("b", 4), parse_seat("2", 4), parse_seat("E", 4), parse_seat("0", 4)
    (1, 1, None, None)
    """
    t = text.strip().upper()
    if len(t) == 1 and "A" <= t <= "Z":
        seat = ord(t) - ord("A")
    elif t.isdigit():
        seat = int(t) - 1
    else:
        return None
    return seat if 0 <= seat < players else None


# ---------------------------------------------------------------------- refusals to the seat itself
#
# The engine words each refusal once, in the third person ("seat {seat} holds …"), for any
# reader: a log, a record's check, another seat. Read by the seat concerned, the same refusal
# speaks to the player: the second-person form of its template, kept here beside it (the reason
# code and its fields are the same; only the wording differs) and without the rule id.

#: the second-person form of each engine refusal a player can meet at the table, by its template
ADDRESSED: dict[str, str] = {
    N_("seat {seat} holds {suit} and must follow suit, not play {card}"): N_("You hold a {suit}: you must follow suit"),
    N_("seat {seat} does not hold {card}"): N_("You do not hold {card}"),
    N_("seat {turn} is to play, not seat {seat}"): N_("Wait for your turn: seat {turn} is to play"),
    N_("seat {turn} is to act, not seat {seat}"): N_("Wait for your turn: seat {turn} is to act"),
    N_("the first trick must be led with the A♠ (R-ACE)"): N_("The first trick must be led with your A♠"),
    N_("seat {seat} must lead the card drawn from the waste"): N_("You must lead the card you drew from the waste"),
    N_("seat {seat} cannot follow and plays no card here (it picks up or passes)"): N_(
        "You cannot follow, so you play no card here: pick up or pass"
    ),
    N_("seat {seat} must first answer the take poll: take or pass"): N_("First answer the take: take or pass"),
    N_("{call} is not a choice for seat {seat} now"): N_("{call} is not a choice for you now"),
}


def addressed(text: Text, reader: int | None) -> Text:
    """``text`` as the seat ``reader`` (0-based) reads it: the second-person form of an engine
    refusal (:data:`ADDRESSED`) when it is about that seat (its ``seat`` field is ``reader``, or
    it names no seat), else ``text`` unchanged (also for ``reader=None``: another reader).

    >>> t = Text(N_("seat {seat} holds {suit} and must follow suit, not play {card}"), seat=0, suit="♠", card="3♥")
    >>> addressed(t, 0), addressed(t, 1)
    ('You hold a ♠: you must follow suit', 'seat 0 holds ♠ and must follow suit, not play 3♥')
    """
    form = ADDRESSED.get(getattr(text, "template", ""))
    if reader is None or form is None or text.args.get("seat", reader) != reader:
        return text
    return Text(form, **text.args)
