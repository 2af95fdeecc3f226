"""Self-play training of the value network, resumable: ``python -m getaway.bots.learned.train``.

Each step plays ``--deals`` deals among a mix of players (each seat the heuristic with chance
:attr:`Settings.heuristic`, else one style of the panel, :data:`getaway.bots.styles.STYLES`, so
that the value is not fitted to one way of playing), keeps a share (:attr:`Settings.keep`) of
the positions at a trick's start (the positions the expert's search scores,
:func:`~getaway.bots.learned.features.leaf_key`) from the side of every seat still playing,
labelled 1 if that seat lost the deal, in a replay buffer of the last :attr:`Settings.buffer`
positions, then makes ``--updates`` Adam steps on minibatches of it (binary cross-entropy: the
network fits the losing chance, a Monte Carlo value). The settings without an option keep
:class:`Settings`' values (Python: ``Trainer(Settings(...))``).

The folder (``--out``) holds:

- ``checkpoint.npz``: the model, Adam's moments, the buffer, the step and the generator's
  state, written at each evaluation (``--eval-every``) and at the end; ``--resume`` goes on from
  it where it stopped (the same run as one without the stop; the checkpoint's settings are
  kept, and the other options given are named as ignored);
- ``model.npz``: the latest model alone, the file the package ships
  (``getaway/bots/learned/models/<profile>-<players>.npz``);
- ``curve.csv`` and ``curve.png``: per evaluation, the held-out loss (positions of fixed deals)
  and the losing rate of the expert with this model (``leaf="value"``) against three
  heuristics on fixed duplicate deals (each deal once with the expert in every seat).

Randomness is seeded (``--seed``): the deals, the minibatches and the evaluation.
"""

from __future__ import annotations

import csv
import json
import random
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import click
import numpy as np

from ...core.deal import Deal
from ...core.rules import Rules
from ...core.stats import wilson
from .. import Bot, make_bot, play_deal
from ..heuristic import HeuristicBot
from ..styles import STYLES
from .features import feature_size, features, leaf_key
from .model import UNREADABLE, ModelError, ValueModel, read_layers

__all__ = ["Settings", "Trainer", "positions", "main"]

#: the checkpoint's format; a checkpoint of another is refused on ``--resume``
FORMAT = 1


def positions(
    deal: Deal, bots: list[Bot], rng: random.Random, keep: float = 1.0, pick: random.Random | None = None
) -> tuple[list[tuple[int, ...]], list[float]]:
    """Play ``deal`` with ``bots`` (one per seat) to its end; its positions at each trick's start.

    Args:
        deal, bots, rng: the deal (played in place), a bot per seat, the bots' generator.
        keep: the chance (0 to 1) that a trick's start is kept (the positions of one deal are
            alike and share their labels: a few per deal generalise better than all of them).
        pick: the generator of those draws (needed when ``keep < 1``).

    Returns:
        ``(keys, labels)``: a :func:`leaf_key` per position and seat still playing, and 1.0 if
        that seat lost the deal, 0.0 if not (0.5 for all in a drawn deal: no loser).
    """
    taken: list[tuple[int, tuple[int, ...]]] = []
    seen = -1

    def look(*_: object) -> None:  # before the first move and after each one
        nonlocal seen
        if not deal.is_over and not deal.trick and deal.tricks_played != seen:
            seen = deal.tricks_played
            if keep >= 1.0 or (pick is not None and pick.random() < keep):
                taken.extend((me, leaf_key(deal, me)) for me in range(deal.players) if not deal.out_mask >> me & 1)

    look()
    play_deal(deal, bots, rng, look)
    assert deal.outcome is not None
    loser = deal.outcome.loser
    return [k for _, k in taken], [0.5 if loser is None else float(me == loser) for me, _ in taken]


def _cross_entropy(z: np.ndarray, y: np.ndarray) -> float:
    """Mean binary cross-entropy (nats) of logits ``z`` against labels ``y`` (0 to 1), without overflow."""
    return float(np.mean(np.logaddexp(0.0, z) - y * z))


@dataclass
class Settings:
    """A training run's settings (the command's options; kept in the checkpoint).

    Attributes:
        profile, players: the rules the model is for (``Rules.profile(profile, players=players)``).
        seed: seeds every generator of the run.
        deals: deals played per step; updates: Adam steps per step, of ``batch`` positions each.
        buffer: positions kept (the latest).
        hidden: the hidden layers' widths; lr: Adam's step size.
        heuristic: the chance that a seat of a training deal is the heuristic (else a panel style).
        keep: the chance that a trick's start of a training deal is kept (:func:`positions`).
        decay: the weight decay (decoupled, per Adam step, times ``lr``).
        eval_every: steps between evaluations; eval_deals: duplicate deals per evaluation (each
            played once per seat); eval_iterations: the evaluated expert's ``iterations``.
        held_out_deals: deals whose positions measure the held-out loss.
    """

    profile: str = "punjab"
    players: int = 4
    seed: int = 1
    deals: int = 800
    updates: int = 32
    batch: int = 512
    buffer: int = 400_000
    hidden: list[int] = field(default_factory=lambda: [256, 128])
    lr: float = 1e-3
    heuristic: float = 0.6
    keep: float = 0.15
    decay: float = 1e-4
    eval_every: int = 25
    eval_deals: int = 25
    eval_iterations: int = 40
    held_out_deals: int = 300

    def check(self) -> None:
        """Raises ``ValueError`` naming the first setting out of its range (a checkpoint's settings
        are read back from a file)."""
        whole = {
            "players": (3, 8),
            "deals": (1, None),
            "updates": (1, None),
            "batch": (1, None),
            "buffer": (1, None),
            "eval_every": (1, None),
            "eval_deals": (1, None),
            "eval_iterations": (1, None),
            "held_out_deals": (1, None),
            "seed": (0, None),
        }
        for name, (low, high) in whole.items():
            value = getattr(self, name)
            if type(value) is not int or value < low or (high is not None and value > high):
                raise ValueError(f"{name}: {value!r} is out of range")
        if self.profile not in ("punjab", "classic"):
            raise ValueError(f"profile: {self.profile!r}")
        if not self.hidden or any(type(h) is not int or h < 1 for h in self.hidden):
            raise ValueError(f"hidden: {self.hidden!r}")
        for name in ("lr", "heuristic", "keep", "decay"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not 0 <= value <= (1 if name != "lr" else 1.0):
                raise ValueError(f"{name}: {value!r} is out of range")


class Trainer:
    """The training state: model, Adam's moments, replay buffer, step and generator.

    Args:
        settings: the run's settings (a new run: the model initialised from ``settings.seed``).
    """

    def __init__(self, settings: Settings) -> None:
        self.s = settings
        self.rules = Rules.profile(settings.profile, players=settings.players)
        self.rng = np.random.default_rng(settings.seed)
        self.model = ValueModel.init(
            feature_size(settings.players),
            tuple(settings.hidden),
            self.rng,
            profile=settings.profile,
            players=settings.players,
        )
        self.m = [np.zeros_like(a) for layer in self.model.layers for a in layer]
        self.v = [np.zeros_like(a) for layer in self.model.layers for a in layer]
        self.adam_t = 0
        self.step = 0
        self.seen = 0  # positions generated so far
        self.seconds = 0.0  # training time of the earlier runs (wall clock)
        self.reference: tuple[int, int] | None = None  # the evaluation of the expert without the model
        self.keys = np.zeros((0, 2 * settings.players + 5), dtype=np.uint64)
        self.labels = np.zeros(0, dtype=np.float32)
        self._held_out()

    def _held_out(self) -> None:
        """The held-out positions (fixed deals of their own generator: the same in a resumed run)."""
        keys, self.held_y = self.generate(self.s.held_out_deals, np.random.default_rng([self.s.seed, 1]))
        self.held_x = features(keys, self.s.players)

    # ------------------------------------------------------------------ data

    def _lineup(self, rng: random.Random) -> list[Bot]:
        styles = sorted(STYLES)
        return [
            HeuristicBot() if rng.random() < self.s.heuristic else make_bot(styles[rng.randrange(len(styles))])
            for _ in range(self.s.players)
        ]

    def generate(self, deals: int, rng: np.random.Generator, keep: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
        """Positions and labels of ``deals`` new deals (:func:`positions`, ``keep``), seeded from ``rng``.

        Returns:
            ``(keys, labels)``: a ``(P, 2n + 5)`` ``uint64`` array and a ``(P,)`` ``float32`` array.
        """
        keys: list[tuple[int, ...]] = []
        labels: list[float] = []
        for _ in range(deals):
            seed = int(rng.integers(2**62))
            local = random.Random(seed)
            deal = Deal(self.rules, dealer=local.randrange(self.s.players), seed=seed)
            k, y = positions(deal, self._lineup(local), local, keep, random.Random(seed + 1))
            keys += k
            labels += y
        width = 2 * self.s.players + 5
        return np.array(keys, dtype=np.uint64).reshape(-1, width), np.array(labels, dtype=np.float32)

    # ------------------------------------------------------------------ learning

    def loss(self, x: np.ndarray, y: np.ndarray) -> float:
        """Mean binary cross-entropy (nats) of the model on ``x`` (features) and ``y`` (labels)."""
        return _cross_entropy(self.model.logits(x), y)

    def _update(self, x: np.ndarray, y: np.ndarray) -> float:
        """One Adam step on a minibatch; returns its loss before the step."""
        layers = self.model.layers
        acts = [x]
        h = x
        for i, (w, b) in enumerate(layers):
            h = h @ w + b
            if i < len(layers) - 1:
                h = np.maximum(h, 0.0)
            acts.append(h)
        z = acts[-1][:, 0]
        loss = _cross_entropy(z, y)
        grad = ((1.0 / (1.0 + np.exp(-z)) - y) / len(y))[:, None].astype(np.float32)
        grads: list[np.ndarray] = []
        for i in range(len(layers) - 1, -1, -1):
            w, _ = layers[i]
            grads[:0] = [acts[i].T @ grad, grad.sum(axis=0)]
            if i:
                grad = (grad @ w.T) * (acts[i] > 0)
        self.adam_t += 1
        beta1, beta2, eps = 0.9, 0.999, 1e-8
        c1 = 1 - beta1**self.adam_t
        c2 = 1 - beta2**self.adam_t
        params = [a for layer in layers for a in layer]
        for p, g, m, v in zip(params, grads, self.m, self.v, strict=True):
            if p.ndim == 2:
                p *= np.float32(1.0 - self.s.lr * self.s.decay)
            m *= beta1
            m += (1 - beta1) * g
            v *= beta2
            v += (1 - beta2) * g * g
            p -= (self.s.lr * (m / c1) / (np.sqrt(v / c2) + eps)).astype(np.float32)
        return loss

    def train_step(self) -> float:
        """Play a step's deals into the buffer and make its Adam steps; returns the mean minibatch loss."""
        keys, labels = self.generate(self.s.deals, self.rng, self.s.keep)
        self.seen += len(labels)
        self.keys = np.concatenate([self.keys, keys])[-self.s.buffer :]
        self.labels = np.concatenate([self.labels, labels])[-self.s.buffer :]
        losses = []
        for _ in range(self.s.updates):
            pick = self.rng.integers(len(self.labels), size=min(self.s.batch, len(self.labels)))
            losses.append(self._update(features(self.keys[pick], self.s.players), self.labels[pick]))
        self.step += 1
        self.model.meta.update(steps=self.step, positions=self.seen, seed=self.s.seed)
        return float(np.mean(losses))

    def evaluate(self, leaf: str = "value") -> tuple[int, int]:
        """The losses of the expert with this model (``leaf="value"``; ``"rollout"``: the expert
        without it, the curve's reference), at ``eval_iterations``, against three heuristics:
        ``eval_deals`` fixed deals, each played with the expert in every seat.

        Returns:
            ``(losses, plays)``.
        """
        from ..expert import ExpertBot

        losses = plays = 0
        for i in range(self.s.eval_deals):
            for seat in range(self.s.players):
                bots: list[Bot] = [HeuristicBot() for _ in range(self.s.players)]
                expert = ExpertBot(iterations=self.s.eval_iterations, leaf=leaf)
                expert.model = self.model
                bots[seat] = expert
                deal = Deal(self.rules, dealer=i % self.s.players, seed=900_000 + i)
                play_deal(deal, bots, random.Random(i))
                assert deal.outcome is not None
                losses += deal.outcome.loser == seat
                plays += 1
        return losses, plays

    # ------------------------------------------------------------------ files

    def save(self, folder: Path) -> None:
        """Write ``checkpoint.npz`` (everything ``--resume`` needs) and ``model.npz`` into ``folder``."""
        arrays = {f"m{i}": a for i, a in enumerate(self.m)} | {f"v{i}": a for i, a in enumerate(self.v)}
        for i, (w, b) in enumerate(self.model.layers):
            arrays[f"w{i}"], arrays[f"b{i}"] = w, b
        state = {
            "format": FORMAT,
            "settings": asdict(self.s),
            "step": self.step,
            "seen": self.seen,
            "adam_t": self.adam_t,
            "seconds": self.seconds,
            "reference": self.reference,
            "rng": self.rng.bit_generator.state,
            "meta": self.model.meta,
        }
        arrays["state"] = np.frombuffer(json.dumps(state).encode(), dtype=np.uint8)
        tmp = folder / "checkpoint.tmp.npz"
        np.savez(tmp, keys=self.keys, labels=self.labels, **arrays)
        tmp.replace(folder / "checkpoint.npz")  # a stop mid-write leaves the previous checkpoint
        self.model.save(folder / "model.npz")

    @classmethod
    def resume(cls, folder: Path) -> Trainer:
        """The trainer saved in ``folder`` by :meth:`save`.

        Raises:
            ModelError: no checkpoint there, or one that is corrupt or of another format.
        """
        path = folder / "checkpoint.npz"
        self = cls.__new__(cls)
        try:
            with np.load(path, allow_pickle=False) as data:
                state = json.loads(bytes(data["state"]).decode())
                if not isinstance(state, dict) or state.get("format") != FORMAT:
                    format_ = state.get("format") if isinstance(state, dict) else None
                    raise ModelError(f"{path}: checkpoint format {format_!r}, not {FORMAT}")
                settings = Settings(**state["settings"])
                settings.check()
                layers = read_layers(data)
                count = 2 * len(layers)
                self.m = [data[f"m{i}"] for i in range(count)]
                self.v = [data[f"v{i}"] for i in range(count)]
                self.keys, self.labels = data["keys"], data["labels"]
            self.s = settings
            self.model = ValueModel.checked(layers, state["meta"], str(path), settings.players)
            shapes = [a.shape for layer in self.model.layers for a in layer]
            if [len(settings.hidden) + 1, settings.profile] != [len(layers), self.model.meta.get("profile")]:
                raise ModelError(f"{path}: the model is not the one its settings describe")
            if [a.shape for a in self.m] != shapes or [a.shape for a in self.v] != shapes:
                raise ModelError(f"{path}: Adam's moments do not match the model's layers")
            width = 2 * settings.players + 5
            if self.keys.dtype != np.uint64 or self.keys.ndim != 2 or self.keys.shape[1] != width:
                raise ModelError(f"{path}: the buffer's positions are not rows of {width} bit sets")
            if self.labels.shape != (len(self.keys),) or self.labels.dtype != np.float32:
                raise ModelError(f"{path}: the buffer's labels do not match its positions")
            self.rules = Rules.profile(settings.profile, players=settings.players)
            self.step, self.seen, self.adam_t = int(state["step"]), int(state["seen"]), int(state["adam_t"])
            self.seconds = float(state.get("seconds", 0.0))
            self.reference = tuple(state["reference"]) if state.get("reference") else None
            self.rng = np.random.default_rng()
            self.rng.bit_generator.state = state["rng"]
        except ModelError:
            raise
        except (*UNREADABLE, AttributeError, IndexError) as exc:
            raise ModelError(f"{path}: not a training checkpoint ({type(exc).__name__}: {exc})") from None
        self._held_out()
        return self


def _plot(rows: list[dict[str, str]], path: Path) -> None:
    """The training curve: held-out loss and the evaluated expert's losing rate (95 % Wilson
    intervals), by step, beside the expert without the model on the same deals (dashed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [int(r["step"]) for r in rows]
    fig, left = plt.subplots(figsize=(7, 4))
    left.plot(steps, [float(r["held_out_loss"]) for r in rows], color="tab:blue", label="held-out loss")
    left.set_xlabel("step")
    left.set_ylabel("held-out cross-entropy (nats)", color="tab:blue")
    right = left.twinx()
    rates = [float(r["expert_loss_rate"]) for r in rows]
    bounds = [wilson(int(r["expert_losses"]), int(r["expert_plays"])) for r in rows]
    below = [100 * (rate - lo) for rate, (lo, _) in zip(rates, bounds, strict=True)]
    above = [100 * (hi - rate) for rate, (_, hi) in zip(rates, bounds, strict=True)]
    right.errorbar(
        steps,
        [100 * x for x in rates],
        yerr=[below, above],
        color="tab:red",
        marker="o",
        capsize=3,
        label="expert, value leaf",
    )
    reference = float(rows[-1]["rollout_expert_loss_rate"])
    right.axhline(100 * reference, color="tab:red", linestyle="--", label="expert, full rollouts")
    right.set_ylabel("expert vs 3 heuristics: losing rate (%)", color="tab:red")
    right.legend(loc="upper right")
    left.set_title("getaway value network: training curve")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


@click.command(help="Train the value network by self-play, resumably (docs/bots.md 'The learned evaluation').")
@click.option(
    "--out",
    "folder",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="Folder of the checkpoint, the model, the curve.",
)
@click.option("--steps", type=click.IntRange(min=1), required=True, help="Train until this many steps are done.")
@click.option("--resume", is_flag=True, help="Go on from the folder's checkpoint (its settings win).")
@click.option("--profile", type=click.Choice(["punjab", "classic"]), default="punjab", show_default=True)
@click.option("--players", "-n", type=click.IntRange(3, 8), default=4, show_default=True)
@click.option("--seed", type=click.IntRange(min=0), default=1, show_default=True)
@click.option("--deals", type=click.IntRange(min=1), default=800, show_default=True, help="Deals per step.")
@click.option("--updates", type=click.IntRange(min=1), default=32, show_default=True, help="Adam steps per step.")
@click.option("--eval-every", type=click.IntRange(min=1), default=25, show_default=True)
@click.option("--eval-deals", type=click.IntRange(min=1), default=25, show_default=True)
@click.option(
    "--eval-iterations",
    type=click.IntRange(min=1),
    default=40,
    show_default=True,
    help="The evaluated expert's rollouts per decision.",
)
@click.option("--held-out-deals", type=click.IntRange(min=1), default=300, show_default=True)
@click.option("--quiet", "-q", is_flag=True, help="No line per evaluation.")
def main(
    folder: Path,
    steps: int,
    resume: bool,
    profile: str,
    players: int,
    seed: int,
    deals: int,
    updates: int,
    eval_every: int,
    eval_deals: int,
    eval_iterations: int,
    held_out_deals: int,
    quiet: bool,
) -> None:
    """The command (see the module docstring); exits 2 with a message on a bad folder or checkpoint."""
    if resume:
        try:
            trainer = Trainer.resume(folder)
        except ModelError as exc:
            raise click.UsageError(str(exc)) from None
        context = click.get_current_context()
        ignored = [
            f"--{name.replace('_', '-')}"
            for name in context.params
            if name not in ("folder", "steps", "resume", "quiet")
            and context.get_parameter_source(name) is click.core.ParameterSource.COMMANDLINE
        ]
        if ignored:
            click.echo(f"ignored with --resume (the checkpoint's settings are kept): {', '.join(ignored)}", err=True)
        if trainer.step >= steps:
            click.echo(f"{folder}: already {trainer.step} steps, nothing to do (--steps {steps})", err=True)
    elif (folder / "checkpoint.npz").exists():
        raise click.UsageError(f"{folder} already holds a checkpoint: pass --resume, or another --out")
    else:
        settings = Settings(
            profile=profile,
            players=players,
            seed=seed,
            deals=deals,
            updates=updates,
            eval_every=eval_every,
            eval_deals=eval_deals,
            eval_iterations=eval_iterations,
            held_out_deals=held_out_deals,
        )
        folder.mkdir(parents=True, exist_ok=True)
        trainer = Trainer(settings)
    curve = folder / "curve.csv"
    try:
        rows = list(csv.DictReader(curve.open())) if resume and curve.exists() else []
        rows = [r for r in rows if int(r["step"]) <= trainer.step]
        for r in rows:
            (
                float(r["held_out_loss"]),
                float(r["rollout_expert_loss_rate"]),
                int(r["expert_losses"]),
                int(r["expert_plays"]),
            )
    except (ValueError, KeyError, TypeError, csv.Error) as exc:
        raise click.UsageError(
            f"{curve}: not a training curve ({type(exc).__name__}: {exc}); move it away to resume"
        ) from None
    fields = [
        "step",
        "positions",
        "train_loss",
        "held_out_loss",
        "expert_losses",
        "expert_plays",
        "expert_loss_rate",
        "rollout_expert_loss_rate",
        "seconds",
    ]
    start = time.perf_counter() - trainer.seconds
    while trainer.step < steps:
        train_loss = trainer.train_step()
        if trainer.step % trainer.s.eval_every == 0 or trainer.step == steps:
            if trainer.reference is None:
                trainer.reference = trainer.evaluate("rollout")
            losses, plays = trainer.evaluate()
            row = {
                "step": str(trainer.step),
                "positions": str(trainer.seen),
                "train_loss": f"{train_loss:.5f}",
                "held_out_loss": f"{trainer.loss(trainer.held_x, trainer.held_y):.5f}",
                "expert_losses": str(losses),
                "expert_plays": str(plays),
                "expert_loss_rate": f"{losses / plays:.4f}",
                "rollout_expert_loss_rate": f"{trainer.reference[0] / trainer.reference[1]:.4f}",
                "seconds": f"{time.perf_counter() - start:.1f}",  # since the run's first step
            }
            rows.append(row)
            trainer.seconds = time.perf_counter() - start
            trainer.save(folder)
            with curve.open("w", newline="") as f:
                writer = csv.DictWriter(f, fieldnames=fields)
                writer.writeheader()
                writer.writerows(rows)
            _plot(rows, folder / "curve.png")
            if not quiet:
                click.echo(" ".join(f"{k}={v}" for k, v in row.items()))
    trainer.seconds = time.perf_counter() - start
    trainer.save(folder)


if __name__ == "__main__":
    main()
