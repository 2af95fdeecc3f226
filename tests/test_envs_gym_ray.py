"""The Gymnasium adapter (env checker, episodes against bots) and the Ray backend."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from getaway import IllegalActionError, Rules
from getaway.sim.simulation import Job, run_jobs

gymnasium = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from getaway.envs.gym import GetawayEnv  # noqa: E402


@pytest.mark.parametrize(
    "options",
    [
        {"profile": "punjab", "players": 4},
        {"profile": "classic", "players": 3, "seat": "random"},
        {"profile": "punjab", "players": 8, "takes": "off", "seat": 5},
    ],
)
def test_gymnasium_env_checker(options: dict) -> None:
    check_env(GetawayEnv(**options), skip_render_check=True)


def test_episodes_against_bots() -> None:
    env = GetawayEnv(profile="punjab", players=4, opponents=["random", "easy", "random"])
    rng = np.random.default_rng(0)
    losses = 0
    for seed in range(40):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            assert env.observation_space.contains(obs)
            legal = np.flatnonzero(info["action_mask"])
            assert len(legal) > 0
            obs, reward, done, truncated, info = env.step(int(rng.choice(legal)))
        assert "illegal" not in info
        losses += reward == -1.0
        assert reward in (-1.0, 1 / 3)
    assert 0 < losses < 40


def test_illegal_action_loses_or_raises() -> None:
    env = GetawayEnv(profile="classic", players=4)
    obs, info = env.reset(seed=1)
    bad = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, done, _, info = env.step(bad)
    assert (reward, done, info["illegal"]) == (-1.0, True, True)
    assert not info["action_mask"].any(), "the episode is over: nothing is legal"
    with pytest.raises(RuntimeError, match="reset"):
        env.step(int(np.flatnonzero(env.deal.legal_mask(env.seat))[0]))  # legal in the deal, but the episode ended
    env = GetawayEnv(profile="classic", players=4, illegal_action="raise")
    obs, info = env.reset(seed=1)
    with pytest.raises(IllegalActionError):
        env.step(bad)


@pytest.mark.parametrize("action", [3.0, 3.7, "3", True, None, 56, -1, np.float32(2)])
def test_a_value_that_is_not_an_action_id_is_refused_and_changes_nothing(action: object) -> None:
    env = GetawayEnv(profile="punjab", players=4, takes="off")
    obs, info = env.reset(seed=2)
    before = env.deal.snapshot()
    with pytest.raises(ValueError, match="action id"):
        env.step(action)  # type: ignore[arg-type]
    assert env.deal.snapshot() == before
    legal = int(np.flatnonzero(info["action_mask"])[0])
    env.step(np.int64(legal))  # numpy integers are action ids


def test_reset_options_and_penalize_are_refused() -> None:
    env = GetawayEnv(players=4)
    with pytest.raises(RuntimeError, match="before reset"):
        env.step(0)
    assert GetawayEnv(players=4, seat=np.int64(2)).seat == 2
    env.reset(seed=np.int64(4))
    for seed in ("abc", 1.5, True):
        with pytest.raises(ValueError, match="whole number"):
            env.reset(seed=seed)
    with pytest.raises(ValueError, match="options"):
        env.reset(options={"dealr": 1})
    with pytest.raises(ValueError, match="strict"):
        GetawayEnv(players=4, enforcement="penalize")


def test_bad_settings() -> None:
    with pytest.raises(ValueError, match="opponents"):
        GetawayEnv(players=4, opponents=["random"])
    with pytest.raises(ValueError, match="seat"):
        GetawayEnv(players=4, seat=4)


def _comparable(result) -> dict:  # noqa: ANN001
    d = dataclasses.asdict(result)
    d.pop("think_times")  # measured time: never equal twice
    return d


def test_ray_backend_gives_the_results_of_one_worker() -> None:
    ray = pytest.importorskip("ray")
    from getaway.sim.ray_backend import run_jobs_ray

    rules = Rules.profile("punjab", players=4)
    jobs = [Job(rules, ("random",) * 4, seed, seed % 4) for seed in range(24)]
    jobs += [Job(Rules.profile("classic", players=3), ("random",) * 3, seed, 1, keep_record=True) for seed in range(6)]
    expected = [_comparable(r) for r in run_jobs(jobs, workers=1)]
    done: list[int] = []
    ray.shutdown()
    try:  # ray.init options pass through, a default (include_dashboard) overridden included
        got = run_jobs_ray(jobs, progress=done.append, chunk=4, num_cpus=2, include_dashboard=False)
    finally:
        ray.shutdown()
    assert [_comparable(r) for r in got] == expected
    assert sum(done) == len(jobs)


@pytest.mark.parametrize(("workers", "chunk"), [(0, None), (1.5, None), (True, None), (1, 0), (1, -1), (1, 2.5)])
def test_bad_worker_or_chunk_counts_are_refused_by_both_backends(workers: object, chunk: object) -> None:
    """A bad count is refused before anything runs, never a silent empty result."""
    jobs = [Job(Rules.profile("punjab", players=4), ("random",) * 4, seed) for seed in range(3)]
    with pytest.raises(ValueError, match="whole number"):
        run_jobs(jobs, workers=workers, chunk=chunk)  # type: ignore[arg-type]
    ray = pytest.importorskip("ray")
    from getaway.sim.ray_backend import run_jobs_ray

    with pytest.raises(ValueError, match="whole number"):
        run_jobs_ray(jobs, workers=workers, chunk=chunk)  # type: ignore[arg-type]
    assert not ray.is_initialized(), "refused before starting Ray"


def test_simulate_with_the_ray_backend_prints_the_local_summary() -> None:
    ray = pytest.importorskip("ray")
    from click.testing import CliRunner

    from getaway.text.cli import cli

    args = ["simulate", "--deals", "12", "--seed", "5", "--lang", "en"]
    try:
        local = CliRunner().invoke(cli, [*args, "--workers", "1"])
        on_ray = CliRunner().invoke(cli, [*args, "--backend", "ray", "--workers", "2"])
    finally:
        ray.shutdown()
    assert local.exit_code == 0, local.output
    assert on_ray.exit_code == 0, on_ray.output
    assert on_ray.output == local.output
