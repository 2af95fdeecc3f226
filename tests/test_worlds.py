"""Worlds (core/worlds.py): every sampled world agrees with the knowledge it was drawn from,
the real deal is one of them (consistent, and drawn with nonzero probability), and a view
plus a world rebuilds a deal in the view's state; the heuristic model of the expert's
rollouts plays exactly as the heuristic."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import SOAK, make_deal
from getaway import Deal, Knowledge, Position, Rules, player_view
from getaway.bots.expert import rebuild
from getaway.core.cards import FULL_PACK
from getaway.core.events import TAKE
from getaway.core.worlds import World, consistent, deal_of, sample

VARIANTS = [
    {},
    {"trump": "spades"},
    {"nopickup": True},
    {"kicker": True},
    {"dehla": True},
    {"joker": True},
    {"uneven": "strip"},
    {"take_protocol": "interject"},
]


def _random_rules(rng: random.Random) -> Rules:
    profile = rng.choice(["punjab", "classic"])
    players = rng.randint(3 if profile == "punjab" else 2, 8)
    options = dict(rng.choice(VARIANTS))
    if profile == "classic" and rng.random() < 0.5:
        options.setdefault("takes", "any")
    return Rules.profile(profile, players=players, **options)


def true_world(deal: Deal, k: Knowledge) -> World:
    """The real deal as a world of ``k`` (the cards drawn blind: the holder's cards still in ``k.waste``)."""
    n = deal.players
    hands = tuple(deal.hand_mask(s) for s in range(n))
    in_hands = k.waste & ~_waste(deal)
    drawn = []
    taken = 0
    for holder, candidates, _ in k.hidden:
        card = (hands[holder] & candidates & in_hands & ~taken).bit_length() - 1
        taken |= 1 << card
        drawn.append((holder, card))
    return World(hands, _waste(deal), tuple(drawn))


def _check_view(deal: Deal, seat: int, rng: random.Random, samples: int = 1) -> None:
    view = player_view(deal, seat)
    k = view.knowledge
    n = deal.players
    assert consistent(k, true_world(deal, k)), "the real deal does not fit the knowledge"
    trick = sum(1 << c for _, c in view.trick)
    for _ in range(samples):
        world = sample(k, rng)
        assert consistent(k, world)
        placed = 0
        for s in range(n):
            hand = world.hands[s]
            assert hand.bit_count() == view.hand_sizes[s], "hand size"
            assert hand & k.known[s] == k.known[s], "known cards"
            assert not placed & hand, "a card in two hands"
            placed |= hand
        assert world.hands[seat] == deal.hand_mask(seat)
        assert not placed & world.waste and not placed & trick and not world.waste & trick
        assert world.waste.bit_count() == view.waste_size
        true = [deal.hand_mask(s) for s in range(n)]
        assert placed | world.waste | trick == sum(true) | trick | _waste(deal), "the same cards in play"


def _waste(deal: Deal) -> int:
    return sum(1 << c for c in deal.waste)


def _random_histories(deals: int, seed: int, check, rate: float = 0.2) -> int:
    checks = 0
    for i in range(deals):
        rng = random.Random(seed + i)
        rules = _random_rules(rng)
        deal = Deal(rules, rng.randrange(rules.players), seed + i)
        while not deal.is_over:
            if rng.random() < rate:
                seats = [s for s in range(deal.players) if not deal.has_got_away(s)]
                check(deal, rng.choice(seats), rng)
                checks += 1
            legal = deal.legal_actions()
            plain = [a for a in legal if a is not TAKE] or legal
            deal.apply(TAKE if TAKE in legal and rng.random() < 0.05 else rng.choice(plain))
    return checks


def test_sampled_worlds_agree_with_the_public_history():
    assert _random_histories(50, 1000, _check_view, rate=0.35) >= 1500


def _check_rebuild(deal: Deal, seat: int, rng: random.Random) -> None:
    if deal.to_act != seat:
        seat = deal.to_act
    view = player_view(deal, seat)
    k = view.knowledge
    again = deal_of(view, true_world(deal, k), 1)
    assert again.legal_actions(seat) == deal.legal_actions(seat)
    assert again.trick == deal.trick and again.forced_lead == deal.forced_lead
    assert player_view(again, seat).legal_actions == view.legal_actions
    sampled = deal_of(view, sample(k, rng), 2)
    assert sampled.legal_actions(seat) == deal.legal_actions(seat)
    assert sampled.decision == deal.decision and sampled.to_act == deal.to_act


def test_rebuilt_deals_are_in_the_views_state():
    assert _random_histories(25, 5000, _check_rebuild) >= 300


@pytest.mark.soak
def test_soak_worlds_and_rebuild():
    _random_histories(20 * SOAK, 90_000, _check_view)
    _random_histories(10 * SOAK, 70_000, _check_rebuild)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 400), punjab=st.booleans(), players=st.integers(3, 6))
def test_property_the_real_world_can_be_sampled(seed: int, steps: int, punjab: bool, players: int) -> None:
    """Late in a deal (few unknown cards), sampling often enough draws the real world itself."""
    rules = Rules.profile("punjab" if punjab else "classic", players=players, takes="any")
    deal = Deal(rules, seed % players, seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if deal.is_over:
            break
        legal = deal.legal_actions()
        plain = [a for a in legal if a is not TAKE] or legal
        deal.apply(TAKE if TAKE in legal and rng.random() < 0.05 else rng.choice(plain))
    if deal.is_over:
        return
    seat = deal.to_act
    k = player_view(deal, seat).knowledge
    real = true_world(deal, k)
    assert consistent(k, real)
    if k.pool.bit_count() > 4:
        return
    draws = {sample(k, rng) for _ in range(400)}
    assert all(consistent(k, w) for w in draws)
    assert real in draws


# ---------------------------------------------------------------- the heuristic model (bots/model.py)


def _full_pack_deal(hands: list[str], leader: int = 0) -> Deal:
    """A punjab deal (takes off) from a position after the first trick: the rest of the pack in the waste."""
    held = make_deal(hands, waste="as", leader=leader)
    waste = 0
    for s in range(held.players):
        waste |= held.hand_mask(s)
    position = Position(tuple(held.hand_mask(s) for s in range(held.players)), FULL_PACK & ~waste, leader, True)
    return Deal(held.rules, 0, 0, position=position)


@pytest.mark.parametrize("profile", ["punjab", "classic"])
def test_the_rollout_model_plays_exactly_as_the_heuristic(profile):
    # From a mid-deal decision, the model (the public knowledge followed incrementally)
    # chooses what HeuristicBot chooses from the full views, at every later decision.
    from getaway.bots import HeuristicBot
    from getaway.bots.model import heuristic_action

    bot = HeuristicBot()
    checked = 0
    for i in range(12):
        rules = Rules.profile(profile, players=3 + i % 3, **({"trump": "spades"} if i % 4 == 3 else {}))
        deal = Deal(rules, i % rules.players, 40 + i)
        for _ in range(10 + 3 * i):
            if deal.is_over:
                break
            view = player_view(deal, deal.to_act)
            deal.apply(bot.act(view, view.legal_actions, random.Random(0)))
        if deal.is_over:
            continue
        facts = Knowledge.of(deal, None)
        while not deal.is_over:
            view = player_view(deal, deal.to_act)
            real = bot.act(view, view.legal_actions, random.Random(0))
            assert heuristic_action(bot, deal, facts) == real
            checked += len(view.legal_actions) > 1
            deal.apply(real)
    assert checked > 100


def test_rebuild_with_the_model_keeps_only_worlds_where_the_opponents_play_fits():
    # Seat 0 led 9♥ and seat 1 went over with K♥: the heuristic follower stays under the
    # winning card when it can, so seat 1 holds no heart below the 9 in a consistent world.
    from getaway.bots import HeuristicBot
    from getaway.bots.expert import Inconsistent

    deal = _full_pack_deal(["9h 3c 4d", "kh 5c 6d", "3h 7c 8d", "10h 8c 9d"])
    deal.play("9h")
    deal.play("kh")
    view = player_view(deal, 2)
    k = view.knowledge
    rebuild(view, true_world(deal, k), 1, HeuristicBot())  # the real deal fits
    rng = random.Random(3)
    kept = rejected = 0
    low_hearts = sum(1 << c for c in range(13, 13 + 7))  # 2♥ … 8♥
    for _ in range(200):
        world = sample(k, rng)
        try:
            rebuild(view, world, 1, HeuristicBot())
        except Inconsistent:
            rejected += 1
            continue
        kept += 1
        assert not world.hands[1] & low_hearts
    assert kept and rejected


def _play_out(deal: Deal) -> Deal:
    from getaway.bots import HeuristicBot

    bot = HeuristicBot()
    while not deal.is_over:
        view = player_view(deal, deal.to_act)
        deal.apply(bot.act(view, view.legal_actions, random.Random(0)))
    return deal


def test_expert_finds_the_endgame_win_the_heuristic_misses():
    # Two players left. Seat 0 leads from 2♦ 5♦ 6♦ 7♦ against 2♥ 4♦ J♣ (every other card is
    # in the waste, so seat 0 knows the other hand). The heuristic cashes 7♦, keeps the lead
    # and must then lead diamonds into a void: it picks up and loses. Leading 2♦ hands the
    # lead over: seat 1 must lead hearts or clubs, and seat 0 sheds a diamond on each.
    from getaway.bots import ExpertBot, HeuristicBot

    deal = _full_pack_deal(["2d 5d 6d 7d", "2h 4d jc", "", ""])
    view = player_view(deal, 0)
    heuristic = HeuristicBot().act(view, view.legal_actions, random.Random(0))
    expert = ExpertBot(iterations=20).act(view, view.legal_actions, random.Random(0))
    assert str(heuristic) == "7♦" and str(expert) == "2♦"
    for card, loser in ((heuristic, 0), (expert, 1)):
        after = deal.clone()
        after.apply(card, 0)
        assert _play_out(after).outcome.loser == loser


def test_worlds_wound_back_through_finished_tricks():
    # rebuild_checked winds a world back through the last finished tricks and replays them:
    # the real deal always passes the check and comes out in the view's state; some
    # sampled worlds fail it (someone would have played another card).
    from getaway.bots import HeuristicBot
    from getaway.bots.expert import Inconsistent, plan_checks, rebuild_checked

    bot = HeuristicBot()
    rules = Rules.profile("punjab", players=4)
    checked = rejected = 0
    for i in range(4):
        deal = Deal(rules, i, 900 + i)
        rng = random.Random(i)
        while not deal.is_over:
            seat = deal.to_act
            view = player_view(deal, seat)
            plan = plan_checks(view, 3) if len(view.legal_actions) > 1 else None
            if plan is not None:
                k = view.knowledge
                again = rebuild_checked(view, true_world(deal, k), 1, bot, plan)
                assert again.legal_actions(seat) == deal.legal_actions(seat) and again.trick == deal.trick
                checked += 1
                try:
                    rebuild_checked(view, sample(k, rng), 1, bot, plan)
                except Inconsistent:
                    rejected += 1
            deal.apply(bot.act(view, view.legal_actions, random.Random(0)))
    assert checked > 50 and rejected > 10


def _hall(counts: list[int], caps: list[int], allowed: list[int], seats: list[int]) -> bool:
    """Hall's condition spelled out: for every set of the groups present, the seats accepting
    one of them have room for all their cards."""
    present = [g for g in range(5) if counts[g]]
    for subset in range(1, 1 << len(present)):
        groups = [g for i, g in enumerate(present) if subset >> i & 1]
        mask = sum(1 << g for g in groups)
        if sum(counts[g] for g in groups) > sum(caps[s] for s in seats if allowed[s] & mask):
            return False
    return True


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.integers(0, 6), min_size=5, max_size=5),
    st.lists(st.integers(0, 31), min_size=1, max_size=8),
    st.data(),
)
def test_the_feasibility_check_is_halls_condition(counts: list[int], allowed: list[int], data: st.DataObject) -> None:
    # as the sampler asks it: as many places as cards in all, split among the seats at random
    from getaway.core.worlds import _feasible

    caps, left = [], sum(counts)
    for _ in allowed[:-1]:
        caps.append(data.draw(st.integers(0, left)))
        left -= caps[-1]
    caps.append(left)
    seats = list(range(len(allowed)))
    assert _feasible(counts, caps, allowed, seats) == _hall(counts, caps, allowed, seats)
