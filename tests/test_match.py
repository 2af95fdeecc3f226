"""Match play: R-P-DEALER, R-C-DEALER, rotation, R-P-SCORE, R-C-SCORE, R-STAKES, V-BEGGAR,
V-PROGRESSIVE, V-DEHLA standings, V-JOKER hand-out, save and resume."""

from __future__ import annotations

import json
import random

import pytest

from getaway import JOKER, Rules
from getaway.bots import RandomBot, play_deal
from getaway.core.match import Match, MatchError, choose_dealer


def play_match(match: Match, seed: int = 0, stop_after: int | None = None) -> Match:
    rng = random.Random(seed)
    bots = [RandomBot(0.02)] * match.rules.players
    while True:
        play_deal(match.deal, bots, rng)
        if match.finished or (stop_after is not None and len(match.deals) >= stop_after):
            return match
        match.next_deal()


def test_R_P_DEALER_first_dealer_by_lot_then_to_the_left():
    for seed in range(20):
        m = play_match(Match(Rules.profile("punjab", deals=5, takes="off"), 4, seed))
        assert m.cuts == []
        dealers = [d.dealer for d in m.deals]
        assert dealers == [(m.first_dealer + i) % 4 for i in range(5)]
    firsts = {Match(Rules.profile("punjab", players=5), 5, seed).first_dealer for seed in range(60)}
    assert firsts == set(range(5))  # every seat can be drawn


def test_R_C_DEALER_lowest_cut_deals_ties_cut_again():
    saw_recut = False
    for seed in range(300):
        rules = Rules.profile("classic", players=6)
        dealer, rounds = choose_dealer(rules, random.Random(seed))
        cutters = list(range(6))
        for i, cut in enumerate(rounds):
            assert [s for s, _ in cut] == cutters
            assert len({c for _, c in cut}) == len(cut)  # distinct cards from one pack
            low = min(c.rank for _, c in cut)
            cutters = [s for s, c in cut if c.rank == low]
            if i < len(rounds) - 1:
                assert len(cutters) > 1
                saw_recut = True
        assert cutters == [dealer]
    assert saw_recut


def test_R_P_SCORE_one_loss_per_deal_and_shared_places():
    saw_shared = False
    for seed in range(40):
        m = play_match(Match(Rules.profile("punjab", deals=4, takes="off"), 4, seed), seed)
        table = m.standings()
        losses = [0] * 4
        for d in m.deals:
            losses[d.outcome.loser] += 1
        assert sum(losses) == 4
        for row in table:
            assert row.points == row.losses == losses[row.seat]
            assert row.place == 1 + sum(1 for other in table if other.points < row.points)
        places = sorted(r.place for r in table)
        saw_shared |= len(set(places)) < 4
        assert [r.place for r in table] == places
    assert saw_shared  # e.g. 1, 2, 2, 4


def test_R_C_SCORE_drawn_deal_scores_nothing():
    for seed in range(60):
        m = play_match(Match(Rules.profile("classic", deals=3), 4, seed), seed)
        for i, d in enumerate(m.deals):
            pts = m.deal_points(i)
            if d.outcome.loser is None:
                assert sum(pts) == 0
            else:
                assert pts[d.outcome.loser] == 1 and sum(pts) == 1


def test_R_STAKES_ante_pot_and_split():
    for seed in range(30):
        m = Match(Rules.profile("punjab", deals=3, ante=5, takes="off"), 4, seed, pot=3)
        assert m.pot() == 3 + 5 * 4
        play_match(m, seed)
        winners = [r for r in m.standings() if r.place == 1]
        total = 3 + 5 * 4 * 3
        share = total // len(winners)
        assert m.pot() == total - share * len(winners)  # the remainder stays
        for row in m.standings():
            paid = 5 * 3
            assert row.chips == (share if row.place == 1 else 0) - paid


def test_V_BEGGAR_loser_deals_next_pays_a_chip_kth_loss_costs_k():
    for seed in range(20):
        m = play_match(Match(Rules.profile("punjab", deals=6, beggar=True, ante=1, takes="off"), 4, seed), seed)
        for prev, nxt in zip(m.deals, m.deals[1:], strict=False):
            assert nxt.dealer == prev.outcome.loser
        count = [0] * 4
        expected = [0] * 4
        for d in m.deals:
            count[d.outcome.loser] += 1
            expected[d.outcome.loser] += count[d.outcome.loser]
        for row in m.standings():
            assert row.points == expected[row.seat]
        # every ante plus one extra chip per lost deal went into the pot, then to the winners
        total = 6 * 4 + 6
        winners = [r for r in m.standings() if r.place == 1]
        share = total // len(winners)
        assert m.pot() == total - share * len(winners)
        for row in m.standings():
            paid = 6 + count[row.seat]
            assert row.chips == (share if row.place == 1 else 0) - paid


def test_V_PROGRESSIVE_last_three_second_to_last_one():
    for seed in range(20):
        m = play_match(Match(Rules.profile("punjab", players=5, deals=2, progressive=True, takes="off"), 5, seed), seed)
        for i, d in enumerate(m.deals):
            pts = m.deal_points(i)
            assert pts[d.outcome.loser] == 3
            for seat in d.outcome.out_order[-1]:
                assert pts[seat] == 1
            assert sum(pts) == 3 + len(d.outcome.out_order[-1])


def test_V_DEHLA_tens_break_ties_in_the_standings():
    for seed in range(30):
        m = play_match(Match(Rules.profile("punjab", deals=3, dehla=True, takes="off"), 4, seed), seed)
        table = m.standings()
        for row in table:
            better = sum(1 for o in table if (o.points, -o.tens) < (row.points, -row.tens))
            assert row.place == 1 + better
        assert sum(r.tens for r in table) == sum(len(t) for d in m.deals for t in d.outcome.captured_tens)


def test_V_JOKER_goes_to_the_previous_deals_first_player_out():
    for seed in range(20):
        m = Match(Rules.profile("punjab", deals=3, joker=True, takes="off"), 4, seed)
        first = m.deal
        assert first.joker_to is None
        assert sorted(first.hand_sizes) == [13, 13, 13, 14]  # dealt like any card: 53 cards
        assert sum(first.hand_mask(s) >> JOKER & 1 for s in range(4)) == 1
        for _ in range(2):
            play_deal(m.deal, [RandomBot(0.02)] * 4, random.Random(seed))
            prev = m.deal
            nxt = m.next_deal()
            firsts = prev.outcome.out_order[0]
            after_dealer = [(prev.dealer + i) % 4 for i in range(1, 5)]
            assert nxt.joker_to == next(s for s in after_dealer if s in firsts)
            assert nxt.hand_mask(nxt.joker_to) >> JOKER & 1
            sizes = list(nxt.hand_sizes)
            assert sizes[nxt.joker_to] == 14 and sizes.count(13) == 3  # on top of a share of 52


def test_save_and_resume_mid_deal_and_between_deals():
    rules = Rules.profile("classic", deals=4, ante=2)
    m = play_match(Match(rules, ["A", "B", "C", "D"], 9), 9, stop_after=2)
    deal = m.next_deal()
    for _ in range(7):
        deal.apply(deal.legal_actions()[0])
    saved = json.loads(json.dumps(m.to_dict(), ensure_ascii=False))
    resumed = Match.from_dict(saved)
    assert resumed.to_dict() == m.to_dict()
    assert resumed.deal.snapshot() == m.deal.snapshot()
    play_match(resumed, 1)
    play_match(m, 1)
    assert [r.points for r in resumed.standings()] == [r.points for r in m.standings()]


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.update(format="nope"), "format"),
        (lambda d: d.update(deals=[]), "deals"),
        (lambda d: d["deals"][0].update(seed=d["deals"][0]["seed"] + 1), "corrupt"),
        (lambda d: d["deals"][1]["actions"].insert(0, {"seat": 0, "play": "2♥"}), "deals[1].actions"),
        (lambda d: d.update(players=["A"]), "players"),
        (lambda d: d["rules"].update(deals=1), "deals"),
    ],
)
def test_a_corrupt_save_is_refused(mutate, message):
    m = play_match(Match(Rules.profile("punjab", deals=3, takes="off"), ["A", "B", "C", "D"], 4), 4, stop_after=2)
    data = json.loads(json.dumps(m.to_dict(), ensure_ascii=False))
    mutate(data)
    with pytest.raises(MatchError, match=message.replace("[", r"\[").replace("]", r"\]")):
        Match.from_dict(data)


def test_next_deal_refused_while_a_deal_is_on_and_after_the_match():
    m = Match(Rules.profile("punjab", deals=1, takes="off"), 4, 1)
    with pytest.raises(MatchError, match="not over"):
        m.next_deal()
    play_match(m)
    with pytest.raises(MatchError, match="match is over"):
        m.next_deal()
    with pytest.raises(MatchError, match="names"):
        Match(Rules.profile("punjab"), ["A", "B"], 1)


def test_V_JOKER_shared_first_place_the_first_of_them_clockwise_from_the_dealer_gets_it():
    """Seats 1 and 3 got away together first: with seat 2 dealing, seat 3 comes first clockwise
    (not seat 1, the lowest seat, nor the last of them); with seat 0 dealing, seat 1."""
    from getaway import Outcome
    from getaway.core.match import joker_receiver

    outcome = Outcome("last_holder", 0, ((1, 3), (2,)), (4, 1, 3, 1), 9, (0,) * 4, (0,) * 4)
    assert joker_receiver(outcome, dealer=2, players=4) == 3
    assert joker_receiver(outcome, dealer=0, players=4) == 1
    assert joker_receiver(outcome, dealer=3, players=4) == 1  # the dealer counts last
    alone = Outcome("last_holder", 0, ((2,), (1, 3)), (4, 2, 1, 2), 9, (0,) * 4, (0,) * 4)
    assert joker_receiver(alone, dealer=2, players=4) == 2
    drawn = Outcome("repetition", None, (), (1, 1), 3, (0, 0), (0, 0))
    assert joker_receiver(drawn, dealer=0, players=2) is None
