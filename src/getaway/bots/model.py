"""A fast model of :class:`~getaway.bots.heuristic.HeuristicBot` for the expert's rollouts.

The expert plays out sampled worlds with the heuristic in every seat (its own included):
against heuristic opponents the rollouts then follow exactly the play they will meet, up
to what the sampled hands get wrong. Building a :class:`~getaway.core.view.PlayerView`
from the whole history at every decision of a rollout costs ten times the play itself, so
the rollout keeps the public :class:`~getaway.core.knowledge.Knowledge` (``seat=None``)
following the rollout's deal and hands the heuristic a light view and that knowledge plus
the seat's own hand (:meth:`~getaway.core.knowledge.Knowledge.seen_by`).

What the model leaves out (it only shifts the opponents' play in rare spots, never the
legality of a move): the cards a taker or a taken player saw in a take (R-P-TAKE), and the
card a player drew blind (R-P-DRAW) in what that player itself knows of the others.
"""

from __future__ import annotations

from ..core.cards import cards_of
from ..core.deal import Deal
from ..core.events import Action
from ..core.knowledge import Knowledge
from ..core.view import PlayerView, got_away_of
from .heuristic import HeuristicBot

__all__ = ["rollout_view", "heuristic_action", "heuristic_rollout"]


class _View:
    """The attributes of a :class:`~getaway.core.view.PlayerView` the heuristic reads."""

    __slots__ = (
        "seat",
        "players",
        "rules",
        "got_away",
        "trick",
        "hand_mask",
        "hand",
        "first_trick_done",
        "decision",
        "led_suit",
        "legal_actions",
        "_public",
    )

    #: the view's own readings of the seats after the viewer (one definition: the core's)
    active_after = PlayerView.active_after
    still_to_play = PlayerView.still_to_play

    @property
    def history(self) -> object:
        """The public history (the heuristic reads it only under V-NOPICKUP)."""
        return self._public.history


def rollout_view(deal: Deal, seat: int, legal: list[Action], public: Knowledge) -> tuple[_View, Knowledge]:
    """What ``seat`` would see and know now: a light view and ``public`` (brought up to date
    with ``deal``) plus the seat's own hand."""
    n = deal.players
    hand = deal.hand_mask(seat)
    view = _View()
    view.seat = seat
    view.players = n
    view.rules = deal.rules
    view.got_away = got_away_of(n, deal.out_mask)
    trick = deal.trick
    view.trick = trick
    view.hand_mask = hand
    view.hand = cards_of(hand)
    view.first_trick_done = deal.first_trick_done
    view.decision = deal.decision
    view.led_suit = trick[0][1] // 13 if trick else None
    view._public = public
    view.legal_actions = legal
    return view, public.seen_by(seat, hand)


def heuristic_action(bot: HeuristicBot, deal: Deal, public: Knowledge) -> Action:
    """The heuristic's action for the seat to act in ``deal``; ``public`` is the public
    knowledge of ``deal`` (followed here)."""
    legal = deal.legal_actions()
    if len(legal) == 1:
        return legal[0]
    public.follow(deal)
    seat = deal.to_act
    assert seat is not None
    view, knowledge = rollout_view(deal, seat, legal, public)
    return bot.choose(view, legal, knowledge)[0]  # type: ignore[arg-type]


def heuristic_rollout(bot: HeuristicBot, deal: Deal, public: Knowledge, limit: int = 2000) -> bool:
    """Play ``deal`` out with the heuristic in every seat; whether it ended within ``limit``."""
    while not deal.is_over:
        if not limit:
            return False
        limit -= 1
        deal.apply(heuristic_action(bot, deal, public))
    return True
