"""Game records: one deal as a JSON document (format ``getaway/1``, docs/records.md).

A record holds the rules, the seat names, the dealer, the seed (or an explicit start
position) and the actions; replaying it rebuilds the deal exactly. Poll passes are not
recorded; automatic events (a classic void player's pick-up, a blind draw) are not actions.

>>> from getaway import Deal, Rules
>>> deal = Deal(Rules.profile("punjab", takes="off"), dealer=0, seed=3)
>>> _ = deal.play("A♠")
>>> rec = record_of(deal, ["W", "N", "E", "S"])
>>> rec["actions"][0]
{'seat': 0, 'play': 'A♠'}
>>> deal_from_record(rec).snapshot() == deal.snapshot()
True
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from .cards import Card, InvalidCardError
from .deal import Deal, replay
from .events import PASS, PICKUP, TAKE, Action, Call, IllegalActionError
from .messages import N_, Text, TextError, at, default_names, error_text
from .position import Position, PositionError
from .rules import Rules, RulesError

__all__ = [
    "FORMAT",
    "RecordError",
    "record_of",
    "deal_from_record",
    "parse_record",
    "load_record",
    "dumps",
    "state_summary",
]

FORMAT: Final = "getaway/1"
_ACTION_KEYS: Final = {"play", "take", "pass", "pickup"}


class RecordError(TextError):
    """A record that is malformed, or whose replay fails (a ``ValueError`` whose message is a
    translatable :class:`~getaway.core.messages.Text`).

    Attributes:
        index: for an illegal action, its position in ``actions`` (else ``None``).
        reason: for an illegal action, the :class:`~getaway.core.events.IllegalActionError` reason.
    """

    def __init__(self, message: str, *, index: int | None = None, reason: str | None = None) -> None:
        super().__init__(message)
        self.index = index
        self.reason = reason


def _action_to_json(seat: int, action: Action) -> dict[str, Any]:
    if isinstance(action, Call):
        return {"seat": seat, str(action): True}
    return {"seat": seat, "play": str(action)}


def record_of(deal: Deal, players: Sequence[str] | None = None) -> dict[str, Any]:
    """The record of ``deal`` so far (finished or not) as a JSON-ready dict.

    Args:
        deal: the deal.
        players: seat names, clockwise (default ``Seat 1`` …).

    Raises:
        ValueError: wrong number of names.
    """
    names = list(players) if players is not None else default_names(deal.players)
    if len(names) != deal.players:
        raise ValueError(at("players", Text(N_("{k} names for {n} seats"), k=len(names), n=deal.players)))
    record: dict[str, Any] = {
        "format": FORMAT,
        "rules": deal.rules.to_dict(),
        "players": names,
        "dealer": deal.dealer,
        "seed": deal.seed,
    }
    if deal.joker_to is not None:
        record["joker_to"] = deal.joker_to
    if deal.start is not None:
        record["start"] = deal.start.to_dict()
    record["actions"] = [_action_to_json(seat, action) for seat, action in deal.actions]
    outcome = deal.outcome
    if outcome is not None:
        record["result"] = outcome.to_dict()
    return record


def _int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RecordError(at(where, Text(N_("expected a whole number, got {value!r}"), value=value)))
    return value


def _check_card_names(start: Any) -> None:
    """In a record, cards are names (strings), never bare numbers."""
    if not isinstance(start, dict):
        return
    lists = list(start.get("hands", [])) if isinstance(start.get("hands"), list) else []
    lists.append(start.get("waste", []))
    drawn = start.get("blind_draw")
    if isinstance(drawn, dict) and "card" in drawn:
        lists.append([drawn["card"]])
    for cards in lists:
        if isinstance(cards, list) and any(not isinstance(c, str) for c in cards):
            message = N_("card names must be strings such as '10h', got {value!r}")
            raise RecordError(at("start", Text(message, value=cards)))


def parse_record(data: Any) -> tuple[Deal, list[tuple[int, Action]], list[str], dict[str, Any] | None]:
    """Check a record's structure and build its starting deal (no action applied yet).

    Returns:
        ``(deal, actions, names, result)``: the deal at its start, the parsed
        ``(seat, action)`` list, the seat names and the recorded ``result`` (or ``None``).

    Raises:
        RecordError: anything malformed; the message names the field (``rules.players``,
            ``actions[4].play``, …).
    """
    if not isinstance(data, dict):
        raise RecordError(at("record", Text(N_("expected a JSON object, got {kind}"), kind=type(data).__name__)))
    if data.get("format") != FORMAT:
        message = N_("expected {format!r}, got {value!r}")
        raise RecordError(at("format", Text(message, format=FORMAT, value=data.get("format"))))
    known = {"format", "rules", "players", "dealer", "seed", "joker_to", "start", "actions", "result"}
    unknown = sorted(str(k) for k in data if k not in known)
    if unknown:
        raise RecordError(at("record", Text(N_("unknown field(s) {names}"), names=", ".join(unknown))))
    names = data.get("players")
    if not isinstance(names, list) or not all(isinstance(x, str) for x in names) or not names:
        raise RecordError(at("players", Text(N_("expected a list of seat names (strings), clockwise"))))
    rules_data = data.get("rules", {})
    if not isinstance(rules_data, dict):
        message = N_("expected an object of options, got {kind}")
        raise RecordError(at("rules", Text(message, kind=type(rules_data).__name__)))
    rules_data = dict(rules_data)
    rules_data.setdefault("players", len(names))
    try:
        rules = Rules.from_dict(rules_data)
    except RulesError as exc:
        raise RecordError(at(f"rules.{exc.option}", exc.message)) from None
    if rules.players != len(names):
        message = N_("{k} names but rules.players is {n}")
        raise RecordError(at("players", Text(message, k=len(names), n=rules.players)))
    dealer = _int(data.get("dealer", 0), "dealer")
    seed = _int(data.get("seed", 0), "seed")
    joker_to = data.get("joker_to")
    if joker_to is not None:
        joker_to = _int(joker_to, "joker_to")
    start = None
    if data.get("start") is not None:
        _check_card_names(data["start"])
        try:
            start = Position.from_dict(data["start"])
        except PositionError as exc:
            text = exc.text
            raise RecordError(text if text.args.get("where") == "start" else at("start", text)) from None
    try:
        deal = Deal(rules, dealer, seed, joker_to=joker_to, position=start)
    except PositionError as exc:
        raise RecordError(at("start", exc.text)) from None
    except ValueError as exc:
        raise RecordError(error_text(exc)) from None
    raw = data.get("actions", [])
    if not isinstance(raw, list):
        raise RecordError(at("actions", Text(N_("expected a list"))))
    actions: list[tuple[int, Action]] = []
    for i, item in enumerate(raw):
        where = f"actions[{i}]"
        if not isinstance(item, dict):
            message = N_("expected an object like {example}")
            raise RecordError(at(where, Text(message, example="{'seat': 0, 'play': 'A♠'}")))
        keys = set(item) - {"seat"}
        if len(keys) != 1 or not keys <= _ACTION_KEYS:
            message = N_("expected 'seat' and one of play, take, pass, pickup; got {keys}")
            raise RecordError(at(where, Text(message, keys=sorted(item))))
        seat = _int(item.get("seat"), f"{where}.seat")
        key = keys.pop()
        value = item[key]
        if key == "play":
            try:
                action: Action = Card.parse(value)
            except InvalidCardError as exc:
                raise RecordError(at(f"{where}.play", exc.text)) from None
        else:
            if value is not True:
                raise RecordError(at(f"{where}.{key}", Text(N_("expected true"))))
            action = {"take": TAKE, "pass": PASS, "pickup": PICKUP}[key]
        actions.append((seat, action))
    result = data.get("result")
    if result is not None and not isinstance(result, dict):
        raise RecordError(at("result", Text(N_("expected an object"))))
    return deal, actions, names, result


def deal_from_record(data: Any, *, check_result: bool = True) -> Deal:
    """Replay a record and return the deal in its final state.

    Args:
        data: the record (a dict, as parsed from JSON).
        check_result: if the record has a ``result``, check the replay reaches it.

    Raises:
        RecordError: malformed record; an illegal action (``index`` and ``reason`` set,
            message ``actions[i]: <reason>: …``); a result that the replay does not reach.
    """
    deal, actions, _names, result = parse_record(data)
    try:
        replay(deal, actions)
    except IllegalActionError as exc:
        index = getattr(exc, "index", None)
        raise RecordError(at(f"actions[{index}]", exc.text), index=index, reason=exc.reason) from None
    if check_result and result is not None:
        outcome = deal.outcome
        if outcome is None:
            message = N_("the record has a result but its actions do not finish the deal")
            raise RecordError(at("result", Text(message)))
        if outcome.to_dict() != result:
            raise RecordError(at("result", Text(N_("the recorded result differs from the replay's"))))
    return deal


def load_record(path: str | Path) -> dict[str, Any]:
    """Read a record file (UTF-8 JSON).

    Raises:
        RecordError: unreadable file or invalid JSON (the message says where).
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise RecordError(at(str(path), Text(N_("cannot read: {reason}"), reason=exc.strerror or exc))) from None
    except UnicodeDecodeError:
        raise RecordError(at(str(path), Text(N_("not UTF-8 text")))) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        message = N_("not valid JSON: {reason} at line {line} column {column}")
        raise RecordError(at(str(path), Text(message, reason=exc.msg, line=exc.lineno, column=exc.colno))) from None
    except RecursionError:
        raise RecordError(at(str(path), Text(N_("not a record: JSON nested too deeply")))) from None
    except ValueError as exc:  # e.g. an integer with too many digits
        raise RecordError(at(str(path), Text(N_("not a record: {reason}"), reason=exc))) from None


def dumps(obj: Any, *, indent: int | None = 2) -> str:
    """JSON text for a record or summary: UTF-8 card symbols, stable key order (byte-identical
    for the same input)."""
    return json.dumps(obj, ensure_ascii=False, indent=indent)


def state_summary(deal: Deal) -> dict[str, Any]:
    """The referee's summary of a deal's state (what ``getaway replay --json`` prints).

    Keys: ``finished``, ``loser`` (seat or null), ``termination``, ``out_order`` (lists of
    seats, ties together), ``to_act``, ``decision``, ``leader``, ``hands`` (card names per
    seat), ``waste_size``, ``trick`` (``{"seat", "card"}``), ``first_trick_done``,
    ``tricks``, ``pickups``, ``takes``, ``captured_tens``, ``events``.
    """
    snap = deal.snapshot()
    return {
        "finished": snap["finished"],
        "loser": snap["loser"],
        "termination": snap["termination"],
        "out_order": snap["out_order"],
        "to_act": snap["to_act"],
        "decision": snap["decision"],
        "leader": snap["leader"],
        "hands": snap["hands"],
        "waste_size": snap["waste_size"],
        "trick": snap["trick"],
        "first_trick_done": snap["first_trick_done"],
        "tricks": snap["tricks"],
        "pickups": snap["pickups"],
        "takes": snap["takes"],
        "captured_tens": snap["captured_tens"],
        "stripped": [str(c) for c in deal.stripped],
        "events": snap["events"],
    }
