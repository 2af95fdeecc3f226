"""The rules as the terminal shows them (``getaway rules``, the ``rules`` command of ``play``).

A condensed retelling of docs/rules.md, one translatable paragraph at a time.
"""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from ..core.rules import Rules
from .i18n import N_, _

__all__ = ["rules_sections", "variant_sections", "print_rules"]


def _common() -> list[tuple[str, str]]:
    return [
        (
            _("The aim"),
            _(
                "Getaway (Bhabhi, Bhabhi Thulla) is a shedding game with tricks. The whole pack of 52 cards "
                "is dealt out; everyone tries to empty their hand. A player with no cards left has got away "
                "and is safe. The last player still holding cards loses the deal. Tricks score nothing."
            ),
        ),
        (
            _("Cards and the deal"),
            _(
                "Ranks run 2 (low) to ace (high) in each suit, with no trump. Cards are dealt one at a time, "
                "clockwise from the dealer's left; with an uneven count the first players get one card more. "
                "Whoever holds the ace of spades leads the first trick with it."
            ),
        ),
        (
            _("Following suit"),
            _(
                "Play goes clockwise. If you hold a card of the suit led, you must play one (any one: you do "
                "not have to beat the table). What happens when you cannot follow depends on the profile."
            ),
        ),
    ]


def _punjab(takes: bool = True) -> list[tuple[str, str]]:
    sections = [
        (
            _("The first trick (punjab)"),
            _(
                "The ace of spades is led and everyone plays exactly one card: a spade if they can, otherwise "
                "any card. Nobody picks up; the whole trick goes face down to the waste pile and the player of "
                "the ace of spades leads again, any card."
            ),
        ),
        (
            _("The tochoo (punjab)"),
            _(
                "From the second trick on, a player who cannot follow plays any card: a tochoo. The trick stops "
                "at once. The player who played the highest card of the suit led picks up every card of the "
                "trick, tochoo included, and leads the next trick. If everyone follows, the trick goes to the "
                "waste pile for good and its highest card leads next."
            ),
        ),
        (
            _("Getting away (punjab)"),
            _(
                "When a trick is settled, every player with an empty hand gets away, except the player who must "
                "lead next. If your last card wins a trick that everyone followed, you draw one card blind from "
                "the old waste pile and must lead it: you get away only by losing the lead. Every deal has "
                "exactly one loser."
            ),
        ),
    ]
    if takes:
        sections.append((_("Taking the left hand (punjab)"), _(_TAKING)))
    return sections


#: R-P-TAKE, told in the punjab profile and by the variant paragraph of takes under classic.
_TAKING = N_(
    "Before any trick, a player may take the whole hand of the next player on their left who still "
    "holds cards; that player has got away. Here you are asked before each trick: answer take, or "
    "pass (Enter). If a take leaves only the taker with cards, the taker loses."
)


def _classic() -> list[tuple[str, str]]:
    return [
        (
            _("Tricks (classic)"),
            _(
                "The first trick is an ordinary trick led with the ace of spades. A player who cannot follow "
                "plays no card: they pick up every card already played to the trick and lead the next one. If "
                "everyone follows, the highest card of the suit led wins; the trick goes to the waste pile for "
                "good and its winner leads."
            ),
        ),
        (
            _("Getting away (classic)"),
            _(
                "You get away the moment you play your last card, leading or following. If the winner of a "
                "trick has got away, the next player on their left leads. If the last players all get away on "
                "the same trick, nobody loses (a drawn deal)."
            ),
        ),
    ]


def _match() -> list[tuple[str, str]]:
    return [
        (
            _("A match"),
            _(
                "A match is a number of deals agreed in advance (option deals). Each lost deal costs its loser "
                "one penalty point; fewest points win, equal totals share a place. The deal passes to the left."
            ),
        ),
        (
            _("Variants"),
            _(
                "Options change the game: trump=spades (spades ruff), nopickup=true (a void player passes), "
                "kicker=true, dehla=true (tens are captured), joker=true, beggar=true, progressive=true, "
                "uneven=strip or loaded, takes=any, leader or off. The full rules are in docs/rules.md."
            ),
        ),
    ]


#: The variants' paragraphs (docs/rules.md §6): the option that switches each on, its title and
#: text (marked for the catalogs, translated when shown).
_VARIANTS: tuple[tuple[str, str, str], ...] = (
    (
        "trump",
        N_("In this game: spades are trumps (trump=spades)"),
        N_(
            "Spades are trumps here, unlike the plain rule: they beat every other suit. A player void in "
            "the led suit may ruff with a spade: the trick "
            "goes on, and the highest spade wins it. A void player who does not ruff acts as usual (a "
            "tochoo under punjab, a pick-up under classic, a pass under no-pickup)."
        ),
    ),
    (
        "nopickup",
        N_("In this game: no pickup (nopickup=true)"),
        N_(
            "A player who cannot follow suit passes and plays nothing. The trick goes to the waste pile "
            "and its winner leads: nobody ever picks up."
        ),
    ),
    (
        "kicker",
        N_("In this game: the high-card kicker (kicker=true)"),
        N_(
            "A lead is a kick when every higher card of its suit is in the waste pile or out of the deal. "
            "If a tochoo stops a kick, the player of the tochoo picks up the trick, not the leader."
        ),
    ),
    (
        "dehla",
        N_("In this game: tens are captured (dehla=true)"),
        N_(
            "Whoever wins a trick that goes to the waste pile captures the tens in it. Among players with "
            "equal penalty points, more captured tens rank higher."
        ),
    ),
    (
        "joker",
        N_("In this game: the Joker (joker=true)"),
        N_(
            "One Joker joins the pack. It has no suit: it never follows suit and never wins a trick. Led, "
            "it goes straight to the waste pile and the same player leads again. From the second deal on, "
            "the first player out of the previous deal gets it."
        ),
    ),
    (
        "beggar",
        N_("In this game: Beggar-thy-Neighbour (beggar=true)"),
        N_(
            "The loser of a deal deals the next one and puts one extra chip in the pot. A player's k-th "
            "lost deal costs k penalty points."
        ),
    ),
    (
        "progressive",
        N_("In this game: progressive penalty (progressive=true)"),
        N_("The loser of a deal scores 3 penalty points and the player second-to-last scores 1."),
    ),
)


#: Options whose value differs from what the profile's paragraphs tell (R-P-TAKE's who may
#: take, R-UNEVEN): (option, value, title, text), shown when ``rules`` has that value and the
#: profile's own text says otherwise.
_CHOICES: tuple[tuple[str, str, str, str], ...] = (
    (
        "takes",
        "off",
        N_("In this game: no takes (takes=off)"),
        N_("Nobody may take another player's hand: there is no question before the tricks."),
    ),
    ("takes", "any", N_("In this game: taking the left hand (takes=any)"), _TAKING),
    ("takes", "leader", N_("In this game: taking the left hand (takes=leader)"), _TAKING),
    (
        "takes",
        "leader",
        N_("In this game: only the leader takes (takes=leader)"),
        N_("Only the player due to lead the next trick may take; the others are not asked."),
    ),
    (
        "uneven",
        "strip",
        N_("In this game: a stripped pack (uneven=strip)"),
        N_(
            "Instead of giving some players one card more, the lowest cards are taken out before the deal "
            "so that the pack divides evenly: 2♣, then 2♦, 2♥ and 2♠, as many as needed. They take no "
            "part in the deal."
        ),
    ),
    (
        "uneven",
        "loaded",
        N_("In this game: one player gets the extra cards (uneven=loaded)"),
        N_(
            "With an uneven count, all the extra cards go to one player agreed before play (the dealer "
            "unless the table chose another seat), instead of one each to the first players."
        ),
    ),
)


def variant_sections(rules: Rules) -> list[tuple[str, str]]:
    """``(title, paragraph)`` for each variant in force in ``rules`` (docs/rules.md §6,
    V-TRUMP … V-PROGRESSIVE), then for each option whose value the profile's own paragraphs do
    not tell (who may take, R-P-TAKE; R-UNEVEN's ``strip`` and ``loaded``), in the current
    language; ``[]`` when there is none."""
    plain = Rules.profile(rules.profile)  # what the profile's own paragraphs tell
    told = {"takes": plain.takes, "uneven": plain.uneven}
    taking_told = told["takes"] != "off" and rules.takes != "off"  # the profile's own takes paragraph is shown
    sections = [(_(title), _(text)) for option, title, text in _VARIANTS if getattr(rules, option)]
    sections += [
        (_(title), _(text))
        for option, value, title, text in _CHOICES
        if getattr(rules, option) == value != told[option] and not (text is _TAKING and taking_told)
    ]
    return sections


def rules_sections(profile: str, rules: Rules | None = None) -> list[tuple[str, str]]:
    """``(title, paragraph)`` pairs of the rules of ``profile`` in the current language, then,
    given the ``rules`` of a game, the variants in force in it (:func:`variant_sections`)."""
    body = _punjab(takes=rules is None or rules.takes != "off") if profile == "punjab" else _classic()
    return [*_common(), *body, *_match(), *(variant_sections(rules) if rules is not None else [])]


def print_rules(console: Console, profile: str, rules: Rules | None = None) -> None:
    """Print the rules of ``profile`` (and the variants in force in ``rules``), wrapped to the
    console's width."""
    title = _("Getaway: the rules (profile {profile})").format(profile=profile)
    console.rule(Text(title, style="bold"))
    for heading, paragraph in rules_sections(profile, rules):
        console.print(Text(heading, style="bold underline"))
        console.print(Text(paragraph))
        console.print()
