"""The learned evaluation (getaway.bots.learned): its encoding, the model file, the resumable
training and the expert's ``leaf="value"``."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import numpy as np
import pytest
from click.testing import CliRunner

from getaway import Deal, Rules, player_view
from getaway.bots import ExpertBot, make_bot
from getaway.bots.learned import ModelError, ValueModel, feature_size, features, leaf_key
from getaway.bots.learned.train import main as train_main


def _mid_deal(seed: int = 4, tricks: int = 3) -> Deal:
    """A punjab deal after ``tricks`` tricks of the heuristic's play, at a trick's start."""
    heuristic = make_bot("heuristic")
    deal = Deal(Rules.profile("punjab"), dealer=0, seed=seed)
    rng = random.Random(seed)
    while deal.tricks_played < tricks or deal.trick:
        view = player_view(deal, deal.to_act)
        deal.apply(heuristic.act(view, view.legal_actions, rng))
    assert not deal.is_over
    return deal


def test_the_key_is_the_deal_seen_from_the_seat():
    deal = _mid_deal()
    n = deal.players
    for me in range(n):
        key = leaf_key(deal, me)
        assert len(key) == 2 * n + 5
        assert [key[r] for r in range(n)] == [deal.hand_mask((me + r) % n) for r in range(n)]
        x = features([key], n)[0]
        hands = x[: n * 53].reshape(n, 53)
        assert [int(h.sum()) for h in hands] == [len(deal.hand((me + r) % n)) for r in range(n)]
        waste = x[2 * n * 53 : (2 * n + 1) * 53]
        assert {i for i in range(53) if waste[i]} == {int(c) for c in deal.waste}
        k = (2 * n + 1) * 53 + n
        assert x[k + (deal.leader - me) % n] == 1 and x[k : k + n].sum() == 1
    assert features([leaf_key(deal, 0)] * 3, n).shape == (3, feature_size(n))


def test_features_refuse_keys_of_another_seat_count():
    with pytest.raises(ValueError, match="rows of 13 integers for 4 seats"):
        features([leaf_key(_mid_deal(), 0)[:-1]], 4)


def test_a_model_round_trips_and_a_bad_file_is_refused(tmp_path):
    model = ValueModel.init(feature_size(4), (8,), np.random.default_rng(0), profile="punjab", players=4)
    path = tmp_path / "m.npz"
    model.save(path)
    again = ValueModel.load(path, players=4)
    x = features([leaf_key(_mid_deal(), 1)], 4)
    assert np.allclose(model.predict(x), again.predict(x)) and 0 < again.predict(x)[0] < 1
    with pytest.raises(ModelError, match="a model for 4 players, not 6"):
        ValueModel.load(path, players=6)
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(ModelError, match="not a value model"):
        ValueModel.load(tmp_path / "junk.npz")
    with pytest.raises(ModelError, match="not a value model"):
        ValueModel.load(tmp_path / "missing.npz")
    odd = ValueModel([(np.zeros((feature_size(4), 3), np.float32), np.zeros(2, np.float32))], {"players": 4})
    odd.save(tmp_path / "odd.npz")
    with pytest.raises(ModelError, match="layer 0"):
        ValueModel.load(tmp_path / "odd.npz")


def test_the_shipped_models_load_without_the_train_extra():
    code = (
        "import sys; from getaway.bots.learned import shipped; from getaway.bots import make_bot; "
        "m = shipped('punjab', 4); assert m is not None and m.meta['steps'] > 0, m; "
        "assert shipped('punjab', 7) is None; "
        "assert not {'torch', 'stable_baselines3', 'gymnasium'} & set(sys.modules), sorted(sys.modules)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def _tiny(tmp_path, *extra: str) -> list[str]:
    return [
        "--out",
        str(tmp_path),
        "--deals",
        "6",
        "--updates",
        "2",
        "--eval-every",
        "2",
        "--eval-deals",
        "1",
        "--eval-iterations",
        "2",
        "--held-out-deals",
        "4",
        "-q",
        *extra,
    ]


def test_training_resumes_exactly_where_it_stopped(tmp_path):
    runner = CliRunner()
    straight, split = tmp_path / "straight", tmp_path / "split"
    assert runner.invoke(train_main, [*_tiny(straight), "--steps", "4"]).exit_code == 0
    assert runner.invoke(train_main, [*_tiny(split), "--steps", "2"]).exit_code == 0
    refused = runner.invoke(train_main, [*_tiny(split), "--steps", "4"])
    assert refused.exit_code == 2 and "already holds a checkpoint" in refused.output
    assert runner.invoke(train_main, ["--out", str(split), "--steps", "4", "--resume", "-q"]).exit_code == 0
    a, b = ValueModel.load(straight / "model.npz"), ValueModel.load(split / "model.npz")
    assert a.meta["steps"] == b.meta["steps"] == 4
    assert all(
        np.array_equal(x, y) for la, lb in zip(a.layers, b.layers, strict=True) for x, y in zip(la, lb, strict=True)
    )
    rows = (split / "curve.csv").read_text().splitlines()
    assert rows[0].startswith("step,") and [r.split(",")[0] for r in rows[1:]] == ["2", "4"]
    assert (split / "curve.png").stat().st_size > 1000


def test_a_corrupt_checkpoint_is_refused_by_name(tmp_path):
    (tmp_path / "checkpoint.npz").write_bytes(b"\x00" * 50)
    result = CliRunner().invoke(train_main, ["--out", str(tmp_path), "--steps", "3", "--resume"])
    assert result.exit_code == 2 and "not a training checkpoint" in result.output
    empty = CliRunner().invoke(train_main, ["--out", str(tmp_path / "none"), "--steps", "3", "--resume"])
    assert empty.exit_code == 2 and "not a training checkpoint" in empty.output


class _Constant:
    """A stand-in model: every position loses with chance ``p``."""

    def __init__(self, p: float) -> None:
        self.p = p
        self.meta = {"players": 4, "profile": "punjab"}
        self.calls = 0

    def predict(self, x: np.ndarray) -> np.ndarray:
        self.calls += 1
        return np.full(len(x), self.p)


def _decision(seed: int = 11):
    deal = _mid_deal(seed)
    while len(deal.legal_actions()) < 3:
        deal.apply(deal.legal_actions()[0])
    return player_view(deal, deal.to_act)


def test_the_value_leaf_scores_positions_with_the_network_in_one_batch():
    view = _decision()
    for p in (0.0, 1.0):
        model = _Constant(p)
        bot = ExpertBot(iterations=40, leaf="value", leaf_tricks=0)
        bot.model = model  # type: ignore[assignment]
        losses, worlds = bot.estimate(view, view.legal_actions, random.Random(1))
        assert worlds and model.calls == 1
        # a world settled before the leaf keeps its true result; every other one is the network's p
        assert all(v == p for v in losses.values()) or p == 1.0 and max(losses.values()) == 1.0
    sure, doomed = (
        ExpertBot(iterations=40, leaf="value", leaf_tricks=0),
        ExpertBot(iterations=40, leaf="value", leaf_tricks=0),
    )
    sure.model, doomed.model = _Constant(0.0), _Constant(1.0)  # type: ignore[assignment]
    a = sure.estimate(view, view.legal_actions, random.Random(1))[0]
    b = doomed.estimate(view, view.legal_actions, random.Random(1))[0]
    assert a != b


def test_the_value_expert_is_deterministic_and_legal_and_checks_its_settings():
    view = _decision(12)
    a = make_bot("expert:leaf=value+iterations=40").act(view, view.legal_actions, random.Random(3))
    b = make_bot("expert:leaf=value+iterations=40").act(view, view.legal_actions, random.Random(3))
    assert a == b and a in view.legal_actions
    with pytest.raises(ValueError, match="needs rollout='heuristic'"):
        ExpertBot(leaf="value", rollout="light")
    with pytest.raises(ValueError, match="leaf_tricks: at least 0"):
        ExpertBot(leaf="value", leaf_tricks=-1)
    six = ValueModel.init(feature_size(6), (4,), np.random.default_rng(0), profile="punjab", players=6)
    with pytest.raises(ValueError, match="made for 6 players, not 4"):
        bot = ExpertBot(leaf="value")
        bot.model = six
        bot.act(view, view.legal_actions, random.Random(3))


def test_without_a_shipped_model_the_value_expert_plays_full_rollouts():
    deal = Deal(Rules.profile("punjab", players=7), dealer=0, seed=2)
    while len(deal.legal_actions()) < 2:
        deal.apply(deal.legal_actions()[0])
    view = player_view(deal, deal.to_act)
    rollouts = ExpertBot(iterations=20).act(view, view.legal_actions, random.Random(5))
    assert ExpertBot(iterations=20, leaf="value").act(view, view.legal_actions, random.Random(5)) == rollouts


def test_the_leaf_defaults_by_profile_and_the_expert_level_plays_the_value_at_classic():
    from getaway.bots.expert import LEAF

    classic, punjab = Rules.profile("classic"), Rules.profile("punjab")
    assert LEAF["classic"] == "value" and LEAF["punjab"] == "rollout"
    assert ExpertBot()._leaf(classic) == "value" and ExpertBot()._leaf(punjab) == "rollout"
    assert ExpertBot(rollout="light")._leaf(classic) == "rollout"  # the hard level: light rollouts
    assert ExpertBot(leaf="rollout")._leaf(classic) == "rollout"
    assert ExpertBot(leaf="value")._leaf(punjab) == "value"
    deal = Deal(classic, dealer=0, seed=9)
    rng = random.Random(9)
    while len(deal.legal_actions()) < 3:
        deal.apply(rng.choice(deal.legal_actions()))
    view = player_view(deal, deal.to_act)
    spent = []
    for spec in ("expert:iterations=40", "expert:leaf=value+iterations=40", "expert:leaf=rollout+iterations=40"):
        bot = make_bot(spec)
        losses, _ = bot.estimate(view, view.legal_actions, random.Random(4))
        spent.append(losses)
    # the expert level at classic is the value leaf, seed for seed; full rollouts score otherwise
    assert spent[0] == spent[1] != spent[2]


def test_truncated_empty_or_non_finite_model_files_are_refused_by_name(tmp_path):
    model = ValueModel.init(feature_size(4), (8,), np.random.default_rng(0), profile="punjab", players=4)
    model.save(tmp_path / "m.npz")
    whole = (tmp_path / "m.npz").read_bytes()
    (tmp_path / "cut.npz").write_bytes(whole[: len(whole) // 2])
    (tmp_path / "empty.npz").write_bytes(b"")
    for name in ("cut.npz", "empty.npz"):
        with pytest.raises(ModelError, match="not a value model"):
            ValueModel.load(tmp_path / name)
    model.layers[0][0][0, 0] = np.nan
    model.save(tmp_path / "nan.npz")
    with pytest.raises(ModelError, match="not finite"):
        ValueModel.load(tmp_path / "nan.npz")
    with pytest.raises(ValueError, match=r"expected shape \(B, 496\)"):
        model.predict(np.zeros(496, np.float32))


def test_a_key_out_of_range_and_a_model_of_another_profile_are_refused():
    key = list(leaf_key(_mid_deal(), 0))
    for i, bad in ((0, 1 << 60), (9, 4), (11, 1 << 4), (12, 8)):
        wrong = key.copy()
        wrong[i] = bad
        with pytest.raises(ValueError, match="out of range"):
            features([wrong], 4)
    with pytest.raises(ValueError, match="seat 4 does not exist"):
        leaf_key(_mid_deal(), 4)
    view = _decision(12)
    bot = ExpertBot(leaf="value")
    bot.model = ValueModel.init(feature_size(4), (4,), np.random.default_rng(0), profile="classic", players=4)
    with pytest.raises(ValueError, match="made for 'classic', not 'punjab'"):
        bot.act(view, view.legal_actions, random.Random(3))


def _edit_checkpoint(path, **changes):
    with np.load(path) as data:
        arrays = dict(data)
    state = json.loads(bytes(arrays["state"]).decode())
    for key, value in changes.items():
        if key in arrays:
            arrays[key] = value
        elif key in state["settings"]:
            state["settings"][key] = value
        else:
            state[key] = value
    arrays["state"] = np.frombuffer(json.dumps(state).encode(), dtype=np.uint8)
    np.savez(path, **arrays)


@pytest.mark.parametrize(
    "change, says",
    [
        ({"w0": np.zeros((100, 256), np.float32)}, "the first layer takes 100 features"),
        ({"keys": np.zeros((3, 4), np.uint64)}, "rows of 13 bit sets"),
        ({"players": 5}, "a model for 4 players, not 5"),
        ({"updates": 0}, "updates: 0 is out of range"),
        ({"rng": {"bit_generator": "nope"}}, "not a training checkpoint"),
    ],
)
def test_a_crafted_checkpoint_is_refused_before_training_and_left_as_it_was(tmp_path, change, says):
    runner = CliRunner()
    assert runner.invoke(train_main, [*_tiny(tmp_path), "--steps", "2"]).exit_code == 0
    path = tmp_path / "checkpoint.npz"
    _edit_checkpoint(path, **change)
    before = path.read_bytes()
    result = runner.invoke(train_main, ["--out", str(tmp_path), "--steps", "3", "--resume"])
    assert result.exit_code == 2 and says in result.output, result.output
    assert path.read_bytes() == before


def test_resume_names_the_options_it_ignores_and_refuses_a_broken_curve(tmp_path):
    runner = CliRunner()
    assert runner.invoke(train_main, [*_tiny(tmp_path), "--steps", "2"]).exit_code == 0
    again = runner.invoke(train_main, ["--out", str(tmp_path), "--steps", "2", "--resume", "--profile", "classic"])
    assert again.exit_code == 0 and "ignored with --resume" in again.output and "--profile" in again.output
    assert "nothing to do" in again.output
    (tmp_path / "curve.csv").write_text("step,positions\nabc,1\n")
    broken = runner.invoke(train_main, ["--out", str(tmp_path), "--steps", "3", "--resume"])
    assert broken.exit_code == 2 and "not a training curve" in broken.output
    assert runner.invoke(train_main, [*_tiny(tmp_path / "x"), "--steps", "1", "--seed", "-1"]).exit_code == 2
    missing = runner.invoke(train_main, ["--out", str(tmp_path / "none"), "--steps", "1", "--resume"])
    assert missing.exit_code == 2 and not (tmp_path / "none").exists()
