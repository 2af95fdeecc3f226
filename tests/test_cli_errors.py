"""Bad input to the command line: one clear line, exit code 2, no traceback, no work lost
(options given the wrong way, output folders that do not exist, corrupt saves), and the
terminal game's rough edges (end of input, answers to the take and save questions)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from getaway import Rules, player_view
from getaway.core.match import Match
from getaway.text.cli import cli
from getaway.text.i18n import use
from getaway.text.terminal import TerminalGame


def invoke(*args: str, input: str | None = None):
    return CliRunner().invoke(cli, list(args), input=input)


def one_line_error(res, *words: str) -> str:
    assert res.exit_code == 2, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    assert "Traceback" not in res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1, res.output
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


# ------------------------------------------------------------------ 1. -o players=, -o profile=


@pytest.mark.parametrize("command", [["play"], ["demo"], ["simulate", "-d", "2", "-w", "1"]])
@pytest.mark.parametrize("pair, flag", [("players=5", "--players"), ("profile=classic", "--profile")])
def test_players_and_profile_are_not_options(command, pair, flag):
    line = one_line_error(invoke(*command, "-o", pair, "--lang", "en"), pair, flag)
    assert "error" in line


# ------------------------------------------------------------------ 2. output files


@pytest.mark.parametrize(
    "args, option",
    [
        (["demo", "--record", "{missing}/x.json"], "--record"),
        (["simulate", "-d", "2", "-w", "1", "--out", "{missing}/x.csv"], "--out"),
        (["simulate", "-d", "2", "-w", "1", "--plot", "{missing}/x.png"], "--plot"),
        (["simulate", "-d", "2", "-w", "1", "--out", "{file}/x.csv"], "--out"),
    ],
)
def test_output_folder_is_checked_before_the_work(tmp_path, args, option):
    file = tmp_path / "file"
    file.write_text("", encoding="utf-8")
    args = [a.format(missing=tmp_path / "no" / "dir", file=file) for a in args]
    res = invoke(*args, "--lang", "en")
    line = one_line_error(res, option)
    assert "does not exist" in line or "is not a folder" in line
    assert "Loser" not in res.output and "deals," not in res.output  # nothing was played


def test_a_folder_given_as_output_file_is_refused(tmp_path):
    one_line_error(invoke("simulate", "-d", "2", "-w", "1", "--out", str(tmp_path) + "/", "--lang", "en"), "--out")


def test_a_failed_write_is_one_line_and_keeps_the_other_file(tmp_path, monkeypatch):
    import getaway.sim.stats as simstats

    def broken(*_args, **_kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(simstats, "write_results", broken)
    png = tmp_path / "r.png"
    res = invoke("simulate", "-d", "4", "-w", "1", "--out", str(tmp_path / "r.csv"), "--plot", str(png), "--lang", "en")
    assert res.exit_code == 2 and "Traceback" not in res.output
    last = res.output.strip().splitlines()[-1]
    assert "--out" in last and "Permission denied" in last
    assert "4 deals" in res.output and png.exists()  # the summary and the plot were not lost


def test_a_failed_record_write_is_one_line(tmp_path, monkeypatch):
    import builtins

    real_open = builtins.open
    target = str(tmp_path / "x.json")

    def fake_open(path, *args, **kwargs):
        if str(path) == target:
            raise OSError(28, "No space left on device")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", fake_open)
    res = invoke("demo", "--record", target, "--lang", "en")
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert "--record" in res.output.strip().splitlines()[-1] and "No space left" in res.output


# ------------------------------------------------------------------ 3. corrupt saves


@pytest.fixture()
def save(tmp_path) -> dict:
    match = Match(Rules.profile("punjab"), ["A", "B", "C", "D"], 3)
    data = match.to_dict()
    data["play"] = {"human": 0, "bots": ["human", "medium", "medium", "medium"]}
    return data


@pytest.mark.parametrize(
    "play, field, problem",
    [
        ({"bots": ["human", "medium"]}, "play.bots", "expected 4 names"),
        ({"human": 9}, "play.human", "no seat 9"),
        ({"human": -1}, "play.human", "no seat -1"),
        ({"human": None}, "play.human", "expected a seat number, got null"),
        ({"human": "B"}, "play.human", "expected a seat number"),
        ({"human": True}, "play.human", "expected a seat number"),
        ([1], "play", "expected an object"),
        ({"bots": "medium"}, "play.bots", "expected a list"),
        ({"bots": ["human", "medium", "genius", "easy"]}, "play.bots[2]", "unknown bot or level"),
        ({"bots": ["human", "medium", 3, "easy"]}, "play.bots[2]", "unknown bot or level 3"),
    ],
)
def test_corrupt_play_settings_name_the_field(tmp_path, save, play, field, problem):
    if isinstance(play, dict):
        save["play"].update(play)
    else:
        save["play"] = play
    path = tmp_path / "save.json"
    path.write_text(json.dumps(save), encoding="utf-8")
    line = one_line_error(invoke("play", "--load", str(path), "--lang", "en"), f"--load {path}: {field}: ", problem)
    assert "--bots" not in line


def test_a_good_save_without_play_settings_still_loads(tmp_path, save):
    del save["play"]
    path = tmp_path / "save.json"
    path.write_text(json.dumps(save), encoding="utf-8")
    res = invoke("play", "--load", str(path), "--lang", "en", input="quit\nno\n")
    assert res.exit_code == 0, res.output
    assert "Resuming" in res.output


def test_unreadable_saves_are_one_line(tmp_path):
    one_line_error(invoke("play", "--load", str(tmp_path / "none.json")), "--load", "No such file")
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    one_line_error(invoke("play", "--load", str(broken)), f"--load {broken}")
    listed = tmp_path / "list.json"
    listed.write_text("[1]", encoding="utf-8")
    one_line_error(invoke("play", "--load", str(listed)), f"--load {listed}", "format")


# ------------------------------------------------------------------ 4. the terminal game


def _game(answers, tmp_path, deals: int = 1, lang: str = "en"):
    use(lang)
    out = io.StringIO()
    console = Console(width=80, no_color=True, file=out)
    match = Match(Rules.profile("punjab", deals=deals), ["A", "B", "C", "D"], 9)
    game = TerminalGame(
        console, match, 0, ["human", "easy", "easy", "easy"], 9, save_path=str(tmp_path / "getaway-save.json")
    )
    script = iter(answers)
    prompts: list[str] = []

    def ask(prompt: str) -> str:
        prompts.append(prompt)
        answer = next(script)
        if answer is EOFError:
            raise EOFError
        if callable(answer):
            return answer(game)
        return answer

    game.ask = ask
    return game, out, prompts


def _first_card(game: TerminalGame) -> str:
    return str(player_view(game.match.deal, 0).legal_actions[0])


def test_ctrl_d_at_the_card_prompt_offers_to_save(tmp_path):
    game, out, prompts = _game([EOFError, "yes"], tmp_path)
    try:
        assert game.run() == 0
    finally:
        use(None)
    assert prompts[-1].startswith("Save the game before quitting?")
    assert (tmp_path / "getaway-save.json").exists() and "Goodbye." in out.getvalue()


def test_ctrl_d_at_the_save_question_means_no(tmp_path):
    game, out, _prompts = _game([EOFError, EOFError], tmp_path)
    try:
        assert game.run() == 0
    finally:
        use(None)
    assert not (tmp_path / "getaway-save.json").exists() and "Goodbye." in out.getvalue()


def test_the_save_question_asks_again_until_yes_or_no(tmp_path):
    game, out, prompts = _game(["quit", "maybe", "", "n"], tmp_path)
    try:
        assert game.run() == 0
    finally:
        use(None)
    assert sum(p.startswith("Save the game") for p in prompts) == 3
    assert out.getvalue().count("Please answer yes or no.") == 2
    assert not (tmp_path / "getaway-save.json").exists()


@pytest.mark.parametrize("lang, answer", [("fr", "oui"), ("fr", "o"), ("it", "si"), ("pt", "SIM"), ("es", "y")])
def test_the_save_question_understands_the_language(tmp_path, lang, answer):
    game, _out, _prompts = _game(["quit", answer], tmp_path, lang=lang)
    try:
        assert game.run() == 0
    finally:
        use(None)
    assert (tmp_path / "getaway-save.json").exists()


def test_the_take_key_arms_and_cancels_and_no_take_question_is_asked(tmp_path):
    """The take is offered by a key between tricks, not by a question (issue 24, item 7): ``t``
    arms it and ``t`` again cancels it (said in the footer), a word that is no card nor command is
    still refused as one, and no prompt ever asks to take or pass."""
    game, out, prompts = _game(["t", "t", "garbage", *([_first_card] * 200), "quit", "no"], tmp_path)
    try:
        game.run()
    finally:
        use(None)
    text = out.getvalue()
    assert "Take armed: you take B's hand before the next trick (t again cancels)." in text
    assert "Take cancelled." in text
    assert "'garbage' is not a card or a command" in text
    assert "t = take B's hand before the next trick" in text
    assert not any("Enter = pass" in p or "take or pass" in p for p in prompts)


def test_ctrl_d_between_deals_offers_to_save(tmp_path):
    def card_or_enter(game: TerminalGame) -> str:
        if game.match.deal.is_over:
            raise EOFError
        view = player_view(game.match.deal, 0)
        return "" if view.decision == "take" else _first_card(game)

    game, _out, prompts = _game([card_or_enter] * 200 + ["no"], tmp_path, deals=3)
    try:
        assert game.run() == 0
    finally:
        use(None)
    assert prompts[-2].startswith("Press Enter for the next deal") and prompts[-1].startswith("Save the game")


def test_save_to_a_missing_folder_is_a_message_not_a_crash(tmp_path):
    game, out, _prompts = _game([f"save {tmp_path}/no/dir/x.json", "quit", "no"], tmp_path)
    try:
        assert game.run() == 0
    finally:
        use(None)
    assert "Cannot save to" in out.getvalue() and not Path(tmp_path / "no").exists()


def test_ctrl_d_in_a_real_terminal_offers_to_save(tmp_path):
    import os
    import sys

    import pexpect

    env = dict(os.environ, NO_COLOR="1", PYTHONUTF8="1", TERM="xterm")
    env.pop("LANGUAGE", None)
    child = pexpect.spawn(
        sys.executable,
        ["-m", "getaway", "play", "--seed", "4", "--bots", "easy", "--lang", "en"],
        env=env,
        cwd=str(tmp_path),
        encoding="utf-8",
        dimensions=(24, 80),
        timeout=60,
    )
    child.expect([r"\r\n> ", r"Enter = pass: "])
    child.sendcontrol("d")
    child.expect(r"\[yes/no\] ")
    child.sendline("maybe")
    child.expect(r"Please answer yes or no\.")
    child.expect(r"\[yes/no\] ")
    child.sendline("y")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0 and "Goodbye." in child.before
    assert (tmp_path / "getaway-save.json").exists()


# ------------------------------------------------------------------ 5. the engine's errors in every language

# For each bad input, the problem in each language (the core's English templates, translated
# by the command line through getaway.text.i18n.localize); values (options, cards) stay as typed.
ENGINE_ERRORS = {
    "bad_option": {
        "en": "trump: 'bogus' is not one of none, 'spades'",
        "fr": "trump : 'bogus' ne fait pas partie de none, 'spades'",
        "it": "trump: 'bogus' non è tra none, 'spades'",
        "pt": "trump: 'bogus' não é um de none, 'spades'",
        "es": "trump: 'bogus' no es uno de none, 'spades'",
    },
    "bad_bool": {
        "en": "dehla: expected true or false, got 'maybe'",
        "fr": "dehla : true ou false attendu, reçu 'maybe'",
        "it": "dehla: atteso true o false, ricevuto 'maybe'",
        "pt": "dehla: esperava-se true ou false, recebido 'maybe'",
        "es": "dehla: se esperaba true o false, se recibió 'maybe'",
    },
    "players": {
        "en": "players: punjab is for 3 to 8 players, not 2",
        "fr": "players : punjab se joue de 3 à 8 joueurs, pas 2",
        "it": "players: punjab si gioca da 3 a 8 giocatori, non 2",
        "pt": "players: punjab joga-se com 3 a 8 jogadores, não 2",
        "es": "players: punjab se juega con 3 a 8 jugadores, no 2",
    },
    "clash": {
        "en": "nopickup+kicker: these variants cannot be combined: a kick makes someone pick up",
        "fr": "nopickup+kicker : ces variantes ne peuvent pas être combinées : avec kicker, quelqu'un ramasse",
        "it": "nopickup+kicker: queste varianti non si possono combinare: con kicker qualcuno raccoglie",
        "pt": "nopickup+kicker: estas variantes não podem ser combinadas: com kicker alguém recolhe",
        "es": "nopickup+kicker: estas variantes no se pueden combinar: con kicker alguien recoge",
    },
    "dealer": {
        "en": "dealer: seat 9 does not exist with 4 players",
        "fr": "dealer : la place 9 n'existe pas avec 4 joueurs",
        "it": "dealer: il posto 9 non esiste con 4 giocatori",
        "pt": "dealer: o lugar 9 não existe com 4 jogadores",
        "es": "dealer: el asiento 9 no existe con 4 jugadores",
    },
    "record_card": {  # a position (the record's start) naming a card that does not exist
        "en": "start: hand of seat 0: not a card: '11h' (expected e.g. 10h, TH, Q♠, joker)",
        "fr": "start : main de la place 0 : pas une carte : '11h' (attendu p. ex. 10h, TH, Q♠, joker)",
        "it": "start: mano del posto 0: non è una carta: '11h' (atteso ad es. 10h, TH, Q♠, joker)",
        "pt": "start: mão do lugar 0: não é uma carta: '11h' (esperava-se p. ex. 10h, TH, Q♠, joker)",
        "es": "start: mano del asiento 0: no es una carta: '11h' (se esperaba p. ej. 10h, TH, Q♠, joker)",
    },
    "record_position": {  # a position that cannot occur
        "en": "start: leader: seat 1 must hold the A♠ to lead the first trick (R-ACE)",
        "fr": "start : leader : la place 1 doit avoir l'A♠ pour entamer le premier pli (R-ACE)",
        "it": "start: leader: il posto 1 deve avere l'A♠ per aprire la prima presa (R-ACE)",
        "pt": "start: leader: o lugar 1 deve ter o A♠ para sair na primeira vaza (R-ACE)",
        "es": "start: leader: el asiento 1 debe tener el A♠ para salir en la primera baza (R-ACE)",
    },
    "record_format": {
        "en": "format: expected 'getaway/1', got 'getaway/9'",
        "fr": "format : 'getaway/1' attendu, reçu 'getaway/9'",
        "it": "format: atteso 'getaway/1', ricevuto 'getaway/9'",
        "pt": "format: esperava-se 'getaway/1', recebido 'getaway/9'",
        "es": "format: se esperaba 'getaway/1', se recibió 'getaway/9'",
    },
    "record_illegal": {  # exit code 1: the record is well formed, its replay fails
        "en": "actions[0]: card_not_in_hand: seat 1 does not hold 2♥",
        "fr": "actions[0] : card_not_in_hand : la place 1 n'a pas 2♥",
        "it": "actions[0]: card_not_in_hand: il posto 1 non ha 2♥",
        "pt": "actions[0]: card_not_in_hand: o lugar 1 não tem 2♥",
        "es": "actions[0]: card_not_in_hand: el asiento 1 no tiene 2♥",
    },
    "save_rules": {
        "en": "saved match: players: punjab is for 3 to 8 players, not 2",
        "fr": "partie sauvegardée : players : punjab se joue de 3 à 8 joueurs, pas 2",
        "it": "partita salvata: players: punjab si gioca da 3 a 8 giocatori, non 2",
        "pt": "partida guardada: players: punjab joga-se com 3 a 8 jogadores, não 2",
        "es": "partida guardada: players: punjab se juega con 3 a 8 jugadores, no 2",
    },
    "save_deals": {
        "en": "deals: expected a non-empty list of deal records",
        "fr": "deals : liste non vide d'enregistrements de donnes attendue",
        "it": "deals: attesa una lista non vuota di registrazioni di smazzate",
        "pt": "deals: esperava-se uma lista não vazia de registos de distribuições",
        "es": "deals: se esperaba una lista no vacía de registros de repartos",
    },
    "save_deal_record": {
        "en": "deals[0]: actions[0].play: not a card: 'zz' (expected e.g. 10h, TH, Q♠, joker)",
        "fr": "deals[0] : actions[0].play : pas une carte : 'zz' (attendu p. ex. 10h, TH, Q♠, joker)",
        "it": "deals[0]: actions[0].play: non è una carta: 'zz' (atteso ad es. 10h, TH, Q♠, joker)",
        "pt": "deals[0]: actions[0].play: não é uma carta: 'zz' (esperava-se p. ex. 10h, TH, Q♠, joker)",
        "es": "deals[0]: actions[0].play: no es una carta: 'zz' (se esperaba p. ej. 10h, TH, Q♠, joker)",
    },
    "bot_value": {
        "en": "bot: bad setting value for 'expert' (iterations='abc'): expected a number",
        "fr": "robot : valeur de réglage invalide pour 'expert' (iterations='abc') : nombre attendu",
        "it": "bot: valore di impostazione non valido per 'expert' (iterations='abc'): atteso un numero",
        "pt": "robô: valor de definição inválido para 'expert' (iterations='abc'): esperava-se um número",
        "es": "bot: valor de ajuste no válido para 'expert' (iterations='abc'): se esperaba un número",
    },
    "bot_setting": {
        "en": "bot: 'expert' has no setting 'foo'",
        "fr": "robot : 'expert' n'a pas de réglage 'foo'",
        "it": "bot: 'expert' non ha l'impostazione 'foo'",
        "pt": "robô: 'expert' não tem a definição 'foo'",
        "es": "bot: 'expert' no tiene el ajuste 'foo'",
    },
}
LANGS = ("en", "fr", "it", "pt", "es")


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(
    "case, args",
    [
        ("bad_option", ["play", "-o", "trump=bogus"]),
        ("bad_bool", ["simulate", "-d", "2", "-w", "1", "-o", "dehla=maybe"]),
        ("players", ["play", "-n", "2"]),
        ("players", ["tournament", "-n", "2"]),
        ("clash", ["demo", "-o", "nopickup=true", "-o", "kicker=true"]),
        ("dealer", ["demo", "--dealer", "9"]),
        ("bot_value", ["simulate", "-d", "2", "-w", "1", "--bots", "expert:iterations=abc,random,random,random"]),
        ("bot_setting", ["play", "--bots", "expert:foo=1"]),
    ],
)
def test_bad_options_are_explained_in_the_language(lang, case, args):
    line = one_line_error(invoke(*args, "--lang", lang))
    assert ENGINE_ERRORS[case][lang] in line, line
    if lang != "en":
        assert ENGINE_ERRORS[case]["en"] not in line


def _record(**changes) -> dict:
    record = {"format": "getaway/1", "players": ["A", "B", "C", "D"], "actions": []}
    record.update(changes)
    return record


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(
    "case, record, code",
    [
        ("record_card", _record(start={"hands": [["11h"], [], [], []]}), 2),
        ("record_position", _record(start={"hands": [["A♠"], ["2h"], ["3h"], ["4h"]], "leader": 1}), 2),
        ("record_format", _record(format="getaway/9"), 2),
        ("record_illegal", _record(actions=[{"seat": 1, "play": "2h"}]), 1),
    ],
)
def test_corrupt_records_are_explained_in_the_language(tmp_path, lang, case, record, code):
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
    res = invoke("replay", str(path), "--lang", lang)
    assert res.exit_code == code, res.output
    assert res.output.strip() == f"getaway replay: {ENGINE_ERRORS[case][lang]}"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("case", ["save_rules", "save_deals", "save_deal_record"])
def test_corrupt_saved_matches_are_explained_in_the_language(tmp_path, save, lang, case):
    if case == "save_rules":
        save["rules"]["players"] = 2
    elif case == "save_deals":
        save["deals"] = []
    else:
        save["deals"][0]["actions"] = [{"seat": 0, "play": "zz"}]
    path = tmp_path / "save.json"
    path.write_text(json.dumps(save), encoding="utf-8")
    line = one_line_error(invoke("play", "--load", str(path), "--lang", lang))
    colon = " : " if lang == "fr" else ": "
    assert line.endswith(f"--load {path}{colon}{ENGINE_ERRORS[case][lang]}"), line
