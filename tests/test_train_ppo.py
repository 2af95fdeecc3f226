"""examples/train_maskable_ppo.py and its bot (docs/envs.md, "Training with MaskablePPO").

The tests marked ``train`` need the ``train`` extra (torch, Stable-Baselines3, sb3-contrib) and
run with ``python3 dev.py test --train``; the others check the shipped weights with numpy only.
"""

from __future__ import annotations

import csv
import importlib
import json
from pathlib import Path

import pytest

np = pytest.importorskip("numpy", reason="the bot needs numpy (the test extra)")

from getaway.envs.encoding import observation_size  # noqa: E402
from getaway.envs.gym import GetawayEnv  # noqa: E402
from getaway.sim.tournament import run_tournament  # noqa: E402

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
BOT = "examples.maskable_ppo_bot:MaskablePPOBot"


@pytest.fixture
def examples_on_path(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.syspath_prepend(str(EXAMPLES))
    monkeypatch.syspath_prepend(str(EXAMPLES.parent))  # for the tournament's dotted name
    return importlib.import_module("maskable_ppo_bot")


def test_shipped_weights_play_through_the_tournament(examples_on_path) -> None:
    """The shipped actor loads by its ``module:Class`` name and plays legal duplicate deals."""
    layers = examples_on_path.load_policy(examples_on_path.DEFAULT_WEIGHTS)
    assert layers[0][0].shape[1] == observation_size(4) and layers[-1][0].shape[0] == 56
    assert examples_on_path.DEFAULT_WEIGHTS.stat().st_size < 1_000_000
    meta = json.loads(str(np.load(examples_on_path.DEFAULT_WEIGHTS)["meta"]))
    assert meta["seed"] == 1 and "train_maskable_ppo.py" in meta["command"]
    rules = GetawayEnv(profile="punjab", players=4).rules
    result = run_tournament(rules, [BOT, "random", "random", "random"], deals=8, seed=3)
    assert result.stats[0].bot == BOT and result.stats[0].deals == 8
    assert result.stats[0].decisions > 0


def test_bad_weights_are_refused(examples_on_path, tmp_path: Path) -> None:
    empty = tmp_path / "empty.npz"
    np.savez(empty, meta=np.array("{}"))
    with pytest.raises(ValueError, match="no policy layers"):
        examples_on_path.MaskablePPOBot(empty)
    narrow = tmp_path / "narrow.npz"
    np.savez(narrow, w0=np.zeros((8, 515), np.float32), b0=np.zeros(8, np.float32))
    with pytest.raises(ValueError, match="gives 8 logits, not 56"):
        examples_on_path.load_policy(narrow)
    broken = tmp_path / "broken.npz"
    np.savez(broken, w0=np.zeros((8, 515)), b0=np.zeros(8), w1=np.zeros((56, 9)), b1=np.zeros(56))
    with pytest.raises(ValueError, match="do not chain"):
        examples_on_path.load_policy(broken)


def test_the_bot_plays_only_legal_actions_at_the_highest_logit(examples_on_path, tmp_path: Path) -> None:
    """With logits that prefer action 53 (take) above all, the bot takes whenever it may, and
    otherwise plays the card with the highest logit among the legal ones."""
    rng = np.random.default_rng(0)
    w, b = np.zeros((56, 515), np.float32), rng.normal(size=56).astype(np.float32)
    b[53] = 100.0
    path = tmp_path / "take.npz"
    np.savez(path, w0=w, b0=b)
    bot = examples_on_path.MaskablePPOBot(path)
    env = GetawayEnv(profile="punjab", players=4, seat=0, opponents="random")
    from getaway.core.view import player_view

    env.reset(seed=5)
    decisions = 0
    while not env.deal.is_over and env.deal.to_act == 0:
        view = player_view(env.deal, 0)
        legal = view.legal_actions
        action = bot.act(view, legal, None)
        assert action in legal
        expected = 53 if 53 in [int(a) for a in legal] else max((int(a) for a in legal), key=lambda i: b[i])
        assert int(action) == expected
        decisions += 1
        _, _, terminated, _, _ = env.step(int(action))
        if terminated:
            break
    assert decisions >= 1


@pytest.mark.train
def test_a_few_hundred_steps_train_export_and_evaluate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The example end to end at a small size: training, the log, the exported actor (its numpy
    logits equal the torch policy's), checkpoints, the tournament evaluation and the plot."""
    pytest.importorskip("sb3_contrib", reason="needs the train extra: pip install -e '.[train]'")
    torch = pytest.importorskip("torch", reason="needs the train extra: pip install -e '.[train]'")
    monkeypatch.syspath_prepend(str(EXAMPLES))
    train = importlib.import_module("train_maskable_ppo")
    bot_module = importlib.import_module("maskable_ppo_bot")
    out = tmp_path / "run"
    args = ["--steps", "384", "--envs", "2", "--n-steps", "64", "--batch", "64", "--epochs", "1", "--net", "16"]
    args += ["--log-every", "128", "--checkpoint-every", "256", "--curve-deals", "4", "--deals", "8"]
    args += ["--opponents", "random", "--workers", "1", "--out", str(out)]
    assert train.main(args) == 0
    with (out / "train_log.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) >= 2 and all(0 <= float(r["loss_rate"]) <= 1 for r in rows)
    assert [int(r["steps"]) for r in rows] == sorted(int(r["steps"]) for r in rows)
    report = json.loads((out / "eval.json").read_text())
    assert report["train"]["seed"] == 1 and report["eval"]["random"]["deals"] == 8
    with (out / "checkpoints.csv").open() as fh:
        points = [int(r["steps"]) for r in csv.DictReader(fh)]
    assert points == [0, 256, 384]
    assert (out / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    layers = bot_module.load_policy(out / "policy.npz")
    assert [w.shape for w, _ in layers] == [(16, observation_size(4)), (56, 16)]
    model = train.MaskablePPO.load(out / "model.zip", device="cpu")
    env = GetawayEnv(profile="punjab", players=4, seat=0, opponents="random")
    observation, _ = env.reset(seed=2)
    with torch.no_grad():
        policy = model.policy
        x = torch.as_tensor(observation[None])
        expected = policy.action_net(policy.mlp_extractor.forward_actor(policy.extract_features(x))).numpy()
    assert np.allclose(bot_module.logits(layers, observation[None]), expected, atol=1e-5)

