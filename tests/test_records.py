"""Game records (docs/records.md): writing, reading, replaying, and every kind of bad record."""

from __future__ import annotations

import json
import random

import pytest

from getaway import Deal, Position, Rules
from getaway.bots import RandomBot, play_deal
from getaway.core.record import (
    RecordError,
    deal_from_record,
    dumps,
    load_record,
    record_of,
    state_summary,
)


def played_deal(seed: int = 3, **options: object) -> Deal:
    rules = Rules.profile(str(options.pop("profile", "punjab")), **options)
    deal = Deal(rules, dealer=seed % rules.players, seed=seed)
    return play_deal(deal, [RandomBot(0.05)] * rules.players, random.Random(seed))


def test_record_has_the_documented_fields():
    deal = played_deal()
    rec = record_of(deal, ["West", "North", "East", "South"])
    assert rec["format"] == "getaway/1"
    assert rec["players"] == ["West", "North", "East", "South"]
    assert rec["rules"] == deal.rules.to_dict()
    assert (rec["dealer"], rec["seed"]) == (deal.dealer, deal.seed)
    assert rec["result"] == deal.outcome.to_dict()
    assert all(set(a) <= {"seat", "play", "take", "pass", "pickup"} and len(a) == 2 for a in rec["actions"])


def test_poll_passes_are_not_recorded_but_takes_are():
    rules = Rules.profile("punjab", takes="any", take_protocol="poll")
    deal = Deal(rules, dealer=0, seed=5)
    while deal.decision == "take":
        deal.pass_()
    deal.play("A♠")
    while deal.decision == "play":
        deal.apply(deal.legal_actions()[0])
    taker = deal.to_act
    deal.take(taker)
    rec = record_of(deal)
    assert not any("pass" in a for a in rec["actions"])
    assert rec["actions"][-1] == {"seat": taker, "take": True}
    assert deal_from_record(rec).snapshot() == deal.snapshot()


@pytest.mark.parametrize("profile", ["punjab", "classic"])
def test_replay_reproduces_the_state_and_the_json_is_byte_identical(profile):
    deal = played_deal(seed=11, profile=profile, players=5)
    rec = record_of(deal)
    again = deal_from_record(json.loads(dumps(rec)))
    assert again.snapshot() == deal.snapshot()
    assert dumps(record_of(again)) == dumps(rec)
    assert dumps(state_summary(again)) == dumps(state_summary(deal))


def test_card_names_in_any_notation_and_missing_options_take_defaults():
    rec = {
        "format": "getaway/1",
        "rules": {"profile": "punjab", "takes": "off"},
        "players": ["A", "B", "C"],
        "start": {"hands": [["AS", "5h"], ["kh", "2c"], ["th", "3d"]], "waste": ["2s"], "leader": 0},
        "actions": [{"seat": 0, "play": "as"}, {"seat": 1, "play": "2♣"}, {"seat": 2, "play": "3D"}],
    }
    deal = deal_from_record(rec)
    assert deal.rules.players == 3 and deal.rules.deals == 7  # a default
    assert deal.first_trick_done and deal.waste_size == 4


def test_a_position_record_round_trips():
    pos = Position.from_cards([["A♠", "5♥"], ["K♥", "2♣"], ["10♥", "3♦"]], waste=["2♠"], leader=0)
    deal = Deal(Rules.profile("punjab", players=3, takes="off"), position=pos)
    deal.play("A♠")
    rec = record_of(deal)
    assert rec["start"]["hands"][0] == ["A♠", "5♥"]
    assert deal_from_record(rec).snapshot() == deal.snapshot()


def test_a_position_with_a_blind_draw_round_trips_in_a_record():
    pos = Position.from_cards(
        [["3♦"], ["9♣", "8♣"], ["6♣"]],
        waste=["2♥"],
        leader=1,
        first_trick_done=True,
        forced_lead="9♣",
        blind_draw=(1, "9♣"),
    )
    deal = Deal(Rules.profile("punjab", players=3, takes="off"), position=pos)
    deal.play("9♣")
    rec = json.loads(dumps(record_of(deal)))
    assert rec["start"]["blind_draw"] == {"seat": 1, "card": "9♣"}
    again = deal_from_record(rec)
    assert again.start == pos and again.snapshot() == deal.snapshot()
    rec["start"]["blind_draw"]["card"] = 35  # a number, not a card name
    with pytest.raises(RecordError, match="start"):
        deal_from_record(rec)


def test_a_record_without_blind_draw_writes_no_such_key():
    assert "blind_draw" not in record_of(played_deal()).get("start", {})
    pos = Position.from_cards([["A♠", "5♥"], ["K♥"]], leader=0)
    assert "blind_draw" not in record_of(Deal(Rules.profile("classic", players=2), position=pos))["start"]


def good_record() -> dict:
    return record_of(played_deal(seed=2))


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda r: r.update(format="getaway/9"), "format"),
        (lambda r: r.pop("players"), "players"),
        (lambda r: r.update(players="ABCD"), "players"),
        (lambda r: r["rules"].update(players=9), "rules.players"),
        (lambda r: r["rules"].update(colour="red"), "rules.colour"),
        (lambda r: r["rules"].update(ante=-1), "rules.ante"),
        (lambda r: r.update(dealer="north"), "dealer"),
        (lambda r: r.update(dealer=7), "dealer"),
        (lambda r: r.update(seed=1.5), "seed"),
        (lambda r: r.update(actions={"seat": 0}), "actions"),
        (lambda r: r["actions"].__setitem__(0, ["A♠"]), "actions[0]"),
        (lambda r: r["actions"].__setitem__(0, {"seat": 0, "play": "11h"}), "actions[0].play"),
        (lambda r: r["actions"].__setitem__(0, {"seat": 0, "play": "A♠", "take": True}), "actions[0]"),
        (lambda r: r["actions"].__setitem__(0, {"seat": "x", "play": "A♠"}), "actions[0].seat"),
        (lambda r: r["actions"].__setitem__(0, {"seat": 0, "take": "yes"}), "actions[0].take"),
        (lambda r: r.update(start={"hands": [["A♠"], ["A♠"], [], []]}), "start"),
        (lambda r: r.update(start={"hands": [["A♠"], ["2h"], ["3h"]]}), "start"),
        (lambda r: r.update(start={"hands": [["5h"], ["2h"], ["3h"], ["A♠"]], "leader": 0}), "start"),
        (lambda r: r.update(extra=1), "unknown field"),
        (lambda r: r["result"].update(loser=(r["result"]["loser"] + 1) % 4), "result"),
    ],
)
def test_malformed_records_get_a_clear_error(mutate, message):
    rec = good_record()
    mutate(rec)
    with pytest.raises(RecordError) as info:
        deal_from_record(rec)
    assert message in str(info.value)
    assert info.value.index is None


def test_an_illegal_action_names_its_index_and_reason():
    bad = good_record()
    seat = bad["actions"][0]["seat"]
    bad["actions"].insert(1, {"seat": seat, "play": "A♠"})  # the A♠ was just played
    with pytest.raises(RecordError) as info:
        deal_from_record(bad)
    assert info.value.index == 1
    assert info.value.reason in {"card_not_in_hand", "not_your_turn"}
    assert "actions[1]" in str(info.value)


def test_load_record_reports_unreadable_and_invalid_json(tmp_path):
    with pytest.raises(RecordError, match="cannot read"):
        load_record(tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "getaway/1",', encoding="utf-8")
    with pytest.raises(RecordError, match="not valid JSON"):
        load_record(broken)
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(RecordError, match="UTF-8"):
        load_record(binary)
    with pytest.raises(RecordError, match="JSON object"):
        deal_from_record([1, 2, 3])


def test_record_cards_are_names_and_pathological_json_is_refused(tmp_path):
    rec = {
        "format": "getaway/1",
        "rules": {"takes": "off"},
        "players": ["A", "B", "C"],
        "start": {"hands": [[12, "5h"], ["kh"], ["2c"]], "waste": ["2s"], "leader": 0},
    }
    with pytest.raises(RecordError, match="card names must be strings"):
        deal_from_record(rec)
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    with pytest.raises(RecordError, match="nested too deeply"):
        load_record(deep)
    huge = tmp_path / "huge.json"
    huge.write_text('{"format": "getaway/1", "seed": ' + "9" * 5000 + "}", encoding="utf-8")
    with pytest.raises(RecordError, match="not a record"):
        load_record(huge)
    bad_start = dict(rec, start={"hands": [["AS"], ["kh"], ["2c"]], "bogus": 1})
    with pytest.raises(RecordError) as info:
        deal_from_record(bad_start)
    assert "start: start:" not in str(info.value)


def test_deal_refuses_a_bad_seed_rules_or_seat():
    rules = Rules.profile("punjab", takes="off")
    for seed in ("x", 1.5, None, True):
        with pytest.raises(ValueError, match="seed"):
            Deal(rules, 0, seed)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="rules"):
        Deal(None)  # type: ignore[arg-type]
    deal = Deal(rules, 0, 1)
    for seat in (9, -1, "0"):
        with pytest.raises(ValueError, match="seat"):
            deal.hand(seat)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="seat"):
            deal.legal_actions(seat)  # type: ignore[arg-type]
