"""Knowledge (getaway.core.knowledge) against the truth: every deduction, at every step of
random deals, checked against the real hands (R-INFO, R-P-DRAW, R-P-TAKE, R-P-PENALTY).

The soak test plays ``100 × GETAWAY_SOAK`` random deals (``GETAWAY_SOAK=20``: 2,000) over
both profiles, every player count each allows, every variant and pair of variants, every
take protocol (takes on and off) and both enforcements, and checks every seat's knowledge
and the public one after every action.
"""

from __future__ import annotations

import random

import pytest

from conftest import SOAK, make_deal
from getaway import Deal, Knowledge, Rules, player_view
from getaway.core.cards import SUIT_MASKS, Card
from getaway.core.events import TAKE
from test_properties import CONFIGS, PROTOCOLS, VARIANT_OPTIONS, VARIANT_SETS, RandomPlayers, Trial, play_move

_FULL = (1 << 53) - 1


def _trial(i: int) -> Trial:
    profile, players, enforcement, protocol = CONFIGS[i % len(CONFIGS)]
    variants = VARIANT_SETS[(i // len(CONFIGS)) % len(VARIANT_SETS)] if i % 3 else ()
    options = {"players": players, "enforcement": enforcement, **PROTOCOLS[protocol]}
    for v in variants:
        options.update(VARIANT_OPTIONS[v])
    return Trial.make(profile, options, seed=1000 + i, policy_seed=2000 + i, knobs=3000 + i)


def check_true(k: Knowledge, deal: Deal, where: str) -> None:
    """Every fact of ``k`` holds in ``deal``'s real hands."""
    n = deal.players
    hands = [deal.hand_mask(s) for s in range(n)]
    waste = 0
    for c in deal.waste:
        waste |= 1 << c
    assert k.sizes == list(deal.hand_sizes), where
    trick = 0
    for _, c in deal.trick:
        trick |= 1 << c
    assert k.trick == trick, where
    # the waste as seen: the real waste plus the hidden blind-drawn cards, which are in hands
    assert k.waste & waste == waste, where
    in_hands = k.waste & ~waste
    per_holder = [0] * n
    for holder, candidates, _forced in k.hidden:
        per_holder[holder] += 1
        assert hands[holder] & candidates & in_hands, f"{where}: hidden card of {holder} not among {candidates:x}"
    for s in range(n):
        assert (hands[s] & in_hands).bit_count() == per_holder[s], f"{where}: hidden cards of seat {s}"
    if k.seat is not None:
        assert k.known[k.seat] == hands[k.seat], where
    for s in range(n):
        assert k.known[s] & ~hands[s] == 0, f"{where}: seat {s} known {k.known[s] & ~hands[s]:x} not in hand"
        rest = hands[s] & ~k.known[s] & ~in_hands  # the unknown cards, blind draws apart
        for suit in range(4):
            if k.voids[s] >> suit & 1:
                assert not rest & SUIT_MASKS[suit], f"{where}: seat {s} proven void in {suit} holds one"
            if k.is_void(s, suit):
                assert not hands[s] & SUIT_MASKS[suit], f"{where}: is_void({s}, {suit}) but it holds one"
        assert k.unknown[s] == (0 if s == k.seat else hands[s].bit_count() - k.known[s].bit_count()), where
    # the pool is exactly the cards in someone's unknown part (blind draws apart)
    unknown_cards = 0
    for s in range(n):
        if s != k.seat:
            unknown_cards |= hands[s] & ~k.known[s] & ~in_hands
    assert k.pool == unknown_cards, f"{where}: pool"


def _same(a: Knowledge, b: Knowledge) -> bool:
    def facts(k: Knowledge) -> tuple:
        return k.known, k.voids, k.sizes, k.hidden, k.waste, k.trick

    return facts(a) == facts(b)


def run_truth(trial: Trial) -> int:
    deal = trial.new_deal()
    players = RandomPlayers(trial.rules, trial.policy_seed)
    if trial.rules.takes != "off":
        players.take_rate = 0.08
    n = deal.players
    knowledge = [Knowledge.of(deal, s) for s in (*range(n), None)]
    checks = 0
    step = 0
    while not deal.is_over and step < 5000:
        play_move(deal, players)
        step += 1
        for k in knowledge:
            k.follow(deal)
            check_true(k, deal, f"{trial.describe()} step {step} seat {k.seat}")
            checks += 1
        if step % 17 == 0:  # incremental and from scratch agree, the view's copy too
            for k in knowledge:
                assert _same(k, Knowledge.of(deal, k.seat)), f"{trial.describe()} step {step} seat {k.seat}"
                assert _same(k, player_view(deal, k.seat).knowledge)
    return checks


def test_knowledge_is_true_quick() -> None:
    total = sum(run_truth(_trial(i)) for i in range(0, 60 * 7, 7))
    assert total > 1000


@pytest.mark.soak
def test_knowledge_is_true_soak() -> None:
    """2,000 deals at GETAWAY_SOAK=20 (100 per unit), every configuration in turn."""
    total = sum(run_truth(_trial(i)) for i in range(100 * SOAK))
    assert total > 0


def test_a_take_moves_the_taken_hand_and_its_suits_to_the_taker() -> None:
    """The issue's case: seat 2 takes a hand holding spades after 9 random legal actions."""
    d = Deal(Rules.profile("punjab"), dealer=0, seed=10)
    rng = random.Random(10)
    for _ in range(9):
        legal = d.legal_actions()
        d.apply(legal[rng.randrange(len(legal))])
    assert d.events[-1].kind == "take" or any(e.kind == "take" and e.seat == 2 for e in d.events)
    assert d.hand_mask(2) & SUIT_MASKS[0]
    for seat in (*range(4), None):
        k = player_view(d, seat).knowledge
        check_true(k, d, f"seat {seat}")
        assert not k.is_void(2, 0)
    # the public knows what the taken hand was known to hold; the taker knows its whole hand
    assert Knowledge.of(d, 2).known[2] == d.hand_mask(2)


def test_a_view_holds_a_snapshot() -> None:
    d = Deal(Rules.profile("punjab", takes="off"), dealer=0, seed=4)
    k = Knowledge.of(d, 1)
    view = player_view(d, 1, k)
    before = (list(view.knowledge.known), len(view.history))
    while not d.is_over and d.tricks_played < 3:
        d.apply(d.legal_actions()[0])
        player_view(d, 1, k)
    assert (view.knowledge.known, len(view.history)) == before
    with pytest.raises(ValueError, match="snapshot"):
        view.knowledge.follow(d)
    with pytest.raises(ValueError, match="seat"):
        player_view(d, 2, k)
    copy = view.knowledge.copy().follow(d)
    assert _same(copy, k)


def test_a_knowledge_refuses_a_deal_taken_back_past_what_it_read() -> None:
    """Deal.pop takes events back: a Knowledge that read them would hold facts of a future
    that did not happen; following such a deal is refused (a copy made before the push works)."""
    d = Deal(Rules.profile("punjab", takes="off"), dealer=0, seed=4)
    k = Knowledge.of(d, 1)
    before = k.copy()
    d.push(d.legal_actions()[0])
    k.follow(d)
    d.pop()
    with pytest.raises(ValueError, match="taken back"):
        k.follow(d)
    assert _same(before.follow(d), Knowledge.of(d, 1))


def test_tochoo_proves_a_void_and_the_picker_holds_the_trick():
    # Punjab: A leads 8♥, B plays Q♥, C has no heart: tochoo 3♣; B picks up (the seeds' example).
    deal = make_deal(["8h 2s", "qh 5d", "3c 4c", "9h 6s"], waste="as")
    for card in ("8h", "qh", "3c"):
        deal.play(card)
    t = player_view(deal, 3).knowledge
    assert t.voids[2] >> 1 & 1  # C proved void in hearts
    assert t.is_void(2, 1)
    assert t.known[1] == sum(1 << Card.parse(c) for c in ("8h", "qh", "3c"))
    assert not t.is_void(1, 1)


def test_off_suit_card_on_punjabs_first_trick_proves_no_spades():
    deal = make_deal(["as 2h", "3h 4h", "5s 6h"], first_trick_done=False)
    deal.play("as")
    deal.play("3h")
    t = player_view(deal, 2).knowledge
    assert t.is_void(1, 0) and t.voids[1] & 1


def test_ace_of_spades_holder_is_known_before_the_first_lead():
    deal = Deal(Rules.profile("punjab", takes="off"), dealer=0, seed=3)
    leader = deal.to_act
    other = (leader + 1) % 4
    t = player_view(deal, other).knowledge
    assert t.known[leader] >> Card.parse("as") & 1


def test_cards_seen_in_a_take_are_known_to_the_taken_player():
    rules = Rules.profile("punjab", players=3)
    deal = Deal(rules, dealer=0, seed=11)
    taker = deal.to_act
    taken = (taker + 1) % 3
    cards = deal.hand_mask(taken)
    deal.apply(TAKE, taker)
    t = player_view(deal, taken).knowledge
    assert t.known[taker] & cards == cards
    third = (taker + 2) % 3
    assert player_view(deal, third).knowledge.known[taker] & cards != cards  # the others did not see them


def test_classic_void_player_picks_up_the_led_suit_and_stays_void_in_its_unknown_cards():
    # Classic: the void player picks up the trick (cards of the led suit, now known); its
    # unknown cards still hold none of the suit, and once the picked-up hearts are played
    # the whole hand is void in hearts again.
    deal = make_deal(["8h 2s 3s", "4c 5c", "9h 6s"], profile="classic", waste="as")
    deal.play("8h")  # seat 1 has no heart: it picks up the 8♥
    k = player_view(deal, 2).knowledge
    assert k.voids[1] >> 1 & 1 and k.known[1] >> Card.parse("8h") & 1
    assert not k.is_void(1, 1)
    deal.play("8h")  # seat 1 leads the 8♥ back
    assert player_view(deal, 2).knowledge.is_void(1, 1)


def test_a_blind_draw_ends_the_drawers_voids():
    # R-P-DRAW: seat 1 wins with its last card and draws blind from the waste (spades, hearts).
    deal = make_deal(["2h 3d", "ah", "5h 6c"], waste="9s 9c")
    for card in ("2h", "ah", "5h"):
        deal.play(card)
    k = player_view(deal, 0).knowledge
    assert [h[0] for h in k.hidden] == [1] and k.voids[1] == 0
    assert not k.is_void(1, 0) and not k.is_void(1, 3) and k.is_void(1, 1)


def test_a_knowledge_pickles_and_copies_in_the_same_state() -> None:
    """Compiled (mypyc) or not: pickle, copy.copy and copy.deepcopy give the same facts, a
    snapshot stays one, and a copy follows the deal on its own (OpenSpiel serialises states)."""
    import copy
    import pickle

    rules = Rules.profile("punjab", players=4, takes="off")
    deal = Deal(rules, 0, 5)
    rng = random.Random(4)
    for _ in range(30):
        legal = deal.legal_actions()
        deal.apply(legal[rng.randrange(len(legal))])
    assert not deal.is_over
    k = Knowledge.of(deal, 2)
    for other in (pickle.loads(pickle.dumps(k)), copy.copy(k), copy.deepcopy(k)):
        assert (other.known, other.voids, other.sizes, other.hidden, other.waste, other.read, other.history) == (
            k.known,
            k.voids,
            k.sizes,
            k.hidden,
            k.waste,
            k.read,
            k.history,
        )
        assert other.void_suits() == k.void_suits() and other.seat == 2
    snap = pickle.loads(pickle.dumps(k.snapshot()))
    with pytest.raises(ValueError):
        snap.follow(deal)
    twin = copy.deepcopy(k)
    legal = deal.legal_actions()
    deal.apply(legal[0])
    twin.follow(deal)
    assert twin.read == deal.event_count and k.read < deal.event_count


def test_a_view_pickles_with_its_history_window_only() -> None:
    """A player's view crosses to a bot worker process (web/botpool.py) by pickle, compiled or
    not: the copy equals the view, and its history holds the window's events, none after it."""
    import pickle

    rules = Rules.profile("punjab", players=4, takes="off")
    deal = Deal(rules, 0, 5)
    rng = random.Random(4)
    for _ in range(12):
        legal = deal.legal_actions()
        deal.apply(legal[rng.randrange(len(legal))])
    view = player_view(deal, deal.to_act)
    length = len(view.history)
    for _ in range(8):  # the deal goes on: the view's window does not
        legal = deal.legal_actions()
        deal.apply(legal[rng.randrange(len(legal))])
    data = pickle.dumps(view)
    copy = pickle.loads(data)
    assert copy == view and len(copy.history) == length and tuple(copy.history) == tuple(view.history)
    assert copy.knowledge.known == view.knowledge.known and copy.legal_actions == view.legal_actions
    assert pickle.loads(pickle.dumps(copy.history))._events == list(view.history)  # nothing past the window


def test_take_pass_and_pickup_unpickle_to_the_constants_the_engine_tests() -> None:
    """``deal.apply`` tells a call by identity (``action is TAKE``): a call that crossed to a
    bot worker process and back (pickle) or was deep-copied is the same constant, and applies."""
    import copy
    import pickle

    from getaway.core.events import PASS, PICKUP

    for call in (TAKE, PASS, PICKUP):
        assert pickle.loads(pickle.dumps(call)) is call and copy.deepcopy(call) is call
    rules = Rules.profile("punjab", players=4, takes="any", take_protocol="poll")
    for seed in range(40):  # a deal with a take offered: the unpickled take is taken
        deal = Deal(rules, 0, seed)
        rng = random.Random(seed)
        while not deal.is_over and TAKE not in deal.legal_actions():
            legal = deal.legal_actions()
            deal.apply(legal[rng.randrange(len(legal))])
        if not deal.is_over:
            events = deal.apply(pickle.loads(pickle.dumps(TAKE)))
            assert any(e.kind == "take" for e in events)
            return
    raise AssertionError("no deal offered a take")
