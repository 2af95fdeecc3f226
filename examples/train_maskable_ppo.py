"""Train sb3-contrib's MaskablePPO on the Gymnasium environment (punjab, 4 players), on the CPU.

Needs the ``train`` extra (torch, Stable-Baselines3, sb3-contrib: ``pip install -e '.[train]'``)::

    nice -n 10 .venv/bin/python examples/train_maskable_ppo.py --steps 1500000 --seed 1 --out runs/ppo
    .venv/bin/python examples/train_maskable_ppo.py --eval-only runs/ppo/policy.npz --deals 1000

The learner sits at a random seat of ``GetawayEnv`` against three ``random`` bots (one episode
is one deal) and sees the shared encoding; the action mask is the environment's
``info["action_mask"]``. The environment's reward is terminal and sparse (the loser −1, the
others +1/3); ``--shaping K`` adds potential-based shaping with the potential −K × (the
learner's cards in hand), so picking up a trick costs K a card at once and shedding one pays
K, while every episode's shaped return differs from the plain one by the same constant
(13 K; with the discount, almost): the best policy is unchanged (Ng, Harada and Russell, 1999).

Every ``--log-every`` steps a row goes to ``OUT/train_log.csv``: steps, training episodes
finished, the loss rate of the episodes since the last row (the sampling policy, against
``random``), elapsed seconds and steps per second; ``OUT/curve.png`` plots it. At the end the
actor is exported to ``OUT/policy.npz`` (numpy only: ``examples/maskable_ppo_bot.py`` plays it as
the bot ``examples.maskable_ppo_bot:MaskablePPOBot``, greedily) and played through the tournament
harness (:func:`getaway.sim.tournament.run_tournament`, duplicate deals) against three ``random``
and against three ``heuristic``; the results go to ``OUT/eval.json``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.utils import set_random_seed
from stable_baselines3.common.vec_env import DummyVecEnv

from getaway.envs.encoding import layout
from getaway.envs.gym import GetawayEnv
from getaway.sim.tournament import run_tournament

HERE = Path(__file__).resolve().parent
BOT = "examples.maskable_ppo_bot:MaskablePPOBot"  # a dotted module:Class name, the repository on sys.path


class Shaped(gymnasium.Wrapper):
    """``GetawayEnv`` with its mask as ``action_masks()`` (what MaskablePPO asks), potential-based
    shaping ``K × (cards before − cards after)`` added to each step's reward (the potential is 0
    at the end), and ``info["lost"]`` (bool) at the end of each episode from the plain reward."""

    def __init__(self, env: GetawayEnv, shaping: float) -> None:
        super().__init__(env)
        self.shaping = shaping
        self._size = layout(env.rules.players)["hand_sizes"][0]  # offset of the seat's own card count
        self._mask = np.zeros(env.action_space.n, dtype=bool)
        self._cards = 0.0

    def _cards_in(self, obs: np.ndarray) -> float:
        return float(obs[self._size]) * 53.0

    def reset(self, **kwargs: Any) -> tuple[np.ndarray, dict]:
        obs, info = self.env.reset(**kwargs)
        self._mask = info["action_mask"].astype(bool)
        self._cards = self._cards_in(obs)
        return obs, info

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        obs, reward, terminated, truncated, info = self.env.step(int(action))
        self._mask = info["action_mask"].astype(bool)
        cards = 0.0 if terminated or truncated else self._cards_in(obs)
        shaped = reward + self.shaping * (self._cards - cards)
        self._cards = cards
        if terminated or truncated:
            info["lost"] = reward < 0
        return obs, shaped, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        return self._mask


class LossLog(BaseCallback):
    """Writes a row to ``path`` every ``every`` steps: the loss rate of the episodes since the last row."""

    def __init__(self, path: Path, every: int, checkpoint_every: int = 0, meta: dict | None = None) -> None:
        super().__init__()
        self.path, self.every = path, every
        self.checkpoint_every, self.meta = checkpoint_every, meta or {}
        self.next_checkpoint = checkpoint_every
        self.episodes = self.losses = self.total = 0
        self.next_row = every
        self.start = time.perf_counter()

    def _on_training_start(self) -> None:
        with self.path.open("w", newline="") as fh:
            csv.writer(fh).writerow(["steps", "episodes", "window_episodes", "loss_rate", "elapsed_s", "steps_per_s"])
        if self.checkpoint_every:  # the untrained policy, for the curve's first point
            export_policy(self.model, self.path.with_name("ckpt_00000000.npz"), self.meta)

    def _on_step(self) -> bool:
        for info in self.locals["infos"]:
            if "lost" in info:
                self.episodes += 1
                self.losses += info["lost"]
        if self.num_timesteps >= self.next_row and self.episodes:
            elapsed = time.perf_counter() - self.start
            self.total += self.episodes
            row = [self.num_timesteps, self.total, self.episodes, round(self.losses / self.episodes, 4)]
            row += [round(elapsed, 1), round(self.num_timesteps / elapsed, 1)]
            with self.path.open("a", newline="") as fh:
                csv.writer(fh).writerow(row)
            if self.verbose:
                print(f"steps {row[0]:>8}  episodes {row[1]:>6}  loss {row[3]:6.1%}  {row[5]:7.1f} steps/s", flush=True)
            self.episodes = self.losses = 0
            self.next_row += self.every
        if self.checkpoint_every and self.num_timesteps >= self.next_checkpoint:
            export_policy(self.model, self.path.with_name(f"ckpt_{self.num_timesteps:08d}.npz"), self.meta)
            self.next_checkpoint += self.checkpoint_every
        return True


def export_policy(model: MaskablePPO, path: Path, meta: dict[str, Any]) -> None:
    """Write the actor (hidden layers, then the action logits) as ``w0, b0, …`` float32 arrays."""
    policy = model.policy
    linears = [m for m in policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
    linears.append(policy.action_net)
    arrays = {}
    for k, layer in enumerate(linears):
        arrays[f"w{k}"] = layer.weight.detach().cpu().numpy().astype(np.float32)
        arrays[f"b{k}"] = layer.bias.detach().cpu().numpy().astype(np.float32)
    np.savez_compressed(path, meta=np.array(json.dumps(meta)), **arrays)


def plot(log: Path, out: Path, title: str, checkpoints: Path | None = None) -> None:
    """The loss rate against training steps, from the training log (and the greedy policy's
    checkpoints evaluated in the tournament harness, when ``checkpoints`` exists)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with log.open() as fh:
        rows = list(csv.DictReader(fh))
    steps = [int(r["steps"]) for r in rows]
    rate = [100 * float(r["loss_rate"]) for r in rows]
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(steps, rate, label="training episodes (sampling policy) vs 3 random")
    if checkpoints is not None and checkpoints.exists():
        with checkpoints.open() as fh:
            points = list(csv.DictReader(fh))
        ax.errorbar(
            [int(p["steps"]) for p in points],
            [100 * float(p["loss_rate"]) for p in points],
            yerr=[
                [100 * (float(p["loss_rate"]) - float(p["ci_low"])) for p in points],
                [100 * (float(p["ci_high"]) - float(p["loss_rate"])) for p in points],
            ],
            fmt="o",
            capsize=3,
            label=f"checkpoints, greedy, vs 3 random ({points[0]['deals'] if points else 0} duplicate deals, 95 % CI)",
        )
    ax.axhline(25, color="grey", linestyle=":", label="fair share 25 %")
    ax.axhline(15, color="red", linestyle="--", label="target 15 %")
    ax.set_xlabel("training steps (learner decisions)")
    ax.set_ylabel("loss rate (%)")
    ax.set_ylim(0, max(60, max(rate, default=0) + 5))
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)


def evaluate(weights: Path, rules: Any, deals: int, seed: int, workers: int, opponents: tuple[str, ...]) -> dict:
    """The bot's loss rate against three of each opponent, through the tournament harness."""
    os.environ["GETAWAY_PPO_WEIGHTS"] = str(weights)  # for the bot, in this process and the workers
    if str(HERE.parent) not in sys.path:
        sys.path.insert(0, str(HERE.parent))
    report = {}
    for opponent in opponents:
        start = time.perf_counter()
        result = run_tournament(rules, [BOT] + [opponent] * (rules.players - 1), deals, seed=seed, workers=workers)
        me = result.stats[0]
        report[opponent] = {
            "deals": me.deals,
            "losses": me.losses,
            "loss_rate": me.loss_rate,
            "ci95": [me.ci_low, me.ci_high],
            "avg_place": me.avg_place,
            "opponent_loss_rate": result.stats[1].loss_rate,
            "seconds": round(time.perf_counter() - start, 1),
        }
        print(
            f"vs 3 {opponent:<10} {me.deals} deals: loss {me.loss_rate:.1%} (95 % CI {me.ci_low:.1%}–{me.ci_high:.1%}),"
            f" avg place {me.avg_place:.2f}; each {opponent} loses {result.stats[1].loss_rate:.1%}",
            flush=True,
        )
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=1_500_000, help="training steps (learner decisions)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("runs/ppo"))
    parser.add_argument("--envs", type=int, default=8, help="environments stepped together (one process)")
    parser.add_argument("--n-steps", type=int, default=256, help="steps per environment per update")
    parser.add_argument("--batch", type=int, default=512)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--ent", type=float, default=0.01, help="entropy coefficient")
    parser.add_argument("--net", default="128,128", help="hidden layers of the actor and the critic")
    parser.add_argument("--shaping", type=float, default=0.02, help="K: reward per card shed (0: the plain reward)")
    parser.add_argument("--log-every", type=int, default=10_000)
    parser.add_argument("--deals", type=int, default=1000, help="duplicate deals per evaluation")
    parser.add_argument("--eval-seed", type=int, default=7)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--opponents", default="random,heuristic", help="evaluation opponents ('' = none)")
    parser.add_argument("--checkpoint-every", type=int, default=150_000, help="save the actor every N steps (0: never)")
    parser.add_argument("--curve-deals", type=int, default=200, help="duplicate deals per checkpoint vs random")
    parser.add_argument("--eval-only", type=Path, help="evaluate these weights (.npz) and stop")
    args = parser.parse_args(argv)

    rules = GetawayEnv(profile="punjab", players=4).rules
    opponents = tuple(filter(None, args.opponents.split(",")))
    if args.eval_only:
        evaluate(args.eval_only, rules, args.deals, args.eval_seed, args.workers, opponents)
        return 0

    args.out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(1)
    set_random_seed(args.seed)

    def factory(i: int):  # noqa: ANN202
        return lambda: Shaped(GetawayEnv(profile="punjab", players=4, seat="random", opponents="random"), args.shaping)

    env = DummyVecEnv([factory(i) for i in range(args.envs)])
    env.seed(args.seed)
    net = [int(x) for x in args.net.split(",")]
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=args.n_steps,
        batch_size=args.batch,
        n_epochs=args.epochs,
        learning_rate=args.lr,
        gamma=args.gamma,
        ent_coef=args.ent,
        policy_kwargs={"net_arch": {"pi": net, "vf": net}},
        seed=args.seed,
        device="cpu",
        verbose=0,
    )
    log = args.out / "train_log.csv"
    command = "python examples/train_maskable_ppo.py " + " ".join(argv if argv is not None else sys.argv[1:])
    callback = LossLog(log, args.log_every, args.checkpoint_every, {"seed": args.seed, "command": command})
    callback.verbose = 1
    start = time.perf_counter()
    model.learn(total_timesteps=args.steps, callback=callback)
    train_seconds = time.perf_counter() - start
    meta = {"seed": args.seed, "steps": model.num_timesteps, "train_seconds": round(train_seconds, 1)}
    meta |= {"command": command, "args": {k: str(v) for k, v in vars(args).items()}}
    weights = args.out / "policy.npz"
    export_policy(model, weights, meta)
    model.save(args.out / "model.zip")  # the whole model (critic, optimizer) to go on training; not needed to play
    print(f"trained {model.num_timesteps} steps in {train_seconds:.0f} s; actor written to {weights}", flush=True)
    points = args.out / "checkpoints.csv"
    if args.curve_deals:
        with points.open("w", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(["steps", "deals", "loss_rate", "ci_low", "ci_high"])
            checkpoints = {int(path.stem[5:]): path for path in sorted(args.out.glob("ckpt_*.npz"))}
            checkpoints[model.num_timesteps] = weights
            for steps, path in sorted(checkpoints.items()):
                r = evaluate(path, rules, args.curve_deals, args.eval_seed + 1, args.workers, ("random",))["random"]
                writer.writerow([steps, r["deals"], r["loss_rate"], *r["ci95"]])
    plot(log, args.out / "curve.png", f"MaskablePPO, punjab 4p, seed {args.seed}", points)
    report = {"train": meta, "eval": evaluate(weights, rules, args.deals, args.eval_seed, args.workers, opponents)}
    (args.out / "eval.json").write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
