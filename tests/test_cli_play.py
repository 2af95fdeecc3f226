"""``getaway play`` as a person uses it: through a pseudo-terminal (pexpect), typing card
names, one illegal try and a hint; and save / resume, bad options."""

from __future__ import annotations

import io
import json
import os
import re
import sys
from pathlib import Path

import pexpect
import pytest
from click.testing import CliRunner
from rich.console import Console

from getaway import Card, Rules, player_view
from getaway.core.match import Match
from getaway.text.cli import cli
from getaway.text.terminal import TerminalGame

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
PLAY_PROMPT = r"\r\n> "
POLL_PROMPT = r"Enter = pass: "
HAND_CARD = re.compile(r"(\d+):(10|[2-9JQKA])([♠♥♦♣])(\*?)")


def _ascii(rank: str, suit: str) -> str:
    """How a person types a card on a plain keyboard: Q♥ -> qh."""
    return (rank + "shdc"["♠♥♦♣".index(suit)]).lower()


def _spawn(*args: str) -> pexpect.spawn:
    env = dict(os.environ, NO_COLOR="1", PYTHONUTF8="1", TERM="xterm", COLUMNS="80", LINES="24")
    env.pop("LANGUAGE", None)
    return pexpect.spawn(
        sys.executable,
        ["-m", "getaway", "play", *args],
        env=env,
        encoding="utf-8",
        dimensions=(24, 80),
        timeout=120,
    )


def test_a_person_plays_a_whole_deal_in_a_terminal():
    child = _spawn("--seed", "21", "--bots", "easy", "--lang", "en")
    transcript = []
    illegal_tried = hint_asked = False
    turns = 0
    while True:
        i = child.expect([PLAY_PROMPT, POLL_PROMPT, pexpect.EOF])
        screen = ANSI.sub("", child.before)
        transcript.append(screen)
        if i == 2:
            break
        if i == 1:
            child.sendline("pass" if turns % 2 else "")  # both ways of passing
            continue
        turns += 1
        hand = HAND_CARD.findall(screen.rsplit("Your hand", 1)[-1])
        assert hand, screen
        playable = [(r, s) for _n, r, s, star in hand if star]
        unplayable = [(r, s) for _n, r, s, star in hand if not star]
        if not illegal_tried and unplayable:
            child.sendline(_ascii(*unplayable[0]))
            child.expect(PLAY_PROMPT)
            said = ANSI.sub("", child.before)
            assert re.search(r"must follow suit|must be led with|must play a spade", said), said
            illegal_tried = True
        if not hint_asked:
            child.sendline("hint")
            child.expect(PLAY_PROMPT)
            assert "Hint (" in ANSI.sub("", child.before), "".join(transcript)[-3000:] + child.before
            hint_asked = True
        rank, suit = playable[-1]
        child.sendline(_ascii(rank, suit) if turns % 3 else rank + suit)  # qh, or Q♥ as shown
    child.close()
    assert child.exitstatus == 0
    assert illegal_tried and hint_asked and turns >= 3
    end = "".join(transcript)
    order = re.search(r"Order of getting away: (.+)", end)
    loser = re.search(r"Loser: ([A-D])", end)
    assert order and loser, end[-2000:]
    escaped = re.findall(r"[A-D]", order.group(1))
    assert sorted([*escaped, loser.group(1)]) == ["A", "B", "C", "D"]
    assert f"The deal is over: {loser.group(1)} loses" in end
    assert "tochoo" in end or "waste pile" in end


def test_the_screen_fits_80_columns_without_colour():
    child = _spawn("--seed", "4", "--bots", "easy", "--lang", "en")
    child.expect([PLAY_PROMPT, POLL_PROMPT])
    screen = child.before
    child.sendline("quit")
    child.expect(r"\[yes/no\] ")
    child.sendline("no")
    child.expect(pexpect.EOF)
    child.close()
    assert "\x1b[3" not in screen  # NO_COLOR: no colour codes
    assert all(len(line) <= 80 for line in ANSI.sub("", screen).splitlines())
    assert "Your hand (13 cards)" in screen and "Goodbye." in child.before


def _played(game: TerminalGame, console: Console, stop_after: int, path: str) -> TerminalGame:
    count = [0]
    steps = iter([f"save {path}", "quit", "no"])

    def ask(prompt: str) -> str:
        view = player_view(game.match.deal, 0)
        if count[0] >= stop_after:
            return next(steps)
        count[0] += 1
        return "" if view.decision == "take" else str(view.legal_actions[0])

    game.ask = ask
    return game


def test_save_and_resume(tmp_path):
    path = str(tmp_path / "save.json")
    console = Console(width=80, no_color=True, file=io.StringIO())
    match = Match(Rules.profile("punjab", deals=3), ["A", "B", "C", "D"], 9)
    game = TerminalGame(console, match, 0, ["human", "easy", "easy", "easy"], 9)
    assert _played(game, console, 12, path).run() == 0
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    assert data["format"] == "getaway-match/1" and data["play"]["human"] == 0
    resumed = Match.from_dict(data)
    assert resumed.deal.actions == match.deal.actions
    res = CliRunner().invoke(cli, ["play", "--load", path, "--lang", "en"], input="quit\nno\n")
    assert res.exit_code == 0, res.output
    assert "Resuming the game saved in" in res.output and "Goodbye." in res.output


@pytest.mark.parametrize(
    "args, word",
    [
        (["--seat", "Z"], "--seat"),
        (["--players", "9"], "players"),
        (["-o", "colour=red"], "colour"),
        (["--bots", "genius"], "genius"),
        (["--bots", "easy,hard"], "--bots"),
        (["--lang", "de"], "--lang"),
    ],
)
def test_bad_play_options_are_one_line_and_exit_2(args, word):
    res = CliRunner().invoke(cli, ["play", *args])
    assert res.exit_code == 2
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and word in lines[0] and "error" in lines[0]


def test_card_names_typed_in_any_notation_are_understood():
    # what the terminal accepts is Card.parse plus numbers; symbols as the screen shows them
    assert Card.parse("10♥") == Card.parse("10h") == Card.parse("th")


def test_replay_waits_for_enter_on_a_terminal(tmp_path):
    path = tmp_path / "game.json"
    assert CliRunner().invoke(cli, ["demo", "--seed", "3", "--record", str(path)]).exit_code == 0
    env = dict(os.environ, NO_COLOR="1", PYTHONUTF8="1", TERM="xterm")
    child = pexpect.spawn(
        sys.executable,
        ["-m", "getaway", "replay", str(path), "--lang", "en"],
        env=env,
        encoding="utf-8",
        dimensions=(24, 80),
        timeout=30,
    )
    child.expect(r"\(Enter: next trick, q: quit\) ")
    assert "Trick 1" in child.before and "Trick 2" not in child.before
    child.sendline("")
    child.expect(r"\(Enter: next trick, q: quit\) ")
    assert "Trick 2" in child.before
    child.sendcontrol("d")  # end of input: print the rest without waiting
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0 and "loses" in child.before


def test_q_quits_replay(tmp_path):
    path = tmp_path / "game.json"
    assert CliRunner().invoke(cli, ["demo", "--seed", "3", "--record", str(path)]).exit_code == 0
    env = dict(os.environ, NO_COLOR="1", PYTHONUTF8="1", TERM="xterm")
    child = pexpect.spawn(
        sys.executable, ["-m", "getaway", "replay", str(path), "--lang", "en"], env=env, encoding="utf-8", timeout=30
    )
    child.expect(r"\(Enter: next trick, q: quit\) ")
    child.sendline("q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0 and "Trick 2" not in child.before and "loses" not in child.before


def _play_through(game: TerminalGame) -> TerminalGame:
    """Answer every prompt with the first legal action (Enter between deals)."""

    def ask(prompt: str) -> str:
        deal = game.match.deal
        if deal.is_over:
            return ""
        view = player_view(deal, 0)
        return "" if view.decision == "take" else str(view.legal_actions[0])

    game.ask = ask
    return game


@pytest.mark.parametrize("deals", [1, 2])
def test_play_record_is_a_record_that_replay_accepts(tmp_path, deals):
    path = tmp_path / "game.json"
    out = io.StringIO()
    console = Console(width=300, no_color=True, file=out)
    match = Match(Rules.profile("punjab", takes="off", deals=deals), ["A", "B", "C", "D"], 4)
    game = TerminalGame(console, match, 0, ["human", "easy", "easy", "easy"], 4, record_path=str(path))
    assert _play_through(game).run() == 0
    replay_args = ["replay", str(path), "--json"] + (["--deal", str(deals)] if deals > 1 else [])
    assert f"getaway replay {path}" in out.getvalue()
    res = CliRunner().invoke(cli, replay_args)
    assert res.exit_code == 0, res.output
    summary = json.loads(res.output)
    assert summary["finished"] and summary["loser"] == match.deals[-1].outcome.loser
    if deals > 1:
        res = CliRunner().invoke(cli, ["replay", str(path), "--deal", "3"])
        assert res.exit_code == 2 and "--deal" in res.output


def test_a_save_says_how_to_replay_its_deals(tmp_path):
    path = str(tmp_path / "save.json")
    out = io.StringIO()
    console = Console(width=300, no_color=True, file=out)
    match = Match(Rules.profile("punjab", takes="off", deals=2), ["A", "B", "C", "D"], 5)
    game = TerminalGame(console, match, 0, ["human", "easy", "easy", "easy"], 5)
    then = iter([f"save {path}", "quit", "no"])

    def ask(prompt: str) -> str:
        deal = game.match.deal
        if len(game.match.deals) == 2:  # in the second deal: save, quit
            return next(then)
        if deal.is_over:
            return ""
        view = player_view(deal, 0)
        return "" if view.decision == "take" else str(view.legal_actions[0])

    game.ask = ask
    assert game.run() == 0
    assert f"getaway replay {path} --deal K" in out.getvalue()
    res = CliRunner().invoke(cli, ["replay", path, "--deal", "1", "--json"])
    assert res.exit_code == 0 and json.loads(res.output)["finished"], res.output


def test_bot_levels_are_named_in_the_players_language(tmp_path):
    res = CliRunner().invoke(cli, ["play", "--bots", "medium", "--seed", "2", "--lang", "fr"], input="quit\nno\n")
    assert res.exit_code == 0, res.output
    assert "(moyen)" in res.output and "(medium)" not in res.output


def test_the_terminal_describes_each_level_at_the_table_in_one_line():
    from getaway.bots import LEVEL_HELP
    from getaway.text import i18n

    args = ["play", "--bots", "random,easy,medium", "--seed", "2", "--lang", "fr"]
    res = CliRunner().invoke(cli, args, input="quit\nno\n")
    assert res.exit_code == 0, res.output
    shown = " ".join(res.output.split())  # the console wraps long lines
    with i18n.language("fr"):
        lines = {level: i18n._(LEVEL_HELP[level]) for level in LEVEL_HELP}
    for level in ("random", "easy", "medium"):
        assert lines[level] != LEVEL_HELP[level] and lines[level] in shown
    assert lines["hard"] not in shown  # only the levels at this table


def test_an_option_error_says_none_not_null():
    res = CliRunner().invoke(cli, ["demo", "-o", "trump=hearts"])
    assert res.exit_code == 2
    assert "none" in res.output and "null" not in res.output


def _chatty_game(seed: int, says: list[str], lang: str = "en") -> tuple[TerminalGame, str]:
    """A one-deal game (takes allowed) where the human first types each line of ``says``, then
    always plays their first legal action (Enter at a take question); the whole output."""
    from getaway.text import i18n

    out = io.StringIO()
    console = Console(width=200, no_color=True, file=out)
    match = Match(Rules.profile("punjab", deals=1), ["A", "B", "C", "D"], seed)
    game = TerminalGame(console, match, 0, ["human", "easy", "easy", "easy"], seed)
    pending = list(says)

    def ask(prompt: str) -> str:
        if pending:
            return pending.pop(0)
        deal = game.match.deal
        view = player_view(deal, 0)
        return "" if view.decision == "take" else str(view.legal_actions[0])

    game.ask = ask
    with i18n.language(lang):
        assert game.run() == 0
    return game, out.getvalue()


def test_the_terminal_s_quick_chat_says_a_phrase_and_the_bots_answer_the_same_way_under_a_seed():
    from getaway.text.chat import PHRASES

    game, shown = _chatty_game(11, ["say", f"say {PHRASES.index('well_played') + 1}", "say hello"])
    assert "Quick chat: type say and a number, e.g. say 3:" in shown and "1: Hello!" in shown and "12: !" in shown
    assert "  A: Well played!" in shown and "  A: Hello!" in shown
    silent, quiet = _chatty_game(11, [])
    assert silent.match.deal.actions == game.match.deal.actions  # saying things changes no bot's move
    bots_said = [line for line in shown.splitlines() if line.startswith(("  B: ", "  C: ", "  D: "))]
    assert bots_said == [line for line in quiet.splitlines() if line.startswith(("  B: ", "  C: ", "  D: "))]
    assert bots_said
    assert all(line.split(": ", 1)[1] in ("Nice take!", "Well played!", "Good game!") for line in bots_said)
    _, again = _chatty_game(11, [])
    assert again == quiet  # the same seed, the same game and the same words
    _, french = _chatty_game(11, ["dire 3"], lang="fr")
    assert "  A : Bien joué !" in french


def _scripted_game(seed: int, answer, *, verbose: bool = False, options: dict | None = None):
    """A one-deal punjab game at seat A against easy bots, each prompt answered by
    ``answer(game, prompt, view)``; the game, the prompts asked and the whole output."""
    out = io.StringIO()
    console = Console(width=200, no_color=True, file=out)
    match = Match(Rules.profile("punjab", deals=1, **(options or {})), ["A", "B", "C", "D"], seed)
    game = TerminalGame(console, match, 0, ["human", "easy", "easy", "easy"], seed, verbose=verbose)
    prompts: list[str] = []

    def ask(prompt: str) -> str:
        prompts.append(prompt)
        if len(prompts) > 400:
            return "quit" if len(prompts) == 401 else "no"
        return answer(game, prompt, player_view(game.match.deal, 0))

    game.ask = ask
    assert game.run() == 0
    return game, prompts, out.getvalue()


def _refuse_once():
    tried = []

    def answer(game, prompt, view):
        cards = [c for c in view.hand if c not in view.legal_actions]
        if not tried and cards and view.to_act == 0:
            tried.append(cards[0])
            return str(cards[0])
        return str(view.legal_actions[0])

    return answer, tried


def test_the_terminal_keeps_rule_ids_out_of_players_messages_and_verbose_keeps_them():
    for seed in range(30):  # a deal where the player leads trick 1 (holds the A♠), takes off
        deal = Match(Rules.profile("punjab", deals=1, takes="off"), ["A", "B", "C", "D"], seed).deal
        if deal.to_act == 0:
            break
    answer, tried = _refuse_once()
    _, _, shown = _scripted_game(seed, answer, options={"takes": "off"})
    assert tried and "The first trick must be led with your A♠" in shown, shown[:2000]
    assert "(R-" not in shown and "(V-" not in shown
    answer, tried = _refuse_once()
    _, _, verbose = _scripted_game(seed, answer, verbose=True, options={"takes": "off"})
    assert "the first trick must be led with the A♠ (R-ACE)" in verbose


def test_the_terminal_offers_takes_by_a_key_between_tricks_not_a_question():
    pressed = []

    def answer(game, prompt, view):
        if not pressed and view.tricks_played >= 1 and view.to_act == 0 and len(view.hand) > 1:
            pressed.append(view.tricks_played)
            return "t"
        return str(view.legal_actions[0])

    game, prompts, shown = _scripted_game(4, answer)
    assert not [p for p in prompts if "Take" in p or "pass" in p], prompts  # no question, trick 1 included
    assert re.search(r"t = take [BCD]'s hand before the next trick \(\d+ cards?\)", shown), shown[:3000]
    assert "Take armed: you take" in shown
    takes = [(seat, str(a)) for seat, a in game.match.deals[0].actions if str(a) == "take"]
    assert takes and takes[0][0] == 0, game.match.deals[0].actions  # the armed take fired
    assert re.search(r"A takes [BCD]'s hand", shown), shown
