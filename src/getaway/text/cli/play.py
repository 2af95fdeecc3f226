"""The commands of a person at the terminal: ``play`` (against bots, one human), ``replay`` (a
record trick by trick, as one seat saw it or every hand), ``review`` (one seat's decisions by
the expert) and ``learn`` (the guided lessons)."""

from __future__ import annotations

import json
import secrets
import sys
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table
from rich.text import Text

from ... import Deal, Rules, RulesError
from ...bots import BOTS, LEVELS, bot_kind, make_bot
from ...bots.review import REVIEW_ITERATIONS, review_deal
from ...core.deal import replay as replay_actions
from ...core.match import FORMAT as MATCH_FORMAT
from ...core.match import Match, MatchError
from ...core.messages import seat_letter, seat_letters
from ...core.record import RecordError, deal_from_record, dumps, load_record, parse_record, record_of, state_summary
from ...core.view import player_view
from ..i18n import N_, _, command_word, localize, pgettext, use
from ..narrate import Narrator, describe
from ..rules_text import print_rules
from .common import (
    bot_list,
    check_output,
    cli,
    deal_option,
    lang_option,
    make_console,
    parse_options,
    parse_seat,
    players_option,
    profile_option,
    rules_option,
    seed_option,
)

__all__ = ["learn", "play", "replay", "review"]


def _play_settings(data: dict[str, Any], players: int) -> tuple[int, list[str]]:
    """The ``play`` object of a save: ``(human seat, a bot name per seat)``.

    Raises:
        ValueError: ``"<field>: <problem>"`` for a malformed field.
    """
    info = data.get("play", {})
    if not isinstance(info, dict):
        raise ValueError(_("play: expected an object, got {value}").format(value=json.dumps(info)))
    human = info.get("human", 0)
    if isinstance(human, bool) or not isinstance(human, int):
        raise ValueError(_("play.human: expected a seat number, got {value}").format(value=json.dumps(human)))
    if not 0 <= human < players:
        message = _("play.human: no seat {seat} among {n} players (expected 0 to {last})")
        raise ValueError(message.format(seat=human, n=players, last=players - 1))
    bots = info.get("bots", ["medium"] * players)
    if not isinstance(bots, list):
        raise ValueError(_("play.bots: expected a list of bot names, got {value}").format(value=json.dumps(bots)))
    if len(bots) != players:
        message = _("play.bots: expected {n} names (one per seat), got {k}")
        raise ValueError(message.format(n=players, k=len(bots)))
    known = list(dict.fromkeys([*LEVELS, *BOTS]))
    for seat, name in enumerate(bots):
        if seat == human:
            continue
        field = f"play.bots[{seat}]"
        if not isinstance(name, str) or bot_kind(name) is None:
            message = _("{field}: unknown bot or level {name} (known: {known})")
            raise ValueError(message.format(field=field, name=json.dumps(name), known=", ".join(known)))
        try:
            make_bot(name)
        except ValueError as exc:
            raise ValueError(_("{where}: {message}").format(where=field, message=localize(exc))) from None
    return human, ["human" if seat == human else str(name) for seat, name in enumerate(bots)]


@cli.command(help=N_("Play against bots in the terminal (one human, bots in the other seats)."))
@profile_option
@players_option
@rules_option
@click.option("--deals", type=int, default=1, show_default=True, help=N_("Deals in the match."))
@click.option("--seat", default="A", show_default=True, help=N_("Your seat: a letter (A, B …) or a number from 1."))
@click.option(
    "--bots",
    default="medium",
    show_default=True,
    help=N_(
        "Bot level (random, easy, medium, hard, expert) for every other seat, or one per other seat, comma-separated."
    ),
)
@seed_option(None, N_("Seed of the shuffles and of the bots (default: random)."))
@click.option("--load", "load_path", type=click.Path(dir_okay=False), help=N_("Resume a game saved with `save`."))
@click.option(
    "--record",
    "record_path",
    type=click.Path(dir_okay=False, writable=True),
    help=N_("Write the record here after each deal (getaway replay reads it)."),
)
@click.option(
    "--verbose", is_flag=True, help=N_("Show refusals as the engine words them, rule ids (R-ACE …) included.")
)
@lang_option
def play(
    profile: str,
    players: int,
    options: tuple[str, ...],
    deals: int,
    seat: str,
    bots: str,
    seed: int | None,
    load_path: str | None,
    record_path: str | None,
    verbose: bool,
    lang: str | None,
) -> None:
    """Play against bots in the terminal (one human, bots in the other seats)."""
    from ..terminal import TerminalGame

    use(lang)
    check_output(record_path, "--record")
    console = make_console()
    if load_path:
        try:
            data = json.loads(Path(load_path).read_text(encoding="utf-8"))
            match = Match.from_dict(data)
            human, bot_names = _play_settings(data, match.rules.players)
        except OSError as exc:
            raise click.UsageError(f"--load {load_path}: {exc.strerror or exc}") from None
        except (ValueError, MatchError, TypeError, AttributeError) as exc:
            message = _("{where}: {message}").format(where=f"--load {load_path}", message=localize(exc))
            raise click.UsageError(message) from None
        seed_used = match.seed
        console.print(Text(_("Resuming the game saved in {path}.").format(path=load_path)))
    else:
        rules_options = dict(parse_options(options))
        rules_options.setdefault("deals", deals)
        try:
            rules = Rules.profile(profile, players=players, **rules_options)
        except RulesError as exc:
            raise click.UsageError(localize(exc)) from None
        human = parse_seat(seat, players)
        others = bot_list(bots, players - 1)
        bot_names = others[:human] + ["human"] + others[human:]
        if seed is not None:  # a chosen seed: a reproducible match (the seed tells every hand)
            seed_used = seed
            match = Match(rules, seat_letters(players), seed_used)
            line = _("Getaway, {profile} profile, {players} players, seed {seed}.")
        else:  # hands hidden from the player: 128-bit deal seeds from a secret, never shown
            seed_used = secrets.randbits(63)
            match = Match(rules, seat_letters(players), seed_used, secret=secrets.token_bytes(32))
            line = _("Getaway, {profile} profile, {players} players.")
        console.print(Text(line.format(profile=rules.profile, players=players, seed=seed_used)))
    game = TerminalGame(
        console,
        match,
        human,
        bot_names,
        seed_used,
        rules_text=lambda c: print_rules(c, match.rules.profile, match.rules),
        record_path=record_path,
        verbose=verbose,
    )
    sys.exit(game.run())


@cli.command(help=N_("Replay a game record (format getaway/1) trick by trick (Enter to advance on a terminal)."))
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help=N_("Print the final state as one JSON object."))
@click.option(
    "--seat",
    "seat",
    default=None,
    help=N_("Show the deal as this seat saw it (a letter or a number from 1)."),
)
@deal_option
@lang_option
def replay(file: str, as_json: bool, seat: str | None, deal_no: int | None, lang: str | None) -> None:
    """Replay a game record (format getaway/1) trick by trick (Enter to advance on a terminal)."""
    try:
        data = _deal_record(load_record(file), deal_no)
        deal = deal_from_record(data)
    except RecordError as exc:
        click.echo(f"getaway replay: {localize(exc)}", err=True)
        sys.exit(1 if exc.index is not None else 2)
    if as_json:
        click.echo(dumps(state_summary(deal), indent=None))
        return
    use(lang)
    names = data["players"]
    viewer = None if seat is None else parse_seat(seat, len(names))
    start, actions, _names, _result = parse_record(data)
    _step_through(make_console(), start, actions, names, viewer)


def _deal_record(data: Any, deal_no: int | None) -> Any:
    """The deal record (``getaway/1``) to replay: ``data`` itself, or deal ``deal_no`` (from 1)
    of a saved match (``getaway-match/1``: ``play --record`` of several deals, ``save``).

    Raises:
        RecordError: a match that cannot be rebuilt, or no such deal.
        click.BadParameter: ``--deal`` given for a single deal's record.
    """
    if not (isinstance(data, dict) and data.get("format") == MATCH_FORMAT):
        if deal_no is not None:
            raise click.BadParameter(_("this file holds a single deal"), param_hint="--deal")
        return data
    try:
        match = Match.from_dict(data)
    except (MatchError, ValueError, TypeError, KeyError) as exc:
        raise RecordError(localize(exc)) from None
    k = deal_no or 1
    if k > len(match.deals):
        message = _("the match has {n} deal(s) so far, not {k}")
        raise click.BadParameter(message.format(n=len(match.deals), k=k), param_hint="--deal")
    return record_of(match.deals[k - 1], match.names)


def _step_through(console: Console, deal: Deal, actions: list[Any], names: list[str], viewer: int | None) -> None:
    interactive = console.is_terminal and sys.stdin.isatty()
    narrator = Narrator(names, special_first=deal.rules.special_first_trick and not deal.first_trick_done)
    seen = 0
    trick = 1

    def show_state() -> None:
        view = player_view(deal, viewer)
        console.rule(Text(_("Trick {k}").format(k=trick)))
        for s in range(deal.players):
            if viewer is None:
                cards = " ".join(str(c) for c in deal.hand(s)) or _("(got away)")
            elif s == viewer:
                cards = " ".join(str(c) for c in view.hand or ()) or _("(got away)")
            else:
                n = view.hand_sizes[s]
                cards = _("(got away)") if view.got_away[s] else _("{n} hidden").format(n=n)
            console.print(Text(f"  {names[s]}: {cards}"))
        console.print(Text("  " + _("waste pile: {n}").format(n=view.waste_size), style="dim"))

    def history() -> list[Any]:
        return list(deal.events) if viewer is None else list(player_view(deal, viewer).history)

    show_state()
    for seat, action in actions:
        replay_actions(deal, [(seat, action)])
        events = history()
        new, seen = events[seen:], len(events)
        for line in narrator.feed(new):
            console.print(Text("  " + line))
        if any(e.kind in ("lead",) for e in new) and not deal.is_over:
            trick += 1
            if interactive:
                try:
                    answer = console.input(Text(_("(Enter: next trick, q: quit) ")))
                except EOFError:
                    interactive = False
                else:
                    if answer.strip().lower() in ("q", "quit", pgettext("command", "quit").lower()):
                        return
            show_state()
    if not deal.is_over:
        console.print(
            Text(_("(record ends here: {name} to {decision})").format(name=names[deal.to_act], decision=deal.decision))
        )


@cli.command(help=N_("Review one seat's decisions in a game record: each choice's losing chance by the expert."))
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--seat", "seat", required=True, help=N_("The seat to review: a letter (A, B …) or a number from 1."))
@deal_option
@click.option(
    "--iterations",
    type=click.IntRange(min=1),
    default=REVIEW_ITERATIONS,
    show_default=True,
    help=N_("The expert's rollouts per decision (more: slower, a smaller ±)."),
)
@seed_option(None, N_("Seed of the review (default: the record's)."))
@click.option("--json", "as_json", is_flag=True, help=N_("Print the review as one JSON object."))
@lang_option
def review(
    file: str, seat: str, deal_no: int | None, iterations: int, seed: int | None, as_json: bool, lang: str | None
) -> None:
    """Review one seat's decisions in a game record: each choice's losing chance by the expert."""
    try:
        data = _deal_record(load_record(file), deal_no)
        deal_from_record(data, check_result=False)
    except RecordError as exc:
        click.echo(f"getaway review: {localize(exc)}", err=True)
        sys.exit(1 if exc.index is not None else 2)
    use(lang)
    names = data["players"]
    who = parse_seat(seat, len(names))
    err = make_console(err=True)
    with Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), console=err, transient=True
    ) as bar:
        task = bar.add_task(_("reviewing"), total=None)
        result = review_deal(
            data, who, iterations=iterations, seed=seed, progress=lambda k, n: bar.update(task, completed=k, total=n)
        )
    if as_json:
        click.echo(dumps(result.to_dict(localize), indent=None))
        return
    _print_review(make_console(), result, names)


def _action_word(action: str) -> str:

    return command_word(action) if action in ("take", "pass", "pickup") else action


def _print_review(out: Console, result: Any, names: list[str]) -> None:
    title = _("Review of seat {seat} ({name}): losing chance of each choice, by the expert").format(
        seat=seat_letter(result.seat), name=names[result.seat]
    )
    table = Table(title=title, show_edge=False)
    for col in (_("move"), _("trick"), _("played"), _("loses"), _("best"), _("loses"), _("mark"), _("why")):
        table.add_column(col)
    marks = {"mistake": ("?", "yellow"), "blunder": ("??", "bold red")}
    for d in result.decisions:
        mark, style = marks.get(d.mark, ("", ""))
        if d.losses:
            played = f"{d.losses[d.played]:.0f}% ±{d.plus_minus[d.played]:.0f}"
            best = f"{d.losses[d.best]:.0f}% ±{d.plus_minus[d.best]:.0f}"
        else:
            played, best = _("not searched"), ""
        word = {"mistake": _("mistake"), "blunder": _("blunder")}.get(d.mark, "")
        table.add_row(
            str(d.index + 1),
            str(d.trick + 1),
            _action_word(d.played),
            played,
            _action_word(d.best) if d.best != d.played else "=",
            best if d.best != d.played else "",
            Text(f"{mark} {word}".strip(), style=style),
            localize(d.reason) if d.reason and d.best != d.played else "",
        )
    out.print(table)
    out.print(
        _("{decisions} decisions, {mistakes} mistake(s), {blunders} blunder(s)").format(
            decisions=len(result.decisions), mistakes=result.mistakes, blunders=result.blunders
        )
    )


@cli.command(help=N_("Learn the game: guided lessons on real positions, your moves checked by the engine."))
@click.argument("lesson", required=False)
@lang_option
def learn(lesson: str | None, lang: str | None) -> None:
    """Learn the game: guided lessons on real positions, your moves checked by the engine."""
    from ..lessons import LESSONS

    use(lang)
    out = make_console()
    keys = list(LESSONS)
    if lesson is None:
        table = Table(title=_("Lessons"), show_edge=False)
        for col in ("#", _("lesson"), _("profile"), _("name")):
            table.add_column(col)
        for i, key in enumerate(keys, 1):
            item = LESSONS[key]
            table.add_row(str(i), _(item.title), item.profile, key)
        out.print(table)
        lesson = click.prompt(_("Lesson number"), default="1", show_default=True)
    chosen = keys[int(lesson) - 1] if lesson.isdigit() and 1 <= int(lesson) <= len(keys) else lesson
    if chosen not in LESSONS:
        raise click.BadParameter(
            _("no lesson {name!r} (lessons: 1–{n} or {keys})").format(name=lesson, n=len(keys), keys=", ".join(keys)),
            param_hint="LESSON",
        )
    _run_lesson(out, LESSONS[chosen])


def _run_lesson(out: Console, lesson: Any) -> None:
    from ..lessons import attempt

    names = seat_letters(len(lesson.hands))
    out.print(Text(_(lesson.title), style="bold"))
    out.print(_(lesson.goal))
    while True:
        deal = lesson.start()
        view = player_view(deal, lesson.seat)
        out.print(
            _("You are seat {seat}. Your hand: {hand}").format(
                seat=names[lesson.seat], hand=" ".join(map(str, view.hand))
            )
        )
        if view.trick:
            shown = ", ".join(f"{names[s]} {c}" for s, c in view.trick)
            out.print(_("On the table: {cards}").format(cards=shown))
        while True:
            try:
                move = click.prompt(_("Your move"), prompt_suffix="> ")
            except click.Abort:
                return
            result = attempt(lesson, [move])
            if result.verdict in ("illegal", "wrong"):
                out.print(Text(localize(result.message, seats=names), style="yellow"))
                continue
            break
        seen = player_view(result.deal, lesson.seat).history[deal.event_count :]
        for event in seen:
            line = describe(event, names)
            if line:
                out.print("  " + line)
        if result.verdict == "success":
            out.print(Text(_(lesson.success), style="bold green"))
            return
        out.print(Text(_(lesson.failure), style="bold red"))
        out.print(_("Try again."))
