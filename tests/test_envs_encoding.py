"""The shared observation encoding: shape, what it derives, and that it never leaks."""

from __future__ import annotations

import random

import numpy as np
import pytest

from getaway import TAKE, Card, Deal, Knowledge, Position, Rules, player_view
from getaway.core.cards import SUIT_MASKS
from getaway.envs.encoding import encode, encode_seat, layout, observation_size


def _slice(obs: np.ndarray, players: int, name: str) -> np.ndarray:
    start, shape = layout(players)[name]
    return obs[start : start + int(np.prod(shape))].reshape(shape)


@pytest.mark.parametrize("players", [2, 3, 4, 8])
def test_layout_covers_the_vector(players: int) -> None:
    parts = layout(players)
    end = max(start + int(np.prod(shape)) for start, shape in parts.values())
    assert end == observation_size(players)


def test_incremental_knowledge_equals_a_fresh_derivation() -> None:
    rng = random.Random(0)
    for rules in (Rules.profile("punjab", players=4), Rules.profile("classic", players=3, trump="spades")):
        for seed in range(15):
            deal = Deal(rules, seed % rules.players, seed)
            knowledge = [Knowledge.of(deal, s) for s in range(rules.players)]
            while not deal.is_over:
                seat = deal.to_act
                view = player_view(deal, seat)
                obs = encode(player_view(deal, seat, knowledge[seat]))
                assert np.array_equal(obs, encode(view))
                assert obs.dtype == np.float32 and obs.min() >= 0 and obs.max() <= 1
                legal = deal.legal_actions()
                deal.apply(legal[rng.randrange(len(legal))])


@pytest.mark.parametrize(
    "options",
    [
        {"profile": "punjab", "players": 4, "takes": "off"},
        {"profile": "punjab", "players": 4, "takes": "any", "dehla": True, "nopickup": True},
        {"profile": "punjab", "players": 5, "kicker": True, "joker": True},
        {"profile": "punjab", "players": 3, "takes": "off"},
        {"profile": "punjab", "players": 7, "uneven": "strip"},
        {"profile": "classic", "players": 4, "trump": "spades"},
        {"profile": "classic", "players": 3},
        {"profile": "classic", "players": 6, "joker": True},
    ],
)
def test_the_fast_observation_is_the_views_encoding(options: dict) -> None:
    """``encode_seat`` (the environments' path, no view built) gives exactly ``encode(player_view(...))``
    for every viewer at every step, each with its own kept knowledge, takes and blind draws included."""
    options = dict(options)
    rules = Rules.profile(options.pop("profile"), **options)
    n = rules.players
    rng = random.Random(11)
    for seed in range(25):
        deal = Deal(rules, seed % n, seed)
        fast = [Knowledge.of(deal, s) for s in range(n)]
        slow = [Knowledge.of(deal, s) for s in range(n)]
        while not deal.is_over:
            for viewer in range(n):
                if rng.random() < 0.7:  # each seat observes irregularly: its knowledge reads several events at once
                    obs = encode_seat(deal, viewer, fast[viewer])
                    assert obs.dtype == np.float32 and obs.shape == (observation_size(n),)
                    assert np.array_equal(obs, encode(player_view(deal, viewer, slow[viewer]))), (seed, viewer)
            legal = deal.legal_actions()
            deal.apply(legal[rng.randrange(len(legal))])
    with pytest.raises(ValueError, match="knowledge"):
        encode_seat(deal, 1, fast[0])


@pytest.mark.parametrize(
    "options",
    [
        {"profile": "punjab", "players": 4, "takes": "off", "nopickup": True},
        {"profile": "punjab", "players": 4, "takes": "any", "dehla": True},
        {"profile": "punjab", "players": 5, "kicker": True, "joker": True},
        {"profile": "classic", "players": 4, "trump": "spades"},
    ],
)
def test_known_cards_and_proven_voids_are_always_true(options: dict) -> None:
    """What the observation says holds in the real deal at every step, for every viewer: a
    card known in a hand is there, and a seat marked void in a suit holds none of it."""
    options = dict(options)
    rules = Rules.profile(options.pop("profile"), **options)
    n = rules.players
    rng = random.Random(3)
    for seed in range(40):
        deal = Deal(rules, seed % n, seed)
        knowledge = [Knowledge.of(deal, s) for s in range(n)]
        parts = layout(n)
        while not deal.is_over:
            for viewer in range(n):
                obs = encode(player_view(deal, viewer, knowledge[viewer]))
                start, shape = parts["known"]
                known = obs[start : start + int(np.prod(shape))].reshape(shape)
                start, shape = parts["voids"]
                voids = obs[start : start + int(np.prod(shape))].reshape(shape)
                for i in range(n):
                    s = (viewer + i) % n
                    hand = deal.hand_mask(s)
                    if i:
                        assert all(hand >> c & 1 for c in np.flatnonzero(known[i - 1])), (seed, viewer, s)
                    for suit in range(4):
                        if voids[i][suit]:
                            assert not hand & SUIT_MASKS[suit], (seed, viewer, s, suit, deal.events[-4:])
            legal = deal.legal_actions()
            takes_rarely = [a for a in legal if a is not TAKE or rng.random() < 0.1] or legal
            deal.apply(takes_rarely[rng.randrange(len(takes_rarely))])


def test_worked_example_known_cards_and_voids() -> None:
    # RULES.md §2: A leads 8♥, B plays Q♥, C plays 3♣ (tochoo): B picks up all three.
    position = Position.from_cards(
        [["8h", "2s"], ["Qh", "3s"], ["3c", "4s"], ["5d", "6s"]], waste=["As"], leader=0, first_trick_done=True
    )
    deal = Deal(Rules.profile("punjab", players=4, takes="off"), position=position)
    for card in ("8h", "Qh", "3c"):
        deal.apply(card)
    obs = encode(player_view(deal, 3))  # D's view
    known = _slice(obs, 4, "known")  # rows: D's left (A), B, C
    assert {int(c) for c in np.flatnonzero(known[1])} == {Card.parse(c) for c in ("8h", "Qh", "3c")}
    voids = _slice(obs, 4, "voids")  # rows: D, A, B, C
    assert voids[3].tolist() == [0, 1, 0, 0]  # C is proven void in hearts
    assert _slice(obs, 4, "hand_sizes")[2] == pytest.approx(4 / 53)


@pytest.mark.parametrize("profile", ["punjab", "classic"])
def test_no_leak_when_only_hidden_cards_change(profile: str) -> None:
    """Swap two same-suit cards between two other hands (never played in the replayed
    actions): the viewer's observation is the same at every step."""
    rng = random.Random(11)
    rules = Rules.profile(profile, players=4, takes="off")
    checked = 0
    for seed in range(40):
        base = Deal(rules, 0, seed)
        hands = [base.hand_mask(s) for s in range(4)]
        leader = base.leader
        actions = []
        deal = base.clone()
        for _ in range(rng.randrange(5, 40)):
            if deal.is_over:
                break
            legal = deal.legal_actions()
            action = legal[rng.randrange(len(legal))]
            actions.append((deal.to_act, action))
            deal.apply(action)
        played = {int(a) for _, a in actions}
        viewer = rng.randrange(4)
        others = [s for s in range(4) if s != viewer]
        s1, s2 = rng.sample(others, 2)
        pairs = [
            (c1, c2)
            for c1 in range(52)
            for c2 in range(52)
            if hands[s1] >> c1 & 1 and hands[s2] >> c2 & 1 and c1 // 13 == c2 // 13 and not {c1, c2} & played
        ]
        pairs = [(c1, c2) for c1, c2 in pairs if 12 not in (c1, c2)]  # keep the A♠ where it is
        if not pairs:
            continue
        c1, c2 = rng.choice(pairs)
        other_hands = list(hands)
        other_hands[s1] ^= (1 << c1) | (1 << c2)
        other_hands[s2] ^= (1 << c1) | (1 << c2)
        a = Deal(rules, 0, position=Position(tuple(hands), 0, leader, False))
        b = Deal(rules, 0, position=Position(tuple(other_hands), 0, leader, False))
        for seat, action in actions:
            try:
                b.apply(action, seat)
            except ValueError:
                break  # the swap changed a trick's winner or picker: a different deal from here
            a.apply(action, seat)
            if a.snapshot()["trick"] != b.snapshot()["trick"] or a.leader != b.leader or a.is_over:
                break
            if a.hand_sizes != b.hand_sizes:
                break
            assert np.array_equal(encode(player_view(a, viewer)), encode(player_view(b, viewer)))
            checked += 1
    assert checked > 50


def _draw_position(hands: list[list[str]], leader: int, forced: str | None, blind_draw: tuple[int, str]) -> Position:
    return Position.from_cards(
        hands, waste=["2h", "Ah", "5h"], leader=leader, first_trick_done=True, forced_lead=forced, blind_draw=blind_draw
    )


@pytest.mark.parametrize("taken", [False, True])
def test_R_P_DRAW_a_blind_draw_from_a_position_is_tracked_as_in_the_real_deal(taken: bool) -> None:
    # The real deal: seat 1 wins the trick with its last card and draws the 9♣ blind; then
    # (taken) seat 0 takes seat 1's hand and holds the 9♣, no longer forced to lead it.
    rules = Rules.profile("punjab", players=3, takes="any", take_protocol="interject")
    hands = [["2h", "3d"], ["Ah"], ["5h", "6c"]]
    real = Deal(rules, position=Position.from_cards(hands, waste=["9c"], first_trick_done=True))
    for card in ("2h", "Ah", "5h"):
        real.play(card)
    if taken:
        real.take(0)
        position = _draw_position([["3d", "9c"], [], ["6c"]], 0, None, (0, "9c"))
    else:
        position = _draw_position([["3d"], ["9c"], ["6c"]], 1, "9c", (1, "9c"))
    deal = Deal(rules, position=position)
    holder = 0 if taken else 1
    for seat in range(3):
        if deal.has_got_away(seat):
            continue
        fresh, tracked = player_view(deal, seat).knowledge, player_view(real, seat).knowledge
        if seat == holder:  # its own draw: nothing hidden from it
            assert fresh.hidden == tracked.hidden == []
        else:
            assert [h[0] for h in fresh.hidden] == [h[0] for h in tracked.hidden] == [holder]
            # a position does not say what the waste held at the draw: fewer facts, never others
            assert tracked.hidden[0][1] & ~fresh.hidden[0][1] == 0
        a, b = encode(player_view(deal, seat)), encode(player_view(real, seat))
        start, shape = layout(3)["voids"]
        voids = np.arange(start, start + int(np.prod(shape)))
        assert np.array_equal(np.delete(a, voids), np.delete(b, voids))
        assert np.all(a[voids] <= b[voids])
