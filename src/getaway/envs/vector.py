"""A Gymnasium vector environment: B deals stepped together, each one learner seat against
random bots, the per-step loop in compiled code (docs/envs.md "The vector environment").

>>> import numpy as np
>>> from getaway.envs.vector import GetawayVectorEnv
>>> envs = GetawayVectorEnv(num_envs=8, profile="punjab", players=4, takes="off")
>>> obs, infos = envs.reset(seed=3)
>>> obs.shape, obs.dtype, infos["action_mask"].shape, infos["action_mask"].dtype
((8, 515), dtype('float32'), (8, 56), dtype('int8'))
>>> actions = infos["action_mask"].argmax(axis=1)   # the lowest legal action of each deal
>>> obs, rewards, terminations, truncations, infos = envs.step(actions)
>>> rewards.shape, terminations.dtype
((8,), dtype('bool'))

Deal ``i`` is exactly what :class:`getaway.envs.gym.GetawayEnv` with ``opponents="random"``
plays after ``reset(seed=seed + i)`` (the same seat, deal, bot moves, observations, masks and
rewards, for the same actions): one learner against ``players − 1`` random bots, the
observation the shared encoding (:mod:`getaway.envs.encoding`), the reward at the end (−1 for
the loser, +1/(n−1) for each other player, 0 for all in a drawn deal). Only random opponents:
their moves run in the compiled loop (:mod:`getaway.core.batch`); against other bots use
``gymnasium.vector.SyncVectorEnv`` over :class:`~getaway.envs.gym.GetawayEnv`.

- ``reset(seed=s)`` seeds deal ``i`` with ``s + i`` (Gymnasium's convention; a list of
  ``num_envs`` seeds gives each its own); ``reset()`` deals on from the generators.
- ``step(actions)``: ``actions`` is ``num_envs`` action ids (an integer array or sequence). The
  autoreset is Gymnasium's ``NEXT_STEP`` (``metadata["autoreset_mode"]``): the step that ends
  deal ``i`` returns its final observation, ``terminations[i] = True``, its reward and an
  all-zero mask; the next step deals it again, ignoring ``actions[i]`` (any id 0–55), and
  returns the new deal's first observation with reward 0.
- ``infos``: ``"action_mask"``, a ``(num_envs, 56)`` ``int8`` array (row ``i`` the legal actions
  of deal ``i``'s learner), and ``"seat"``, the learner's seat per deal (each with Gymnasium's
  ``"_action_mask"`` / ``"_seat"`` flags, all true). Never truncated.
- A bad ``actions`` is refused before anything moves, the batch unchanged: ``ValueError`` for
  the wrong shape, a type that is not integer (floats, bools), an id outside 0–55;
  :class:`~getaway.core.events.IllegalActionError` (a ``ValueError``, with the engine's reason
  and a note naming the deal) for an action that is not legal in its deal.
- The arrays handed out are new ones at every call (keeping one across steps is safe).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from ..bots.learned.features import card_bits
from ..bots.random import RandomBot
from ..core.batch import LearnerBatch
from ..core.deal import Deal
from ..core.events import NUM_ACTIONS, action_from_id
from .encoding import NUM_CARDS, observation_size
from .pettingzoo import as_whole_number, rules_from_options

__all__ = ["GetawayVectorEnv"]


class GetawayVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` deals, one learner against random bots in each; see the module docstring.

    Args:
        num_envs: deals in the batch (B), at least 1.
        seat: the learner's seat in every deal, or ``"random"``: drawn at each deal's reset.
        opponents: ``"random"`` only (the bot whose moves the compiled loop makes).
        take_probability: the bots' chance of taking when a take is offered (default: the
            ``random`` bot's, 0.02).
        rules_options: ``profile`` and any rules option (takes are polled), as
            :class:`~getaway.envs.gym.GetawayEnv`.

    Raises:
        ValueError: ``num_envs`` below 1 or not a whole number, a bad seat, other opponents
            than ``"random"``, a probability outside 0–1.
        RulesError: bad rules option.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(
        self,
        num_envs: int = 64,
        seat: int | str = 0,
        opponents: str = "random",
        take_probability: float | None = None,
        **rules_options: Any,
    ) -> None:
        self.rules = rules_from_options(rules_options)
        n = self.rules.players
        num_envs = as_whole_number(num_envs, "num_envs")
        if num_envs < 1:
            raise ValueError(f"num_envs: at least 1, not {num_envs}")
        if seat == "random":
            seat_code = -1
        else:
            seat_code = as_whole_number(seat, "seat")
            if not 0 <= seat_code < n:
                raise ValueError(f"seat: expected 0–{n - 1} or 'random', got {seat!r}")
        if opponents != "random":
            raise ValueError(
                f"opponents: only 'random' (compiled), not {opponents!r}; for other bots use"
                " gymnasium.vector.SyncVectorEnv over getaway.envs.gym.GetawayEnv"
            )
        p = RandomBot().take_probability if take_probability is None else float(take_probability)
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"take_probability: {take_probability} is not between 0 and 1")
        self.num_envs = num_envs
        self.single_observation_space = gymnasium.spaces.Box(0.0, 1.0, (observation_size(n),), dtype=np.float32)
        self.single_action_space = gymnasium.spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.batch = batch = LearnerBatch(self.rules, num_envs, seat_code, p)
        self._planes = NUM_CARDS * batch.row_count  # the card planes: the first entries
        # the blocks the compiled loop writes (core/batch.py), wrapped once, without a copy
        self._rows = np.frombuffer(batch.rows, dtype=np.uint64).reshape(num_envs, batch.row_count)
        self._small = np.frombuffer(batch.small, dtype=np.float32).reshape(num_envs, batch.small_count)
        self._masks = np.frombuffer(batch.masks, dtype=np.int8).reshape(num_envs, NUM_ACTIONS)
        self._rewards = np.frombuffer(batch.rewards, dtype=np.float64)
        self._terminated = np.frombuffer(batch.terminated, dtype=np.bool_)
        self._flags = np.ones(num_envs, dtype=bool)
        self._started = False

    def reset(
        self, *, seed: int | Sequence[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal every deal anew and play the bots up to each learner's first decision.

        Args:
            seed: ``None`` (deal on from each deal's generator; the first reset seeds them from
                the system), a whole number ``s`` (deal ``i`` gets ``s + i``) or ``num_envs`` of them.

        Returns:
            ``(observations, infos)``: ``(num_envs, size)`` ``float32`` and the infos (module docstring).

        Raises:
            ValueError: any ``options`` (none are taken); a seed that is not a whole number or a
                list of the wrong length. Nothing changes.
        """
        if options:
            raise ValueError(f"options: GetawayVectorEnv.reset takes none, got {sorted(options)}")
        seeds: list[int] | None = None
        if seed is not None:
            if isinstance(seed, (list, tuple, np.ndarray)):
                seeds = [as_whole_number(s, "seed") for s in seed]
                if len(seeds) != self.num_envs:
                    raise ValueError(f"seed: {len(seeds)} seeds for {self.num_envs} deals")
            else:
                first = as_whole_number(seed, "seed")
                seeds = [first + i for i in range(self.num_envs)]
            super().reset(seed=seeds[0])
        batch = self.batch
        if seeds is not None:
            for i, s in enumerate(seeds):
                batch.seed(i, s)
        batch.reset_all()
        self._started = True
        return self._observations(), self._infos()

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Play each deal's learner action, then its bots up to the learner's next decision (or
        deal again a deal that ended at the last step: next-step autoreset).

        Returns:
            ``(observations, rewards, terminations, truncations, infos)``: ``(num_envs, size)``
            ``float32``, ``(num_envs,)`` ``float64`` rewards (0 until a deal ends), ``bool``
            terminations, ``bool`` truncations (never), the infos.

        Raises:
            RuntimeError: before :meth:`reset`.
            ValueError: not ``num_envs`` integer action ids 0–55.
            IllegalActionError: an action not legal in its deal (a note names the deal).
            Nothing changes when a step is refused.
        """
        if not self._started:
            raise RuntimeError("step() before reset(): call reset() first")
        ids = self._checked(actions)
        self.batch.step(ids)
        return (
            self._observations(),
            self._rewards.copy(),
            self._terminated.copy(),
            np.zeros(self.num_envs, dtype=bool),
            self._infos(),
        )

    def _observations(self) -> np.ndarray:
        """A new ``(num_envs, size)`` ``float32`` array of the blocks' observations: the card
        planes' bit sets unpacked (bit ``c`` of row ``r`` is entry ``53 r + c``), then the other
        entries."""
        out = np.empty((self.num_envs, self._planes + self._small.shape[1]), dtype=np.float32)
        out[:, : self._planes] = card_bits(self._rows).reshape(self.num_envs, -1)
        out[:, self._planes :] = self._small
        return out

    def _checked(self, actions: Any) -> list[int]:
        """``actions`` as a list of ids, each legal in its deal (or its deal to be dealt again)."""
        array = np.asarray(actions)
        if array.shape != (self.num_envs,):
            raise ValueError(
                f"actions: expected {self.num_envs} action ids (shape ({self.num_envs},)), got shape {array.shape}"
            )
        if array.dtype.kind not in "iu":
            raise ValueError(f"actions: expected integer action ids 0–{NUM_ACTIONS - 1}, got dtype {array.dtype}")
        ids = array.tolist()
        i = self.batch.first_refused(ids)
        if i < 0:
            return ids
        if not 0 <= ids[i] < NUM_ACTIONS:
            raise ValueError(f"actions[{i}]: {ids[i]!r} is not an action id 0–{NUM_ACTIONS - 1}")
        seat = self.batch.seats[i]
        error = self.batch.deal(i).why_illegal(action_from_id(ids[i]), seat)
        if error is None:  # cannot happen: the mask is the engine's legal actions
            raise AssertionError(f"actions[{i}]: masked out but legal")
        error.add_note(f"actions[{i}]: deal {i} of the batch, the learner's seat {seat}")
        raise error

    def _infos(self) -> dict[str, Any]:
        return {
            "action_mask": self._masks.copy(),
            "_action_mask": self._flags.copy(),
            "seat": np.array(self.batch.seats, dtype=np.int64),
            "_seat": self._flags.copy(),
        }

    def deal(self, i: int) -> Deal:
        """Deal ``i`` of the batch as it stands (referee knowledge: for tests and tools, never for
        the learner); ``i`` an ``int`` or a numpy integer.

        Raises:
            RuntimeError: before :meth:`reset`.
            ValueError: ``i`` is not a deal of the batch (0 to ``num_envs`` − 1).
        """
        if not self._started:
            raise RuntimeError("deal() before reset(): call reset() first")
        index = as_whole_number(i, "i")
        if not 0 <= index < self.num_envs:
            raise ValueError(f"i: no deal {index} among {self.num_envs}")
        return self.batch.deal(index)
