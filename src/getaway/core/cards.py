"""Cards, suits and ranks, as small integers and bit sets (R-DECK).

A card is an :class:`int` from 0 to 52: ``suit * 13 + (rank - 2)`` for the 52
cards of the French pack (suits in the order ♠ ♥ ♦ ♣, ranks 2 … 14 where
11 = J, 12 = Q, 13 = K, 14 = A), and 52 for the Joker (variant V-JOKER).
A set of cards is an ``int`` bit set: bit ``card`` is set when the card is in
the set. Both choices keep the engine fast without hiding anything: every
card still prints as its standard name.

>>> Card.parse("10h"), Card.parse("qs"), str(Card.parse("TH"))
(Card('10♥'), Card('Q♠'), '10♥')
>>> [str(c) for c in cards_of(mask_of([Card.parse("AS"), Card.parse("2c")]))]
['A♠', '2♣']
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Final

from .messages import N_, Text, TextError

__all__ = [
    "SUITS",
    "SUIT_SYMBOLS",
    "SUIT_LETTERS",
    "SPADES",
    "HEARTS",
    "DIAMONDS",
    "CLUBS",
    "RANK_NAMES",
    "JOKER_INDEX",
    "Card",
    "InvalidCardError",
    "ACE_OF_SPADES",
    "JOKER",
    "FULL_PACK",
    "SUIT_MASKS",
    "mask_of",
    "cards_of",
    "count",
    "parse_cards",
    "highest_in_suit",
]

SPADES: Final = 0
HEARTS: Final = 1
DIAMONDS: Final = 2
CLUBS: Final = 3
SUITS: Final = (SPADES, HEARTS, DIAMONDS, CLUBS)
SUIT_SYMBOLS: Final = "♠♥♦♣"
SUIT_LETTERS: Final = "SHDC"
SUIT_NAMES: Final = ("spades", "hearts", "diamonds", "clubs")
#: Printed rank names, indexed by rank 2 … 14.
RANK_NAMES: Final = ("", "", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
JOKER_INDEX: Final = 52

_SUIT_PARSE = {
    "s": SPADES,
    "♠": SPADES,
    "♤": SPADES,
    "h": HEARTS,
    "♥": HEARTS,
    "♡": HEARTS,
    "d": DIAMONDS,
    "♦": DIAMONDS,
    "♢": DIAMONDS,
    "c": CLUBS,
    "♣": CLUBS,
    "♧": CLUBS,
}
_RANK_PARSE = {
    "2": 2,
    "3": 3,
    "4": 4,
    "5": 5,
    "6": 6,
    "7": 7,
    "8": 8,
    "9": 9,
    "10": 10,
    "t": 10,
    "j": 11,
    "q": 12,
    "k": 13,
    "a": 14,
}
_JOKER_NAMES = {"jk", "joker", "🃏", "jo"}


class InvalidCardError(TextError):
    """A card name or index that names no card; the message quotes the text (a ``ValueError``).

    >>> Card.parse("11h")
    Traceback (most recent call last):
    ...
    getaway.core.cards.InvalidCardError: not a card: '11h' (expected e.g. 10h, TH, Q♠, joker)
    """


class Card(int):
    """One card: an ``int`` 0–52 whose ``str()`` is the standard name (``10♥``, ``Q♠``, ``Jk``).

    Instances are shared (``Card(5) is Card(5)``), immutable and hashable; a
    ``Card`` compares and hashes as its index. Build one with :meth:`parse`
    (any accepted notation) or ``Card(index)``.

    Raises:
        InvalidCardError: the index is outside 0–52.
    """

    __slots__ = ()

    def __new__(cls, index: int) -> Card:
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index <= 52:
            raise InvalidCardError(Text(N_("not a card index: {index!r} (expected 0–52)"), index=index))
        return _TABLE[index]

    @classmethod
    def make(cls, rank: int, suit: int) -> Card:
        """The card of ``rank`` (2–14) and ``suit`` (0–3, ♠ ♥ ♦ ♣).

        Raises:
            InvalidCardError: rank or suit out of range.
        """
        if not (2 <= rank <= 14 and 0 <= suit <= 3):
            raise InvalidCardError(Text(N_("no card of rank {rank!r} and suit {suit!r}"), rank=rank, suit=suit))
        return _TABLE[suit * 13 + rank - 2]

    @classmethod
    def parse(cls, text: object) -> Card:  # not only str: anything else gets a clear error
        """Parse a card name: ``10♥``, ``10h``, ``TH``, ``th``, ``qs``, ``AS``, ``Jk``, ``joker``, ``🃏``.

        Surrounding spaces are ignored; case does not matter.

        Raises:
            InvalidCardError: the text names no card (the message quotes it).
        """
        if isinstance(text, Card):
            return text
        if not isinstance(text, str):
            raise InvalidCardError(Text(N_("not a card: {text!r} (expected a card name such as 10h)"), text=text))
        key = text.strip().lower()
        card = _NAME_TABLE.get(key)
        if card is None:
            raise InvalidCardError(Text(N_("not a card: {text!r} (expected e.g. 10h, TH, Q♠, joker)"), text=text))
        return card

    @property
    def is_joker(self) -> bool:
        """True for the Joker (V-JOKER)."""
        return self == JOKER_INDEX

    @property
    def suit(self) -> int | None:
        """Suit 0–3 (♠ ♥ ♦ ♣), or ``None`` for the Joker, which has no suit."""
        return None if self == JOKER_INDEX else self // 13

    @property
    def rank(self) -> int:
        """Rank 2–14 (J=11, Q=12, K=13, A=14); 0 for the Joker, which never wins."""
        return 0 if self == JOKER_INDEX else self % 13 + 2

    @property
    def bit(self) -> int:
        """This card as a one-card bit set."""
        return 1 << self

    @property
    def code(self) -> str:
        """Two-character ASCII code: ``TH``, ``QS``, ``2C``; ``JK`` for the Joker."""
        if self == JOKER_INDEX:
            return "JK"
        rank = RANK_NAMES[self.rank]
        return ("T" if rank == "10" else rank) + SUIT_LETTERS[self // 13]

    def __str__(self) -> str:
        return _STR[self]

    def __format__(self, spec: str) -> str:
        return format(_STR[self], spec)

    def __repr__(self) -> str:
        return f"Card('{_STR[self]}')"

    def __reduce__(self):  # pickle as the index (instances are shared)
        return (Card, (int(self),))

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: object) -> Card:
        return self


def _build() -> tuple[tuple[Card, ...], tuple[str, ...], dict[str, Card]]:
    table = tuple(int.__new__(Card, i) for i in range(53))
    names = []
    lookup: dict[str, Card] = {}
    for i in range(52):
        suit, rank = divmod(i, 13)
        rank += 2
        names.append(RANK_NAMES[rank] + SUIT_SYMBOLS[suit])
        for rank_text, r in _RANK_PARSE.items():
            if r != rank:
                continue
            for suit_text, s in _SUIT_PARSE.items():
                if s == suit:
                    lookup[rank_text + suit_text] = table[i]
    names.append("Jk")
    for name in _JOKER_NAMES:
        lookup[name] = table[JOKER_INDEX]
    return table, tuple(names), lookup


_TABLE, _STR, _NAME_TABLE = _build()

ACE_OF_SPADES: Final[Card] = _TABLE[12]
JOKER: Final[Card] = _TABLE[JOKER_INDEX]
#: The 52 cards of the French pack as a bit set (no Joker).
FULL_PACK: Final = (1 << 52) - 1
#: ``SUIT_MASKS[suit]``: the bit set of the 13 cards of that suit.
SUIT_MASKS: Final = tuple(0x1FFF << (13 * s) for s in SUITS)

# Cards of every 13-bit suit pattern, low to high, so that listing the cards of
# a hand is a few table look-ups instead of a loop over 53 bits.
_PATTERN_CARDS: Final = tuple(
    tuple(tuple(_TABLE[13 * s + r] for r in range(13) if pattern >> r & 1) for pattern in range(1 << 13)) for s in SUITS
)


def mask_of(cards: Iterable[int]) -> int:
    """The bit set of ``cards`` (cards or indices)."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of(mask: int) -> tuple[Card, ...]:
    """The cards of bit set ``mask``, in suit order ♠ ♥ ♦ ♣ then rank low to high, Joker last."""
    pc = _PATTERN_CARDS
    out = pc[0][mask & 0x1FFF] + pc[1][mask >> 13 & 0x1FFF] + pc[2][mask >> 26 & 0x1FFF] + pc[3][mask >> 39 & 0x1FFF]
    if mask >> JOKER_INDEX & 1:
        out += (JOKER,)
    return out


def suit_cards(mask: int, suit: int) -> tuple[Card, ...]:
    """The cards of ``suit`` in bit set ``mask``, low to high."""
    return _PATTERN_CARDS[suit][mask >> (13 * suit) & 0x1FFF]


def count(mask: int) -> int:
    """Number of cards in bit set ``mask``."""
    return mask.bit_count()


def highest_in_suit(mask: int, suit: int) -> Card | None:
    """The highest card of ``suit`` in bit set ``mask``, or ``None``."""
    m = mask & SUIT_MASKS[suit]
    return _TABLE[m.bit_length() - 1] if m else None


def parse_cards(texts: Iterable[str] | str) -> list[Card]:
    """Parse several card names (a list, or one string separated by spaces or commas).

    Raises:
        InvalidCardError: one name is not a card (the message quotes it).
    """
    if isinstance(texts, str):
        texts = [t for t in texts.replace(",", " ").split() if t]
    return [Card.parse(t) for t in texts]


def iter_cards(mask: int) -> Iterator[Card]:
    """Iterate the cards of ``mask`` in :func:`cards_of` order."""
    return iter(cards_of(mask))
