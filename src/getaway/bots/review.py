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

and, where one can be named, a short reason in plain words: for a flagged decision, a fact
of the seat's view that tells the move played from the best one (:func:`flag_reason`: "Seat 2
has no hearts left: they can cut your 5♥ with a tochoo …"); otherwise the heuristic's own reason
for the best action, when the heuristic would play it too.

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

from ..core.cards import JOKER_INDEX, SUIT_MASKS, Card
from ..core.deal import Deal, replay
from ..core.events import PASS, TAKE, Action, IllegalActionError
from ..core.messages import N_, Reason, Text, at
from ..core.record import RecordError, parse_record
from ..core.stats import half_width  # the one Wilson interval (re-exported: getaway.bots.review.half_width)
from ..core.view import PlayerView, player_view
from .expert import DEFAULT_ITERATIONS, ExpertBot
from .heuristic import HeuristicBot
from .tips import winning_card

__all__ = [
    "REVIEW_ITERATIONS",
    "MISTAKE",
    "BLUNDER",
    "Decision",
    "Review",
    "review_deal",
    "decisions_of",
    "flag_reason",
    "half_width",
]

#: The review's rollouts per decision by default: four times the bot's (a smaller ±; the
#: cost per 4-player deal is measured by bench/review.py, docs/learn.md).
REVIEW_ITERATIONS: Final = 4 * DEFAULT_ITERATIONS
#: Percentage points worse than the best action that make a mistake, and a blunder.
MISTAKE: Final = 5.0
BLUNDER: Final = 15.0
#: The poll answers the engine asks of everyone (R-P-TAKE); a record does not keep its passes.
_POLL_WAIT: Final = frozenset({"not_your_turn", "no_take_now"})


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
        reason: a short reason (an English :class:`~getaway.core.messages.Reason`, translatable):
            for a flagged decision :func:`flag_reason`'s, else the heuristic's for the best action
            when it agrees; or ``""``.
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
                    raise RecordError(at(f"actions[{index}]", exc.text), index=index, reason=exc.reason) from None
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
    reason = flag_reason(view, played, best) if 100.0 * (estimates[played] - low) >= MISTAKE else ""
    if not reason:
        usual, why = HeuristicBot().choose(view, legal)
        if usual == best or (usual in estimates and estimates[usual] <= low):
            reason = why
    return losses, plus_minus, worlds, str(best), reason


# ---------------------------------------------------------------------- reasons for a flagged move
#
# Every sentence the review says about a flagged decision is here, one template per fact. Each
# is checked from the seat's view (its hand, the trick on the table, its Knowledge: the cards
# still out, the proven voids, the hand sizes), never from a hidden card, and says what the move
# played or the better move does under the rules (R-P-TRICK: after a tochoo the highest card of
# the led suit picks up; R-C-TRICK: a player who cannot follow picks up).

#: Punjab, a lead into a proven void.
CUT_VOID: Final = N_(
    "A player after you has no {suit} left: they can cut your {played} with a tochoo, and the highest card of "
    "{suit} played then picks up."
)
#: Punjab, a lead of the highest card still in play.
LEAD_TOP: Final = N_("{played} is the highest card of {suit} still in play: if anyone cuts the trick, you pick it up.")
#: Punjab, the better move empties a suit (a lead or a free discard).
EMPTY_SUIT: Final = N_("{best} is your only card of {suit}: once it is gone, you can cut every trick of {suit}.")
#: Punjab, a lead of a suit a player after is likelier to have none of (card counting).
CUT_LIKELY: Final = N_(
    "Only {n} card(s) of {suit} are still out: a player after you is more likely to have none and cut {played} "
    "than {best}."
)
#: Punjab, following over the winning card with players still to come.
GOES_OVER: Final = N_(
    "{played} goes over {winner}: if a player after you cuts before anyone overtakes it, you pick up; {best} "
    "stays under it."
)
#: Punjab, going over the winning card while everyone after very likely follows.
OVER_SAFE: Final = N_(
    "Every player after you very likely still holds {suit} (counting the cards still out): {best} goes over "
    "{winner} and sheds a high card while the trick should reach the waste."
)
#: Punjab, both under the winning card, the better one higher.
SHED_UNDER: Final = N_("{best} and {played} both stay under {winner}: {best} sheds the higher card at no risk.")
#: Punjab, the last to play.
LAST_SAFE: Final = N_("You play last, so nobody can cut this trick: shed the higher {best}.")
#: Punjab, both over the winning card, the better one higher (fewer cards still out beat it).
BOTH_OVER: Final = N_(
    "Both go over {winner}, so either may be left the highest: get rid of {best}, the harder one to lose later "
    "(only {n} card(s) still out beat it, {m} beat {played})."
)
#: Punjab, a free discard (a tochoo, the first trick) of the highest card still in play.
DUMP_TOP: Final = N_(
    "{best} is the highest card of {suit} still in play, the card that picks up after a cut: shed it while it "
    "costs nothing."
)
#: Punjab, a free discard of the higher of two cards of one suit.
DUMP_HIGHER: Final = N_("This card costs nothing here: shed the higher {best} rather than {played}.")
#: Classic, a lead into a proven void (R-C-TRICK).
FEED_VOID: Final = N_("Lead {best}: a player after you has no {suit} and must pick up.")
#: Classic, a lead that empties a suit the others still hold.
LEAD_LAST: Final = N_(
    "{played} is your only card of {suit} and others still hold {suit}: without it, you must pick up when someone "
    "leads {suit}."
)
#: Classic, a lead or a follow nobody can beat (R-C-WON).
SURE_WIN: Final = N_("Nothing still out beats {best}: if everyone follows, it wins the trick and you lead next.")
#: Classic, following under the winning card either way.
SHED_LOSER: Final = N_(
    "Neither {best} nor {played} beats {winner}: the trick goes the same way, so shed the higher {best}."
)
#: Classic, a lead of a high card that can still be beaten.
SPENDS_HIGH: Final = N_(
    "{played} can still be beaten ({n} higher card(s) of {suit} still out): leading it spends a high card; "
    "{best} is a cheaper lead."
)
#: Classic, a sure winner played when a lower card would do.
KEEP_WINNER: Final = N_("Nothing still out beats {played}: kept, it can win you the lead later; {best} will do now.")
#: Classic, a lead of a suit a player after is likelier to have none of (card counting).
VOID_LIKELY: Final = N_(
    "Only {n} card(s) of {suit} are still out: a player after you is more likely to have none, and pick up, "
    "after {best} than after {played}."
)
#: A take that was not worth it (R-P-TAKE).
TAKE_ADDS: Final = N_("Taking your left neighbour's hand adds its {n} card(s) to yours, and they get away.")


#: Every reason template by name: the one place of the review's reason texts (tests check each both ways).
REASONS: Final = {
    "CUT_VOID": CUT_VOID,
    "LEAD_TOP": LEAD_TOP,
    "CUT_LIKELY": CUT_LIKELY,
    "EMPTY_SUIT": EMPTY_SUIT,
    "GOES_OVER": GOES_OVER,
    "SHED_UNDER": SHED_UNDER,
    "LAST_SAFE": LAST_SAFE,
    "BOTH_OVER": BOTH_OVER,
    "DUMP_TOP": DUMP_TOP,
    "DUMP_HIGHER": DUMP_HIGHER,
    "FEED_VOID": FEED_VOID,
    "LEAD_LAST": LEAD_LAST,
    "SURE_WIN": SURE_WIN,
    "SHED_LOSER": SHED_LOSER,
    "SPENDS_HIGH": SPENDS_HIGH,
    "KEEP_WINNER": KEEP_WINNER,
    "OVER_SAFE": OVER_SAFE,
    "VOID_LIKELY": VOID_LIKELY,
    "TAKE_ADDS": TAKE_ADDS,
}

#: "Very likely" (OVER_SAFE): the least chance, by card counting, that each later player holds the suit.
LIKELY: Final = 0.9


def flag_reason(view: PlayerView, played: Action, best: Action) -> str:
    """A plain-words reason why ``best`` is better than ``played`` for the view's seat, or ``""``.

    Each reason is a fact read from ``view`` (the seat's hand, the open trick, its
    :class:`~getaway.core.knowledge.Knowledge`), never from a hidden card: see the templates
    above (``CUT_VOID`` …). Returns a :class:`~getaway.core.messages.Reason` (English,
    translatable) or ``""`` when no listed fact applies (variants with a no-pickup or kicker
    rule, spades as trumps, the Joker: none is tried).
    """
    rules = view.rules
    if played == best or rules.nopickup or rules.kicker or rules.trump is not None:
        return ""
    t = view.knowledge
    if {played, best} == {TAKE, PASS}:
        target = view.left_active()
        if target is None:
            return ""
        return Reason(TAKE_ADDS, n=view.hand_sizes[target]) if played == TAKE else ""
    if not isinstance(played, Card) or not isinstance(best, Card) or JOKER_INDEX in (played, best):
        return ""
    p, b = Card(played), Card(best)
    ps, bs = p // 13, b // 13
    hand = view.hand_mask

    def length(suit: int) -> int:
        return (hand & SUIT_MASKS[suit]).bit_count()

    def above(card: int) -> int:  # cards still out (with the other players) higher than ``card`` in its suit
        return (t.outstanding(card // 13) >> (card + 1)).bit_count()

    def void_chance(suit: int, seats: list[int]) -> float:  # that one of ``seats`` holds none of ``suit``
        return 1.0 - math.prod(t.has_probability(s, suit) for s in seats)

    later = view.still_to_play()
    args = {"played": str(p), "best": str(b)}
    punjab = rules.profile == "punjab"
    if punjab:
        free = bool(view.trick) and (not view.first_trick_done or not hand & SUIT_MASKS[view.trick[0][1] // 13])
        if free:  # a tochoo or the first trick: nobody picks up what this seat plays
            if ps != bs and length(bs) == 1 and length(ps) > 1:
                return Reason(EMPTY_SUIT, suit=bs, **args)
            if above(b) == 0 and t.outstanding(bs) and above(p) > 0:
                return Reason(DUMP_TOP, suit=bs, **args)
            if ps == bs and b > p:
                return Reason(DUMP_HIGHER, **args)
            return ""
        if not view.trick:  # a lead
            if any(t.is_void(s, ps) for s in later) and not any(t.is_void(s, bs) for s in later):
                return Reason(CUT_VOID, suit=ps, **args)
            cuttable = any(t.has_probability(s, ps) < 1.0 for s in later)
            if above(p) == 0 and t.outstanding(ps) and cuttable and above(b) > 0:
                return Reason(LEAD_TOP, suit=ps, **args)
            if ps != bs and length(bs) == 1 and length(ps) > 1 and t.outstanding(bs):
                return Reason(EMPTY_SUIT, suit=bs, **args)
            if void_chance(ps, later) >= void_chance(bs, later) + 0.1:
                return Reason(CUT_LIKELY, n=t.outstanding(ps).bit_count(), suit=ps, **args)
            return ""
        win = winning_card(view)
        if not later:
            return Reason(LAST_SAFE, **args) if b > p else ""
        w = {"winner": str(win)}
        if p > win > b:
            return Reason(GOES_OVER, **args, **w)
        if b > win > p and all(t.has_probability(s, bs) >= LIKELY for s in later):
            return Reason(OVER_SAFE, suit=bs, **args, **w)
        if win > b > p:
            return Reason(SHED_UNDER, **args, **w)
        if b > p > win and above(b) < above(p):
            return Reason(BOTH_OVER, n=above(b), m=above(p), **args, **w)
        return ""
    # classic (R-C-TRICK: who cannot follow picks up; R-C-WON: the highest card wins and leads)
    if not view.trick:  # a lead
        if any(t.is_void(s, bs) for s in later) and not any(t.is_void(s, ps) for s in later):
            return Reason(FEED_VOID, suit=bs, **args)
        if length(ps) == 1 and t.outstanding(ps) and len(view.hand or ()) > 1 and length(bs) > 1:
            return Reason(LEAD_LAST, suit=ps, **args)
        if above(b) == 0 and t.outstanding(bs) and above(p) > 0:
            return Reason(SURE_WIN, **args)
        if p % 13 > b % 13 and above(p) > 0:
            return Reason(SPENDS_HIGH, n=above(p), suit=ps, **args)
        if p % 13 > b % 13 and t.outstanding(ps):
            return Reason(KEEP_WINNER, **args)
        if void_chance(bs, later) >= void_chance(ps, later) + 0.1:
            return Reason(VOID_LIKELY, n=t.outstanding(bs).bit_count(), suit=bs, **args)
        return ""
    win = winning_card(view)
    sure_b = b > win and above(b) == 0  # nothing still out beats it ("still out": with the players to come or not)
    sure_p = p > win and above(p) == 0
    if sure_b and not sure_p:
        return Reason(SURE_WIN, **args)
    if sure_p and b < p and t.outstanding(ps):
        return Reason(KEEP_WINNER, **args)
    if win > b > p and ps == bs == win // 13:
        return Reason(SHED_LOSER, winner=str(win), **args)
    return ""


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
