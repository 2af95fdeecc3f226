"""The compiled engine (setup.py: ``deal.py`` compiled with mypyc) behaves exactly as its source.

CI runs the whole suite against the compiled build (``GETAWAY_REQUIRE_COMPILED=1`` in
.ci/run); these tests add what only a second build can show: the same deals, events, views
and refusals from ``deal.py`` run as Python (``GETAWAY_PURE_PYTHON=1``, in a subprocess),
and the few places where the source does by hand what the standard library or the
``cards`` module would do.
"""

from __future__ import annotations

import ast
import copy
import hashlib
import json
import os
import pickle
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import getaway
from getaway import TAKE, Deal, Rules, cards_of, player_view
from getaway.core import deal as deal_module
from getaway.core._engine import COMPILED, MODULES

SRC = Path(getaway.__file__).resolve().parent.parent


def test_the_compiled_engine_runs_where_ci_requires_it() -> None:
    if os.environ.get("GETAWAY_REQUIRE_COMPILED") == "1":
        assert COMPILED, "getaway.core.deal is not the compiled module: did `pip install -e .` compile it?"
    assert getaway.core.deal.__file__.endswith(".py") is not COMPILED


def test_cards_listing_is_cards_of() -> None:
    rng = random.Random(5)
    masks = [0, (1 << 53) - 1, 1 << 52] + [rng.getrandbits(53) for _ in range(2000)]
    masks += [rng.getrandbits(53) & rng.getrandbits(53) & rng.getrandbits(53) for _ in range(2000)]
    for mask in masks:
        assert deal_module._cards_of(mask) == cards_of(mask), hex(mask)
        assert deal_module._card_list(mask) == list(cards_of(mask))


@pytest.mark.parametrize("length", [0, 1, 2, 13, 39, 51, 52, 53])
def test_shuffle_is_random_shuffle(length: int) -> None:
    for seed in range(300):
        ours, theirs = list(range(length)), list(range(length))
        a, b = random.Random(seed), random.Random(seed)
        deal_module._shuffle(a, ours)
        b.shuffle(theirs)
        assert ours == theirs, (length, seed)
        assert a.getstate() == b.getstate()  # the blind draws that follow are the same too


def test_a_clone_is_the_same_deal_and_independent() -> None:
    rules = Rules.profile("punjab", players=5, takes="any", take_protocol="interject", trump="spades", dehla=True)
    rng = random.Random(3)
    for seed in range(40):
        deal = Deal(rules, seed % 5, seed)
        while not deal.is_over:
            if rng.random() < 0.2:
                twin = deal.clone()
                assert twin.snapshot() == deal.snapshot() and player_view(twin, 0) == player_view(deal, 0)
                if not COMPILED:
                    assert set(vars(twin)) == set(vars(deal))  # clone() copies every attribute
                    # the containers are copies, not shared
                    shared = [k for k, v in vars(deal).items() if isinstance(v, (list, dict)) and v is vars(twin)[k]]
                    assert not shared
                legal = deal.legal_actions()
                action = legal[rng.randrange(len(legal))]
                if action is TAKE and rng.random() < 0.8:
                    action = legal[0]
                before = deal.snapshot()
                twin_events = twin.apply(action)
                assert deal.snapshot() == before  # the original did not move
                assert deal.apply(action) == twin_events and deal.snapshot() == twin.snapshot()
                continue
            legal = deal.legal_actions()
            deal.apply(legal[rng.randrange(len(legal))] if legal[0] is not TAKE or rng.random() < 0.1 else legal[-1])


def test_pickle_and_copies_keep_the_state() -> None:
    rules = Rules.profile("classic", players=4, trump="spades", takes="off")
    deal = Deal(rules, 1, 9)
    rng = random.Random(2)
    for _ in range(30):
        legal = deal.legal_actions()
        deal.apply(legal[rng.randrange(len(legal))])
    for other in (pickle.loads(pickle.dumps(deal)), copy.deepcopy(deal), copy.copy(deal)):
        assert isinstance(other, Deal) and other.snapshot() == deal.snapshot()
    twin = copy.deepcopy(deal)
    while not deal.is_over:
        legal = deal.legal_actions()
        action = legal[rng.randrange(len(legal))]
        assert deal.apply(action) == twin.apply(action)
    assert twin.snapshot() == deal.snapshot()


_DIGEST = r"""
import hashlib, json, random, sys
from getaway import Deal, Rules, TAKE
from getaway.core._engine import COMPILED
from getaway import player_view, Knowledge
from getaway.core.observation import seat_observation
h = hashlib.sha256()
rng = random.Random(11)
rule_sets = [
    Rules.profile(p, players=n, takes=t, take_protocol=tp, enforcement=e, **v)
    for p, n in (("punjab", 3), ("punjab", 4), ("punjab", 7), ("classic", 2), ("classic", 4), ("classic", 6))
    for t, tp in (("off", "poll"), ("any", "poll"), ("any", "interject"))
    for e in ("strict", "penalize")
    for v in ({}, {"trump": "spades"}, {"nopickup": True, "dehla": True}, {"kicker": True, "joker": True})
]
for rules in rule_sets:
    for d in range(int(sys.argv[1])):
        deal = Deal(rules, d % rules.players, d)
        while not deal.is_over:
            seat = deal.to_act if rng.random() < 0.9 else rng.randrange(rules.players)
            legal = deal.legal_actions(seat)
            h.update(deal.legal_mask(seat))
            if not legal or rng.random() < 0.03:  # anything at all, legal or not
                try:
                    h.update(repr(deal.apply(rng.randrange(56), seat)).encode())
                except ValueError as exc:
                    h.update(str(exc).encode())
                continue
            action = legal[rng.randrange(len(legal))]
            if action is TAKE and rng.random() < 0.8:
                action = legal[-1] if legal[-1] is not TAKE else action
            h.update(repr(deal.apply(action, seat)).encode())
            if rng.random() < 0.05:
                h.update(repr(player_view(deal, deal.to_act)).encode())
                if deal.to_act is not None:  # the knowledge and the observation (both compiled too)
                    seen = Knowledge.of(deal, deal.to_act)
                    h.update(seat_observation(deal, deal.to_act, seen))
                    h.update(repr((seen.known, seen.voids, seen.void_suits(), seen.hidden, seen.waste)).encode())
        h.update(json.dumps(deal.snapshot(), sort_keys=True).encode())
        h.update(repr((deal.outcome, deal.actions)).encode())
# explicit chance (chance steps chosen here) and push/pop probes
for rules in rule_sets[::5]:
    for d in range(int(sys.argv[1])):
        deal = Deal(rules, d % rules.players, d, explicit_chance=True)
        while not deal.is_over:
            if deal.decision == "draw":
                outcomes = deal.chance_outcomes()
                h.update(repr(deal.apply(outcomes[rng.randrange(len(outcomes))][0])).encode())
                continue
            legal = deal.legal_actions()
            action = legal[rng.randrange(len(legal))]
            if action is TAKE and rng.random() < 0.8:
                action = legal[-1] if legal[-1] is not TAKE else action
            if rng.random() < 0.2:
                h.update(repr(deal.push(action)).encode())
                h.update(json.dumps(deal.snapshot(), sort_keys=True).encode())
                deal.pop()
            h.update(repr(deal.apply(action)).encode())
        h.update(json.dumps(deal.snapshot(), sort_keys=True).encode())
print(json.dumps({"compiled": COMPILED, "digest": h.hexdigest()}))
"""


def _digest(pure: bool, deals: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("GETAWAY_PURE_PYTHON", None)
    if pure:
        env["GETAWAY_PURE_PYTHON"] = "1"
    out = subprocess.run([sys.executable, "-c", _DIGEST, str(deals)], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.mark.skipif(not COMPILED, reason="the engine is not compiled here: nothing to compare")
def test_the_compiled_engine_gives_the_same_deals_events_views_and_errors_as_its_source() -> None:
    compiled, source = _digest(False, 3), _digest(True, 3)
    assert compiled["compiled"] and not source["compiled"]
    assert compiled["digest"] == source["digest"]


def test_a_stale_compiled_engine_is_not_used(tmp_path: Path) -> None:
    """An editable install leaves the compiled module beside deal.py: once deal.py changes,
    ``import getaway`` runs the source (with a warning) until the next build."""
    if not COMPILED:
        pytest.skip("the engine is not compiled here")
    here = Path(getaway.__file__).parent
    shutil.copytree(here, tmp_path / "getaway", ignore=shutil.ignore_patterns("__pycache__", "static", "locale"))
    package = tmp_path / "getaway" / "core"
    probe = "import getaway, getaway.core._engine as e; print(e.COMPILED, getaway.core.deal.__file__)"
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    env.pop("GETAWAY_PURE_PYTHON", None)

    def run() -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, cwd=tmp_path)

    fresh = run()
    assert fresh.stdout.startswith("True ") and not fresh.stderr, fresh.stderr
    source = (package / "deal.py").read_bytes()
    with open(package / "deal.py", "a", encoding="utf-8") as fh:
        fh.write("\n# edited after the build\n")
    stale = run()
    assert stale.stdout.split() == ["False", str(package / "deal.py")]
    assert "compiled from another version of deal.py" in stale.stderr
    record = json.loads((package / "_compiled.json").read_text())
    assert record["deal.py"] != hashlib.sha256((package / "deal.py").read_bytes()).hexdigest()
    # the source as built, but the compiled code's library gone: the source again, not a crash
    (package / "deal.py").write_bytes(source)
    for library in package.glob("_native__mypyc*"):
        library.unlink()
    broken = run()
    assert broken.stdout.split() == ["False", str(package / "deal.py")]
    assert "cannot be imported" in broken.stderr


def test_every_compiled_module_is_checked_and_the_group_runs_from_source_when_one_is_stale(tmp_path: Path) -> None:
    """setup.py compiles the modules _engine.py checks; editing any one of them (here
    knowledge.py, then observation.py) makes every module of the group run from its source."""
    root = SRC.parent
    compiled_paths = [f"src/getaway/core/{name}.py" for name in MODULES]
    # _engine.py's MODULES is the one list: setup.py and dev.py read it from its source
    for script, function in (("setup.py", "compiled_modules"), ("dev.py", "compiled_sources")):
        text = (root / script).read_text(encoding="utf-8")
        found = [n for n in ast.parse(text).body if isinstance(n, ast.FunctionDef) and n.name == function]
        assert found, f"{script} has no {function}()"
        namespace: dict = {"ast": ast, "Path": Path, "ROOT": root}
        exec(compile(ast.Module(body=found, type_ignores=[]), script, "exec"), namespace)
        assert (namespace[function](root) if script == "setup.py" else namespace[function]()) == compiled_paths
    assert "COMPILED = compiled_modules(" in (root / "setup.py").read_text(encoding="utf-8")
    if not COMPILED:
        pytest.skip("the engine is not compiled here")
    here = Path(getaway.__file__).parent
    package = tmp_path / "getaway" / "core"
    probe = (
        "import getaway, getaway.core._engine as e, getaway.core.deal as d, getaway.core.knowledge as k,"
        " getaway.core.observation as o, getaway.core.batch as b;"
        " print(e.COMPILED, d.__file__, k.__file__, o.__file__, b.__file__)"
    )
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    env.pop("GETAWAY_PURE_PYTHON", None)
    for edited in ("knowledge.py", "observation.py"):
        shutil.rmtree(tmp_path / "getaway", ignore_errors=True)
        shutil.copytree(here, tmp_path / "getaway", ignore=shutil.ignore_patterns("__pycache__", "static", "locale"))
        with open(package / edited, "a", encoding="utf-8") as fh:
            fh.write("\n# edited after the build\n")
        out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, cwd=tmp_path)
        sources = [str(package / f"{name}.py") for name in ("deal", "knowledge", "observation", "batch")]
        assert out.stdout.split() == ["False", *sources]
        assert f"compiled from another version of {edited}" in out.stderr
