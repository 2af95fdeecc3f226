"""The panel of opponent styles (bots/styles.py, envs/ismcts.py): legal everywhere, deterministic
with a seed, and each does what its name says in a constructed situation."""

from __future__ import annotations

import random

import pytest

from conftest import make_deal, play_all  # noqa: F401
from getaway import Deal, Rules, player_view
from getaway.bots import BOTS, make_bot
from getaway.bots.styles import STYLES, StyleBot, rank
from getaway.core.cards import Card
from getaway.core.events import PASS, PICKUP, TAKE

VARIANTS = [{}, {"trump": "spades"}, {"nopickup": True}, {"kicker": True}, {"joker": True}, {"takes": "any"}]


def _rules(rng: random.Random, profile: str) -> Rules:
    players = rng.randint(3 if profile == "punjab" else 2, 7)
    return Rules.profile(profile, players=players, **rng.choice(VARIANTS))


def _play(deal: Deal, bots, seed: int) -> list:
    """Play ``deal`` out, checking every action is legal; returns the ``(seat, action)`` log."""
    rng = random.Random(seed)
    log = []
    for _ in range(5000):
        if deal.is_over:
            return log
        seat = deal.to_act
        view = player_view(deal, seat)
        legal = view.legal_actions
        action = bots[seat].act(view, legal, rng)
        assert action in legal, f"{bots[seat].name} chose illegal {action}"
        cards = [a for a in legal if a not in (TAKE, PASS, PICKUP)]
        if bots[seat].name == "style:lowest" and cards:
            assert action == min(cards, key=lambda c: (rank(c), c))
        if bots[seat].name == "style:reckless" and TAKE in legal:
            assert action == TAKE
        log.append((seat, action))
        deal.apply(action, seat)
    raise AssertionError("deal did not end")


def test_every_style_is_named_wherever_bots_are():
    assert set(STYLES) < set(BOTS) and "style:ismcts" in BOTS
    for name, cls in STYLES.items():
        bot = make_bot(name)
        assert isinstance(bot, cls) and isinstance(bot, StyleBot) and bot.name == name


@pytest.mark.parametrize("profile", ["punjab", "classic"])
@pytest.mark.parametrize("name", sorted(STYLES))
def test_style_legal_over_random_deals_and_deterministic(name, profile):
    rng = random.Random(hash((name, profile)) % 1000)
    for i in range(12):
        rules = _rules(rng, profile)
        seats = [make_bot(name) if s % 2 == 0 else make_bot("random") for s in range(rules.players)]
        first = _play(Deal(rules, i % rules.players, 40 + i), seats, i)
        again = _play(Deal(rules, i % rules.players, 40 + i), seats, i)
        assert first == again
    # the style in every seat
    rules = Rules.profile(profile, players=4, takes="any")
    _play(Deal(rules, 0, 7), [make_bot(name) for _ in range(4)], 1)


def _deal(hands: list[str], profile: str = "punjab", **options: object) -> Deal:
    """A position after the first trick: ``hands``, and four unused cards in the waste."""
    used = {Card.parse(c) for h in hands for c in h.split()}
    waste = [str(c) for c in map(Card, range(52)) if c not in used][:4]
    return make_deal(hands, profile=profile, waste=waste, **options)


def _act(name: str, deal: Deal) -> str:
    view = player_view(deal, deal.to_act)
    return str(make_bot(name).act(view, view.legal_actions, random.Random(0)))


def _lead(hand: str, name: str, profile: str = "punjab") -> str:
    others = ["7S 8S 9S TS JS QS", "6H 7H 8H TH JH QH", "6S 5S 4S 3S 2S AS"]
    deal = _deal([hand, *others], profile=profile)
    return _act(name, deal)


def test_lead_strong_leads_the_top_of_its_strongest_suit():
    hand = "2H 3H JD QD KD 4C"  # diamonds: 11+12+13 rank points; the plain lead is J♦ (low of longest)
    assert _lead(hand, "style:lead-strong") == str(Card.parse("KD"))
    assert _lead(hand, "style:hoarder") == str(Card.parse("JD"))


def test_void_short_leads_its_shortest_suit():
    assert _lead("5C JD QD KD 2H 3H", "style:void-short") == str(Card.parse("5C"))


def test_late_high_leads_high_in_a_short_suit_only_late():
    assert _lead("2C 3C 4C KD 9H", "style:late-high") == str(Card.parse("KD"))  # 5 cards: late
    assert _lead("2C 3C 4C 5C KD 9H", "style:late-high") == str(Card.parse("2C"))  # 6: the plain lead


def test_reckless_leads_its_highest_card():
    assert _lead("2C 3C 4C KD 9H", "style:reckless") == str(Card.parse("KD"))


def _tochoo(name: str) -> str:
    """Seat 1 has no heart after 5♥ is led (punjab): what it sheds."""
    deal = _deal(["5H 7S 8S", "AC KD 5D", "9H 2D", "TH 4D"])
    play_all(deal, "5H")
    return _act(name, deal)


def test_tochoo_discards_keep_high_hoarder_and_plain():
    assert _tochoo("style:lead-strong") == str(Card.parse("AC"))  # the plain play: shed the highest
    assert _tochoo("style:keep-high") == str(Card.parse("KD"))  # keeps its ace back
    assert _tochoo("style:hoarder") == str(Card.parse("5D"))  # keeps every high card


def test_void_short_discards_from_its_shortest_suit():
    deal = _deal(["5H 7S 8S", "2C KD 5D", "9H 2D", "TH 4D"])
    play_all(deal, "5H")
    assert _act("style:void-short", deal) == str(Card.parse("2C"))
    assert _act("style:lead-strong", deal) == str(Card.parse("KD"))


def test_pickup_short_goes_over_a_short_trick():
    deal = _deal(["5H 7S 8S", "2H KH 5D", "9H 2D", "TH 4D"])
    play_all(deal, "5H")
    assert _act("style:pickup-short", deal) == str(Card.parse("KH"))
    assert _act("style:lead-strong", deal) == str(Card.parse("2H"))  # the plain play: stay under


def test_pickup_short_picks_up_rather_than_ruff_in_classic():
    deal = _deal(["5H 7H 8S", "2S KS 5D", "9H 2D", "TH 4D"], profile="classic", trump="spades")
    play_all(deal, "5H")
    assert _act("style:pickup-short", deal) == "pickup"
    assert _act("style:hoarder", deal) == str(Card.parse("2S"))  # the plain play: ruff low


def test_count_voids_leads_the_suit_an_opponent_lacks():
    deal = _deal(["5H 7S 8S", "9H 2C 3C 4C 6C", "KD 2D 3D", "TH 4D 5D"])
    play_all(deal, "5H 9H KD")  # seat 2 has no heart (a tochoo): seat 1 picks the trick up and leads
    assert deal.to_act == 1 and player_view(deal, 1).knowledge.is_void(2, 1)
    assert _act("style:count-voids", deal) == str(Card.parse("5H"))
    assert _act("style:hoarder", deal) == str(Card.parse("2C"))  # the plain lead: low of the longest


def test_reckless_takes_whenever_it_may():
    rules = Rules.profile("punjab", players=4, takes="any")
    for seed in range(30):
        deal = Deal(rules, 0, seed)
        bots = [make_bot("style:reckless"), make_bot("random"), make_bot("random"), make_bot("random")]
        _play(deal, bots, seed)  # asserts the take whenever it is legal for the reckless seat
        if any(taker == 0 for taker, _ in deal.takes):
            return
    raise AssertionError("the reckless taker never took in 30 deals")


def test_ismcts_style_legal_and_deterministic():
    pytest.importorskip("pyspiel")
    bot = make_bot("style:ismcts:simulations=8")
    assert bot.simulations == 8 and make_bot("style:ismcts").simulations == 200
    for profile in ("punjab", "classic"):
        rules = Rules.profile(profile, players=3, takes="off")
        bots = [bot, make_bot("random"), make_bot("style:lowest")]
        first = _play(Deal(rules, 0, 5), bots, 3)
        assert first == _play(Deal(rules, 0, 5), bots, 3)
    with pytest.raises(ValueError, match="simulations"):
        make_bot("style:ismcts:simulations=0")


def test_ismcts_style_chooses_what_openspiels_ismcts_over_the_adapter_chooses():
    # The style's fast paths (rollouts on the engine's deal, the root's worlds drawn from its
    # view worked out once, information-state strings kept per state) must leave the search
    # OpenSpiel's: the same action as ISMCTSBot with mcts.RandomRolloutEvaluator and resample.
    pyspiel = pytest.importorskip("pyspiel")
    import numpy as np
    from open_spiel.python.algorithms import ismcts, mcts

    from getaway.core.events import action_from_id
    from getaway.envs.openspiel import SHORT_NAME, params_of_rules, resample, state_of_view

    rules = Rules.profile("punjab", players=4, takes="off")
    game = pyspiel.load_game(SHORT_NAME, params_of_rules(rules))
    deal = Deal(rules, 0, 11)
    heuristic = make_bot("heuristic")
    rng = random.Random(0)
    checked = 0
    while not deal.is_over:
        seat = deal.to_act
        view = player_view(deal, seat)
        if len(view.legal_actions) > 1 and checked < 4 and rng.random() < 0.2:
            seed = random.Random(checked).randrange(2**31)  # the seed the style draws from its rng
            search_rng, rs = random.Random(seed), np.random.RandomState(seed)
            state = state_of_view(game, view, search_rng)
            bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), 2.0, max_simulations=40, random_state=rs)
            bot.set_resampler(lambda s, p, r=search_rng: resample(s, p, r))
            expected = action_from_id(int(bot.step(state)))
            style = make_bot("style:ismcts:simulations=40")
            assert style.act(view, view.legal_actions, random.Random(checked)) == expected
            checked += 1
        deal.apply(heuristic.act(view, view.legal_actions, rng), seat)
    assert checked == 4
    # deterministic given a seed at the panel's 200 simulations
    deal = Deal(rules, 1, 12)
    deal.apply(deal.legal_actions()[0])  # the first lead (R-P-FIRST): the next seat follows
    view = player_view(deal, deal.to_act)
    assert len(view.legal_actions) > 1
    first = [make_bot("style:ismcts").act(view, view.legal_actions, random.Random(s)) for s in range(3)]
    assert first == [make_bot("style:ismcts").act(view, view.legal_actions, random.Random(s)) for s in range(3)]


def test_styles_and_own_bots_are_named_on_the_command_line():
    from click.testing import CliRunner

    from getaway.text.cli import cli

    lineup = "style:lead-strong,style:hoarder,getaway.bots.styles:Lowest,style:count-voids"
    result = CliRunner().invoke(
        cli, ["tournament", "--bots", lineup, "--deals", "8", "-w", "1", "-q", "--lang", "en"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    assert "style:hoarder" in result.output and "getaway.bots.styles:Lowest" in result.output
    bad = CliRunner().invoke(cli, ["tournament", "--bots", "style:nosuch", "--deals", "4", "--lang", "en"])
    assert bad.exit_code == 2 and "unknown bot or level" in bad.output
