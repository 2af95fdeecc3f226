"""The tutorial (issue 16, item 3): guided lessons, each a real position of the engine with a goal.

A :class:`Lesson` is a :class:`~getaway.core.position.Position` under a profile's rules, a few
moves already made (``setup``), the seat the learner plays, a goal in plain words, and how the
engine judges the learner's move:

* an illegal move is refused with the engine's own reason (:meth:`~getaway.core.deal.Deal.why_illegal`),
  and nothing changes;
* a legal move is applied, the other seats (the ``medium`` bot) play on until the trick is
  resolved or it is the learner's turn again, and the lesson's ``outcome`` is read from the
  engine's events: ``"away"`` (the learner got away), ``"pickup:N"`` (seat N picked up),
  ``"no_pickup"`` (the learner did not), ``"draw"`` (the learner drew blind from the waste,
  R-P-DRAW), ``"take"`` (the learner took the left hand, R-P-TAKE), ``"legal"`` (any legal move);
* ``accept``, when given, lists the only moves that meet the goal (a tip to follow).

Every text is marked for the catalogs and shown in the learner's language by the caller
(:func:`getaway.text.i18n.localize` / ``_``). :func:`attempt` is the whole check, stateless:
the lesson and the learner's moves so far in, the deal and the verdict out (the web replays it
on every request; the terminal keeps the deal).

>>> lesson = LESSONS["punjab-tochoo"]
>>> attempt(lesson, ["3♣"]).verdict
'success'
>>> attempt(lesson, ["9♥"]).verdict  # not in the hand: refused by the engine
'illegal'
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from ..bots import HeuristicBot
from ..core.cards import Card, InvalidCardError
from ..core.deal import Deal
from ..core.events import PASS, PICKUP, TAKE, Action, Event
from ..core.messages import N_, Text
from ..core.position import Position
from ..core.rules import Rules
from ..core.view import player_view

__all__ = ["Lesson", "Attempt", "LESSONS", "attempt", "parse_move"]


@dataclass(frozen=True)
class Lesson:
    """One lesson (see the module docstring).

    Attributes:
        key: a stable identifier (``"punjab-tochoo"``), used in links and in the browser's memory.
        profile: ``"punjab"`` or ``"classic"``; ``options``: more rule options (``takes`` …).
        title, goal, success, failure, wrong: texts (English, marked for the catalogs): the
            lesson's name, what to do, what the learner sees when the goal is met, when it is
            not, and when the move is legal but not one of ``accept``.
        hands, waste, leader, first_trick_done, blind_draw: the position (card names; see
            :meth:`Position.from_cards <getaway.core.position.Position.from_cards>`); under
            punjab after the first trick an empty ``waste`` means every card not in a hand.
        setup: moves already made, in order, by whoever is to act (card names or
            ``take``/``pass``/``pickup``).
        seat: the learner's seat.
        outcome: what the engine must show after the move (see the module docstring).
        accept: the only moves that meet the goal, or ``()`` for any legal move.
    """

    key: str
    profile: str
    title: str
    goal: str
    success: str
    failure: str
    hands: tuple[tuple[str, ...], ...]
    seat: int
    outcome: str
    leader: int = 0
    first_trick_done: bool = True
    waste: tuple[str, ...] = ()
    setup: tuple[str, ...] = ()
    accept: tuple[str, ...] = ()
    wrong: str = ""
    blind_draw: tuple[int, str] | None = None
    options: dict[str, Any] = field(default_factory=dict)

    def rules(self) -> Rules:
        """The lesson's rules (its profile for ``len(hands)`` players, takes off unless ``options`` says)."""
        return Rules.profile(self.profile, players=len(self.hands), **{"takes": "off", **self.options})

    def start(self) -> Deal:
        """The deal at the learner's first decision (the position, then ``setup``).

        Raises:
            ValueError: the lesson's data is wrong (a bug: the tests build every lesson).
        """
        waste: Sequence[Any] = self.waste
        if not waste and self.first_trick_done and self.profile == _PUNJAB:  # the rest of the pack is gone
            held = {Card.parse(c) for hand in self.hands for c in hand}
            waste = [c for c in range(52) if c not in held]
        position = Position.from_cards(
            self.hands, waste, self.leader, self.first_trick_done, blind_draw=self.blind_draw
        )
        deal = Deal(self.rules(), 0, 1, position=position)
        for text in self.setup:
            deal.apply(parse_move(text))
        _play_others(deal, self.seat, len(deal.events))
        if deal.to_act != self.seat:
            raise ValueError(f"lesson {self.key}: seat {deal.to_act} is to act after the setup, not {self.seat}")
        return deal


@dataclass(frozen=True)
class Attempt:
    """The result of :func:`attempt`.

    Attributes:
        deal: the deal after the moves that were applied (the last refused one is not).
        verdict: ``"playing"`` (no move yet), ``"illegal"``, ``"wrong"``, ``"success"`` or ``"failure"``.
        message: the feedback, a translatable :class:`~getaway.core.messages.Text`: the engine's
            reason for an illegal move, else the lesson's text for the verdict; ``""`` before a move.
        applied: how many of the learner's moves were applied.
    """

    deal: Deal
    verdict: str
    message: str
    applied: int


def parse_move(text: str) -> Action:
    """``"7♠"``/``"7s"`` → the card; ``"take"``, ``"pass"``, ``"pickup"`` → the call.

    Raises:
        InvalidCardError: not a card nor a call (its message names the text).
    """
    word = text.strip().lower()
    calls: dict[str, Action] = {"take": TAKE, "pass": PASS, "pickup": PICKUP}
    if word in calls:
        return calls[word]
    return Card.parse(text)


def _play_others(deal: Deal, seat: int, since: int) -> list[Event]:
    """Let the medium bot play every seat but ``seat`` until it is ``seat``'s turn, the deal is
    over, or a trick begun after event ``since`` is resolved; returns the new events."""
    bot = HeuristicBot()
    rng = random.Random(0)
    while not deal.is_over and deal.to_act != seat:
        if any(e.kind in ("pickup", "waste") for e in deal.events[since:]) and not deal.trick:
            break
        who = deal.to_act
        view = player_view(deal, who)
        deal.apply(bot.act(view, view.legal_actions, rng), who)
    return list(deal.events[since:])


def _met(lesson: Lesson, deal: Deal, events: Sequence[Event]) -> bool:
    kind, _, arg = lesson.outcome.partition(":")
    me = lesson.seat
    if kind == "legal":
        return True
    if kind == "away":
        return any(e.kind == "out" and e.seat == me for e in events)
    if kind == "pickup":
        return any(e.kind == "pickup" and e.seat == int(arg) for e in events)
    if kind == "no_pickup":
        return not any(e.kind == "pickup" and e.seat == me for e in events)
    if kind == "draw":
        return any(e.kind == "draw" and e.seat == me for e in events)
    if kind == "take":
        return any(e.kind == "take" and e.seat == me for e in events)
    raise ValueError(f"lesson {lesson.key}: unknown outcome {lesson.outcome!r}")


def attempt(lesson: Lesson, moves: Sequence[str]) -> Attempt:
    """Replay the learner's ``moves`` (texts, in order) in ``lesson`` and judge the last one.

    The moves before the last must have been legal and accepted (a client that replays a
    lesson sends only those); the last is refused (``illegal``: the engine's reason; ``wrong``:
    the lesson's text) or applied and judged (``success``/``failure``).

    Raises:
        ValueError: more moves than the lesson asks for, or an earlier move that is not legal.
    """
    deal = lesson.start()
    if not moves:
        return Attempt(deal, "playing", "", 0)
    for i, text in enumerate(moves):
        last = i == len(moves) - 1
        try:
            action = parse_move(text)
        except InvalidCardError as exc:
            if not last:
                raise
            return Attempt(deal, "illegal", exc.text, i)
        why = deal.why_illegal(action, lesson.seat)
        if why is not None:
            if not last:
                raise ValueError(f"move {i}: {why}")
            return Attempt(deal, "illegal", why.params["message"], i)
        if lesson.accept and str(action) not in lesson.accept:
            if not last:
                raise ValueError(f"move {i}: not accepted")
            return Attempt(deal, "wrong", Text(lesson.wrong or lesson.failure), i)
        if not last:
            raise ValueError("a lesson judges one move: the earlier ones were already judged")
        since = len(deal.events)
        deal.apply(action, lesson.seat)
        events = _play_others(deal, lesson.seat, since)
        if _met(lesson, deal, events):
            return Attempt(deal, "success", Text(lesson.success), i + 1)
        return Attempt(deal, "failure", Text(lesson.failure), i + 1)
    raise AssertionError("unreachable")


_PUNJAB: Final = "punjab"
_CLASSIC: Final = "classic"

#: The lessons, in the order they are taught (punjab first, then classic, then the tips).
LESSONS: Final[dict[str, Lesson]] = {
    lesson.key: lesson
    for lesson in (
        Lesson(
            key="punjab-first-trick",
            profile=_PUNJAB,
            title=N_("The special first trick"),
            goal=N_(
                "The A♠ was led. On the first trick everyone plays one card: a spade if they have one. Play a card."
            ),
            success=N_("Right: the whole first trick goes to the waste pile, and nobody picks up."),
            failure=N_("Play a spade while you have one."),
            hands=(("A♠", "4♥"), ("9♠", "K♥", "3♦"), ("Q♣", "5♦"), ("2♠", "8♣")),
            first_trick_done=False,
            setup=("A♠",),
            seat=1,
            outcome="no_pickup",
        ),
        Lesson(
            key="punjab-tochoo",
            profile=_PUNJAB,
            title=N_("The tochoo"),
            goal=N_(
                "8♥ was led and Q♥ played. You have no heart: play any card (a tochoo). "
                "The trick stops, and the highest heart picks up."
            ),
            success=N_("Right: your tochoo stopped the trick, and the Q♥ player picked it all up."),
            failure=N_("The Q♥ player should pick up the trick."),
            hands=(("8♥", "2♦"), ("Q♥", "5♠"), ("3♣", "J♦"), ("6♥", "9♣")),
            setup=("8♥", "Q♥"),
            seat=2,
            outcome="pickup:1",
        ),
        Lesson(
            key="punjab-who-picks-up",
            profile=_PUNJAB,
            title=N_("Who picks up"),
            goal=N_(
                "7♦ was led and 9♦ played. The player after you has no diamond and will play a tochoo. "
                "Play so that you do not pick up."
            ),
            success=N_("Right: you stayed under the 9♦, so its player picked up, not you."),
            failure=N_("You held the highest diamond when the tochoo came, so you picked up."),
            hands=(("7♦", "3♠"), ("9♦", "4♣"), ("K♦", "4♦", "6♠"), ("A♣", "J♥")),
            setup=("7♦", "9♦"),
            seat=2,
            outcome="no_pickup",
        ),
        Lesson(
            key="punjab-get-away",
            profile=_PUNJAB,
            title=N_("Getting away"),
            goal=N_(
                "You hold one heart. Play your last card in a trick you will not have to lead next, and you get away."
            ),
            success=N_("Right: your hand is empty and someone else leads next: you got away."),
            failure=N_("You did not get away."),
            hands=(("9♥", "2♣"), ("J♥", "5♠"), ("3♥",), ("4♥", "K♣")),
            setup=("9♥", "J♥"),
            seat=2,
            outcome="away",
        ),
        Lesson(
            key="punjab-blind-draw",
            profile=_PUNJAB,
            title=N_("The leader's blind draw"),
            goal=N_(
                "Everyone followed, and your K♥ is the highest heart: you will lead next. "
                "Play it and see what happens to a leader with an empty hand."
            ),
            success=N_(
                "You won the trick with your last card, so you must lead: you drew a card blind from the waste "
                "pile. The next leader never gets away."
            ),
            failure=N_("Watch the trick: its highest card leads next."),
            hands=(("5♥", "2♣"), ("8♥", "4♠"), ("3♥", "9♦"), ("K♥",)),
            waste=("A♠", "7♠", "6♠", "5♠"),
            setup=("5♥", "8♥", "3♥"),
            seat=3,
            outcome="draw",
        ),
        Lesson(
            key="punjab-take",
            profile=_PUNJAB,
            title=N_("Taking the left hand"),
            goal=N_(
                "Before a trick anyone may take the whole hand of the player on their left, who then gets away. "
                "Your neighbour holds a single card: take it."
            ),
            success=N_("Right: you took the hand; your neighbour got away and cannot lose, and you hold their card."),
            failure=N_("Say take."),
            hands=(("Q♣", "8♦"), ("6♥", "3♣", "2♦"), ("K♠",), ("4♥", "7♣")),
            leader=0,
            seat=1,
            outcome="take",
            options={"takes": "any", "take_protocol": "poll"},
        ),
        Lesson(
            key="classic-follow-suit",
            profile=_CLASSIC,
            title=N_("Following suit"),
            goal=N_("10♠ was led. You must follow suit when you can: play a card."),
            success=N_("Right: you followed suit."),
            failure=N_("Follow suit."),
            hands=(("10♠", "3♥"), ("K♦", "5♠", "2♣"), ("Q♠", "4♦"), ("7♠", "9♥")),
            setup=("10♠",),
            seat=1,
            outcome="legal",
        ),
        Lesson(
            key="classic-void-pickup",
            profile=_CLASSIC,
            title=N_("The void player picks up"),
            goal=N_(
                "The next player has no club. Under classic rules a player who cannot follow picks up the "
                "trick. Lead a club."
            ),
            success=N_("Right: your neighbour could not follow, so they picked up the trick and lead next."),
            failure=N_("Your neighbour could follow: lead the suit they do not have."),
            hands=(("9♣", "4♥", "K♦"), ("2♥", "J♦"), ("8♣", "7♥"), ("5♣", "Q♦")),
            leader=0,
            seat=0,
            outcome="pickup:1",
        ),
        Lesson(
            key="tip-short-suit",
            profile=_CLASSIC,
            title=N_("Tip: empty a short suit early"),
            goal=N_(
                "A tip from the rules: empty a weak suit as early as you can, so that you can discard when it "
                "is led later. Lead your single diamond."
            ),
            success=N_("Right: once you have no diamond left, you can discard whenever diamonds are led."),
            failure=N_("Lead your single diamond."),
            wrong=N_("That keeps your single diamond: lead it, so that you become void in diamonds."),
            hands=(("3♦", "5♥", "9♥", "J♥", "4♣"), ("8♦", "2♥", "Q♣"), ("10♦", "6♣", "K♥"), ("A♦", "7♣", "3♥")),
            leader=0,
            seat=0,
            accept=("3♦",),
            outcome="legal",
        ),
    )
}
