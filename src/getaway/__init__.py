"""getaway: the rules of Getaway (Bhabhi, Bhabhi Thulla), the South Asian shedding card game.

The core (cards, rules, positions, the deal state machine, the player's view, the match)
imports nothing else of the package and nothing outside the standard library. Satellites
(records, bots, the command line) import the core.

>>> from getaway import Deal, Rules
>>> deal = Deal(Rules.profile("punjab", takes="off"), dealer=0, seed=1)
>>> str(deal.legal_actions()[0])
'A♠'
"""

# First: choose between deal.py and its compiled module (see _engine.py).
from .core import _engine  # noqa: F401  # isort: skip
from .core.cards import ACE_OF_SPADES, JOKER, Card, InvalidCardError, cards_of, mask_of, parse_cards
from .core.deal import PLAY, TAKE_OR_PASS, Deal, deal_hands, replay
from .core.events import (
    NUM_ACTIONS,
    PASS,
    PICKUP,
    TAKE,
    Action,
    Call,
    Event,
    EventKind,
    IllegalActionError,
    InvalidActionError,
    Outcome,
    Termination,
    action_from_id,
    parse_action,
)
from .core.knowledge import Knowledge
from .core.position import Position, PositionError
from .core.rules import Rules, RulesError
from .core.view import PlayerView, player_view

__version__ = "0.1.0"

__all__ = [
    "ACE_OF_SPADES",
    "JOKER",
    "NUM_ACTIONS",
    "PASS",
    "PICKUP",
    "PLAY",
    "TAKE",
    "TAKE_OR_PASS",
    "Action",
    "Call",
    "Card",
    "Deal",
    "Event",
    "EventKind",
    "IllegalActionError",
    "InvalidActionError",
    "InvalidCardError",
    "Outcome",
    "Knowledge",
    "PlayerView",
    "Position",
    "PositionError",
    "Rules",
    "RulesError",
    "Termination",
    "action_from_id",
    "cards_of",
    "deal_hands",
    "mask_of",
    "parse_action",
    "parse_cards",
    "player_view",
    "replay",
]
