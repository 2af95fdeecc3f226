"""Knowledge: what one seat (or the public) can deduce from the events it has seen (R-INFO).

The one place where a deal's history becomes facts about hidden hands. Bots, the AI
environments' encoding, world sampling (:mod:`.worlds`) and the player's view
(:mod:`.view`) all read it, so a deduction is written once.

A :class:`Knowledge` is fed events in order (:meth:`Knowledge.follow` reads the new
events of a :class:`~getaway.core.deal.Deal`, :meth:`Knowledge.observe` takes events
directly) and first hides from them what its seat may not see: the card of someone else's
blind draw (R-P-DRAW) and the cards of a take the seat was not part of (R-P-TAKE). The
events it keeps are the seat's history (:attr:`Knowledge.history`).

**Known cards.** A card is known in a hand from the moment it is seen going there: picked
up (R-P-TRICK, R-C-TRICK, R-P-PENALTY: public), seen by the taker and the taken player in a
take, drawn (the drawer only); before the first lead, the A♠ in the hand of the player due
to lead (R-ACE). It stays known until its holder plays it; a take moves what was known of
the taken hand to the taker, a penalty pick-up moves picked-up cards to the offender.

**Proven voids**, one definition: ``voids[s]`` bit ``suit`` says that the *unknown* cards of
seat ``s`` (those not in ``known[s]``, a hidden blind-drawn card excepted: see below) hold no
card of that suit. It is proven when ``s`` does not follow a led suit: an off-suit card (a
tochoo, a ruff, any non-spade on punjab's first trick) or a ``void`` event (classic,
V-NOPICKUP). It survives a pick-up, because picked-up cards are known (under classic the
void player picks up cards of the led suit: those are known, its unknown cards still hold
none of them), and it ends only when unknown cards reach the hand: a take (the taker's
unknown cards are then its own and the taken hand's: the void lasts only for suits both
were void in, or that the taken hand had no unknown card of), a blind draw (a card of any
suit: the drawer's voids end, the card itself is tracked apart). (A seat that gets away
keeps what was known: its hand is empty, or, when R-LOOP ends the deal, as it was.)
Whether a hand holds no card of a suit at all is :meth:`Knowledge.is_void`.

**Blind draws.** A card someone else drew blind is one of the cards that were in the waste
pile (the Joker excepted) at the draw: :attr:`Knowledge.hidden` lists ``(holder,
candidates, forced)`` for each such card not seen again (``forced``: the drawer must still
lead it; a take moves it to the taker and the obligation lapses). The waste pile as the seat
saw it (:attr:`Knowledge.waste`) still counts it until it is led.

>>> from getaway import Deal, Rules
>>> deal = Deal(Rules.profile("punjab", takes="off"), dealer=0, seed=3)
>>> k = Knowledge.of(deal, 1)
>>> k.known[1] == deal.hand_mask(1), k.sizes == list(deal.hand_sizes)
(True, True)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, overload

from .cards import ACE_OF_SPADES, FULL_PACK, JOKER_INDEX, SUIT_MASKS
from .events import Event, EventKind
from .messages import N_, Text, at
from .rules import Rules

if TYPE_CHECKING:
    from .deal import Deal

__all__ = ["Knowledge", "EventLog", "redact", "followed_knowledge"]

_JOKER_BIT = 1 << JOKER_INDEX
_SNAPSHOT = N_("a view's knowledge is a snapshot: copy() it to follow the deal")
_TAKEN_BACK = N_(
    "it read {read} events of a deal that now has {count} (taken back with Deal.pop): "
    "make a new one (Knowledge.of) or follow a copy made before the push"
)
_ACE_BIT = 1 << ACE_OF_SPADES
_PLAY = EventKind.PLAY
_VOID = EventKind.VOID
_PICKUP = EventKind.PICKUP
_WASTE = EventKind.WASTE
_DRAW = EventKind.DRAW
_TAKE = EventKind.TAKE
_IRREGULARITY = EventKind.IRREGULARITY
_LEAD = EventKind.LEAD
#: Event kinds that change no fact here but the leader (a tochoo or ruff is its play's).
_INERT = frozenset(
    {EventKind.LEAD, EventKind.PASS, EventKind.TOCHOO, EventKind.RUFF, EventKind.CAPTURE, EventKind.OVER}
)


class EventLog(Sequence[Event]):
    """An immutable, read-only window on the first ``length`` events of an append-only list.

    A view's history is one of these: making a view costs nothing per past event, and the
    window never changes even as the deal goes on. Compares equal to a tuple of the same
    events.
    """

    __slots__ = ("_events", "_length")

    def __init__(self, events: list[Event], length: int) -> None:
        self._events = events
        self._length = length

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> Event: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Event, ...]: ...
    def __getitem__(self, index: int | slice) -> Event | tuple[Event, ...]:
        if isinstance(index, slice):
            start, stop, step = index.indices(self._length)
            return tuple(self._events[start:stop:step])
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError("event index out of range")
        return self._events[index]

    def __iter__(self) -> Iterator[Event]:
        events = self._events
        for i in range(self._length):
            yield events[i]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, EventLog):
            other = tuple(other)
        return isinstance(other, tuple) and tuple(self) == other

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"EventLog({list(self)!r})"

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickling (the compiled class has no bare ``__new__``; a view goes to a bot worker
        process, web/botpool.py): the window's events only, never the list's later ones."""
        events = list(self)
        return (EventLog, (events, len(events)))


def redact(event: Event, seat: int | None) -> Event:
    """``event`` as ``seat`` sees it (``None``: the public): the card of someone else's blind
    draw and the cards of a take ``seat`` is not part of are removed (``hidden`` counts them).

    The one filter of a deal's history (R-INFO, R-P-DRAW, R-P-TAKE); idempotent.
    """
    kind = event.kind
    if kind == _DRAW:
        if event.seat != seat and event.cards:
            return event._replace(cards=(), hidden=len(event.cards))
    elif kind == _TAKE and (seat is None or seat not in (event.seat, event.other)) and event.cards:
        return event._replace(cards=(), hidden=len(event.cards))
    return event


def _mask(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def _sizes_before(sizes: Sequence[int], events: Sequence[Event]) -> list[int]:
    """Hand sizes before ``events``, given the sizes after them (the events tell every change)."""
    out = list(sizes)
    last_pickup: tuple[int, int] | None = None
    for e in events:
        kind = e.kind
        seat: Any = e.seat  # set for every kind read here
        if kind in (_PLAY, _IRREGULARITY):
            out[seat] += 1
            if kind == _IRREGULARITY and e.reason == "after_tochoo" and last_pickup is not None:
                out[last_pickup[0]] += last_pickup[1]  # the picked-up trick left the picker's hand
            last_pickup = None
        elif kind == _PICKUP:
            out[seat] -= len(e.cards)
            last_pickup = (seat, len(e.cards))
        elif kind == _DRAW:
            out[seat] -= 1
        elif kind == _TAKE:
            k = len(e.cards) or e.hidden
            other: Any = e.other
            out[seat] -= k
            out[other] += k
            last_pickup = None
        elif kind == _WASTE:
            last_pickup = None
    return out


class Knowledge:
    """What ``seat`` (``None``: the public, a spectator) can deduce about every hand.

    Build one with :meth:`of` (from a deal) or the constructor plus :meth:`observe`;
    keep it and call :meth:`follow` after each action: it reads only the new events.

    Args:
        rules: the rules in force.
        seat: the seat whose knowledge this is, or ``None``.
        sizes: hand sizes before the first event fed (public).
        hand: bit set of ``seat``'s cards before the first event fed (0 for ``None``).
        waste: bit set of the waste pile before the first event fed (public).
        stripped: bit set of the cards removed before the deal (R-UNEVEN, public).
        first_trick_done: whether the first trick is over before the first event.
        leader: the seat due to lead before the first event (R-ACE: before the first trick
            it holds the A♠), or ``None`` if not known.

    Attributes (read-only; lists are per seat, cards as bit sets, see :mod:`.cards`):
        seat, players, rules: as given.
        known: cards known to be in each hand (``seat``'s own entry: its whole hand).
        voids: per seat, bit ``suit`` set when its unknown cards hold no card of that suit
            (the module docstring's definition; 0 for ``seat`` itself).
        sizes: exact hand sizes.
        hidden: ``[holder, candidates, forced]`` for each card someone drew blind that
            this seat has not seen (R-P-DRAW).
        waste: the waste pile as seen (a hidden blind-drawn card still counted in).
        played: every card seen played to a trick.
        trick: cards on the table in the current trick.
        leader: the seat that led or is due to lead the current trick (``None`` if unknown).
        first_trick_done: whether the first trick is over.
        history: the events as ``seat`` saw them (see :func:`redact`), an :class:`EventLog`.
        read: number of a deal's events read by :meth:`follow`.
        universe: every card in play this deal (the pack without the stripped cards, the
            Joker with V-JOKER).

    Raises:
        ValueError: ``seat`` is not a seat of ``rules``, or ``sizes`` has the wrong length.
    """

    __slots__ = (
        "seat",
        "players",
        "rules",
        "known",
        "voids",
        "sizes",
        "hidden",
        "waste",
        "played",
        "trick",
        "leader",
        "first_trick_done",
        "_history",
        "read",
        "universe",
        "_open",
        "_led",
        "_last_pickup",
        "_derived",
        "_frozen",
        "_start",
    )

    def __init__(
        self,
        rules: Rules,
        seat: int | None,
        sizes: Sequence[int],
        *,
        hand: int = 0,
        waste: int = 0,
        stripped: int = 0,
        first_trick_done: bool = False,
        leader: int | None = None,
    ) -> None:
        n = rules.players
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n):
            raise ValueError(at("seat", Text(N_("no seat {seat!r} among {n} players"), seat=seat, n=n)))
        if len(sizes) != n:
            raise ValueError(at("sizes", Text(N_("{count} hand sizes for {n} players"), count=len(sizes), n=n)))
        self.seat = seat
        self.players = n
        self.rules = rules
        self.known = [0] * n
        if seat is not None:
            self.known[seat] = hand
        self.voids = [0] * n
        self.sizes = list(sizes)
        self.hidden: list[list] = []
        self.waste = waste
        self.played = 0
        self.trick = 0
        self.leader = leader
        self.first_trick_done = first_trick_done
        self._history: list[Event] = []
        self.read = 0
        universe = FULL_PACK & ~stripped
        if rules.joker:
            universe |= _JOKER_BIT
        self.universe = universe
        self._open = False
        self._led: int | None = None
        self._last_pickup: tuple[int, int] | None = None
        self._derived: dict | None = None
        self._frozen = -1
        self._start = (waste, first_trick_done, stripped)
        self._ace()

    # ------------------------------------------------------------------ building

    @classmethod
    def of(cls, deal: Deal, seat: int | None) -> Knowledge:
        """``seat``'s knowledge of ``deal`` now (reads the whole history once).

        Raises:
            ValueError: ``seat`` is not a seat of the deal.
        """
        events = deal.events
        start = deal.start
        sizes = _sizes_before(deal.hand_sizes, events)
        hand = 0
        if seat is not None and 0 <= seat < deal.players and not isinstance(seat, bool):
            hand = deal.hand_mask(seat)
            for e in reversed(events):  # the hand before the events, from the seat's own side
                hand = _hand_before(hand, e, seat)
        k = cls(
            deal.rules,
            seat,
            sizes,
            hand=hand,
            waste=start.waste if start is not None else 0,
            stripped=_mask(deal.stripped),
            first_trick_done=start.first_trick_done if start is not None else False,
        )
        k.follow(deal)
        return k

    @classmethod
    def from_history(
        cls,
        rules: Rules,
        seat: int | None,
        history: Sequence[Event],
        sizes: Sequence[int],
        *,
        hand: int = 0,
        waste: int = 0,
        stripped: int = 0,
        first_trick_done: bool = False,
        leader: int | None = None,
    ) -> Knowledge:
        """The knowledge after ``history`` (events from the deal's start, as ``seat`` or anyone
        saw them), given the hand ``sizes`` after it and, before it, ``seat``'s ``hand``, the
        ``waste``, the ``stripped`` cards and ``first_trick_done``; ``leader``: who is due to
        lead after it (R-ACE before the first trick). Nothing of the deal is read.

        Raises:
            ValueError: as the constructor.
        """
        k = cls(
            rules,
            seat,
            _sizes_before(sizes, history),
            hand=hand,
            waste=waste,
            stripped=stripped,
            first_trick_done=first_trick_done,
        )
        k.observe(history)
        if leader is not None:
            k.leader = leader
            k._ace()
        return k

    @property
    def start(self) -> tuple[int, bool, int]:
        """``(waste, first_trick_done, stripped)`` before the first event (what the constructor was given)."""
        return self._start

    def public(self) -> Knowledge:
        """What anyone (the public, ``seat=None``) knows, replayed from this knowledge's history:
        without the cards only :attr:`seat` saw (its draws, its takes). O(history)."""
        waste, first, stripped = self._start
        k = Knowledge.from_history(
            self.rules,
            None,
            self.history,
            self.sizes,
            waste=waste,
            stripped=stripped,
            first_trick_done=first,
            leader=self.leader,
        )
        k.read = self.read
        return k

    def rebase(self, deal: Deal) -> Knowledge:
        """Follow ``deal`` from now on, taking its events so far as already known (a deal
        rebuilt in the same state, e.g. :func:`getaway.core.worlds.deal_of`); returns ``self``.

        Raises:
            ValueError: a view's snapshot.
        """
        if self._frozen >= 0:
            raise ValueError(at("knowledge", Text(_SNAPSHOT)))
        self.read = deal.event_count
        return self.follow(deal)

    def follow(self, deal: Deal) -> Knowledge:
        """Read the events of ``deal`` since the last call (the deal this was built for); returns ``self``.

        Raises:
            ValueError: this is a view's snapshot (:meth:`copy` it first), or the deal was taken
                back (:meth:`~getaway.core.deal.Deal.pop`) before events this knowledge read.
        """
        if self._frozen >= 0:
            raise ValueError(at("knowledge", Text(_SNAPSHOT)))
        count = deal.event_count
        if self.read > count:
            raise ValueError(at("knowledge", Text(_TAKEN_BACK, read=self.read, count=count)))
        self._derived = None
        events = deal.events_since(self.read)
        if events:
            self.observe(events)
            self.read += len(events)
        if self.seat is not None:
            self.known[self.seat] = deal.hand_mask(self.seat)
        self.leader = deal.leader
        self._ace()
        return self

    def observe(self, events: Iterable[Event]) -> Knowledge:
        """Take in ``events`` (hidden parts removed first, :func:`redact`), in order; returns ``self``.

        Raises:
            ValueError: this is a view's snapshot (:meth:`copy` it first).
        """
        if self._frozen >= 0:
            raise ValueError(at("knowledge", Text(_SNAPSHOT)))
        me = self.seat
        known, voids, sizes, history = self.known, self.voids, self.sizes, self._history
        self._derived = None
        for event in events:
            kind = event.kind
            e = redact(event, me) if kind in (_DRAW, _TAKE) else event
            history.append(e)
            s: Any = e.seat  # set for every kind read here
            if kind in _INERT:  # nothing to learn (the trick's outcome comes in its own events)
                if kind == _LEAD:
                    self.leader = s
                continue
            if kind in (_PLAY, _IRREGULARITY):
                bit = 1 << e.cards[0]
                sizes[s] -= 1
                if kind == _PLAY:
                    self._last_pickup = None
                known[s] &= ~bit
                self.trick |= bit
                if kind == _PLAY:
                    self.played |= bit
                    if self._open:
                        led = self._led
                        if led is not None and (bit == _JOKER_BIT or e.cards[0] // 13 != led):
                            voids[s] |= 1 << led  # did not follow: a tochoo, a ruff, punjab's first trick
                    else:
                        self._open = True
                        self._led = None if bit == _JOKER_BIT else e.cards[0] // 13
                        self.leader = s
                else:  # R-P-PENALTY: no proof of anything about the offender's other cards
                    if e.reason == "after_tochoo" and self._last_pickup is not None:
                        picker, cards = self._last_pickup  # the trick leaves the picker's hand again
                        sizes[picker] -= cards.bit_count()
                        self.trick |= cards
                        self._last_pickup = None
                if self.waste & bit:
                    self._seen_again(s, bit)
            elif kind == _VOID:
                if self._led is not None:
                    voids[s] |= 1 << self._led
            elif kind == _PICKUP:
                cards = _mask(e.cards)
                for t in range(self.players):
                    known[t] &= ~cards  # a card is in one place (a penalty moves a picked-up trick)
                known[s] |= cards
                sizes[s] += len(e.cards)
                self._last_pickup = (s, cards)
                self._close()
            elif kind == _WASTE:
                self.waste |= _mask(e.cards)
                self._last_pickup = None
                if s is not None:
                    self._close()
            elif kind == _DRAW:
                sizes[s] += 1
                voids[s] = 0  # a card of any suit
                if e.cards:  # seen: the card left the waste
                    bit = 1 << e.cards[0]
                    self.waste &= ~bit
                    known[s] |= bit
                else:
                    self.hidden.append([s, self.waste & ~_JOKER_BIT, True])
            elif kind == _TAKE:
                taken: Any = e.other
                self._last_pickup = None
                k = len(e.cards) or e.hidden
                if e.cards:  # seen by taker and taken: every card of the taken hand is known
                    cards = _mask(e.cards)
                    known[s] |= cards
                    self.waste &= ~cards  # a hidden blind-drawn card comes into sight
                    self.hidden = [h for h in self.hidden if not (h[0] == taken and h[1] & cards)]
                else:
                    if sizes[taken] - known[taken].bit_count() - self._hidden_count(taken) > 0:
                        voids[s] &= voids[taken]
                    known[s] |= known[taken]
                for h in self.hidden:
                    if h[0] == taken:
                        h[0] = s
                        h[2] = False  # the obligation was the drawer's (R-P-TAKE)
                if self.leader == taken:
                    self.leader = s
                known[taken] = 0
                voids[taken] = 0
                sizes[s] += k
                sizes[taken] = 0
        if me is not None:
            voids[me] = 0
        self._ace()
        return self

    def _seen_again(self, seat: int, bit: int) -> None:
        """A card of the waste pile is played: it is the blind-drawn card ``seat`` held."""
        self.waste &= ~bit
        for i, h in enumerate(self.hidden):
            if h[0] == seat and h[1] & bit:
                del self.hidden[i]
                break
        for h in self.hidden:
            h[1] &= ~bit

    def _hidden_count(self, seat: int) -> int:
        return sum(1 for h in self.hidden if h[0] == seat)

    def _close(self) -> None:
        self._open = False
        self._led = None
        self.trick = 0
        self.first_trick_done = True

    def _ace(self) -> None:
        """R-ACE: before the first lead, the player due to lead holds the A♠."""
        if self.first_trick_done or self.played or self.trick or self.leader is None:
            return
        if not self.universe & _ACE_BIT:
            return
        known = self.known
        for s in range(self.players):
            if s != self.seat:
                known[s] &= ~_ACE_BIT
        if self.leader != self.seat:
            known[self.leader] |= _ACE_BIT

    def copy(self) -> Knowledge:
        """An independent copy that can follow the deal further."""
        other = self._clone()
        other._history = list(self._history) if self._frozen < 0 else self._history[: self._frozen]
        other._frozen = -1
        return other

    def snapshot(self) -> Knowledge:
        """A read-only copy of this moment (what a view holds): it shares the history list,
        so it costs O(players); :meth:`follow` and :meth:`observe` refuse it."""
        other = self._clone()
        other._frozen = len(self._history) if self._frozen < 0 else self._frozen
        return other

    def _clone(self) -> Knowledge:
        other = Knowledge(self.rules, None, self.sizes)  # (a compiled class has no bare __new__)
        other.seat = self.seat
        other.players = self.players
        other.rules = self.rules
        other.known = list(self.known)
        other.voids = list(self.voids)
        other.sizes = list(self.sizes)
        other.hidden = [list(h) for h in self.hidden]
        other.waste = self.waste
        other.played = self.played
        other.trick = self.trick
        other.leader = self.leader
        other.first_trick_done = self.first_trick_done
        other._history = self._history
        other.read = self.read
        other.universe = self.universe
        other._open = self._open
        other._led = self._led
        other._last_pickup = self._last_pickup
        other._derived = self._derived
        other._start = self._start
        return other

    def __copy__(self) -> Knowledge:
        return self.__deepcopy__({})

    def __deepcopy__(self, memo: dict) -> Knowledge:
        """An independent copy in the same state (a snapshot stays one); rules and events are immutable."""
        other = self._clone()
        other._history = list(self._history)
        other._frozen = self._frozen
        other._derived = None
        return other

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickling (the compiled class has no bare ``__new__``): the fields, restored by :func:`_restore`."""
        return (_restore, (self.rules, self.sizes, [getattr(self, name) for name in _FIELDS]))

    def seen_by(self, seat: int, hand: int) -> Knowledge:
        """This (public) knowledge plus ``seat``'s own hand ``hand``: what ``seat`` knows when
        it saw nothing private (no take of its own, no blind draw of its own pending). Fast:
        the history is not copied (the copy's :attr:`history` is empty)."""
        other = Knowledge(self.rules, None, self.sizes)  # (a compiled class has no bare __new__)
        other.seat = seat
        other.players = self.players
        other.rules = self.rules
        known = list(self.known)
        known[seat] = hand
        other.known = known
        voids = list(self.voids)
        voids[seat] = 0
        other.voids = voids
        other.sizes = list(self.sizes)
        other.hidden = [list(h) for h in self.hidden if h[0] != seat]
        other.waste = self.waste & ~hand  # its own blind-drawn card left the waste
        other.played = self.played
        other.trick = self.trick
        other.leader = self.leader
        other.first_trick_done = self.first_trick_done
        other._history = []
        other._start = self._start
        other.read = self.read
        other.universe = self.universe
        other._open = self._open
        other._led = self._led
        other._last_pickup = self._last_pickup
        other._derived = None
        other._frozen = -1
        return other

    # ------------------------------------------------------------------ derived facts

    @property
    def history(self) -> EventLog:
        """The events as :attr:`seat` saw them, up to now (an immutable window)."""
        return EventLog(self._history, len(self._history) if self._frozen < 0 else self._frozen)

    def _derive(self) -> dict:
        d = self._derived
        if d is None:
            placed = self.waste | self.trick
            for m in self.known:
                placed |= m
            unknown = [max(0, self.sizes[s] - self.known[s].bit_count()) for s in range(self.players)]
            if self.seat is not None:
                unknown[self.seat] = 0
            d = self._derived = {"pool": self.universe & ~placed, "unknown": unknown}
        return d

    @property
    def pool(self) -> int:
        """Bit set of the cards whose place is unknown: they are in the unknown cards of some hand."""
        return self._derive()["pool"]

    @property
    def unknown(self) -> list[int]:
        """Per seat, how many of its cards are unknown here (a hidden blind-drawn card included)."""
        return self._derive()["unknown"]

    @property
    def led_suit(self) -> int | None:
        """The current trick's led suit (``None``: no trick open, or the Joker led)."""
        return self._led if self._open else None

    def is_void(self, seat: int, suit: int) -> bool:
        """Whether ``seat`` certainly holds no card of ``suit`` (0–3) now."""
        d = self._derived
        vs = None if d is None else d.get("void_suits")
        if vs is None:
            vs = self.void_suits()
        return bool(vs[seat] >> suit & 1)

    def void_suits(self) -> list[int]:
        """Per seat, the bit set of the suits (bit ``suit``) it certainly holds no card of now:
        no known card of the suit, and no unknown card (a blind-drawn card apart), or a
        proven void, or no card of the suit left where it could be; and no hidden blind-drawn
        card that may be of the suit. (Read-only; computed once per state.)"""
        d = self._derive()
        out = d.get("void_suits")
        if out is None:
            pool = d["pool"]
            unknown = d["unknown"]
            absent = 0  # suits with no card in the pool
            for suit in range(4):
                if not pool >> (13 * suit) & 0x1FFF:  # (SUIT_MASKS[suit], by shifts: cheaper compiled)
                    absent |= 1 << suit
            out = []
            for s in range(self.players):
                known = self.known[s]
                have = 0
                for suit in range(4):
                    if known >> (13 * suit) & 0x1FFF:
                        have |= 1 << suit
                if s == self.seat:
                    out.append(15 & ~have)
                    continue
                rest = unknown[s]
                maybe = 0
                for h in self.hidden:
                    if h[0] == s:
                        rest -= 1
                        for suit in range(4):
                            if h[1] >> (13 * suit) & 0x1FFF:
                                maybe |= 1 << suit
                none = 15 if rest <= 0 else (self.voids[s] | absent) & 15
                out.append(none & ~have & ~maybe)
            d["void_suits"] = out
        return out

    def outstanding(self, suit: int) -> int:
        """Bit set of the cards of ``suit`` that other players than :attr:`seat` hold or may hold."""
        d = self._derived
        if d is None:
            d = self._derive()
        mask = d.get("others")
        if mask is None:
            mask = d["pool"]
            for s in range(self.players):
                if s != self.seat:
                    mask |= self.known[s]
            for h in self.hidden:
                mask |= h[1] & self.waste
            d["others"] = mask
        return mask & SUIT_MASKS[suit]

    def has_probability(self, seat: int, suit: int) -> float:
        """A rough chance that ``seat`` holds at least one card of ``suit`` (exactly 0 or 1 when certain)."""
        d = self._derived
        if d is None:
            d = self._derive()
        cache = d.get("has")
        if cache is None:
            cache = d["has"] = {}
        key = seat * 4 + suit
        p = cache.get(key)
        if p is None:
            p = cache[key] = self._has_probability(seat, suit, d)
        return p

    def _has_probability(self, seat: int, suit: int, d: dict) -> float:
        if self.known[seat] & SUIT_MASKS[suit]:
            return 1.0
        if self.is_void(seat, suit):
            return 0.0
        k = d["unknown"][seat]
        pool = d["pool"]
        total = pool.bit_count() or 1
        in_suit = (pool & SUIT_MASKS[suit]).bit_count()
        p_none = 1.0
        for i in range(k):
            if total - i <= 0:
                break
            p_none *= max(0.0, (total - in_suit - i) / (total - i))
        return 1.0 - p_none

    def __repr__(self) -> str:
        return f"Knowledge(seat={self.seat}, sizes={self.sizes}, read={self.read})"


def _hand_before(hand: int, e: Event, seat: int) -> int:
    """``seat``'s hand before ``e``, given the hand after it (``e`` unredacted)."""
    if e.seat == seat:
        kind = e.kind
        if kind in (_PLAY, _IRREGULARITY):
            return hand | 1 << e.cards[0]
        if kind in (_PICKUP, _DRAW, _TAKE):
            return hand & ~_mask(e.cards)
    elif e.kind == _TAKE and e.other == seat:
        return _mask(e.cards)
    return hand


def followed_knowledge(deal: Deal, seat: int | None, knowledge: Knowledge | None) -> Knowledge:
    """``knowledge`` brought up to date with ``deal`` (made afresh if ``None``), checked to be ``seat``'s.

    Raises:
        ValueError: ``seat`` is not a seat of the deal, or ``knowledge`` is another seat's.
    """
    n = deal.players
    if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n):
        raise ValueError(at("seat", Text(N_("no seat {seat!r} among {n} players"), seat=seat, n=n)))
    if knowledge is None:
        return Knowledge.of(deal, seat)
    if knowledge.seat != seat or knowledge.players != n:
        message = N_("this knowledge is seat {other}'s, not seat {seat}'s")
        raise ValueError(at("knowledge", Text(message, other=knowledge.seat, seat=seat)))
    return knowledge.follow(deal)


#: Every field of a :class:`Knowledge` (its ``__slots__``), in the order :meth:`Knowledge.__reduce__` saves them.
_FIELDS = (
    "seat",
    "players",
    "rules",
    "known",
    "voids",
    "sizes",
    "hidden",
    "waste",
    "played",
    "trick",
    "leader",
    "first_trick_done",
    "_history",
    "read",
    "universe",
    "_open",
    "_led",
    "_last_pickup",
    "_derived",
    "_frozen",
    "_start",
)


def _restore(rules: Rules, sizes: list[int], fields: list[Any]) -> Knowledge:
    """A :class:`Knowledge` from :meth:`Knowledge.__reduce__`'s fields (unpickling)."""
    k = Knowledge(rules, None, sizes)
    for name, value in zip(_FIELDS, fields, strict=True):
        setattr(k, name, value)
    return k
