"""The ``heuristic`` bot: the seeds' strategy advice made concrete, with card counting.

It reads only its :class:`~getaway.core.view.PlayerView` and the view's
:class:`~getaway.core.knowledge.Knowledge` (cards played, known hands, proven voids), and
scores each legal action with a few rules of thumb:

- **punjab** (the holder of the highest led card picks up after a tochoo): lead where every
  opponent still to play very likely holds the suit (a strong, long suit early), and lead
  high only when it is safe; follow with the highest card that stays *under* the card
  winning the trick; be the highest card only when no tochoo can come (the last to play);
  dump the most dangerous card (high, in a short suit: it makes you void) on a tochoo and on
  the first trick; lead the Joker whenever possible (it is a free discard); take the
  neighbour's hand only in the narrow case where it pays (see :meth:`HeuristicBot.take_reason`).
- **classic** (the void player picks up): lead a suit an opponent must be void in (they pick
  up); otherwise cash a card nobody can beat to keep the lead, or lead low from a long suit;
  keep high cards for when the lead is needed; ruff rather than pick up (V-TRUMP).

>>> import random
>>> from getaway import Deal, Rules, player_view
>>> deal = Deal(Rules.profile("punjab", takes="off"), dealer=0, seed=5)
>>> view = player_view(deal, deal.to_act)
>>> str(HeuristicBot().act(view, view.legal_actions, random.Random(0)))
'A♠'
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import ClassVar

from ..core.cards import JOKER_INDEX, SPADES, SUIT_MASKS, Card
from ..core.events import PASS, PICKUP, TAKE, Action
from ..core.knowledge import Knowledge
from ..core.messages import N_, Reason
from ..core.view import PlayerView
from .random import RandomBot
from .settings import Setting
from .tips import Tip, parse_tips, winning_card

__all__ = ["HeuristicBot"]


def _rank(card: int) -> int:
    return card % 13 + 2


def _name(card: int) -> str:
    return str(Card(card))


class HeuristicBot:
    """Rule-of-thumb play from the view and card counting (no search, no chance).

    Args:
        takes: whether it ever takes a neighbour's hand (R-P-TAKE) when that pays.
        noise: chance, 0–1, that :meth:`act` plays as the ``random`` bot instead
            (:class:`~getaway.bots.random.RandomBot`: uniform, taking rarely): a weaker player
            for the levels (``easy``, ``medium``; 1 plays its cards as ``random``), deterministic
            given the ``rng`` it is handed. 0 (the default) never draws from ``rng``. Takes are
            never noisy (:meth:`act`).
        tips: seeds' tips switched on (:mod:`getaway.bots.tips`; none by default): names, or one
            string of names joined by ``/`` (``make_bot("heuristic:tips=keep-high")``). A tip
            switched on overrides the rules of thumb wherever it has a choice (the first tip
            named wins), and its :meth:`~getaway.bots.tips.Tip.keep` narrows the cards they
            choose from; ties among the tip's cards use the ``rng`` of :meth:`act`. This is the
            switch ``getaway lab`` (:mod:`getaway.sim.lab`) turns on and off.

    Raises:
        ValueError: ``noise`` outside 0–1, an unknown tip.
    """

    name = "heuristic"
    #: its settings (:mod:`getaway.bots.settings`): the tips as names joined by ``/``
    SETTINGS: ClassVar[tuple[Setting, ...]] = (
        Setting("takes", bool, True),
        Setting("noise", float, 0.0, low=0.0, high=1.0),
        Setting("tips", str, "", read=lambda bot: "/".join(tip.name for tip in bot.tips)),
    )

    def __init__(self, takes: bool = True, noise: float = 0.0, tips: str | Sequence[str] = "") -> None:
        if isinstance(noise, bool) or not isinstance(noise, (int, float)) or not 0.0 <= noise <= 1.0:
            raise ValueError(f"noise: {noise!r} is not between 0 and 1")
        self.takes = takes
        self.noise = float(noise)
        self.tips: tuple[Tip, ...] = parse_tips(tips)

    # ------------------------------------------------------------------ protocol

    def act(self, view: PlayerView, legal: Sequence[Action], rng: random.Random) -> Action:
        """The action the rules of thumb prefer; with probability ``noise`` a random legal card
        (or pickup) instead (``rng`` is used only then). Noise never applies to a take (R-P-TAKE):
        a take poll, and the take offered before a lead, are the rules of thumb's own decision, so
        a level is weaker in its card play, not by random takes; a lead the noise picks is then
        a random one among the other actions."""
        if self.noise and len(legal) > 1 and view.decision != "take":
            if TAKE in legal:
                chosen = self.choose(view, legal, rng=rng)[0]
                if chosen is TAKE:
                    return TAKE
                others = [a for a in legal if a is not TAKE]
                if len(others) > 1 and rng.random() < self.noise:
                    return others[rng.randrange(len(others))]
                return chosen
            if rng.random() < self.noise:
                return _RANDOM.act(view, legal, rng)
        return self.choose(view, legal, rng=rng)[0]

    def hint(self, view: PlayerView, legal: Sequence[Action], rng: random.Random) -> tuple[Action, str]:
        """The action and a one-sentence reason for it: an English :class:`~getaway.text.i18n.Reason`
        (:func:`getaway.text.i18n.localize` shows it in the current language)."""
        return self.choose(view, legal)

    def choose(
        self,
        view: PlayerView,
        legal: Sequence[Action],
        knowledge: Knowledge | None = None,
        rng: random.Random | None = None,
    ) -> tuple[Action, str]:
        """``(action, reason)`` for ``view`` among ``legal``; ``knowledge``: what the seat knows,
        if not ``view.knowledge`` (the expert's rollouts pass a lighter one); ``rng`` breaks the
        ties of the tips switched on (the first tied card without it)."""
        if len(legal) == 1:
            return legal[0], Reason(N_("It is the only legal action."))
        t = knowledge or view.knowledge
        if view.decision == "take":
            if TAKE in legal and self.takes:
                why = self.take_reason(view, t)
                if why:
                    return TAKE, why
            return PASS, Reason(N_("Taking the neighbour's hand would only add cards to yours."))
        cards = [a for a in legal if a not in (TAKE, PASS, PICKUP)]
        if TAKE in legal and self.takes and not view.trick:  # interject protocol: take before leading
            why = self.take_reason(view, t)
            if why:
                return TAKE, why
        if cards and self.tips:
            tipped = self._tipped(view, t, cards, legal, rng)
            if tipped is not None:
                return tipped
            for tip in self.tips:
                cards = tip.keep(view, cards)
        if not cards:
            return (PASS if PASS in legal else PICKUP), Reason(N_("There is nothing better to do."))
        if not view.trick:
            return self._lead(view, t, cards)
        return self._follow(view, t, cards, legal)

    def _tipped(
        self, view: PlayerView, t: Knowledge, cards: list[Card], legal: Sequence[Action], rng: random.Random | None
    ) -> tuple[Action, str] | None:
        """The first switched-on tip's choice at this decision (lead, follow or discard), among the
        cards every tip keeps; ``None`` when no tip has one."""
        kept = cards
        for tip in self.tips:
            kept = tip.keep(view, kept)
        following = bool(view.trick) and bool(view.hand_mask & SUIT_MASKS[view.led_suit or 0])
        for tip in self.tips:
            if not view.trick:
                chosen = tip.lead(view, t, kept, rng)
            elif following:
                chosen = tip.follow(view, t, kept, rng)
            else:
                chosen = tip.discard(view, t, kept, legal, rng)
            if chosen is not None:
                return chosen, Reason(N_("{action}, as the tip {tip} says."), action=str(chosen), tip=tip.name)
        return None

    # ------------------------------------------------------------------ helpers

    def _danger(self, t: Knowledge, hand: int, card: int) -> float:
        """How much a card hurts to keep: high, above most outstanding cards of its suit,
        in a short suit (shedding it makes a void)."""
        if card == JOKER_INDEX:
            return 30.0
        suit = card // 13
        out = t.outstanding(suit)
        below = (out & ((1 << card) - 1)).bit_count()
        above = (out >> (card + 1)).bit_count()
        length = (hand & SUIT_MASKS[suit]).bit_count()
        short = {1: 6.0, 2: 2.5}.get(length, 0.0)
        if not out:
            return 2.0 + short + _rank(card) * 0.1  # nobody else holds the suit: a dead card
        return _rank(card) * 0.5 + 1.2 * below - 0.8 * above + short

    def _pickup_risk(self, view: PlayerView, t: Knowledge, card: int, later: list[int], trick_size: int) -> float:
        """Chance that ``card`` is still the highest of its suit when a tochoo stops the trick
        (punjab), given the seats ``later`` still to play."""
        suit = card // 13
        out = t.outstanding(suit)
        n_out = out.bit_count()
        higher = (out >> (card + 1)).bit_count()
        risk = 0.0
        alive = 1.0
        for s in later:
            has = t.has_probability(s, suit)
            risk += alive * (1.0 - has)
            beat = has * (min(1.0, higher / n_out) if n_out else 0.0)
            if t.known[s] & out & ~((2 << card) - 1):
                beat = 1.0 if t.sizes[s] else beat
            alive *= has * (1.0 - beat)
            if alive < 1e-3:
                break
        return risk

    def _is_kick(self, view: PlayerView, t: Knowledge, card: int) -> bool:
        """V-KICKER: a lead above every card of its suit not yet in the waste."""
        if not view.rules.kicker or card == JOKER_INDEX:
            return False
        suit = card // 13
        higher = SUIT_MASKS[suit] & ~((2 << card) - 1)
        return not higher & (t.outstanding(suit) | view.hand_mask)

    # ------------------------------------------------------------------ leading

    def _lead(self, view: PlayerView, t: Knowledge, cards: list[Card]) -> tuple[Action, str]:
        if JOKER_INDEX in cards and len(cards) > 1:
            return Card(JOKER_INDEX), Reason(
                N_("Leading the Joker is a free discard: it goes to the waste and you lead again.")
            )
        if view.rules.profile == "punjab" and not view.rules.nopickup:
            return self._lead_punjab(view, t, cards)
        return self._lead_classic(view, t, cards)

    def _lead_punjab(self, view: PlayerView, t: Knowledge, cards: list[Card]) -> tuple[Action, str]:
        hand = view.hand_mask
        later = view.active_after()
        last = len(view.hand or ()) == 1
        best: tuple[float, int] | None = None
        best_why = ""
        for c in cards:
            suit = c // 13
            risk = 0.0 if self._is_kick(view, t, c) else self._pickup_risk(view, t, c, later, 1)
            out = t.outstanding(suit)
            higher = (out >> (c + 1)).bit_count()
            score = self._danger(t, hand, c) * (1.0 - risk) - risk * (6.0 + 1.5 * len(later))
            if last and higher == 0:
                score -= 8.0  # winning with the last card means drawing from the waste
            if score > (best[0] if best else -1e9):
                best = (score, c)
                if risk < 0.15:
                    length = (hand & SUIT_MASKS[suit]).bit_count()
                    if length == 1:
                        best_why = Reason(
                            N_("Lead {card}: everyone should follow, and it empties your {suit}."),
                            card=_name(c),
                            suit=suit,
                        )
                    else:
                        best_why = Reason(
                            N_(
                                "Lead {card}: every opponent very likely still holds {suit}, "
                                "so the trick should go to the waste."
                            ),
                            card=_name(c),
                            suit=suit,
                        )
                else:
                    best_why = Reason(
                        N_("Lead {card}: the lowest risk of a tochoo leaving you the highest card."), card=_name(c)
                    )
        assert best is not None
        return Card(best[1]), best_why

    def _lead_classic(self, view: PlayerView, t: Knowledge, cards: list[Card]) -> tuple[Action, str]:
        hand = view.hand_mask
        later = view.active_after()
        if len(cards) == 1 or len(view.hand or ()) == 1:
            return cards[0], Reason(N_("Lead your last card to get away."))
        nopickup = view.rules.nopickup
        # Aim at a proven void: the void player picks up what was played before them.
        if not nopickup:
            best = None
            for c in cards:
                suit = c // 13
                for i, s in enumerate(later):
                    if t.is_void(s, suit):
                        if view.rules.trump and s is not None and not t.is_void(s, SPADES) and suit != SPADES:
                            continue  # they could ruff
                        key = (i, _rank(c))  # the further away, the more cards they pick up
                        if best is None or key > best[0]:
                            best = (key, c, s)
                        break
            if best is not None:
                c, s = best[1], best[2]
                return c, Reason(
                    N_("Lead {card}: seat {seat} has no {suit} and must pick up."), card=_name(c), seat=s, suit=c // 13
                )
        # Cash a sure winner (nobody can beat it) to keep the lead, from a suit you are long in.
        winners = []
        for c in cards:
            out = t.outstanding(c // 13)
            if out and not out >> (c + 1):
                winners.append(c)
        if winners:
            c = max(winners, key=lambda c: ((hand & SUIT_MASKS[c // 13]).bit_count(), -_rank(c)))
            return c, Reason(N_("Lead {card}: nobody can beat it, so you keep the lead."), card=_name(c))
        # Otherwise lead low from the longest suit (keep short suits: a void makes you pick up).
        c = max(cards, key=lambda c: ((hand & SUIT_MASKS[c // 13]).bit_count(), -_rank(c)))
        return c, Reason(
            N_("Lead {card}, low from your longest suit, keeping your high cards for later."), card=_name(c)
        )

    # ------------------------------------------------------------------ following

    def _follow(self, view: PlayerView, t: Knowledge, cards: list[Card], legal: Sequence[Action]) -> tuple[Action, str]:
        hand = view.hand_mask
        led = view.led_suit
        assert led is not None
        following = bool(hand & SUIT_MASKS[led])
        punjab = view.rules.profile == "punjab"
        special = punjab and not view.first_trick_done
        if special:
            c = max(cards, key=lambda c: self._danger(t, hand, c) + (100 if c // 13 == SPADES else 0))
            if c // 13 == SPADES:
                return c, Reason(
                    N_("Play {card}: the first trick goes to the waste, so shed your highest spade."), card=_name(c)
                )
            return c, Reason(
                N_("Play {card}: you have no spade, so shed your most dangerous card for free."), card=_name(c)
            )
        if not following:
            return self._void(view, t, cards, legal)
        if punjab and not view.rules.nopickup:
            return self._follow_punjab(view, t, cards)
        return self._follow_classic(view, t, cards)

    def _void(self, view: PlayerView, t: Knowledge, cards: list[Card], legal: Sequence[Action]) -> tuple[Action, str]:
        hand = view.hand_mask
        led = view.led_suit
        assert led is not None
        if view.rules.tochoo_interrupts:
            plain = [c for c in cards if c == JOKER_INDEX or c // 13 != SPADES or not view.rules.trump]
            if plain:
                c = max(plain, key=lambda c: self._danger(t, hand, c))
                return c, Reason(
                    N_("Play {card} as a tochoo: someone else picks up, and it is your most dangerous card."),
                    card=_name(c),
                )
            c = min(cards)
            return c, Reason(N_("Ruff with {card}, your lowest spade: you have nothing else."), card=_name(c))
        # classic / no-pickup: ruff (V-TRUMP) rather than pick up or pass.
        spades = [c for c in cards if c // 13 == SPADES]
        if spades:
            win = winning_card(view)
            over = [c for c in spades if win // 13 != SPADES or c > win]
            c = min(over) if over else min(spades)
            if PICKUP in legal:
                return c, Reason(N_("Ruff with {card} instead of picking up the trick."), card=_name(c))
            return c, Reason(N_("Ruff with {card}: it sheds a card instead of passing."), card=_name(c))
        act = PASS if PASS in legal else PICKUP
        return act, Reason(N_("You cannot follow suit."))

    def _follow_punjab(self, view: PlayerView, t: Knowledge, cards: list[Card]) -> tuple[Action, str]:
        hand = view.hand_mask
        win = winning_card(view)
        trumped = view.rules.trump is not None and win // 13 == SPADES and view.led_suit != SPADES
        later = view.still_to_play()
        below = [c for c in cards if c < win or trumped]
        if below:
            c = max(below, key=lambda c: self._danger(t, hand, c))
            return c, Reason(
                N_("Play {card}: it stays under {winner}, so you cannot be the one to pick up."),
                card=_name(c),
                winner=_name(win),
            )
        if not later:
            c = max(cards, key=lambda c: self._danger(t, hand, c))
            return c, Reason(
                N_("Play {card}: you are the last to play, so no tochoo can follow; shed a high card."), card=_name(c)
            )
        best = None
        for c in cards:
            risk = self._pickup_risk(view, t, c, later, len(view.trick) + 1)
            score = self._danger(t, hand, c) * (1 - risk) - risk * (4.0 + 1.5 * len(view.trick))
            if best is None or score > best[0]:
                best = (score, c, risk)
        assert best is not None
        c = best[1]
        if best[2] < 0.15:
            return c, Reason(
                N_("Play {card}: the players after you almost surely follow, so shed a high card."), card=_name(c)
            )
        return c, Reason(
            N_("Play {card}: you must go over {winner}; this card leaves the best chance to be overtaken."),
            card=_name(c),
            winner=_name(win),
        )

    def _follow_classic(self, view: PlayerView, t: Knowledge, cards: list[Card]) -> tuple[Action, str]:
        win = winning_card(view)
        later = view.still_to_play()
        if len(view.hand or ()) == 1:
            return cards[0], Reason(N_("Play your last card and get away."))
        trumped = view.rules.trump is not None and win // 13 == SPADES and view.led_suit != SPADES
        winners = [c for c in cards if c > win and not trumped]
        sure = []
        for c in winners:
            out = t.outstanding(c // 13) >> (c + 1)
            if not later or not out:
                sure.append(c)
        if sure:
            c = min(sure)
            return c, Reason(
                N_("Win the trick with {card}, the cheapest sure winner: the leader never picks up."), card=_name(c)
            )
        c = min(cards)
        return c, Reason(N_("Play {card}, your lowest: keep the high cards for when you need the lead."), card=_name(c))

    # ------------------------------------------------------------------ takes

    def take_reason(self, view: PlayerView, t: Knowledge) -> str | None:
        """Why taking the left neighbour's hand pays now, or ``None`` (then pass).

        It pays (pagat's note) when the neighbour's few cards are all known, all low, in
        suits you hold, so that they cost you little; and taking removes a neighbour who
        is void in your suits (a tochoo right after your lead makes you pick up). Never
        with two players left (the taker would lose at once)."""
        me = view.seat
        later = view.active_after(me)
        if len(later) < 2:
            return None
        target = later[0]
        size = t.sizes[target]
        if size == 0 or size > 3 or t.known[target].bit_count() != size:
            return None
        theirs = t.known[target]
        mine = view.hand_mask
        low = all(_rank(c) <= 6 for c in _cards(theirs))
        my_suits = [s for s in range(4) if mine & SUIT_MASKS[s]]
        void_in_mine = sum(1 for s in my_suits if t.is_void(target, s))
        covered = all(mine & SUIT_MASKS[c // 13] for c in _cards(theirs) if c != JOKER_INDEX)
        if low and covered and void_in_mine >= 2 and len(view.hand or ()) <= 8:
            names = " ".join(_name(c) for c in _cards(theirs))
            return Reason(
                N_(
                    "Take seat {seat}'s hand ({cards}): low cards in your suits, "
                    "and it removes a neighbour who has none of your suits."
                ),
                seat=target,
                cards=names,
            )
        return None


_RANDOM = RandomBot()


def _cards(mask: int) -> list[int]:
    return [c for c in range(53) if mask >> c & 1]
