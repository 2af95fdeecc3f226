"""The commands that play many deals among bots: ``simulate`` (who loses, on all cores),
``tournament`` (duplicate deals: each bot's loss rate, place and speed), ``ladder`` (OpenSkill
ratings at mixed tables) and ``lab`` (each tip on and off, with intervals). Each one runs its
deals through :class:`~getaway.text.cli.common.Run` (``--workers``, ``--backend``)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from ... import Rules
from ...core.messages import seat_letter
from ..i18n import N_, _, use
from .common import (
    Run,
    WriteError,
    at_least_one,
    bot_list,
    check_output,
    cli,
    comma_list,
    lang_option,
    list_option,
    make_console,
    pct,
    players_option,
    profile_option,
    progress_line,
    quiet_option,
    rules_from,
    rules_option,
    run_options,
    seed_option,
    write_failed,
)

__all__ = ["lab", "ladder", "simulate", "tournament"]


def _progress_bar(label: str, quiet: bool) -> Progress:
    """A progress bar on standard error (a terminal, not ``quiet``): ``label``, the deals done,
    the time spent and left."""
    err = make_console(err=True)
    columns = (BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TextColumn(_("ETA")), TimeRemainingColumn())
    return Progress(TextColumn(label), *columns, console=err, disable=quiet or not err.is_terminal)


@cli.command(help=N_("Play many seeded deals among bots on all cores and summarize who loses."))
@click.option("--deals", "-d", "count", type=int, default=1000, show_default=True, help=N_("Deals to play."))
@click.option(
    "--matches",
    type=int,
    default=None,
    help=N_("Play this many matches instead (each of `deals` deals, option -o deals=N; dealer rotating)."),
)
@profile_option
@players_option
@rules_option
@click.option(
    "--bots",
    default="random",
    show_default=True,
    help=N_("Bot (level or kind) for every seat, or one per seat, comma-separated."),
)
@seed_option(1, N_("Seed of the first deal (deal i uses seed+i)."))
@run_options()
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
@lang_option
def simulate(
    count: int,
    matches: int | None,
    profile: str,
    players: int,
    options: tuple[str, ...],
    bots: str,
    seed: int,
    run: Run,
    out_path: str | None,
    plot_path: str | None,
    lang: str | None,
) -> None:
    """Play many seeded deals among bots on all cores and summarize who loses."""
    from ...sim.simulation import Job, run_jobs
    from ...sim.stats import plot, summarize, write_results

    use(lang)
    rules = rules_from(profile, players, options)
    names = bot_list(bots, players)
    at_least_one(count, "--deals")
    if matches is not None:
        at_least_one(matches, "--matches")
        count = matches * rules.deals
    run = run.checked()
    if out_path and Path(out_path).suffix.lower() not in (".jsonl", ".csv"):
        message = _("expected a .jsonl or .csv file, got {path!r}")
        raise click.BadParameter(message.format(path=out_path), param_hint="--out")
    if plot_path and Path(plot_path).suffix.lower() != ".png":
        message = _("expected a .png file, got {path!r}")
        raise click.BadParameter(message.format(path=plot_path), param_hint="--plot")
    check_output(out_path, "--out")
    check_output(plot_path, "--plot")
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
    with _progress_bar(_("Simulating"), quiet=False) as progress:
        task = progress.add_task("simulate", total=len(jobs))
        results = run_jobs(jobs, progress=lambda k: progress.advance(task, k), **run.keywords())
    summary = summarize(results)
    out = make_console()
    _print_summary(out, summary, rules, names, matches, results)
    failed: WriteError | None = None  # one file failing must not cost the other
    if out_path:
        try:
            write_results(results, out_path)
            out.print(Text(_("Results written to {path}").format(path=out_path)))
        except OSError as exc:
            failed = write_failed(out_path, "--out", exc)
    if plot_path:
        title = _("{profile}, {players} players, {n} deals").format(profile=profile, players=players, n=len(results))
        labels = {"seat": _("seat"), "loss": _("loss rate"), "tricks": _("tricks per deal"), "deals": _("deals")}
        try:
            plot(summary, plot_path, title, labels)
            out.print(Text(_("Plot written to {path}").format(path=plot_path)))
        except OSError as exc:
            failed = failed or write_failed(plot_path, "--plot", exc)
    if failed is not None:
        raise failed


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
            seat_letter(int(r.label)), r.bot, str(r.deals), str(r.losses), pct(r.rate), f"{pct(lo)}–{pct(hi)}"
        )
    out.print(table)
    if len(summary.bots) > 1:
        table = Table(title=_("Loss rate per bot (95% Wilson interval)"), show_edge=False)
        for col in (_("bot"), _("seat-deals"), _("losses"), _("loss rate"), _("interval at 95%")):
            table.add_column(col, justify="left" if col == _("bot") else "right")
        for r in summary.bots:
            lo, hi = r.interval
            table.add_row(r.bot, str(r.deals), str(r.losses), pct(r.rate), f"{pct(lo)}–{pct(hi)}")
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
        line = ", ".join(f"{seat_letter(s)} {lost[s]}" for s in range(rules.players))
        out.print(_("Matches lost (most losses, ties counted for each): {line}").format(line=line))


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
@profile_option
@players_option
@list_option(
    "--bots", "bots_text", None, "A,B,…", N_("One bot per seat, comma-separated (default: heuristic then random).")
)
@click.option("--deals", type=int, default=400, show_default=True, help=N_("Deals in all (whole rotations)."))
@seed_option(1, N_("Base seed of the deals."))
@run_options(1, N_("Processes."))
@rules_option
@click.option("--json", "json_path", type=click.Path(dir_okay=False), help=N_("Write results as JSON."))
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False), help=N_("Write results as CSV."))
@click.option(
    "--resume",
    "resume_path",
    type=click.Path(dir_okay=False),
    help=N_("Partial results file: finished sets are written to it, and a rerun continues from it."),
)
@quiet_option(N_("No progress line."))
@lang_option
def tournament(
    profile: str,
    players: int,
    bots_text: str | None,
    deals: int,
    seed: int,
    run: Run,
    options: tuple[str, ...],
    json_path: str | None,
    csv_path: str | None,
    resume_path: str | None,
    quiet: bool,
    lang: str | None,
) -> None:
    """Duplicate deals among bots (docs/bots.md): the command line of :mod:`getaway.sim.tournament`."""
    from ...sim.tournament import ResumeError, run_tournament

    use(lang)
    check_output(json_path, "--json")
    check_output(csv_path, "--csv")
    rules = rules_from(profile, players, options)
    default = ",".join(["heuristic"] + ["random"] * (players - 1))
    lineup = bot_list(bots_text or default, players)
    at_least_one(deals, "--deals")
    run = run.checked()
    progress, finish = progress_line(-(-deals // players) * players, quiet)
    try:
        result = run_tournament(
            rules, lineup, deals, seed=seed, progress=progress, resume=resume_path, **run.keywords()
        )
    except ResumeError as exc:
        raise click.BadParameter(str(exc), param_hint="--resume") from None
    except OSError as exc:
        message = _("cannot write {path}: {reason}")
        raise click.UsageError(message.format(path=resume_path, reason=exc.strerror or exc)) from None
    finish()
    line = _("{profile}, {n} players, {seeds} seeds × {n} rotations = {deals} deals, {workers} worker(s), {secs} s")
    click.echo(
        line.format(
            profile=profile,
            n=players,
            seeds=result.seeds,
            deals=result.deals,
            workers=run.workers,
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
@profile_option
@players_option
@list_option(
    "--bots",
    "bots_text",
    "random,easy,medium,hard,expert",
    "A,B,…",
    N_("The bots to rate, comma-separated (kinds, levels, style:…, package.module:Class)."),
)
@click.option(
    "--tables", type=int, default=100, show_default=True, help=N_("Mixed tables, each one seed in every rotation.")
)
@seed_option(1, N_("Base seed of the deals."))
@run_options()
@rules_option
@quiet_option(N_("No progress line."))
@lang_option
def ladder(
    profile: str,
    players: int,
    bots_text: str,
    tables: int,
    seed: int,
    run: Run,
    options: tuple[str, ...],
    quiet: bool,
    lang: str | None,
) -> None:
    """The command line of :mod:`getaway.sim.ladder`: ratings with their uncertainty."""
    from ...sim.ladder import run_ladder

    use(lang)
    rules = rules_from(profile, players, options)
    names = list(dict.fromkeys(t.strip() for t in bots_text.split(",") if t.strip()))
    bot_list(",".join(names), len(names))  # each name checked, with the usual messages
    if len(names) < players:
        message = _("the ladder needs at least {n} different bots for {n} seats, got {k}")
        raise click.BadParameter(message.format(n=players, k=len(names)), param_hint="--bots")
    at_least_one(tables, "--tables")
    run = run.checked()
    total = tables * players
    progress, finish = progress_line(total, quiet)
    result = run_ladder(rules, names, tables, seed=seed, progress=progress, **run.keywords())
    finish()
    line = _("{profile}, {n} players, {tables} tables × {n} rotations = {deals} deals, {workers} worker(s), {secs} s")
    click.echo(
        line.format(
            profile=profile, n=players, tables=tables, deals=total, workers=run.workers, secs=f"{result.elapsed:.1f}"
        )
    )
    click.echo(result.table())
    click.echo(_("OpenSkill Plackett-Luce: mu ± 2 sigma; sorted by mu - 3 sigma."))


@cli.command(
    help=N_(
        "The strategy lab: each of the seeds' tips switched on and off in the heuristic, on the same "
        "duplicate deals; writes a report (Markdown and PNG charts) of which tips help and which hurt "
        "(docs/strategy.md). Rerun with the same arguments to continue an interrupted run."
    )
)
@list_option("--profiles", "profiles", "punjab,classic", "A,B", N_("Rules profiles, comma-separated."))
@list_option("--players", "players_text", "4,6", "N,M", N_("Table sizes, comma-separated."))
@list_option(
    "--tips",
    "tips_text",
    None,
    "A,B,…",
    N_(
        "The tips to test, comma-separated (default: all six: lead-strong, void-short, keep-high, "
        "count-voids, pickup-short, late-high)."
    ),
)
@click.option("--deals", type=int, default=2000, show_default=True, help=N_("Deals per tip and setting."))
@click.option(
    "--against", default="heuristic", show_default=True, help=N_("The bot in the other seats (any bot name).")
)
@seed_option(1, N_("Base seed of the deals."))
@run_options()
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False),
    default="lab",
    show_default=True,
    help=N_("Folder of the report (report.md, PNG charts, lab.json) and of the partial results."),
)
@quiet_option(N_("No progress bar."))
@lang_option
def lab(
    profiles: str,
    players_text: str,
    tips_text: str | None,
    deals: int,
    against: str,
    seed: int,
    run: Run,
    out_dir: str,
    quiet: bool,
    lang: str | None,
) -> None:
    """The command line of :mod:`getaway.sim.lab`: the tips' effects with their intervals."""
    from ...bots.tips import TIPS
    from ...sim.lab import run_lab, total_deals, write_report
    from ...sim.tournament import ResumeError

    use(lang)
    profile_list = comma_list(profiles, ["punjab", "classic"], "--profiles")
    sizes = []
    for text in comma_list(players_text, None, "--players"):
        try:
            sizes.append(int(text))
        except ValueError:
            raise click.BadParameter(
                _("expected whole numbers, got {text!r}").format(text=text), param_hint="--players"
            ) from None
    for profile in profile_list:
        for n in sizes:
            rules_from(profile, n, ())
    tip_list = comma_list(tips_text, list(TIPS), "--tips") if tips_text is not None else list(TIPS)
    bot_list(against, 1, "--against")
    at_least_one(deals, "--deals")
    run = run.checked()
    folder = Path(out_dir)
    if folder.exists() and not folder.is_dir():
        raise click.BadParameter(_("{path!r} is not a folder").format(path=out_dir), param_hint="--out")
    command = (
        f"getaway lab --profiles {','.join(profile_list)} --players {','.join(map(str, sizes))} "
        f"--tips {','.join(tip_list)} --deals {deals} --against {against} --seed {seed} --out {out_dir}"
    )
    try:
        with _progress_bar(_("Lab"), quiet) as progress:
            task = progress.add_task("lab", total=total_deals(profile_list, sizes, tip_list, deals))
            result = run_lab(
                profile_list,
                sizes,
                tip_list,
                deals,
                against=against,
                seed=seed,
                out=folder,
                progress=lambda k: progress.advance(task, k),
                **run.keywords(),
            )
        written = write_report(result, folder, command, _)
    except ResumeError as exc:
        raise click.BadParameter(str(exc), param_hint="--out") from None
    except OSError as exc:
        raise write_failed(out_dir, "--out", exc) from None
    out = make_console()
    for e in result.effects:
        line = _("{profile} {players}p {tip}: loss {off} → {on}, effect {effect} pp (95% CI {low} … {high}): {verdict}")
        out.print(
            Text(
                line.format(
                    profile=e.profile,
                    players=e.players,
                    tip=e.tip,
                    off=pct(e.off_rate),
                    on=pct(e.on_rate),
                    effect=f"{100 * e.effect:+.1f}",
                    low=f"{100 * e.ci_low:+.1f}",
                    high=f"{100 * e.ci_high:+.1f}",
                    verdict=_(e.verdict),
                )
            )
        )
    out.print(Text(_("Report written to {path}").format(path=str(written[0]))))
