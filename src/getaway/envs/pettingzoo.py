"""PettingZoo AEC environment: one deal of Getaway, every seat an agent (docs/envs.md).

>>> from getaway.envs.pettingzoo import env
>>> e = env(profile="punjab", players=4, takes="off")
>>> e.reset(seed=1)
>>> obs, reward, termination, truncation, info = e.last()
>>> e.agent_selection, int(obs["action_mask"].sum())
('player_3', 1)

Agents are ``player_0`` … ``player_{n-1}`` (seat numbers). One ``Discrete(56)`` action
space for all: card ids 0–52 (52 = the Joker), 53 take, 54 pass, 55 pickup
(:data:`~getaway.core.events.NUM_ACTIONS`). The observation is a dict with ``observation`` (the
shared encoding, :mod:`getaway.envs.encoding`) and ``action_mask`` (all zeros for an agent
that is not to act); the same mask is also in ``infos[agent]["action_mask"]`` for loops that
call ``last(observe=False)``.

Takes use the poll protocol (R-P-TAKE): before each trick each active player is asked once,
``take`` or ``pass``. A player who got away stops acting (it is never selected again) and
stays in ``agents`` with ``infos[agent]["got_away"] = True`` until the deal ends, because its
reward is only known then (a classic deal can still end drawn). At the end every agent is
terminated with its reward: the loser −1, every other player +1/(n−1) (zero-sum); a drawn
classic deal (R-C-TIE) gives 0 to all. Terminated agents are then removed one by one by the
usual ``step(None)``.
"""

from __future__ import annotations

import operator
import random
import warnings
from collections.abc import Iterable, Iterator
from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..core.deal import Deal
from ..core.events import NUM_ACTIONS, Action, action_from_id
from ..core.knowledge import Knowledge
from ..core.rules import Rules
from ..core.view import player_view
from .encoding import encode, observation_size

__all__ = ["env", "raw_env", "rules_from_options", "deal_rewards", "action_of", "legal_mask_array", "as_whole_number"]

#: Action objects by id (faster than parsing an id at every step).
_ACTIONS = tuple(action_from_id(i) for i in range(NUM_ACTIONS))
#: An action mask: ``np.ndarray(56, int8, flags)`` wraps the engine's ``legal_mask()``
#: bytearray without a copy (writable, owned by that mask alone); 3× cheaper than ``np.frombuffer``.
_INT8 = np.dtype(np.int8)
_ndarray = np.ndarray


def rules_from_options(options: dict[str, Any]) -> Rules:
    """Rules for a sequential environment from keyword options (``profile`` and every rules
    option); takes always use the poll protocol, and the rules are enforced strictly.

    Raises:
        RulesError: unknown option or bad value.
        ValueError: ``take_protocol="interject"`` (a sequential environment polls), or
            ``enforcement="penalize"`` (an environment's action mask is the set of legal
            actions and anything else is refused; R-P-PENALTY's irregular plays are for tables
            of people).
    """
    options = dict(options)
    profile = options.pop("profile", "punjab")
    if options.get("take_protocol") == "interject":
        raise ValueError("take_protocol: environments are sequential and poll for takes ('poll' or 'off')")
    if options.get("enforcement") == "penalize":
        raise ValueError(
            "enforcement: environments enforce the rules strictly ('strict'): an action outside the"
            " mask is refused, not penalized"
        )
    return Rules.profile(profile, **options)


def action_of(action: Any) -> Action:
    """The engine's action for an action id: an ``int`` or numpy integer 0–55 (the
    environments' one action space, :data:`~getaway.core.events.NUM_ACTIONS`).

    Raises:
        ValueError: anything else (a bool, a float, a string, ``None``, an id out of range).
    """
    try:
        chosen = _ACTIONS[action] if action >= 0 and action is not True and action is not False else None
    except (TypeError, IndexError):
        chosen = None
    if chosen is None:
        raise ValueError(f"action: {action!r} is not an action id 0–{NUM_ACTIONS - 1}")
    return chosen


def legal_mask_array(deal: Deal, seat: int | None = None) -> np.ndarray:
    """The legal actions of ``seat`` (default: the seat to act) as a new, writable ``int8``
    array of 56 flags by action id: the engine's :meth:`~getaway.core.deal.Deal.legal_mask`
    wrapped without a copy."""
    return _ndarray(NUM_ACTIONS, _INT8, deal.legal_mask(seat))


def as_whole_number(value: Any, name: str) -> int:
    """``value`` as an ``int`` if it is a whole number (``int`` or a numpy integer; not a bool,
    a float or a string).

    Raises:
        ValueError: anything else, naming ``name``.
    """
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name}: expected a whole number, not {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise ValueError(f"{name}: expected a whole number, not {value!r}") from None


def reset_options(options: dict[str, Any] | None, players: int) -> tuple[int | None, int | None]:
    """The ``deal_seed`` and ``dealer`` of a ``reset(options=...)`` (each ``None`` if absent).

    Other keys are ignored with a ``UserWarning`` (PettingZoo's ``api_test`` passes one and
    expects it to be accepted), so that a misspelt key is seen.

    Raises:
        ValueError: a dealer that is not a seat, a seed that is not an int.
    """
    options = dict(options or {})
    seed = options.pop("deal_seed", None)
    dealer = options.pop("dealer", None)
    if options:
        warnings.warn(f"reset options: {sorted(options)} ignored (known: 'deal_seed', 'dealer')", stacklevel=3)
    if dealer is not None:
        dealer = as_whole_number(dealer, "options: dealer")
        if not 0 <= dealer < players:
            raise ValueError(f"options: dealer must be a seat 0–{players - 1}, not {dealer!r}")
    if seed is not None:
        seed = as_whole_number(seed, "options: deal_seed")
    return seed, dealer


def deal_rewards(deal: Deal) -> list[float]:
    """Terminal rewards per seat: loser −1, the others +1/(n−1) each; all 0 for a drawn deal."""
    n = deal.players
    outcome = deal.outcome
    if outcome is None or outcome.loser is None:
        return [0.0] * n
    share = 1.0 / (n - 1)
    return [-1.0 if s == outcome.loser else share for s in range(n)]


def env(render_mode: str | None = None, **rules_options: Any) -> AECEnv:
    """The environment with PettingZoo's usual safety wrappers (bounds, call order).

    Args:
        render_mode: ``None``, ``"ansi"`` (``render()`` returns text) or ``"human"`` (prints).
        rules_options: ``profile`` (default ``punjab``) and any rules option (``players``,
            ``takes``, ``trump`` …; docs/rules.md).
    """
    e: AECEnv = raw_env(render_mode=render_mode, **rules_options)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)


class raw_env(AECEnv):  # noqa: N801 - PettingZoo's conventional name
    """The unwrapped AEC environment (see the module docstring)."""

    metadata = {"render_modes": ["human", "ansi"], "name": "getaway_v1", "is_parallelizable": False}

    def __init__(self, render_mode: str | None = None, **rules_options: Any) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode: {render_mode!r} is not one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        self._human = render_mode == "human"
        self.rules = rules_from_options(rules_options)
        n = self.rules.players
        self.possible_agents = [f"player_{s}" for s in range(n)]
        self._seat = {a: s for s, a in enumerate(self.possible_agents)}
        size = observation_size(n)
        self.observation_spaces = {
            a: gymnasium.spaces.Dict(
                {
                    "observation": gymnasium.spaces.Box(0.0, 1.0, (size,), dtype=np.float32),
                    "action_mask": gymnasium.spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: gymnasium.spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self._rng = random.Random()
        self.deal: Deal | None = None
        self._playing = False

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new deal. ``seed`` seeds the environment's generator, which draws each
        deal's seed and dealer (so a seeded env replays the same sequence of deals);
        ``options={"dealer": seat, "deal_seed": int}`` fixes them for this deal.

        Raises:
            ValueError: a seed, dealer or deal seed that is not a whole number, a dealer that
                is not a seat (nothing changes); an unknown option is ignored with a warning.
        """
        n = self.rules.players
        deal_seed, dealer = reset_options(options, n)  # refused before anything changes
        rng = self._rng if seed is None else random.Random(as_whole_number(seed, "seed"))
        drawn_seed, drawn_dealer = rng.getrandbits(63), rng.randrange(n)  # drawn always: the same sequence
        # Checked above, so the engine takes them: nothing can fail from here on.
        self.deal = Deal(
            self.rules, drawn_dealer if dealer is None else dealer, drawn_seed if deal_seed is None else deal_seed
        )
        self._rng = rng
        self._knowledge: list[Knowledge | None] = [None] * n  # made at a seat's first observation
        self._out = 0  # the seats known to have got away (deal.got_away_mask)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {"got_away": False} for a in self.agents}
        self.agent_selection = self.possible_agents[self.deal.to_act]
        self._set_mask_info()
        self._quiet = {a: (None, 0.0, False, False, self.infos[a]) for a in self.agents}
        self._playing = True  # the deal is on: every agent still in it, nobody terminated

    def _set_mask_info(self) -> None:
        deal = self.deal
        assert deal is not None
        self.infos[self.agent_selection]["action_mask"] = legal_mask_array(deal)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        deal = self.deal
        if deal is None:
            raise RuntimeError("observe() before reset(): call reset() first")
        seat = self._seat[agent]
        knowledge = self._knowledge[seat]
        if knowledge is None:
            knowledge = self._knowledge[seat] = Knowledge.of(deal, seat)
        view = player_view(deal, seat, knowledge)
        if agent == self.agent_selection and not deal.is_over:
            mask = legal_mask_array(deal)
        else:
            mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        return {"observation": encode(view), "action_mask": mask}

    def last(self, observe: bool = True) -> tuple[dict[str, np.ndarray] | None, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``last``, with the same result, in fewer steps (it runs once per action)."""
        agent = self.agent_selection
        if not observe and self._playing:
            # While the deal is on, no reward, termination or truncation changes, and each agent's
            # info dict is the same object: the tuple made at reset is the answer.
            return self._quiet[agent]
        return (
            self.observe(agent) if observe else None,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def agent_iter(self, max_iter: int = 2**63) -> Iterable[str]:  # type: ignore[override]
        """PettingZoo's ``agent_iter``, with the same behaviour (each ``iter()`` of the result
        starts a new count of ``max_iter``), through a generator: cheaper per action."""
        return _AgentIter(self, max_iter)

    def step(self, action: int | None) -> None:
        """Apply ``action`` (an id 0–55, ``None`` for a terminated agent) for the selected agent.

        Raises:
            ValueError: not an action id (``None`` included, for an agent still playing).
            IllegalActionError: the action is not legal now (its mask entry is 0).
        Either way nothing changes: the mask, rewards and the deal stay as they were.
        """
        if not self._playing:  # before reset(), or the deal is over: its agents are removed
            if self.deal is None:
                raise RuntimeError("step() before reset(): call reset() first")
            self._was_dead_step(action)
            return
        deal = self.deal
        agent = self.agent_selection
        if type(action) is not int or not 0 <= action < NUM_ACTIONS:
            action = int(action_of(action))  # a numpy integer; anything else is refused here
        # One engine call: the action (refused: raises, nothing changed) and the next mask.
        flags = deal.apply_id(action)
        # PettingZoo zeroes the actor's cumulative reward here; rewards come only at the end of
        # the deal (after which no agent acts), so it is already zero.
        infos = self.infos
        del infos[agent]["action_mask"]
        seat = deal.to_act
        if seat is None:  # over (the adapter's deals draw from their generator: no chance steps)
            self._playing = False
            for s, r in enumerate(deal_rewards(deal)):
                a = self.possible_agents[s]
                self.rewards[a] = r
                self.terminations[a] = True
                infos[a]["got_away"] = deal.has_got_away(s)
            self._accumulate_rewards()
            self.agent_selection = self._deads_step_first()
        else:
            out = deal.got_away_mask
            if out != self._out:
                self._out = out
                for s, a in enumerate(self.possible_agents):
                    if out >> s & 1:
                        infos[a]["got_away"] = True
            selected = self.agent_selection = self.possible_agents[seat]
            infos[selected]["action_mask"] = _ndarray(NUM_ACTIONS, _INT8, flags)
        if self._human:
            self.render()

    def render(self) -> str | None:
        """Text of the deal: hands, trick, waste size, whose turn. ``ansi``: returned;
        ``human``: printed, and ``None`` returned (PettingZoo's convention); no render mode:
        a warning and ``None``."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        deal = self.deal
        if deal is None:
            text = "(no deal yet: call reset())"
        else:
            lines = []
            for s in range(deal.players):
                cards = " ".join(str(c) for c in deal.hand(s)) or "(no cards)"
                if deal.has_got_away(s):
                    cards += " (got away)"
                lines.append(f"player_{s}: {cards}")
            lines.append("trick: " + " ".join(f"{s}:{c}" for s, c in deal.trick))
            lines.append(f"waste: {deal.waste_size} cards")
            lines.append("over" if deal.is_over else f"to act: player_{deal.to_act} ({deal.decision})")
            text = "\n".join(lines)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


class _AgentIter:
    """What :meth:`raw_env.agent_iter` returns: re-iterable like PettingZoo's ``AECIterable``."""

    __slots__ = ("env", "max_iter")

    def __init__(self, env: raw_env, max_iter: int) -> None:
        self.env = env
        self.max_iter = max_iter

    def __iter__(self) -> Iterator[str]:
        env = self.env
        left = self.max_iter
        while env.agents and left > 0:
            left -= 1
            yield env.agent_selection
