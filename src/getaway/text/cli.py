"""The ``getaway`` command line: ``play``, ``simulate``, ``replay``, ``review``, ``learn``, ``rules`` and ``demo``.

Built on Click; the screen is drawn with Rich (docs/cli.md says why). Every message goes
through the gettext catalogs of :mod:`getaway.text.i18n` (``--lang`` or the locale).
Errors in input are one clear line on standard error and exit code 2 (bad options,
malformed records) or 1 (a record whose replay fails).
"""

from __future__ import annotations

import copy
import json
import os
import random
import secrets
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from .. import Deal, Rules, RulesError
from ..bots import BOTS, LEVELS, RandomBot, bot_kind, make_bot, play_deal
from ..bots.review import REVIEW_ITERATIONS, review_deal
from ..core.deal import replay as replay_actions
from ..core.match import FORMAT as MATCH_FORMAT
from ..core.match import Match, MatchError
from ..core.record import RecordError, deal_from_record, dumps, load_record, parse_record, record_of, state_summary
from ..core.view import player_view
from .i18n import LANGUAGES, N_, _, click_gettext, localize, pgettext, use
from .narrate import Narrator, describe
from .rules_text import print_rules

__all__ = ["main", "cli"]


def _parse_options(pairs: tuple[str, ...]) -> dict[str, Any]:
    """``--option trump=spades --option dehla=true`` → ``{"trump": "spades", "dehla": True}``.

    ``players`` and ``profile`` have their own options (``--players``, ``--profile``) and are
    refused here, in one line, rather than given twice to the rules.
    """
    for pair in pairs:
        name = str(pair).partition("=")[0].strip().lower()
        if name in ("players", "profile"):
            message = _("{pair!r}: set the {name} with --{name}, not with -o")
            raise click.BadParameter(message.format(pair=pair, name=name), param_hint="--option")
    try:
        return Rules.options_from_text(pairs)
    except RulesError as exc:
        raise click.BadParameter(localize(exc), param_hint="--option") from None


def _check_output(path: str | None, option: str) -> None:
    """Refuse an output file that cannot be written, before any work is done: its folder
    must exist and be writable, and the path must not be a folder."""
    if not path:
        return
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        problem = _("{path!r} is a folder, not a file").format(path=path)
    elif not folder.exists():
        problem = _("the folder {folder!r} does not exist").format(folder=str(folder))
    elif not folder.is_dir():
        problem = _("{folder!r} is not a folder").format(folder=str(folder))
    elif not os.access(folder, os.W_OK | os.X_OK):
        problem = _("cannot write in the folder {folder!r}").format(folder=str(folder))
    elif target.exists() and not os.access(target, os.W_OK):
        problem = _("cannot write {path!r}").format(path=path)
    else:
        return
    raise click.BadParameter(problem, param_hint=option)


class _WriteError(click.UsageError):
    """Writing an output file failed (exit code 2, one line)."""


def _write_failed(path: str, option: str, exc: OSError) -> _WriteError:
    reason = exc.strerror or str(exc)
    return _WriteError(_("{option}: cannot write {path!r}: {reason}").format(option=option, path=path, reason=reason))


def _console(err: bool = False) -> Console:
    """A Rich console: colour only on a terminal and without ``NO_COLOR``; 80 columns when
    the output is not a terminal (so files and pipes get stable lines)."""
    stream = sys.stderr if err else sys.stdout
    terminal = stream.isatty()
    return Console(
        file=stream,
        no_color=bool(os.environ.get("NO_COLOR")) or None,
        width=None if terminal else 80,
        highlight=False,
        emoji=False,
        soft_wrap=False,
    )


def _format_translated(command: click.Command, translate: Callable[[str], str], render: Callable[[], None]) -> None:
    """Render ``command``'s help with its option help texts (``translate``) and its own text
    (the catalog) in the current language, then put the English texts back."""
    saved = [(p, p.help) for p in command.params if isinstance(p, click.Option)]
    own = command.help
    try:
        for param, text in saved:
            if text:
                param.help = translate(text)
        if own:
            command.help = _(own)
        render()
    finally:
        for param, text in saved:
            param.help = text
        command.help = own


def _type_names() -> dict[str, str]:
    """Click's type names in the current language: the metavars of the help (``INTEGER`` →
    ``ENTIER``) and the type in errors (``'x' is not a valid integer``). Click does not mark them
    for translation, so they are in our catalog, context ``click type``."""
    return {
        "text": pgettext("click type", "text"),
        "integer": pgettext("click type", "integer"),
        "float": pgettext("click type", "float"),
        "integer range": pgettext("click type", "integer range"),
        "float range": pgettext("click type", "float range"),
        "boolean": pgettext("click type", "boolean"),
        "file": pgettext("click type", "file"),
        "directory": pgettext("click type", "directory"),
        "path": pgettext("click type", "path"),
        "filename": pgettext("click type", "filename"),
        "choice": pgettext("click type", "choice"),
        "datetime": pgettext("click type", "datetime"),
    }


def _metavars() -> dict[str, str]:
    """Our own metavars, Click's argument names and the words of the usage line, in the
    current language (context ``metavar``)."""
    return {
        "NAME=VALUE": pgettext("metavar", "NAME=VALUE"),
        "A,B,…": pgettext("metavar", "A,B,…"),
        "FILE": pgettext("metavar", "FILE"),
        "[OPTIONS]": pgettext("metavar", "[OPTIONS]"),
        "COMMAND [ARGS]...": pgettext("metavar", "COMMAND [ARGS]..."),
    }


class _LocalizedType(click.ParamType):
    """Mixed into a copy of a parameter's Click type: its ``name`` (shown upper-case as the
    metavar, and in Click's errors) and its metavar follow the current language, looked up
    each time they are shown, never at import time."""

    _english_name: str
    _english_metavar: str | None

    @property  # type: ignore[override]
    def name(self) -> str:  # noqa: D102
        return _type_names().get(self._english_name, self._english_name)

    @name.setter
    def name(self, value: str) -> None:
        self.__dict__["_english_name"] = value

    def get_metavar(self, param: click.Parameter, ctx: click.Context) -> str | None:  # noqa: D102
        if self._english_metavar is not None:
            return _metavars().get(self._english_metavar, self._english_metavar)
        return super().get_metavar(param=param, ctx=ctx)


_LOCALIZED_CLASSES: dict[type, type] = {}


def _localize_params(command: click.Command) -> None:
    """Give each parameter of ``command`` a type whose name and metavar are translated when
    shown (:class:`_LocalizedType`); an explicit metavar (``NAME=VALUE``) or an argument's name
    (``FILE``) moves to the type, so that it is translated too."""
    for param in command.params:
        kind = type(param.type)
        if issubclass(kind, _LocalizedType):
            continue
        english_metavar = param.metavar
        if english_metavar is None and isinstance(param, click.Argument) and not isinstance(param.type, click.Choice):
            english_metavar = (param.name or "").upper()  # what Click shows: FILE
        if english_metavar is not None and english_metavar not in _metavars():
            continue  # a metavar we do not translate: left to Click
        localized = _LOCALIZED_CLASSES.get(kind)
        if localized is None:
            localized = _LOCALIZED_CLASSES[kind] = type(f"Localized{kind.__name__}", (_LocalizedType, kind), {})
        new = copy.copy(param.type)
        english_name = new.__dict__.pop("name", None) or kind.name
        new.__class__ = localized
        new.__dict__["_english_name"] = english_name
        new.__dict__["_english_metavar"] = english_metavar
        param.type = new
        param.metavar = None


def _usage_pieces(pieces: list[str]) -> list[str]:
    """The usage line's words (``[OPTIONS]``, ``COMMAND [ARGS]...``) in the current language."""
    words = _metavars()
    return [words.get(piece, piece) for piece in pieces]


class _Command(click.Command):
    """A Click command whose help texts (marked with ``N_``), metavars and type names are shown
    in the current language."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _localize_params(self)

    def collect_usage_pieces(self, ctx: click.Context) -> list[str]:  # noqa: D102
        return _usage_pieces(super().collect_usage_pieces(ctx))

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        _format_translated(self, _, lambda: super(_Command, self).format_help(ctx, formatter))

    def get_help_option(self, ctx: click.Context) -> click.Option | None:  # noqa: D102
        return _help_in_current_language(super().get_help_option(ctx))

    def get_short_help_str(self, limit: int = 45) -> str:
        own = self.help
        try:
            if own:
                self.help = _(own)
            return super().get_short_help_str(limit)
        finally:
            self.help = own


def _help_in_current_language(option: click.Option | None) -> click.Option | None:
    """Click caches the ``--help`` option with its help text in the language of its first use."""
    if option is not None:
        option.help = click_gettext("Show this message and exit.")
    return option


class _Group(click.Group):
    """A Click group whose usage errors are one line: ``getaway CMD: error: …`` (exit 2)."""

    command_class = _Command

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _localize_params(self)

    def collect_usage_pieces(self, ctx: click.Context) -> list[str]:  # noqa: D102
        return _usage_pieces(super().collect_usage_pieces(ctx))

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:  # noqa: D102
        # The group's one option, --version, is one of Click's own messages.
        _format_translated(self, click_gettext, lambda: super(_Group, self).format_help(ctx, formatter))

    def get_help_option(self, ctx: click.Context) -> click.Option | None:  # noqa: D102
        return _help_in_current_language(super().get_help_option(ctx))

    def main(self, *args: Any, **kwargs: Any) -> Any:  # noqa: D102
        use(None)  # the locale's language for help and errors, until a command's --lang says otherwise
        kwargs["standalone_mode"] = False
        try:
            result = super().main(*args, **kwargs)
        except click.exceptions.Abort:
            click.echo("", err=True)
            sys.exit(1)
        except click.ClickException as exc:
            where = exc.ctx.command_path if isinstance(exc, click.UsageError) and exc.ctx else "getaway"
            label = _("error")
            click.echo(f"{where}: {label}: {exc.format_message()}", err=True)
            sys.exit(exc.exit_code)
        sys.exit(result if isinstance(result, int) else 0)


def _backend_options(func: Any) -> Any:
    """``--backend local|ray`` and ``--ray-address`` (simulate, tournament; getaway.sim.simulation.run_jobs)."""
    func = click.option(
        "--ray-address", default=None, help=N_("Address of an existing Ray cluster (default: a local one).")
    )(func)
    return click.option(
        "--backend",
        type=click.Choice(["local", "ray"]),
        default="local",
        show_default=True,
        help=N_("Where the deals run: processes on this machine, or Ray tasks (extra getaway[ray])."),
    )(func)


def _lang_option(func: Any) -> Any:
    return click.option(
        "--lang",
        type=click.Choice(LANGUAGES),
        default=None,
        is_eager=True,  # before --help, so that the help is in that language
        callback=lambda _ctx, _param, value: use(value) if value else None,
        help=N_("Language of every message (default: from LANGUAGE, LC_ALL, LC_MESSAGES or LANG)."),
    )(func)


def _rules_from(profile: str, players: int, options: tuple[str, ...], **more: Any) -> Rules:
    try:
        return Rules.profile(profile, players=players, **{**_parse_options(options), **more})
    except RulesError as exc:
        raise click.UsageError(localize(exc)) from None


@click.group(
    cls=_Group,
    context_settings={"help_option_names": ["-h", "--help"]},
    help=N_("Getaway (Bhabhi, Bhabhi Thulla): the South Asian shedding card game."),
)
@click.version_option(package_name="getaway")
def cli() -> None:
    """Getaway (Bhabhi, Bhabhi Thulla): the South Asian shedding card game."""
    use(None)  # the locale's language, until a command's --lang says otherwise


# ---------------------------------------------------------------------------------- demo


@cli.command(help=N_("Play one seeded deal among random bots and print it trick by trick."))
@click.option("--profile", type=click.Choice(["punjab", "classic"]), default="punjab", show_default=True)
@click.option("--players", "-n", type=int, default=4, show_default=True, help=N_("Number of seats."))
@click.option("--seed", type=int, default=1, show_default=True, help=N_("Seed of the shuffle and of the bots."))
@click.option("--dealer", type=int, default=0, show_default=True)
@click.option(
    "--option", "-o", "options", multiple=True, metavar="NAME=VALUE", help=N_("Any rules option, e.g. trump=spades.")
)
@click.option(
    "--record", "record_path", type=click.Path(dir_okay=False, writable=True), help=N_("Write the game record here.")
)
@_lang_option
def demo(
    profile: str,
    players: int,
    seed: int,
    dealer: int,
    options: tuple[str, ...],
    record_path: str | None,
    lang: str | None,
) -> None:
    """Play one seeded deal among random bots and print it trick by trick."""
    use(lang)
    rules = _rules_from(profile, players, options)
    _check_output(record_path, "--record")
    try:
        deal = Deal(rules, dealer=dealer, seed=seed)
    except ValueError as exc:
        raise click.UsageError(localize(exc)) from None
    names = [chr(ord("A") + i) for i in range(players)]
    click.echo(
        _("Getaway, {profile} profile, {players} players, seed {seed}; dealer {dealer}.").format(
            profile=profile, players=players, seed=seed, dealer=names[dealer]
        )
    )
    options_on = ", ".join(f"{k}={v}" for k, v in _parse_options(options).items())
    if options_on:
        click.echo(_("Options: {options}").format(options=options_on))
    for seat in range(players):
        click.echo(f"  {names[seat]}: {' '.join(str(c) for c in deal.hand(seat))}")
    trick_no = [1]
    click.echo("\n" + _("Trick {k}").format(k=trick_no[0]))

    def show(seat: int, action: Any, events: list[Any]) -> None:
        for event in events:
            if event.kind == "pass":
                continue
            line = describe(event, names)
            if line:
                click.echo(f"  {line}")
            if event.kind == "lead":
                trick_no[0] += 1
                click.echo("\n" + _("Trick {k}").format(k=trick_no[0]))

    bots = [RandomBot() for _seat in range(players)]
    play_deal(deal, bots, random.Random(seed), on_events=show)
    outcome = deal.outcome
    assert outcome is not None
    order = " → ".join(", ".join(names[s] for s in group) for group in outcome.out_order)  # shared places: commas
    click.echo("\n" + _("Order of getting away: {order}").format(order=order))
    if outcome.loser is not None:
        click.echo(_("Loser: {name}").format(name=names[outcome.loser]))
    else:
        click.echo(_("Loser: none (drawn deal)"))
    if record_path:
        try:
            with open(record_path, "w", encoding="utf-8") as fh:
                fh.write(dumps(record_of(deal, names)) + "\n")
        except OSError as exc:
            raise _write_failed(record_path, "--record", exc) from None
        click.echo(_("Record written to {path}").format(path=record_path))


# ---------------------------------------------------------------------------------- play


def _parse_seat(text: str, players: int) -> int:
    """``B`` or ``2`` → seat 1 (letters A… or numbers from 1)."""
    t = text.strip().upper()
    if len(t) == 1 and "A" <= t <= "H":
        seat = ord(t) - ord("A")
    elif t.isdigit():
        seat = int(t) - 1
    else:
        seat = -1
    if not 0 <= seat < players:
        message = _("no seat {seat!r} among {n} players (use A–{last} or 1–{n})")
        raise click.BadParameter(
            message.format(seat=text, n=players, last=chr(ord("A") + players - 1)), param_hint="--seat"
        )
    return seat


def _bot_list(text: str, count: int, option: str = "--bots") -> list[str]:
    names = [t.strip() for t in text.split(",") if t.strip()]
    known = list(dict.fromkeys([*LEVELS, *BOTS]))
    for name in names:
        if bot_kind(name) is None:
            message = _("unknown bot or level {name!r} (known: {known})")
            raise click.BadParameter(message.format(name=name, known=", ".join(known)), param_hint=option)
        try:
            make_bot(name)  # settings on the name, e.g. expert:iterations=60
        except ValueError as exc:
            raise click.BadParameter(localize(exc), param_hint=option) from None
    if len(names) == 1:
        return names * count
    if len(names) != count:
        message = _("expected 1 or {count} names, got {n}")
        raise click.BadParameter(message.format(count=count, n=len(names)), param_hint=option)
    return names


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
@click.option("--profile", type=click.Choice(["punjab", "classic"]), default="punjab", show_default=True)
@click.option("--players", "-n", type=int, default=4, show_default=True, help=N_("Number of seats."))
@click.option(
    "--option", "-o", "options", multiple=True, metavar="NAME=VALUE", help=N_("Any rules option, e.g. trump=spades.")
)
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
@click.option("--seed", type=int, default=None, help=N_("Seed of the shuffles and of the bots (default: random)."))
@click.option("--load", "load_path", type=click.Path(dir_okay=False), help=N_("Resume a game saved with `save`."))
@click.option(
    "--record",
    "record_path",
    type=click.Path(dir_okay=False, writable=True),
    help=N_("Write the record here after each deal (getaway replay reads it)."),
)
@_lang_option
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
    lang: str | None,
) -> None:
    """Play against bots in the terminal (one human, bots in the other seats)."""
    from .terminal import TerminalGame, seat_names

    use(lang)
    _check_output(record_path, "--record")
    console = _console()
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
        rules_options = dict(_parse_options(options))
        rules_options.setdefault("deals", deals)
        try:
            rules = Rules.profile(profile, players=players, **rules_options)
        except RulesError as exc:
            raise click.UsageError(localize(exc)) from None
        human = _parse_seat(seat, players)
        others = _bot_list(bots, players - 1)
        bot_names = others[:human] + ["human"] + others[human:]
        if seed is not None:  # a chosen seed: a reproducible match (the seed tells every hand)
            seed_used = seed
            match = Match(rules, seat_names(players), seed_used)
            line = _("Getaway, {profile} profile, {players} players, seed {seed}.")
        else:  # hands hidden from the player: 128-bit deal seeds from a secret, never shown
            seed_used = secrets.randbits(63)
            match = Match(rules, seat_names(players), seed_used, secret=secrets.token_bytes(32))
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
    )
    sys.exit(game.run())


# ---------------------------------------------------------------------------------- simulate


@cli.command(help=N_("Play many seeded deals among bots on all cores and summarize who loses."))
@click.option("--deals", "-d", "count", type=int, default=1000, show_default=True, help=N_("Deals to play."))
@click.option(
    "--matches",
    type=int,
    default=None,
    help=N_("Play this many matches instead (each of `deals` deals, option -o deals=N; dealer rotating)."),
)
@click.option("--profile", type=click.Choice(["punjab", "classic"]), default="punjab", show_default=True)
@click.option("--players", "-n", type=int, default=4, show_default=True, help=N_("Number of seats."))
@click.option(
    "--option", "-o", "options", multiple=True, metavar="NAME=VALUE", help=N_("Any rules option, e.g. trump=spades.")
)
@click.option(
    "--bots",
    default="random",
    show_default=True,
    help=N_("Bot (level or kind) for every seat, or one per seat, comma-separated."),
)
@click.option("--seed", type=int, default=1, show_default=True, help=N_("Seed of the first deal (deal i uses seed+i)."))
@click.option("--workers", "-w", type=int, default=None, help=N_("Processes (default: all cores)."))
@_backend_options
@click.option(
    "--out",
    "out_path",
    type=click.Path(dir_okay=False),
    help=N_("Write one line per deal (.jsonl or .csv)."),
)
@click.option(
    "--plot",
    "plot_path",
    type=click.Path(dir_okay=False),
    help=N_("Draw loss rates and deal lengths (.png)."),
)
@_lang_option
def simulate(
    count: int,
    matches: int | None,
    profile: str,
    players: int,
    options: tuple[str, ...],
    bots: str,
    seed: int,
    workers: int | None,
    backend: str,
    ray_address: str | None,
    out_path: str | None,
    plot_path: str | None,
    lang: str | None,
) -> None:
    """Play many seeded deals among bots on all cores and summarize who loses."""
    from ..sim.simulation import Job, default_workers, run_jobs
    from ..sim.stats import plot, summarize, write_results

    use(lang)
    rules = _rules_from(profile, players, options)
    names = _bot_list(bots, players)
    if count < 1:
        raise click.BadParameter(_("at least 1, not {n}").format(n=count), param_hint="--deals")
    if matches is not None:
        if matches < 1:
            raise click.BadParameter(_("at least 1, not {n}").format(n=matches), param_hint="--matches")
        count = matches * rules.deals
    workers = workers if workers is not None else default_workers()
    if workers < 1:
        raise click.BadParameter(_("at least 1, not {n}").format(n=workers), param_hint="--workers")
    if out_path and Path(out_path).suffix.lower() not in (".jsonl", ".csv"):
        message = _("expected a .jsonl or .csv file, got {path!r}")
        raise click.BadParameter(message.format(path=out_path), param_hint="--out")
    if plot_path and Path(plot_path).suffix.lower() != ".png":
        message = _("expected a .png file, got {path!r}")
        raise click.BadParameter(message.format(path=plot_path), param_hint="--plot")
    _check_output(out_path, "--out")
    _check_output(plot_path, "--plot")
    if matches is not None:
        # A match: rules.deals deals; the first dealer by lot from the match's seed, then to the left.
        jobs = []
        for m in range(matches):
            first = random.Random(seed + m).randrange(players)
            for d in range(rules.deals):
                i = m * rules.deals + d
                jobs.append(Job(rules, tuple(names), seed + i, (first + d) % players))
    else:
        jobs = [Job(rules, tuple(names), seed + i, i % players) for i in range(count)]
    err = _console(err=True)
    with Progress(
        TextColumn(_("Simulating")),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn(_("ETA")),
        TimeRemainingColumn(),
        console=err,
        disable=not err.is_terminal,
    ) as progress:
        task = progress.add_task("simulate", total=len(jobs))
        results = run_jobs(
            jobs,
            workers=workers,
            progress=lambda k: progress.advance(task, k),
            backend=backend,
            address=ray_address,
        )
    summary = summarize(results)
    out = _console()
    _print_summary(out, summary, rules, names, matches, results)
    failed: _WriteError | None = None  # one file failing must not cost the other
    if out_path:
        try:
            write_results(results, out_path)
            out.print(Text(_("Results written to {path}").format(path=out_path)))
        except OSError as exc:
            failed = _write_failed(out_path, "--out", exc)
    if plot_path:
        title = _("{profile}, {players} players, {n} deals").format(profile=profile, players=players, n=len(results))
        labels = {"seat": _("seat"), "loss": _("loss rate"), "tricks": _("tricks per deal"), "deals": _("deals")}
        try:
            plot(summary, plot_path, title, labels)
            out.print(Text(_("Plot written to {path}").format(path=plot_path)))
        except OSError as exc:
            failed = failed or _write_failed(plot_path, "--plot", exc)
    if failed is not None:
        raise failed


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _print_summary(
    out: Console, summary: Any, rules: Rules, names: list[str], matches: int | None, results: list[Any]
) -> None:
    out.print(
        Text(
            _("{n} deals, {profile} profile, {players} players").format(
                n=summary.deals, profile=rules.profile, players=rules.players
            ),
            style="bold",
        )
    )
    table = Table(title=_("Loss rate per seat (95% Wilson interval)"), show_edge=False)
    for col in (_("seat"), _("bot"), _("deals"), _("losses"), _("loss rate"), _("interval at 95%")):
        table.add_column(col, justify="right" if col not in (_("bot"),) else "left")
    for r in summary.seats:
        lo, hi = r.interval
        table.add_row(
            chr(ord("A") + int(r.label)), r.bot, str(r.deals), str(r.losses), _pct(r.rate), f"{_pct(lo)}–{_pct(hi)}"
        )
    out.print(table)
    if len(summary.bots) > 1:
        table = Table(title=_("Loss rate per bot (95% Wilson interval)"), show_edge=False)
        for col in (_("bot"), _("seat-deals"), _("losses"), _("loss rate"), _("interval at 95%")):
            table.add_column(col, justify="left" if col == _("bot") else "right")
        for r in summary.bots:
            lo, hi = r.interval
            table.add_row(r.bot, str(r.deals), str(r.losses), _pct(r.rate), f"{_pct(lo)}–{_pct(hi)}")
        out.print(table)
    average = _(
        "Average deal: {tricks:.1f} tricks, {plays:.1f} cards played, {pickups:.2f} pick-ups, {takes:.3f} takes"
    )
    out.print(average.format(tricks=summary.tricks, plays=summary.plays, pickups=summary.pickups, takes=summary.takes))
    if summary.drawn:
        out.print(_("Drawn deals (no loser): {n}").format(n=summary.drawn))
    if matches:
        per = rules.deals
        lost = [0] * rules.players
        for m in range(matches):
            losses = [0] * rules.players
            for r in results[m * per : (m + 1) * per]:
                if r.loser is not None:
                    losses[r.loser] += 1
            worst = max(losses)
            for s in range(rules.players):
                if losses[s] == worst:
                    lost[s] += 1
        line = ", ".join(f"{chr(ord('A') + s)} {lost[s]}" for s in range(rules.players))
        out.print(_("Matches lost (most losses, ties counted for each): {line}").format(line=line))


# ---------------------------------------------------------------------------------- replay


@cli.command(help=N_("Replay a game record (format getaway/1) trick by trick (Enter to advance on a terminal)."))
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help=N_("Print the final state as one JSON object."))
@click.option(
    "--seat",
    "seat",
    default=None,
    help=N_("Show the deal as this seat saw it (a letter or a number from 1)."),
)
@click.option(
    "--deal",
    "deal_no",
    type=click.IntRange(min=1),
    default=None,
    help=N_("For a saved match (play --record, save): which of its deals (default 1)."),
)
@_lang_option
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
    viewer = None if seat is None else _parse_seat(seat, len(names))
    start, actions, _names, _result = parse_record(data)
    _step_through(_console(), start, actions, names, viewer)


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


# ---------------------------------------------------------------------------------- rules


# ---------------------------------------------------------------------------------- review


@cli.command(help=N_("Review one seat's decisions in a game record: each choice's losing chance by the expert."))
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--seat", "seat", required=True, help=N_("The seat to review: a letter (A, B …) or a number from 1."))
@click.option(
    "--deal",
    "deal_no",
    type=click.IntRange(min=1),
    default=None,
    help=N_("For a saved match (play --record, save): which of its deals (default 1)."),
)
@click.option(
    "--iterations",
    type=click.IntRange(min=1),
    default=REVIEW_ITERATIONS,
    show_default=True,
    help=N_("The expert's rollouts per decision (more: slower, a smaller ±)."),
)
@click.option("--seed", type=int, default=None, help=N_("Seed of the review (default: the record's)."))
@click.option("--json", "as_json", is_flag=True, help=N_("Print the review as one JSON object."))
@_lang_option
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
    who = _parse_seat(seat, len(names))
    err = _console(err=True)
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
    _print_review(_console(), result, names)


def _action_word(action: str) -> str:
    from .terminal import command_word

    return command_word(action) if action in ("take", "pass", "pickup") else action


def _print_review(out: Console, result: Any, names: list[str]) -> None:
    title = _("Review of seat {seat} ({name}): losing chance of each choice, by the expert").format(
        seat=chr(ord("A") + result.seat), name=names[result.seat]
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


# ---------------------------------------------------------------------------------- learn


@cli.command(help=N_("Learn the game: guided lessons on real positions, your moves checked by the engine."))
@click.argument("lesson", required=False)
@_lang_option
def learn(lesson: str | None, lang: str | None) -> None:
    """Learn the game: guided lessons on real positions, your moves checked by the engine."""
    from .lessons import LESSONS

    use(lang)
    out = _console()
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
    from .lessons import attempt

    names = [chr(ord("A") + s) for s in range(len(lesson.hands))]
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


@cli.command(help=N_("Print the rules of a profile, condensed for the terminal, and the variants given with -o."))
@click.option("--profile", type=click.Choice(["punjab", "classic"]), default="punjab", show_default=True)
@click.option(
    "--option", "-o", "options", multiple=True, metavar="NAME=VALUE", help=N_("Any rules option, e.g. trump=spades.")
)
@_lang_option
def rules(profile: str, options: tuple[str, ...], lang: str | None) -> None:
    """Print the rules of a profile, condensed for the terminal, and the variants given with -o."""
    use(lang)
    game = _rules_from(profile, 4, options) if options else None  # the variants do not depend on the seats
    print_rules(_console(), profile, game)


# The column names of the tournament table (getaway.sim.tournament.TournamentResult.table).
_TABLE_WORDS = (N_("bot"), N_("seats"), N_("deals"), N_("loss"), N_("95% CI"), N_("place"), N_("dec/s"))
_TABLE_WORDS += (N_("med ms"), N_("p99 ms"))


@cli.command(
    help=N_(
        "Play duplicate deals among bots and report each bot's loss rate (95% Wilson CI), average place "
        "and decision speed. Bots: random, heuristic, expert, or a level (easy, medium, hard, expert); "
        "settings as kind:name=value+name=value, e.g. expert:iterations=60."
    )
)
@click.option("--profile", type=click.Choice(["punjab", "classic"]), default="punjab", show_default=True)
@click.option("--players", "-n", type=int, default=4, show_default=True, help=N_("Number of seats."))
@click.option(
    "--bots",
    "bots_text",
    default=None,
    metavar="A,B,…",
    help=N_("One bot per seat, comma-separated (default: heuristic then random)."),
)
@click.option("--deals", type=int, default=400, show_default=True, help=N_("Deals in all (whole rotations)."))
@click.option("--seed", type=int, default=1, show_default=True, help=N_("Base seed of the deals."))
@click.option("--workers", "-w", type=int, default=1, show_default=True, help=N_("Processes."))
@_backend_options
@click.option(
    "--option", "-o", "options", multiple=True, metavar="NAME=VALUE", help=N_("Any rules option, e.g. trump=spades.")
)
@click.option("--json", "json_path", type=click.Path(dir_okay=False), help=N_("Write results as JSON."))
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False), help=N_("Write results as CSV."))
@click.option(
    "--resume",
    "resume_path",
    type=click.Path(dir_okay=False),
    help=N_("Partial results file: finished sets are written to it, and a rerun continues from it."),
)
@click.option("--quiet", "-q", is_flag=True, help=N_("No progress line."))
@_lang_option
def tournament(
    profile: str,
    players: int,
    bots_text: str | None,
    deals: int,
    seed: int,
    workers: int,
    backend: str,
    ray_address: str | None,
    options: tuple[str, ...],
    json_path: str | None,
    csv_path: str | None,
    resume_path: str | None,
    quiet: bool,
    lang: str | None,
) -> None:
    """Duplicate deals among bots (docs/bots.md): the command line of :mod:`getaway.sim.tournament`."""
    from ..sim.tournament import ResumeError, run_tournament

    use(lang)
    _check_output(json_path, "--json")
    _check_output(csv_path, "--csv")
    rules = _rules_from(profile, players, options)
    default = ",".join(["heuristic"] + ["random"] * (players - 1))
    lineup = _bot_list(bots_text or default, players)
    if deals < 1:
        raise click.BadParameter(_("at least 1, not {n}").format(n=deals), param_hint="--deals")
    if workers < 1:
        raise click.BadParameter(_("at least 1, not {n}").format(n=workers), param_hint="--workers")
    done = [0]
    total = -(-deals // players) * players

    def progress(k: int) -> None:
        done[0] += k
        if not quiet and sys.stderr.isatty():
            click.echo(f"\r{done[0]}/{total}", nl=False, err=True)

    try:
        result = run_tournament(
            rules,
            lineup,
            deals,
            seed=seed,
            workers=workers,
            progress=progress,
            backend=backend,
            address=ray_address,
            resume=resume_path,
        )
    except ResumeError as exc:
        raise click.BadParameter(str(exc), param_hint="--resume") from None
    except OSError as exc:
        message = _("cannot write {path}: {reason}")
        raise click.UsageError(message.format(path=resume_path, reason=exc.strerror or exc)) from None
    if not quiet and sys.stderr.isatty():
        click.echo("", err=True)
    line = _("{profile}, {n} players, {seeds} seeds × {n} rotations = {deals} deals, {workers} worker(s), {secs} s")
    click.echo(
        line.format(
            profile=profile,
            n=players,
            seeds=result.seeds,
            deals=result.deals,
            workers=workers,
            secs=f"{result.elapsed:.1f}",
        )
    )
    click.echo(result.table(_))
    outputs = ((json_path, lambda: json.dumps(result.to_dict(), indent=2) + "\n"), (csv_path, result.to_csv))
    for path, text in outputs:
        if path:
            try:
                with open(path, "w", encoding="utf-8", newline="") as fh:
                    fh.write(text())
            except OSError as exc:
                message = _("cannot write {path}: {reason}")
                raise click.UsageError(message.format(path=path, reason=exc.strerror or exc)) from None


@cli.command(help=N_("Rate bots at mixed tables with OpenSkill (docs/bots.md)."))
@click.option("--profile", type=click.Choice(["punjab", "classic"]), default="punjab", show_default=True)
@click.option("--players", "-n", type=int, default=4, show_default=True, help=N_("Number of seats."))
@click.option(
    "--bots",
    "bots_text",
    default="random,easy,medium,hard,expert",
    show_default=True,
    metavar="A,B,…",
    help=N_("The bots to rate, comma-separated (kinds, levels, style:…, package.module:Class)."),
)
@click.option(
    "--tables", type=int, default=100, show_default=True, help=N_("Mixed tables, each one seed in every rotation.")
)
@click.option("--seed", type=int, default=1, show_default=True, help=N_("Base seed of the deals."))
@click.option("--workers", "-w", type=int, default=None, help=N_("Processes (default: all cores)."))
@_backend_options
@click.option(
    "--option", "-o", "options", multiple=True, metavar="NAME=VALUE", help=N_("Any rules option, e.g. trump=spades.")
)
@click.option("--quiet", "-q", is_flag=True, help=N_("No progress line."))
@_lang_option
def ladder(
    profile: str,
    players: int,
    bots_text: str,
    tables: int,
    seed: int,
    workers: int | None,
    backend: str,
    ray_address: str | None,
    options: tuple[str, ...],
    quiet: bool,
    lang: str | None,
) -> None:
    """The command line of :mod:`getaway.sim.ladder`: ratings with their uncertainty."""
    from ..sim.ladder import run_ladder

    use(lang)
    rules = _rules_from(profile, players, options)
    names = list(dict.fromkeys(t.strip() for t in bots_text.split(",") if t.strip()))
    _bot_list(",".join(names), len(names))  # each name checked, with the usual messages
    if len(names) < players:
        message = _("the ladder needs at least {n} different bots for {n} seats, got {k}")
        raise click.BadParameter(message.format(n=players, k=len(names)), param_hint="--bots")
    if tables < 1:
        raise click.BadParameter(_("at least 1, not {n}").format(n=tables), param_hint="--tables")
    if workers is None:
        workers = os.cpu_count() or 1
    if workers < 1:
        raise click.BadParameter(_("at least 1, not {n}").format(n=workers), param_hint="--workers")
    done = [0]
    total = tables * players

    def progress(k: int) -> None:
        done[0] += k
        if not quiet and sys.stderr.isatty():
            click.echo(f"\r{done[0]}/{total}", nl=False, err=True)

    result = run_ladder(
        rules, names, tables, seed=seed, workers=workers, progress=progress, backend=backend, address=ray_address
    )
    if not quiet and sys.stderr.isatty():
        click.echo("", err=True)
    line = _("{profile}, {n} players, {tables} tables × {n} rotations = {deals} deals, {workers} worker(s), {secs} s")
    click.echo(
        line.format(
            profile=profile, n=players, tables=tables, deals=total, workers=workers, secs=f"{result.elapsed:.1f}"
        )
    )
    click.echo(result.table())
    click.echo(_("OpenSkill Plackett-Luce: mu ± 2 sigma; sorted by mu - 3 sigma."))


def _comma_list(text: str, known: list[str] | None, option: str) -> list[str]:
    """``"a,b"`` → ``["a", "b"]`` (repeats dropped), each one of ``known`` when given."""
    names = list(dict.fromkeys(t.strip() for t in text.split(",") if t.strip()))
    if not names:
        raise click.BadParameter(_("expected at least one name"), param_hint=option)
    for name in names:
        if known is not None and name not in known:
            message = _("unknown name {name!r} (known: {known})")
            raise click.BadParameter(message.format(name=name, known=", ".join(known)), param_hint=option)
    return names


@cli.command(
    help=N_(
        "The strategy lab: each of the seeds' tips switched on and off in the heuristic, on the same "
        "duplicate deals; writes a report (Markdown and PNG charts) of which tips help and which hurt "
        "(docs/strategy.md). Rerun with the same arguments to continue an interrupted run."
    )
)
@click.option(
    "--profiles",
    default="punjab,classic",
    show_default=True,
    metavar="A,B",
    help=N_("Rules profiles, comma-separated."),
)
@click.option(
    "--players",
    "players_text",
    default="4,6",
    show_default=True,
    metavar="N,M",
    help=N_("Table sizes, comma-separated."),
)
@click.option(
    "--tips",
    "tips_text",
    default=None,
    metavar="A,B,…",
    help=N_(
        "The tips to test, comma-separated (default: all six: lead-strong, void-short, keep-high, "
        "count-voids, pickup-short, late-high)."
    ),
)
@click.option("--deals", type=int, default=2000, show_default=True, help=N_("Deals per tip and setting."))
@click.option(
    "--against", default="heuristic", show_default=True, help=N_("The bot in the other seats (any bot name).")
)
@click.option("--seed", type=int, default=1, show_default=True, help=N_("Base seed of the deals."))
@click.option("--workers", "-w", type=int, default=None, help=N_("Processes (default: all cores)."))
@_backend_options
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False),
    default="lab",
    show_default=True,
    help=N_("Folder of the report (report.md, PNG charts, lab.json) and of the partial results."),
)
@click.option("--quiet", "-q", is_flag=True, help=N_("No progress bar."))
@_lang_option
def lab(
    profiles: str,
    players_text: str,
    tips_text: str | None,
    deals: int,
    against: str,
    seed: int,
    workers: int | None,
    backend: str,
    ray_address: str | None,
    out_dir: str,
    quiet: bool,
    lang: str | None,
) -> None:
    """The command line of :mod:`getaway.sim.lab`: the tips' effects with their intervals."""
    from ..bots.tips import TIPS
    from ..sim.lab import run_lab, total_deals, write_report
    from ..sim.tournament import ResumeError

    use(lang)
    profile_list = _comma_list(profiles, ["punjab", "classic"], "--profiles")
    sizes = []
    for text in _comma_list(players_text, None, "--players"):
        try:
            sizes.append(int(text))
        except ValueError:
            raise click.BadParameter(
                _("expected whole numbers, got {text!r}").format(text=text), param_hint="--players"
            ) from None
    for profile in profile_list:
        for n in sizes:
            _rules_from(profile, n, ())
    tip_list = _comma_list(tips_text, list(TIPS), "--tips") if tips_text is not None else list(TIPS)
    _bot_list(against, 1, "--against")
    if deals < 1:
        raise click.BadParameter(_("at least 1, not {n}").format(n=deals), param_hint="--deals")
    if workers is None:
        workers = os.cpu_count() or 1
    if workers < 1:
        raise click.BadParameter(_("at least 1, not {n}").format(n=workers), param_hint="--workers")
    folder = Path(out_dir)
    if folder.exists() and not folder.is_dir():
        raise click.BadParameter(_("{path!r} is not a folder").format(path=out_dir), param_hint="--out")
    command = (
        f"getaway lab --profiles {','.join(profile_list)} --players {','.join(map(str, sizes))} "
        f"--tips {','.join(tip_list)} --deals {deals} --against {against} --seed {seed} --out {out_dir}"
    )
    err = _console(err=True)
    try:
        with Progress(
            TextColumn(_("Lab")),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn(_("ETA")),
            TimeRemainingColumn(),
            console=err,
            disable=quiet or not err.is_terminal,
        ) as progress:
            task = progress.add_task("lab", total=total_deals(profile_list, sizes, tip_list, deals))
            result = run_lab(
                profile_list,
                sizes,
                tip_list,
                deals,
                against=against,
                seed=seed,
                workers=workers,
                out=folder,
                progress=lambda k: progress.advance(task, k),
                backend=backend,
                address=ray_address,
            )
        written = write_report(result, folder, command, _)
    except ResumeError as exc:
        raise click.BadParameter(str(exc), param_hint="--out") from None
    except OSError as exc:
        raise _write_failed(out_dir, "--out", exc) from None
    out = _console()
    for e in result.effects:
        line = _("{profile} {players}p {tip}: loss {off} → {on}, effect {effect} pp (95% CI {low} … {high}): {verdict}")
        out.print(
            Text(
                line.format(
                    profile=e.profile,
                    players=e.players,
                    tip=e.tip,
                    off=_pct(e.off_rate),
                    on=_pct(e.on_rate),
                    effect=f"{100 * e.effect:+.1f}",
                    low=f"{100 * e.ci_low:+.1f}",
                    high=f"{100 * e.ci_high:+.1f}",
                    verdict=_(e.verdict),
                )
            )
        )
    out.print(Text(_("Report written to {path}").format(path=str(written[0]))))


# ---------------------------------------------------------------------------------- serve


@cli.command(help=N_("Start the web app: play Getaway in a browser with friends, bots filling the empty seats."))
@click.option(
    "--host", default="127.0.0.1", show_default=True, help=N_("Address to listen on (0.0.0.0: every interface).")
)
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help=N_("Port to listen on."))
@click.option(
    "--database",
    default=None,
    metavar="URL",
    help=N_("Database: a SQLAlchemy URL or a SQLite file (default: DATABASE_URL, else getaway.db here)."),
)
@click.option(
    "--grace",
    type=click.FloatRange(min=0),
    default=60.0,
    show_default=True,
    help=N_("Seconds before a bot plays for a disconnected player."),
)
@click.option(
    "--idle",
    type=click.FloatRange(min=1),
    default=7200.0,
    show_default=True,
    help=N_("Seconds without a move before a room is closed."),
)
@click.option(
    "--bot-delay",
    type=click.FloatRange(min=0),
    default=0.7,
    show_default=True,
    help=N_("Seconds from the start of a bot's turn to its move, whatever it holds."),
)
@click.option(
    "--bot-rooms-per-address",
    type=click.IntRange(min=0),
    default=2,
    show_default=True,
    help=N_("Rooms played by bots alone that one client address may have running at once."),
)
@click.option(
    "--max-bot-rooms",
    type=click.IntRange(min=0),
    default=4,
    show_default=True,
    help=N_("Rooms played by bots alone running at once on this server."),
)
@click.option(
    "--bot-workers",
    type=click.IntRange(min=0),
    default=None,
    help=N_(
        "Worker processes the searching bots (hard, expert) think in, off the server's event loop "
        "(default: one per core but one, at least 1; 0: threads of the server process)."
    ),
)
@click.option(
    "--reads-per-second",
    type=click.FloatRange(min=0, min_open=True),
    default=20.0,
    show_default=True,
    help=N_("Room reads (state, history, records) per client address and second."),
)
@click.option(
    "--forwarded-allow-ips",
    default="",
    metavar="A,B,…",
    help=N_(
        "Proxies whose X-Forwarded-For names the client: comma-separated addresses or networks, * for any "
        "(default: none, the client is the connection's peer)."
    ),
)
@click.option(
    "--allowed-origin",
    multiple=True,
    metavar="URL",
    help=N_("Another origin (scheme://host:port) whose pages may use this server; the server's own always may."),
)
@click.option(
    "--allowed-host",
    multiple=True,
    metavar="NAME",
    help=N_(
        "A host name the server answers to (the Host header; * for any). Default: localhost and 127.0.0.1 "
        "when it listens on a loopback address, else any."
    ),
)
@click.option(
    "--rooms-per-minute",
    type=click.FloatRange(min=0.5),
    default=30.0,
    show_default=True,
    help=N_("Rooms created and seats taken per client address and minute (bursts of twice as many)."),
)
@click.option(
    "--message-rate",
    type=click.FloatRange(min=0.1),
    default=20.0,
    show_default=True,
    help=N_("Messages per second each socket may send."),
)
@click.option(
    "--message-burst",
    type=click.IntRange(min=1),
    default=40,
    show_default=True,
    help=N_("Messages a socket may send in a burst."),
)
@click.option(
    "--sockets-per-address",
    type=click.IntRange(min=1),
    default=20,
    show_default=True,
    help=N_("Open sockets per client address."),
)
@click.option(
    "--hello-timeout",
    type=click.FloatRange(min=0.1),
    default=5.0,
    show_default=True,
    help=N_("Seconds a socket may stay open before it says hello."),
)
@click.option(
    "--rate-limit-storage",
    default="memory://",
    show_default=True,
    metavar="URL",
    help=N_("Where the rate limits count (a storage URI of the limits library)."),
)
@click.option(
    "--drain-seconds",
    type=click.FloatRange(min=0),
    default=0.0,
    show_default=True,
    help=N_(
        "On SIGTERM, seconds to go on answering 503 (on /healthz too) after the rooms are handed over, "
        "for a load balancer to notice."
    ),
)
@click.option(
    "--redis-url",
    default=None,
    envvar="REDIS_URL",
    metavar="URL",
    help=N_(
        "A Redis that many server processes share (redis://, rediss:// for TLS, a password in the URL): "
        "they then serve the same rooms (default: REDIS_URL; none: this process alone)."
    ),
)
@_lang_option
def serve(
    host: str,
    port: int,
    database: str | None,
    grace: float,
    idle: float,
    bot_delay: float,
    bot_rooms_per_address: int,
    max_bot_rooms: int,
    bot_workers: int | None,
    reads_per_second: float,
    forwarded_allow_ips: str,
    allowed_origin: tuple[str, ...],
    allowed_host: tuple[str, ...],
    rooms_per_minute: float,
    message_rate: float,
    message_burst: int,
    sockets_per_address: int,
    hello_timeout: float,
    rate_limit_storage: str,
    drain_seconds: float,
    redis_url: str | None,
    lang: str | None,
) -> None:
    """The web server (docs/web.md): FastAPI on uvicorn, rooms in a SQLite file or PostgreSQL.

    SIGTERM drains (:mod:`getaway.web.lifecycle`): the rooms are committed and handed over, their
    sockets closed with 1012, ``/healthz`` says 503; then the process exits (a second signal:
    at once). Requests still running then get :data:`GRACEFUL_SECONDS` to finish.

    uvicorn's own proxy-header handling is off (it trusts loopback peers): the app trusts
    ``X-Forwarded-For`` only from ``--forwarded-allow-ips``. WebSocket frames are capped at
    :data:`getaway.web.edge.MAX_FRAME` bytes (a longer one closes the socket with 1009).
    """
    import uvicorn

    from ..web.app import create_app
    from ..web.botpool import default_workers
    from ..web.edge import MAX_FRAME
    from ..web.lifecycle import DrainingServer
    from ..web.store import database_url

    use(lang)
    url = database_url(database)
    _check_listen(host, port)
    if redis_url:  # one of many processes: say which rooms it takes over, and when Redis is unreachable
        import logging

        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        logging.getLogger("getaway.web").addHandler(handler)
        logging.getLogger("getaway.web").setLevel(logging.INFO)
    _check_database(url)
    shown = "localhost" if host in ("127.0.0.1", "0.0.0.0", "::", "localhost") else host
    click.echo(
        _("Getaway is on http://{host}:{port}/ : open it in a browser (Ctrl+C stops the server).").format(
            host=shown, port=port
        )
    )
    click.echo(_("Database: {url}").format(url=_shown_url(url)))
    app = create_app(
        url,
        bot_delay=bot_delay,
        grace=grace,
        idle=idle,
        bot_rooms_per_address=bot_rooms_per_address,
        max_bot_rooms=max_bot_rooms,
        bot_workers=default_workers() if bot_workers is None else bot_workers,
        reads_per_second=reads_per_second,
        rate=message_rate,
        burst=message_burst,
        rooms_per_minute=rooms_per_minute,
        sockets_per_address=sockets_per_address,
        hello_timeout=hello_timeout,
        forwarded_allow_ips=forwarded_allow_ips or None,
        allowed_origins=allowed_origin,
        allowed_hosts=allowed_host or default_hosts(host),
        rate_limit_storage=rate_limit_storage,
        default_lang=lang,
        redis_url=redis_url or None,
    )
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        proxy_headers=False,
        ws_max_size=MAX_FRAME,
        timeout_graceful_shutdown=GRACEFUL_SECONDS,
    )
    DrainingServer(config, drain_seconds).run()


#: Seconds uvicorn gives the requests still running at shutdown, after the drain (then cancels them).
GRACEFUL_SECONDS: Final = 10


def default_hosts(host: str) -> list[str]:
    """The host names ``serve`` answers to when ``--allowed-host`` is not given: on a loopback
    address only ``localhost`` and ``127.0.0.1`` (a page that rebinds its domain to 127.0.0.1
    cannot drive the server: docs/web.md, "Seats and security"); elsewhere any (``*``), as the
    server's public names are the operator's to list.

    >>> default_hosts("127.0.0.1"), default_hosts("0.0.0.0")
    (['localhost', '127.0.0.1'], ['*'])
    """
    return ["localhost", "127.0.0.1"] if host in ("127.0.0.1", "localhost", "::1") else ["*"]


def _check_listen(host: str, port: int) -> None:
    """Refuse, before anything is printed or opened, an address the server could not listen on.

    Raises:
        click.BadParameter: the port is in use or the host cannot be bound (exit 2).
    """
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        family, kind, proto, _name, address = infos[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does
            probe.bind(address)
    except OSError as exc:
        message = _("cannot listen on {host}:{port}: {reason}")
        raise click.BadParameter(
            message.format(host=host, port=port, reason=exc.strerror or exc), param_hint="--port"
        ) from None


def _check_database(url: str) -> None:
    """Open the database once (creating its tables) so that a bad one is one line, not a traceback.

    Raises:
        click.BadParameter: the database cannot be opened (exit 2).
    """
    from sqlalchemy.exc import SQLAlchemyError

    from ..web.store import Store

    try:
        Store(url).close()
    except (SQLAlchemyError, ValueError, ImportError, OSError) as exc:
        reason = str(getattr(exc, "orig", None) or exc).splitlines()[0]
        message = _("cannot open {url}: {reason}")
        raise click.BadParameter(message.format(url=_shown_url(url), reason=reason), param_hint="--database") from None


def _shown_url(url: str) -> str:
    """A database URL as ``serve`` prints it: the password hidden (a malformed one as given)."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        return make_url(url).render_as_string(hide_password=True)
    except (ArgumentError, ValueError):
        return url


def main() -> None:
    """Entry point of the ``getaway`` command."""
    cli(prog_name="getaway")
