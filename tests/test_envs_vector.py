"""The Gymnasium vector environment (issue 27 item 1, docs/envs.md "The vector environment"):
B deals stepped together in compiled code, each the single-agent environment's deal against
random bots, with the same observations, masks and rewards."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("gymnasium")

from gymnasium.vector import AutoresetMode  # noqa: E402

import getaway  # noqa: E402
from getaway.core import _engine  # noqa: E402
from getaway.core.batch import below, learner_reward, random_action  # noqa: E402
from getaway.core.events import NUM_ACTIONS, IllegalActionError, action_from_id  # noqa: E402
from getaway.core.view import player_view  # noqa: E402
from getaway.envs.encoding import encode, observation_size  # noqa: E402
from getaway.envs.gym import GetawayEnv  # noqa: E402
from getaway.envs.pettingzoo import deal_rewards  # noqa: E402
from getaway.envs.vector import GetawayVectorEnv  # noqa: E402

SRC = Path(getaway.__file__).parent.parent

RULE_SETS = [
    {"profile": "punjab", "players": 4, "takes": "off"},
    {"profile": "punjab", "players": 3},  # takes polled: the bots' take / pass choice
    {"profile": "classic", "players": 5, "trump": "spades"},
    {"profile": "punjab", "players": 6, "joker": True},
]


def _policy(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """A uniformly random legal action per row (row of zeros: 0, ignored by the autoreset)."""
    return np.argmax(rng.random(masks.shape) * masks, axis=1)


def _run(envs: GetawayVectorEnv, seed: int, steps: int) -> list[tuple[np.ndarray, ...]]:
    rng = np.random.default_rng(seed)
    obs, infos = envs.reset(seed=seed)
    out = [(obs, infos["action_mask"], infos["seat"])]
    for _ in range(steps):
        obs, rewards, terms, truncs, infos = envs.step(_policy(rng, infos["action_mask"]))
        out.append((obs, infos["action_mask"], infos["seat"], rewards, terms, truncs))
    return out


def test_spaces_metadata_and_the_first_arrays():
    envs = GetawayVectorEnv(num_envs=5, players=4, takes="off")
    assert envs.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    assert envs.num_envs == 5
    assert envs.single_observation_space.shape == (observation_size(4),)
    assert envs.observation_space.shape == (5, observation_size(4))
    assert list(envs.action_space.nvec) == [NUM_ACTIONS] * 5
    obs, infos = envs.reset(seed=1)
    assert obs.dtype == np.float32 and obs.shape == (5, 515)
    assert envs.observation_space.contains(obs)
    mask = infos["action_mask"]
    assert mask.dtype == np.int8 and mask.shape == (5, NUM_ACTIONS) and (mask.sum(axis=1) >= 1).all()
    assert infos["_action_mask"].all() and infos["_seat"].all()
    actions = envs.action_space.sample(mask=tuple(m.astype(np.int8) for m in mask))
    obs, rewards, terms, truncs, infos = envs.step(actions)
    assert envs.observation_space.contains(obs)
    assert rewards.dtype == np.float64 and rewards.shape == (5,)
    assert terms.dtype == np.bool_ and truncs.dtype == np.bool_ and not truncs.any()


@pytest.mark.parametrize("options", RULE_SETS, ids=lambda o: "-".join(str(v) for v in o.values()))
def test_each_deal_is_the_single_environments_deal_with_the_same_seed(options):
    """Deal ``i`` after ``reset(seed=s)`` is GetawayEnv(opponents="random").reset(seed=s + i),
    step for step, through the autoresets (the single env reset without a seed after each end)."""
    b, seed, steps = 4, 11, 120
    envs = GetawayVectorEnv(num_envs=b, seat="random", **options)
    singles = [GetawayEnv(seat="random", opponents="random", **options) for _ in range(b)]
    obs, infos = envs.reset(seed=seed)
    single_obs = [e.reset(seed=seed + i) for i, e in enumerate(singles)]
    rng = np.random.default_rng(0)
    ends = 0
    pending = [False] * b
    for _ in range(steps):
        for i, e in enumerate(singles):
            o, info = single_obs[i]
            np.testing.assert_array_equal(obs[i], o)
            np.testing.assert_array_equal(infos["action_mask"][i], info["action_mask"])
            assert infos["seat"][i] == e.seat
        actions = _policy(rng, infos["action_mask"])
        obs, rewards, terms, _, infos = envs.step(actions)
        for i, e in enumerate(singles):
            if pending[i]:
                single_obs[i] = e.reset()
                assert rewards[i] == 0.0 and not terms[i]
                pending[i] = False
                continue
            o, r, t, tr, info = e.step(int(actions[i]))
            assert (rewards[i], terms[i], tr) == (r, t, False)
            single_obs[i] = (o, info)
            if t:
                pending[i] = True
                ends += 1
    assert ends >= 2  # the comparison went through ends and autoresets


def test_same_seed_same_arrays_and_another_seed_others():
    one = _run(GetawayVectorEnv(num_envs=6, seat="random", players=4), 5, 80)
    two = _run(GetawayVectorEnv(num_envs=6, seat="random", players=4), 5, 80)
    other = _run(GetawayVectorEnv(num_envs=6, seat="random", players=4), 6, 80)
    for a, b in zip(one, two, strict=True):
        for x, y in zip(a, b, strict=True):
            np.testing.assert_array_equal(x, y)
    assert any(not np.array_equal(a[0], b[0]) for a, b in zip(one, other, strict=True))


def test_a_list_of_seeds_seeds_each_deal():
    envs = GetawayVectorEnv(num_envs=3, players=4)
    obs, _ = envs.reset(seed=[7, 3, 7])
    np.testing.assert_array_equal(obs[0], obs[2])
    first, _ = GetawayVectorEnv(num_envs=1, players=4).reset(seed=3)
    np.testing.assert_array_equal(obs[1], first[0])


def test_masks_observations_and_rewards_follow_the_engine():
    """At every step: the mask is the learner's legal actions (zero once its deal is over), the
    observation is encode() of the learner's view, the reward of an ended deal is the single
    environments' (deal_rewards), and rewards over a table sum to zero (pettingzoo's rule)."""
    envs = GetawayVectorEnv(num_envs=8, seat="random", profile="punjab", players=4)
    rng = np.random.default_rng(2)
    obs, infos = envs.reset(seed=40)
    ended = np.zeros(8, dtype=bool)
    finished = 0
    for _ in range(150):
        for i in range(8):
            deal, seat = envs.deal(i), int(infos["seat"][i])
            np.testing.assert_array_equal(obs[i], encode(player_view(deal, seat)))
            expected = np.zeros(NUM_ACTIONS, dtype=np.int8)
            if not deal.is_over:
                assert deal.to_act == seat
                expected[[int(a) for a in deal.legal_actions(seat)]] = 1
            np.testing.assert_array_equal(infos["action_mask"][i], expected)
        obs, rewards, terms, _, infos = envs.step(_policy(rng, infos["action_mask"]))
        for i in np.flatnonzero(terms):
            deal, seat = envs.deal(i), int(infos["seat"][i])
            assert deal.is_over and not ended[i]
            table = deal_rewards(deal)
            assert rewards[i] == table[seat] == learner_reward(deal, seat)
            assert abs(sum(table)) < 1e-9
            finished += 1
        assert (rewards[~terms] == 0).all()
        ended = terms
    assert finished >= 8


def test_every_deal_ends_and_is_dealt_again():
    envs = GetawayVectorEnv(num_envs=16, seat="random", profile="classic", players=4)
    rng = np.random.default_rng(3)
    _, infos = envs.reset(seed=0)
    ends = np.zeros(16, dtype=int)
    last_terms = np.zeros(16, dtype=bool)
    for _ in range(400):
        _, rewards, terms, _, infos = envs.step(_policy(rng, infos["action_mask"]))
        # the step after an end deals again: a live deal, a legal action to take, reward 0
        assert (infos["action_mask"][last_terms].sum(axis=1) >= 1).all()
        assert (rewards[last_terms] == 0).all() and not terms[last_terms].any()
        assert (infos["action_mask"][terms] == 0).all()
        ends += terms
        last_terms = terms
    assert (ends >= 2).all()


def test_bad_actions_are_refused_and_change_nothing():
    envs = GetawayVectorEnv(num_envs=3, players=4, takes="off")
    with pytest.raises(RuntimeError, match="reset"):
        envs.step(np.zeros(3, dtype=np.int64))
    obs, infos = envs.reset(seed=9)
    masks = infos["action_mask"]
    legal = masks.argmax(axis=1)
    illegal = legal.copy()
    illegal[1] = int(np.flatnonzero(masks[1] == 0)[0])
    events = [envs.deal(i).event_count for i in range(3)]
    bad = [
        (np.zeros(2, dtype=np.int64), ValueError, "shape"),
        (np.zeros((3, 1), dtype=np.int64), ValueError, "shape"),
        (legal.astype(np.float64), ValueError, "integer"),
        (np.array([True, False, True]), ValueError, "integer"),
        (np.array([0, 56, 0]), ValueError, r"actions\[1\]: .*not an action id"),
        (np.array([-1, 0, 0]), ValueError, r"actions\[0\]"),
        (illegal, IllegalActionError, None),
    ]
    for actions, error, match in bad:
        with pytest.raises(error, match=match) as raised:
            envs.step(actions)
        assert [envs.deal(i).event_count for i in range(3)] == events
    assert "deal 1 of the batch" in " ".join(raised.value.__notes__)
    assert raised.value.reason in IllegalActionError.REASONS
    # still the same state: the legal step goes on as if nothing had been tried
    fresh = GetawayVectorEnv(num_envs=3, players=4, takes="off")
    fresh.reset(seed=9)
    np.testing.assert_array_equal(envs.step(legal)[0], fresh.step(legal)[0])


def test_bad_arguments_are_refused():
    for kwargs, match in [
        ({"num_envs": 0}, "num_envs"),
        ({"num_envs": 2.0}, "num_envs"),
        ({"seat": 4}, "seat"),
        ({"opponents": "heuristic"}, "only 'random'"),
        ({"take_probability": 1.5}, "take_probability"),
    ]:
        with pytest.raises(ValueError, match=match):
            GetawayVectorEnv(players=4, **kwargs)
    envs = GetawayVectorEnv(num_envs=2, players=4)
    with pytest.raises(ValueError, match="options"):
        envs.reset(options={"deal_seed": 1})
    with pytest.raises(ValueError, match="seed"):
        envs.reset(seed=[1, 2, 3])
    with pytest.raises(ValueError, match="seed"):
        envs.reset(seed=1.5)


def test_returned_arrays_are_not_reused():
    envs = GetawayVectorEnv(num_envs=2, players=4)
    obs, infos = envs.reset(seed=1)
    kept, kept_mask = obs.copy(), infos["action_mask"].copy()
    obs[:] = 7
    infos["action_mask"][:] = 3
    obs2, *_, infos2 = envs.step(kept_mask.argmax(axis=1))
    assert (obs == 7).all() and not (obs2 == 7).any()
    fresh = GetawayVectorEnv(num_envs=2, players=4)
    np.testing.assert_array_equal(fresh.reset(seed=1)[0], kept)
    np.testing.assert_array_equal(fresh.step(kept_mask.argmax(axis=1))[0], obs2)


def test_the_random_bot_chooses_with_the_cores_rule():
    import random

    from getaway.bots import make_bot
    from getaway.core.events import PASS, TAKE

    bot = make_bot("random")
    legal = [action_from_id(i) for i in (3, 7, 20)] + [TAKE]
    for seed in range(50):
        a, b = random.Random(seed), random.Random(seed)
        assert bot.act(None, legal, a) == random_action(legal, b, 0.02)
        assert a.random() == b.random()
    assert random_action([TAKE], random.Random(0), 0.0) is PASS
    assert random_action([PASS, TAKE], random.Random(0), 1.0) is TAKE


def test_below_draws_what_randrange_draws():
    """The compiled loop's ``below`` is ``randrange`` without its checks: the same numbers from
    the same generator state (so the bots' moves are the single environment's)."""
    import random

    for n in [*range(1, 60), 64, 100, 1000]:
        a, b = random.Random(n), random.Random(n)
        assert [below(a, n) for _ in range(200)] == [b.randrange(n) for _ in range(200)]
        assert a.getstate() == b.getstate()


_ARRAYS = """
import hashlib, json, sys
import numpy as np
from getaway.core import _engine
from getaway.envs.vector import GetawayVectorEnv
h = hashlib.sha256()
for options in ({"players": 4, "takes": "off"}, {"profile": "classic", "players": 5}, {"players": 3}):
    envs = GetawayVectorEnv(num_envs=8, seat="random", **options)
    rng = np.random.default_rng(1)
    obs, infos = envs.reset(seed=21)
    h.update(obs.tobytes()); h.update(infos["action_mask"].tobytes())
    for _ in range(int(sys.argv[1])):
        obs, rewards, terms, _, infos = envs.step(np.argmax(rng.random((8, 56)) * infos["action_mask"], axis=1))
        for a in (obs, rewards, terms, infos["action_mask"], infos["seat"]):
            h.update(a.tobytes())
print(json.dumps({"compiled": _engine.COMPILED, "digest": h.hexdigest()}))
"""


def _arrays(pure: bool) -> dict:
    env = dict(os.environ, PYTHONPATH=str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("GETAWAY_PURE_PYTHON", None)
    if pure:
        env["GETAWAY_PURE_PYTHON"] = "1"
    out = subprocess.run([sys.executable, "-c", _ARRAYS, "150"], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.mark.skipif(not _engine.COMPILED, reason="the engine is not compiled here: nothing to compare")
def test_the_compiled_loop_and_its_python_source_give_the_same_arrays():
    compiled, source = _arrays(False), _arrays(True)
    assert compiled["compiled"] and not source["compiled"]
    assert compiled["digest"] == source["digest"]
