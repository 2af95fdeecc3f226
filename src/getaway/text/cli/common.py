"""What the commands share: the ``getaway`` group and its localized Click classes (help,
metavars and type names in the current language, usage errors in one line), the option groups
written once (``--profile``, ``--players``, ``-o``, ``--seed``, ``--workers`` with the backend,
``--quiet``, ``--deal``, ``--lang``) and the helpers (the console, rules and bot names from
options, output files checked before any work).

Imports: Click, Rich, the core's rules, the bots' names and the catalogs.
"""

from __future__ import annotations

import copy
import functools
import importlib
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import click
from rich.console import Console

from ... import Rules, RulesError
from ...bots import BOTS, LEVELS, bot_kind, make_bot
from ...core import messages
from ..i18n import LANGUAGES, N_, _, click_gettext, localize, pgettext, use

__all__ = [
    "Run",
    "WriteError",
    "at_least_one",
    "bot_list",
    "check_output",
    "cli",
    "comma_list",
    "deal_option",
    "lang_option",
    "list_option",
    "make_console",
    "parse_options",
    "parse_seat",
    "pct",
    "players_option",
    "profile_option",
    "progress_line",
    "quiet_option",
    "rules_from",
    "rules_option",
    "run_options",
    "seed_option",
    "write_failed",
]


def parse_options(pairs: tuple[str, ...]) -> dict[str, Any]:
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


def check_output(path: str | None, option: str) -> None:
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


class WriteError(click.UsageError):
    """Writing an output file failed (exit code 2, one line)."""


def write_failed(path: str, option: str, exc: OSError) -> WriteError:
    reason = exc.strerror or str(exc)
    return WriteError(_("{option}: cannot write {path!r}: {reason}").format(option=option, path=path, reason=reason))


def make_console(err: bool = False) -> Console:
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
    """A Click group whose usage errors are one line: ``getaway CMD: error: …`` (exit 2).

    The commands of :data:`LAZY` are registered by their module when first asked for (``serve``
    brings the web's settings and pydantic, which no other command needs at start)."""

    command_class = _Command
    #: command name → the module that registers it.
    LAZY: Final = {"serve": "getaway.text.cli.serve"}

    def list_commands(self, ctx: click.Context) -> list[str]:  # noqa: D102
        return sorted({*super().list_commands(ctx), *self.LAZY})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:  # noqa: D102
        if cmd_name in self.LAZY and cmd_name not in self.commands:
            importlib.import_module(self.LAZY[cmd_name])
        return super().get_command(ctx, cmd_name)

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


def lang_option(func: Any) -> Any:
    return click.option(
        "--lang",
        type=click.Choice(LANGUAGES),
        default=None,
        is_eager=True,  # before --help, so that the help is in that language
        callback=lambda _ctx, _param, value: use(value) if value else None,
        help=N_("Language of every message (default: from LANGUAGE, LC_ALL, LC_MESSAGES or LANG)."),
    )(func)


def rules_from(profile: str, players: int, options: tuple[str, ...], **more: Any) -> Rules:
    try:
        return Rules.profile(profile, players=players, **{**parse_options(options), **more})
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


def parse_seat(text: str, players: int) -> int:
    """``B`` or ``2`` → seat 1 (letters A… or numbers from 1: :func:`getaway.core.messages.parse_seat`).

    Raises:
        click.BadParameter: ``text`` names no seat of the table (``--seat``).
    """
    seat = messages.parse_seat(text, players)
    if seat is None:
        message = _("no seat {seat!r} among {n} players (use A–{last} or 1–{n})")
        raise click.BadParameter(
            message.format(seat=text, n=players, last=messages.seat_letter(players - 1)), param_hint="--seat"
        )
    return seat


def bot_list(text: str, count: int, option: str = "--bots") -> list[str]:
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


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def comma_list(text: str, known: list[str] | None, option: str) -> list[str]:
    """``"a,b"`` → ``["a", "b"]`` (repeats dropped), each one of ``known`` when given."""
    names = list(dict.fromkeys(t.strip() for t in text.split(",") if t.strip()))
    if not names:
        raise click.BadParameter(_("expected at least one name"), param_hint=option)
    for name in names:
        if known is not None and name not in known:
            message = _("unknown name {name!r} (known: {known})")
            raise click.BadParameter(message.format(name=name, known=", ".join(known)), param_hint=option)
    return names


# ---------------------------------------------------------------------------------- shared options

#: ``--profile punjab|classic`` (default punjab).
profile_option = click.option(
    "--profile", type=click.Choice(["punjab", "classic"]), default="punjab", show_default=True
)
#: ``--players/-n`` (default 4).
players_option = click.option("--players", "-n", type=int, default=4, show_default=True, help=N_("Number of seats."))
#: ``--option/-o NAME=VALUE`` (repeated): any rules option (:func:`parse_options`).
rules_option = click.option(
    "--option", "-o", "options", multiple=True, metavar="NAME=VALUE", help=N_("Any rules option, e.g. trump=spades.")
)
#: ``--deal K``: which deal of a saved match (replay, review).
deal_option = click.option(
    "--deal",
    "deal_no",
    type=click.IntRange(min=1),
    default=None,
    help=N_("For a saved match (play --record, save): which of its deals (default 1)."),
)


def seed_option(default: int | None, help: str) -> Callable[[Any], Any]:
    """``--seed`` with its ``default`` (shown unless ``None``) and ``help`` (an ``N_`` msgid)."""
    return click.option("--seed", type=int, default=default, show_default=default is not None, help=help)


def list_option(flag: str, name: str, default: str | None, metavar: str, help: str) -> Callable[[Any], Any]:
    """A comma-separated list ``flag`` (the command's argument ``name``), its ``default`` shown
    unless ``None``, its ``metavar`` (``A,B,…``) and ``help`` (an ``N_`` msgid)."""
    return click.option(flag, name, default=default, show_default=default is not None, metavar=metavar, help=help)


def quiet_option(help: str) -> Callable[[Any], Any]:
    """``--quiet/-q``: no progress shown (``help``: an ``N_`` msgid)."""
    return click.option("--quiet", "-q", is_flag=True, help=help)


@dataclass(frozen=True)
class Run:
    """Where a command's deals run: ``--workers`` processes (``None``: all cores), ``--backend``
    ``local`` or ``ray``, ``--ray-address`` (getaway.sim.simulation.run_jobs)."""

    workers: int | None
    backend: str
    address: str | None

    def checked(self) -> Run:
        """This run with its workers counted (``None``: all cores).

        Raises:
            click.BadParameter: fewer than 1 worker (``--workers``).
        """
        from ...sim.simulation import default_workers

        workers = default_workers() if self.workers is None else self.workers
        if workers < 1:
            raise click.BadParameter(_("at least 1, not {n}").format(n=workers), param_hint="--workers")
        return Run(workers, self.backend, self.address)

    def keywords(self) -> dict[str, Any]:
        """``workers``, ``backend`` and ``address``, as the runners of getaway.sim take them."""
        return {"workers": self.workers, "backend": self.backend, "address": self.address}


def run_options(workers: int | None = None, help: str = N_("Processes (default: all cores).")) -> Callable[[Any], Any]:
    """``--workers/-w`` (default ``workers``, shown unless ``None``), ``--backend local|ray`` and
    ``--ray-address``, given to the command as one :class:`Run` (its ``run`` argument)."""

    def decorate(func: Any) -> Any:
        @functools.wraps(func)
        def command(*args: Any, workers: int | None, backend: str, ray_address: str | None, **kwargs: Any) -> Any:
            return func(*args, run=Run(workers, backend, ray_address), **kwargs)

        command = click.option(
            "--ray-address", default=None, help=N_("Address of an existing Ray cluster (default: a local one).")
        )(command)
        command = click.option(
            "--backend",
            type=click.Choice(["local", "ray"]),
            default="local",
            show_default=True,
            help=N_("Where the deals run: processes on this machine, or Ray tasks (extra getaway[ray])."),
        )(command)
        shown = workers is not None
        return click.option("--workers", "-w", type=int, default=workers, show_default=shown, help=help)(command)

    return decorate


def at_least_one(value: int, option: str) -> None:
    """Refuse a count below 1.

    Raises:
        click.BadParameter: ``at least 1, not N`` for ``option``.
    """
    if value < 1:
        raise click.BadParameter(_("at least 1, not {n}").format(n=value), param_hint=option)


def progress_line(total: int, quiet: bool) -> tuple[Callable[[int], None], Callable[[], None]]:
    """A ``done/total`` line on standard error (a terminal, not ``quiet``): the callback given
    the deals just finished, and the one that ends the line."""
    done = [0]
    shown = not quiet and sys.stderr.isatty()

    def advance(k: int) -> None:
        done[0] += k
        if shown:
            click.echo(f"\r{done[0]}/{total}", nl=False, err=True)

    def finish() -> None:
        if shown:
            click.echo("", err=True)

    return advance, finish
