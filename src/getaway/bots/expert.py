"""The ``expert`` bot: determinized search (perfect-information Monte Carlo) over sampled worlds.

For a decision with more than one legal action it

1. samples hidden hands consistent with what its view's
   :class:`~getaway.core.knowledge.Knowledge` holds (sizes, known cards, voids, blind draws;
   :func:`getaway.core.worlds.sample`);
2. rebuilds each sampled world as a :class:`~getaway.core.deal.Deal` in the very same state
   (:func:`getaway.core.worlds.deal_of`: a position at the start of the current trick, the take poll answered
   as it was, the trick's cards replayed); with ``resample``, a world in which the cards
   the others have put on the table in this trick are not the ones the heuristic would
   have played is drawn again (the opponent model: see below);
3. scores every legal action in every world by playing the deal out with the heuristic in
   every seat, its own included (:mod:`~.model`: the rollouts meet exactly the play of
   heuristic opponents; at classic an opponent plays a random card now and then,
   ``opponent_noise``, so that other play is not a surprise), or, when few cards are
   left, by a search over its own later plays with the others still playing the
   heuristic; the score is 1 for not losing (plus a little for an early place), 0 for
   losing;
4. keeps the heuristic's own choice unless another action scores better by more than
   ``margin`` on the same worlds (common random numbers: every action meets the same
   worlds and the same luck, so the comparison is paired).

``rollout="light"`` restores the older playouts (a light version of the heuristic with a
little noise, and a max-n search in which every player plays perfectly).

The work is an iteration budget (``iterations`` = rollouts per decision, spread over the
legal actions), so play is deterministic for a given seed; ``time_limit`` optionally caps
the time as well (then play depends on the machine's speed).

>>> import random
>>> from getaway import Deal, Rules, player_view
>>> deal = Deal(Rules.profile("punjab", takes="off"), dealer=0, seed=5)
>>> while len(deal.legal_actions()) == 1:
...     _ = deal.apply(deal.legal_actions()[0])
>>> view = player_view(deal, deal.to_act)
>>> ExpertBot(iterations=40).act(view, view.legal_actions, random.Random(1)) in view.legal_actions
True
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from ..core.cards import JOKER_INDEX, SPADES, SUIT_MASKS, Card
from ..core.deal import Deal, trick_winner
from ..core.events import PASS, TAKE, Action, Call
from ..core.knowledge import Knowledge
from ..core.messages import N_, Reason
from ..core.position import Position
from ..core.rules import Rules
from ..core.view import PlayerView
from ..core.worlds import Inconsistent, World, deal_of, sample
from .heuristic import HeuristicBot
from .model import heuristic_action
from .settings import Setting

if TYPE_CHECKING:  # the learned value needs numpy: imported when used (the page's offline bots run without it)
    from .learned import ValueModel

__all__ = ["ExpertBot", "Inconsistent", "rebuild", "rollout_policy"]

#: Deepest line (moves) an endgame search follows before giving the world to a rollout: pickups
#: put cards back in the hands (classic), so a line can outlast Python's recursion limit.
MAX_SEARCH_DEPTH = 400

#: Default rollouts per decision (bench/bot_times.py and docs/bots.md give the time per decision;
#: three times as many did not play measurably better: docs/bots.md "Against the panel of styles").
DEFAULT_ITERATIONS = 160

#: Per profile, the default chance that an opponent in a heuristic rollout plays a random legal
#: card instead of the heuristic's (``opponent_noise``). At classic, a model that expects the
#: heuristic exactly loses against other play: against three plain-style opponents 15 % noise
#: cut the losses from 113 to 72 in 600 deals, for 42 → 47 against three heuristics (within
#: luck); against ISMCTS 58 → 50 in 200. At punjab the exact model is worth more than the noise
#: (against three heuristics 27 losses with noise, 21 without, on the same 300 deals) and already
#: holds every style to 5 %. docs/bots.md "A noisy opponent model at classic" has the runs.
OPPONENT_NOISE: dict[str, float] = {"punjab": 0.0, "classic": 0.15}

#: Per profile, the default leaf (``leaf``) of a search with heuristic rollouts: ``"value"`` where
#: the shipped value network, on the same duplicate deals, beat full rollouts head to head. Classic
#: 4p against three ISMCTS, 600 deals: 119 losses against 147, paired −0.19 a set (95 % CI −0.37
#: to −0.01), in less time. At punjab the rollouts stay: against three heuristics the network lost
#: 46 deals in 600 to their 39 (within luck, leaning against it). docs/bots.md "The learned
#: evaluation (issue 27)" has the runs.
LEAF: dict[str, str] = {"punjab": "rollout", "classic": "value"}


def rebuild(
    view: PlayerView, world: World, seed: int, model: HeuristicBot | None = None, public: Knowledge | None = None
) -> Deal:
    """:func:`getaway.core.worlds.deal_of`; with ``model``, every card another player put on
    the table in this trick is checked against the heuristic's choice in this world (the
    opponent model), with the public knowledge of the view (``public``: ``view.knowledge.public()``
    if already at hand).

    Raises:
        Inconsistent: with ``model``, someone would have played another card in this world.
        RuntimeError: the world cannot be rebuilt into the view's state (a bug).
    """
    if model is None:
        return deal_of(view, world, seed)
    if public is None:
        public = view.knowledge.public()
    at_trick = _at_trick_start(view, public)
    started = False

    def check(deal: Deal, seat: int, card: Action) -> bool:
        nonlocal started
        if not started:  # the rebuilt deal's events so far are its position and the poll
            at_trick.rebase(deal)
            started = True
        return heuristic_action(model, deal, at_trick) == card

    return deal_of(view, world, seed, check=check)


def _at_trick_start(view: PlayerView, public: Knowledge) -> Knowledge:
    """The public knowledge when the current trick began (before its first card)."""
    hist = view.history
    start = len(hist)
    if view.trick:
        lead = view.trick[0]
        plays = (i for i in range(len(hist) - 1, -1, -1) if hist[i].kind == "play")
        start = next(i for i in plays if (hist[i].seat, hist[i].cards[0]) == lead)
    sizes = list(view.hand_sizes)
    for s, _ in view.trick:
        sizes[s] += 1
    waste, first, stripped = public.start
    return Knowledge.from_history(
        view.rules,
        None,
        hist[:start],
        sizes,
        waste=waste,
        stripped=stripped,
        first_trick_done=first,
        leader=view.leader,
    )


#: Event kinds a finished trick may hold for :func:`plan_checks` to undo it.
_UNDOABLE = frozenset({"lead", "pass", "play", "tochoo", "ruff", "pickup", "waste", "out"})


@dataclass(frozen=True, slots=True)
class _Trick:
    leader: int
    plays: tuple[tuple[int, int], ...]
    picked: tuple[int, int] | None  # (seat, cards) of a pickup
    wasted: int


@dataclass(frozen=True, slots=True)
class CheckPlan:
    """The finished tricks to replay before the current one when checking a world, and the
    public facts at the start of the first of them (see :func:`rebuild_checked`)."""

    tricks: tuple[_Trick, ...]
    facts: Knowledge


def plan_checks(view: PlayerView, tricks: int) -> CheckPlan | None:
    """Up to ``tricks`` finished tricks before the current one that a world can be wound
    back through (plain plays, pickups and wastes: no take, blind draw or penalty in or
    just before them, and none in the current trick), or ``None`` where the rules' extras
    (Joker, no-pickup, penalties) make it unsafe."""
    rules = view.rules
    if rules.joker or rules.nopickup or rules.enforcement != "strict" or not view.first_trick_done:
        return None
    hist = view.history
    leads = [i for i, e in enumerate(hist) if e.kind == "lead"]
    if not leads or any(e.kind in ("take", "draw", "irregularity") for e in hist[leads[-1] :]):
        return None
    chosen: list[_Trick] = []
    start = leads[-1]
    for k in range(1, tricks + 1):
        if len(leads) < k + 1:
            break
        a, b = leads[-1 - k], leads[-k]
        events = hist[a:b]
        if any(e.kind not in _UNDOABLE for e in events):
            break
        before = hist[leads[-2 - k] if len(leads) >= k + 2 else 0 : a]
        if any(e.kind in ("draw", "take", "irregularity") for e in before):
            break  # a forced lead, or hands changed in ways the history does not spell out
        plays = tuple((e.seat, e.cards[0]) for e in events if e.kind == "play")
        picked = next(((e.seat, _bits(e.cards)) for e in events if e.kind == "pickup"), None)
        wasted = 0
        for e in events:
            if e.kind == "waste":
                wasted |= _bits(e.cards)
        chosen.append(_Trick(hist[a].seat, plays, picked, wasted))
        start = a
    if not chosen:
        return None
    sizes = list(view.hand_sizes)
    for s, _ in view.trick:
        sizes[s] += 1
    for trick in chosen:
        if trick.picked is not None:
            sizes[trick.picked[0]] -= trick.picked[1].bit_count()
        for s, _ in trick.plays:
            sizes[s] += 1
    facts = Knowledge.from_history(view.rules, None, hist[:start], sizes, leader=hist[start].seat)
    return CheckPlan(tuple(reversed(chosen)), facts)


def _bits(cards: Sequence[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def rebuild_checked(view: PlayerView, world: World, seed: int, model: HeuristicBot, plan: CheckPlan) -> Deal:
    """Like :func:`rebuild`, but wound back to the start of ``plan``'s tricks and replayed
    from there, checking every card another player chose (more than one legal card) against
    the heuristic's choice in this world, with the public facts of that moment.

    Raises:
        Inconsistent: someone would have played another card in this world.
        ValueError: the world cannot be rebuilt into the view's state (a bug).
    """
    hands = list(world.hands)
    for s, c in view.trick:
        hands[s] |= 1 << c
    waste = world.waste
    for trick in reversed(plan.tricks):
        if trick.picked is not None:
            seat, cards = trick.picked
            hands[seat] &= ~cards
        for s, c in trick.plays:
            hands[s] |= 1 << c
        waste &= ~trick.wasted
    leader = plan.tricks[0].leader if plan.tricks else view.leader
    deal = Deal(view.rules, view.dealer, seed, position=Position(tuple(hands), waste, leader, True, None))
    facts = plan.facts.copy()
    facts.read = deal.event_count
    me = view.seat
    for trick in (*plan.tricks, None):
        plays = view.trick if trick is None else trick.plays
        last = trick is None
        guard = 0
        while deal.decision == "take" and not (last and view.decision == "take" and deal.to_act == view.to_act):
            deal.apply(PASS)
            guard += 1
            if guard > 64:
                raise ValueError("rebuild: the take poll does not end")
        for s, c in plays:
            while deal.to_act != s:
                if PASS not in deal.legal_actions():
                    raise ValueError(f"rebuild: seat {s} cannot play {c} here")
                deal.apply(PASS)
            if s != me and heuristic_action(model, deal, facts) != c:
                raise Inconsistent(f"rebuild: seat {s} would not have played {c} in this world")
            deal.apply(c, s)
    while deal.to_act != view.to_act and PASS in deal.legal_actions():
        deal.apply(PASS)
    if deal.to_act != view.to_act or deal.decision != view.decision or deal.trick != view.trick:
        raise ValueError("rebuild: the rebuilt deal is not in the view's state")
    return deal


def rollout_policy(deal: Deal, rng: random.Random, epsilon: float = 0.1) -> Action:
    """A fast, light version of the heuristic for playouts: only the player's own hand and
    the trick on the table (plus a little noise), never a take."""
    legal = deal.legal_actions()
    if len(legal) == 1:
        return legal[0]
    if deal.decision == "take":
        return PASS
    cards = [a for a in legal if type(a) is Card]
    if not cards:
        return legal[0]
    if len(cards) > 1 and rng.random() < epsilon:
        return cards[rng.randrange(len(cards))]
    seat = deal.to_act
    hand = deal.hand_mask(seat)
    trick = deal.trick
    rules = deal.rules
    punjab = rules.tochoo_interrupts
    if not trick:
        if JOKER_INDEX in cards and len(cards) > 1:
            return Card(JOKER_INDEX)
        # lowest card of the longest suit
        return max(cards, key=lambda c: (hand & SUIT_MASKS[c // 13]).bit_count() * 16 - c % 13)
    led = trick[0][1] // 13
    if hand & SUIT_MASKS[led]:
        if punjab and not deal.first_trick_done:
            return cards[-1]  # highest spade on the first trick (it goes to the waste)
        win = trick_winner(trick, rules, deal.first_trick_done)[1]
        best = win if win // 13 == led else 99  # trumped: nothing of the led suit wins
        if punjab:
            below = [c for c in cards if c < best]
            if below:
                return below[-1]
            last = len(trick) + 1 >= len(deal.active)
            return cards[-1] if last else cards[0]
        return cards[0] if len(cards) > 1 else cards[0]
    # void: shed the most dangerous card (high, short suit); no ruff under punjab if avoidable
    if punjab:
        plain = [c for c in cards if c == JOKER_INDEX or not (rules.trump and c // 13 == SPADES)] or cards
        return max(
            plain, key=lambda c: 20 if c == JOKER_INDEX else c % 13 - 3 * (hand & SUIT_MASKS[c // 13]).bit_count()
        )
    return cards[0]  # a ruff (classic / no-pickup) rather than a pickup or pass


def _same(a: Action, b: Action, knowledge: Knowledge) -> bool:
    """Two cards of one suit with nothing between them that anyone else could play: playing
    one or the other is the same move (the other cards between are gone or in the hand)."""
    if type(a) is not Card or type(b) is not Card or a == JOKER_INDEX or b == JOKER_INDEX or a // 13 != b // 13:
        return a == b
    lo, hi = min(a, b), max(a, b)
    between = ((1 << hi) - 1) & ~((2 << lo) - 1)
    elsewhere = knowledge.outstanding(a // 13) | knowledge.trick
    return not between & elsewhere


def _distinct(legal: list[Action], knowledge: Knowledge) -> list[Action]:
    """``legal`` with equivalent cards collapsed (the highest of each run stands for it)."""
    out: list[Action] = []
    for a in sorted(legal, reverse=True):
        if not any(_same(a, b, knowledge) for b in out):
            out.append(a)
    return [a for a in legal if a in out]


def _settled(deal: Deal, seat: int) -> float | None:
    """The result for ``seat`` once it is known: the deal is over or ``seat`` got away."""
    if deal.is_over:
        return _utility(deal, seat)
    if deal._out >> seat & 1:
        place = 1
        for group in deal._out_order:
            if seat in group:
                break
            place += len(group)
        return 1.0 + 0.05 * (deal.players - place) / deal.players
    return None


def _utility(deal: Deal, seat: int) -> float:
    """1 for not losing, 0 for losing, plus a little for an early place."""
    outcome = deal.outcome
    assert outcome is not None
    if outcome.loser == seat:
        return 0.0
    return 1.0 + 0.05 * (deal.players - outcome.places[seat]) / deal.players


class _Budget(Exception):
    pass


class ExpertBot:
    """Determinized search over sampled worlds (see the module docstring).

    Args:
        iterations: rollouts per decision, spread over the legal actions (≥ 1 world each).
        time_limit: optional cap in seconds per decision (stops sampling new worlds).
        exact_cards: search exactly when at most this many cards remain in the hands.
        exact_nodes_per_iteration: exact-search nodes per iteration, for the whole decision
            (once spent, the remaining worlds are scored by rollouts).
        epsilon: noise of the rollout policy.
        margin: how much better (in average result) an action must be to overrule the
            heuristic's choice; sampling noise should not.
        take_search_cards: search a take decision only when the neighbour holds at most this
            many cards (or you hold at most 3); otherwise follow the heuristic (pass).
        rollout: ``"heuristic"`` (the heuristic in every seat, and a search over the bot's
            own plays in the endgame) or ``"light"`` (the light policy with ``epsilon``
            noise, and a max-n endgame search).
        resample: with the heuristic model, tries per world to draw hands in which the
            cards already played to the trick are the heuristic's choices (0: no check).
        check_tricks: with ``resample``, check the others' cards in up to this many finished
            tricks before the current one as well (:func:`rebuild_checked`).
        budget: cap on the moves simulated per decision (rollouts and endgame search together;
            ``None``: no cap); no new world is sampled once it is spent, so slow profiles (long
            deals, many players) think about as long as fast ones, and play stays deterministic.
        opponent_noise: with the heuristic model, the chance (0 to 1) that another seat plays
            a random legal card at a card decision of a rollout instead of the heuristic's
            (robustness against opponents that do not play like the heuristic); ``None``: the
            profile's default (:data:`OPPONENT_NOISE`). The endgame search keeps the exact model.
        leaf: ``"rollout"`` (play each world to the deal's end), ``"value"`` (play it with the
            heuristic to the end of the current trick and ``leaf_tricks`` more, then score the
            position with the learned value network, :mod:`getaway.bots.learned`; where no model
            is shipped for the profile and player count, full rollouts), or ``None``: the profile's
            default (:data:`LEAF`) with ``rollout="heuristic"``, full rollouts with ``"light"``.
            ``"value"`` needs ``rollout="heuristic"``.
            Another :class:`~getaway.bots.learned.ValueModel` than the shipped one (training,
            tests) is assigned to the bot's ``model`` attribute (it is not a setting).
        leaf_tricks: with ``leaf="value"``, the finished tricks after the current one before the
            value network scores the position.

    Raises:
        ValueError: a setting out of its range (iterations, time_limit, budget, opponent_noise,
            leaf_tricks), ``leaf="value"`` with ``rollout="light"``, or a ``model`` for another
            player count or profile than the deal's (at the first decision).
    """

    name = "expert"

    #: its settings (:mod:`getaway.bots.settings`): the constructor's keywords, as kept by the bot
    SETTINGS: ClassVar[tuple[Setting, ...]] = (
        Setting("iterations", int, DEFAULT_ITERATIONS, low=1),
        Setting("time_limit", float, None, optional=True, per_search=True),  # strictly positive
        Setting("exact_cards", int, 8),
        Setting("exact_nodes_per_iteration", int, 20),
        Setting("epsilon", float, 0.1),
        Setting("margin", float, 0.02),
        Setting("take_search_cards", int, 3),
        Setting("rollout", str, "heuristic", choices=("heuristic", "light")),
        Setting("resample", int, 0),
        Setting("check_tricks", int, 0),
        Setting("budget", int, None, low=1, optional=True),
        Setting("opponent_noise", float, None, low=0.0, high=1.0, optional=True),
        Setting("leaf", str, None, choices=("rollout", "value"), optional=True),
        Setting("leaf_tricks", int, 1, low=0),
    )

    def __init__(
        self,
        iterations: int = DEFAULT_ITERATIONS,
        time_limit: float | None = None,
        exact_cards: int = 8,
        exact_nodes_per_iteration: int = 20,
        epsilon: float = 0.1,
        margin: float = 0.02,
        take_search_cards: int = 3,
        rollout: str = "heuristic",
        resample: int = 0,
        check_tricks: int = 0,
        budget: int | None = None,
        opponent_noise: float | None = None,
        leaf: str | None = None,
        leaf_tricks: int = 1,
    ) -> None:
        if iterations < 1:
            raise ValueError(f"iterations: at least 1, not {iterations}")
        if time_limit is not None and time_limit <= 0:
            raise ValueError(f"time_limit: must be positive, not {time_limit}")
        if budget is not None and budget < 1:
            raise ValueError(f"budget: at least 1 move, not {budget}")
        self.budget = budget
        if opponent_noise is not None and not 0 <= opponent_noise <= 1:
            raise ValueError(f"opponent_noise: a chance from 0 to 1, not {opponent_noise}")
        self.opponent_noise = opponent_noise
        self._moves = 0
        self.iterations = iterations
        self.time_limit = time_limit
        self.exact_cards = exact_cards
        self.exact_nodes_per_iteration = exact_nodes_per_iteration
        self._nodes_left = 0
        self._last_losses: dict[Action, float] = {}
        self.epsilon = epsilon
        self.margin = margin
        self.take_search_cards = take_search_cards
        if rollout not in ("heuristic", "light"):
            raise ValueError(f"rollout: 'heuristic' or 'light', not {rollout!r}")
        self.rollout = rollout
        if leaf not in (None, "rollout", "value"):
            raise ValueError(f"leaf: 'rollout' or 'value', not {leaf!r}")
        if leaf == "value" and rollout != "heuristic":
            raise ValueError("leaf='value' needs rollout='heuristic'")
        if leaf_tricks < 0:
            raise ValueError(f"leaf_tricks: at least 0, not {leaf_tricks}")
        self.leaf = leaf
        self.leaf_tricks = leaf_tricks
        self.model: ValueModel | None = None  # another value network than the shipped one
        self.resample = resample
        self.check_tricks = check_tricks
        self._plan: CheckPlan | None = None
        self._fallback = HeuristicBot()

    def act(self, view: PlayerView, legal: Sequence[Action], rng: random.Random) -> Action:
        """The action with the best average result over the sampled worlds."""
        return self._search(view, legal, rng)[0]

    def hint(self, view: PlayerView, legal: Sequence[Action], rng: random.Random) -> tuple[Action, str]:
        """The action and a one-sentence reason (how often it loses in the sampled worlds)."""
        self._last_losses = {}
        action, stats, worlds = self._search(view, legal, rng)
        losses = self._last_losses
        if len(legal) == 1:
            return action, Reason(N_("It is the only legal action."))
        if not stats or action not in losses:
            return action, self._fallback.choose(view, legal)[1]
        verb = _verb(action)
        others = [v for a, v in losses.items() if a != action]
        if not others:
            return action, Reason(N_("{verb}: the other choices are equivalent cards."), verb=verb)
        if losses[action] > min(others):  # the heuristic's choice, kept within ``margin`` of the best
            template = N_(
                "{verb}: in {worlds} sampled deals it loses {loss:.0%} of the time; the best alternative's "
                "{best:.0%} is too close to call, so the usual play is kept."
            )
        else:
            template = N_(
                "{verb}: in {worlds} sampled deals it loses {loss:.0%} of the time, "
                "against {best:.0%} for the best alternative."
            )
        return action, Reason(template, verb=verb, worlds=worlds, loss=losses[action], best=min(others))

    def estimate(
        self, view: PlayerView, legal: Sequence[Action], rng: random.Random
    ) -> tuple[dict[Action, float], int]:
        """Each legal action's losing chance for the view's seat over the sampled worlds of one
        search (the same worlds for every action), and the number of worlds.

        Returns:
            ``(losses, worlds)``: ``losses[action]`` is a fraction in [0, 1] (equivalent cards,
            :func:`_same`, share their stand-in's); ``({}, 0)`` when nothing was searched (one
            legal action, a take not worth searching, no world could be rebuilt).
        """
        self._last_losses = {}
        _action, stats, worlds = self._search(view, legal, rng)
        losses = self._last_losses
        if not stats or not worlds:
            return {}, 0
        knowledge = view.knowledge
        out: dict[Action, float] = {}
        for a in legal:
            stand_in = a if a in losses else next((b for b in losses if _same(a, b, knowledge)), None)
            if stand_in is not None:
                out[a] = losses[stand_in]
        return out, worlds

    # ------------------------------------------------------------------ search

    def _search(
        self, view: PlayerView, legal: Sequence[Action], rng: random.Random
    ) -> tuple[Action, dict[Action, float], int]:
        legal = list(legal)
        if len(legal) == 1:
            return legal[0], {}, 0
        local = random.Random(rng.getrandbits(64))
        knowledge = view.knowledge
        me = view.seat
        assert me is not None
        # A take offered to a seat not to act (interject protocol, between tricks): ``legal`` is
        # ``[TAKE, PASS]``, PASS standing for not taking (the seat to act goes on).
        aside = me != view.to_act and TAKE in legal
        if (view.decision == "take" or aside) and not self._take_worth_searching(view):
            return self._fallback.choose(view, legal)[0], {}, 0
        start = time.perf_counter()
        self._plan = plan_checks(view, self.check_tricks) if self.resample and self.check_tricks else None
        noise = self.noise_for(view.rules)
        full = legal
        legal = _distinct(legal, knowledge)
        public = knowledge.public() if self.rollout == "heuristic" or self.resample else None
        self._public = public
        totals = dict.fromkeys(legal, 0.0)
        counts = dict.fromkeys(legal, 0)
        lost = dict.fromkeys(legal, 0)
        remaining = sum(view.hand_sizes) + len(view.trick)
        exact = remaining <= self.exact_cards
        worlds_target = max(1, self.iterations // len(legal))
        if exact:
            worlds_target = max(1, min(worlds_target, 24))
        worlds = 0
        failures = 0
        value_model = self._value_model(view.rules, view.players) if self._leaf(view.rules) == "value" else None
        stop = view.tricks_played + 1 + self.leaf_tricks if value_model is not None else None
        pending: list[tuple[Action, tuple[int, ...]]] = []  # positions the value network scores, in one batch
        if value_model is not None:
            from .learned import features, leaf_key
        self._nodes_left = self.iterations * self.exact_nodes_per_iteration
        self._moves = 0
        while worlds < worlds_target:
            if self.time_limit is not None and worlds and time.perf_counter() - start > self.time_limit:
                break
            if self.budget is not None and worlds and self._moves >= self.budget:
                break
            try:
                base = self._world(view, local)
            except Exception:  # a world that cannot be rebuilt: count it, fall back if it persists
                failures += 1
                if failures > 3:
                    break
                continue
            worlds += 1
            rollout_seed = local.getrandbits(32)  # common random numbers: every action meets the same luck
            facts = public.copy().rebase(base) if self.rollout == "heuristic" and public is not None else None
            # Each action is tried on the world itself and taken back (Deal.push/pop): cheaper than
            # a clone per action and per search node (bench/search.py); pop also takes back the
            # moves a search or rollout made after the push, and restores the generator.
            for action in legal:
                value = None
                # not taking: the world as it is (a copy: a rollout applies its moves, and only a
                # push lets pop take them back)
                world = base.clone() if aside and action is PASS else base
                if exact and self._nodes_left > 0:
                    nodes = self._nodes_left
                    if world is base:
                        base.push(action, me)
                    try:
                        if facts is not None:
                            value = self._solve_model(world, me, facts.copy())
                        else:
                            value = self._solve(world, me)
                    except _Budget:  # stopped mid-search: its moves are still pushed
                        value = None
                    _pop_to(base, 0)
                    self._moves += nodes - max(self._nodes_left, 0)
                    world = base.clone() if world is not base else base
                if value is None:
                    if world is base:
                        base.push(action, me)
                    if facts is not None:
                        value = self._model_rollout(world, me, facts.copy(), noise, rollout_seed, stop)
                        if value is None:  # stopped at a trick's start: the network scores it below
                            pending.append((action, leaf_key(world, me)))
                    else:
                        value = self._rollout(world, me, random.Random(rollout_seed))
                    _pop_to(base, 0)
                    if value is None:
                        continue
                totals[action] += value
                counts[action] += 1
                lost[action] += value < 0.5
        if pending:
            assert value_model is not None
            chances = value_model.predict(features([key for _, key in pending], view.players))
            for (action, _), p in zip(pending, chances.tolist(), strict=True):
                totals[action] += 1.0 - p
                counts[action] += 1
                lost[action] += p
        if not worlds:
            return self._fallback.choose(view, legal)[0], {}, 0
        stats = {a: totals[a] / counts[a] for a in legal if counts[a]}
        self._last_losses = {a: lost[a] / counts[a] for a in legal if counts[a]}
        # Near-ties (within ``margin``) go to the heuristic's choice, then to the first best action.
        preferred = self._fallback.choose(view, full)[0]
        stand_in = next((a for a in legal if _same(a, preferred, knowledge)), preferred)
        best = max(stats.values())
        tied = [a for a in legal if stats.get(a, -1) >= best - self.margin]
        action = stand_in if stand_in in tied else max(tied, key=lambda a: stats[a])
        if action == stand_in:
            stats[preferred] = stats.pop(stand_in)
            self._last_losses[preferred] = self._last_losses.pop(stand_in)
            action = preferred  # the heuristic's own card among equivalent ones
        return action, stats, worlds

    def _world(self, view: PlayerView, rng: random.Random) -> Deal:
        """A rebuilt sampled world; with ``resample``, one where the cards the others played
        in this trick are the ones the heuristic would have played (after that many tries,
        the last world drawn)."""
        plan = self._plan
        for _ in range(self.resample):
            world = sample(view.knowledge, rng)
            seed = rng.getrandbits(32)
            try:
                if plan is not None:
                    return rebuild_checked(view, world, seed, self._fallback, plan)
                return rebuild(view, world, seed, self._fallback, self._public)
            except Inconsistent:
                continue
        world = sample(view.knowledge, rng)
        return rebuild(view, world, rng.getrandbits(32))

    def noise_for(self, rules: Rules) -> float:
        """The chance (0 to 1) that another seat, at a card decision of a heuristic rollout,
        plays a random legal card instead of the heuristic's: ``opponent_noise`` if set, else
        :data:`OPPONENT_NOISE` for the rules' profile (``rules.profile``: RULES.md §2 ``punjab``,
        §3 ``classic``)."""
        if self.opponent_noise is not None:
            return self.opponent_noise
        return OPPONENT_NOISE.get(rules.profile, 0.0)

    def _take_worth_searching(self, view: PlayerView) -> bool:
        """Searching a take (R-P-TAKE) is worth it only when hands are small: taking a big hand
        never pays, and the poll comes before every trick."""
        n = view.players
        me = view.seat
        assert me is not None
        target = view.left_active()
        if target is None:
            target = me
        active = n - sum(view.got_away)
        return active > 2 and (view.hand_sizes[target] <= self.take_search_cards or view.hand_sizes[me] <= 3)

    def _leaf(self, rules: Rules) -> str:
        """The leaf of this bot's searches under ``rules``: ``leaf`` if set, else :data:`LEAF`
        for the rules' profile with heuristic rollouts (full rollouts with light ones)."""
        if self.leaf is not None:
            return self.leaf
        return LEAF.get(rules.profile, "rollout") if self.rollout == "heuristic" else "rollout"

    def _value_model(self, rules: Rules, players: int) -> ValueModel | None:
        """The value network for ``leaf="value"``: ``model`` if given, else the shipped one for the
        profile and seat count (``None``: there is none)."""
        if self.model is not None:
            if self.model.meta.get("players") != players:
                raise ValueError(f"model: made for {self.model.meta.get('players')} players, not {players}")
            if self.model.meta.get("profile") != rules.profile:
                raise ValueError(f"model: made for {self.model.meta.get('profile')!r}, not {rules.profile!r}")
            return self.model
        try:
            from .learned import shipped
        except ImportError:  # the page's offline bots (Pyodide, no numpy, no models): full rollouts
            return None
        return shipped(rules.profile, players)

    def _model_rollout(
        self, deal: Deal, me: int, facts: Knowledge, noise: float = 0.0, seed: int = 0, stop: int | None = None
    ) -> float | None:
        """Play ``deal`` out with the heuristic in every seat (``facts``: the public knowledge
        it follows); with ``noise`` (:meth:`noise_for`), at each card decision another seat
        plays a random legal card instead with that chance, drawn from a generator seeded with
        ``seed``. Returns ``me``'s result (:func:`_settled`; 0.5 if the deal does not end
        within 2,000 moves), or ``None`` once ``stop`` tricks are done and no card is on the
        table (a position for the value network: ``leaf="value"``)."""
        bot = self._fallback
        limit = 2000
        rng = random.Random(seed) if noise else None
        while True:
            value = _settled(deal, me)
            if value is not None:
                self._moves += 2000 - limit
                return value
            if stop is not None and deal.tricks_played >= stop and not deal.trick:
                self._moves += 2000 - limit
                return None
            if not limit:
                self._moves += 2000
                return 0.5
            limit -= 1
            if rng is not None and deal.to_act != me and deal.decision != "take" and rng.random() < noise:
                cards = [a for a in deal.legal_actions() if type(a) is Card]
                if len(cards) > 1:  # another card than the heuristic's, now and then
                    deal.apply(cards[rng.randrange(len(cards))])
                    continue
            deal.apply(heuristic_action(bot, deal, facts))

    def _solve_model(self, deal: Deal, me: int, facts: Knowledge) -> float:
        """Best result for ``me`` when the others play the heuristic (deterministic): a
        search over ``me``'s own plays only, within the node budget."""
        bot = self._fallback
        memo: dict[tuple, float] = {}

        def search(d: Deal, f: Knowledge, depth: int) -> float:
            while True:
                value = _settled(d, me)
                if value is not None:
                    return value
                legal = d.legal_actions()
                if d.to_act != me or len(legal) == 1:
                    self._nodes_left -= 1
                    if self._nodes_left < 0 or depth > MAX_SEARCH_DEPTH:
                        raise _Budget
                    depth += 1
                    d.apply(heuristic_action(bot, d, f))
                    continue
                break
            k = (tuple(d._hands), d.trick, d.decision, d.leader, d.forced_lead, d._out)
            hit = memo.get(k)
            if hit is not None:
                return hit
            if d.decision == "take":
                legal = [PASS]  # takes are judged at the root only
            best = -1.0
            for i, a in enumerate(legal):
                self._nodes_left -= 1
                if self._nodes_left < 0:
                    raise _Budget
                sub = f if i == len(legal) - 1 else f.copy()  # f is not read after the last child
                d.push(a, me)
                v = search(d, sub, depth + 1)
                d.pop()  # also takes back the heuristic's moves the child applied
                if v > best:
                    best = v
            memo[k] = best
            return best

        return search(deal, facts, 0)

    def _rollout(self, deal: Deal, me: int, rng: random.Random) -> float:
        eps = self.epsilon
        limit = 2000
        while not deal.is_over and limit:
            deal.apply(rollout_policy(deal, rng, eps))
            limit -= 1
        self._moves += 2000 - limit
        if not deal.is_over:
            return 0.5
        return _utility(deal, me)

    def _solve(self, deal: Deal, me: int) -> float:
        """Exact max-n value for ``me`` of ``deal`` (within the node budget)."""
        memo: dict[tuple, tuple[float, ...]] = {}
        n = deal.players

        def key(d: Deal) -> tuple:
            return (
                tuple(d.hand_mask(s) for s in range(n)),
                d.trick,
                d.to_act,
                d.decision,
                d.leader,
                d.forced_lead,
                d.active,
            )

        def values(d: Deal, depth: int) -> tuple[float, ...]:
            if d.is_over:
                return tuple(_utility(d, s) for s in range(n))
            k = key(d)
            hit = memo.get(k)
            if hit is not None:
                return hit
            self._nodes_left -= 1
            if self._nodes_left < 0 or depth > MAX_SEARCH_DEPTH:
                raise _Budget
            seat = d.to_act
            legal = d.legal_actions()
            if d.decision == "take":
                legal = [PASS]  # takes are judged at the root only
            elif len(legal) > 1:
                legal = [a for a in legal if a is not TAKE] or legal
            best: tuple[float, ...] | None = None
            for a in legal:
                d.push(a, seat)
                v = values(d, depth + 1)
                d.pop()
                if best is None or v[seat] > best[seat] + 1e-12:
                    best = v
            assert best is not None
            memo[k] = best
            return best

        return values(deal, 0)[me]


def _pop_to(deal: Deal, depth: int) -> None:
    """Take back the deal's pushes down to ``depth`` of them (Deal.pop)."""
    while deal.pushed > depth:
        deal.pop()


def _verb(action: Action) -> Reason:
    """``Take``, ``Pass``, ``Pick up`` or ``Play Q♥`` (translated where the hint is shown)."""
    if isinstance(action, Call):
        word = str(action)
        if word == "take":
            return Reason(N_("Take"))
        if word == "pass":
            return Reason(N_("Pass"))
        if word == "pickup":
            return Reason(N_("Pick up"))
        return Reason(word.capitalize())
    return Reason(N_("Play {card}"), card=str(action))
