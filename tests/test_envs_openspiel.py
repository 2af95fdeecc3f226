"""The OpenSpiel adapter: OpenSpiel's random simulation test, chance nodes, clones and
serialisation, the resampler, and the Python ISMCTS playing full deals."""

from __future__ import annotations

import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

from conftest import SOAK  # noqa: E402
from getaway import player_view  # noqa: E402
from getaway.envs import openspiel  # noqa: E402
from getaway.envs.openspiel import resample  # noqa: E402

PARAMS = [
    {"players": 3, "takes": "off"},
    {"players": 4},  # punjab, takes polled
    {"profile": "classic", "players": 4},
    {"profile": "classic", "players": 2, "trump": "spades", "uneven": "strip"},
    {"players": 5, "joker": True, "kicker": True, "takes": "leader"},
    {"players": 8, "nopickup": True, "dehla": True, "uneven": "loaded", "loaded_seat": 3},
]


def _random_outcome(state, rng: random.Random) -> None:  # noqa: ANN001
    """Apply one of the chance node's outcomes, chosen by ``rng``."""
    outcomes = state.chance_outcomes()
    state.apply_action(outcomes[rng.randrange(len(outcomes))][0])


def _decisions(state, rng: random.Random):  # noqa: ANN001, ANN202
    """Play ``state``'s chance nodes at random and yield the player at each decision (the
    caller applies an action) until the deal is over."""
    while not state.is_terminal():
        if state.is_chance_node():
            _random_outcome(state, rng)
        else:
            yield state.current_player()


def _play_random(state, rng: random.Random, stop=None):  # noqa: ANN001, ANN202
    while not state.is_terminal():
        if stop is not None and stop(state):
            return state
        if state.is_chance_node():
            _random_outcome(state, rng)
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
    return state


@pytest.mark.parametrize("params", PARAMS)
def test_random_sim_test_with_serialization(params: dict) -> None:
    game = pyspiel.load_game("python_getaway", params)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_game_info_comes_from_the_parameters() -> None:
    game = pyspiel.load_game("python_getaway", {"profile": "classic", "players": 6})
    assert game.num_players() == 6
    assert game.num_distinct_actions() == 56
    assert game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    strip = pyspiel.load_game("python_getaway", {"players": 6, "uneven": "strip"})
    assert len(strip.new_initial_state().chance_outcomes()) == 48
    with pytest.raises(Exception, match="poll"):
        pyspiel.load_game("python_getaway", {"take_protocol": "interject"})


def test_the_deal_is_dealt_card_by_card() -> None:
    game = pyspiel.load_game("python_getaway", {"players": 3, "takes": "off", "dealer": 0})
    state = game.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == 52
    rng = random.Random(1)
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        assert sum(p for _, p in outcomes) == pytest.approx(1.0)
        state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
    assert state.deal.hand_sizes == (17, 18, 17)  # R-DEAL: the extra card to the dealer's left
    assert str(state.deal.legal_actions()[0]) == "A♠"


def test_blind_draws_are_chance_nodes() -> None:
    game = pyspiel.load_game("python_getaway", {"players": 3, "takes": "off"})
    rng = random.Random(0)
    draws = 0
    for _ in range(30):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node() and state.deal is not None:
                draws += 1
                outcomes = state.chance_outcomes()
                waste = state.deal.waste
                assert {a for a, _ in outcomes} <= set(waste)
                card, _ = outcomes[rng.randrange(len(outcomes))]
                drawer = state.deal.trick[0][0] if state.deal.trick else None
                state.apply_action(card)
                assert state.deal.forced_lead == card
                assert drawer is None or card in state.deal.hand(state.deal.leader)
            else:
                _play_random(state, rng, stop=lambda s: s.is_chance_node() and s.deal is not None)
    assert draws > 0


def test_clone_and_serialization_keep_the_state() -> None:
    game = pyspiel.load_game("python_getaway", {"players": 4})
    rng = random.Random(3)
    for _ in range(5):
        state = _play_random(game.new_initial_state(), rng, stop=lambda s: len(s.history()) > 53 + 40)
        if state.is_terminal():
            continue
        clone = state.clone()
        text = pyspiel.serialize_game_and_state(game, state)
        _, restored = pyspiel.deserialize_game_and_state(text)
        assert str(restored) == str(state) == str(clone)
        for p in range(4):
            assert restored.information_state_string(p) == state.information_state_string(p)
            assert restored.observation_tensor(p) == state.observation_tensor(p)
        seed = rng.random()
        a = _play_random(state, random.Random(seed))
        b = _play_random(clone, random.Random(seed))
        c = _play_random(restored, random.Random(seed))
        assert a.returns() == b.returns() == c.returns()
        assert sum(a.returns()) == pytest.approx(0.0)


def test_a_deserialised_or_unpickled_state_plays_on_through_a_blind_draw() -> None:
    """R-P-DRAW after a copy: the copies made by serialisation and by pickle reach the draw's
    chance node and take its outcome exactly as the original and a clone do."""
    import pickle

    game = pyspiel.load_game("python_getaway", {"players": 3, "takes": "off"})
    rng = random.Random(5)
    checked = 0
    for _ in range(10):
        state = game.new_initial_state()
        while not state.is_terminal() and checked < 3:
            if state.is_chance_node():
                _random_outcome(state, rng)
                continue
            legal = state.legal_actions()
            action = legal[rng.randrange(len(legal))]
            probe = state.clone()
            probe.apply_action(action)
            if probe.is_chance_node():  # this action makes its trick's winner draw blind
                copies = [
                    state.clone(),
                    pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))[1],
                    pickle.loads(pickle.dumps(state)),
                ]
                outcome = probe.chance_outcomes()[0][0]
                for copy in [state, *copies]:
                    copy.apply_action(action)
                    assert copy.is_chance_node()
                    copy.apply_action(outcome)
                assert len({str(c) for c in [state, *copies]}) == 1
                checked += 1
                continue
            state.apply_action(action)
    assert checked == 3


def test_a_chance_outcome_that_is_not_offered_is_refused_and_changes_nothing() -> None:
    game = pyspiel.load_game("python_getaway", {"players": 3, "takes": "off"})
    state = game.new_initial_state()
    state.apply_action(0)
    for bad in (0, 52, 60):  # dealt already, the Joker (not in this game), not a card
        with pytest.raises(ValueError, match="dealing"):
            state.apply_action(bad)
        assert state.history() == [0] and len(state.chance_outcomes()) == 51
    rng = random.Random(2)
    state = _play_random(state, rng, stop=lambda s: s.is_chance_node() and s.deal is not None)
    if not state.is_terminal():  # a blind draw is pending
        offered = {a for a, _ in state.chance_outcomes()}
        before = (state.history(), str(state))
        with pytest.raises(ValueError, match="blind draw"):
            state.apply_action(next(c for c in range(52) if c not in offered))
        assert (state.history(), str(state)) == before


def test_observers_chance_outcomes_and_the_observation_types_offered() -> None:
    from open_spiel.python.observation import make_observation

    game = pyspiel.load_game("python_getaway", {"players": 4})
    state = _play_random(game.new_initial_state(), random.Random(1), stop=lambda s: not s.is_chance_node())
    assert state.chance_outcomes() == []  # a decision node
    own = make_observation(game, pyspiel.IIGObservationType(perfect_recall=False))
    info = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))  # the same summary
    for observer in (own, info):
        observer.set_from(state, 0)
        assert observer.tensor.tolist() == state.observation_tensor(0)
    for private in (pyspiel.PrivateInfoType.NONE, pyspiel.PrivateInfoType.ALL_PLAYERS):
        with pytest.raises(ValueError, match="own observation only"):
            make_observation(game, pyspiel.IIGObservationType(perfect_recall=False, private_info=private))
    assert _play_random(state, random.Random(2)).chance_outcomes() == []  # terminal


def test_penalize_and_a_bad_trump_are_refused() -> None:
    with pytest.raises(Exception, match="strict"):
        pyspiel.load_game("python_getaway", {"enforcement": "penalize"})
    with pytest.raises(Exception, match="'none' or 'spades'"):
        pyspiel.load_game("python_getaway", {"trump": "hearts"})


@pytest.mark.soak
@pytest.mark.parametrize(
    "params",
    [
        {"players": 4},
        {"players": 3, "takes": "off"},
        {"profile": "classic", "players": 4, "trump": "spades"},
        {"players": 6, "joker": True},
        {"players": 5, "takes": "any", "trump": "spades"},
    ],
)
def test_resampling_keeps_the_information_state(params: dict) -> None:
    game = pyspiel.load_game("python_getaway", params)
    rng = random.Random(7)
    checked = 0
    for _ in range(6 * SOAK):
        state = game.new_initial_state()
        for player in _decisions(state, rng):
            if rng.random() < 0.3:
                world = resample(state, player, rng)
                assert world.information_state_string(player) == state.information_state_string(player)
                assert world.information_state_tensor(player) == state.information_state_tensor(player)
                assert world.legal_actions() == state.legal_actions()
                assert world.deal.hand(player) == state.deal.hand(player)
                _play_random(world, rng)  # the sampled world plays on to the end
                assert sum(world.returns()) == pytest.approx(0.0)
                checked += 1
            legal = state.legal_actions()
            # takes end deals quickly: only now and then
            choice = [a for a in legal if a != 53 or rng.random() < 0.05] or legal
            state.apply_action(choice[rng.randrange(len(choice))])
    assert checked > 20


@pytest.mark.parametrize(
    ("params", "wanted"),
    [
        ({"players": 3, "takes": "off"}, ("drawer",)),  # without takes the drawer leads at once
        # the take poll asks the others; one who takes the drawer's hand holds the card, not forced
        ({"players": 4, "takes": "any"}, ("drawer", "other", "taker")),
    ],
)
def test_R_P_DRAW_resampling_keeps_a_pending_blind_draw(params: dict, wanted: tuple[str, ...]) -> None:
    # Decisions while a card drawn blind has not been led: by the drawer (it must lead it) and
    # by the others (someone holds a card of the waste pile they cannot see). The sampled
    # world is built from a Position holding the blind draw; its views must be the real ones.
    assert not hasattr(openspiel, "_inject_draw")  # no more writing into the engine's history
    game = pyspiel.load_game("python_getaway", params)
    rng = random.Random(11)
    cases = {"drawer": 0, "other": 0, "taker": 0}
    for _ in range(200):
        state = game.new_initial_state()
        for player in _decisions(state, rng):
            view = player_view(state.deal, player)
            hidden = view.knowledge.hidden
            case = "drawer" if view.must_lead is not None else "other" if hidden else None
            if case == "other" and not hidden[0][2]:
                case = "taker"
            if case is not None:
                world = resample(state, player, rng)
                assert world.information_state_string(player) == state.information_state_string(player)
                assert world.information_state_tensor(player) == state.information_state_tensor(player)
                assert world.legal_actions() == state.legal_actions()
                new = player_view(world.deal, player)
                assert new.waste_seen == view.waste_seen and new.must_lead == view.must_lead
                assert [e.kind for e in world.deal.events[:2]] == ["waste", "draw"]  # from the position
                _play_random(world, rng)
                assert sum(world.returns()) == pytest.approx(0.0)
                cases[case] += 1
            legal = state.legal_actions()
            deal = state.deal
            if (
                53 in legal
                and deal.forced_lead is not None
                and deal.active[(deal.active.index(player) + 1) % len(deal.active)] == deal.leader
            ):
                state.apply_action(53)  # take the drawer's hand (TAKE)
                continue
            choice = [a for a in legal if a != 53 or rng.random() < 0.05] or legal
            state.apply_action(choice[rng.randrange(len(choice))])
        if min(cases[c] for c in wanted) >= 5:
            break
    assert min(cases[c] for c in wanted) >= 5, cases


def test_python_ismcts_plays_a_full_deal() -> None:
    game = pyspiel.load_game("python_getaway", {"players": 3, "takes": "off"})
    rs = np.random.RandomState(0)
    rng = random.Random(0)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), 2.0, max_simulations=8, random_state=rs)
    bot.set_resampler(lambda state, player: resample(state, player, rng))
    state = game.new_initial_state()
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
        elif state.current_player() == 0:
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
            decisions += 1
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
    assert decisions > 0
    assert sum(state.returns()) == pytest.approx(0.0)
    assert -1.0 in state.returns()


@pytest.mark.parametrize("params", PARAMS[:3])
def test_the_python_shortcuts_answer_as_pyspiel_does(params: dict) -> None:
    """``is_chance_node`` and ``legal_actions`` (defined in Python, to skip a round trip through
    C++) give what pyspiel.State's own give, at every node: dealing, decisions for every player,
    blind draws, the end."""
    game = pyspiel.load_game("python_getaway", params)
    rng = random.Random(7)
    draws = 0
    for _ in range(3):
        state = game.new_initial_state()
        while True:
            assert state.is_chance_node() == pyspiel.State.is_chance_node(state)
            assert state.legal_actions() == pyspiel.State.legal_actions(state)
            for p in range(game.num_players()):
                assert state.legal_actions(p) == pyspiel.State.legal_actions(state, p)
            if state.is_terminal():
                break
            draws += state.is_chance_node() and state.deal is not None
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
    assert draws > 0 or params is not PARAMS[0]  # punjab, takes off: blind draws come


def test_the_parameters_are_the_core_option_schema() -> None:
    """OpenSpiel's parameters and defaults are derived from Rules.schema(), not a copy."""
    from getaway import Rules

    schema = Rules.schema()
    params = pyspiel.load_game("python_getaway").get_parameters()
    assert set(params) == set(schema["options"])
    for profile in ("punjab", "classic"):
        rules, dealer = openspiel.rules_of_params({"profile": profile})
        assert rules == Rules.profile(profile) and dealer == 0
    rules, _ = openspiel.rules_of_params({"uneven": "loaded", "loaded_seat": 2, "trump": "spades"})
    assert (rules.loaded_seat, rules.trump) == (2, "spades")
    with pytest.raises(ValueError, match="ante"):
        openspiel.rules_of_params({"ante": schema["options"]["ante"]["max"] + 1})


def _rollout_draws(state, seed: int) -> int:  # noqa: ANN001
    """How many blind draws (chance nodes) the parent evaluator's rollout from ``state`` meets with ``seed``."""
    rs = np.random.RandomState(seed)
    working, draws = state.clone(), 0
    while not working.is_terminal():
        if working.is_chance_node():
            actions, probs = zip(*working.chance_outcomes(), strict=True)
            working.apply_action(rs.choice(actions, p=probs))
            draws += 1
        else:
            working.apply_action(rs.choice(working.legal_actions()))
    return draws


@pytest.mark.parametrize("params", PARAMS)
def test_random_rollouts_are_openspiels_random_rollouts(params: dict) -> None:
    # RandomRollouts plays on a copy of the engine's deal: it must still be OpenSpiel's
    # RandomRolloutEvaluator, the same returns from the same random numbers, leaving the
    # generator where the parent leaves it (so ISMCTS searches the same tree).
    game = pyspiel.load_game("python_getaway", params)
    rng = random.Random(3)
    checked = draws = 0
    for _ in range(2):
        state = game.new_initial_state()
        for _player in _decisions(state, rng):
            if rng.random() < 0.25:
                for seed in range(3):
                    ours, theirs = np.random.RandomState(seed), np.random.RandomState(seed)
                    got = openspiel.RandomRollouts(2, ours).evaluate(state)
                    assert got.tolist() == mcts.RandomRolloutEvaluator(2, theirs).evaluate(state).tolist()
                    assert ours.randint(2**31) == theirs.randint(2**31)
                    draws += _rollout_draws(state, seed) if params.get("takes") == "off" else 0
                checked += 1
            legal = state.legal_actions()
            choice = [a for a in legal if a != 53 or rng.random() < 0.05] or legal
            state.apply_action(choice[rng.randrange(len(choice))])
    assert checked > 5
    assert draws > 0 or params.get("takes") != "off"  # punjab without takes: rollouts through blind draws


def test_information_state_strings_are_kept_until_the_next_action_only() -> None:
    game = pyspiel.load_game("python_getaway", {"players": 4})
    rng = random.Random(5)
    state = game.new_initial_state()
    steps = 0
    while not state.is_terminal():
        asked = [state.information_state_string(p) for p in range(4)]  # kept in the state from here
        clone = state.clone()
        assert clone._game_ref is state._game_ref  # the game's fixed setup is shared, not copied
        assert [clone.information_state_string(p) for p in range(4)] == asked
        state.core.strings.clear()
        assert [state.information_state_string(p) for p in range(4)] == asked  # made again: the same
        assert [pyspiel.State.information_state_string(state, p) for p in range(4)] == asked  # the observer's
        assert [state.observation_string(p) for p in range(4)] == asked
        if not state.is_chance_node():
            assert state.information_state_string() == asked[state.current_player()]
        legal = state.legal_actions()
        clone.apply_action(legal[0])  # a clone's action leaves the original's strings alone
        assert [state.information_state_string(p) for p in range(4)] == asked
        state.apply_action(legal[rng.randrange(len(legal))])
        steps += 1
    assert steps > 53
    with pytest.raises(pyspiel.SpielError):
        state.information_state_string()  # over: no player to act


def test_worlds_draw_as_resample_does() -> None:
    # ISMCTSStyle draws the root's worlds with Worlds (its view worked out once) instead of
    # resample(root, ...): the same worlds from the same random numbers.
    game = pyspiel.load_game("python_getaway", {"players": 4})
    rng = random.Random(9)
    checked = 0
    for _ in range(3):
        state = game.new_initial_state()
        for player in _decisions(state, rng):
            if rng.random() < 0.2:
                worlds = openspiel.Worlds(game, player_view(state.deal, player))
                root = worlds.draw(random.Random(0))
                assert root.information_state_string(player) == state.information_state_string(player)
                for seed in range(3):
                    drawn = worlds.draw(random.Random(seed))
                    hands = [drawn.deal.hand(s) for s in range(4)]
                    for start in (root, state):
                        other = resample(start, player, random.Random(seed))
                        assert [other.deal.hand(s) for s in range(4)] == hands
                        assert other.information_state_string(player) == drawn.information_state_string(player)
                checked += 1
            legal = state.legal_actions()
            choice = [a for a in legal if a != 53] or legal  # no takes: longer deals
            state.apply_action(choice[rng.randrange(len(choice))])
    assert checked > 5
