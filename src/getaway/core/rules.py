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

__all__ = ["Rules", "RulesError", "PROFILES", "OPTION_CHOICES", "SCHEMA_VERSION"]

Profile = Literal["punjab", "classic"]

PROFILES: Final = ("punjab", "classic")

#: The ``schema`` tag of :meth:`Rules.schema` (bumped when its shape changes).
SCHEMA_VERSION: Final = "getaway-rules/1"


@dataclass(frozen=True)
class _Option:
    """One row of the option table: what :meth:`Rules.schema` exports and ``_validate`` checks.

    ``kind`` is ``"choice"`` (one of ``choices``), ``"int"`` (``low``..``high``, ``None`` too when
    ``nullable``) or ``"bool"``; ``label``/``hint`` are English msgids (translated by the
    satellites); ``requires`` are the other options' values a non-null value needs
    (``requires_why``: the message when they are not, with the other option's ``{value}``).
    """

    name: str
    kind: Literal["choice", "int", "bool"]
    label: str
    hint: str | None = None
    rule: str | None = None
    group: Literal["setup", "option", "variant"] = "option"
    choices: tuple[Any, ...] = ()
    choice_labels: tuple[str, ...] = ()
    low: int = 0
    high: int = 0
    nullable: bool = False
    requires: tuple[tuple[str, Any], ...] = ()
    requires_why: str = ""

    def export(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.kind, "label": self.label, "hint": self.hint, "rule": self.rule}
        out["group"] = self.group
        if self.kind == "choice":
            out["choices"] = list(self.choices)
            out["choice_labels"] = list(self.choice_labels)
        if self.kind == "int":
            out.update(min=self.low, max=self.high, nullable=self.nullable)
        out["requires"] = dict(self.requires)
        return out


# Per profile: the seats' range (R-P-PLAYERS, R-C-PLAYERS) and the seeds' structural defaults.
_PLAYER_RANGE: Final = {"punjab": (3, 8), "classic": (2, 8)}
_PROFILE_DEFAULTS: Final[dict[str, dict[str, Any]]] = {
    "punjab": {"dealer": "lot", "takes": "any", "take_protocol": "poll"},
    "classic": {"dealer": "cut", "takes": "off", "take_protocol": "off"},
}

#: Every option, in the order a form shows them (one definition: the schema and the checks).
_OPTIONS: Final = (
    _Option(
        "profile",
        "choice",
        N_("Profile"),
        group="setup",
        choices=PROFILES,
        choice_labels=(
            N_("punjab: the highest card of the led suit picks up"),
            N_("classic: the player who cannot follow picks up"),
        ),
    ),
    _Option(
        "players",
        "int",
        N_("Players"),
        rule="R-P-PLAYERS",
        group="setup",
        low=min(lo for lo, _ in _PLAYER_RANGE.values()),
        high=max(hi for _, hi in _PLAYER_RANGE.values()),
    ),
    _Option("deals", "int", N_("Deals in the match"), rule="R-P-SCORE", group="setup", low=1, high=1000),
    _Option(
        "trump",
        "choice",
        N_("Spades trump"),
        N_("Spades beat every other suit (V-TRUMP)."),
        "V-TRUMP",
        "variant",
        choices=(None, "spades"),
        choice_labels=(N_("no trump"), N_("Spades trump")),
    ),
    _Option(
        "nopickup",
        "bool",
        N_("No pickup"),
        N_("A player who cannot follow passes; nobody picks up (V-NOPICKUP)."),
        "V-NOPICKUP",
        "variant",
    ),
    _Option(
        "kicker",
        "bool",
        N_("High-card kicker"),
        N_("A void player must pick up a kick: the top card still in play (V-KICKER)."),
        "V-KICKER",
        "variant",
    ),
    _Option(
        "dehla",
        "bool",
        N_("Dehla Pakad (tens)"),
        N_("Winners of completed tricks capture the tens (V-DEHLA)."),
        "V-DEHLA",
        "variant",
    ),
    _Option("joker", "bool", N_("Joker reveal"), N_("One Joker joins the pack (V-JOKER)."), "V-JOKER", "variant"),
    _Option(
        "beggar",
        "bool",
        N_("Beggar-thy-Neighbour"),
        N_("The loser deals next and penalties grow (V-BEGGAR)."),
        "V-BEGGAR",
        "variant",
    ),
    _Option(
        "progressive",
        "bool",
        N_("Progressive penalty"),
        N_("Last place scores 3, second-to-last 1 (V-PROGRESSIVE)."),
        "V-PROGRESSIVE",
        "variant",
    ),
    _Option(
        "takes",
        "choice",
        N_("Who may take the left hand"),
        rule="R-P-TAKE",
        choices=("any", "leader", "off"),
        choice_labels=(N_("anyone"), N_("only the next leader"), N_("nobody")),
    ),
    _Option(
        "take_protocol",
        "choice",
        N_("How takes are offered"),
        rule="R-P-TAKE",
        choices=("poll", "interject", "off"),
        choice_labels=(N_("asked before each trick"), N_("announced at any moment"), N_("never (no takes)")),
    ),
    _Option(
        "uneven",
        "choice",
        N_("Spare cards"),
        rule="R-UNEVEN",
        choices=("round_robin", "loaded", "strip"),
        choice_labels=(
            N_("dealt round (hands differ by one)"),
            N_("all to the dealer (loaded hand)"),
            N_("low cards removed"),
        ),
    ),
    _Option(
        "loaded_seat",
        "int",
        N_("Seat of the loaded hand"),
        N_("empty: the dealer"),
        "R-UNEVEN",
        low=0,
        high=max(hi for _, hi in _PLAYER_RANGE.values()) - 1,
        nullable=True,
        requires=(("uneven", "loaded"),),
        requires_why=N_("only means something with uneven='loaded', not {value!r}"),
    ),
    _Option(
        "enforcement",
        "choice",
        N_("Irregular plays"),
        rule="R-P-PENALTY",
        choices=("strict", "penalize"),
        choice_labels=(N_("refused"), N_("penalized")),
    ),
    _Option(
        "dealer",
        "choice",
        N_("First dealer"),
        rule="R-P-DEALER",
        choices=("lot", "cut"),
        choice_labels=(N_("by lot"), N_("by cutting")),
    ),
    _Option("ante", "int", N_("Ante (chips per deal)"), rule="R-STAKES", low=0, high=1000),
)
_OPTION: Final = {o.name: o for o in _OPTIONS}

#: Allowed values of each option that takes one of a few words (derived from the option table).
OPTION_CHOICES: Final[dict[str, tuple[Any, ...]]] = {o.name: o.choices for o in _OPTIONS if o.kind == "choice"}

_BOOL_OPTIONS: Final = tuple(o.name for o in _OPTIONS if o.kind == "bool")
_INT_OPTIONS: Final = tuple(o.name for o in _OPTIONS if o.kind == "int")

_TRUE: Final = frozenset({"true", "yes", "on", "1"})
_FALSE: Final = frozenset({"false", "no", "off", "0"})

# Option values that cannot go together (issue 3; docs/rules.md, "Combining variants").
_EXCLUSIVE: Final = (
    ("nopickup", "kicker", N_("a kick makes someone pick up; no-pickup says nobody ever does")),
    ("beggar", "progressive", N_("both set the penalty points of a lost deal, in different ways")),
)

# Messages said by several checks (docs/cli.md, "Languages": translated by the command line).
_UNKNOWN_OPTION: Final = N_("unknown option (known: {known})")
_EXPECTED_BOOL: Final = N_("expected true or false, got {value!r}")
_EXPECTED_INT: Final = N_("expected a whole number, got {value!r}")
_NO_SUCH_SEAT: Final = N_("seat {seat} does not exist with {n} players")
_OUT_OF_RANGE: Final = N_("expected a whole number from {lo} to {hi}, got {value}")


def _shown(value: Any) -> Any:
    """``value`` as an error shows it: long input cut (a number of 4,000 digits is not echoed)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**18:
        return Text(N_("a number of about {digits} digits"), digits=int(value.bit_length() * 0.30103) + 1)
    if isinstance(value, str) and len(value) > 40:
        return value[:40] + "…"
    return value


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
        if profile in _PROFILE_DEFAULTS:
            return {"profile": profile, **_PROFILE_DEFAULTS[profile]}
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
                    raise RulesError(name, Text(_EXPECTED_BOOL, value=_shown(text)))
                out[name] = low in _TRUE
            elif name in _INT_OPTIONS:
                if name == "loaded_seat" and low in ("none", "null", "dealer"):
                    out[name] = None
                    continue
                try:
                    out[name] = int(text)
                except ValueError:
                    raise RulesError(name, Text(_EXPECTED_INT, value=_shown(text))) from None
            elif name == "trump" and low in ("none", "null", "off", "no"):
                out[name] = None
            else:
                out[name] = text
        return out

    def to_dict(self) -> dict[str, Any]:
        """Every option as a plain JSON-ready dict (the ``rules`` of a game record)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.init}

    @classmethod
    def schema(cls) -> dict[str, Any]:
        """The option schema: every option, its type and range, the profiles' defaults and
        player ranges, and the values that cannot go together, as a JSON-ready dict (a fresh
        copy each call). It is the table :class:`Rules` validates against; the lobby, the
        server's request checks and OpenSpiel's parameters are read from it (docs/engine.md,
        "The option schema").

        Shape: ``{"schema": "getaway-rules/1", "options": {name: {"type": "choice"|"int"|"bool",
        "label": msgid, "hint": msgid|None, "rule": rule id|None, "group": "setup"|"option"|"variant",
        "requires": {option: value}, "choices": [...], "choice_labels": [msgid, ...]  (choice),
        "min": int, "max": int, "nullable": bool  (int)}}, "profiles": {name: {"players": {"min",
        "max"}, "defaults": {option: value}}}, "exclusive": [{"options": {option: value, ...},
        "reason": msgid}]}``. Options are listed in the order a form shows them.

        >>> s = Rules.schema()
        >>> s["options"]["ante"]["min"], s["options"]["ante"]["max"], s["profiles"]["classic"]["players"]
        (0, 1000, {'min': 2, 'max': 8})
        >>> s["profiles"]["classic"]["defaults"]["takes"], s["exclusive"][0]["options"]
        ('off', {'nopickup': True, 'kicker': True})
        """
        profiles = {
            name: {
                "players": {"min": _PLAYER_RANGE[name][0], "max": _PLAYER_RANGE[name][1]},
                "defaults": cls._named(name).to_dict(),
            }
            for name in PROFILES
        }
        exclusive = [{"options": {a: True, b: True}, "reason": why} for a, b, why in _EXCLUSIVE]
        options = {o.name: o.export() for o in _OPTIONS}
        return {"schema": SCHEMA_VERSION, "options": options, "profiles": profiles, "exclusive": exclusive}

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
        # One pass over the option table (the same rows Rules.schema() exports), in its order.
        for option in _OPTIONS:
            value = getattr(self, option.name)
            if option.kind == "choice":
                if value not in option.choices or isinstance(value, bool):
                    # "none", as -o trump=none says it (not JSON's null)
                    allowed = ", ".join("none" if c is None else repr(c) for c in option.choices)
                    message = N_("{value!r} is not one of {allowed}")
                    raise RulesError(option.name, Text(message, value=_shown(value), allowed=allowed))
            elif option.kind == "bool":
                if not isinstance(value, bool):
                    raise RulesError(option.name, Text(_EXPECTED_BOOL, value=_shown(value)))
            elif value is not None or not option.nullable:
                self._check_number(option, value)
        for a, b, why in _EXCLUSIVE:
            if getattr(self, a) and getattr(self, b):
                message = N_("these variants cannot be combined: {why}")
                raise RulesError(f"{a}+{b}", Text(message, why=Text(why)))

    def _check_number(self, option: _Option, value: Any) -> None:
        name = option.name
        for other, needed in option.requires:
            if getattr(self, other) != needed:
                raise RulesError(name, Text(option.requires_why, value=getattr(self, other)))
        if isinstance(value, bool) or not isinstance(value, int):
            if name == "loaded_seat":
                raise RulesError(name, Text(N_("expected a seat number, got {value!r}"), value=_shown(value)))
            raise RulesError(name, Text(_EXPECTED_INT, value=_shown(value)))
        if name == "players":
            lo, hi = _PLAYER_RANGE[self.profile]
            if not lo <= value <= hi:
                message = N_("{profile} is for {lo} to {hi} players, not {n}")
                raise RulesError(name, Text(message, profile=self.profile, lo=lo, hi=hi, n=_shown(value)))
        if name == "loaded_seat" and not 0 <= value < self.players:
            raise RulesError(name, Text(_NO_SUCH_SEAT, seat=_shown(value), n=self.players))
        if not option.low <= value <= option.high:
            raise RulesError(name, Text(_OUT_OF_RANGE, lo=option.low, hi=option.high, value=_shown(value)))


class _ProfileAccess:
    """``Rules.profile(name, **options)`` builds rules; ``rules.profile`` is the profile name.

    A non-data descriptor: on an instance the field value in ``__dict__`` wins.
    """

    def __get__(self, obj: Rules | None, cls: type[Rules]) -> Any:
        if obj is None:
            return cls._named
        return obj.__dict__["profile"]


Rules.profile = _ProfileAccess()  # type: ignore[assignment,method-assign]
