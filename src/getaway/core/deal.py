"""The deal state machine: one hand of play, from the deal to the loser (RULES.md §1–§5).

A :class:`Deal` is created from (rules, dealer, seed) or from an explicit
:class:`~getaway.core.position.Position`. It says whose decision it is
(:attr:`Deal.to_act`) and of which kind (:attr:`Deal.decision`), lists the legal
actions of any seat (:meth:`Deal.legal_actions`) and applies one
(:meth:`Deal.apply`), returning the :class:`~getaway.core.events.Event` s it caused.
An illegal action raises :class:`~getaway.core.events.IllegalActionError` and changes
nothing; under ``enforcement="penalize"`` the irregularities of R-P-PENALTY are
carried out instead.

The state machine is pure: no I/O, no clock; its only chance (the shuffle and
the blind draws of R-P-DRAW) comes from ``random.Random(seed)``, unless the caller takes
the blind draws itself (``explicit_chance=True``, ``apply(action, draw=card)``).
:meth:`Deal.push` and :meth:`Deal.pop` try an action and take it back, for search.

All trick logic lives in this module, in one place each: which cards may be
played (:meth:`Deal._playable`), who is winning a trick (:meth:`Deal._winner`),
and the two ways a trick ends (:meth:`Deal._pick_up`, :meth:`Deal._complete`).
Profiles and variants switch branches inside them.

>>> from getaway import Rules
>>> deal = Deal(Rules.profile("punjab", takes="off"), dealer=0, seed=7)
>>> deal.decision, str(deal.legal_actions()[0])
('play', 'A♠')
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterable, Sequence
from typing import Annotated, Any, Final, TypeAlias, cast

from . import events as _events
from .cards import (
    ACE_OF_SPADES,
    JOKER_INDEX,
    SPADES,
    SUIT_MASKS,
    Card,
)
from .events import (
    Action,
    Call,
    Event,
    EventKind,
    IllegalActionError,
    Outcome,
    Termination,
    parse_action,
)
from .messages import N_, Text, at
from .position import Position
from .rules import _PLAYER_RANGE, Rules

__all__ = [
    "Deal",
    "DRAW",
    "PLAY",
    "TAKE_OR_PASS",
    "STRIP_ORDER",
    "active_after",
    "deal_hands",
    "next_active",
    "replay",
    "trick_winner",
]

#: :attr:`Deal.decision` values.
PLAY: Final = "play"
TAKE_OR_PASS: Final = "take"
#: A blind draw (R-P-DRAW) waits for its card: chance's step, in a deal made with ``explicit_chance=True``.
DRAW: Final = "draw"

# Where a transition stopped for a blind draw (explicit chance), so that the chance step can
# finish it: before the trick goes to the waste pile (the usual draw), after it (the waste was
# empty), or after a led Joker.
_BEFORE_WASTE: Final = 0
_AFTER_WASTE: Final = 1
_AFTER_JOKER: Final = 2

_TENS: Final = sum(1 << (13 * s + 8) for s in range(4))
_SPADES: Final = SUIT_MASKS[SPADES]
_JOKER_BIT: Final = 1 << JOKER_INDEX
_ACE_OF_SPADES_BIT: Final = 1 << ACE_OF_SPADES

# The hot path reads the names below. This module is compiled with mypyc where a compiler
# is available (setup.py): there a ``Final`` module name is a C static, while any other
# global (an imported name included) is a dict look-up on every use. In pure Python
# they are plain aliases.
_new_event: Final = tuple.__new__  # Event(...) without NamedTuple's Python-level __new__
_EVENT: Final = Event
_CARD: Final = Card
_CALL: Final = Call
# The calls, bound here rather than imported: the take poll uses them before every trick.
TAKE: Final = _events.TAKE
PASS: Final = _events.PASS
PICKUP: Final = _events.PICKUP
_SUIT_MASKS: Final = SUIT_MASKS
_ALL_CARDS: Final = tuple(Card(c) for c in range(JOKER_INDEX + 1))
_NUM_ACTIONS: Final = _events.NUM_ACTIONS
_PLAYER_RANGE_MAX: Final = max(most for _, most in _PLAYER_RANGE.values())

#: A whole number as a public argument that the engine checks itself (a seat, a dealer, a
#: seed). To the type checker it is ``Any``, so that the compiled build lets a bad value
#: through to that check, which refuses it with the engine's own error (a ``ValueError``
#: naming the argument) as the Python source does; for a parameter annotated ``int`` mypyc
#: would raise a bare ``TypeError`` first.
CheckedInt: TypeAlias = Annotated[Any, "int, checked at run time"]


def _card_list(mask: int) -> list[Card]:
    """The cards of bit set ``mask`` in :func:`getaway.core.cards.cards_of` order (bit order: suit
    order, low to high, the Joker last), compiled with this module: the engine lists the cards
    of every trick (events) and the legal cards of every action. A call into the interpreted
    ``cards`` module cost a third of the compiled engine's time, and its table of every suit
    pattern (32,768 tuples) misses the processor's cache; one bit at a time is cheaper here.
    tests/test_engine_build.py checks that both give the same cards."""
    cards = []
    while mask:
        low = mask & -mask
        cards.append(_ALL_CARDS[low.bit_length() - 1])
        mask ^= low
    return cards


def _cards_of(mask: int) -> tuple[Card, ...]:
    """:func:`getaway.core.cards.cards_of`, compiled with this module (see :func:`_card_list`)."""
    return tuple(_card_list(mask))


# Immutable values made once, not on every action (allocating them was a good part of an
# action's cost): a seat's card as it goes into the trick and the actions log, and the
# events that carry no more than a seat (and a card).
_SEATS: Final = range(_PLAYER_RANGE_MAX)
_SEAT_CARD: Final = tuple(tuple((s, card) for card in _ALL_CARDS) for s in _SEATS)
_PLAY_EVENTS: Final = tuple(tuple(Event(EventKind.PLAY, s, (card,)) for card in _ALL_CARDS) for s in _SEATS)
_TOCHOO_EVENTS: Final = tuple(tuple(Event(EventKind.TOCHOO, s, (card,)) for card in _ALL_CARDS) for s in _SEATS)
_LEAD_EVENTS: Final = tuple(Event(EventKind.LEAD, s) for s in _SEATS)
_VOID_EVENTS: Final = tuple(Event(EventKind.VOID, s) for s in _SEATS)
_PASS_EVENTS: Final = tuple(Event(EventKind.PASS, s) for s in _SEATS)


def trick_winner(trick: Sequence[tuple[int, Card]], rules: Rules, first_trick_done: bool) -> tuple[int, Card]:
    """The play currently winning ``trick``: the highest spade if spades were played as trumps
    (V-TRUMP; not on punjab's first trick, R-P-FIRST), else the highest card of the led suit;
    the Joker never wins (V-JOKER). The one definition the engine and the bots use.

    Args:
        trick: the plays so far, ``(seat, card)`` in order (``Deal.trick``, ``PlayerView.trick``).
        rules: the deal's rules; ``first_trick_done``: whether the first trick is over.

    Returns:
        ``(seat, card)`` of the winning play.

    Raises:
        ValueError: an empty trick (nobody is winning it yet).

    >>> from getaway import Rules, parse_cards
    >>> a, b, c = parse_cards("9h Kh 2s")
    >>> trick_winner([(0, a), (1, b), (2, c)], Rules.profile("classic", trump="spades"), True)
    (2, Card('2♠'))
    >>> trick_winner([(0, a), (1, b), (2, c)], Rules.profile("classic"), True)
    (1, Card('K♥'))
    """
    if not trick:
        raise ValueError(at("trick", Text(N_("empty: nobody is winning it yet"))))
    trumps = rules.trump is not None and not (rules.special_first_trick and not first_trick_done)
    return _winning_play(list(trick), trumps)


def active_after(players: int, out: int, seat: int) -> list[int]:
    """The seats still in the deal (R-ACTIVE: bit ``s`` of ``out`` clear, ``out`` a bit set of the
    seats that got away) after ``seat`` clockwise, that is to its left, ``seat`` excluded: the one
    definition of the seats' order around the table (the deal, the view, the bots, the terminal).

    >>> active_after(4, 0b0100, 1), active_after(4, 0b0100, 3)
    ([3, 0], [0, 1])
    """
    return [s for s in ((seat + i) % players for i in range(1, players)) if not out >> s & 1]


def next_active(players: int, out: int, seat: int) -> int:
    """The next seat to the left of ``seat`` still in the deal (:func:`active_after`'s first):
    whose hand ``seat`` takes (R-P-TAKE), who leads after a winner who got away (R-C-OUT);
    ``seat`` itself when it alone is still in, -1 when no seat is.

    >>> next_active(4, 0b0100, 1), next_active(4, 0b1110, 0), next_active(3, 0b111, 0)
    (3, 0, -1)
    """
    for i in range(1, players + 1):  # a loop, not active_after's list: the deal asks at every card
        s = (seat + i) % players
        if not out >> s & 1:
            return s
    return -1


def _winning_play(trick: list[tuple[int, Card]], trumps: bool) -> tuple[int, Card]:
    # A list, not any Sequence: compiled, its items and their fields are read without boxing.
    first = trick[0]
    led = first[1] // 13  # never the Joker: a led Joker goes to the waste (V-JOKER)
    best, best_key = first, -1
    for play in trick:
        c: int = play[1]
        if c == JOKER_INDEX:
            continue
        suit = c // 13
        if trumps and suit == SPADES:
            key = 100 + c
        elif suit == led:
            key = c
        else:
            continue
        if key > best_key:
            best, best_key = play, key
    return best


def _shuffle(rng: random.Random, pack: list[int]) -> None:
    """``rng.shuffle(pack)``. For a plain ``random.Random`` this is its own algorithm, the same
    draws in the same order (tests/test_architecture.py compares the two), compiled with this
    module: the Python-level ``shuffle`` was a tenth of a compiled deal's time."""
    if type(rng) is not random.Random:
        rng.shuffle(pack)  # an injected generator (docs/engine.md): its own shuffle
        return
    getrandbits = rng.getrandbits
    for i in range(len(pack) - 1, 0, -1):  # Fisher-Yates from the end, as random.shuffle
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)  # random.Random._randbelow_with_getrandbits(n)
        while j >= n:
            j = getrandbits(k)
        pack[i], pack[j] = pack[j], pack[i]


#: R-UNEVEN ``strip``: the cards removed first, in this order (2♣, 2♦, 2♥, 2♠).
STRIP_ORDER: Final = (Card.parse("2c"), Card.parse("2d"), Card.parse("2h"), Card.parse("2s"))


def deal_hands(rules: Rules, dealer: int, rng: random.Random, joker_to: int | None = None) -> tuple[list[int], int]:
    """Shuffle and deal a pack (R-DEAL, R-UNEVEN, V-JOKER).

    Args:
        rules: the rules (players, uneven handling, joker variant).
        dealer: the dealer's seat; dealing starts at the dealer's left.
        rng: the generator that shuffles (consumed).
        joker_to: with V-JOKER from the second deal of a match on, the seat that
            receives the Joker on top of its share; ``None``: the Joker (if any) is
            dealt like any other card.

    Returns:
        ``(hands, stripped)``: one bit set per seat and the bit set of stripped cards.

    Raises:
        ValueError: ``dealer`` or ``joker_to`` is not a seat.
    """
    n = rules.players
    if not 0 <= dealer < n:
        raise ValueError(at("dealer", Text(_NO_SUCH_SEAT, seat=dealer, n=n)))
    if joker_to is not None and not (rules.joker and 0 <= joker_to < n):
        message = N_("seat {seat!r} cannot receive a Joker under these rules")
        raise ValueError(at("joker_to", Text(message, seat=joker_to)))
    pack = list(range(52))
    if rules.joker and joker_to is None:
        pack.append(JOKER_INDEX)
    stripped = 0
    if rules.uneven == "strip":
        for card in STRIP_ORDER[: 52 % n]:  # the 52-card pack divides evenly; a Joker stays extra
            pack.remove(card)
            stripped |= 1 << card
    _shuffle(rng, pack)
    hands = [0] * n
    extra = pack[len(pack) - len(pack) % n :] if rules.uneven == "loaded" else []
    dealt = pack[: len(pack) - len(extra)]
    for i in range(n):  # one card at a time from the dealer's left: seat dealer+1+i gets pack[i::n]
        hand = 0
        for c in dealt[i::n]:
            hand |= 1 << c
        hands[(dealer + 1 + i) % n] = hand
    if extra:
        target = dealer if rules.loaded_seat is None else rules.loaded_seat
        for c in extra:
            hands[target] |= 1 << c
    if joker_to is not None:
        hands[joker_to] |= _JOKER_BIT
    return hands, stripped


class Deal:
    """One deal (one hand of play) under a :class:`~getaway.core.rules.Rules`.

    Args:
        rules: profile and options; ``rules.players`` seats, numbered clockwise from 0.
        dealer: the dealer's seat.
        seed: seeds ``random.Random`` for the shuffle and the blind draws; the same
            seed and actions give the same deal, byte for byte.
        joker_to: V-JOKER, deal 2+ of a match: the seat that gets the Joker.
        position: start from this position instead of shuffling (validated). A position
            with a ``blind_draw`` (R-P-DRAW) starts the deal's history with a ``waste`` event
            (the drawn card, no seat) and the holder's ``draw`` event.
        rng: the generator to use instead of ``random.Random(seed)``: any object with
            ``shuffle(list)`` and ``randrange(n)``. The blind draw of R-P-DRAW takes
            ``randrange(len(waste))`` as an index into the waste's cards in card order
            (the Joker left out). A record only replays if the seed gives the same draws.
        explicit_chance: the blind draws of R-P-DRAW are chance steps the caller takes: an
            action whose trick calls for a draw stops there, :attr:`decision` is ``"draw"``
            (:data:`DRAW`), :attr:`to_act` ``None``, :meth:`chance_outcomes` lists the cards
            that can be drawn, and ``apply(card)`` draws that card and finishes the action
            (docs/engine.md "Chance"). Without it (the default) the generator draws, as it
            always has; ``apply(action, draw=card)`` supplies a draw in either mode.

    Raises:
        PositionError: the position is impossible under the rules.
        ValueError: ``dealer`` or ``joker_to`` is not a seat.
    """

    def __init__(
        self,
        rules: Rules,
        dealer: CheckedInt = 0,
        seed: CheckedInt = 0,
        *,
        joker_to: int | None = None,
        position: Position | None = None,
        rng: random.Random | None = None,
        explicit_chance: bool = False,
    ) -> None:
        if not isinstance(rules, Rules):
            raise TypeError(f"rules: expected a Rules object, got {type(rules).__name__}")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(at("seed", Text(N_("expected a whole number, got {value!r}"), value=seed)))
        n = rules.players
        if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < n:
            raise ValueError(at("dealer", Text(N_("seat {seat!r} does not exist with {n} players"), seat=dealer, n=n)))
        # Public and read-only by convention; not ``Final``, which the compiled build would
        # enforce, while pickling (``__reduce__``) sets them.
        self.rules = rules
        self.players = n
        self.dealer: int = dealer
        self.seed: int = seed
        self.joker_to = joker_to
        self.start = position
        self._rng = random.Random(seed) if rng is None else rng
        # Copy on write: a clone or an undo record shares the generator, and whichever deal
        # draws next copies it first (a generator's state is a fifth of a clone's time otherwise).
        self._rng_shared = False
        self._explicit = bool(explicit_chance)
        # A transition stopped for its blind draw (explicit chance): (drawer, the cards that can
        # be drawn as a bit set, where it stopped (_BEFORE_WASTE ...), the trick's cards).
        self._pending: tuple[int, int, int, int] | None = None
        self._supplied = -1  # the card of apply(..., draw=card) while that apply runs, else -1
        # push()/pop(): the undo records, and the R-LOOP memory's changes made since the first
        # of them ((position, its count before), logged only while there is something to undo).
        self._undo: list[_Undo] = []
        self._seen_log: list[tuple[tuple[tuple[int, ...], int, Card | None], int]] = []
        self._logging = False
        # Rule switches read on every action, cached as plain attributes.
        self._punjab = rules.profile == "punjab"
        self._penalize = rules.enforcement == "penalize"
        self._trump = rules.trump is not None
        self._interrupts = rules.tochoo_interrupts
        self._nopickup = rules.nopickup
        self._dehla = rules.dehla
        self._interject = rules.take_protocol == "interject"
        self._poll_takes = rules.take_protocol == "poll"
        self._kicker = rules.kicker
        # V-TRUMP without interrupting tochoos: a void player who could ruff has the plain
        # void action too (pickup, or pass under V-NOPICKUP) outside punjab's first trick.
        self._ruff_or_void = not rules.tochoo_interrupts and bool(rules.trump)
        self._waste = 0
        self._out = 0  # bit set of seats that got away
        self._out_order: list[tuple[int, ...]] = []
        self._first_done = False
        if position is None:
            self._hands, self._stripped = deal_hands(rules, dealer, self._rng, joker_to)
        else:
            position.validate(rules)
            self._hands = list(position.hands)
            self._stripped = 0
            self._waste = position.waste
            self._first_done = position.first_trick_done
            gone = tuple(s for s in range(n) if not position.hands[s])
            if gone:  # seats without cards got away before the position
                self._out_order.append(gone)
                for s in gone:
                    self._out |= 1 << s
        self._in_play = self._waste  # cards of this deal (for kicks, V-KICKER)
        for hand in self._hands:
            self._in_play |= hand
        self._special = rules.special_first_trick and not self._first_done  # punjab's first trick
        self._trick: list[tuple[int, Card]] = []
        self._trick_mask = 0
        self._led_mask = 0  # the led suit's cards, while a trick is on the table
        self._led_suit = 0
        self._played = 0  # seats that have acted in the current trick
        self._kick = False
        # R-P-DRAW: the drawn card the leader must lead
        self._forced: Card | None = None if position is None else position.forced_lead
        self._after_tochoo: tuple[int, int, int] | None = None  # (picker, trick mask, seats that did not play)
        self._poll: list[int] = []
        self._phase = PLAY
        self._turn = -1
        self._leader = -1
        self._loser: int | None = None
        self._termination: str | None = None
        self._tricks = 0
        self._pickups = [0] * n
        self._picked_cards = [0] * n
        self._takes: list[tuple[int, int]] = []
        self._tens = [0] * n
        self._captured = 0  # every ten captured so far (V-DEHLA)
        self._events: list[Event] = []
        self._actions: list[tuple[int, Action]] = []
        # R-LOOP: how often each position (hands, leader, forced lead) began a trick
        self._seen: dict[tuple[tuple[int, ...], int, Card | None], int] = {}
        if position is not None and position.blind_draw is not None:
            # R-P-DRAW before the position: the drawn card went into the waste pile (when, and
            # with which trick, the position does not say: no seat) and its holder drew it
            # blind. The history says so, and the views follow it: the holder sees the card,
            # the others a hidden draw and the card still among those they saw go to the waste.
            holder, drawn = position.blind_draw
            card = _ALL_CARDS[drawn]  # a Card in the events, whatever int the position holds
            self._events.append(Event(EventKind.WASTE, None, (card,)))
            self._events.append(Event(EventKind.DRAW, holder, (card,)))
        if position is None:
            leader = next(s for s in range(n) if self._hands[s] >> ACE_OF_SPADES & 1)
        else:
            leader = position.leader
        self._start_trick(leader)

    # ------------------------------------------------------------------ public state

    @property
    def decision(self) -> str | None:
        """Kind of the pending decision: ``"play"`` (a card, or a void player's pickup/pass),
        ``"take"`` (take or pass in the poll of R-P-TAKE), ``"draw"`` (a blind draw waits for
        its card: explicit chance only, see :meth:`chance_outcomes`), or ``None`` when the deal
        is over."""
        return None if self._termination is not None else self._phase

    @property
    def to_act(self) -> int | None:
        """The seat whose decision it is, or ``None`` when the deal is over or a blind draw
        (chance, :data:`DRAW`) is pending.

        Under ``take_protocol="interject"`` other seats may also take (see :meth:`legal_actions`).
        """
        return None if self._turn < 0 else self._turn

    def chance_outcomes(self) -> list[tuple[Card, float]]:
        """The blind draw's outcomes while one is pending (:attr:`decision` ``"draw"``, explicit
        chance): ``(card, probability)`` for every card that can be drawn (R-P-DRAW: the waste
        pile's cards before the trick, the Joker left out), in card order, uniform; else ``[]``.
        ``apply(card)`` takes one.

        >>> deal = Deal(Rules.profile("punjab", players=3, takes="off"), seed=8, explicit_chance=True)
        >>> while deal.decision != DRAW:
        ...     _ = deal.apply(deal.legal_actions()[0])
        >>> deal.to_act, len(deal.chance_outcomes()) == deal.waste_size
        (None, True)
        >>> card = deal.chance_outcomes()[0][0]
        >>> _ = deal.apply(card)
        >>> deal.forced_lead == card, deal.decision
        (True, 'play')
        """
        pending = self._pending
        if pending is None or self._termination is not None:
            return []
        cards = _card_list(pending[1])
        p = 1.0 / len(cards)
        return [(c, p) for c in cards]

    @property
    def drawer(self) -> int | None:
        """The seat that draws blind while a draw is pending (:data:`DRAW`), else ``None``."""
        return None if self._pending is None else self._pending[0]

    @property
    def is_over(self) -> bool:
        """True once the deal has ended (R-END)."""
        return self._termination is not None

    @property
    def leader(self) -> int:
        """The seat that led (or is to lead) the current trick."""
        return self._leader

    @property
    def trick(self) -> tuple[tuple[int, Card], ...]:
        """Cards on the table: ``(seat, card)`` in playing order."""
        return tuple(self._trick)

    @property
    def first_trick_done(self) -> bool:
        """Whether the first trick (A♠ lead) has been resolved."""
        return self._first_done

    @property
    def waste_size(self) -> int:
        """Number of cards in the waste pile."""
        return self._waste.bit_count()

    @property
    def tricks_played(self) -> int:
        """Tricks resolved so far (completed or picked up)."""
        return self._tricks

    @property
    def out_order(self) -> tuple[tuple[int, ...], ...]:
        """Groups of seats in the order they got away (a group shares a place)."""
        return tuple(self._out_order)

    @property
    def events(self) -> tuple[Event, ...]:
        """Every event so far, hidden cards included (the referee's log; players see :func:`.view.player_view`)."""
        return tuple(self._events)

    def events_since(self, start: int) -> list[Event]:
        """The events from index ``start`` on (a new list; ``[]`` when none): an incremental
        reader (:class:`getaway.core.knowledge.Knowledge`) reads only what is new."""
        return self._events[start:]

    @property
    def event_count(self) -> int:
        """Number of events so far."""
        return len(self._events)

    @property
    def pickups(self) -> tuple[int, ...]:
        """Per seat, how many times it picked up (public)."""
        return tuple(self._pickups)

    @property
    def takes(self) -> tuple[tuple[int, int], ...]:
        """``(taker, taken)`` of every take so far (public, R-P-TAKE)."""
        return tuple(self._takes)

    @property
    def captured_tens(self) -> tuple[int, ...]:
        """Per seat, the bit set of the tens it captured (V-DEHLA, public)."""
        return tuple(self._tens)

    @property
    def out_mask(self) -> int:
        """Bit set of the seats that have got away (bit ``seat``)."""
        return self._out

    @property
    def actions(self) -> tuple[tuple[int, Action], ...]:
        """``(seat, action)`` of every applied action except poll passes (what a record keeps)."""
        return tuple(self._actions)

    @property
    def stripped(self) -> tuple[Card, ...]:
        """Cards removed before the deal (R-UNEVEN ``strip``)."""
        return _cards_of(self._stripped)

    @property
    def forced_lead(self) -> Card | None:
        """The drawn card the leader must lead (R-P-DRAW), if any. Referee knowledge."""
        return self._forced

    def hand(self, seat: CheckedInt) -> tuple[Card, ...]:
        """The cards of ``seat`` (referee knowledge; a player sees only their own in :func:`.view.player_view`).

        Raises:
            ValueError: no such seat.
        """
        return _cards_of(self.hand_mask(seat))

    def hand_mask(self, seat: CheckedInt) -> int:
        """The cards of ``seat`` as a bit set.

        Raises:
            ValueError: no such seat.
        """
        return self._hands[self._check_seat(seat)]

    def _check_seat(self, seat: object) -> int:
        """``seat`` if it is a seat of this deal, else a ValueError naming it."""
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.players:
            raise ValueError(at("seat", Text(_NO_SEAT, seat=seat, n=self.players)))
        return seat

    @property
    def waste(self) -> tuple[Card, ...]:
        """The waste pile's cards, in card order (its order is not kept: it is shuffled before a draw)."""
        return _cards_of(self._waste)

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        """Cards per seat."""
        return tuple(h.bit_count() for h in self._hands)

    def has_got_away(self, seat: int) -> bool:
        """Whether ``seat`` has got away (R-ACTIVE)."""
        return bool(self._out >> seat & 1)

    @property
    def active(self) -> tuple[int, ...]:
        """Seats still in the deal, clockwise from seat 0."""
        return tuple(s for s in range(self.players) if not self._out >> s & 1)

    @property
    def outcome(self) -> Outcome | None:
        """The :class:`~getaway.core.events.Outcome` once the deal is over, else ``None``."""
        if self._termination is None:
            return None
        n = self.players
        places = [0] * n
        place = 1
        for group in self._out_order:
            for s in group:
                places[s] = place
            place += len(group)
        if self._loser is not None:
            places[self._loser] = n
        return Outcome(
            termination=self._termination,
            loser=self._loser,
            out_order=tuple(self._out_order),
            places=tuple(places),
            tricks=self._tricks,
            pickups=tuple(self._pickups),
            cards_picked_up=tuple(self._picked_cards),
            takes=tuple(self._takes),
            captured_tens=tuple(_cards_of(t) for t in self._tens) if self.rules.dehla else (),
        )

    # ------------------------------------------------------------------ legal actions

    def legal_actions(self, seat: CheckedInt | None = None) -> list[Action]:
        """The legal actions of ``seat`` (default: :attr:`to_act`), a new list: cards in suit
        order, low to high, then ``PASS``/``PICKUP``/``TAKE`` where they are legal.

        Under ``take_protocol="interject"`` any seat allowed to take gets ``[TAKE]``
        between tricks. A seat with nothing to decide gets ``[]``.
        """
        return self._legal(self._turn if seat is None else self._check_seat(seat))

    def legal_mask(self, seat: CheckedInt | None = None) -> bytearray:
        """The legal actions of ``seat`` (default: :attr:`to_act`) as flags by action id: a
        new ``bytearray`` of :data:`~getaway.core.events.NUM_ACTIONS` (56) bytes, 1 where the action
        is legal, else 0. The same set as :meth:`legal_actions` (it is read from it), built
        here so that the AI environments can wrap it as their action mask without a Python
        loop per step (docs/envs.md). Raises ``ValueError`` for a bad seat, as
        :meth:`legal_actions` does."""
        flags = bytearray(_NUM_ACTIONS)
        for action in self._legal(self._turn if seat is None else self._check_seat(seat)):
            flags[action] = 1
        return flags

    def apply_id(self, action: CheckedInt) -> bytearray:
        """Apply the action with id ``action`` (0–55, :func:`~getaway.core.events.action_from_id`)
        for the seat to act, and return the legal actions of the seat to act next as
        :meth:`legal_mask` flags (all zero once the deal is over or while a blind draw is
        pending: a card id then draws that card). One engine call per step of an AI environment
        (docs/envs.md "Engine hooks"); :meth:`apply` does the same without the flags.

        Raises:
            InvalidActionError: not an action id (a bool, a float, out of range).
            IllegalActionError: not legal now; the state is unchanged.
        """
        turn = self._turn
        if type(action) is int and 0 <= action <= JOKER_INDEX and turn >= 0:
            self._play(turn, _ALL_CARDS[action])  # a card by the player on turn: apply's fast path
        else:
            self.apply(_events.action_from_id(action))
        flags = bytearray(_NUM_ACTIONS)
        for legal in self._legal(self._turn):
            flags[legal] = 1
        return flags

    @property
    def got_away_mask(self) -> int:
        """The seats that got away (R-ACTIVE) as a bit set: bit ``s`` for seat ``s``."""
        return self._out

    def why_illegal(self, action: Action | str | int, seat: CheckedInt | None = None) -> IllegalActionError | None:
        """Why ``action`` by ``seat`` (default: :attr:`to_act`) is not legal now, or ``None`` if
        it is: the :class:`~getaway.core.events.IllegalActionError` that :meth:`apply` raises
        under strict enforcement (``reason``: the machine code, its message a translatable
        :class:`~getaway.core.messages.Text`). Changes nothing. For a card of the seat's own
        hand it reads only that hand and public facts (the trick, whose turn, the take poll,
        the first trick, a forced lead's seat), so it may be shown to that seat (the terminal,
        the web page: docs/web.md).

        >>> from getaway import Rules
        >>> deal = Deal(Rules.profile("punjab", takes="off"), dealer=0, seed=7)
        >>> card = deal.hand(deal.to_act)[-1]
        >>> deal.why_illegal(card).reason
        'must_lead_ace_of_spades'
        >>> deal.why_illegal(deal.legal_actions()[0]) is None
        True

        Raises:
            InvalidActionError: ``action`` names no action.
        """
        if type(action) is not _CARD and type(action) is not _CALL:
            action = parse_action(action)
        if (
            self._termination is None
            and self._pending is None
            and (seat is None or (type(seat) is int and 0 <= seat < self.players))
        ):
            actor: int = self._turn if seat is None else seat
            if action in self._legal(actor):
                return None
            if type(action) is _CARD and not self._out >> actor & 1:
                return self._refusal(actor, action)  # type: ignore[arg-type]
        try:  # the other refusals all come before apply changes anything
            self.clone().apply(action, seat)
        except IllegalActionError as exc:
            return exc
        return None

    def _legal(self, seat: int) -> list[Action]:
        if self._termination is not None:
            return []
        phase = self._phase
        if phase != PLAY:  # the take poll, or a pending blind draw (no seat's decision)
            return [TAKE, PASS] if phase == TAKE_OR_PASS and seat == self._turn else []
        if seat == self._turn and not self._interject and not self._trump:
            return cast("list[Action]", _card_list(self._playable(seat)))  # cards are actions
        actions: list[Action] = []
        if seat == self._turn:
            actions.extend(_card_list(self._playable(seat)))
            if self._trick and not (self._hands[seat] & self._led_mask) and self._void_choice(seat):
                actions.append(PASS if self._nopickup else PICKUP)
        if self._can_take(seat):
            actions.append(TAKE)
        return actions

    def _playable(self, seat: int) -> int:
        """Bit set of the cards ``seat`` may play now, being on turn (R-ACE, R-FOLLOW,
        R-P-FIRST, R-P-TRICK, R-C-TRICK, R-P-DRAW, V-TRUMP, V-NOPICKUP, V-JOKER)."""
        hand = self._hands[seat]
        if not self._trick:
            if self._forced is not None:
                return 1 << self._forced
            if not self._first_done:
                return hand & _ACE_OF_SPADES_BIT
            return hand
        follow = hand & self._led_mask
        if follow:
            return follow
        if self._interrupts or (self._special and not self._nopickup):
            return hand  # any card: the tochoo (or a free card on punjab's first trick)
        if self._trump:
            return hand & _SPADES  # a ruff is the only card a void player may play
        return 0

    def _void_choice(self, seat: int) -> bool:
        """A void player under classic/no-pickup who may ruff also has the plain void action."""
        return self._ruff_or_void and not self._special and bool(self._hands[seat] & _SPADES)

    def _can_take(self, seat: int) -> bool:
        """Whether ``seat`` may take its left neighbour's hand now (R-P-TAKE), interject protocol."""
        rules = self.rules
        if rules.take_protocol != "interject" or self._trick or self._phase != PLAY:
            return False
        if self._out >> seat & 1 or not 0 <= seat < self.players:
            return False
        return rules.takes == "any" or seat == self._leader

    # ------------------------------------------------------------------ applying actions

    def apply(
        self, action: Action | str | int, seat: CheckedInt | None = None, *, draw: CheckedInt = None
    ) -> list[Event]:
        """Apply ``action`` by ``seat`` (default: :attr:`to_act`) and return the events it caused.

        Args:
            action: a :class:`~getaway.core.cards.Card`, a :class:`~getaway.core.events.Call`, an
                action id, or a name (``"10h"``, ``"take"``). While a blind draw is pending
                (:data:`DRAW`, explicit chance), the card drawn: one of :meth:`chance_outcomes`.
            seat: the acting seat; needed for interjected takes and (penalize) plays out of turn.
            draw: the card of the blind draw this action calls for (R-P-DRAW), instead of the
                generator's (a card, a card name or id); for search and adapters that choose
                chance outcomes. It must be one of the cards that can be drawn then (the waste
                pile's, the Joker left out), and the action must call for a draw.

        Raises:
            IllegalActionError: not legal now (the reason names why); the state is unchanged.
                With ``draw``: ``not_a_draw_candidate`` (the card cannot be drawn then),
                ``no_draw_due`` (the action calls for no draw); ``draw_pending``: a seat acts
                (or ``draw`` is given) while a blind draw waits for its card.
            InvalidActionError: ``action`` (or ``draw``) names no action (no card).
        """
        if type(action) is _CARD and draw is None and self._turn >= 0 and (seat is None or seat == self._turn):
            start = len(self._events)
            self._play(self._turn, action)  # the common case: the player on turn plays a card
            return self._events[start:]
        if type(action) is not _CARD and type(action) is not _CALL:
            action = parse_action(action)
        if self._termination is not None:
            raise IllegalActionError("deal_over", Text(N_("the deal is over")), seat=seat, action=action)
        if self._pending is not None:
            return self._chance_step(action, seat, draw)
        if draw is not None:
            return self._apply_drawing(action, seat, draw)
        if seat is None:
            seat = self._turn
        elif isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.players:
            raise IllegalActionError("bad_seat", Text(_NO_SEAT, seat=seat, n=self.players), action=action)
        if self._out >> seat & 1:
            raise IllegalActionError(
                "got_away", Text(N_("seat {seat} has got away"), seat=seat), seat=seat, action=action
            )
        start = len(self._events)
        if action is TAKE:
            self._take(seat)
        elif action is PASS:
            self._pass(seat)
        elif action is PICKUP:
            self._void_action(seat, PICKUP)
        else:
            self._play(seat, action)  # type: ignore[arg-type]  # a Card: the only action left
        return self._events[start:]

    def _chance_step(self, action: Action, seat: object, draw: object) -> list[Event]:
        """The pending blind draw's card (explicit chance): draw it, and finish the action that
        called for it (R-P-DRAW)."""
        pending = self._pending
        assert pending is not None
        if seat is not None or draw is not None or type(action) is not _CARD:
            message = Text(N_("a blind draw is pending: the next step is the card drawn (chance_outcomes)"))
            raise IllegalActionError("draw_pending", message, seat=cast("int | None", seat), action=action)
        card = cast(Card, action)
        if not pending[1] >> card & 1:
            raise IllegalActionError("not_a_draw_candidate", _not_drawable(card), action=card)
        drawer, _, where, cards = pending
        start = len(self._events)
        self._pending = None
        self._phase = PLAY
        self._turn = drawer  # the drawer leads the card (unless the trick's end says otherwise)
        self._took_draw(drawer, card)
        if where == _BEFORE_WASTE:
            self._to_waste(drawer, cards)
            self._end_trick(drawer)
        elif where == _AFTER_WASTE:
            self._end_trick(drawer)
        else:  # _AFTER_JOKER
            self._waste |= _JOKER_BIT
        return self._events[start:]

    def _apply_drawing(self, action: Action, seat: CheckedInt | None, draw: object) -> list[Event]:
        """``apply(action, seat, draw=card)``: the action, its blind draw being ``card``; refused
        (and undone) if the card cannot be drawn or the action calls for no draw."""
        card = draw if type(draw) is _CARD else parse_action(draw)  # any type: parse_action refuses it clearly
        if type(card) is not _CARD:
            raise IllegalActionError("not_a_draw_candidate", _not_drawable(card), action=card)
        record = _Undo(self)
        logging = self._logging
        self._logging = True  # R-LOOP's memory is restored too if the action is refused
        self._supplied = cast(int, card)
        try:
            events = self.apply(action, seat)
            if self._supplied >= 0:
                raise IllegalActionError(
                    "no_draw_due", Text(N_("this action calls for no blind draw")), seat=seat, action=action
                )
        except BaseException:
            self._supplied = -1
            self._restore(record)
            raise
        finally:
            self._logging = logging
            if not logging:
                self._seen_log.clear()
        return events

    # -- undo --

    def push(
        self, action: Action | str | int, seat: CheckedInt | None = None, *, draw: CheckedInt = None
    ) -> list[Event]:
        """:meth:`apply` that :meth:`pop` can take back (python-chess's ``push``/``pop``), for
        search: cheaper than a :meth:`clone` per move. Same arguments, result and errors as
        :meth:`apply`; a refused action pushes nothing.

        >>> deal = Deal(Rules.profile("punjab", takes="off"), seed=3)
        >>> before = deal.snapshot()
        >>> _ = deal.push(deal.legal_actions()[0])
        >>> deal.pop()
        >>> deal.snapshot() == before
        True
        """
        self._undo.append(_Undo(self))
        self._logging = True
        try:
            return self.apply(action, seat, draw=draw)
        except BaseException:
            self._restore(self._undo.pop())
            raise

    def pop(self) -> None:
        """Take back the last :meth:`push`: the deal is again exactly as it was before it (its
        events, R-LOOP memory and generator included), along with any :meth:`apply` made since.

        Raises:
            IndexError: nothing was pushed (or a clone or copy, which starts with nothing to undo).
        """
        if not self._undo:
            raise IndexError(Text(N_("nothing to undo: no push() to take back")))
        self._restore(self._undo.pop())

    @property
    def pushed(self) -> int:
        """How many :meth:`push` es :meth:`pop` can take back."""
        return len(self._undo)

    def _restore(self, record: _Undo) -> None:
        """Put the state of ``record`` (made just before a push) back."""
        self._waste = record.waste
        self._out = record.out
        self._first_done = record.first_done
        self._special = record.special
        self._trick_mask = record.trick_mask
        self._led_mask = record.led_mask
        self._led_suit = record.led_suit
        self._played = record.played
        self._kick = record.kick
        self._forced = record.forced
        self._after_tochoo = record.after_tochoo
        self._phase = record.phase
        self._turn = record.turn
        self._leader = record.leader
        self._loser = record.loser
        self._termination = record.termination
        self._tricks = record.tricks
        self._captured = record.captured
        self._pending = record.pending
        self._hands = record.hands  # the record's own copies: a record is restored once
        self._trick = record.trick
        self._poll = record.poll
        self._pickups = record.pickups
        self._picked_cards = record.picked_cards
        self._tens = record.tens
        del self._out_order[record.out_order :]
        del self._takes[record.takes :]
        del self._events[record.events :]
        del self._actions[record.actions :]
        log = self._seen_log
        seen = self._seen
        for i in range(len(log) - 1, record.seen_log - 1, -1):
            key, before = log[i]
            if before:
                seen[key] = before
            else:
                del seen[key]
        del log[record.seen_log :]
        if not self._undo:
            self._logging = False
        self._rng = record.rng  # never drawn from since: a draw copies a shared generator first
        self._rng_shared = True

    def play(self, card: Card | str, seat: CheckedInt | None = None) -> list[Event]:
        """Play ``card`` (a Card or a name such as ``"10h"``); see :meth:`apply`."""
        return self.apply(Card.parse(card) if isinstance(card, str) else card, seat)

    def take(self, seat: CheckedInt | None = None) -> list[Event]:
        """``seat`` takes its left neighbour's hand (R-P-TAKE); see :meth:`apply`."""
        return self.apply(TAKE, seat)

    def pass_(self, seat: CheckedInt | None = None) -> list[Event]:
        """Pass in the take poll (or, as a void player under no-pickup, decline to ruff)."""
        return self.apply(PASS, seat)

    def pickup(self, seat: CheckedInt | None = None) -> list[Event]:
        """A classic void player who could ruff picks up instead (V-TRUMP)."""
        return self.apply(PICKUP, seat)

    # -- takes (R-P-TAKE) --

    def _take(self, seat: int) -> None:
        rules = self.rules
        if rules.takes == "off":
            raise IllegalActionError(
                "take_not_allowed", Text(N_("takes are off in these rules")), seat=seat, action=TAKE
            )
        if rules.takes == "leader" and seat != self._leader:
            raise IllegalActionError(
                "take_not_allowed",
                Text(N_("only the player due to lead (seat {seat}) may take"), seat=self._leader),
                seat=seat,
                action=TAKE,
            )
        if self._phase == TAKE_OR_PASS:
            if seat != self._turn:
                raise IllegalActionError("not_your_turn", Text(_POLL_ASKS, seat=self._turn), seat=seat, action=TAKE)
        elif self._trick or rules.take_protocol != "interject":
            message = N_("a hand can be taken only before a trick's lead card is played")
            raise IllegalActionError("no_take_now", Text(message), seat=seat, action=TAKE)
        target = self._next_active(seat)
        self._actions.append((seat, TAKE))
        self._after_tochoo = None
        taken = self._hands[target]
        self._hands[seat] |= taken
        self._hands[target] = 0
        self._takes.append((seat, target))
        self._events.append(Event(EventKind.TAKE, seat, _cards_of(taken), target))
        self._get_away((target,))
        if target == self._leader:
            self._leader = seat
            self._forced = None  # the obligation was the drawer's (docs/rules.md, R-P-TAKE)
            self._events.append(_LEAD_EVENTS[seat])
        if self._check_over(Termination.TAKE):
            return
        if self._phase == TAKE_OR_PASS:
            if target in self._poll:
                self._poll.remove(target)
            self._next_poll()
        else:
            self._turn = self._leader

    def _pass(self, seat: int) -> None:
        if self._phase == TAKE_OR_PASS:
            if seat != self._turn:
                raise IllegalActionError("not_your_turn", Text(_POLL_ASKS, seat=self._turn), seat=seat, action=PASS)
            self._events.append(_PASS_EVENTS[seat])
            self._next_poll()
            return
        if self._nopickup:
            self._void_action(seat, PASS)
            return
        raise IllegalActionError("no_pass_now", Text(N_("there is nothing to pass on now")), seat=seat, action=PASS)

    def _start_trick(self, leader: int) -> None:
        """Begin a trick led by ``leader``: poll for takes (poll protocol) or wait for the lead.

        R-LOOP (interpretation): the third time the same position (every hand, the leader,
        a pending forced lead) begins a trick, the deal ends: nobody can ever get away from
        a loop (classic's two players holding one card of each of four suits, say).
        """
        key = (tuple(self._hands), leader, self._forced)
        seen = self._seen.get(key, 0) + 1
        self._seen[key] = seen
        if self._logging:
            self._seen_log.append((key, seen - 1))
        self._leader = leader
        if seen >= 3:
            self._end_by_repetition(leader)
            return
        self._trick = []
        self._trick_mask = 0
        self._played = 0
        self._kick = False
        if self._poll_takes:
            n = self.players
            if self.rules.takes == "leader":
                self._poll = [leader]
            else:
                self._poll = [s for s in ((leader + i) % n for i in range(n)) if not self._out >> s & 1]
            self._phase = TAKE_OR_PASS
            self._next_poll()
        else:
            self._phase = PLAY
            self._turn = leader

    def _next_poll(self) -> None:
        if self._poll:
            self._turn = self._poll.pop(0)
            self._phase = TAKE_OR_PASS
        else:
            self._phase = PLAY
            self._turn = self._leader

    # -- plays --

    def _play(self, seat: int, card: Card) -> None:
        c: int = card  # the Card goes into events; arithmetic on a plain int (unboxed when compiled)
        bit = 1 << c
        if seat != self._turn or self._phase != PLAY or not self._playable(seat) & bit:
            self._play_irregular(seat, card)
            return
        played = _SEAT_CARD[seat][c]
        self._actions.append(played)
        self._after_tochoo = None
        # ``x = x & y`` rather than ``&=`` on list items here and in _pick_up: compiled, the
        # augmented form is a generic object operation, this one plain integer arithmetic.
        hands = self._hands
        hands[seat] = hands[seat] & ~bit
        self._events.append(_PLAY_EVENTS[seat][c])
        trick = self._trick
        if not trick:
            self._lead(seat, card)
            return
        trick.append(played)
        self._trick_mask |= bit
        self._played |= 1 << seat
        if c == JOKER_INDEX or c // 13 != self._led_suit:
            if self._trump and c != JOKER_INDEX and c // 13 == SPADES and not self._special:
                self._events.append(Event(EventKind.RUFF, seat, (card,)))
            elif not self._special:
                # A tochoo (R-P-TRICK): the trick stops; only reachable when tochoos interrupt.
                self._events.append(_TOCHOO_EVENTS[seat][c])
                self._pick_up(seat if self._kick else self._winner(), tochoo_by=seat)
                return
        if not self._punjab and not self._hands[seat]:
            self._get_away((seat,))  # R-C-OUT
        self._advance(seat)

    def _play_irregular(self, seat: int, card: Card) -> None:
        """A play that is not plainly legal: refuse it, or (penalize) carry out R-P-PENALTY."""
        # No play at all during the poll, penalized or not: a replay's unrecorded passes stay exact.
        if self._penalize and self._hands[seat] >> card & 1 and self._phase == PLAY:
            if self._after_tochoo is not None and self._after_tochoo[2] >> seat & 1 and not self._trick:
                self._penalty_after_tochoo(seat, card)
                return
            if seat != self._turn:
                if self._trick:
                    self._penalty(seat, card, "out_of_turn")
                    return
            elif self._why_not_playable(seat, card)[0] == "must_follow_suit":
                self._penalty(seat, card, "revoke")
                return
        raise self._refusal(seat, card)

    def _refusal(self, seat: int, card: Card) -> IllegalActionError:
        """Why ``seat`` may not play ``card`` now (a card that is not legal for it): the one
        definition :meth:`apply` raises and :meth:`why_illegal` reports."""
        if not self._hands[seat] >> card & 1:
            message = Text(N_("seat {seat} does not hold {card}"), seat=seat, card=str(card))
            return IllegalActionError("card_not_in_hand", message, seat=seat, action=card)
        if self._phase != PLAY:
            return IllegalActionError("not_your_turn", self._poll_first(seat), seat=seat, action=card)
        if seat != self._turn:
            message = Text(N_("seat {turn} is to play, not seat {seat}"), turn=self._turn, seat=seat)
            return IllegalActionError("not_your_turn", message, seat=seat, action=card)
        reason, message = self._why_not_playable(seat, card)
        return IllegalActionError(reason, message, seat=seat, action=card)

    def _why_not_playable(self, seat: int, card: Card) -> tuple[str, Text]:
        if not self._trick:
            if self._forced is not None:
                return "must_lead_drawn_card", Text(
                    N_("seat {seat} must lead the card drawn from the waste"), seat=seat
                )
            return "must_lead_ace_of_spades", Text(N_("the first trick must be led with the A♠ (R-ACE)"))
        led = self._trick[0][1] // 13
        if self._hands[seat] & SUIT_MASKS[led]:
            message = N_("seat {seat} holds {suit} and must follow suit, not play {card}")
            return "must_follow_suit", Text(message, seat=seat, suit="♠♥♦♣"[led], card=str(card))
        message = N_("seat {seat} cannot follow and plays no card here (it picks up or passes)")
        return "cannot_play_when_void", Text(message, seat=seat)

    def _lead(self, seat: int, card: Card) -> None:
        c: int = card
        if c == JOKER_INDEX:  # V-JOKER: a led Joker goes straight to the waste; same player leads again
            self._events.append(Event(EventKind.WASTE, seat, (card,)))
            if self._hands[seat]:
                self._waste |= _JOKER_BIT
                return
            if self._punjab and self._waste & ~_JOKER_BIT:
                if self._draw(seat, _AFTER_JOKER, 0):  # R-P-DRAW, the Joker not included
                    return  # explicit chance: the draw's card comes first
                self._waste |= _JOKER_BIT  # then the Joker joins the waste
                return
            # Classic: the player got away (R-C-OUT). Punjab with nothing to draw (only after a
            # penalty emptied the waste): the same, as there is no card to lead.
            self._waste |= _JOKER_BIT
            self._get_away((seat,))
            self._end_trick(self._next_active(seat))
            return
        self._forced = None
        self._trick = [_SEAT_CARD[seat][c]]
        self._trick_mask = 1 << c
        suit = c // 13
        self._led_suit = suit
        self._led_mask = _SUIT_MASKS[suit]
        self._played = 1 << seat
        if self._kicker:  # V-KICKER: no higher card of the suit is still in play
            higher = _SUIT_MASKS[suit] & ~((2 << c) - 1)
            self._kick = not (higher & self._in_play & ~self._waste)
        if not self._punjab and not self._hands[seat]:
            self._get_away((seat,))  # R-C-OUT: a lead with the last card gets away at once
        self._advance(seat)

    def _poll_first(self, seat: int) -> Text:
        """Why ``seat`` cannot play now, during the take poll (R-P-TAKE): the seat asked must
        first answer take or pass, whether that is ``seat`` itself or another."""
        if seat == self._turn:
            return Text(N_("seat {seat} must first answer the take poll: take or pass"), seat=seat)
        return Text(N_("the take poll is asking seat {seat} first"), seat=self._turn)

    def _void_action(self, seat: int, call: Call) -> None:
        """A void player's plain action when a ruff was also open (classic: pickup; no-pickup: pass)."""
        if self._phase != PLAY:
            raise IllegalActionError("not_your_turn", self._poll_first(seat), seat=seat, action=call)
        if seat != self._turn:
            message = Text(N_("seat {turn} is to act, not seat {seat}"), turn=self._turn, seat=seat)
            raise IllegalActionError("not_your_turn", message, seat=seat, action=call)
        expected = PASS if self._nopickup else PICKUP
        if call is not expected or not self._trick or self._hands[seat] & self._led_mask:
            reason = "no_pass_now" if call is PASS else "no_pickup_now"
            message = Text(N_("{call} is not a choice for seat {seat} now"), call=str(call), seat=seat)
            raise IllegalActionError(reason, message, seat=seat, action=call)
        if not self._void_choice(seat):
            raise IllegalActionError(
                "no_pickup_now" if call is PICKUP else "no_pass_now",
                Text(N_("{call} is not a choice now"), call=str(call)),
                seat=seat,
                action=call,
            )
        self._actions.append((seat, call))
        self._void(seat)

    def _void(self, seat: int) -> None:
        """A void player who plays no card: picks up (R-C-TRICK) or passes (V-NOPICKUP)."""
        self._events.append(Event(EventKind.VOID, seat))
        if self._nopickup:
            self._played |= 1 << seat
            self._advance(seat)
        else:
            self._pick_up(seat)

    def _advance(self, seat: int) -> None:
        """Give the turn to the next seat due in this trick, applying the moves that offer no
        choice (a classic void player's pick-up, a no-pickup pass); complete the trick when
        every active player has acted."""
        n = self.players
        led_mask = self._led_mask
        hands = self._hands
        s = seat
        while True:
            s = next_active(n, self._out | self._played, s)  # the next seat still to act in the trick
            if s < 0:
                self._complete()
                return
            hand = hands[s]
            if hand & led_mask or self._interrupts or (self._special and not self._nopickup):
                self._turn = s
                return
            if self._trump and hand & _SPADES:
                self._turn = s  # may ruff, or pick up / pass
                return
            self._events.append(_VOID_EVENTS[s])
            if self._nopickup:
                self._played |= 1 << s
                continue
            self._pick_up(s)
            return

    # -- resolving a trick: the two ways it ends --

    def _winner(self) -> int:
        """The seat currently winning the trick (:func:`trick_winner`, the one definition)."""
        return _winning_play(self._trick, self._trump and not self._special)[0]

    def _pick_up(self, picker: int, *, tochoo_by: int | None = None) -> None:
        """``picker`` takes every card of the trick into their hand and leads next
        (R-P-TRICK, R-C-TRICK, V-KICKER, R-P-PENALTY)."""
        cards = self._trick_mask
        hands, pickups, picked = self._hands, self._pickups, self._picked_cards
        hands[picker] = hands[picker] | cards
        pickups[picker] = pickups[picker] + 1
        picked[picker] = picked[picker] + cards.bit_count()
        self._tricks += 1
        self._events.append(_new_event(_EVENT, (EventKind.PICKUP, picker, _cards_of(cards), None, None, 0)))
        if tochoo_by is not None and self._penalize:
            not_played = 0
            for s in range(self.players):
                if not (self._out | self._played) >> s & 1:
                    not_played |= 1 << s
            self._after_tochoo = (picker, cards, not_played)
        # Any resolved trick ends the first trick; on punjab's special first trick only a
        # penalty can cause a pick-up, and the next trick is then an ordinary one.
        self._first_done = True
        self._special = False
        self._end_trick(picker)

    def _complete(self) -> None:
        """Every active player acted: the trick goes to the waste pile (R-P-WON, R-C-WON,
        R-P-FIRST, V-NOPICKUP), its winner leads (R-C-OUT, R-P-DRAW)."""
        cards = self._trick_mask
        first = self._special
        winner = self._trick[0][0] if first else self._winner()
        self._tricks += 1
        tens = cards & _TENS & ~self._captured if self._dehla and not first else 0
        if tens:  # V-DEHLA: a ten counts once per deal, even if a blind draw brings it back
            self._captured |= tens
            self._tens[winner] |= tens
            self._events.append(Event(EventKind.CAPTURE, winner, _cards_of(tens)))
        self._first_done = True
        self._special = False
        leader = winner
        must_draw = self._punjab and not self._hands[winner]
        if must_draw and self._waste & ~_JOKER_BIT:
            # R-P-DRAW: from the waste as it was before this trick
            if self._draw(winner, _BEFORE_WASTE, cards):
                return  # explicit chance: the draw's card comes first
            must_draw = False
        elif not self._punjab and self._out >> winner & 1:
            leader = self._next_active(winner)  # R-C-OUT, interpretation
        self._to_waste(winner, cards)
        # The waste was empty (a penalty put the first trick in a hand): draw from the waste
        # this trick has just formed, so the draw stays blind to the others.
        if must_draw and self._draw(winner, _AFTER_WASTE, cards):
            return  # explicit chance: the draw's card comes first
        self._end_trick(leader)

    def _to_waste(self, winner: int, cards: int) -> None:
        """The trick ``cards``, won by ``winner``, goes to the waste pile."""
        self._waste |= cards
        self._events.append(_new_event(_EVENT, (EventKind.WASTE, winner, _cards_of(cards), None, None, 0)))

    def _end_trick(self, leader: int) -> None:
        """After a trick: punjab's get-away rule (R-P-OUT), the end check, the next trick."""
        if self._punjab:
            gone: list[int] = []
            out = self._out
            hands = self._hands
            for s in range(self.players):
                if not hands[s] and s != leader and not out >> s & 1:
                    gone.append(s)
            if gone:
                self._get_away(tuple(gone))
        if self._check_over(Termination.LAST_HOLDER):
            return
        self._events.append(_LEAD_EVENTS[leader])
        self._start_trick(leader)

    def _draw(self, seat: int, where: int, cards: int) -> bool:
        """R-P-DRAW: ``seat`` draws one card blind from the (shuffled) waste and must lead it:
        the card of ``apply(..., draw=card)``, else the generator's; with explicit chance, none
        yet: the transition stops (returns True) at ``where`` (``cards``: the trick's), and the
        chance step (:meth:`_chance_step`) finishes it."""
        # The Joker is never drawn (it would only go straight back).
        candidates = self._waste & ~_JOKER_BIT
        supplied = self._supplied
        if supplied >= 0:
            if not candidates >> supplied & 1:
                raise IllegalActionError("not_a_draw_candidate", _not_drawable(_ALL_CARDS[supplied]), seat=seat)
            self._supplied = -1  # used
            card = _ALL_CARDS[supplied]
        elif self._explicit:
            self._pending = (seat, candidates, where, cards)
            self._phase = DRAW
            self._turn = -1
            return True
        else:
            if self._rng_shared:  # copy on write (clones and undo records share it)
                self._rng = _copy_rng(self._rng)
                self._rng_shared = False
            listed = _cards_of(candidates)
            card = listed[self._rng.randrange(len(listed))]
        self._took_draw(seat, card)
        return False

    def _took_draw(self, seat: int, card: Card) -> None:
        """``seat`` draws ``card`` from the waste pile and must lead it (R-P-DRAW)."""
        self._waste &= ~(1 << card)
        self._hands[seat] |= 1 << card
        self._forced = card
        self._events.append(Event(EventKind.DRAW, seat, (card,)))

    def _get_away(self, seats: tuple[int, ...]) -> None:
        place = 1 + self._out.bit_count()  # the seats already out, one bit each
        self._out_order.append(seats)
        for s in seats:
            self._out |= 1 << s
            self._events.append(_new_event(_EVENT, (EventKind.OUT, s, (), place, None, 0)))

    def _next_active(self, seat: int) -> int:
        """The next seat clockwise after ``seat`` that has not got away (R-ACTIVE); -1 if none
        (:func:`next_active`)."""
        return next_active(self.players, self._out, seat)

    def _check_over(self, termination: str) -> bool:
        """R-END: the deal is over when at most one player is still in it."""
        active = self.players - self._out.bit_count()
        if active > 1:
            return False
        if active == 1:
            self._loser = next(s for s in range(self.players) if not self._out >> s & 1)
            self._termination = termination
        else:
            self._loser = None
            self._termination = Termination.NO_LOSER
        self._phase = PLAY
        self._turn = -1
        self._trick = []
        self._trick_mask = 0
        self._events.append(_new_event(_EVENT, (EventKind.OVER, self._loser, (), None, self._termination, 0)))
        return True

    def _end_by_repetition(self, leader: int) -> None:
        """R-LOOP: the player holding the most cards loses; among equals, classic has no
        loser (a drawn deal) and punjab, which has no drawn deals, picks the first of them
        clockwise from the leader."""
        n = self.players
        order = [(leader + i) % n for i in range(n)]
        active = [s for s in order if not self._out >> s & 1]
        most = max(self._hands[s].bit_count() for s in active)
        heaviest = [s for s in active if self._hands[s].bit_count() == most]
        loser = heaviest[0] if len(heaviest) == 1 or self.rules.profile == "punjab" else None
        gone = tuple(s for s in active if s != loser)
        self._loser = loser
        self._termination = Termination.REPETITION
        self._get_away(gone)
        self._phase = PLAY
        self._turn = -1
        self._trick = []
        self._trick_mask = 0
        self._events.append(Event(EventKind.OVER, loser, (), None, Termination.REPETITION))

    # -- R-P-PENALTY (enforcement="penalize") --

    def _penalty(self, seat: int, card: Card, reason: str) -> None:
        """The offender's card joins the trick, the offender picks it all up and leads next."""
        self._actions.append((seat, card))
        self._after_tochoo = None
        self._hands[seat] &= ~(1 << card)
        self._events.append(Event(EventKind.IRREGULARITY, seat, (card,), None, reason))
        self._trick.append((seat, card))
        self._trick_mask |= 1 << card
        self._pick_up(seat)

    def _penalty_after_tochoo(self, seat: int, card: Card) -> None:
        """A player who was still due in a trick plays after its tochoo: they pick up that
        trick (from the player who had picked it up) with their card, and lead next."""
        picker, cards, _ = self._after_tochoo  # type: ignore[misc]
        self._actions.append((seat, card))
        self._after_tochoo = None
        self._events.append(Event(EventKind.IRREGULARITY, seat, (card,), None, "after_tochoo"))
        self._hands[picker] &= ~cards
        self._pickups[picker] -= 1
        self._picked_cards[picker] -= cards.bit_count()
        self._tricks -= 1
        self._trick = []
        self._trick_mask = cards
        self._hands[seat] &= ~(1 << card)
        self._trick_mask |= 1 << card
        self._trick.append((seat, card))
        self._pick_up(seat)

    # ------------------------------------------------------------------ copies and views

    def clone(self) -> Deal:
        """An independent copy (same state, same random generator state); for search bots.

        Every attribute is copied (containers as new ones), whatever attributes ``__init__``
        makes: from ``__getstate__`` (compiled with mypyc a Deal is a native class without a
        ``__dict__``, whose ``__new__`` runs ``__init__``; its generated ``__getstate__`` lists
        every attribute). The generator is shared until one of the two draws (copy on write).
        The copy has nothing to undo (:meth:`pop`). :meth:`push` and :meth:`pop` are cheaper for
        a search that goes back and forth (bench/search.py)."""
        state = cast("dict[str, Any]", self.__getstate__())
        copied: dict[str, Any] = {}
        for name, value in state.items():
            kind = type(value)
            if kind is list:
                value = list(value)  # lists of ints and of tuples: a shallow copy is a copy
            elif kind is dict:
                value = dict(value)
            copied[name] = value
        self._rng_shared = True
        copied["_rng_shared"] = True
        copied["_undo"] = []
        copied["_seen_log"] = []
        copied["_logging"] = False
        other: Deal = _DealCopy()
        _set_state(other, copied)
        return other

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickling, ``copy.copy`` and ``copy.deepcopy`` (the OpenSpiel adapter serializes
        states): every attribute (``__getstate__``), set on a deal made without ``__init__``,
        as the compiled class's ``__new__`` would run it."""
        state = dict(cast("dict[str, Any]", self.__getstate__()))
        state.update(_undo=[], _seen_log=[], _logging=False)  # a copy starts with nothing to undo
        return (_DealCopy, (), state)

    def snapshot(self) -> dict[str, Any]:
        """The full state as a JSON-ready dict (referee knowledge: every hand and the waste).

        Two deals in the same state have equal snapshots; used to check replays.
        """
        return {
            "rules": self.rules.to_dict(),
            "dealer": self.dealer,
            "seed": self.seed,
            "finished": self.is_over,
            "loser": self._loser,
            "termination": self._termination,
            "out_order": [list(g) for g in self._out_order],
            "to_act": self.to_act,
            "decision": self.decision,
            "leader": self._leader,
            "hands": [[str(c) for c in _cards_of(h)] for h in self._hands],
            "waste": [str(c) for c in _cards_of(self._waste)],
            "waste_size": self.waste_size,
            "trick": [{"seat": s, "card": str(c)} for s, c in self._trick],
            "first_trick_done": self._first_done,
            "forced_lead": None if self._forced is None else str(self._forced),
            "tricks": self._tricks,
            "pickups": list(self._pickups),
            "takes": [list(t) for t in self._takes],
            "captured_tens": [[str(c) for c in _cards_of(t)] for t in self._tens],
            "events": [e.to_dict() for e in self._events],
        }

    def __repr__(self) -> str:
        state = "over" if self.is_over else f"{self.decision} by seat {self._turn}"
        return f"<Deal {self.rules.profile} {self.players}p dealer={self.dealer} seed={self.seed} {state}>"


class _Undo:
    """What :meth:`Deal.push` keeps to go back: every part of the state a transition may change
    (the containers that only grow, by their length; the R-LOOP memory through ``Deal._seen_log``).
    tests/test_properties.py checks that ``pop`` restores every attribute."""

    def __init__(self, deal: Deal) -> None:
        self.waste = deal._waste
        self.out = deal._out
        self.first_done = deal._first_done
        self.special = deal._special
        self.trick_mask = deal._trick_mask
        self.led_mask = deal._led_mask
        self.led_suit = deal._led_suit
        self.played = deal._played
        self.kick = deal._kick
        self.forced = deal._forced
        self.after_tochoo = deal._after_tochoo
        self.phase = deal._phase
        self.turn = deal._turn
        self.leader = deal._leader
        self.loser = deal._loser
        self.termination = deal._termination
        self.tricks = deal._tricks
        self.captured = deal._captured
        self.pending = deal._pending
        self.hands = list(deal._hands)
        self.trick = list(deal._trick)
        self.poll = list(deal._poll)
        self.pickups = list(deal._pickups)
        self.picked_cards = list(deal._picked_cards)
        self.tens = list(deal._tens)
        self.out_order = len(deal._out_order)
        self.takes = len(deal._takes)
        self.events = len(deal._events)
        self.actions = len(deal._actions)
        self.seen_log = len(deal._seen_log)
        self.rng = deal._rng
        deal._rng_shared = True  # a draw after this copies the generator first: this one stays as it is


def _copy_rng(rng: random.Random) -> random.Random:
    """An independent copy of a deal's generator (same state)."""
    if type(rng) is random.Random:
        other = random.Random.__new__(random.Random)  # not seeded: its state is set next
        other.setstate(rng.getstate())
        return other
    return copy.deepcopy(rng)


def _set_state(deal: Deal, state: dict[str, Any]) -> None:
    """Set every attribute of ``state`` on ``deal``: the compiled class's ``__setstate__``, or
    the instance dictionary of the Python class (which has no ``__setstate__``)."""
    setstate = getattr(deal, "__setstate__", None)
    if setstate is not None:
        setstate(state)
    else:
        vars(deal).update(state)


def _not_drawable(card: object) -> Text:
    return Text(N_("{card} cannot be drawn now: it is not one of the waste pile's cards"), card=str(card))


class _DealCopy(Deal):
    """An empty deal for :meth:`Deal.clone` to fill in, without the shuffle of ``Deal.__init__``."""

    def __init__(self) -> None:
        pass


def replay(deal: Deal, actions: Iterable[tuple[int, Action]]) -> Deal:
    """Apply ``(seat, action)`` pairs to ``deal`` in order, answering pending poll
    questions with ``pass`` (records do not keep poll passes). Returns ``deal``.

    Raises:
        IllegalActionError: an action is illegal (the deal is left before it);
            ``exc.index`` is its position in ``actions``.
    """
    for index, (seat, action) in enumerate(actions):
        while True:
            try:
                deal.apply(action, seat)
                break
            except IllegalActionError as exc:
                if deal.decision == TAKE_OR_PASS and exc.reason in _POLL_WAIT:
                    deal.apply(PASS)  # an unrecorded poll pass
                    continue
                exc.index = index  # type: ignore[attr-defined]
                raise
    return deal


# Messages said in several places (translated by the command line, docs/cli.md "Languages").
_NO_SUCH_SEAT: Final = N_("seat {seat} does not exist with {n} players")
_NO_SEAT: Final = N_("no seat {seat!r} among {n} players")
_POLL_ASKS: Final = N_("the take poll is asking seat {seat}")

# Refusals that only mean "the poll is still asking others": a replay passes for them.
_POLL_WAIT: Final = frozenset({"not_your_turn", "no_take_now"})
