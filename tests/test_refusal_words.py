"""Refusals in the player's words (issue 24, item 5): a card refused to the seat that tried it
reads in the second person ("You hold a ♥: you must follow suit"), in every language, on the
page (the socket's ``illegal`` texts, a move's refusal) and in the terminal, with no rule id;
the engine's third-person text stays for other readers (``str(exc)``, ``--verbose``)."""

from __future__ import annotations

import pytest

from conftest import make_deal
from getaway import Deal, Rules
from getaway.core.messages import ADDRESSED, addressed, seat_letters, seat_numbers
from getaway.text import i18n
from getaway.text.terminal import explain, without_rule_ids
from getaway.web.rooms.errors import RoomError

FOLLOW = {
    "en": "You hold a ♥: you must follow suit",
    "fr": "Vous avez du ♥ : vous devez fournir",
    "it": "Hai ♥: devi rispondere al seme",
    "pt": "Você tem ♥: deve assistir",
    "es": "Tienes ♥: debes asistir",
}
ACE = {
    "en": "The first trick must be led with your A♠",
    "fr": "Le premier pli doit être entamé avec votre A♠",
    "it": "La prima presa va aperta con il tuo A♠",
    "pt": "A primeira vaza tem de sair com o seu A♠",
    "es": "La primera baza debe salir con tu A♠",
}


def _revoke() -> Deal:
    deal = make_deal(["2h 3c", "4h 5c", "6c 7c", "8c 9c"], waste="As Ks Qs Js")
    deal.play("2h")
    return deal  # seat 1 holds 4♥ and tries 5♣


@pytest.mark.parametrize("lang", list(FOLLOW))
def test_the_terminal_says_a_refusal_to_the_player_in_every_language(lang: str) -> None:
    deal = _revoke()
    with i18n.language(lang):
        assert explain(deal, 1, deal.hand(1)[1], seat_letters(4)) == FOLLOW[lang]
        assert "B" in explain(deal, 1, deal.hand(1)[1], seat_letters(4), verbose=True)  # the engine's own


@pytest.mark.parametrize("lang", list(FOLLOW))
def test_the_page_says_a_refusal_to_the_player_in_every_language(lang: str) -> None:
    deal = _revoke()
    why = deal.why_illegal(deal.hand(1)[1], 1)
    assert why is not None
    error = RoomError(why.reason, "{problem}", 400, problem=str(why), players=4)
    error.cause = why
    assert error.text(lang) == FOLLOW[lang]
    with i18n.language(lang):
        assert i18n.localize(addressed(why.params["message"], 1), seat_numbers(4)) == FOLLOW[lang]


@pytest.mark.parametrize("lang", list(ACE))
def test_the_first_lead_refusal_names_no_rule_id(lang: str) -> None:
    deal = Deal(Rules.profile("punjab", players=4, takes="off"), seed=3)
    seat = deal.to_act
    wrong = next(c for c in deal.hand(seat) if str(c) != "A♠")
    with i18n.language(lang):
        said = explain(deal, seat, wrong, seat_letters(4))
        assert said == ACE[lang] and "R-" not in said
        assert "(R-ACE)" in explain(deal, seat, wrong, seat_letters(4), verbose=True)


def test_another_reader_keeps_the_engines_text() -> None:
    deal = _revoke()
    why = deal.why_illegal(deal.hand(1)[1], 1)
    assert str(why) == "must_follow_suit: seat 1 holds ♥ and must follow suit, not play 5♣"
    assert addressed(why.params["message"], 2) == why.params["message"]
    assert addressed(why.params["message"], None) == why.params["message"]


def test_every_second_person_form_keeps_the_fields_it_shows_and_is_translated() -> None:
    import re

    for engine, player in ADDRESSED.items():
        assert set(re.findall(r"{(\w+)", player)) <= set(re.findall(r"{(\w+)", engine)), player
        assert "(R-" not in player and "(V-" not in player
        for lang in [code for code in i18n.LANGUAGES if code != "en"]:
            with i18n.language(lang):
                assert i18n._(player) != player, (lang, player)


def test_rule_ids_go_from_players_messages() -> None:
    assert without_rule_ids("One Joker joins the pack (V-JOKER).") == "One Joker joins the pack."
    assert (
        without_rule_ids("only after the first trick under punjab (R-P-DRAW)")
        == "only after the first trick under punjab"
    )
