"""RULES.md §4, options shared by both profiles (R-UNEVEN, R-STAKES), and the rules object:
validation (RulesError names the option), round trips, profile defaults."""

from __future__ import annotations

import json
import random

import pytest

from conftest import make_deal, play_out
from getaway import TAKE, Deal, IllegalActionError, Rules, RulesError, parse_cards, player_view
from getaway.core.match import Match

# ---------------------------------------------------------------------------------- R-UNEVEN round_robin


@pytest.mark.parametrize("profile", ["punjab", "classic"])
def test_R_UNEVEN_round_robin_is_the_default_extras_to_first_players_after_dealer(profile: str) -> None:
    rules = Rules.profile(profile, players=5)
    assert rules.uneven == "round_robin"
    for dealer in range(5):
        sizes = Deal(rules, dealer=dealer, seed=dealer).hand_sizes
        assert [sizes[(dealer + 1 + i) % 5] for i in range(5)] == [11, 11, 10, 10, 10]


# ---------------------------------------------------------------------------------- R-UNEVEN loaded


@pytest.mark.parametrize("players, base, extra", [(3, 17, 1), (5, 10, 2), (7, 7, 3), (8, 6, 4)])
def test_R_UNEVEN_loaded_all_extras_go_to_the_dealer_by_default(players: int, base: int, extra: int) -> None:
    rules = Rules.profile("punjab", players=players, uneven="loaded")
    assert rules.loaded_seat is None
    for dealer in (0, players - 1):
        deal = Deal(rules, dealer=dealer, seed=7)
        expected = [base] * players
        expected[dealer] += extra
        assert list(deal.hand_sizes) == expected
        assert deal.stripped == ()


def test_R_UNEVEN_loaded_with_an_agreed_seat() -> None:
    rules = Rules.profile("classic", players=5, uneven="loaded", loaded_seat=3)
    for dealer in range(5):
        assert Deal(rules, dealer=dealer, seed=dealer).hand_sizes == (10, 10, 10, 12, 10)


def test_R_UNEVEN_loaded_with_an_even_pack_changes_nothing() -> None:
    rules = Rules.profile("punjab", players=4, uneven="loaded", loaded_seat=2)
    assert Deal(rules, dealer=0, seed=1).hand_sizes == (13, 13, 13, 13)


def test_R_UNEVEN_loaded_seat_is_validated() -> None:
    with pytest.raises(RulesError) as info:
        Rules.profile("punjab", players=4, loaded_seat=1)  # without uneven="loaded"
    assert info.value.option == "loaded_seat"
    with pytest.raises(RulesError) as info:
        Rules.profile("punjab", players=4, uneven="loaded", loaded_seat=4)
    assert info.value.option == "loaded_seat"


# ---------------------------------------------------------------------------------- R-UNEVEN strip


@pytest.mark.parametrize(
    "profile, players, stripped",
    [
        ("punjab", 3, "2c"),
        ("punjab", 4, ""),
        ("punjab", 5, "2c 2d"),
        ("punjab", 6, "2c 2d 2h 2s"),
        ("punjab", 7, "2c 2d 2h"),
        ("punjab", 8, "2c 2d 2h 2s"),
        ("classic", 2, ""),
        ("classic", 3, "2c"),
    ],
)
def test_R_UNEVEN_strip_removes_the_lowest_cards_2c_2d_2h_2s_in_that_order(
    profile: str, players: int, stripped: str
) -> None:
    rules = Rules.profile(profile, players=players, uneven="strip")
    removed = set(parse_cards(stripped))
    assert len(removed) == 52 % players
    for seed in range(3):
        deal = Deal(rules, dealer=seed % players, seed=seed)
        assert set(deal.stripped) == removed
        sizes = deal.hand_sizes
        assert len(set(sizes)) == 1 and sum(sizes) == 52 - len(removed)  # the pack divides evenly
        held = {c for s in range(players) for c in deal.hand(s)}
        assert not held & removed  # the stripped cards take no part in the deal
        assert set(player_view(deal, 0).stripped) == removed  # and everyone knows which they are


# ---------------------------------------------------------------------------------- R-STAKES


def _finish(match: Match, rng: random.Random) -> None:
    while True:
        play_out(match.deal, rng)
        if match.finished:
            return
        match.next_deal()


def test_R_STAKES_ante_is_paid_before_each_deal_and_the_winner_takes_the_pot() -> None:
    rules = Rules.profile("punjab", players=5, deals=2, ante=3, takes="off")
    assert Rules.profile("punjab").ante == 0
    rng = random.Random(4)
    match = Match(rules, 5, seed=2)
    assert match.pot() == 15  # five antes before the first deal
    play_out(match.deal, rng)
    match.next_deal()
    assert match.pot() == 30
    play_out(match.deal, rng)
    assert match.finished
    standings = match.standings()
    winners = [s for s in standings if s.place == 1]
    share, remainder = divmod(30, len(winners))
    assert match.pot() == remainder  # an indivisible remainder stays for the next match
    for s in standings:
        assert s.chips == (share if s.place == 1 else 0) - 6
    assert sum(s.chips for s in standings) == -remainder


def test_R_STAKES_tied_winners_split_and_the_remainder_carries_to_the_next_match() -> None:
    # 5 players, 2 deals: at least three players lose no deal and share first place
    rules = Rules.profile("classic", players=5, deals=2, ante=1)
    seen_remainder = False
    for seed in range(6):
        match = Match(rules, 5, seed=seed, pot=1)
        _finish(match, random.Random(seed))
        winners = [s for s in match.standings() if s.place == 1]
        total = 1 + 10  # the pot carried in, plus two antes from each of five players
        assert len(winners) >= 3
        share, remainder = divmod(total, len(winners))
        assert all(s.chips == share - 2 for s in winners)
        assert match.pot() == remainder
        seen_remainder |= remainder > 0
        following = Match(rules, 5, seed=seed + 100, pot=match.pot())
        assert following.pot() == remainder + 5
    assert seen_remainder


def test_R_STAKES_negative_ante_is_refused() -> None:
    with pytest.raises(RulesError) as info:
        Rules.profile("punjab", ante=-1)
    assert info.value.option == "ante"
    assert str(info.value).startswith("ante:")


# ---------------------------------------------------------------------------------- rules object


@pytest.mark.parametrize(
    "profile, options, option",
    [
        ("punjab", {"players": 2}, "players"),
        ("punjab", {"players": 9}, "players"),
        ("classic", {"players": 1}, "players"),
        ("punjab", {"players": "4"}, "players"),
        ("punjab", {"ante": -1}, "ante"),
        ("punjab", {"ante": 1.5}, "ante"),
        ("punjab", {"deals": 0}, "deals"),
        ("punjab", {"colour": "red"}, "colour"),
        ("punjab", {"enforcement": "lenient"}, "enforcement"),
        ("punjab", {"takes": "sometimes"}, "takes"),
        ("punjab", {"take_protocol": "shout"}, "take_protocol"),
        ("punjab", {"uneven": "random"}, "uneven"),
        ("classic", {"dealer": "coin"}, "dealer"),
        ("punjab", {"trump": "hearts"}, "trump"),
        ("punjab", {"nopickup": "yes"}, "nopickup"),
    ],
)
def test_rules_validation_error_names_the_option(profile: str, options: dict, option: str) -> None:
    with pytest.raises(RulesError) as info:
        Rules.profile(profile, **options)
    assert info.value.option == option
    assert str(info.value).startswith(f"{option}:")
    assert isinstance(info.value, ValueError)


def test_rules_validation_unknown_profile_and_not_a_dict() -> None:
    with pytest.raises(RulesError) as info:
        Rules.profile("bridge")
    assert info.value.option == "profile"
    with pytest.raises(RulesError) as info:
        Rules.from_dict({"profile": "bridge"})
    assert info.value.option == "profile"
    with pytest.raises(RulesError) as info:
        Rules.from_dict(["punjab"])
    assert info.value.option == "rules"
    with pytest.raises(RulesError) as info:
        Rules.from_dict({"profile": "punjab", "players": 12})
    assert info.value.option == "players"


@pytest.mark.parametrize(
    "rules",
    [
        Rules.profile("punjab"),
        Rules.profile("classic"),
        Rules.profile("punjab", players=6, uneven="strip", enforcement="penalize", takes="leader", ante=2),
        Rules.profile("classic", players=3, uneven="loaded", loaded_seat=1, deals=11, takes="any"),
        Rules.profile("punjab", players=3, take_protocol="interject"),
    ],
)
def test_rules_to_dict_from_dict_round_trip(rules: Rules) -> None:
    data = rules.to_dict()
    assert Rules.from_dict(data) == rules
    assert Rules.from_dict(json.loads(json.dumps(data))) == rules
    assert hash(Rules.from_dict(data)) == hash(rules)


def test_rules_missing_options_take_the_profile_defaults() -> None:
    assert Rules.from_dict({"profile": "classic"}) == Rules.profile("classic")
    assert Rules.from_dict({}) == Rules.profile("punjab")
    classic = Rules.from_dict({"profile": "classic", "players": 3})
    assert (classic.dealer, classic.takes, classic.take_protocol, classic.uneven) == (
        "cut",
        "off",
        "off",
        "round_robin",
    )
    punjab = Rules.from_dict({"profile": "punjab", "players": 5})
    assert (punjab.dealer, punjab.takes, punjab.take_protocol, punjab.enforcement) == ("lot", "any", "poll", "strict")
    assert (punjab.deals, punjab.ante) == (7, 0)


def test_rules_are_immutable() -> None:
    rules = Rules.profile("punjab")
    with pytest.raises(AttributeError):
        rules.players = 5  # type: ignore[misc]
    assert rules.replace(players=5).players == 5 and rules.players == 4
    with pytest.raises(RulesError):
        rules.replace(players=2)


def test_take_protocol_off_is_the_same_as_takes_off() -> None:
    assert Rules.profile("punjab", take_protocol="off") == Rules.profile("punjab", takes="off")
    rules = Rules.profile("punjab", take_protocol="off")
    assert (rules.takes, rules.take_protocol) == ("off", "off")
    deal = make_deal(["2h 3h", "4h 5h", "6h 7h"], waste="2d", take_protocol="off", takes="any")
    assert deal.rules.takes == "off"
    assert deal.decision == "play" and TAKE not in deal.legal_actions()
    before = deal.snapshot()
    with pytest.raises(IllegalActionError) as info:
        deal.take(1)
    assert info.value.reason == "take_not_allowed"
    assert deal.snapshot() == before


def test_turning_takes_on_in_classic_picks_the_poll_protocol() -> None:
    rules = Rules.profile("classic", takes="any")
    assert rules.take_protocol == "poll"
    deal = make_deal(["2h 3h", "4h 5h"], profile="classic", takes="any")
    assert deal.decision == "take" and deal.to_act == 0


# ---------------------------------------------------------------------------------- the option schema


def _valid(name: str, value: object) -> dict[str, object]:
    """Options that make ``name=value`` meaningful (the values it requires, enough seats)."""
    options: dict[str, object] = dict(Rules.schema()["options"][name]["requires"])
    if name == "loaded_seat":
        options["players"] = 8
    options[name] = value
    return options


def test_the_option_schema_is_json_and_names_every_option() -> None:
    schema = Rules.schema()
    assert json.loads(json.dumps(schema)) == schema
    assert schema["schema"] == "getaway-rules/1"
    assert list(schema["options"]) != [] and set(schema["options"]) == set(Rules().to_dict())
    for name, spec in schema["options"].items():
        assert spec["type"] in ("choice", "int", "bool") and isinstance(spec["label"], str) and spec["label"], name
        if spec["type"] == "choice":
            assert len(spec["choice_labels"]) == len(spec["choices"]) >= 2, name
    Rules.schema()["options"]["ante"]["max"] = -1  # a fresh copy: the rules do not change
    assert Rules.profile("punjab", ante=3).ante == 3


@pytest.mark.parametrize("name", [n for n, s in Rules.schema()["options"].items() if s["type"] == "int"])
def test_every_number_of_the_schema_has_a_range_that_the_rules_enforce(name: str) -> None:
    spec = Rules.schema()["options"][name]
    lo, hi = spec["min"], spec["max"]
    assert isinstance(lo, int) and isinstance(hi, int) and lo <= hi
    profile = "classic"  # the widest player range
    assert getattr(Rules.profile(profile, **_valid(name, lo)), name) == lo
    assert getattr(Rules.profile(profile, **_valid(name, hi)), name) == hi
    for bad in (lo - 1, hi + 1, 10**4299, -(10**50)):
        with pytest.raises(RulesError) as info:
            Rules.profile(profile, **_valid(name, bad))
        assert info.value.option == name
        assert len(str(info.value)) < 120  # a huge number is not echoed back


def test_an_ante_of_4299_digits_is_refused_naming_the_option() -> None:
    with pytest.raises(RulesError) as info:
        Rules.from_dict({"profile": "punjab", "ante": int("9" * 4299)})
    assert info.value.option == "ante"
    assert str(info.value) == "ante: expected a whole number from 0 to 1000, got a number of about 4300 digits"


@pytest.mark.parametrize("profile", ["punjab", "classic"])
def test_the_schema_gives_each_profiles_defaults_and_player_range(profile: str) -> None:
    entry = Rules.schema()["profiles"][profile]
    assert Rules.from_dict(entry["defaults"]) == Rules.profile(profile)
    assert entry["defaults"] == Rules.profile(profile).to_dict()
    lo, hi = entry["players"]["min"], entry["players"]["max"]
    assert Rules.profile(profile, players=lo).players == lo and Rules.profile(profile, players=hi).players == hi
    for bad in (lo - 1, hi + 1):
        with pytest.raises(RulesError) as info:
            Rules.profile(profile, players=bad)
        assert info.value.option == "players"


@pytest.mark.parametrize("name", [n for n, s in Rules.schema()["options"].items() if s["type"] != "int"])
def test_every_listed_choice_is_accepted_and_nothing_else(name: str) -> None:
    spec = Rules.schema()["options"][name]
    choices = spec["choices"] if spec["type"] == "choice" else [False, True]
    for value in choices:
        options = _valid(name, value)
        if name == "profile":
            assert Rules.from_dict(options).profile == value
            continue
        assert getattr(Rules.profile("punjab", **options), name) == value
    for bad in ("bogus", 2, [], None if None not in choices else "none"):
        with pytest.raises(RulesError) as info:
            Rules.from_dict({"profile": "punjab", name: bad}) if name != "profile" else Rules.from_dict({name: bad})
        assert info.value.option == name


def test_the_exclusive_pairs_of_the_schema_are_refused_together_and_allowed_apart() -> None:
    pairs = Rules.schema()["exclusive"]
    assert pairs != []
    for pair in pairs:
        a, b = pair["options"]
        assert isinstance(pair["reason"], str) and pair["reason"]
        with pytest.raises(RulesError) as info:
            Rules.profile("punjab", **pair["options"])
        assert info.value.option == f"{a}+{b}"
        assert getattr(Rules.profile("punjab", **{a: pair["options"][a]}), a) == pair["options"][a]
        assert getattr(Rules.profile("punjab", **{b: pair["options"][b]}), b) == pair["options"][b]
