"""A batch of deals stepped together, one learner seat in each against random opponents: the
per-step loop of the vector environment (:mod:`getaway.envs.vector`, docs/envs.md "The vector
environment"). Standard library only, so that it is compiled with the engine (setup.py): the
learner's action, the opponents' moves, the observation and the legal mask of every deal of the
batch run in compiled code, written into two preallocated blocks that numpy wraps without a copy.

Each deal is what :class:`getaway.envs.gym.GetawayEnv` with ``opponents="random"`` plays, draw
for draw from the same generator (tests/test_envs_vector.py checks the arrays are the same):

- a reset draws the learner's seat (``seat=-1``: at random), the dealer and the deal's seed from
  the deal's ``random.Random``, lets the opponents play up to the learner's first decision, and
  deals again when they end the deal (or take the learner's hand) before it acts;
- an opponent with one legal action plays it; otherwise :func:`random_action` (the ``random``
  bot's rule) chooses;
- the reward comes at the end (:func:`learner_reward`): −1 for the loser, +1/(n−1) for each
  other player, 0 for all in a drawn deal.

The observation is :func:`~getaway.core.observation.seat_entries` of the learner's seat, the
one encoding, kept as its card planes' bit sets and its other entries (the vector environment
unpacks the planes for the whole batch at once with numpy: the same vector as
``getaway.envs.encoding.encode(player_view(...))``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

from .deal import Deal
from .events import NUM_ACTIONS, PASS, TAKE, Action, action_from_id
from .knowledge import Knowledge
from .observation import seat_entries
from .rules import Rules

__all__ = ["below", "random_action", "learner_reward", "LearnerBatch"]

_ACTIONS: Final = tuple(action_from_id(i) for i in range(NUM_ACTIONS))
_NO_MASK: Final = bytes(NUM_ACTIONS)
_BIT_LENGTHS: Final = tuple(n.bit_length() for n in range(NUM_ACTIONS + 1))


def below(rng: random.Random, n: int) -> int:
    """``rng.randrange(n)`` for ``n ≥ 1``, the same number from the same draws of ``rng``
    (CPython's ``_randbelow``: ``getrandbits`` of ``n``'s bit length until one is below ``n``;
    tests/test_envs_vector.py checks the streams agree), without ``randrange``'s checks."""
    k = _BIT_LENGTHS[n] if n <= NUM_ACTIONS else n.bit_length()
    r = rng.getrandbits(k)
    while r >= n:
        r = rng.getrandbits(k)
    return r


def random_action(legal: Sequence[Action], rng: random.Random, take_probability: float) -> Action:
    """The ``random`` bot's choice among ``legal`` (a non-empty list of legal actions): a take
    (R-P-TAKE) with probability ``take_probability`` when one is offered, else one of the other
    actions uniformly (``PASS`` when the take was the only one), drawn from ``rng``
    (:class:`getaway.bots.random.RandomBot` chooses with this function)."""
    if TAKE in legal:
        if rng.random() < take_probability:
            return TAKE
        legal = [a for a in legal if a != TAKE]
        if not legal:
            return PASS
    return legal[below(rng, len(legal))]


def learner_reward(deal: Deal, seat: int) -> float:
    """The terminal reward of ``seat`` in a deal that is over: −1 for the loser, +1/(n−1) for each
    other player, 0 for all in a drawn deal (R-C-TIE, R-LOOP); 0 while the deal goes on."""
    outcome = deal.outcome
    if outcome is None or outcome.loser is None:
        return 0.0
    return -1.0 if outcome.loser == seat else 1.0 / (deal.players - 1)


class LearnerBatch:
    """``count`` deals under ``rules``, each with a learner seat against random opponents (see the
    module docstring), stepped together.

    What a step leaves, deal ``i`` by deal ``i``, in blocks of native-order numbers that numpy
    wraps without a copy (``np.frombuffer``):

    - :attr:`rows`: the learner's observation's card planes (:func:`~getaway.core.observation.entries`'
      ``rows``): ``count × (2n + 1)`` ``uint64`` bit sets, bit ``c`` for card slot ``c`` (the
      first ``53 · (2n + 1)`` entries of the observation, row by row);
    - :attr:`small`: the observation's other entries, ``count × (8n + 6)`` ``float32``;
    - :attr:`masks`: ``count × 56`` bytes: the learner's legal actions by id (all zero once the
      deal is over);
    - :attr:`rewards`: ``count`` ``float64``, the learner's reward of the step;
      :attr:`terminated`: ``count`` bytes, 1 if the deal ended with the step;
    - :attr:`seats`: the learner's seat;
    - :attr:`actions`: the actions applied so far, every seat's (a counter, for benchmarks).

    Args:
        rules: the rules of every deal (takes polled, strict enforcement: the environments' rules).
        count: deals in the batch, at least 1.
        seat: the learner's seat, or −1 for a seat drawn at each reset.
        take_probability: the opponents' chance of taking when a take is offered (0–1).

    The caller (:mod:`getaway.envs.vector`) checks its arguments; an ``assert`` stops a ``count``
    below 1, a seat that is neither −1 nor a seat of the rules, or a probability outside 0–1.
    """

    def __init__(self, rules: Rules, count: int, seat: int, take_probability: float) -> None:
        n = rules.players
        assert count >= 1 and -1 <= seat < n and 0.0 <= take_probability <= 1.0, "bad batch arguments"
        self.rules = rules
        self.count = count
        self.players = n
        self.row_count = 2 * n + 1
        self.small_count = 8 * n + 6
        self.rows = bytearray(8 * self.row_count * count)
        self.small = bytearray(4 * self.small_count * count)
        self.masks = bytearray(NUM_ACTIONS * count)
        self.rewards = bytearray(8 * count)
        self.terminated = bytearray(count)
        self.seats: list[int] = [max(seat, 0)] * count
        self.actions = 0
        self._rows = memoryview(self.rows).cast("Q")
        self._small = memoryview(self.small).cast("f")
        self._rewards = memoryview(self.rewards).cast("d")
        self._last_rows: list[list[int]] = [[0] * self.row_count for _ in range(count)]
        self._last_small: list[list[float]] = [[0.0] * self.small_count for _ in range(count)]
        self._seat_choice = seat
        self._take_probability = take_probability
        self._rngs: list[random.Random] = [random.Random() for _ in range(count)]
        self._deals: list[Deal] = []
        self._knowledge: list[Knowledge] = []

    def seed(self, i: int, seed: int | None) -> None:
        """Make deal ``i``'s generator afresh from ``seed`` (``None``: from the system's entropy)."""
        self._rngs[i] = random.Random(seed)

    def deal(self, i: int) -> Deal:
        """Deal ``i`` as it stands (referee knowledge: for tests and tools, never for the learner)."""
        return self._deals[i]

    def reset(self, i: int) -> None:
        """A new deal ``i`` (see the module docstring), its observation and mask written."""
        rng = self._rngs[i]
        n = self.players
        seat = self.seats[i]
        while True:
            if self._seat_choice < 0:
                seat = rng.randrange(n)
            deal = Deal(self.rules, rng.randrange(n), rng.getrandbits(63))
            knowledge = Knowledge.of(deal, seat)
            self._opponents(deal, seat, rng)
            if not deal.is_over and deal.to_act == seat:
                break
        self.seats[i] = seat
        if i < len(self._deals):
            self._deals[i] = deal
            self._knowledge[i] = knowledge
        else:
            assert i == len(self._deals), "reset the deals of a batch in order the first time"
            self._deals.append(deal)
            self._knowledge.append(knowledge)
        self._rewards[i] = 0.0
        self.terminated[i] = 0
        self._observe(i, deal, seat)

    def reset_all(self) -> None:
        """:meth:`reset` every deal, in order."""
        for i in range(self.count):
            self.reset(i)

    def first_refused(self, actions: list[int]) -> int:
        """The first ``i`` whose ``actions[i]`` (``count`` of them) :meth:`step` cannot take: not an
        id 0–55, or not legal in row ``i`` of :attr:`masks` (a deal to be dealt again takes any
        id); −1 when there is none."""
        masks = self.masks
        terminated = self.terminated
        for i in range(self.count):
            a = actions[i]
            if a < 0 or a >= NUM_ACTIONS or (not terminated[i] and not masks[NUM_ACTIONS * i + a]):
                return i
        return -1

    def step(self, actions: list[int]) -> None:
        """One step of every deal: deal ``i`` whose last step ended it is :meth:`reset` (its action
        is ignored: Gymnasium's next-step autoreset); any other plays the learner's action
        ``actions[i]`` (an id legal in row ``i`` of :attr:`masks`: :meth:`first_refused` says
        which is not), then the opponents up to the learner's next decision or the end."""
        rng_list = self._rngs
        for i in range(self.count):
            if self.terminated[i]:
                self.reset(i)
                continue
            deal = self._deals[i]
            seat = self.seats[i]
            deal.apply(_ACTIONS[actions[i]], seat)
            self.actions += 1
            self._opponents(deal, seat, rng_list[i])
            if deal.is_over:
                self._rewards[i] = learner_reward(deal, seat)
                self.terminated[i] = 1
            self._observe(i, deal, seat)

    def _opponents(self, deal: Deal, seat: int, rng: random.Random) -> None:
        """The opponents' moves until the learner's decision or the end of ``deal``."""
        p = self._take_probability
        k = 0
        while not deal.is_over:
            s = deal.to_act
            if s is None or s == seat:
                break
            legal = deal.legal_actions(s)
            m = len(legal)
            if m == 1:
                action = legal[0]
            elif legal[0] is TAKE or legal[m - 1] is TAKE:  # the engine lists a take first or last
                action = random_action(legal, rng, p)
            else:  # random_action's choice when no take is offered, without looking for one
                action = legal[below(rng, m)]
            deal.apply(action, s)
            k += 1
        self.actions += k

    def _observe(self, i: int, deal: Deal, seat: int) -> None:
        """Deal ``i``'s observation and mask into the blocks: only the entries that changed."""
        rows, small = seat_entries(deal, seat, self._knowledge[i])
        block = self._rows
        old = self._last_rows[i]
        start = self.row_count * i
        for r in range(len(rows)):
            if rows[r] != old[r]:
                block[start + r] = rows[r]
        self._last_rows[i] = rows
        floats = self._small
        prev = self._last_small[i]
        start = self.small_count * i
        for j in range(len(small)):
            v = small[j]
            if v != prev[j]:
                floats[start + j] = v
        self._last_small[i] = small
        start = NUM_ACTIONS * i
        if deal.is_over:
            self.masks[start : start + NUM_ACTIONS] = _NO_MASK
        else:
            self.masks[start : start + NUM_ACTIONS] = deal.legal_mask(seat)
