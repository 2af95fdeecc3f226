"""``getaway demo`` (one seeded deal among random bots, trick by trick) and ``getaway rules``
(a profile's rules, condensed for the terminal)."""

from __future__ import annotations

import random
from typing import Any

import click

from ... import Deal
from ...bots import RandomBot, play_deal
from ...core.messages import seat_letters
from ...core.record import dumps, record_of
from ..i18n import N_, _, localize, use
from ..narrate import describe
from ..rules_text import print_rules
from .common import (
    check_output,
    cli,
    lang_option,
    make_console,
    parse_options,
    players_option,
    profile_option,
    rules_from,
    rules_option,
    seed_option,
    write_failed,
)

__all__ = ["demo", "rules"]


@cli.command(help=N_("Play one seeded deal among random bots and print it trick by trick."))
@profile_option
@players_option
@seed_option(1, N_("Seed of the shuffle and of the bots."))
@click.option("--dealer", type=int, default=0, show_default=True)
@rules_option
@click.option(
    "--record", "record_path", type=click.Path(dir_okay=False, writable=True), help=N_("Write the game record here.")
)
@lang_option
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
    rules = rules_from(profile, players, options)
    check_output(record_path, "--record")
    try:
        deal = Deal(rules, dealer=dealer, seed=seed)
    except ValueError as exc:
        raise click.UsageError(localize(exc)) from None
    names = seat_letters(players)
    click.echo(
        _("Getaway, {profile} profile, {players} players, seed {seed}; dealer {dealer}.").format(
            profile=profile, players=players, seed=seed, dealer=names[dealer]
        )
    )
    options_on = ", ".join(f"{k}={v}" for k, v in parse_options(options).items())
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
            raise write_failed(record_path, "--record", exc) from None
        click.echo(_("Record written to {path}").format(path=record_path))


@cli.command(help=N_("Print the rules of a profile, condensed for the terminal, and the variants given with -o."))
@profile_option
@rules_option
@lang_option
def rules(profile: str, options: tuple[str, ...], lang: str | None) -> None:
    """Print the rules of a profile, condensed for the terminal, and the variants given with -o."""
    use(lang)
    game = rules_from(profile, 4, options) if options else None  # the variants do not depend on the seats
    print_rules(make_console(), profile, game)
