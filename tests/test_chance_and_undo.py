"""Explicit chance (the blind draw of R-P-DRAW as a step a caller supplies) and undo
(``Deal.push``/``Deal.pop``), over random deals of every profile, player count, enforcement,
take protocol and variant (tests/test_properties.py's random players), in whichever build
runs (CI: the compiled one; tests/test_engine_build.py compares the builds).

- ``pop`` after ``push`` gives back exactly the previous state: every attribute (through
  ``__getstate__``, so a new attribute that ``pop`` forgets fails here), the snapshot, every
  seat's legal actions and view; and the deal then plays on exactly as one that never pushed
  (its generator included: the blind draws that follow are the same).
- ``Deal(..., explicit_chance=True)`` stops at each blind draw (``decision == "draw"``) and,
  given the card the seeded generator would have drawn, gives the same events as the default.
- ``apply(action, draw=card)`` draws that card; a card that cannot be drawn, or a draw for an
  action that calls for none, is refused with its reason and changes nothing.
"""

from __future__ import annotations

import copy
import pickle
import random
from typing import Any

import pytest

from conftest import SOAK, make_deal
from getaway import Card, Deal, EventKind, IllegalActionError, Position, Rules, player_view
from getaway.core.deal import DRAW
from test_properties import CONFIGS, PROTOCOLS, VARIANT_OPTIONS, VARIANT_SETS, RandomPlayers, Trial, play_move

MAX_STEPS = 20_000


def _state(deal: Deal) -> dict[str, Any]:
    """Every attribute of ``deal``, the generator by its state; caches left out."""
    state = dict(deal.__getstate__())  # type: ignore[call-overload]
    for transient in ("_rng_shared", "_logging", "_undo", "_seen_log"):
        state.pop(transient)
    rng = state.pop("_rng")
    state = copy.deepcopy(state)  # the containers as they are now
    state["rng"] = rng.getstate()
    return state


def _everything(deal: Deal) -> tuple[Any, ...]:
    seats = range(deal.players)
    return (
        _state(deal),
        deal.snapshot(),
        [deal.legal_actions(s) for s in seats],
        [bytes(deal.legal_mask(s)) for s in seats],
        [player_view(deal, s) for s in (None, *seats)],
    )


def _trials(deals_per_config: int) -> list[Trial]:
    trials = []
    for i, (profile, players, enforcement, protocol) in enumerate(CONFIGS):
        for k in range(deals_per_config):
            variants = VARIANT_SETS[(i + k) % len(VARIANT_SETS)] if k else ()
            options: dict[str, Any] = {"players": players, "enforcement": enforcement, **PROTOCOLS[protocol]}
            for v in variants:
                options.update(VARIANT_OPTIONS[v])
            trials.append(Trial.make(profile, options, seed=1000 * i + k, policy_seed=i + 7 * k, knobs=i * 31 + k))
    return trials


def _check_push_pop(trial: Trial, rng: random.Random, rate: float = 0.05) -> int:
    """Play ``trial`` with push/pop probes; returns how many probes crossed a blind draw."""
    deal = trial.new_deal()
    twin = trial.new_deal()  # never pushes: the reference
    players = RandomPlayers(trial.rules, trial.policy_seed)
    draws = 0
    steps = 0
    while not deal.is_over and steps < MAX_STEPS:
        steps += 1
        if rng.random() < rate:
            before = _everything(deal)
            depth = rng.randrange(1, 6)
            probe = RandomPlayers(trial.rules, rng.getrandbits(32))
            pushed = 0
            for _ in range(depth):
                if deal.is_over:
                    break
                move = probe.choose(deal, regular=True)
                events = deal.push(move.action, move.seat)
                draws += any(e.kind == EventKind.DRAW for e in events)
                pushed += 1
            assert deal.pushed == pushed
            for _ in range(pushed):
                deal.pop()
            assert deal.pushed == 0
            after = _everything(deal)
            assert after == before, f"{trial.describe()}: pop after {pushed} pushes changed the state"
        move, events = play_move(deal, players)
        assert twin.apply(move.action, move.seat) == events, trial.describe()
    assert _state(deal) == _state(twin)
    return draws


@pytest.mark.parametrize("chunk", range(2))
def test_pop_gives_back_exactly_the_state_before_push(chunk: int) -> None:
    trials = _trials(1)[chunk::2]
    rng = random.Random(chunk)
    draws = sum(_check_push_pop(t, rng) for t in trials)
    assert draws > 0  # the probes went through blind draws (R-P-DRAW), generator and all


@pytest.mark.soak
def test_pop_gives_back_exactly_the_state_before_push_soak() -> None:
    rng = random.Random(99)
    for trial in _trials(SOAK):
        _check_push_pop(trial, rng, 0.15)


def test_a_refused_push_pushes_nothing_and_pop_needs_a_push() -> None:
    deal = Deal(Rules.profile("punjab", takes="off"), seed=4)
    before = _everything(deal)
    with pytest.raises(IllegalActionError) as caught:
        deal.push(Card.parse("2h"))
    assert caught.value.reason in ("must_lead_ace_of_spades", "card_not_in_hand")
    assert deal.pushed == 0 and _everything(deal) == before
    with pytest.raises(IndexError, match="nothing to undo"):
        deal.pop()


def test_a_clone_copies_every_attribute_and_starts_with_nothing_to_undo() -> None:
    deal = Deal(Rules.profile("punjab", players=3, takes="any", dehla=True), seed=8)
    rng = random.Random(8)
    players = RandomPlayers(deal.rules, 3)
    for _ in range(30):
        play_move(deal, players)
    deal.push(players.choose(deal, regular=True).action)
    twin = deal.clone()
    assert twin.pushed == 0 and deal.pushed == 1
    deal.pop()
    twin_state = _state(twin)
    assert set(twin.__getstate__()) == set(deal.__getstate__())  # type: ignore[call-overload]
    while not twin.is_over:  # independent: the original stays where it was
        legal = twin.legal_actions()
        twin.apply(legal[rng.randrange(len(legal))])
    assert _state(twin) != twin_state and _state(deal) != _state(twin)


# ---------------------------------------------------------------------------- explicit chance


def _punjab_trials(count: int) -> list[Trial]:
    return [t for t in _trials(count) if t.rules.profile == "punjab" and t.rules.enforcement == "strict"]


def test_explicit_chance_stops_at_each_blind_draw_and_replays_the_seeded_deal() -> None:
    """R-P-DRAW as a chance step: with the card the generator would have drawn, the same deal."""
    draws = 0
    for trial in _punjab_trials(2):
        reference = trial.new_deal()
        explicit = Deal(trial.rules, trial.dealer, trial.seed, joker_to=trial.joker_to, explicit_chance=True)
        players = RandomPlayers(trial.rules, trial.policy_seed)
        while not reference.is_over:
            assert explicit.decision != DRAW
            move, events = play_move(reference, players)
            got = explicit.apply(move.action, move.seat)
            drawn = [e for e in events if e.kind == EventKind.DRAW]
            if drawn:
                draws += 1
                assert explicit.decision == DRAW and explicit.to_act is None and explicit.drawer == drawn[0].seat
                assert explicit.legal_actions() == [] and not any(explicit.legal_mask())
                outcomes = explicit.chance_outcomes()
                assert sum(p for _, p in outcomes) == pytest.approx(1.0)
                assert drawn[0].cards[0] in {c for c, _ in outcomes} and Card(52) not in {c for c, _ in outcomes}
                with pytest.raises(IllegalActionError) as caught:  # a seat cannot act first
                    explicit.apply(move.action, move.seat)
                assert caught.value.reason == "draw_pending"
                got += explicit.apply(drawn[0].cards[0])
            assert got == events, trial.describe()
        assert explicit.snapshot() == reference.snapshot()
    assert draws > 10


def test_a_supplied_draw_is_drawn_and_a_bad_one_is_refused_changing_nothing() -> None:
    """``apply(action, draw=card)`` (R-P-DRAW): the card drawn is the one supplied; a card that is
    not in the waste pile, or a draw for an action that calls for none, is refused."""
    checked = 0
    rng = random.Random(4)
    for trial in _punjab_trials(2):
        deal = trial.new_deal()
        players = RandomPlayers(trial.rules, trial.policy_seed)
        while not deal.is_over:
            move = players.choose(deal, regular=True)
            probe = deal.clone()
            calls_for_draw = any(e.kind == EventKind.DRAW for e in probe.apply(move.action, move.seat))
            if not calls_for_draw:
                if deal.waste_size and rng.random() < 0.05:
                    before = _everything(deal)
                    with pytest.raises(IllegalActionError) as caught:
                        deal.apply(move.action, move.seat, draw=deal.waste[0])
                    assert caught.value.reason == "no_draw_due" and _everything(deal) == before
                deal.apply(move.action, move.seat)
                continue
            before = _everything(deal)
            explicit = deal.clone()
            candidates = {c for c in deal.waste if c != 52}
            not_drawable = [c for c in map(Card, range(52)) if c not in candidates]
            for bad in (not_drawable[0], not_drawable[-1], "take"):
                with pytest.raises(IllegalActionError) as caught:
                    deal.apply(move.action, move.seat, draw=bad)
                assert caught.value.reason == "not_a_draw_candidate", caught.value
                assert _everything(deal) == before, "a refused draw changed the deal"
            card = sorted(candidates)[len(candidates) // 2]
            events = deal.apply(move.action, move.seat, draw=str(card))
            assert [e.cards[0] for e in events if e.kind == EventKind.DRAW] == [card]
            assert deal.forced_lead == card or deal.is_over or card not in deal.hand(move.seat)
            explicit._explicit = True  # (a test's shortcut) the same action as a chance step: the same events
            stepped = explicit.apply(move.action, move.seat)
            stepped += explicit.apply(card)
            assert stepped == events and explicit.snapshot() == deal.snapshot()
            checked += 1
    assert checked > 10


def test_a_supplied_draw_that_is_not_a_card_is_refused() -> None:
    deal = make_deal(["2h", "3h", "4h"], waste="9c 10c", leader=0)
    with pytest.raises(ValueError):
        deal.apply("2h", draw="zz")
    with pytest.raises(IllegalActionError) as caught:
        deal.apply("2h", draw="9c")  # the trick goes on: seat 1 still plays
    assert caught.value.reason == "no_draw_due"


def test_a_deal_stopped_at_a_blind_draw_copies_and_pickles() -> None:
    """R-P-DRAW, explicit chance: seat 0 wins a trick with its last card and draws blind."""
    rules = Rules.profile("punjab", players=3, takes="off")
    hands = [["4h"], ["2h", "5s"], ["3h", "6s"]]
    position = Position.from_cards(hands, waste=["9c", "10c"], leader=1, first_trick_done=True)
    deal = Deal(rules, position=position, explicit_chance=True)
    for card in ("2h", "3h", "4h"):
        deal.apply(card)
    assert deal.decision == DRAW and deal.drawer == 0 and deal.to_act is None
    assert deal.chance_outcomes() == [(Card.parse("9c"), 0.5), (Card.parse("10c"), 0.5)]
    with pytest.raises(IllegalActionError) as caught:
        deal.apply("5s")  # not in the waste pile
    assert caught.value.reason == "not_a_draw_candidate" and deal.decision == DRAW
    assert deal.why_illegal("5s").reason == "not_a_draw_candidate"  # type: ignore[union-attr]
    assert deal.why_illegal("10c") is None and deal.why_illegal("10c", 0).reason == "draw_pending"  # type: ignore[union-attr]
    for other in (deal.clone(), pickle.loads(pickle.dumps(deal)), deal):
        assert other.decision == DRAW and other.snapshot() == deal.snapshot()
        other.apply("10c")
        assert other.forced_lead == Card.parse("10c") and other.to_act == 0 and other.decision == "play"
        assert list(other.waste) == [Card.parse(c) for c in ("2h", "3h", "4h", "9c")]


# ---------------------------------------------------------------------------- apply_id


def test_apply_id_is_apply_then_legal_mask() -> None:
    """``apply_id`` (the environments' one engine call a step) gives the same deal as ``apply``
    and the next seat's ``legal_mask``; bad ids are refused and change nothing."""
    for trial in _trials(1)[::9]:
        if trial.rules.enforcement == "penalize" or trial.rules.take_protocol == "interject":
            continue
        a, b = trial.new_deal(), trial.new_deal()
        rng = random.Random(trial.seed)
        while not a.is_over:
            for bad in (56, -1, True, 2.0, None):
                with pytest.raises(ValueError):
                    a.apply_id(bad)
            legal = a.legal_actions()
            action = legal[rng.randrange(len(legal))]
            flags = a.apply_id(int(action))
            b.apply(action)
            assert flags == b.legal_mask() and a.snapshot() == b.snapshot()
            assert a.got_away_mask == sum(1 << s for s in range(a.players) if a.has_got_away(s))
        assert not any(flags)
