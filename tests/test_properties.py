"""Property tests: invariants of the deal state machine over many random deals.

Random legal players (seeded; they take hands now and then, interject takes out of turn,
and under ``enforcement="penalize"`` commit deliberate irregularities) play deals of every
player count of both profiles, both enforcement modes and every take protocol; the checker
below verifies after every action:

1. card conservation: hands, waste pile, trick and stripped cards partition the pack (R-DECK);
2. the deal ends (R-END, R-LOOP) within :data:`MAX_STEPS` actions;
3. the outcome: punjab always has one loser (R-P-NODRAW), classic none only after R-C-TIE
   or R-LOOP; the places cover every seat once;
4. R-INFO: a player's view shows no card it may not know, redacts draws and takes, and its
   ``waste_seen`` follows from its own history alone (and a view does not change when two
   hidden cards are swapped between other players);
5. records replay to the same state, and the same seeds give byte-identical records;
6. ``strict`` refuses every illegal action and changes nothing; ``penalize`` turns an
   irregular play into an ``irregularity`` event (R-P-PENALTY).

A failure names the rules, seeds and moves that reproduce it. ``GETAWAY_SOAK=n`` multiplies
the sizes (the tests marked ``soak`` are the long runs).
"""

from __future__ import annotations

import itertools
import json
import os
import random
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from getaway import (
    ACE_OF_SPADES,
    NUM_ACTIONS,
    PASS,
    PICKUP,
    PLAY,
    TAKE,
    TAKE_OR_PASS,
    Action,
    Card,
    Deal,
    Event,
    EventKind,
    IllegalActionError,
    Position,
    Rules,
    RulesError,
    Termination,
    cards_of,
    player_view,
)
from getaway.core.cards import SUIT_MASKS
from getaway.core.record import deal_from_record, dumps, record_of

SOAK = max(1, int(os.environ.get("GETAWAY_SOAK", "1")))

#: Generous bound on the actions of one deal; R-LOOP guarantees the end long before.
MAX_STEPS = 20_000

PLAYER_COUNTS = {"punjab": range(3, 9), "classic": range(2, 9)}
ENFORCEMENTS = ("strict", "penalize")
PROTOCOLS: dict[str, dict[str, str]] = {
    "takes-off": {"takes": "off"},
    "poll-any": {"takes": "any", "take_protocol": "poll"},
    "poll-leader": {"takes": "leader", "take_protocol": "poll"},
    "interject-any": {"takes": "any", "take_protocol": "interject"},
    "interject-leader": {"takes": "leader", "take_protocol": "interject"},
}
UNEVEN = ("round_robin", "loaded", "strip")
CONFIGS = [
    (profile, players, enforcement, protocol)
    for profile, counts in PLAYER_COUNTS.items()
    for players in counts
    for enforcement in ENFORCEMENTS
    for protocol in PROTOCOLS
]

VARIANT_OPTIONS: dict[str, dict[str, Any]] = {
    "trump": {"trump": "spades"},
    "nopickup": {"nopickup": True},
    "kicker": {"kicker": True},
    "dehla": {"dehla": True},
    "joker": {"joker": True},
}
CLASHING = {frozenset({"nopickup", "kicker"})}
VARIANT_SETS = [(v,) for v in VARIANT_OPTIONS] + [
    pair for pair in itertools.combinations(VARIANT_OPTIONS, 2) if frozenset(pair) not in CLASHING
]

CARD_NAMES = {str(Card(i)): Card(i) for i in range(53)}
FULL_PACK = (1 << 52) - 1
_REDACTED_KINDS = (EventKind.DRAW, EventKind.TAKE)
#: Events after which every seat's view is checked: hidden cards move.
_SENSITIVE = frozenset({EventKind.DRAW, EventKind.TAKE, EventKind.IRREGULARITY, EventKind.OVER})
_JSON_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def _ids(config: tuple[Any, ...]) -> str:
    return "-".join(str(x) for x in config)


# ---------------------------------------------------------------------------- a trial


@dataclass(frozen=True)
class Trial:
    """One random deal: rules, the deal's seed (shuffle, blind draws) and the players' seed."""

    rules: Rules
    seed: int
    policy_seed: int
    dealer: int = 0
    joker_to: int | None = None

    @classmethod
    def make(cls, profile: str, options: dict[str, Any], seed: int, policy_seed: int, knobs: int) -> Trial:
        """A trial; ``knobs`` picks the deal's incidentals (dealer, uneven handling, Joker seat)."""
        rng = random.Random(knobs)
        players = options["players"]
        uneven = rng.choice(UNEVEN)
        extra: dict[str, Any] = {"uneven": uneven}
        if uneven == "loaded" and rng.random() < 0.5:
            extra["loaded_seat"] = rng.randrange(players)
        rules = Rules.profile(profile, **options, **extra)
        joker_to = rng.randrange(players) if rules.joker and rng.random() < 0.5 else None
        return cls(rules, seed, policy_seed, rng.randrange(players), joker_to)

    def new_deal(self, position: Position | None = None) -> Deal:
        return Deal(self.rules, self.dealer, self.seed, joker_to=self.joker_to, position=position)

    def describe(self) -> str:
        base = Rules.profile(self.rules.profile, players=self.rules.players).to_dict()
        changed = {k: v for k, v in self.rules.to_dict().items() if k != "profile" and base.get(k) != v}
        options = ", ".join(f"{k}={v!r}" for k, v in changed.items())
        return (
            f"Rules.profile({self.rules.profile!r}, players={self.rules.players}, {options}); "
            f"Deal(rules, dealer={self.dealer}, seed={self.seed}, joker_to={self.joker_to}); "
            f"policy_seed={self.policy_seed}"
        )


# ---------------------------------------------------------------------------- random players


@dataclass(frozen=True)
class Move:
    """An action the random players want to apply; ``irregular`` names the expected
    irregularity (``"out_of_turn"``, ``"revoke"``) or ``"maybe"`` (may also be refused)."""

    seat: int
    action: Action
    irregular: str | None = None

    def __str__(self) -> str:
        return f"{self.seat}:{self.action}"


class RandomPlayers:
    """Uniformly random legal players that take hands with a small probability (and
    interject takes out of turn), plus, under penalize, rare deliberate irregular plays."""

    def __init__(self, rules: Rules, policy_seed: int) -> None:
        self.rng = random.Random(policy_seed)
        self.take_rate = self.rng.choice((0.0, 0.02, 0.05)) if rules.takes != "off" else 0.0
        self.irregular_rate = 0.02 if rules.enforcement == "penalize" else 0.0
        self.interject = rules.take_protocol == "interject"

    def choose(self, deal: Deal, *, regular: bool = False) -> Move:
        rng = self.rng
        turn = deal.to_act
        assert turn is not None
        if self.irregular_rate and not regular and rng.random() < self.irregular_rate:
            move = self._irregular(deal, turn)
            if move is not None:
                return move
        if deal.decision == TAKE_OR_PASS:
            return Move(turn, TAKE if self.take_rate and rng.random() < self.take_rate else PASS)
        if self.interject and self.take_rate and not deal.trick and rng.random() < self.take_rate:
            takers = [s for s in deal.active if TAKE in deal.legal_actions(s)]
            if takers:
                return Move(rng.choice(takers), TAKE)
        plays = [a for a in deal.legal_actions(turn) if a is not TAKE]
        assert plays, f"seat {turn} is to play but has no legal action (hand {deal.hand(turn)})"
        return Move(turn, rng.choice(plays))

    def _irregular(self, deal: Deal, turn: int) -> Move | None:
        """Play out of turn while a trick is on the table, revoke, or (between tricks)
        play out of turn, which is an irregularity after a tochoo and refused otherwise."""
        rng = self.rng
        others = [s for s in deal.active if s != turn and deal.hand_mask(s)]
        trick = deal.trick
        if not trick:
            if not others:
                return None
            seat = rng.choice(others)
            return Move(seat, rng.choice(deal.hand(seat)), "maybe")
        hand = deal.hand_mask(turn)
        led = SUIT_MASKS[trick[0][1] // 13]
        kinds = ["out_of_turn"] if others else []
        if hand & led and hand & ~led:
            kinds.append("revoke")
        if not kinds:
            return None
        if rng.choice(kinds) == "revoke":
            return Move(turn, rng.choice(cards_of(hand & ~led)), "revoke")
        seat = rng.choice(others)
        return Move(seat, rng.choice(deal.hand(seat)), "out_of_turn")


def play_move(deal: Deal, players: RandomPlayers, checker: Checker | None = None) -> tuple[Move, list[Event]]:
    """Let the random players make one move (a refused irregular attempt is followed by a
    regular move) and return it with its events."""
    move = players.choose(deal)
    if move.irregular is not None:
        before = checker.snapshot() if checker else None
        try:
            events = deal.apply(move.action, move.seat)
        except IllegalActionError as exc:
            assert move.irregular == "maybe", f"penalize refused {move} ({move.irregular}): {exc}"
            if checker:
                checker.unchanged(before, f"refused irregular {move}")
            move = players.choose(deal, regular=True)
        else:
            irregular = [e for e in events if e.kind == EventKind.IRREGULARITY and e.seat == move.seat]
            assert irregular, f"irregular {move} gave no irregularity event: {events}"
            if move.irregular != "maybe":
                assert irregular[0].reason == move.irregular, f"{move}: expected {move.irregular}, got {irregular}"
            return move, events
    return move, deal.apply(move.action, move.seat)


def play_out(trial: Trial, position: Position | None = None) -> tuple[Deal, list[Move]]:
    """Play ``trial`` to its end without checks; the moves applied (poll passes included)."""
    deal = trial.new_deal(position)
    players = RandomPlayers(trial.rules, trial.policy_seed)
    moves = []
    while not deal.is_over and len(moves) < MAX_STEPS:
        moves.append(play_move(deal, players)[0])
    return deal, moves


# ---------------------------------------------------------------------------- what a seat knows


def redacted(event: Event, seat: int | None) -> Event:
    """``event`` as ``seat`` may see it (R-INFO): another seat's blind draw and a take between
    two other seats keep their cards hidden, counted by ``hidden``."""
    if (event.kind == EventKind.DRAW and event.seat != seat) or (
        event.kind == EventKind.TAKE and (seat is None or seat not in (event.seat, event.other))
    ):
        return event._replace(cards=(), hidden=len(event.cards))
    return event


class Observer:
    """What one seat (``None``: a spectator) has seen, rebuilt from the referee's events by the
    rule above, independently of :mod:`getaway.core.view`.

    Attributes:
        known: every card the seat has seen in an event (and the stripped cards).
        waste_seen: cards seen going into the waste pile and not seen coming out.
    """

    def __init__(self, seat: int | None, deal: Deal) -> None:
        start_waste = deal.start.waste if deal.start is not None else 0  # a position's waste is public
        self.seat = seat
        self.known = bits(deal.stripped) | start_waste
        self.waste_seen = start_waste
        self.fed = 0  # referee events read
        self.verified = 0  # view history events compared

    def feed(self, events: tuple[Event, ...]) -> None:
        for event in events[self.fed :]:
            cards = bits(redacted(event, self.seat).cards)
            self.known |= cards
            if event.kind == EventKind.WASTE:
                self.waste_seen |= cards
            elif event.kind in (EventKind.PLAY, EventKind.IRREGULARITY, EventKind.PICKUP, *_REDACTED_KINDS):
                self.waste_seen &= ~cards  # a card seen in a hand or on the table is not in the waste
        self.fed = len(events)


def bits(cards: Iterable[int]) -> int:
    """The bit set of ``cards`` (a faster :func:`~getaway.core.cards.mask_of` for trusted input)."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def cards_named_in(text: str) -> int:
    """The bit set of every card named by a string anywhere in JSON text."""
    return bits(CARD_NAMES[name] for name in set(_JSON_STRING.findall(text)) if name in CARD_NAMES)


# ---------------------------------------------------------------------------- the checker


@dataclass
class Checks:
    """How thoroughly a trial is checked (rates are per action)."""

    view_every_action: bool = True  # a view after every action (seats in turn; all after draws, takes, penalties)
    all_views: float = 0.0  # every seat's view (and the spectator's)
    view_json: float = 0.05  # views also checked as the JSON a server would send
    illegal: float = 0.1  # strict: try an illegal action, expect a refusal and no change
    replays: float = 0.02  # replay the record so far and compare
    twice: float = 1.0  # play the trial again: byte-identical record
    snapshots: bool = True  # a refused action leaves the same snapshot (else: the same cards, turn, event count)
    final_views: bool = True  # at the end, every seat's whole view as JSON (else one seat's, JSON sampled)
    indent: int | None = 2  # of the record's JSON text (None: compact, faster)


@dataclass
class Stats:
    deals: int = 0
    steps: int = 0
    counts: Counter[str] = field(default_factory=Counter)

    def add(self, other: Stats) -> None:
        self.deals += other.deals
        self.steps += other.steps
        self.counts.update(other.counts)


class Checker:
    """Runs one trial and checks the invariants after every action (views and replays as
    often as :class:`Checks` says), then the outcome, the record and a second run."""

    def __init__(self, trial: Trial, checks: Checks) -> None:
        self.trial = trial
        self.checks = checks
        self.rng = random.Random(f"checks {trial.seed} {trial.policy_seed}")  # apart from the players' choices
        self.deal = trial.new_deal()
        self.players = RandomPlayers(trial.rules, trial.policy_seed)
        self.moves: list[Move] = []
        self.out_order: tuple[tuple[int, ...], ...] = ()
        self.gone: list[int] = []
        self.stats = Stats(deals=1)
        n = self.deal.players
        self.seats = list(range(n))
        self.observers = [Observer(s, self.deal) for s in self.seats] + [Observer(None, self.deal)]
        self.pack = bits(self.deal.stripped) | bits(self.deal.waste)
        for s in self.seats:
            self.pack |= self.deal.hand_mask(s)
        joker = trial.rules.joker
        assert self.pack == FULL_PACK | (1 << 52 if joker else 0), f"the deal is not one full pack: {self.pack:#x}"

    # -- running

    def run(self) -> Deal:
        try:
            self._run()
        except Exception as exc:
            moves = " ".join(str(m) for m in self.moves)
            raise AssertionError(
                f"invariant violated in {self.trial.describe()}\n"
                f"after {len(self.moves)} moves (seat:action, poll passes included): {moves}\n"
                f"{type(exc).__name__}: {exc}"
            ) from exc
        return self.deal

    def _run(self) -> None:
        deal = self.deal
        self.check_state([])
        while not deal.is_over:
            assert len(self.moves) < MAX_STEPS, f"no end after {MAX_STEPS} actions (R-LOOP should end it)"
            if deal.rules.enforcement == "strict" and self.rng.random() < self.checks.illegal:
                self.try_illegal()
            turn = deal.to_act
            move, events = play_move(deal, self.players, self)
            self.moves.append(move)
            self.count(move, events, turn)
            self.check_state(events)
            if move.action is not PASS and self.rng.random() < self.checks.replays:
                self.check_replay()
        self.check_outcome()
        text = self.check_replay()
        if self.checks.final_views:
            for observer in self.observers:
                self.check_view(observer, json_too=True, whole_history=True)
        else:
            json_too = self.rng.random() < self.checks.view_json
            self.check_view(self.rng.choice(self.observers), json_too=json_too, whole_history=True)
        if self.rng.random() < self.checks.twice:
            again, _ = play_out(self.trial)
            assert dumps(record_of(again), indent=self.checks.indent) == text, "the same seeds gave a different record"
        self.stats.steps = len(self.moves)

    def count(self, move: Move, events: list[Event], turn: int | None) -> None:
        counts = self.stats.counts
        if move.action is TAKE:
            counts["takes"] += 1
            counts["poll takes" if self.deal.rules.take_protocol == "poll" else "interjected takes"] += 1
            if move.seat != turn:
                counts["takes out of turn"] += 1
        for event in events:
            if event.kind in (EventKind.IRREGULARITY, EventKind.DRAW, EventKind.TOCHOO, EventKind.RUFF):
                counts[f"{event.kind} {event.reason or ''}".strip()] += 1
        if self.deal.is_over:
            counts[f"termination {self.deal.outcome.termination}"] += 1

    # -- invariants

    def check_conservation(self, hands: list[int]) -> None:
        """Hands, waste, trick and stripped cards are disjoint and make up the pack."""
        deal = self.deal
        trick = bits(c for _, c in deal.trick)
        parts = [*hands, bits(deal.waste), trick, bits(deal.stripped)]
        union = size = 0
        for mask in parts:
            union |= mask
            size += mask.bit_count()
        if union == self.pack and size == self.pack.bit_count() and len(deal.trick) == trick.bit_count():
            return
        names = [f"hand of seat {s}" for s in self.seats] + ["waste", "trick", "stripped"]
        where = {c: [n for n, m in zip(names, parts, strict=True) if m >> c & 1] for c in cards_of(union | self.pack)}
        raise AssertionError(
            f"card conservation: twice {[(str(c), w) for c, w in where.items() if len(w) > 1]}, "
            f"missing {[str(c) for c, w in where.items() if not w]}, "
            f"not of this deal {[str(c) for c in cards_of(union & ~self.pack)]}, trick {deal.trick}"
        )

    def check_state(self, events: list[Event]) -> None:
        deal = self.deal
        hands = [deal.hand_mask(s) for s in self.seats]
        self.check_conservation(hands)
        assert deal.hand_sizes == tuple(h.bit_count() for h in hands)
        out_order = deal.out_order
        if out_order != self.out_order:  # changes only with an event; checked when it does
            gone = [s for group in out_order for s in group]
            assert len(gone) == len(set(gone)) and all(out_order), f"out_order {out_order}"
            assert set(gone) == {s for s in self.seats if deal.has_got_away(s)}, f"out_order {out_order}"
            assert out_order[: len(self.out_order)] == self.out_order, f"out_order {self.out_order} -> {out_order}"
            self.out_order = out_order
            self.gone = gone
        if deal.is_over:
            assert deal.to_act is None and deal.decision is None and deal.outcome is not None
            assert all(deal.legal_actions(s) == [] for s in self.seats)
            assert deal.events[-1].kind == EventKind.OVER
        else:
            turn = deal.to_act
            active = deal.active
            assert turn in active, f"seat {turn} to act is not active {active}"
            assert deal.decision in (PLAY, TAKE_OR_PASS)
            legal = deal.legal_actions(turn)
            assert legal, f"seat {turn} to act has no legal action"
            mask = deal.legal_mask(turn)  # the same set, as flags by action id
            assert len(mask) == NUM_ACTIONS and [i for i, f in enumerate(mask) if f] == sorted(legal), mask
            # Classic: a trick goes on after its leader got away, which may leave one seat (R-C-TIE).
            assert len(active) >= (1 if deal.trick else 2), f"active seats {active}"
            for s in self.gone:
                assert not hands[s], f"seat {s} got away holding {deal.hand(s)}"
                assert deal.legal_actions(s) == [], f"seat {s} got away but may {deal.legal_actions(s)}"
        checks = self.checks
        json_too = self.rng.random() < checks.view_json
        sensitive = checks.view_every_action and any(e.kind in _SENSITIVE for e in events)
        if sensitive or self.rng.random() < checks.all_views:
            for observer in self.observers:
                self.check_view(observer, json_too=json_too)
        elif checks.view_every_action:
            self.check_view(self.observers[len(self.moves) % len(self.observers)], json_too=json_too)

    def check_view(self, observer: Observer, *, json_too: bool, whole_history: bool = False) -> None:
        deal = self.deal
        seat = observer.seat
        view = player_view(deal, seat)
        self.stats.counts["views checked"] += 1
        who = "the spectator" if seat is None else f"seat {seat}"
        # Public facts are the referee's.
        assert view.hand_sizes == deal.hand_sizes and view.trick == deal.trick
        assert view.to_act == deal.to_act and view.decision == deal.decision and view.leader == deal.leader
        assert view.out_order == deal.out_order and view.outcome == deal.outcome
        assert view.waste_size == deal.waste_size and view.stripped == deal.stripped
        assert view.got_away == tuple(deal.has_got_away(s) for s in self.seats)
        own = 0
        if seat is None:
            assert view.hand is None and view.hand_mask == 0 and view.legal_actions == ()
            assert view.must_lead is None
        else:
            own = deal.hand_mask(seat)
            assert view.hand == deal.hand(seat) and view.hand_mask == own, f"{who}: view.hand is not its hand"
            assert view.legal_actions == tuple(deal.legal_actions(seat))
            if view.must_lead is not None:
                assert view.must_lead == deal.forced_lead and seat == deal.leader and own >> view.must_lead & 1
        # The history: every event, draws and takes of others redacted.
        history = view.history
        events = deal.events
        observer.feed(events)
        assert len(history) == len(events), f"{who}: history has {len(history)} of {len(events)} events"
        start = 0 if whole_history else observer.verified
        for i in range(start, len(events)):
            expected = redacted(events[i], seat)
            assert history[i] == expected, f"{who}: history[{i}] is {history[i]}, expected {expected}"
            if events[i].kind in _REDACTED_KINDS:
                assert events[i].cards, f"a {events[i].kind} of no cards: {events[i]}"
        observer.verified = len(events)
        # waste_seen follows from the history alone, and never hides a card of the waste.
        waste = bits(deal.waste)
        seen = bits(view.waste_seen)
        assert seen & waste == waste, f"{who}: waste_seen lacks {cards_of(waste & ~seen)} of the waste"
        assert seen == observer.waste_seen, (
            f"{who}: waste_seen {[str(c) for c in view.waste_seen]} but its history says "
            f"{[str(c) for c in cards_of(observer.waste_seen)]} (reveals a blind draw?)"
        )
        # No card of another hand that the seat has not seen.
        hidden = 0
        for t in self.seats:
            if t != seat:
                hidden |= deal.hand_mask(t) & ~observer.known
        shown = seen | bits(c for _, c in view.trick) | bits(a for a in view.legal_actions if a < 53)
        shown |= bits(view.stripped) | bits(c for tens in view.captured_tens for c in tens)
        if view.must_lead is not None:
            shown |= 1 << view.must_lead
        for event in history[start:]:
            shown |= bits(event.cards)
        leak = shown & hidden
        assert not leak, f"{who} sees hidden cards {[str(c) for c in cards_of(leak)]} of other hands"
        assert not shown & ~(observer.known | own), (
            f"{who} sees cards it never saw: {cards_of(shown & ~observer.known)}"
        )
        if json_too:
            data = view.to_dict()
            assert data["hand"] == (None if seat is None else [str(c) for c in deal.hand(seat)])
            del data["hand"]
            leak = cards_named_in(json.dumps(data, ensure_ascii=False)) & hidden
            assert not leak, f"{who}'s view JSON names hidden cards {[str(c) for c in cards_of(leak)]}"

    def check_outcome(self) -> None:
        deal = self.deal
        outcome = deal.outcome
        assert outcome is not None
        n = deal.players
        if deal.rules.profile == "punjab":
            assert outcome.loser is not None, f"punjab deal without a loser (R-P-NODRAW): {outcome}"
        elif outcome.loser is None:
            assert outcome.termination in (Termination.NO_LOSER, Termination.REPETITION), outcome
        if outcome.termination == Termination.TAKE:
            assert deal.rules.takes != "off" and outcome.takes
        if deal.rules.takes == "off":
            assert not outcome.takes
        gone = [s for group in outcome.out_order for s in group]
        assert len(gone) == len(set(gone)), f"out_order groups overlap: {outcome.out_order}"
        assert all(outcome.out_order), f"empty group in out_order: {outcome.out_order}"
        assert outcome.loser not in gone, f"the loser {outcome.loser} also got away: {outcome.out_order}"
        everyone = set(gone) | ({outcome.loser} if outcome.loser is not None else set())
        assert everyone == set(range(n)), f"out_order {outcome.out_order} + loser {outcome.loser} miss seats"
        place = 1
        for group in outcome.out_order:  # a group shares a place (R-END): 1, 2, 2, 4 …
            assert all(outcome.places[s] == place for s in group), f"places {outcome.places} for {outcome.out_order}"
            place += len(group)
        if outcome.loser is not None:
            assert outcome.places[outcome.loser] == n
        assert deal.events[-1] == Event(EventKind.OVER, outcome.loser, reason=outcome.termination)

    def snapshot(self) -> Any:
        """The state, to compare before and after a refused action."""
        deal = self.deal
        if self.checks.snapshots:
            return deal.snapshot()
        events = deal.events
        hands = tuple(deal.hand_mask(s) for s in self.seats)
        return hands, deal.waste, deal.trick, deal.to_act, deal.decision, deal.leader, deal.forced_lead, len(events)

    def unchanged(self, before: Any, what: str) -> None:
        assert self.snapshot() == before, f"{what} was refused but changed the state"

    def try_illegal(self) -> None:
        """Strict: an action that is not legal for its seat is refused and changes nothing."""
        deal = self.deal
        rng = self.rng
        n = deal.players
        for _ in range(10):
            seat = deal.to_act if rng.random() < 0.5 else rng.randrange(-1, n + 1)
            kind = rng.random()
            if kind < 0.4 and 0 <= seat < n and deal.hand_mask(seat):
                action: Action = rng.choice(deal.hand(seat))
            elif kind < 0.7:
                action = rng.choice((TAKE, PASS, PICKUP))
            else:
                action = Card(rng.randrange(53))
            legal = deal.legal_actions(seat) if 0 <= seat < n else []
            if action not in legal:
                break
        else:
            return
        before = self.snapshot()
        with pytest.raises(IllegalActionError) as refusal:
            deal.apply(action, seat)
        assert refusal.value.reason in IllegalActionError.REASONS
        self.unchanged(before, f"illegal {seat}:{action} ({refusal.value.reason})")
        self.stats.counts["illegal refused"] += 1

    def check_replay(self) -> str:
        """The record replays to the same state and re-records to the same text (returned)."""
        deal = self.deal
        text = dumps(record_of(deal), indent=self.checks.indent)
        again = deal_from_record(json.loads(text))
        assert again.snapshot() == deal.snapshot(), f"the replayed record differs after {len(self.moves)} moves"
        assert dumps(record_of(again), indent=self.checks.indent) == text, "the replay's record differs from the record"
        self.stats.counts["replays"] += 1
        return text


def check_trial(trial: Trial, checks: Checks) -> Stats:
    checker = Checker(trial, checks)
    checker.run()
    return checker.stats


# ---------------------------------------------------------------------------- the tests

seeds = st.integers(min_value=0, max_value=2**32 - 1)


def examples(count: int) -> settings:
    """Hypothesis settings: ``count`` examples, the same ones on every run."""
    return settings(
        max_examples=count,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow],
    )


@pytest.mark.parametrize("profile,players,enforcement,protocol", CONFIGS, ids=[_ids(c) for c in CONFIGS])
@examples(2 * SOAK)
@given(seed=seeds, policy_seed=seeds, knobs=seeds)
def test_invariants_hold_after_every_action(
    profile: str, players: int, enforcement: str, protocol: str, seed: int, policy_seed: int, knobs: int
) -> None:
    options = {"players": players, "enforcement": enforcement, **PROTOCOLS[protocol]}
    check_trial(Trial.make(profile, options, seed, policy_seed, knobs), Checks())


@pytest.mark.parametrize("profile", list(PLAYER_COUNTS))
@pytest.mark.parametrize("variants", VARIANT_SETS, ids=["+".join(v) for v in VARIANT_SETS])
@examples(2 * SOAK)
@given(
    players=st.integers(min_value=2, max_value=8),
    enforcement=st.sampled_from(ENFORCEMENTS),
    protocol=st.sampled_from(list(PROTOCOLS)),
    seed=seeds,
    policy_seed=seeds,
    knobs=seeds,
)
def test_invariants_hold_with_variants(
    profile: str,
    variants: tuple[str, ...],
    players: int,
    enforcement: str,
    protocol: str,
    seed: int,
    policy_seed: int,
    knobs: int,
) -> None:
    players = max(players, PLAYER_COUNTS[profile][0])
    options = {"players": players, "enforcement": enforcement, **PROTOCOLS[protocol]}
    for variant in variants:
        options.update(VARIANT_OPTIONS[variant])
    check_trial(Trial.make(profile, options, seed, policy_seed, knobs), Checks())


def test_nopickup_and_kicker_cannot_be_combined() -> None:
    with pytest.raises(RulesError, match="nopickup\\+kicker"):
        Rules.profile("punjab", nopickup=True, kicker=True)


def random_trials(count: int, seed: int, variants: bool) -> Iterator[Trial]:
    """``count`` trials cycling through every configuration (and variant set)."""
    rng = random.Random(seed)
    combos = list(itertools.product(CONFIGS, VARIANT_SETS if variants else [()]))
    for i in range(count):
        (profile, players, enforcement, protocol), chosen = combos[i % len(combos)]
        options: dict[str, Any] = {"players": players, "enforcement": enforcement, **PROTOCOLS[protocol]}
        for variant in chosen:
            options.update(VARIANT_OPTIONS[variant])
        yield Trial.make(profile, options, rng.getrandbits(32), rng.getrandbits(32), rng.getrandbits(32))


LOOP_CHECKS = Checks(
    view_every_action=False,
    all_views=0.005,
    twice=0.1,
    view_json=0.1,
    illegal=0.05,
    replays=0.0,
    final_views=False,
    snapshots=False,
    indent=None,
)


def run_many(trials: Iterator[Trial]) -> Stats:
    total = Stats()
    for trial in trials:
        total.add(check_trial(trial, LOOP_CHECKS))
    return total


@pytest.mark.soak
def test_thousands_of_random_deals() -> None:
    """Every configuration, many times: the cheap invariants after every action, views sampled."""
    count = 2000 * SOAK
    stats = run_many(random_trials(count, seed=20240601, variants=False))
    assert stats.deals == count
    counts = stats.counts
    # The random players reached the situations the invariants are about.
    for what in ("takes", "interjected takes", "takes out of turn", "poll takes", "draw", "tochoo", "illegal refused"):
        assert counts[what] > 0, f"no {what} in {count} deals: {counts}"
    assert counts["irregularity out_of_turn"] and counts["irregularity revoke"], counts
    for termination in ("last_holder", "take", "repetition", "no_loser"):
        assert counts[f"termination {termination}"] > 0, f"no deal ended by {termination}: {counts}"


@pytest.mark.soak
def test_thousands_of_random_deals_with_variants() -> None:
    """Every configuration with each variant and each valid pair of variants."""
    count = 300 * SOAK
    stats = run_many(random_trials(count, seed=20240602, variants=True))
    assert stats.deals == count
    assert stats.counts["ruff"] > 0 and stats.counts["takes"] > 0, stats.counts


# ---------------------------------------------------------------------------- R-INFO, the strong way


@dataclass(frozen=True)
class Exchange:
    """Two cards of one suit, dealt to two seats other than the viewer and exchanged between
    them; the viewer does not see either before move ``horizon``."""

    start: Position
    exchanged: Position
    moves: list[Move]
    horizon: int
    cards: tuple[Card, Card]


def exchange_unseen_cards(trial: Trial, viewer: int | None, rng: random.Random) -> Exchange | None:
    """Play ``trial`` from its dealt hands; pick the two same-suit cards of two other seats
    that the viewer sees last (``None`` if no two such cards exist)."""
    dealt = trial.new_deal()
    hands = tuple(dealt.hand_mask(s) for s in range(dealt.players))
    leader = next(s for s, h in enumerate(hands) if h >> ACE_OF_SPADES & 1)
    start = Position(hands, 0, leader, False)
    deal = trial.new_deal(start)
    players = RandomPlayers(trial.rules, trial.policy_seed)
    observer = Observer(viewer, deal)
    seen_at: dict[Card, int] = {}
    moves: list[Move] = []
    while not deal.is_over and len(moves) < MAX_STEPS:
        moves.append(play_move(deal, players)[0])
        before = observer.known
        observer.feed(deal.events)
        for card in cards_of(observer.known & ~before):
            seen_at[card] = len(moves) - 1  # the move that shows it
    unseen = [(s, c) for s, h in enumerate(hands) if s != viewer for c in cards_of(h)]
    pairs = [
        (min(seen_at.get(a[1], len(moves)), seen_at.get(b[1], len(moves))), a, b)
        for a, b in itertools.combinations(unseen, 2)
        if a[0] != b[0] and a[1] // 13 == b[1] // 13  # the Joker (52) has a suit of its own
    ]
    if not pairs:
        return None
    horizon = max(p[0] for p in pairs)
    _, (s1, c1), (s2, c2) = rng.choice([p for p in pairs if p[0] == horizon])
    other = list(hands)
    other[s1] = other[s1] & ~(1 << c1) | 1 << c2
    other[s2] = other[s2] & ~(1 << c2) | 1 << c1
    return Exchange(start, Position(tuple(other), 0, leader, False), moves, horizon, (c1, c2))


@examples(40 * SOAK)
@given(
    config=st.sampled_from(CONFIGS),
    variants=st.sampled_from([(), *VARIANT_SETS]),
    seed=seeds,
    policy_seed=seeds,
    knobs=seeds,
    spectator=st.booleans(),
)
def test_a_view_does_not_depend_on_cards_its_seat_has_not_seen(
    config: tuple[str, int, str, str],
    variants: tuple[str, ...],
    seed: int,
    policy_seed: int,
    knobs: int,
    spectator: bool,
) -> None:
    """R-INFO: exchange two cards of one suit between two other hands; with the same seeds
    and moves the viewer's view (as JSON) stays the same until it sees one of them."""
    profile, players, enforcement, protocol = config
    options: dict[str, Any] = {"players": players, "enforcement": enforcement, **PROTOCOLS[protocol]}
    for name in variants:
        options.update(VARIANT_OPTIONS[name])
    trial = Trial.make(profile, options, seed, policy_seed, knobs)
    rng = random.Random(knobs)
    viewer = None if spectator else rng.randrange(players)
    exchange = exchange_unseen_cards(trial, viewer, rng)
    if exchange is None:
        return
    deal_a, deal_b = trial.new_deal(exchange.start), trial.new_deal(exchange.exchanged)
    context = (
        f"{trial.describe()}; viewer {viewer}; {exchange.cards[0]} and {exchange.cards[1]} exchanged in "
        f"{exchange.start.to_dict()['hands']}"
    )
    assert player_view(deal_a, viewer).to_dict() == player_view(deal_b, viewer).to_dict(), context
    for i, move in enumerate(exchange.moves[: exchange.horizon]):
        deal_a.apply(move.action, move.seat)
        try:
            deal_b.apply(move.action, move.seat)
        except IllegalActionError as exc:
            raise AssertionError(f"{context}: move {i} {move} is illegal after the exchange: {exc}") from exc
        view_a, view_b = player_view(deal_a, viewer).to_dict(), player_view(deal_b, viewer).to_dict()
        assert view_a == view_b, f"{context}: views differ after move {i} {move}"


# ---------------------------------------------------------------------------- engine bugs these properties found


def drawn_card_taken(enforcement: str) -> Deal:
    """Seat 0 wins a trick with its last card and draws the 9♦ blind (R-P-DRAW, seed 1); seat 3
    takes seat 0's hand in the poll (R-P-TAKE) and now holds the 9♦, which seats 1 and 2 never saw."""
    rules = Rules.profile("punjab", players=4, takes="any", take_protocol="poll", enforcement=enforcement)
    start = Position.from_cards(
        [["5h"], ["2h", "ks"], ["3h", "7s", "8c"], ["4h", "2s", "5c"]],
        waste=["ad", "qc", "9d"],
        leader=0,
        first_trick_done=True,
    )
    deal = Deal(rules, dealer=0, seed=1, position=start)
    for seat, action in [(0, PASS), (1, PASS), (2, PASS), (3, PASS), (0, "5h"), (1, "2h"), (2, "3h"), (3, "4h")]:
        deal.apply(action, seat)
    assert deal.hand(0) == (Card.parse("9d"),)
    for seat, action in [(0, PASS), (1, PASS), (2, PASS), (3, TAKE)]:
        deal.apply(action, seat)
    while deal.decision == TAKE_OR_PASS:
        deal.apply(PASS)
    assert Card.parse("9d") in deal.hand(3) and "9♦" in [str(c) for c in player_view(deal, 2).waste_seen]
    return deal


def assert_waste_seen_follows_history(deal: Deal, seat: int) -> None:
    observer = Observer(seat, deal)
    observer.feed(deal.events)
    assert bits(player_view(deal, seat).waste_seen) == observer.waste_seen, (
        f"seat {seat}: waste_seen {[str(c) for c in player_view(deal, seat).waste_seen]}, "
        f"history says {[str(c) for c in cards_of(observer.waste_seen)]}"
    )


def test_r_info_a_second_blind_draw_does_not_reveal_the_first() -> None:
    deal = drawn_card_taken("strict")
    for seat, card in [(3, "2s"), (1, "ks"), (2, "7s")]:  # seat 1 wins with its last card and draws
        deal.apply(card, seat)
    assert deal.events[-3].kind == EventKind.DRAW and deal.events[-3].seat == 1
    assert "9♦" in [str(c) for c in player_view(deal, 2).waste_seen], "seat 2 never saw the 9♦ leave the waste"
    assert_waste_seen_follows_history(deal, 2)


def test_r_info_a_drawn_card_played_irregularly_leaves_waste_seen() -> None:
    deal = drawn_card_taken("penalize")
    deal.apply("2s", 3)
    events = deal.apply("9d", 3)  # out of turn: seat 3 picks up 2♠ 9♦ (R-P-PENALTY)
    assert events[0] == Event(EventKind.IRREGULARITY, 3, (Card.parse("9d"),), reason="out_of_turn")
    assert "9♦" not in [str(c) for c in player_view(deal, 2).waste_seen], "seat 2 saw the 9♦ played and picked up"
    assert_waste_seen_follows_history(deal, 2)
