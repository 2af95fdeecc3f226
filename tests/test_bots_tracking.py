"""Card tracking and the sampler of hidden hands (bots/tracking.py): every sampled world agrees
with the public history, and the real deal always satisfies what the tracker deduced."""

from __future__ import annotations

import random

import pytest

from conftest import SOAK, make_deal
from getaway import Deal, Position, Rules, player_view
from getaway.bots.expert import rebuild
from getaway.bots.tracking import Tracker, World
from getaway.core.cards import FULL_PACK, SUIT_MASKS, Card
from getaway.core.events import TAKE

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


def _check_view(deal: Deal, seat: int, rng: random.Random, samples: int = 1) -> None:
    view = player_view(deal, seat)
    t = Tracker(view)
    n = deal.players
    true = [deal.hand_mask(s) for s in range(n)]
    if t.hidden_holder is not None:  # the card someone drew blind: one of the candidates, in the holder's hand
        assert t.hidden_candidates & true[t.hidden_holder], "the blind draw is not where the tracker says"
    # The truth satisfies every deduction (soundness).
    for s in range(n):
        if s == seat:
            assert t.known[s] == true[s]
            continue
        assert t.known[s] & ~true[s] == 0, f"seat {s}: a 'known' card is not in the hand"
        unknown = true[s] & ~t.known[s]
        if s == t.hidden_holder:
            unknown &= ~t.hidden_candidates
        for suit in range(4):
            if t.voids[s] >> suit & 1:
                assert not unknown & SUIT_MASKS[suit], f"seat {s}: proven void in suit {suit} but holds one"
        assert unknown & ~t.pool == 0
    trick = sum(1 << c for _, c in view.trick)
    for _ in range(samples):
        world = t.sample(rng)
        placed = 0
        for s in range(n):
            hand = world.hands[s]
            assert hand.bit_count() == view.hand_sizes[s], "hand size"
            assert hand & t.known[s] == t.known[s], "known cards"
            assert not placed & hand, "a card in two hands"
            placed |= hand
            unknown = hand & ~t.known[s]
            if s == t.hidden_holder and world.hidden is not None:
                unknown &= ~(1 << world.hidden)
            for suit in range(4):
                if t.voids[s] >> suit & 1:
                    assert not unknown & SUIT_MASKS[suit], "void"
        assert world.hands[seat] == true[seat]
        assert not placed & world.waste and not placed & trick and not world.waste & trick
        assert world.waste.bit_count() == view.waste_size
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
    t = Tracker(view)
    true = World(tuple(deal.hand_mask(s) for s in range(deal.players)), _waste(deal), deal.forced_lead)
    again = rebuild(view, t, true, 1)
    assert again.legal_actions(seat) == deal.legal_actions(seat)
    assert again.trick == deal.trick and again.forced_lead == deal.forced_lead
    assert player_view(again, seat).legal_actions == view.legal_actions
    sampled = rebuild(view, t, t.sample(rng), 2)
    assert sampled.legal_actions(seat) == deal.legal_actions(seat)
    assert sampled.decision == deal.decision and sampled.to_act == deal.to_act


def test_rebuilt_deals_are_in_the_views_state():
    assert _random_histories(25, 5000, _check_rebuild) >= 300


@pytest.mark.soak
def test_soak_tracking_and_rebuild():
    _random_histories(20 * SOAK, 90_000, _check_view)
    _random_histories(10 * SOAK, 70_000, _check_rebuild)


def test_tochoo_proves_a_void_and_the_picker_holds_the_trick():
    # Punjab: A leads 8♥, B plays Q♥, C has no heart: tochoo 3♣; B picks up (the seeds' example).
    deal = make_deal(["8h 2s", "qh 5d", "3c 4c", "9h 6s"], waste="as")
    for card in ("8h", "qh", "3c"):
        deal.play(card)
    t = Tracker(player_view(deal, 3))
    assert t.voids[2] >> 1 & 1  # C proved void in hearts
    assert t.is_void(2, 1)
    assert t.known[1] == sum(1 << Card.parse(c) for c in ("8h", "qh", "3c"))
    assert not t.is_void(1, 1)


def test_off_suit_card_on_punjabs_first_trick_proves_no_spades():
    deal = make_deal(["as 2h", "3h 4h", "5s 6h"], first_trick_done=False)
    deal.play("as")
    deal.play("3h")
    t = Tracker(player_view(deal, 2))
    assert t.is_void(1, 0) and t.voids[1] & 1


def test_ace_of_spades_holder_is_known_before_the_first_lead():
    deal = Deal(Rules.profile("punjab", takes="off"), dealer=0, seed=3)
    leader = deal.to_act
    other = (leader + 1) % 4
    t = Tracker(player_view(deal, other))
    assert t.known[leader] >> Card.parse("as") & 1


def test_cards_seen_in_a_take_are_known_to_the_taken_player():
    rules = Rules.profile("punjab", players=3)
    deal = Deal(rules, dealer=0, seed=11)
    taker = deal.to_act
    taken = (taker + 1) % 3
    cards = deal.hand_mask(taken)
    deal.apply(TAKE, taker)
    t = Tracker(player_view(deal, taken))
    assert t.known[taker] & cards == cards
    third = (taker + 2) % 3
    assert Tracker(player_view(deal, third)).known[taker] & cards != cards  # the others did not see them


def test_spectator_view_is_refused():
    deal = Deal(Rules.profile("punjab", takes="off"), seed=1)
    with pytest.raises(ValueError, match="spectator"):
        Tracker(player_view(deal, None))


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
    # From a mid-deal decision, the model (public facts kept incrementally from one seat's
    # tracker) chooses what HeuristicBot chooses from the full views, at every later decision.
    from getaway.bots import HeuristicBot
    from getaway.bots.model import PublicFacts, heuristic_action

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
        facts = PublicFacts(Tracker(player_view(deal, deal.to_act)), deal, len(deal.events))
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
    t = Tracker(view)
    true = World(tuple(deal.hand_mask(s) for s in range(4)), _waste(deal), None)
    rebuild(view, t, true, 1, HeuristicBot())  # the real deal fits
    rng = random.Random(3)
    kept = rejected = 0
    low_hearts = sum(1 << c for c in range(13, 13 + 7))  # 2♥ … 8♥
    for _ in range(200):
        world = t.sample(rng)
        try:
            rebuild(view, t, world, 1, HeuristicBot())
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
                t = Tracker(view)
                true = World(tuple(deal.hand_mask(s) for s in range(4)), _waste(deal), None)
                again = rebuild_checked(view, t, true, 1, bot, plan)
                assert again.legal_actions(seat) == deal.legal_actions(seat) and again.trick == deal.trick
                checked += 1
                try:
                    rebuild_checked(view, t, t.sample(rng), 1, bot, plan)
                except Inconsistent:
                    rejected += 1
            deal.apply(bot.act(view, view.legal_actions, random.Random(0)))
    assert checked > 50 and rejected > 10
