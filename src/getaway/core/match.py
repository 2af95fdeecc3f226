"""Match play: a series of deals with dealer selection, rotation, scores, stakes (R-P-SCORE,
R-C-SCORE, R-P-DEALER, R-C-DEALER, R-STAKES, V-BEGGAR, V-PROGRESSIVE, V-DEHLA, V-JOKER).

A :class:`Match` owns its deals; everything it reports (penalty points, standings, pot)
is computed from the deals' outcomes, so there is no second copy of the score to drift.
Chance (the first dealer, each deal's shuffle) comes from one seeded generator; or, where
hands are hidden from a person (a web room, the terminal game), each deal's shuffle seed comes
from a secret of at least 128 bits (``secret=``, :func:`secret_deal_seed`), so that no deal can
be recovered from the cards one seat holds, nor from the seeds of the deals already over.

>>> from getaway import Rules
>>> from getaway.bots import RandomBot, play_deal
>>> import random
>>> m = Match(Rules.profile("punjab", deals=2, takes="off"), ["A", "B", "C", "D"], seed=5)
>>> rng = random.Random(0)
>>> while not m.finished:
...     _ = play_deal(m.deal, [RandomBot()] * 4, rng)
...     if not m.finished:
...         _ = m.next_deal()
>>> [s.place for s in m.standings()] == sorted(s.place for s in m.standings())
True
"""

from __future__ import annotations

import hashlib
import hmac
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from .cards import Card
from .deal import Deal, replay
from .events import Action, IllegalActionError, Outcome
from .messages import N_, Text, TextError, at, default_names, error_text
from .record import RecordError, parse_record, record_of
from .rules import Rules

__all__ = [
    "Match",
    "Standing",
    "MatchError",
    "choose_dealer",
    "joker_receiver",
    "secret_deal_seed",
    "FORMAT",
    "SECRET_BYTES",
]

FORMAT: Final = "getaway-match/1"
#: Fewest bytes of a match secret (128 bits); ``secrets.token_bytes(32)`` makes a good one.
SECRET_BYTES: Final = 16


def joker_receiver(outcome: Outcome, dealer: int, players: int) -> int | None:
    """Who gets the Joker on top of the next deal (V-JOKER): the previous deal's first player
    out; if several shared first place, the first of them clockwise from that deal's dealer
    (``dealer``); ``None`` if nobody got away.

    >>> from getaway import Outcome
    >>> out = Outcome("last_holder", 0, ((1, 3), (2,)), (4, 1, 3, 1), 9, (0,) * 4, (0,) * 4)
    >>> joker_receiver(out, dealer=2, players=4), joker_receiver(out, dealer=0, players=4)
    (3, 1)
    """
    if not outcome.out_order:
        return None
    first = set(outcome.out_order[0])
    return next((dealer + i) % players for i in range(1, players + 1) if (dealer + i) % players in first)


class MatchError(TextError):
    """A match operation that is not possible now, or a corrupt saved match (a ``ValueError``
    whose message is a translatable :class:`~getaway.core.messages.Text`)."""


@dataclass(frozen=True)
class Standing:
    """One line of the match table.

    Attributes:
        seat: the seat.
        name: its player's name.
        points: penalty points (fewer is better).
        losses: deals lost.
        tens: tens captured (V-DEHLA tie-break; 0 otherwise).
        place: competition ranking (1, 2, 2, 4): by points, then more tens under V-DEHLA.
        chips: chips won minus chips paid (R-STAKES).
    """

    seat: int
    name: str
    points: int
    losses: int
    tens: int
    place: int
    chips: int


def choose_dealer(rules: Rules, rng: random.Random) -> tuple[int, list[list[tuple[int, Card]]]]:
    """The first dealer: by lot (R-P-DEALER) or by cutting (R-C-DEALER).

    Cutting: each player in the cut cuts one card of a shuffled pack; the lowest rank deals
    (2 low, A high); players tied on the lowest rank cut again among themselves.

    Returns:
        ``(dealer, rounds)``: ``rounds`` lists each cut as ``(seat, card)`` pairs (empty by lot).
    """
    n = rules.players
    if rules.dealer == "lot":
        return rng.randrange(n), []
    rounds: list[list[tuple[int, Card]]] = []
    cutters = list(range(n))
    while True:
        pack = list(range(52))
        rng.shuffle(pack)
        cut = [(seat, Card(pack[i])) for i, seat in enumerate(cutters)]
        rounds.append(cut)
        low = min(card.rank for _, card in cut)
        cutters = [seat for seat, card in cut if card.rank == low]
        if len(cutters) == 1:
            return cutters[0], rounds


def secret_deal_seed(secret: bytes, index: int) -> int:
    """The shuffle seed of deal ``index`` (0-based) of a match played with ``secret``: the first
    128 bits of HMAC-SHA256(secret, ``"getaway deal <index>"``), as an int in [0, 2**128).

    A keyed hash, so the seed of one deal (published in its record once it is over) tells
    nothing about the next one, and the 2**128 possible seeds cannot be searched from a hand.

    >>> secret_deal_seed(bytes(16), 0) == secret_deal_seed(bytes(16), 0) != secret_deal_seed(bytes(16), 1)
    True
    >>> secret_deal_seed(bytes(16), 0) < 2**128
    True
    """
    digest = hmac.new(secret, f"getaway deal {index}".encode("ascii"), hashlib.sha256).digest()
    return int.from_bytes(digest[:16], "big")


class Match:
    """A match of ``rules.deals`` deals among named players.

    Args:
        rules: the rules (``rules.players`` seats).
        players: the names, clockwise; or a number of seats (names ``Seat 1`` …).
        seed: seeds the first-dealer choice and (without ``secret``) every deal's shuffle:
            reproducible, for simulation, tests and research; each deal's seed is 32 bits.
        pot: chips already in the pot (the remainder of a previous match, R-STAKES).
        secret: at least :data:`SECRET_BYTES` bytes kept from every player: each deal's seed is
            then :func:`secret_deal_seed` (128 bits), and ``seed`` chooses only the first dealer.
            For play where hands are hidden from a person. A finished deal's record carries its
            seed and replays exactly either way.

    Raises:
        MatchError: wrong number of names, a negative pot, a secret that is not bytes or too short.
    """

    def __init__(
        self,
        rules: Rules,
        players: Sequence[str] | int,
        seed: int = 0,
        *,
        pot: int = 0,
        secret: bytes | None = None,
    ) -> None:
        names = default_names(players) if isinstance(players, int) else list(players)
        if len(names) != rules.players:
            message = N_("{k} names for rules.players={n}")
            raise MatchError(at("players", Text(message, k=len(names), n=rules.players)))
        if isinstance(pot, bool) or not isinstance(pot, int) or pot < 0:
            raise MatchError(at("pot", Text(N_("expected a whole number ≥ 0, got {value!r}"), value=pot)))
        if secret is not None and (not isinstance(secret, bytes) or len(secret) < SECRET_BYTES):
            message = N_("expected at least {n} bytes")
            raise MatchError(at("secret", Text(message, n=SECRET_BYTES)))
        self.secret: Final = secret
        self.rules: Final = rules
        self.names: Final = names
        self.seed: Final = seed
        self.pot_start: Final = pot
        self._rng = random.Random(seed)
        self.first_dealer, self.cuts = choose_dealer(rules, self._rng)
        self._deals: list[Deal] = []
        self._start_deal(self.first_dealer, None)

    # ------------------------------------------------------------------ deals

    @property
    def deal(self) -> Deal:
        """The current (last started) deal."""
        return self._deals[-1]

    @property
    def deals(self) -> tuple[Deal, ...]:
        """Every deal started so far, in order."""
        return tuple(self._deals)

    @property
    def finished(self) -> bool:
        """Whether all ``rules.deals`` deals have been played."""
        return len(self._deals) == self.rules.deals and self.deal.is_over

    def next_deal(self) -> Deal:
        """Start the next deal: the deal passes to the left (R-P-DEALER, R-C-DEALER) or to the
        loser (V-BEGGAR); under V-JOKER the previous deal's first player out gets the Joker.

        Raises:
            MatchError: the current deal is not over, or the match is finished.
        """
        if not self.deal.is_over:
            raise MatchError(Text(N_("the current deal is not over")))
        if self.finished:
            raise MatchError(Text(N_("the match is over")))
        previous = self.deal
        outcome = previous.outcome
        assert outcome is not None
        n = self.rules.players
        if self.rules.beggar and outcome.loser is not None:
            dealer = outcome.loser
        else:
            dealer = (previous.dealer + 1) % n
        joker_to = joker_receiver(outcome, previous.dealer, n) if self.rules.joker else None
        return self._start_deal(dealer, joker_to)

    def _start_deal(self, dealer: int, joker_to: int | None) -> Deal:
        if self.secret is not None:
            seed = secret_deal_seed(self.secret, len(self._deals))
        else:
            seed = self._rng.getrandbits(32)
        deal = Deal(self.rules, dealer, seed, joker_to=joker_to)
        self._deals.append(deal)
        return deal

    # ------------------------------------------------------------------ scores

    def deal_points(self, index: int) -> tuple[int, ...]:
        """Penalty points each seat scored in finished deal ``index`` (0-based).

        Plain: 1 for the loser (R-P-SCORE, R-C-SCORE). V-BEGGAR: a player's k-th lost deal
        costs k. V-PROGRESSIVE: the last place 3, the place before it 1 (each who shares it).
        A deal without a loser scores nothing.

        Raises:
            MatchError: that deal is not over.
        """
        outcome = self._deals[index].outcome
        if outcome is None:
            raise MatchError(Text(N_("deal {k} is not over"), k=index + 1))
        n = self.rules.players
        points = [0] * n
        loser = outcome.loser
        if loser is None:
            return tuple(points)
        if self.rules.progressive:
            points[loser] = 3
            if outcome.out_order:
                for seat in outcome.out_order[-1]:
                    points[seat] = 1
        elif self.rules.beggar:
            earlier = sum(1 for d in self._deals[:index] if d.outcome is not None and d.outcome.loser == loser)
            points[loser] = earlier + 1
        else:
            points[loser] = 1
        return tuple(points)

    def _finished_indices(self) -> range:
        return range(len(self._deals) if self.deal.is_over else len(self._deals) - 1)

    def pot(self) -> int:
        """Chips in the pot now (R-STAKES): the starting pot, every ante paid so far, the
        V-BEGGAR loser's extra chips; after the match, what stays for the next match."""
        paid = sum(self._paid())
        if self.finished:
            return self.pot_start + paid - sum(self._won())
        return self.pot_start + paid

    def _paid(self) -> list[int]:
        n = self.rules.players
        paid = [self.rules.ante * len(self._deals)] * n
        if self.rules.beggar:
            for i in self._finished_indices():
                loser = self._deals[i].outcome.loser  # type: ignore[union-attr]
                if loser is not None:
                    paid[loser] += 1
        return paid

    def _won(self) -> list[int]:
        n = self.rules.players
        won = [0] * n
        if not self.finished:
            return won
        total = self.pot_start + sum(self._paid())
        winners = [row.seat for row in self._table() if row.place == 1]
        share = total // len(winners)
        for seat in winners:
            won[seat] = share
        return won

    def _table(self) -> list[_Row]:
        n = self.rules.players
        points = [0] * n
        losses = [0] * n
        tens = [0] * n
        for i in self._finished_indices():
            for seat, p in enumerate(self.deal_points(i)):
                points[seat] += p
            outcome = self._deals[i].outcome
            assert outcome is not None
            if outcome.loser is not None:
                losses[outcome.loser] += 1
            for seat, captured in enumerate(outcome.captured_tens):
                tens[seat] += len(captured)
        key = [(points[s], -tens[s] if self.rules.dehla else 0) for s in range(n)]
        rows = []
        for s in range(n):
            place = 1 + sum(1 for t in range(n) if key[t] < key[s])
            rows.append(_Row(s, points[s], losses[s], tens[s], place))
        return rows

    def standings(self) -> list[Standing]:
        """The match table, best first (ties in seat order): places by penalty points, then
        (V-DEHLA) more captured tens; shared places use competition ranking (1, 2, 2, 4)."""
        rows = self._table()
        paid, won = self._paid(), self._won()
        table = [
            Standing(r.seat, self.names[r.seat], r.points, r.losses, r.tens, r.place, won[r.seat] - paid[r.seat])
            for r in rows
        ]
        return sorted(table, key=lambda s: (s.place, s.seat))

    # ------------------------------------------------------------------ save and resume

    def to_dict(self) -> dict[str, Any]:
        """The match as a JSON-ready dict (format ``getaway-match/1``): enough to resume it.

        Each deal is stored as its actions (poll passes omitted); resuming replays them. A
        match with a ``secret`` stores it (hex): the save reveals every deal to come.
        """
        data: dict[str, Any] = {
            "format": FORMAT,
            "rules": self.rules.to_dict(),
            "players": list(self.names),
            "seed": self.seed,
            "pot": self.pot_start,
            "first_dealer": self.first_dealer,
            "cuts": [[{"seat": s, "card": str(c)} for s, c in cut] for cut in self.cuts],
            "deals": [record_of(d, self.names) for d in self._deals],
            "standings": [s.__dict__ for s in self.standings()],
        }
        if self.secret is not None:
            data["secret"] = self.secret.hex()
        return data

    @classmethod
    def from_dict(cls, data: Any) -> Match:
        """Resume a match saved by :meth:`to_dict`: rebuild it from its seed and replay each
        deal's actions; the stored dealers, seeds and results must agree.

        Raises:
            MatchError: malformed data, or data that the replay contradicts (corrupt save).
        """
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise MatchError(at("format", Text(N_("expected a saved match ({format!r})"), format=FORMAT)))
        secret = data.get("secret")
        if secret is not None:
            try:
                secret = bytes.fromhex(secret)
            except (TypeError, ValueError):
                raise MatchError(at("secret", Text(N_("expected hexadecimal text")))) from None
        try:
            rules = Rules.from_dict(data["rules"])
            match = cls(rules, data["players"], data["seed"], pot=data.get("pot", 0), secret=secret)
        except KeyError as exc:
            raise MatchError(at(Text(N_("saved match")), Text.plain(str(exc)))) from None
        except (TypeError, ValueError) as exc:
            raise MatchError(at(Text(N_("saved match")), error_text(exc))) from None
        records = data.get("deals")
        if not isinstance(records, list) or not records:
            raise MatchError(at("deals", Text(N_("expected a non-empty list of deal records"))))
        if len(records) > rules.deals:
            message = N_("{k} deals saved for a match of {n}")
            raise MatchError(at("deals", Text(message, k=len(records), n=rules.deals)))
        for i, record in enumerate(records):
            if i:
                match.next_deal()
            deal = match.deal
            try:
                stored, actions, _names, _result = parse_record(record)
            except RecordError as exc:
                raise MatchError(at(f"deals[{i}]", exc.text)) from None
            if (stored.dealer, stored.seed, stored.joker_to) != (deal.dealer, deal.seed, deal.joker_to):
                message = N_("dealer/seed do not follow from the match seed (corrupt save)")
                raise MatchError(at(f"deals[{i}]", Text(message)))
            try:
                replay(deal, actions)
            except IllegalActionError as exc:
                raise MatchError(at(f"deals[{i}].actions[{getattr(exc, 'index', '?')}]", exc.text)) from None
            if i < len(records) - 1 and not deal.is_over:
                raise MatchError(at(f"deals[{i}]", Text(N_("not finished but followed by another deal"))))
        return match

    def apply(self, action: Action | str, seat: int | None = None) -> list[Any]:
        """Apply an action to the current deal (see :meth:`Deal.apply`)."""
        return self.deal.apply(action, seat)


@dataclass(frozen=True)
class _Row:
    seat: int
    points: int
    losses: int
    tens: int
    place: int
