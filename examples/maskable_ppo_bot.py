"""A policy trained by ``examples/train_maskable_ppo.py``, played as a bot with numpy only.

The training script exports the actor of sb3-contrib's ``MaskablePPO`` (its ``MlpPolicy``:
hidden layers with ``tanh``, then the action logits) to an ``.npz`` file; this bot reads it
and needs neither torch nor Stable-Baselines3 at play time. It sees what every bot sees, the
seat's :class:`~getaway.core.view.PlayerView`, encoded by :func:`getaway.envs.encoding.encode`
(the observation the policy was trained on), and plays the legal action with the highest
logit (the mask: illegal actions never win).

Use it wherever bots are named, as ``module:Class`` with the repository on ``sys.path``::

    PYTHONPATH=. .venv/bin/getaway tournament --bots examples.maskable_ppo_bot:MaskablePPOBot,random,random,random

The weights are ``maskable_ppo_punjab4.npz`` beside this file (made by the command in
docs/envs.md, "Training with MaskablePPO"), or the file named by ``GETAWAY_PPO_WEIGHTS``, or
``weights=PATH`` when the bot is made in Python.
"""

from __future__ import annotations

import os
import random
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from getaway.core.events import NUM_ACTIONS, Action
from getaway.core.view import PlayerView
from getaway.envs.encoding import encode

__all__ = ["MaskablePPOBot", "DEFAULT_WEIGHTS", "load_policy", "logits"]

#: The shipped weights (punjab, 4 players; the seed and command are in the file's ``meta``).
DEFAULT_WEIGHTS = Path(__file__).with_name("maskable_ppo_punjab4.npz")


def load_policy(path: str | os.PathLike[str]) -> list[tuple[np.ndarray, np.ndarray]]:
    """The actor's layers from an ``.npz`` written by the training script.

    Returns:
        ``[(W, b), ...]``: ``W`` of shape ``(out, in)``, ``b`` of shape ``(out,)``, float32;
        every layer but the last is followed by ``tanh``; the last gives 56 logits.

    Raises:
        OSError: the file cannot be read.
        ValueError: the file holds no layers ``w0, b0, …`` or their shapes do not chain up to
            56 actions.
    """
    with np.load(path, allow_pickle=False) as data:
        layers = []
        while f"w{len(layers)}" in data:
            k = len(layers)
            layers.append((data[f"w{k}"].astype(np.float32), data[f"b{k}"].astype(np.float32)))
    if not layers:
        raise ValueError(f"{path}: no policy layers (expected arrays w0, b0, w1, b1, …)")
    for k, (w, b) in enumerate(layers):
        if w.ndim != 2 or b.shape != (w.shape[0],) or (k and w.shape[1] != layers[k - 1][0].shape[0]):
            raise ValueError(f"{path}: layer {k} has shapes {w.shape} and {b.shape}, which do not chain")
    if layers[-1][0].shape[0] != NUM_ACTIONS:
        raise ValueError(f"{path}: the last layer gives {layers[-1][0].shape[0]} logits, not {NUM_ACTIONS}")
    return layers


def logits(layers: Sequence[tuple[np.ndarray, np.ndarray]], observation: np.ndarray) -> np.ndarray:
    """The policy's action logits (float32, shape ``(56,)``, or ``(batch, 56)`` for a batch of
    observations of shape ``(batch, size)``), before the action mask."""
    h = observation
    for w, b in layers[:-1]:
        h = np.tanh(h @ w.T + b)
    w, b = layers[-1]
    return h @ w.T + b


class MaskablePPOBot:
    """The trained policy as a bot (the :class:`getaway.bots.Bot` protocol); deterministic.

    Args:
        weights: an ``.npz`` from the training script; default ``GETAWAY_PPO_WEIGHTS`` or
            :data:`DEFAULT_WEIGHTS`.

    Raises:
        OSError, ValueError: as :func:`load_policy`, and ValueError when the policy's input
            size is not the encoding's for the table it is asked to play (at ``act``).
    """

    name = "maskable-ppo"

    def __init__(self, weights: str | os.PathLike[str] | None = None) -> None:
        self.weights = Path(weights or os.environ.get("GETAWAY_PPO_WEIGHTS") or DEFAULT_WEIGHTS)
        self.layers = load_policy(self.weights)

    def act(self, view: PlayerView, legal: Sequence[Action], rng: random.Random) -> Action:
        """The legal action with the highest logit for ``view`` (``rng`` is not used)."""
        if len(legal) == 1:
            return legal[0]
        observation = encode(view)
        if observation.shape[0] != self.layers[0][0].shape[1]:
            raise ValueError(
                f"{self.weights}: trained on observations of {self.layers[0][0].shape[1]} entries,"
                f" this table gives {observation.shape[0]} (another number of players)"
            )
        scores = logits(self.layers, observation)
        return max(legal, key=lambda action: scores[int(action)])
