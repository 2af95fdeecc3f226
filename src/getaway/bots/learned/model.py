"""The value network: a small multilayer perceptron in numpy, and the models shipped in the package.

A model maps a batch of :func:`~getaway.bots.learned.features.features` vectors to the chance,
for the seat they are seen from, of losing the deal from that position (its utility for the
search is one minus that). Inference needs numpy only (a base dependency), so the shipped
models load without the ``train`` extra. A model file is an ``.npz`` archive (no pickles: a
file is data, never code) holding the layers ``w0, b0, w1, b1, …`` and its ``meta``: the
profile and player count it was trained for, the feature size, and what trained it.
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path

import numpy as np
from threadpoolctl import ThreadpoolController

from .features import feature_size

__all__ = ["ModelError", "ValueModel", "shipped", "SHIPPED"]

#: the models in the package (``getaway/bots/learned/models/<profile>-<players>.npz``)
SHIPPED = "models"

#: what numpy and the zip reader raise on a file that is not a whole ``.npz`` archive
UNREADABLE = (OSError, EOFError, KeyError, ValueError, TypeError, UnicodeDecodeError, zipfile.BadZipFile)


class ModelError(ValueError):
    """A model file that is missing, corrupt, or made for other positions (the message says which)."""


@cache
def _blas() -> ThreadpoolController:
    """The process's BLAS thread pools (threadpoolctl; found once, ~1 ms). A search scores about
    a hundred positions at a time: with numpy's default threads the same batches took twice the
    wall time and 2.4 times the CPU on the 2-core machine (1,500 batches of 150: 1.17 s wall,
    1.37 s CPU; one thread 0.63 s, 0.56 s; 5 December 2026)."""
    return ThreadpoolController()


@dataclass
class ValueModel:
    """A ReLU perceptron: ``layers`` is ``[(w0, b0), (w1, b1), …]``, ``w_i`` of shape
    ``(in, out)`` (``float32``), the last layer one output (a logit of the losing chance).

    Attributes:
        layers: the weights and biases, input side first.
        meta: ``profile``, ``players``, ``feature_size`` and the training's own facts (steps,
            samples, seed): what :meth:`save` writes beside the weights.
    """

    layers: list[tuple[np.ndarray, np.ndarray]]
    meta: dict[str, object] = field(default_factory=dict)

    @classmethod
    def init(cls, inputs: int, hidden: tuple[int, ...], rng: np.random.Generator, **meta: object) -> ValueModel:
        """A fresh model (He initialisation) for ``inputs`` features and ``hidden`` layer widths."""
        sizes = (inputs, *hidden, 1)
        layers = [
            (
                (rng.standard_normal((a, b)) * np.sqrt(2.0 / a)).astype(np.float32),
                np.zeros(b, dtype=np.float32),
            )
            for a, b in zip(sizes, sizes[1:], strict=False)
        ]
        return cls(layers, {"feature_size": inputs, "hidden": list(hidden), **meta})

    def logits(self, x: np.ndarray) -> np.ndarray:
        """The losing chance's logit for each row of ``x`` (``(B, features)`` → ``(B,)``), with
        one BLAS thread (:func:`_blas`: a search's batch is small; a second thread only costs CPU).

        Raises:
            ValueError: ``x`` is not a ``(B, features)`` array of this model's width.
        """
        width = self.layers[0][0].shape[0]
        if x.ndim != 2 or x.shape[1] != width:
            raise ValueError(f"x: expected shape (B, {width}), got {x.shape}")
        h = x
        last = len(self.layers) - 1
        with _blas().limit(limits=1, user_api="blas"):
            for i, (w, b) in enumerate(self.layers):
                h = h @ w + b
                if i < last:
                    np.maximum(h, 0.0, out=h)
        return h[:, 0]

    def predict(self, x: np.ndarray) -> np.ndarray:
        """The chance (0 to 1) of losing the deal for each row of ``x`` (``(B, features)`` → ``(B,)``).

        Raises:
            ValueError: as :meth:`logits`.
        """
        return 0.5 * (1.0 + np.tanh(0.5 * self.logits(x)))  # the logistic, without overflow

    def save(self, path: str | Path) -> None:
        """Write the model to ``path`` (an ``.npz`` archive; see the module docstring)."""
        arrays: dict[str, np.ndarray] = {}
        for i, (w, b) in enumerate(self.layers):
            arrays[f"w{i}"] = w.astype(np.float32)
            arrays[f"b{i}"] = b.astype(np.float32)
        arrays["meta"] = np.frombuffer(json.dumps(self.meta, sort_keys=True).encode(), dtype=np.uint8)
        np.savez_compressed(path, **arrays)

    @classmethod
    def load(cls, path: str | Path, players: int | None = None) -> ValueModel:
        """Read a model written by :meth:`save`.

        Args:
            path: the ``.npz`` file.
            players: if given, the seat count the model must be for.

        Raises:
            ModelError: the file is missing or not a model archive, a layer's shape does not
                follow the one before, or the model is for another feature size or seat count.
        """
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(bytes(data["meta"]).decode())
                layers = read_layers(data)
        except UNREADABLE as exc:
            raise ModelError(f"{path}: not a value model ({type(exc).__name__}: {exc})") from None
        return cls.checked(layers, meta, str(path), players)

    @classmethod
    def checked(
        cls, layers: list[tuple[np.ndarray, np.ndarray]], meta: object, source: str, players: int | None = None
    ) -> ValueModel:
        """A model of ``layers`` and ``meta`` once they are found sound (the one check of a model
        file and of a training checkpoint): float layers whose shapes follow one another, down
        to one output, finite weights, a ``meta`` naming a profile and the player count the
        first layer's width is for (:func:`~.features.feature_size`).

        Raises:
            ModelError: what is wrong, prefixed with ``source`` (a file's name).
        """
        if not isinstance(meta, dict) or not layers:
            raise ModelError(f"{source}: not a value model (no layers or no meta)")
        size = layers[0][0].shape[0] if layers[0][0].ndim == 2 else None
        for k, (w, b) in enumerate(layers):
            if w.dtype.kind != "f" or b.dtype.kind != "f":
                raise ModelError(f"{source}: layer {k} is not floating point ({w.dtype}, {b.dtype})")
            if w.ndim != 2 or b.shape != (w.shape[1],) or w.shape[0] != size:
                raise ModelError(f"{source}: layer {k} has shape {w.shape} after {size} inputs")
            if not (np.isfinite(w).all() and np.isfinite(b).all()):
                raise ModelError(f"{source}: layer {k} has weights that are not finite numbers")
            size = w.shape[1]
        if size != 1:
            raise ModelError(f"{source}: the last layer has {size} outputs, not 1")
        seats, width = meta.get("players"), meta.get("feature_size")
        if type(seats) is not int or not 2 <= seats <= 8 or width != feature_size(seats):
            raise ModelError(f"{source}: feature size {width} does not match {seats!r} players")
        if layers[0][0].shape[0] != width:
            raise ModelError(f"{source}: the first layer takes {layers[0][0].shape[0]} features, not {width}")
        if not isinstance(meta.get("profile"), str):
            raise ModelError(f"{source}: no profile in the model's meta")
        if players is not None and seats != players:
            raise ModelError(f"{source}: a model for {seats} players, not {players}")
        return cls([(w.astype(np.float32), b.astype(np.float32)) for w, b in layers], meta)


def read_layers(data: object) -> list[tuple[np.ndarray, np.ndarray]]:
    """The layers ``w0, b0, w1, b1, …`` of an opened ``.npz`` archive (``np.load``'s result), as stored.

    Raises:
        KeyError: a ``w<i>`` without its ``b<i>``.
    """
    layers = []
    i = 0
    while f"w{i}" in data:  # type: ignore[operator]
        layers.append((data[f"w{i}"], data[f"b{i}"]))  # type: ignore[index]
        i += 1
    return layers


@cache
def shipped(profile: str, players: int) -> ValueModel | None:
    """The model shipped in the package for ``profile`` (``punjab`` or ``classic``, RULES.md §2–3)
    and ``players`` seats, or ``None`` when there is none (the expert then plays full rollouts).

    Raises:
        ModelError: the packaged file is corrupt (a broken install).
    """
    name = f"{profile}-{players}.npz"
    ref = resources.files(__package__).joinpath(SHIPPED, name)
    if not ref.is_file():
        return None
    with resources.as_file(ref) as path:
        return ValueModel.load(path, players)
