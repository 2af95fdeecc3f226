"""Gymnasium single-agent environment: the learner's seat against bots (docs/envs.md).

>>> from getaway.envs.gym import GetawayEnv
>>> env = GetawayEnv(profile="punjab", players=4, takes="off", opponents="random")
>>> obs, info = env.reset(seed=3)
>>> obs.shape == env.observation_space.shape, int(info["action_mask"].sum()) >= 1
(True, True)

One episode is one deal. The learner sits at ``seat`` (an int, or ``"random"``: drawn at
each reset); every other seat is a bot made by :func:`getaway.bots.make_bot` from
``opponents`` (one name for all, or one per other seat, clockwise from the learner's
left). The observation is the shared encoding (:mod:`getaway.envs.encoding`); the legal
actions are in ``info["action_mask"]`` (``int8``, 56 entries: cards 0–52, take, pass,
pickup). Bots act until it is the learner's turn; once the learner has got away the bots
play the deal out. The reward comes at the end: −1 for the loser, +1/(n−1) for each other
player, 0 for all in a drawn deal.

An illegal action (``info["action_mask"]`` is 0 for it) ends the episode as a loss
(reward −1, ``info["illegal"] = True``) with ``illegal_action="lose"`` (the default, so
random exploration never crashes; the returned mask is then all zeros and ``step`` raises
``RuntimeError`` until ``reset()``), or raises :class:`~getaway.core.events.IllegalActionError`
with ``illegal_action="raise"``. Anything that is not an action id 0–55 (a float, a bool,
a string) raises ``ValueError``; a refused action changes nothing.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np

from ..bots import make_bot
from ..core.deal import Deal
from ..core.events import NUM_ACTIONS
from ..core.knowledge import Knowledge
from ..core.view import player_view
from .encoding import encode, observation_size
from .pettingzoo import action_of, as_whole_number, deal_rewards, legal_mask_array, rules_from_options

__all__ = ["GetawayEnv"]


class GetawayEnv(gymnasium.Env):
    """One learner against bots; see the module docstring.

    Args:
        seat: the learner's seat, or ``"random"``.
        opponents: a bot name (kind or level) for every other seat, or one name per other seat.
        illegal_action: ``"lose"`` or ``"raise"``.
        render_mode: ``None`` or ``"ansi"``.
        rules_options: ``profile`` and any rules option (takes are polled).

    Raises:
        ValueError: bad seat, wrong number of opponents, unknown bot, bad ``illegal_action``.
        RulesError: bad rules option.
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        seat: int | str = 0,
        opponents: str | Sequence[str] = "random",
        illegal_action: str = "lose",
        render_mode: str | None = None,
        **rules_options: Any,
    ) -> None:
        self.rules = rules_from_options(rules_options)
        n = self.rules.players
        if seat != "random":
            seat = as_whole_number(seat, "seat")
            if not 0 <= seat < n:
                raise ValueError(f"seat: expected 0–{n - 1} or 'random', got {seat!r}")
        if illegal_action not in ("lose", "raise"):
            raise ValueError(f"illegal_action: 'lose' or 'raise', not {illegal_action!r}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode: None or 'ansi', not {render_mode!r}")
        names = [opponents] * (n - 1) if isinstance(opponents, str) else list(opponents)
        if len(names) != n - 1:
            raise ValueError(f"opponents: {len(names)} names for {n - 1} other seats")
        self._bots = [make_bot(name) for name in names]
        self.seat_choice = seat
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.observation_space = gymnasium.spaces.Box(0.0, 1.0, (observation_size(n),), dtype=np.float32)
        self.action_space = gymnasium.spaces.Discrete(NUM_ACTIONS)
        self.deal: Deal | None = None
        self._ended = False  # an illegal action ended the episode (the deal itself goes on)
        self.seat = 0 if seat == "random" else int(seat)
        self._rng = random.Random()

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        """Deal a new episode and play the bots up to the learner's first decision.

        Returns:
            ``(observation, info)``: the encoding and ``{"action_mask": int8[56]}``.

        Raises:
            ValueError: any ``options`` (this environment takes none); a seed that is not a
                whole number.
        """
        if options:
            raise ValueError(f"options: GetawayEnv.reset takes none, got {sorted(options)}")
        if seed is not None:
            seed = as_whole_number(seed, "seed")
        super().reset(seed=seed)
        if seed is not None:
            self._rng = random.Random(seed)
        n = self.rules.players
        while True:  # a deal in which bots take the learner's hand before it acts is dealt again
            if self.seat_choice == "random":
                self.seat = self._rng.randrange(n)
            self.deal = Deal(self.rules, self._rng.randrange(n), self._rng.getrandbits(63))
            self._ended = False
            self._knowledge = [Knowledge.of(self.deal, s) for s in range(n)]  # followed incrementally
            self._bots_play()
            if not self.deal.is_over and self.deal.to_act == self.seat:
                return self._observation(), self._info()

    def _bot_of(self, seat: int):  # noqa: ANN202 - a Bot
        return self._bots[(seat - self.seat - 1) % self.rules.players]

    def _bots_play(self) -> None:
        deal = self.deal
        assert deal is not None
        while not deal.is_over and deal.to_act != self.seat:
            seat = deal.to_act
            assert seat is not None
            legal = deal.legal_actions(seat)
            if len(legal) == 1:
                action = legal[0]
            else:
                view = player_view(deal, seat, self._knowledge[seat])
                action = self._bot_of(seat).act(view, view.legal_actions, self._rng)
            deal.apply(action, seat)

    def _observation(self) -> np.ndarray:
        assert self.deal is not None
        return encode(player_view(self.deal, self.seat, self._knowledge[self.seat]))

    def _info(self, **extra: Any) -> dict[str, Any]:
        deal = self.deal
        assert deal is not None
        if self._ended or deal.is_over or deal.to_act != self.seat:
            mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        else:
            mask = legal_mask_array(deal, self.seat)
        return {"action_mask": mask, **extra}

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        """Play the learner's ``action`` (an id 0–55), then the bots up to its next decision.

        Returns:
            ``(observation, reward, terminated, truncated, info)``; the reward is 0 until the
            deal ends. An illegal action ends the episode as a loss under ``illegal_action="lose"``.

        Raises:
            RuntimeError: the episode has ended (call ``reset()``).
            ValueError: not an action id (a float, a bool, a string, out of range): nothing changes.
            IllegalActionError: an illegal action under ``illegal_action="raise"``: nothing changes.
        """
        deal = self.deal
        if deal is None:
            raise RuntimeError("step() before reset(): call reset() first")
        if deal.is_over or self._ended:
            raise RuntimeError("step() after the episode ended: call reset()")
        chosen = action_of(action)
        if chosen not in deal.legal_actions(self.seat):
            if self.illegal_action == "raise":
                deal.apply(chosen, self.seat)  # raises IllegalActionError
            self._ended = True
            return self._observation(), -1.0, True, False, self._info(illegal=True)
        deal.apply(chosen, self.seat)
        self._bots_play()
        if deal.is_over:
            reward = deal_rewards(deal)[self.seat]
            return self._observation(), reward, True, False, self._info(outcome=deal.outcome)
        return self._observation(), 0.0, False, False, self._info()

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.deal is None:
            return None
        view = player_view(self.deal, self.seat)
        hand = " ".join(str(c) for c in view.hand or ())
        trick = " ".join(f"{s}:{c}" for s, c in view.trick)
        return f"seat {self.seat} hand: {hand}\ntrick: {trick}\nsizes: {list(view.hand_sizes)}"
