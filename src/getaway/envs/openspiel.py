"""OpenSpiel Python game ``python_getaway``: one deal, with explicit chance (docs/envs.md).

Importing this module registers the game::

    import pyspiel
    import getaway.envs.openspiel  # registers python_getaway
    game = pyspiel.load_game("python_getaway", {"profile": "classic", "players": 5})

>>> import pyspiel
>>> game = pyspiel.load_game("python_getaway", {"players": 3, "takes": "off"})
>>> game.num_players(), game.num_distinct_actions(), game.max_chance_outcomes()
(3, 56, 53)

Parameters: ``profile``, ``players``, ``dealer`` (seat), and every rules option
(docs/rules.md) with the same name; ``trump`` is ``"spades"`` or ``"none"``,
``loaded_seat`` −1 for the dealer; ``take_protocol`` must be ``poll`` or ``off``
(a sequential game polls for takes). The :class:`pyspiel.GameInfo` is built from them
(players, chance outcomes: the pack size).

**Chance.** The shuffle is dealt one card at a time: chance node ``i`` chooses, uniformly
among the cards not yet chosen, the card at position ``i`` of the shuffled pack (chance
action = card id); the engine's own dealing rule (:func:`getaway.core.deal.deal_hands`, with
R-UNEVEN and the stripped cards) then gives position ``i`` to its seat. A blind draw
(R-P-DRAW) is a chance node too: after the action whose trick calls for a draw, the state
becomes a chance node whose outcomes are the cards of the waste as it was (chance action =
card id), uniform.

Every deal gets a stand-in generator through the engine's ``rng=`` hook: its ``shuffle``
puts the pack in the chosen order. Deals are made with ``explicit_chance=True``: an action
whose trick calls for a draw stops at the draw (the engine's ``decision == "draw"``), the
state is then a chance node with the engine's ``chance_outcomes()``, and the outcome is
applied to the same deal, which finishes the action (docs/envs.md "Engine hooks"): no clone.

**Observations.** Information-state and observation tensors are the shared encoding of the
player's view (:mod:`getaway.envs.encoding`); the strings list its non-zero entries by slice.
Both are the same summary of everything the player has seen (known cards, voids …), not a
perfect-recall record of the history.

**Resampling.** :func:`resample` deals the hidden cards again consistently with what one
player knows (hand sizes, known cards, proven voids, a blind draw someone else holds) and
returns a state with the same information state: use it as the resampler of
``open_spiel.python.algorithms.ismcts.ISMCTSBot`` (OpenSpiel's C++ MCTS/ISMCTS bots must
not be given Python games), with :class:`RandomRollouts` as its evaluator (OpenSpiel's random
rollouts, on the engine's deal) and :class:`Worlds` to resample one view many times.
Information-state strings are kept in the state until its next action (ISMCTS asks for a
node's key several times).
"""

from __future__ import annotations

import random
from typing import Any, Final

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

from ..core.cards import JOKER_INDEX, Card, cards_of
from ..core.deal import Deal, deal_hands
from ..core.events import NUM_ACTIONS, TAKE, action_from_id
from ..core.knowledge import Knowledge
from ..core.rules import Rules
from ..core.view import PlayerView, player_view
from ..core.worlds import SamplingError, deal_of, sample
from .encoding import encode, encode_seat, layout, observation_size
from .pettingzoo import deal_rewards, rules_from_options

__all__ = [
    "GetawayGame",
    "GetawayState",
    "RandomRollouts",
    "resample",
    "state_of_view",
    "Worlds",
    "rules_of_params",
    "params_of_rules",
    "SHORT_NAME",
]

SHORT_NAME = "python_getaway"
_JOKER_BIT = 1 << JOKER_INDEX

_SCHEMA: Final = Rules.schema()


def _parameters() -> dict[str, Any]:
    """Every parameter and its default, from the core's option schema (:meth:`Rules.schema`).

    OpenSpiel parameters have no ``None``: a choice's ``None`` is ``"none"``, a nullable
    number's is ``-1``; an option whose default differs between the profiles (``takes``,
    ``take_protocol``) defaults to ``"profile"`` (the profile's own). ``dealer`` is the first
    dealer's seat here (the rules' own dealer selection is not used: a game starts at a seat).
    """
    punjab = _SCHEMA["profiles"]["punjab"]["defaults"]
    classic = _SCHEMA["profiles"]["classic"]["defaults"]
    params: dict[str, Any] = {}
    for name, spec in _SCHEMA["options"].items():
        default = punjab[name]
        if name == "dealer":
            default = 0
        elif name != "profile" and default != classic[name]:
            default = "profile"
        elif default is None:
            default = "none" if spec["type"] == "choice" else -1
        params[name] = default
    return params


#: Every parameter and its default (OpenSpiel parameters have no ``None``).
_DEFAULTS: Final[dict[str, Any]] = _parameters()

_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Python Getaway (Bhabhi)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=8,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULTS,
)

# Longest deal seen in random play is a few hundred actions; R-LOOP ends every deal.
_MAX_GAME_LENGTH = 20_000


def rules_of_params(params: dict[str, Any]) -> tuple[Rules, int]:
    """The :class:`Rules` and dealer seat of a parameter dict (missing ones: defaults).

    Raises:
        RulesError: bad option. ValueError: what every environment refuses
        (:func:`~getaway.envs.pettingzoo.rules_from_options`: the interject protocol,
        ``enforcement="penalize"``), a ``trump`` other than ``"none"`` or ``"spades"``, bad dealer.
    """
    p = {**_DEFAULTS, **params}
    options: dict[str, Any] = {k: v for k, v in p.items() if k not in ("profile", "dealer")}
    for name, value in list(options.items()):
        spec = _SCHEMA["options"].get(name)
        if spec is None or value == "profile" and _DEFAULTS[name] == "profile":
            if spec is not None:
                del options[name]  # the profile's own default
            continue
        if spec["type"] == "choice" and None in spec["choices"]:
            if value not in ("none", "", None, *spec["choices"]):
                allowed = " or ".join(repr("none" if c is None else c) for c in spec["choices"])
                raise ValueError(f"{name}: {allowed}, not {value!r}")
            options[name] = None if value in ("none", "") else value
        elif spec["type"] == "int" and spec["nullable"] and isinstance(value, int) and value < 0:
            options[name] = None
    rules = rules_from_options({"profile": p["profile"], **options})  # polled takes, strict rules: as every adapter
    dealer = p["dealer"]
    if not 0 <= dealer < rules.players:
        raise ValueError(f"dealer: seat {dealer} does not exist with {rules.players} players")
    return rules, dealer


class _Order:
    """Stand-in generator for :func:`deal_hands` at setup: leaves the pack as it is and remembers it."""

    def __init__(self) -> None:
        self.pack: list[int] = []

    def shuffle(self, pack: list[int]) -> None:
        self.pack = list(pack)


class _Chance:
    """The generator given to every deal of this game (the engine's ``rng=`` hook): ``shuffle``,
    armed just before a deal is made, puts the pack in the order the dealing chance nodes
    chose. Blind draws never reach it (the deals have explicit chance). Shared by clones (it
    holds nothing between calls)."""

    def __init__(self) -> None:
        self.order: list[int] | None = None

    def shuffle(self, pack: list[int]) -> None:
        if self.order is None or sorted(self.order) != sorted(pack):  # the adapter checks each outcome first
            raise RuntimeError("dealing: the chosen order is not the pack (a bug in getaway.envs.openspiel)")
        pack[:] = self.order
        self.order = None

    def randrange(self, k: int) -> int:
        raise RuntimeError("blind draw: the deal should have stopped for it (a bug in getaway.envs.openspiel)")

    def __deepcopy__(self, memo: dict) -> _Chance:
        return self

    def __reduce__(self) -> tuple[Any, tuple[()]]:
        # Pickled (a deserialised or unpickled state): the copy is the module's one stand-in,
        # the one the adapter arms, not an unarmed twin.
        return _the_chance, ()


_CHANCE = _Chance()


def _the_chance() -> _Chance:
    return _CHANCE


def params_of_rules(rules: Rules) -> dict[str, Any]:
    """The game parameters of ``rules`` (the inverse of :func:`rules_of_params`; dealer 0).

    Raises:
        ValueError: rules no environment plays (:func:`rules_of_params` says which).
    """
    params: dict[str, Any] = {}
    for name in _DEFAULTS:
        if name == "dealer":
            continue
        value = getattr(rules, name)
        if value is None:
            value = "none" if _SCHEMA["options"][name]["type"] == "choice" else -1
        params[name] = value
    rules_of_params(params)  # refuse what the adapter refuses, with its message
    return params


class _Setup:
    """What a game's parameters fix: rules, dealer, the pack, which seat each pack position goes to."""

    def __init__(self, params: dict[str, Any]) -> None:
        self.rules, self.dealer = rules_of_params(params)
        order = _Order()
        hands, _ = deal_hands(self.rules, self.dealer, order)
        self.pack = tuple(order.pack)  # the cards dealt, stripped ones removed
        slot_seat = {}
        for seat, hand in enumerate(hands):
            for c in cards_of(hand):
                slot_seat[order.pack.index(c)] = seat
        self.slot_seat = tuple(slot_seat[i] for i in range(len(self.pack)))
        self.sorted_pack = sorted(self.pack)
        # chance_outcomes() while dealing, made once: outcome[k][card] = (card, 1 / cards left)
        # after k cards are dealt
        size = len(self.pack)
        self.outcome = [[(c, 1.0 / (size - k)) for c in range(JOKER_INDEX + 1)] for k in range(size)]

    def __deepcopy__(self, memo: dict) -> _Setup:
        # Fixed by the game's parameters and never changed: a state clone (pyspiel deep-copies
        # the state) shares it; copying its outcome table was most of a clone's time.
        return self


_SETUPS: dict[str, _Setup] = {}
_ACTIONS = tuple(action_from_id(i) for i in range(NUM_ACTIONS))
_TAKE = TAKE
_CHANCE_PLAYER = int(pyspiel.PlayerId.CHANCE)
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)


def _setup_of(game: pyspiel.Game) -> _Setup:
    # A game rebuilt by OpenSpiel (deserialisation) may skip __init__: derive from its parameters.
    params = {k: v for k, v in game.get_parameters().items() if k in _DEFAULTS}
    key = repr(sorted(params.items()))
    setup = _SETUPS.get(key)
    if setup is None:
        setup = _SETUPS[key] = _Setup(params)
    return setup


class GetawayGame(pyspiel.Game):
    """``python_getaway``: see the module docstring."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        setup = _Setup(params)
        self.rules, self.dealer = setup.rules, setup.dealer
        n = self.rules.players
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=53,
            num_players=n,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=_MAX_GAME_LENGTH,
        )
        super().__init__(_GAME_TYPE, info, params)

    def new_initial_state(self) -> GetawayState:
        return GetawayState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> _Observer:
        """The observer of a player's own observation: the shared encoding (docs/envs.md).

        ``iig_obs_type`` may be ``None`` or ask for the public information plus the player's
        own private information (``private_info=SINGLE_PLAYER``), with or without
        ``perfect_recall``: both give the same summary (the information state is not a
        perfect-recall history).

        Raises:
            ValueError: observation parameters, or any other observation type (public
                information only, or every player's private information), which this
                game does not provide.
        """
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        if iig_obs_type is not None and (
            not iig_obs_type.public_info or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
        ):
            asked = f"public_info={iig_obs_type.public_info}, private_info={iig_obs_type.private_info.name}"
            raise ValueError(
                f"observation type ({asked}): python_getaway gives a player's own observation only"
                " (public_info=True, private_info=SINGLE_PLAYER)"
            )
        return _Observer(_setup_of(self).rules.players)


class _Core:
    """The mutable part of a state, copied quickly by :func:`copy.deepcopy` (state clones)."""

    __slots__ = ("order", "left", "deal", "knowledge", "strings")

    def __init__(self, players: int, pack: list[int]) -> None:
        self.order: list[int] = []  # the pack as chosen so far (dealing chance nodes)
        self.left = pack  # the cards not chosen yet, in card order
        self.deal: Deal | None = None  # made with explicit chance: it stops at a blind draw
        self.knowledge: list[Knowledge | None] = [None] * players  # each seat's, made at its first observation
        self.strings: dict[int, str] = {}  # each seat's information-state string here, made when asked

    def __deepcopy__(self, memo: dict) -> _Core:
        other = _Core.__new__(_Core)
        other.order = list(self.order)
        other.left = list(self.left)
        other.deal = None if self.deal is None else self.deal.clone()
        other.knowledge = [None if k is None else k.copy() for k in self.knowledge]
        other.strings = dict(self.strings)
        return other


class GetawayState(pyspiel.State):
    """A state of ``python_getaway``: dealing (chance), playing, a blind draw (chance), over."""

    def __init__(self, game: GetawayGame) -> None:
        super().__init__(game)
        self._game_ref = _setup_of(game)
        self.core = _Core(self._game_ref.rules.players, list(self._game_ref.sorted_pack))

    # -- the engine state --

    @property
    def deal(self) -> Deal | None:
        """The engine's deal (``None`` while dealing). Referee knowledge."""
        return self.core.deal

    def current_player(self) -> int:
        deal = self.core.deal
        if deal is None:
            return _CHANCE_PLAYER
        seat = deal.to_act
        if seat is None:
            return _TERMINAL if deal.is_over else _CHANCE_PLAYER  # over, or a blind draw pending
        return seat

    # is_chance_node() and legal_actions() answer as pyspiel.State's do (tests/test_envs_openspiel.py
    # compares them), from Python: called from Python, pyspiel's own go through C++ and back
    # into current_player() / _legal_actions() (a third of a random game's time).

    def is_chance_node(self) -> bool:
        return self.current_player() == _CHANCE_PLAYER

    def legal_actions(self, *player: int) -> list[int]:  # type: ignore[override]
        if player:  # a given player: pyspiel's rules (chance outcomes at a chance node, ...)
            return pyspiel.State.legal_actions(self, *player)
        current = self.current_player()
        if current >= 0:
            return self._legal_actions(current)
        if current == _CHANCE_PLAYER:
            return [c for c, _ in self.chance_outcomes()]
        return []

    def _legal_actions(self, player: int) -> list[int]:
        deal = self.core.deal
        if deal is None:
            return []
        # legal_actions() lists cards in id order, then pass (54) / pickup (55) / take (53)
        legal = deal.legal_actions(player)
        if legal and legal[-1] is _TAKE:
            return sorted(legal)  # type: ignore[type-var]
        return legal  # type: ignore[return-value]  # Card and Call are ints: their action ids

    def information_state_string(self, *player: int) -> str:  # type: ignore[override]
        """``player``'s information-state string (default: the player to act), as pyspiel's
        (through :meth:`GetawayGame.make_py_observer`), answered from Python and kept until
        the next action: ISMCTS asks for it several times a node.

        Raises:
            pyspiel.SpielError: not a player's seat (pyspiel's own error, at a chance node or over).
        """
        p = player[0] if player else self.current_player()
        if not 0 <= p < self._game_ref.rules.players:
            return pyspiel.State.information_state_string(self, *player)
        return _string_of(self, p)

    def observation_string(self, *player: int) -> str:  # type: ignore[override]
        """``player``'s observation string: the same as :meth:`information_state_string` (one summary)."""
        p = player[0] if player else self.current_player()
        if not 0 <= p < self._game_ref.rules.players:
            return pyspiel.State.observation_string(self, *player)
        return _string_of(self, p)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The outcomes of a chance node with their probabilities; ``[]`` at any other node."""
        core = self.core
        deal = core.deal
        if deal is None:
            outcome = self._game_ref.outcome[len(core.order)]
            return [outcome[c] for c in core.left]
        return deal.chance_outcomes()  # type: ignore[return-value]  # a blind draw's (Card ids), or []

    def _apply_action(self, action: int) -> None:
        core = self.core
        game = self._game_ref
        deal = core.deal
        core.strings.clear()
        if deal is None:
            try:
                core.left.remove(action)
            except ValueError:
                raise ValueError(f"dealing: {action} is not one of the cards left to deal (chance_outcomes)") from None
            core.order.append(action)
            if len(core.order) == len(game.pack):
                _CHANCE.order = list(core.order)
                # deal_hands deals this order; the deal stops at each blind draw (a chance node)
                core.deal = Deal(game.rules, game.dealer, rng=_CHANCE, explicit_chance=True)
            return
        seat = deal.to_act
        if seat is None and not deal.is_over:  # the blind draw's outcome: the deal finishes the action
            if not any(c == action for c, _ in deal.chance_outcomes()):
                raise ValueError(f"blind draw: {action} is not one of the cards that can be drawn (chance_outcomes)")
            deal.apply(_ACTIONS[action])
            return
        deal.apply(_ACTIONS[action], seat)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            kind = "deal" if self.core.deal is None else "draw"
            return f"{kind} {Card(action)}"
        return str(action_from_id(action))

    def is_terminal(self) -> bool:
        deal = self.core.deal
        return deal is not None and deal.is_over

    def returns(self) -> list[float]:
        deal = self.core.deal
        if deal is None or not deal.is_over:
            return [0.0] * self._game_ref.rules.players
        return deal_rewards(deal)

    def observation_vector(self, player: int) -> np.ndarray:
        """The shared encoding of ``player``'s view (while dealing: the cards dealt to them so far)."""
        core = self.core
        n = self._game_ref.rules.players
        if core.deal is None:
            out = np.zeros(observation_size(n), dtype=np.float32)
            slot_seat = self._game_ref.slot_seat
            for i, c in enumerate(core.order):
                if slot_seat[i] == player:
                    out[c] = 1.0
            return out
        return encode_seat(core.deal, player, _knowledge_of(core, core.deal, player))

    def __str__(self) -> str:
        deal = self.core.deal
        if deal is None:
            return f"dealing {len(self.core.order)}/{len(self._game_ref.pack)}"
        hands = " | ".join(" ".join(str(c) for c in deal.hand(s)) for s in range(deal.players))
        trick = " ".join(f"{s}:{c}" for s, c in deal.trick)
        state = "over" if deal.is_over else f"{deal.decision} {deal.to_act}"
        if deal.drawer is not None:
            state = "draw pending"
        return f"{hands} || trick {trick} || waste {deal.waste_size} || {state}"


def _knowledge_of(core: _Core, deal: Deal, player: int) -> Knowledge:
    k = core.knowledge[player]
    if k is None:
        k = core.knowledge[player] = Knowledge.of(deal, player)
    return k


_SPANS: dict[int, tuple[list[str], list[int], np.ndarray]] = {}


def _spans(players: int) -> tuple[list[str], list[int], np.ndarray]:
    """The encoding's slices for ``players``: names, starts, and the starts with the end after them."""
    spans = _SPANS.get(players)
    if spans is None:
        names = list(layout(players))
        starts = [start for start, _ in layout(players).values()]
        spans = _SPANS[players] = (names, starts, np.array([*starts, observation_size(players)]))
    return spans


def _string_of(state: GetawayState, player: int) -> str:
    """``player``'s information-state string: the non-zero entries of the encoding by slice,
    ``name:i,j`` (``name:i=v`` where a value is not 1), after ``p<player>`` (and ``dealing<k>``
    while dealing); kept in the state until its next action."""
    core = state.core
    strings = core.strings
    string = strings.get(player)
    if string is not None:
        return string
    vec = state.observation_vector(player)
    parts = [f"p{player}"]
    if core.deal is None:
        parts.append(f"dealing{len(core.order)}")
    names, starts, bounds = _spans(len(core.knowledge))
    nz = np.flatnonzero(vec)
    cut = np.searchsorted(nz, bounds).tolist()
    index = nz.tolist()
    values = vec[nz].tolist()
    for k, name in enumerate(names):
        lo, hi = cut[k], cut[k + 1]
        if lo == hi:
            continue
        start = starts[k]
        if all(v == 1.0 for v in values[lo:hi]):
            parts.append(f"{name}:{','.join([str(i - start) for i in index[lo:hi]])}")
        else:
            entries = [f"{i - start}={v:.4g}" for i, v in zip(index[lo:hi], values[lo:hi], strict=True)]
            parts.append(f"{name}:{','.join(entries)}")
    string = strings[player] = " ".join(parts)
    return string


class _Observer:
    """The PyObserver of ``python_getaway``: the shared encoding, for info states and observations alike."""

    def __init__(self, players: int) -> None:
        self.tensor = np.zeros(observation_size(players), np.float32)
        self.dict: dict[str, np.ndarray] = {}
        for name, (start, shape) in layout(players).items():
            size = int(np.prod(shape))
            self.dict[name] = self.tensor[start : start + size].reshape(shape)

    def set_from(self, state: GetawayState, player: int) -> None:
        self.tensor[:] = state.observation_vector(player)

    def string_from(self, state: GetawayState, player: int) -> str:
        return _string_of(state, player)


pyspiel.register_game(_GAME_TYPE, GetawayGame)


# ---------------------------------------------------------------------- resampling


def resample(
    state: GetawayState, player: int, rng: random.Random | np.random.RandomState | None = None
) -> GetawayState:
    """A state with the same information state for ``player``, its hidden cards dealt again
    at random consistently with what ``player`` knows; for ISMCTS.

    What is kept: the player's own hand, everything public (the trick, the waste pile, hand
    sizes, who got away, whose turn), the cards known to be in each hand, proven voids, a
    card someone else drew blind (one of the waste's cards, in that hand, still to be led).
    The sampled world starts from a :class:`Position` at the start of the current trick
    and replays the trick's actions; public counters the encoding does not use (tricks
    played, pick-up counts, the R-LOOP memory) start afresh there, and the other seats keep
    only what anyone knows (:meth:`~getaway.core.knowledge.Knowledge.public`) plus their hand.

    Raises:
        ValueError: not a decision of ``player``.
    """
    core = state.core
    deal = core.deal
    if deal is None or deal.is_over or player != deal.to_act:  # (to_act is None at a blind draw)
        raise ValueError("resample: only at a decision of that player")
    if rng is None:
        rng = random.Random()
    elif isinstance(rng, np.random.RandomState):
        rng = random.Random(int(rng.randint(0, 2**31 - 1)))
    view = player_view(deal, player, _knowledge_of(core, deal, player))
    return state_of_view(state.get_game(), view, rng, order=core.order)


def state_of_view(
    game: pyspiel.Game, view: PlayerView, rng: random.Random, order: list[int] | None = None
) -> GetawayState:
    """A state of ``game`` at ``view``'s decision, the hidden cards dealt at random consistently
    with ``view.knowledge`` (what :func:`resample` returns; a bot that sees only its view, such
    as :class:`getaway.envs.ismcts.ISMCTSStyle`, starts its search from it).

    Args:
        game: a ``python_getaway`` game with ``view``'s rules.
        view: the view of the seat to act.
        rng: where the hidden cards come from.
        order: the dealing chance outcomes to record (default: the pack in card order; only
            the dealing phase reads them).

    Raises:
        RuntimeError: no consistent world in 50 tries (a knowledge bug).
    """
    return Worlds(game, view, order).draw(rng)


class Worlds:
    """The states of ``game`` at ``view``'s decision, drawn one at a time: :func:`state_of_view`
    with what does not change between draws (the view's encoding, the public knowledge) worked
    out once. ISMCTS draws a world per simulation from the same information state
    (:class:`getaway.envs.ismcts.ISMCTSStyle`).

    Args:
        game, view, order: as :func:`state_of_view`.
    """

    def __init__(self, game: pyspiel.Game, view: PlayerView, order: list[int] | None = None) -> None:
        self.game = game
        self.view = view
        self.order = None if order is None else list(order)
        self._target = encode(view).tobytes()
        self._public = view.knowledge.public()

    def draw(self, rng: random.Random) -> GetawayState:
        """A new state, its hidden cards drawn with ``rng`` (the same draws as :func:`state_of_view`).

        Raises:
            RuntimeError: no consistent world in 50 tries (a knowledge bug).
        """
        view = self.view
        player = view.seat
        knowledge = view.knowledge
        public = self._public
        for _attempt in range(50):
            try:
                new_deal = deal_of(view, sample(knowledge, rng), rng=_CHANCE, explicit_chance=True)
            except (SamplingError, RuntimeError, ValueError):
                continue
            new_state = GetawayState(self.game)
            new_core = new_state.core
            new_core.order = list(self.order) if self.order is not None else list(new_state._game_ref.pack)
            new_core.left = []
            new_core.deal = new_deal
            # the others keep what anyone knows, plus their hand in this world
            others: list[Knowledge | None] = [
                public.seen_by(s, new_deal.hand_mask(s)).rebase(new_deal) for s in range(view.players)
            ]
            mine = knowledge.copy().rebase(new_deal)
            others[player] = mine
            new_core.knowledge = others
            if new_deal.to_act == player and encode_seat(new_deal, player, mine).tobytes() == self._target:
                return new_state
        raise RuntimeError("resample: no consistent world found (a knowledge bug)")


class RandomRollouts(mcts.RandomRolloutEvaluator):
    """OpenSpiel's ``mcts.RandomRolloutEvaluator`` for ``python_getaway`` states, played on a
    copy of the engine's deal instead of a copy of the OpenSpiel state: the same rollouts
    (each action uniform among the legal ones in :meth:`GetawayState.legal_actions` order,
    each blind draw by its chance outcomes, drawn from ``random_state`` exactly as the parent
    draws them), the same returns, without a pyspiel call per action. Other states, and
    rollouts cut at ``max_length``, go to the parent.

    Args:
        n_rollouts, random_state, max_length: as ``mcts.RandomRolloutEvaluator``.
    """

    def evaluate(self, state: pyspiel.State) -> np.ndarray:
        """The mean returns (one per player) of ``n_rollouts`` random playouts from ``state``."""
        if not isinstance(state, GetawayState) or self.max_length is not None or state.core.deal is None:
            return super().evaluate(state)
        rs = self._random_state
        result = None
        for _ in range(self.n_rollouts):
            deal = state.core.deal.clone()
            while not deal.is_over:
                seat = deal.to_act
                if seat is None:  # a blind draw (R-P-DRAW): chance, as the parent draws it
                    action_list, prob_list = zip(*deal.chance_outcomes(), strict=True)
                    deal.apply(_ACTIONS[int(rs.choice(action_list, p=prob_list))])
                    continue
                legal = deal.legal_actions(seat)
                if legal[-1] is _TAKE:
                    legal.sort()  # the state's order (action ids)
                # rs.choice(legal) draws rs.randint(0, len(legal)): the same number, without an array
                deal.apply(legal[rs.randint(0, len(legal))], seat)
            returns = np.array(deal_rewards(deal))
            result = returns if result is None else result + returns
        return result / self.n_rollouts
