"""The rules object: a profile plus every option and variant of RULES.md.

One immutable :class:`Rules` value says which game is played. The two named
profiles (``punjab``, ``classic``) fix the structural rules (§2, §3); the
options (§4) and variants (§5) are fields with the profile's defaults.

>>> r = Rules.profile("punjab", players=5, trump="spades")
>>> r.players, r.trump, r.takes
(5, 'spades', 'any')
>>> Rules.from_dict(r.to_dict()) == r
True
>>> Rules.profile("punjab", players=2)
Traceback (most recent call last):
...
getaway.core.rules.RulesError: players: punjab is for 3 to 8 players, not 2
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from .messages import N_, Text, TextError, at

__all__ = ["Rules", "RulesError", "PROFILES", "OPTION_CHOICES"]

Profile = Literal["punjab", "classic"]

PROFILES: Final = ("punjab", "classic")

#: Allowed values of each option that takes one of a few words.
OPTION_CHOICES: Final[dict[str, tuple[Any, ...]]] = {
    "profile": PROFILES,
    "dealer": ("lot", "cut"),
    "uneven": ("round_robin", "loaded", "strip"),
    "takes": ("any", "leader", "off"),
    "take_protocol": ("poll", "interject", "off"),
    "enforcement": ("strict", "penalize"),
    "trump": (None, "spades"),
}

_BOOL_OPTIONS: Final = ("nopickup", "kicker", "dehla", "joker", "beggar", "progressive")

# Pairs of variants that contradict each other (issue 3; docs/rules.md, "Combining variants").
_TRUE: Final = frozenset({"true", "yes", "on", "1"})
_FALSE: Final = frozenset({"false", "no", "off", "0"})

_EXCLUSIVE: Final = (
    ("nopickup", "kicker", N_("a kick makes someone pick up; no-pickup says nobody ever does")),
    ("beggar", "progressive", N_("both set the penalty points of a lost deal, in different ways")),
)

_PLAYER_RANGE: Final = {"punjab": (3, 8), "classic": (2, 8)}

# Messages said by several checks (docs/cli.md, "Languages": translated by the command line).
_UNKNOWN_OPTION: Final = N_("unknown option (known: {known})")
_EXPECTED_BOOL: Final = N_("expected true or false, got {value!r}")
_EXPECTED_INT: Final = N_("expected a whole number, got {value!r}")
_NO_SUCH_SEAT: Final = N_("seat {seat} does not exist with {n} players")


class RulesError(TextError):
    """An option that does not exist, has a wrong value, or clashes with another (a ``ValueError``).

    The message starts with the option's name (``players: …``, ``ante: …``),
    or both names for a clash (``nopickup+kicker: …``).

    Attributes:
        option: the option's name (or both names joined by ``+``).
        message: what is wrong with it (usually a translatable :class:`~getaway.core.messages.Text`).
    """

    def __init__(self, option: str, message: str) -> None:
        super().__init__(at(option, message))
        self.option = option
        self.message = message


@dataclass(frozen=True)
class Rules:
    """Profile and options of one game (RULES.md §1–§5); immutable and hashable.

    Build it with :meth:`profile` (named profile + overrides) or
    :meth:`from_dict`; every constructor validates and raises
    :class:`RulesError` naming the offending option.

    Attributes:
        profile: ``"punjab"`` (seeds 001/003/004) or ``"classic"`` (seeds 000/002).
        players: number of seats (punjab 3–8, classic 2–8; R-P-PLAYERS, R-C-PLAYERS).
        dealer: first-dealer selection, ``"lot"`` (R-P-DEALER) or ``"cut"`` (R-C-DEALER).
        uneven: R-UNEVEN, ``"round_robin"``, ``"loaded"`` or ``"strip"``.
        loaded_seat: with ``uneven="loaded"``, the seat that gets every extra card;
            ``None`` means the dealer.
        takes: who may take the left hand (R-P-TAKE): ``"any"``, ``"leader"``, ``"off"``.
        take_protocol: how takes are offered: ``"poll"`` or ``"interject"``
            (``"off"`` is accepted and means ``takes="off"``).
        enforcement: R-P-PENALTY, ``"strict"`` (refuse) or ``"penalize"`` (referee).
        deals: number of deals in a match (R-P-SCORE, R-C-SCORE), ≥ 1.
        ante: chips each player pays into the pot before each deal (R-STAKES), ≥ 0.
        trump: ``None`` or ``"spades"`` (V-TRUMP).
        nopickup, kicker, dehla, joker, beggar, progressive: variants V-NOPICKUP,
            V-KICKER, V-DEHLA, V-JOKER, V-BEGGAR, V-PROGRESSIVE.
    """

    profile: Profile = "punjab"
    players: int = 4
    dealer: str = "lot"
    uneven: str = "round_robin"
    loaded_seat: int | None = None
    takes: str = "any"
    take_protocol: str = "poll"
    enforcement: str = "strict"
    deals: int = 7
    ante: int = 0
    trump: str | None = None
    nopickup: bool = False
    kicker: bool = False
    dehla: bool = False
    joker: bool = False
    beggar: bool = False
    progressive: bool = False
    # Derived from the profile, not options (kept as fields for speed in the deal loop).
    special_first_trick: bool = field(default=True, init=False, compare=False, repr=False)
    tochoo_interrupts: bool = field(default=True, init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._validate()
        punjab = self.profile == "punjab"
        object.__setattr__(self, "special_first_trick", punjab)
        # Under punjab a void player plays a card that interrupts the trick;
        # under classic (and no-pickup) a void player plays no card.
        object.__setattr__(self, "tochoo_interrupts", punjab and not self.nopickup)
        if self.take_protocol == "off" or self.takes == "off":
            object.__setattr__(self, "takes", "off")
            object.__setattr__(self, "take_protocol", "off")

    # -- construction -----------------------------------------------------------------

    @classmethod
    def profile_defaults(cls, profile: str) -> dict[str, Any]:
        """The seeds' defaults of a named profile, as a dict of options.

        Raises:
            RulesError: unknown profile name.
        """
        if profile == "punjab":
            return {"profile": "punjab", "dealer": "lot", "takes": "any", "take_protocol": "poll"}
        if profile == "classic":
            return {"profile": "classic", "dealer": "cut", "takes": "off", "take_protocol": "off"}
        message = N_("unknown profile {profile!r} (expected one of: {known})")
        raise RulesError("profile", Text(message, profile=profile, known=", ".join(PROFILES)))

    @classmethod
    def _named(cls, name: str = "punjab", **options: Any) -> Rules:
        """Named profile ``name`` with ``options`` overriding its defaults.

        >>> Rules.profile("classic").takes
        'off'

        Raises:
            RulesError: unknown profile, unknown option, bad value or clash.
        """
        values = cls.profile_defaults(name)
        if "profile" in options and options["profile"] != name:
            raise RulesError("profile", Text(N_("given twice: {a!r} and {b!r}"), a=name, b=options["profile"]))
        # Turning takes on in a profile whose default is off picks the poll protocol.
        if options.get("takes", "off") != "off" and "take_protocol" not in options and values["take_protocol"] == "off":
            values["take_protocol"] = "poll"
        if options.get("take_protocol", "off") != "off" and "takes" not in options and values["takes"] == "off":
            values["takes"] = "any"
        values.update(options)
        return cls._build(values)

    @classmethod
    def from_dict(cls, data: Any) -> Rules:
        """Rules from a plain dict (as in a game record); missing options take the profile's defaults.

        Raises:
            RulesError: not a dict, no/unknown profile, unknown option or bad value.
        """
        if not isinstance(data, dict):
            raise RulesError("rules", Text(N_("expected an object of options, got {kind}"), kind=type(data).__name__))
        options = dict(data)
        name = options.pop("profile", "punjab")
        if not isinstance(name, str):
            raise RulesError("profile", Text(N_("expected a profile name, got {value!r}"), value=name))
        return cls._named(name, **options)

    @classmethod
    def _build(cls, values: dict[str, Any]) -> Rules:
        names = {f.name for f in dataclasses.fields(cls) if f.init}
        for key in values:
            if key not in names:
                raise RulesError(str(key), Text(_UNKNOWN_OPTION, known=", ".join(sorted(names))))
        return cls(**values)

    def replace(self, **changes: Any) -> Rules:
        """A copy with ``changes`` applied and validated.

        Raises:
            RulesError: as :meth:`profile`.
        """
        data = self.to_dict()
        data.update(changes)
        return Rules.from_dict(data)

    @classmethod
    def options_from_text(cls, pairs: Any) -> dict[str, Any]:
        """Options from ``NAME=VALUE`` strings (a command line's ``-o trump=spades``), typed by
        the option: ``true``/``false`` for variants, whole numbers for counts, ``none`` for
        no trump. Values are checked later, when rules are built.

        >>> Rules.options_from_text(["trump=spades", "dehla=yes", "ante=2", "takes=off"])
        {'trump': 'spades', 'dehla': True, 'ante': 2, 'takes': 'off'}

        Raises:
            RulesError: not ``NAME=VALUE``, an unknown option, or a value of the wrong kind.
        """
        fields = {f.name: f for f in dataclasses.fields(cls) if f.init}
        out: dict[str, Any] = {}
        for pair in pairs:
            name, sep, text = str(pair).partition("=")
            name, text = name.strip(), text.strip()
            if not sep or not name:
                raise RulesError("option", Text(N_("expected NAME=VALUE, got {value!r}"), value=pair))
            if name not in fields:
                raise RulesError(name, Text(_UNKNOWN_OPTION, known=", ".join(sorted(fields))))
            low = text.lower()
            if name in _BOOL_OPTIONS:
                if low not in _TRUE | _FALSE:
                    raise RulesError(name, Text(_EXPECTED_BOOL, value=text))
                out[name] = low in _TRUE
            elif name in ("players", "deals", "ante", "loaded_seat"):
                if name == "loaded_seat" and low in ("none", "null", "dealer"):
                    out[name] = None
                    continue
                try:
                    out[name] = int(text)
                except ValueError:
                    raise RulesError(name, Text(_EXPECTED_INT, value=text)) from None
            elif name == "trump" and low in ("none", "null", "off", "no"):
                out[name] = None
            else:
                out[name] = text
        return out

    def to_dict(self) -> dict[str, Any]:
        """Every option as a plain JSON-ready dict (the ``rules`` of a game record)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.init}

    # -- facts derived from the profile ---------------------------------------------------

    @property
    def min_players(self) -> int:
        """Fewest seats the profile allows."""
        return _PLAYER_RANGE[self.profile][0]

    @property
    def max_players(self) -> int:
        """Most seats the profile allows."""
        return _PLAYER_RANGE[self.profile][1]

    @property
    def variants(self) -> tuple[str, ...]:
        """Names of the variants switched on, e.g. ``("trump", "dehla")``."""
        on = ["trump"] if self.trump else []
        return tuple(on + [name for name in _BOOL_OPTIONS if getattr(self, name)])

    # -- validation -------------------------------------------------------------------

    def _validate(self) -> None:
        for option, choices in OPTION_CHOICES.items():
            value = getattr(self, option)
            if value not in choices:
                allowed = ", ".join("none" if c is None else repr(c) for c in choices)  # as -o trump=none says
                raise RulesError(option, Text(N_("{value!r} is not one of {allowed}"), value=value, allowed=allowed))
        for option in ("players", "deals", "ante"):
            value = getattr(self, option)
            if isinstance(value, bool) or not isinstance(value, int):
                raise RulesError(option, Text(_EXPECTED_INT, value=value))
        lo, hi = _PLAYER_RANGE[self.profile]
        if not lo <= self.players <= hi:
            message = N_("{profile} is for {lo} to {hi} players, not {n}")
            raise RulesError("players", Text(message, profile=self.profile, lo=lo, hi=hi, n=self.players))
        if self.deals < 1:
            raise RulesError("deals", Text(N_("a match has at least 1 deal, not {n}"), n=self.deals))
        if self.ante < 0:
            raise RulesError("ante", Text(N_("the ante cannot be negative ({n})"), n=self.ante))
        for option in _BOOL_OPTIONS:
            if not isinstance(getattr(self, option), bool):
                raise RulesError(option, Text(_EXPECTED_BOOL, value=getattr(self, option)))
        if self.loaded_seat is not None:
            if self.uneven != "loaded":
                message = N_("only means something with uneven='loaded', not {value!r}")
                raise RulesError("loaded_seat", Text(message, value=self.uneven))
            if isinstance(self.loaded_seat, bool) or not isinstance(self.loaded_seat, int):
                raise RulesError(
                    "loaded_seat", Text(N_("expected a seat number, got {value!r}"), value=self.loaded_seat)
                )
            if not 0 <= self.loaded_seat < self.players:
                raise RulesError("loaded_seat", Text(_NO_SUCH_SEAT, seat=self.loaded_seat, n=self.players))
        for a, b, why in _EXCLUSIVE:
            if getattr(self, a) and getattr(self, b):
                message = N_("these variants cannot be combined: {why}")
                raise RulesError(f"{a}+{b}", Text(message, why=Text(why)))


class _ProfileAccess:
    """``Rules.profile(name, **options)`` builds rules; ``rules.profile`` is the profile name.

    A non-data descriptor: on an instance the field value in ``__dict__`` wins.
    """

    def __get__(self, obj: Rules | None, cls: type[Rules]) -> Any:
        if obj is None:
            return cls._named
        return obj.__dict__["profile"]


Rules.profile = _ProfileAccess()  # type: ignore[assignment,method-assign]
