"""Learning in the browser (issue 16): the replay viewer's frames, the review of a deal, the lessons.

All three are stateless: the page sends what it has (a deal's record, the learner's moves) and
gets back what to show, computed here with the engine, in the page's language.

* :func:`replay_frame`: the deal of a record after ``move`` recorded actions, as one seat saw
  it (its :func:`~getaway.core.view.player_view`) or with every hand shown (``seat=None``: the
  record of a finished deal is public to its room; a dropped file is its owner's), and the
  narration so far. The request body is size-limited by the edge (:data:`~getaway.web.edge.MAX_BODY`).
* :func:`review_of`: :func:`getaway.bots.review.review_deal` off the event loop, in the
  review workers of a :class:`~getaway.web.reviews.ReviewPool` (a cap on concurrent reviews and
  a bounded queue), within the bots' own search budget.
* :func:`lesson_state`: :func:`getaway.text.lessons.attempt` with the view and texts for the page.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final

from ..bots.review import REVIEW_ITERATIONS
from ..core.deal import replay
from ..core.events import IllegalActionError
from ..core.messages import Text, addressed, at, error_text, seat_number
from ..core.record import RecordError, parse_record
from ..core.view import player_view
from ..text import i18n
from ..text.lessons import LESSONS, attempt
from ..text.narrate import Narrator
from .reviews import ReviewPool
from .rooms.errors import RoomError

__all__ = ["replay_frame", "review_of", "lesson_state", "lesson_list"]


def _bad_record(exc: RecordError, record: Any = None) -> RoomError:
    names = record.get("players") if isinstance(record, dict) else None
    seats = {"players": len(names)} if isinstance(names, list) and names else {}  # seats named as the page does
    error = RoomError("bad_record", N_bad_record, 400, **seats)
    error.cause = in_words(exc, record)
    return error


#: Field names of a record as a player reads them (docs/records.md "Fields").
_FIELDS: Final = {
    "players": i18n.N_("the players' names"),
    "rules": i18n.N_("the rules"),
    "dealer": i18n.N_("the dealer"),
    "seed": i18n.N_("the seed"),
    "joker_to": i18n.N_("the Joker's seat"),
    "start": i18n.N_("the starting hands"),
    "actions": i18n.N_("the moves"),
    "result": i18n.N_("the result"),
}


_MOVE: Final = re.compile(r"actions\[([0-9]+)\]")


def _refused(message: Any) -> bool:
    """Whether ``message`` is an engine's refusal of a move (``"<reason>: <message>"``)."""
    return (
        isinstance(message, Text)
        and message.template == "{where}: {message}"
        and message.args.get("where") in IllegalActionError.REASONS
    )


def in_words(exc: RecordError, record: Any = None) -> RecordError:
    """A record's refusal (:func:`~getaway.core.record.parse_record`'s, or a move the replay
    refused) in a player's words: what the file is not, the field of the record it is about as a
    player names it, the move by its number; the engine's own reason kept after it, translated.
    ``record``: the uploaded data (tells a saved match or another file from a record).

    >>> from getaway.core.messages import Text
    >>> print(in_words(RecordError(at("record", Text("unknown field(s) {names}", names="moves")))))
    this record has a field the game does not know: moves
    """
    text = error_text(exc)
    where = str(text.args.get("where", "")) if text.template == "{where}: {message}" else ""
    message = text.args.get("message", text)
    fmt = record.get("format") if isinstance(record, dict) else None
    if not isinstance(record, dict) and record is not None or where == "format":
        if isinstance(fmt, str) and fmt.startswith("getaway-match/"):
            words = Text(
                i18n.N_("this file is a saved match, not the record of one deal: open it with the getaway command")
            )
        else:
            words = Text(i18n.N_("the file is not a game record ({problem})"), problem=text)
    elif where == "record" and isinstance(message, Text) and message.template == "unknown field(s) {names}":
        words = Text(i18n.N_("this record has a field the game does not know: {names}"), **message.args)
    elif (move := _MOVE.fullmatch(where)) is not None and _refused(message):
        message = message.args["message"]  # the refusal without its reason code
        n = int(move.group(1)) + 1
        words = Text(
            i18n.N_("this record's move {n} ({where}) cannot be played: {problem}"), n=n, where=where, problem=message
        )
    elif where.split(".")[0].split("[")[0] in _FIELDS:
        field = Text(_FIELDS[where.split(".")[0].split("[")[0]])
        words = Text(i18n.N_("this record cannot be read ({field}): {problem}"), field=field, problem=text)
    else:
        words = Text(i18n.N_("this record cannot be read: {problem}"), problem=text)
    return RecordError(words, index=exc.index, reason=exc.reason)


#: The message of a record that cannot be read (the engine's own text replaces it: ``cause``).
N_bad_record: Final = i18n.N_("the record cannot be read")


def _seat(seat: int | None, players: int) -> int | None:
    if seat is not None and not 0 <= seat < players:
        raise RoomError("bad_seat", i18n.N_("seat {seat} does not exist with {n} players"), 400, seat=seat, n=players)
    return seat


def _replay(deal: Any, actions: list[Any], record: Any) -> None:
    """Apply ``actions`` to ``deal`` (both read from ``record``); an illegal one is ``bad_record``."""
    try:
        replay(deal, actions)
    except IllegalActionError as exc:
        index = getattr(exc, "index", None)
        refused = RecordError(at(f"actions[{index}]", exc.text), index=index, reason=exc.reason)
        raise _bad_record(refused, record) from None


def replay_frame(record: Any, move: int | None, seat: int | None, lang: str) -> dict[str, Any]:
    """One frame of the replay viewer.

    Args:
        record: a deal's record (``getaway/1``).
        move: how many recorded actions to apply (``None``: all; more than there are: all).
        seat: whose view (0-based), or ``None`` for every hand.
        lang: the narration's language.

    Returns:
        ``{"players": names, "moves": number of recorded actions, "move": k, "seat",
        "view": the view's dict, "hands": every hand (``seat=None``) or ``None``, "log": lines}``.

    Raises:
        RoomError: ``bad_record`` (the engine's reason: malformed, an illegal action), ``bad_seat``.
    """
    try:
        deal, actions, names, _result = parse_record(record)
    except RecordError as exc:
        raise _bad_record(exc, record) from None
    seat = _seat(seat, deal.players)
    k = len(actions) if move is None else max(0, min(move, len(actions)))
    _replay(deal, actions[:k], record)
    view = player_view(deal, seat)
    with i18n.language(lang):
        log = Narrator(names, deal.rules.special_first_trick).feed(view.history)
    hands = None if seat is not None else [[str(c) for c in deal.hand(s)] for s in range(deal.players)]
    return {
        "players": names,
        "moves": len(actions),
        "move": k,
        "seat": seat,
        "view": view.to_dict(),
        "hands": hands,
        "log": log,
    }


async def review_of(
    pool: ReviewPool,
    address: str,
    record: Any,
    seat: int,
    lang: str,
    iterations: int | None = None,
    *,
    before: Callable[[], None] | None = None,
) -> dict[str, Any]:
    """The review of ``seat``'s play in ``record`` (:func:`getaway.bots.review.review_deal` at
    ``iterations`` rollouts per decision, at most and by default its own budget) as a JSON-ready
    dict with the reasons in ``lang``; read here, computed by ``pool``'s workers for client
    ``address`` (:meth:`ReviewPool.review <getaway.web.reviews.ReviewPool.review>`);
    ``before`` is called once the record is read, before the pool is asked (the route counts
    the review's weight there: a record that cannot be read costs no search).

    Raises:
        RoomError: ``bad_record``, ``bad_seat`` (400, before ``before`` and the pool); what
            ``before`` raises; the pool's ``rate_limited`` (429), ``reviews_busy`` and
            ``review_failed`` (503).
    """
    try:
        deal, actions, names, _result = parse_record(record)
    except RecordError as exc:
        raise _bad_record(exc, record) from None
    _seat(seat, len(names))
    _replay(deal, actions, record)  # milliseconds here: an illegal move takes no review worker
    if before is not None:
        before()
    try:
        budget = min(iterations or REVIEW_ITERATIONS, REVIEW_ITERATIONS)
        review = await pool.review(address, record, seat, budget)
    except RecordError as exc:
        raise _bad_record(exc, record) from None
    with i18n.language(lang):
        return {"players": names, **review.to_dict(i18n.localize)}


def lesson_list(lang: str) -> list[dict[str, str]]:
    """Every lesson's ``key``, ``profile`` and ``title`` (in ``lang``), in the order taught."""
    with i18n.language(lang):
        return [{"key": k, "profile": v.profile, "title": i18n._(v.title)} for k, v in LESSONS.items()]


def lesson_state(key: str, moves: list[str], lang: str) -> dict[str, Any]:
    """The lesson ``key`` after the learner's ``moves`` (see :func:`getaway.text.lessons.attempt`).

    Returns:
        ``{"key", "profile", "title", "goal", "seat", "players": seat names, "view": the learner's
        view, "verdict", "message", "log": narration of the moves since the start, "illegal": why
        each card of the learner's hand may not be played now (``{"card", "reason", "text"}``,
        spoken to the learner as the live table's are: the page shows it when such a card is
        tapped)}``, texts in ``lang``.

    Raises:
        RoomError: ``not_found`` (no such lesson), ``bad_message`` (moves that were never accepted).
    """
    lesson = LESSONS.get(key)
    if lesson is None:
        raise RoomError("not_found", i18n.N_("no lesson {name!r}"), 404, name=key)
    try:
        result = attempt(lesson, moves)
    except ValueError as exc:
        problem = str(exc)
        raise RoomError(
            "bad_message", i18n.N_("these moves do not fit the lesson: {problem}"), 400, problem=problem
        ) from None
    start = lesson.start()
    view = player_view(result.deal, lesson.seat)
    with i18n.language(lang):
        names = [i18n._("Seat {n}").format(n=seat_number(s)) for s in range(len(lesson.hands))]
        narrator = Narrator(names, result.deal.rules.special_first_trick)
        narrator.feed(view.history[: start.event_count])
        log = narrator.feed(view.history[start.event_count :])
        message = i18n.localize(result.message, names)
        deal = result.deal
        reasons = {} if deal.is_over else {str(c): deal.why_illegal(c, lesson.seat) for c in deal.hand(lesson.seat)}
        # spoken to the learner ("You hold a ♦: …"), as the live table's refusals are
        spoken = {card: addressed(why.params["message"], lesson.seat) for card, why in reasons.items() if why}
        illegal = [
            {"card": card, "reason": why.reason, "text": i18n.localize(spoken[card], names)}
            for card, why in reasons.items()
            if why is not None
        ]
        return {
            "key": key,
            "profile": lesson.profile,
            "title": i18n._(lesson.title),
            "goal": i18n._(lesson.goal),
            "seat": lesson.seat,
            "view": view.to_dict(),
            "verdict": result.verdict,
            "message": message,
            "log": log,
            "illegal": illegal,
        }
