"""The ``getaway`` command line: ``demo`` (a seeded deal among bots) and ``replay``.

Built on Click. Errors in input are one clear line on standard error and exit code 2
(bad options, malformed records) or 1 (a record whose replay fails).
"""

from __future__ import annotations

import random
import sys
from typing import Any

import click

from . import Deal, Rules, RulesError
from .bots import RandomBot, play_deal
from .narrate import describe
from .record import RecordError, deal_from_record, dumps, load_record, record_of, state_summary

__all__ = ["main", "cli"]


def _parse_options(pairs: tuple[str, ...]) -> dict[str, Any]:
    """``--option trump=spades --option dehla=true`` → ``{"trump": "spades", "dehla": True}``."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"expected NAME=VALUE, got {pair!r}", param_hint="--option")
        low = value.lower()
        if low in ("true", "yes", "on"):
            out[key] = True
        elif low in ("false", "no", "off") and key != "takes" and key != "take_protocol":
            out[key] = False
        elif low in ("none", "null"):
            out[key] = None
        elif value.lstrip("-").isdigit():
            out[key] = int(value)
        else:
            out[key] = value
    return out


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="getaway")
def cli() -> None:
    """Getaway (Bhabhi, Bhabhi Thulla): the South Asian shedding card game."""


@cli.command()
@click.option("--profile", type=click.Choice(["punjab", "classic"]), default="punjab", show_default=True)
@click.option("--players", "-n", type=int, default=4, show_default=True, help="Number of seats.")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the shuffle and of the bots.")
@click.option("--dealer", type=int, default=0, show_default=True)
@click.option(
    "--option", "-o", "options", multiple=True, metavar="NAME=VALUE", help="Any rules option, e.g. trump=spades."
)
@click.option(
    "--record", "record_path", type=click.Path(dir_okay=False, writable=True), help="Write the game record here."
)
def demo(profile: str, players: int, seed: int, dealer: int, options: tuple[str, ...], record_path: str | None) -> None:
    """Play one seeded deal among random bots and print it trick by trick."""
    try:
        rules = Rules.profile(profile, players=players, **_parse_options(options))
        deal = Deal(rules, dealer=dealer, seed=seed)
    except (RulesError, ValueError) as exc:
        raise click.UsageError(str(exc)) from None
    names = [chr(ord("A") + i) for i in range(players)]
    click.echo(f"Getaway, {profile} profile, {players} players, seed {seed}; dealer {names[dealer]}.")
    options_on = ", ".join(f"{k}={v}" for k, v in _parse_options(options).items())
    if options_on:
        click.echo(f"Options: {options_on}")
    for seat in range(players):
        click.echo(f"  {names[seat]}: {' '.join(str(c) for c in deal.hand(seat))}")
    trick_no = [1]
    click.echo(f"\nTrick {trick_no[0]}")

    def show(seat: int, action: Any, events: list[Any]) -> None:
        for event in events:
            if event.kind == "pass":
                continue
            line = describe(event, names)
            if line:
                click.echo(f"  {line}")
            if event.kind == "lead":
                trick_no[0] += 1
                click.echo(f"\nTrick {trick_no[0]}")

    bots = [RandomBot() for _ in range(players)]
    play_deal(deal, bots, random.Random(seed), on_events=show)
    outcome = deal.outcome
    assert outcome is not None
    order = " ; ".join(", ".join(names[s] for s in group) for group in outcome.out_order)
    click.echo(f"\nOrder of getting away: {order}")
    click.echo("Loser: " + (names[outcome.loser] if outcome.loser is not None else "none (drawn deal)"))
    if record_path:
        with open(record_path, "w", encoding="utf-8") as fh:
            fh.write(dumps(record_of(deal, names)) + "\n")
        click.echo(f"Record written to {record_path}")


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the final state as one JSON object.")
def replay(file: str, as_json: bool) -> None:
    """Replay a game record (format getaway/1) and show where it ends."""
    try:
        data = load_record(file)
        deal = deal_from_record(data)
    except RecordError as exc:
        click.echo(f"getaway replay: {exc}", err=True)
        sys.exit(1 if exc.index is not None else 2)
    if as_json:
        click.echo(dumps(state_summary(deal), indent=None))
        return
    names = data["players"]
    for event in deal.events:
        line = describe(event, names)
        if line and event.kind != "pass":
            click.echo(line)
    if not deal.is_over:
        click.echo(f"(record ends here: {names[deal.to_act]} to {deal.decision})")


def main() -> None:
    """Entry point of the ``getaway`` command."""
    cli(prog_name="getaway")
