"""Speed of the AI environments next to the engine's own (issue 7, docs/envs.md).

Rerun with::

    .venv/bin/python bench/envs.py                  # ~2 s per line (3 interleaved rounds, best kept)
    .venv/bin/python bench/envs.py --seconds 5 --profile classic --players 6
    .venv/bin/python bench/envs.py --cpu-time --rounds 8   # CPU time: steadier on a loaded machine
    .venv/bin/python bench/envs.py --cpu-time --seconds 6 --rounds 6 --only vector   # the engine and the vector env

Every line plays uniformly random legal deals (4-player punjab with takes off by default)
for about ``--seconds`` on one core and prints deals/s and the ratio to the engine's rate
measured in the same run:

- ``engine``: ``Deal`` + ``legal_actions`` + ``apply``, nothing else;
- ``engine, numpy masks``: the engine driven the way a PettingZoo agent drives it (a fresh
  ``int8`` mask array per step, a pick from ``mask.nonzero()``) with no adapter: the ceiling
  of any adapter that hands out numpy masks;
- ``engine, apply_id + numpy masks``: the same through ``Deal.apply_id`` (the action by id and
  the next mask in one engine call, what the PettingZoo adapter uses): its floor;
- ``pettingzoo, masks only``: the raw AEC env, ``last(observe=False)`` and the mask from
  ``infos[agent]["action_mask"]``: the adapter's own cost (target: ≥ 90 % of the line above);
- ``pettingzoo, observations``: the raw env with ``last()``: a player's view and the shared
  encoding at every step;
- ``pettingzoo, wrapped``: the same through ``env()`` (PettingZoo's checking wrappers);
- ``gymnasium``: one learner against three ``random`` bots (the bots read their views);
- ``openspiel``: ``python_getaway`` with its chance nodes (the 52 dealing steps included),
  no observations;
- ``vector env``: ``getaway.envs.vector`` with ``--batch`` deals (64 by default) stepped
  together, one learner against random bots in each, every learner's observation and mask at
  every step, the learner's actions drawn from the masks with numpy; its actions/s count every
  seat's actions, like the engine line's (target, issue 27: ≥ 25 % of the engine's actions/s).
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from getaway import NUM_ACTIONS, Deal, Rules, action_from_id

#: The clock of every line: wall time, or this process's CPU time (``--cpu-time``).
_clock = time.perf_counter


def _timed(run_one: Callable[[int], int], seconds: float) -> dict[str, float]:
    deals = actions = 0
    start = _clock()
    while True:
        actions += run_one(deals)
        deals += 1
        if deals % 10 == 0 and _clock() - start > seconds:
            break
    elapsed = _clock() - start
    return {"deals": deals, "deals_per_s": deals / elapsed, "actions_per_s": actions / elapsed}


def bench_engine(rules: Rules, seconds: float) -> dict[str, float]:
    rand = random.Random(0).random
    n = rules.players

    def one(i: int) -> int:
        deal = Deal(rules, i % n, i)
        legal_actions, apply = deal.legal_actions, deal.apply
        k = 0
        while not deal.is_over:
            legal = legal_actions()
            apply(legal[int(rand() * len(legal))])
            k += 1
        return k

    return _timed(one, seconds)


def bench_mask_floor(rules: Rules, seconds: float) -> dict[str, float]:
    """The engine driven as a PettingZoo agent drives it, with no adapter in between: each
    step wraps ``legal_mask()`` in a fresh int8 array and picks from ``mask.nonzero()``.
    No adapter that hands out numpy masks can beat this line."""
    rand = random.Random(0).random
    n = rules.players
    int8 = np.dtype(np.int8)
    actions = [action_from_id(i) for i in range(NUM_ACTIONS)]

    def one(i: int) -> int:
        deal = Deal(rules, i % n, i)
        legal_mask, apply = deal.legal_mask, deal.apply
        k = 0
        while not deal.is_over:
            legal = np.ndarray(NUM_ACTIONS, int8, legal_mask()).nonzero()[0]
            apply(actions[int(legal[int(rand() * len(legal))])])
            k += 1
        return k

    return _timed(one, seconds)


def bench_mask_floor_apply_id(rules: Rules, seconds: float) -> dict[str, float]:
    """The same through ``Deal.apply_id`` (one engine call a step: the action by id, the next
    mask back), which the PettingZoo adapter uses: the floor of an adapter built on it."""
    rand = random.Random(0).random
    n = rules.players
    int8 = np.dtype(np.int8)

    def one(i: int) -> int:
        deal = Deal(rules, i % n, i)
        apply_id = deal.apply_id
        flags = deal.legal_mask()
        k = 0
        while not deal.is_over:
            legal = np.ndarray(NUM_ACTIONS, int8, flags).nonzero()[0]
            flags = apply_id(int(legal[int(rand() * len(legal))]))
            k += 1
        return k

    return _timed(one, seconds)


def bench_pettingzoo(options: dict[str, Any], seconds: float, observe: bool, wrapped: bool) -> dict[str, float]:
    from getaway.envs.pettingzoo import env, raw_env

    e = env(**options) if wrapped else raw_env(**options)
    rand = random.Random(0).random

    def one(i: int) -> int:
        e.reset(seed=0 if i == 0 else None)  # seeded once, as Gymnasium advises
        k = 0
        for _agent in e.agent_iter():
            if observe:
                obs, _, term, trunc, _ = e.last()
                mask = None if term or trunc else obs["action_mask"]
            else:
                _, _, term, trunc, info = e.last(observe=False)
                mask = None if term or trunc else info["action_mask"]
            if mask is None:
                e.step(None)
                continue
            legal = mask.nonzero()[0]
            e.step(int(legal[int(rand() * len(legal))]))
            k += 1
        return k

    return _timed(one, seconds)


def bench_gym(options: dict[str, Any], seconds: float) -> dict[str, float]:
    from getaway.envs.gym import GetawayEnv

    e = GetawayEnv(opponents="random", **options)
    rand = random.Random(0).random

    def one(i: int) -> int:
        _, info = e.reset(seed=i)
        done, k = False, 0
        while not done:
            legal = np.flatnonzero(info["action_mask"])
            _, _, done, _, info = e.step(int(legal[int(rand() * len(legal))]))
            k += 1
        return k

    return _timed(one, seconds)


def bench_vector(options: dict[str, Any], seconds: float, batch: int) -> dict[str, float]:
    """The vector environment (``getaway.envs.vector``): ``batch`` deals, a learner against
    random bots in each, an observation and a mask of every deal at every step, the learner's
    actions drawn uniformly from the masks with numpy. Its actions are every seat's (the bots' too, as in
    the ``engine`` line); ``observations_per_s`` counts the learner's observations."""
    from getaway.envs.vector import GetawayVectorEnv

    envs = GetawayVectorEnv(num_envs=batch, opponents="random", **options)
    rng = np.random.default_rng(0)
    _, infos = envs.reset(seed=0)
    deals = steps = 0
    first = envs.batch.actions
    start = _clock()
    while True:
        # a uniformly random legal action per deal: the (k+1)-th legal id, k uniform below the count
        # (a deal to be dealt again has no legal action: id 0, ignored)
        cum = infos["action_mask"].cumsum(axis=1)
        k = (rng.random(batch) * cum[:, -1]).astype(np.int64)
        _, _, terms, _, infos = envs.step(np.argmax(cum > k[:, None], axis=1))
        deals += int(terms.sum())
        steps += 1
        if steps % 10 == 0 and _clock() - start > seconds:
            break
    elapsed = _clock() - start
    actions = envs.batch.actions - first
    return {
        "deals": deals,
        "deals_per_s": deals / elapsed,
        "actions_per_s": actions / elapsed,
        "observations_per_s": steps * batch / elapsed,
    }


def bench_openspiel(options: dict[str, Any], seconds: float) -> dict[str, float]:
    import pyspiel

    import getaway.envs.openspiel  # noqa: F401  (registers python_getaway)

    game = pyspiel.load_game("python_getaway", options)
    rand = random.Random(0).random

    def one(i: int) -> int:
        state = game.new_initial_state()
        k = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(rand() * len(outcomes))][0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[int(rand() * len(legal))])
                k += 1
        return k

    return _timed(one, seconds)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=2.0, help="time per line (default 2)")
    parser.add_argument("--profile", default="punjab", choices=("punjab", "classic"))
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds; the best of each line counts")
    parser.add_argument("--batch", type=int, default=64, help="deals of the vector environment's batch (default 64)")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    parser.add_argument(
        "--only", metavar="WORDS", help="only the lines whose name contains one of these comma-separated words"
    )
    parser.add_argument(
        "--cpu-time",
        action="store_true",
        help="time each line by this process's CPU time (steadier on a shared, loaded machine)",
    )
    args = parser.parse_args(argv)
    if args.cpu_time:
        global _clock
        _clock = time.process_time
    if args.rounds < 1 or args.seconds <= 0 or args.batch < 1:
        parser.error("--rounds, --batch: at least 1; --seconds: more than 0")
    options: dict[str, Any] = {"profile": args.profile, "players": args.players, "takes": "off"}
    try:
        rules = Rules.profile(args.profile, players=args.players, takes="off")
    except ValueError as exc:  # RulesError: e.g. punjab with 2 players
        parser.error(str(exc))
    from getaway.core._engine import COMPILED

    engine_build = "compiled engine (mypyc)" if COMPILED else "pure-Python engine"
    python = f"Python {platform.python_version()}, {platform.machine()}"
    clock = "CPU time" if args.cpu_time else "wall time"
    print(f"getaway environments benchmark: {python}, one core, {engine_build}, {clock}")
    print(f"{args.profile}, {args.players} players, takes off, uniformly random legal play")
    print(f"{'':31} {'deals/s':>9} {'actions/s':>10} {'of engine':>10}")
    sec = args.seconds / args.rounds
    lines: list[tuple[str, Callable[[], dict[str, float] | None]]] = [
        ("engine", lambda: bench_engine(rules, sec)),
        ("engine, numpy masks", lambda: bench_mask_floor(rules, sec)),
        ("pettingzoo, masks only", lambda: _optional(bench_pettingzoo, options, sec, False, False)),
        ("pettingzoo, observations", lambda: _optional(bench_pettingzoo, options, sec, True, False)),
        ("pettingzoo, wrapped", lambda: _optional(bench_pettingzoo, options, sec, True, True)),
        ("gymnasium (vs random bots)", lambda: _optional(bench_gym, options, sec)),
        ("openspiel (with chance)", lambda: _optional(bench_openspiel, options, sec)),
        (f"vector env, B={args.batch}", lambda: _optional(bench_vector, options, sec, args.batch)),
    ]
    if hasattr(Deal, "apply_id"):  # (an engine before issue 12 has no apply_id: the bench runs on it too)
        lines.insert(2, ("engine, apply_id + numpy masks", lambda: bench_mask_floor_apply_id(rules, sec)))
    if args.only:
        words = [w.strip() for w in args.only.split(",") if w.strip()]
        lines = [line for line in lines if line[0] == "engine" or any(w in line[0] for w in words)]
    # Rounds interleave the lines so that a burst of load on a shared machine hits them all;
    # each line keeps its best round.
    best: dict[str, dict[str, float] | None] = {}
    for _ in range(args.rounds):
        for name, run in lines:
            r = run()
            if r is None or name not in best or (best[name] and r["deals_per_s"] > best[name]["deals_per_s"]):
                best[name] = r
    results: dict[str, Any] = {}
    engine = 0.0
    for name, _ in lines:
        r = best[name]
        if r is None:
            print(f"{name:31} {'not installed':>9}")
            continue
        engine = engine or r["deals_per_s"]
        r["ratio_to_engine"] = r["deals_per_s"] / engine
        results[name] = r
        print(f"{name:31} {r['deals_per_s']:>9,.0f} {r['actions_per_s']:>10,.0f} {r['ratio_to_engine']:>9.0%}")
    if "pettingzoo, masks only" in results and "engine, numpy masks" in results:
        ratio = results["pettingzoo, masks only"]["deals_per_s"] / results["engine, numpy masks"]["deals_per_s"]
        print(f"\ntarget (issue 12): 'pettingzoo, masks only' ≥ 90% of the 'engine, numpy masks' line: {ratio:.0%}")
        if "engine, apply_id + numpy masks" in results:
            floor = (
                results["pettingzoo, masks only"]["deals_per_s"]
                / results["engine, apply_id + numpy masks"]["deals_per_s"]
            )
            print(f"('pettingzoo, masks only' against the 'engine, apply_id + numpy masks' line: {floor:.0%})")
    if "pettingzoo, observations" in results:
        ratio = results["pettingzoo, observations"]["ratio_to_engine"]
        print(f"target (issue 12): 'pettingzoo, observations' ≥ 25% of the engine: {ratio:.0%}")
    vector = results.get(f"vector env, B={args.batch}")
    if vector is not None:
        ratio = vector["actions_per_s"] / results["engine"]["actions_per_s"]
        vector["actions_ratio_to_engine"] = ratio
        print(
            f"target (issue 27): 'vector env' ≥ 25% of the engine's actions/s, an observation every step:"
            f" {ratio:.0%} ({vector['observations_per_s']:,.0f} observations/s)"
        )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"options": options, "compiled": COMPILED, "results": results}, fh, indent=2)
    return 0


def _optional(fn: Callable[..., dict[str, float]], *args: Any) -> dict[str, float] | None:
    try:
        return fn(*args)
    except ImportError:
        return None


if __name__ == "__main__":
    sys.exit(main())
