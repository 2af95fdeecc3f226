"""``style:ismcts``: OpenSpiel's Python ISMCTS as a bot of the panel, through our adapter.

At each decision it deals the hidden cards at random consistently with its view
(:func:`~getaway.envs.openspiel.state_of_view`), then runs
``open_spiel.python.algorithms.ismcts.ISMCTSBot`` from that state with random-rollout
evaluation and our resampler (:func:`~getaway.envs.openspiel.resample`) for
``simulations`` simulations. Everything random comes from one seed drawn from the harness's
``rng``: the bot is deterministic given a seed. It needs OpenSpiel (``open_spiel``).

Two faster equivalents keep the search OpenSpiel's, move for move: the rollouts are
:class:`~getaway.envs.openspiel.RandomRollouts` (``mcts.RandomRolloutEvaluator``'s, played
on the engine's deal), and the root is resampled with one
:class:`~getaway.envs.openspiel.Worlds` (its view worked out once), which draws what
``resample(root, …)`` draws (tests/test_styles.py compares the actions; bench/ismcts_times.py
times them).

>>> import random
>>> from getaway import Deal, Rules, player_view
>>> deal = Deal(Rules.profile("punjab", takes="off"), seed=3)
>>> deal.play("A♠") and None
>>> view = player_view(deal, deal.to_act)
>>> ISMCTSStyle(simulations=20).act(view, view.legal_actions, random.Random(0)) in view.legal_actions
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import ClassVar

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts

from ..bots.settings import Setting
from ..bots.styles import ISMCTS_SETTINGS
from ..core.events import Action, action_from_id
from ..core.rules import Rules
from ..core.view import PlayerView
from .openspiel import SHORT_NAME, RandomRollouts, Worlds, params_of_rules, resample

__all__ = ["ISMCTSStyle"]


class ISMCTSStyle:
    """OpenSpiel's information-set MCTS (Cowling et al. 2012) with random rollouts.

    Args:
        simulations: simulations per decision (at least 1; the panel uses 200).
        uct_c: the UCT exploration constant.
        rollouts: random rollouts per leaf evaluation.

    Raises:
        ValueError: a setting out of range; at play, rules no environment plays
            (:func:`~getaway.envs.openspiel.rules_of_params`).
    """

    name = "style:ismcts"
    #: its settings (:mod:`getaway.bots.settings`), declared with the panel of styles
    SETTINGS: ClassVar[tuple[Setting, ...]] = ISMCTS_SETTINGS

    def __init__(self, simulations: int = 200, uct_c: float = 2.0, rollouts: int = 1) -> None:
        if isinstance(simulations, bool) or not isinstance(simulations, int) or simulations < 1:
            raise ValueError(f"simulations: expected a whole number of at least 1, got {simulations!r}")
        if isinstance(rollouts, bool) or not isinstance(rollouts, int) or rollouts < 1:
            raise ValueError(f"rollouts: expected a whole number of at least 1, got {rollouts!r}")
        if not float(uct_c) > 0:
            raise ValueError(f"uct_c: expected a positive number, got {uct_c!r}")
        self.simulations = simulations
        self.uct_c = float(uct_c)
        self.rollouts = rollouts
        self._games: dict[Rules, pyspiel.Game] = {}

    def _game(self, rules: Rules) -> pyspiel.Game:
        game = self._games.get(rules)
        if game is None:
            game = self._games[rules] = pyspiel.load_game(SHORT_NAME, params_of_rules(rules))
        return game

    def act(self, view: PlayerView, legal: Sequence[Action], rng: random.Random) -> Action:
        """The action ISMCTS chooses from ``view`` (one of ``legal``)."""
        if len(legal) == 1:
            return legal[0]
        game = self._game(view.rules)
        seed = rng.randrange(2**31)
        search_rng = random.Random(seed)
        rs = np.random.RandomState(seed)
        worlds = Worlds(game, view)
        state = worlds.draw(search_rng)  # state_of_view(game, view, search_rng)
        bot = ismcts.ISMCTSBot(
            game,
            RandomRollouts(self.rollouts, rs),
            uct_c=self.uct_c,
            max_simulations=self.simulations,
            random_state=rs,
        )
        # resample(state, player, search_rng), with the root's view worked out once: ISMCTS
        # resamples the root (the same information state) at every simulation
        bot.set_resampler(lambda s, p: worlds.draw(search_rng) if s is state else resample(s, p, search_rng))
        action = action_from_id(int(bot.step(state)))
        assert action in legal, f"ISMCTS chose {action}, not legal here"
        return action
