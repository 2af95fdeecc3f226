"""The review of a finished deal (issue 16): where one seat went wrong, by the expert's estimate.

For every decision the seat made with more than one legal action, the deal is rebuilt from
its record up to that moment and the seat's own :func:`~getaway.core.view.player_view` (its
hand, the public history, its :class:`~getaway.core.knowledge.Knowledge`; never the other
hands) is given to :meth:`ExpertBot.estimate <getaway.bots.expert.ExpertBot.estimate>`, the
expert's own search (one set of sampled worlds, every legal action scored on the same worlds).
The review then lists, for that decision, each legal action's **losing chance in percentage
points** with its ± (the 95 % half-width of a Wilson interval over the number of worlds), the
action played, the best action, and a mark:

* ``"mistake"``: the action played loses at least :data:`MISTAKE` points more often than the best;
* ``"blunder"``: at least :data:`BLUNDER` points more often;

and, where one can be named, a short reason (the heuristic's own reason for the best action,
when the heuristic would play it too).

Seeded: the search of decision ``k`` draws from ``random.Random(f"review:{seed}:{seat}:{k}")``,
so the same record and seed give the same review.

>>> from getaway import Deal, Rules
>>> from getaway.bots import HeuristicBot, play_deal
>>> from getaway.core.record import record_of
>>> deal = play_deal(Deal(Rules.profile("punjab", players=3, takes="off"), 0, 2), [HeuristicBot()] * 3,
...                  random.Random(2))
>>> review = review_deal(record_of(deal), seat=0, iterations=8)
>>> review.seat, all(d.best in d.losses for d in review.decisions)
(0, True)
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from ..core.deal import Deal, replay
from ..core.events import PASS, Action, IllegalActionError
from ..core.messages import N_, Text
from ..core.record import RecordError, parse_record
from ..core.view import player_view
from .expert import DEFAULT_ITERATIONS, ExpertBot
from .heuristic import HeuristicBot

__all__ = ["REVIEW_ITERATIONS", "MISTAKE", "BLUNDER", "Decision", "Review", "review_deal", "decisions_of", "half_width"]

#: The review's rollouts per decision by default: four times the bot's (a smaller ±; the
#: cost per 4-player deal is measured by bench/review.py, docs/learn.md).
REVIEW_ITERATIONS: Final = 4 * DEFAULT_ITERATIONS
#: Percentage points worse than the best action that make a mistake, and a blunder.
MISTAKE: Final = 5.0
BLUNDER: Final = 15.0
#: The poll answers the engine asks of everyone (R-P-TAKE); a record does not keep its passes.
_POLL_WAIT: Final = frozenset({"not_your_turn", "no_take_now"})


def half_width(p: float, n: int, z: float = 1.96) -> float:
    """The half-width of the Wilson score interval (95 % for ``z=1.96``) of a proportion ``p``
    estimated from ``n`` samples, as a fraction in [0, 1] (``1.0`` for ``n=0``).

    >>> round(half_width(0.5, 100), 3), round(half_width(0.0, 40), 3)
    (0.096, 0.044)
    """
    if n <= 0:
        return 1.0
    z2 = z * z
    return z / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))


@dataclass(frozen=True, slots=True)
class Decision:
    """One reviewed decision of the seat.

    Attributes:
        index: how many recorded actions came before it (the replay viewer's move number;
            an unrecorded poll pass has the index of the next recorded action).
        trick: the number of finished tricks before it (from 0).
        played: the action the seat chose (``str``: ``"7♠"``, ``"take"``, ``"pass"``, ``"pickup"``).
        best: the action with the lowest estimated losing chance (the played one on a tie).
        losses: each legal action's estimated losing chance, in percentage points (0–100);
            empty when the expert did not search (then no mark).
        plus_minus: each action's ± in percentage points (95 %, from ``worlds``).
        worlds: the number of sampled worlds of the search.
        mark: ``"blunder"``, ``"mistake"`` or ``""``.
        reason: a short reason for the best action (an English :class:`~getaway.core.messages.Text`,
            translatable), or ``""``.
    """

    index: int
    trick: int
    played: str
    best: str
    losses: dict[str, float]
    plus_minus: dict[str, float]
    worlds: int
    mark: str
    reason: str

    @property
    def cost(self) -> float:
        """How many points more often the action played loses than the best (0 if not searched)."""
        if not self.losses:
            return 0.0
        return self.losses[self.played] - self.losses[self.best]

    def to_dict(self, translate: Callable[[str], str] = str) -> dict[str, Any]:
        """A JSON-ready dict; ``translate`` turns the reason into the reader's language."""
        return {
            "index": self.index,
            "trick": self.trick,
            "played": self.played,
            "best": self.best,
            "losses": {a: round(v, 1) for a, v in self.losses.items()},
            "plus_minus": {a: round(v, 1) for a, v in self.plus_minus.items()},
            "worlds": self.worlds,
            "cost": round(self.cost, 1),
            "mark": self.mark,
            "reason": translate(self.reason) if self.reason else "",
        }


@dataclass(frozen=True, slots=True)
class Review:
    """The review of one seat's play in one deal.

    Attributes:
        seat: the reviewed seat (0-based).
        seed: the review's seed.
        iterations: the expert's rollouts per decision.
        decisions: the reviewed decisions, in the order of play.
        lost: whether the seat lost the deal (``None`` if the record does not finish it).
        names: the record's seat names.
    """

    seat: int
    seed: int
    iterations: int
    decisions: tuple[Decision, ...]
    lost: bool | None
    names: tuple[str, ...] = field(default=())

    @property
    def mistakes(self) -> int:
        """The number of decisions marked ``mistake`` (blunders not counted)."""
        return sum(d.mark == "mistake" for d in self.decisions)

    @property
    def blunders(self) -> int:
        """The number of decisions marked ``blunder``."""
        return sum(d.mark == "blunder" for d in self.decisions)

    def to_dict(self, translate: Callable[[str], str] = str) -> dict[str, Any]:
        """A JSON-ready dict (``translate``: see :meth:`Decision.to_dict`)."""
        return {
            "seat": self.seat,
            "seed": self.seed,
            "iterations": self.iterations,
            "lost": self.lost,
            "mistakes": self.mistakes,
            "blunders": self.blunders,
            "decisions": [d.to_dict(translate) for d in self.decisions],
        }


def decisions_of(record: Mapping[str, Any], seat: int | None = None) -> list[tuple[int, Deal, int, Action]]:
    """Walk a record and list every decision with more than one legal action: ``(index, deal,
    seat, action)`` with ``deal`` a copy of the deal just before it, ``index`` the number of
    recorded actions before it; the take poll's unrecorded passes (R-P-TAKE) are decisions too.
    With ``seat``, only that seat's decisions.

    Raises:
        RecordError: the record is malformed or one of its actions is illegal.
    """
    deal, actions, _names, _result = parse_record(record)
    out: list[tuple[int, Deal, int, Action]] = []
    for index, (who, action) in enumerate(actions):
        while True:
            trial = deal.clone()
            try:
                trial.apply(action, who)
                move: tuple[int, Action] = (who, action)
            except IllegalActionError as exc:
                if deal.decision != "take" or exc.reason not in _POLL_WAIT:
                    raise RecordError(f"actions[{index}]: {exc}", index=index, reason=exc.reason) from None
                polled = deal.to_act
                assert polled is not None
                move, trial = (polled, PASS), None
            mover, act = move
            if deal.to_act == mover and (seat is None or mover == seat) and len(deal.legal_actions(mover)) > 1:
                out.append((index, deal.clone(), mover, act))
            if trial is None:
                deal.apply(PASS)
                continue
            deal = trial
            break
    return out


def _review_one(
    expert: ExpertBot, deal: Deal, seat: int, played: Action, rng: random.Random
) -> tuple[dict[str, float], dict[str, float], int, str, str]:
    view = player_view(deal, seat)
    legal = list(view.legal_actions)
    estimates, worlds = expert.estimate(view, legal, rng)
    if played not in estimates:
        return {}, {}, worlds, str(played), ""
    losses = {str(a): 100.0 * p for a, p in estimates.items()}
    plus_minus = {str(a): 100.0 * half_width(p, worlds) for a, p in estimates.items()}
    low = min(estimates.values())
    best = played if estimates[played] <= low else min(estimates, key=lambda a: (estimates[a], legal.index(a)))
    reason = ""
    usual, why = HeuristicBot().choose(view, legal)
    if usual == best or (usual in estimates and estimates[usual] <= low):
        reason = why
    return losses, plus_minus, worlds, str(best), reason


def review_deal(
    record: Mapping[str, Any],
    seat: int,
    *,
    iterations: int = REVIEW_ITERATIONS,
    seed: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Review:
    """Review ``seat``'s decisions in the deal of ``record`` (format ``getaway/1``).

    Args:
        record: the deal's record (finished or not).
        seat: the reviewed seat, 0-based.
        iterations: the expert's rollouts per decision (:data:`REVIEW_ITERATIONS` by default).
        seed: the review's seed (default: the record's ``seed``).
        progress: called with ``(done, total)`` after each decision.

    Raises:
        RecordError: malformed record, an illegal action, or no such seat.
    """
    names = record.get("players") if isinstance(record, Mapping) else None
    n = len(names) if isinstance(names, list) else 0
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < max(n, 1):
        raise RecordError(Text(N_("seat {seat} does not exist with {n} players"), seat=seat, n=n))
    todo = decisions_of(record, seat)
    base = record.get("seed", 0) if seed is None else seed
    expert = ExpertBot(iterations=iterations, take_search_cards=52)  # every take is searched
    out: list[Decision] = []
    for k, (index, deal, who, action) in enumerate(todo):
        rng = random.Random(f"review:{base}:{who}:{k}")
        losses, plus_minus, worlds, best, reason = _review_one(expert, deal, who, action, rng)
        cost = losses[str(action)] - losses[best] if losses else 0.0
        mark = "blunder" if cost >= BLUNDER else "mistake" if cost >= MISTAKE else ""
        out.append(Decision(index, deal.tricks_played, str(action), best, losses, plus_minus, worlds, mark, reason))
        if progress is not None:
            progress(k + 1, len(todo))
    final, actions, _names, _result = parse_record(record)
    replay(final, actions)
    outcome = final.outcome
    lost = None if outcome is None else outcome.loser == seat
    return Review(seat, int(base), iterations, tuple(out), lost, tuple(names or ()))
