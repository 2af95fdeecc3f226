"""Tournaments between bots, on duplicate deals: which bot loses least, with confidence intervals.

Every seed is played once per rotation of the line-up through the seats (the same cards,
the same dealer), so each bot meets each hand from each seat and the luck of the deal
cancels out. Results per bot: losses and loss rate with a 95 % Wilson interval (fair share:
one deal in ``players``), average place, and the speed of its decisions. Satellite of the
core; deals run through :func:`getaway.simulation.run_jobs` (seeded, any number of workers,
same results).

>>> from getaway import Rules
>>> result = run_tournament(Rules.profile("punjab", players=3, takes="off"), ["heuristic", "random", "random"], deals=6)
>>> [(s.bot, s.deals) for s in result.stats]
[('heuristic', 6), ('random', 12)]
"""

from __future__ import annotations

import csv
import io
import json
import math
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import click

from .bots import make_bot
from .rules import Rules, RulesError
from .simulation import DealResult, Job, run_jobs

__all__ = ["BotStats", "TournamentResult", "run_tournament", "wilson", "tournament_command"]


def wilson(successes: int, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95 % by default).

    >>> [round(x, 3) for x in wilson(10, 100)]
    [0.055, 0.174]
    """
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True)
class BotStats:
    """Results of one bot (all its seats together when it plays several).

    Attributes:
        bot: the bot's name (kind, level or ``kind:setting=value``).
        seats: how many seats of the line-up it held.
        deals: seat-deals played (deals × seats).
        losses: deals lost.
        loss_rate: ``losses / deals``.
        ci_low, ci_high: 95 % Wilson interval of the loss rate.
        fair_share: the loss rate of an average player (1 / players).
        avg_place: mean place (1 = first out).
        decisions: decisions with more than one legal action.
        decisions_per_second: decisions / seconds spent deciding.
        median_ms, p99_ms: time per decision, median and 99th percentile, in milliseconds.
        max_ms: the slowest decision.
    """

    bot: str
    seats: int
    deals: int
    losses: int
    loss_rate: float
    ci_low: float
    ci_high: float
    fair_share: float
    avg_place: float
    decisions: int
    decisions_per_second: float
    median_ms: float
    p99_ms: float
    max_ms: float


@dataclass(frozen=True)
class TournamentResult:
    """A finished tournament.

    Attributes:
        rules: the rules played.
        lineup: the bots, in seat order of the first rotation.
        seeds: distinct deals (seeds); each is played once per rotation.
        deals: deals played in all (seeds × rotations).
        workers: processes used.
        elapsed: wall-clock seconds.
        stats: one :class:`BotStats` per distinct bot, in line-up order.
        results: every :class:`~getaway.simulation.DealResult` (not written to JSON).
    """

    rules: Rules
    lineup: tuple[str, ...]
    seeds: int
    deals: int
    workers: int
    elapsed: float
    stats: tuple[BotStats, ...]
    results: tuple[DealResult, ...] = field(repr=False, default=())

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (rules, line-up, sizes, per-bot stats)."""
        return {
            "rules": self.rules.to_dict(),
            "lineup": list(self.lineup),
            "seeds": self.seeds,
            "rotations": len(self.lineup),
            "deals": self.deals,
            "workers": self.workers,
            "elapsed_s": round(self.elapsed, 3),
            "stats": [asdict(s) for s in self.stats],
        }

    def to_csv(self) -> str:
        """One row per bot, with a header."""
        out = io.StringIO()
        names = list(BotStats.__dataclass_fields__)
        writer = csv.DictWriter(out, fieldnames=["profile", "players", *names], lineterminator="\n")
        writer.writeheader()
        for s in self.stats:
            writer.writerow({"profile": self.rules.profile, "players": self.rules.players, **asdict(s)})
        return out.getvalue()

    def table(self) -> str:
        """A plain-text table for people."""
        head = f"{'bot':<28} {'seats':>5} {'deals':>6} {'loss':>6} {'95% CI':>15} {'place':>5} {'dec/s':>8} "
        head += f"{'med ms':>7} {'p99 ms':>7}"
        lines = [head]
        for s in self.stats:
            lines.append(
                f"{s.bot:<28} {s.seats:>5} {s.deals:>6} {s.loss_rate:>6.1%} "
                f"{f'{s.ci_low:.1%}–{s.ci_high:.1%}':>15} {s.avg_place:>5.2f} {s.decisions_per_second:>8.0f} "
                f"{s.median_ms:>7.1f} {s.p99_ms:>7.1f}"
            )
        return "\n".join(lines)


def rotations(lineup: Sequence[str]) -> list[tuple[str, ...]]:
    """The line-up rotated through the seats: rotation ``r`` seats ``lineup[(seat - r) % n]``.

    >>> rotations(["a", "b", "c"])
    [('a', 'b', 'c'), ('c', 'a', 'b'), ('b', 'c', 'a')]
    """
    n = len(lineup)
    return [tuple(lineup[(seat - r) % n] for seat in range(n)) for r in range(n)]


def make_jobs(rules: Rules, lineup: Sequence[str], deals: int, seed: int = 1) -> list[Job]:
    """Duplicate jobs: ``ceil(deals / players)`` seeds, each played by every rotation."""
    n = rules.players
    seeds = max(1, -(-deals // n))
    jobs = []
    for k in range(seeds):
        s = seed * 1_000_003 + k
        for bots in rotations(lineup):
            jobs.append(Job(rules, bots, s, s % n))
    return jobs


def _percentile(sorted_values: Sequence[float], q: float) -> float:
    if not sorted_values:
        return 0.0
    i = min(len(sorted_values) - 1, max(0, math.ceil(q * len(sorted_values)) - 1))
    return sorted_values[i]


def summarize(rules: Rules, lineup: Sequence[str], results: Sequence[DealResult]) -> tuple[BotStats, ...]:
    """Per-bot statistics over ``results``."""
    n = rules.players
    order = list(dict.fromkeys(lineup))
    acc: dict[str, dict[str, Any]] = {b: {"deals": 0, "losses": 0, "places": 0, "times": []} for b in order}
    for r in results:
        for seat, bot in enumerate(r.job.bots):
            a = acc[bot]
            a["deals"] += 1
            a["losses"] += r.loser == seat
            a["places"] += r.places[seat]
            a["times"].extend(r.think_times[seat])
    stats = []
    for bot in order:
        a = acc[bot]
        times = sorted(a["times"])
        total = sum(times)
        lo, hi = wilson(a["losses"], a["deals"])
        stats.append(
            BotStats(
                bot=bot,
                seats=lineup.count(bot),
                deals=a["deals"],
                losses=a["losses"],
                loss_rate=a["losses"] / a["deals"] if a["deals"] else 0.0,
                ci_low=lo,
                ci_high=hi,
                fair_share=1 / n,
                avg_place=a["places"] / a["deals"] if a["deals"] else 0.0,
                decisions=len(times),
                decisions_per_second=len(times) / total if total > 0 else 0.0,
                median_ms=statistics.median(times) * 1000 if times else 0.0,
                p99_ms=_percentile(times, 0.99) * 1000,
                max_ms=times[-1] * 1000 if times else 0.0,
            )
        )
    return tuple(stats)


def run_tournament(
    rules: Rules,
    lineup: Sequence[str],
    deals: int,
    *,
    seed: int = 1,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
    backend: str = "local",
    address: str | None = None,
) -> TournamentResult:
    """Play ``deals`` duplicate deals (rounded up to whole rotations) among ``lineup``.

    Args:
        rules: the rules; ``rules.players`` must equal ``len(lineup)``.
        lineup: one bot name per seat (kinds, levels, ``kind:setting=value+…``); repeats allowed.
        deals: deals to play in all (each seed is played once per rotation).
        seed: base seed of the deals.
        workers: processes.
        progress: called with the number of deals just finished.
        backend: ``"local"`` or ``"ray"`` (see :func:`getaway.simulation.run_jobs`).
        address: with Ray, an existing cluster's address.

    Raises:
        ValueError: wrong number of bots, unknown bot, ``deals`` < 1, ``workers`` < 1.
    """
    lineup = tuple(lineup)
    if len(lineup) != rules.players:
        raise ValueError(f"bots: {len(lineup)} bots for {rules.players} players")
    if deals < 1:
        raise ValueError(f"deals: at least 1, not {deals}")
    for name in dict.fromkeys(lineup):
        make_bot(name)  # fail early, with the registry's message
    jobs = make_jobs(rules, lineup, deals, seed)
    start = time.perf_counter()
    results = run_jobs(jobs, workers=workers, progress=progress, backend=backend, address=address)
    elapsed = time.perf_counter() - start
    return TournamentResult(
        rules=rules,
        lineup=lineup,
        seeds=len(jobs) // len(lineup),
        deals=len(jobs),
        workers=workers,
        elapsed=elapsed,
        stats=summarize(rules, lineup, results),
        results=tuple(results),
    )


# ---------------------------------------------------------------------- command line


def _parse_option_pairs(pairs: Sequence[str]) -> dict[str, Any]:
    """``trump=spades dehla=true`` → ``{"trump": "spades", "dehla": True}`` (as ``getaway demo -o``).

    Raises:
        click.UsageError: malformed, unknown, or ``players``/``profile`` (they have their own options).
    """
    try:
        options = Rules.options_from_text(pairs)
    except RulesError as exc:
        raise click.UsageError(f"--option: {exc}") from None
    for name in ("players", "profile"):
        if name in options:
            raise click.UsageError(f"--option: set the {name} with --{name}, not with -o")
    return options


@click.command("tournament")
@click.option("--profile", type=click.Choice(["punjab", "classic"]), default="punjab", show_default=True)
@click.option("--players", "-n", type=int, default=4, show_default=True, help="Number of seats.")
@click.option(
    "--bots",
    "bots_text",
    default=None,
    metavar="A,B,…",
    help="One bot per seat, comma-separated (default: heuristic then random).",
)
@click.option("--deals", type=int, default=400, show_default=True, help="Deals in all (whole rotations).")
@click.option("--seed", type=int, default=1, show_default=True, help="Base seed of the deals.")
@click.option("--workers", "-w", type=int, default=1, show_default=True, help="Processes.")
@click.option(
    "--backend", type=click.Choice(["local", "ray"]), default="local", show_default=True, help="Processes or Ray tasks."
)
@click.option("--ray-address", default=None, help="Address of an existing Ray cluster (default: a local one).")
@click.option("--option", "-o", "options", multiple=True, metavar="NAME=VALUE", help="Any rules option.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, writable=True), help="Write results as JSON.")
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False, writable=True), help="Write results as CSV.")
@click.option("--quiet", "-q", is_flag=True, help="No progress line.")
def tournament_command(
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
    quiet: bool,
) -> None:
    """Play duplicate deals among bots and report each bot's loss rate (95% Wilson CI),
    average place and decision speed.

    Bots: random, heuristic, expert, or a level (easy, medium, hard, expert); settings as
    kind:name=value+name=value, e.g. expert:iterations=60.
    """
    from .cli import _check_output  # the command line's own check (cli imports this module)

    _check_output(json_path, "--json")
    _check_output(csv_path, "--csv")
    try:
        rules = Rules.profile(profile, players=players, **_parse_option_pairs(options))
    except (RulesError, ValueError) as exc:
        raise click.UsageError(str(exc)) from None
    lineup = (
        [b.strip() for b in bots_text.split(",") if b.strip()]
        if bots_text
        else ["heuristic"] + ["random"] * (players - 1)
    )
    if len(lineup) != players:
        raise click.UsageError(f"--bots: {len(lineup)} bots for {players} players")
    if deals < 1:
        raise click.UsageError(f"--deals: at least 1, not {deals}")
    if workers < 1:
        raise click.UsageError(f"--workers: at least 1, not {workers}")
    for name in dict.fromkeys(lineup):
        try:
            make_bot(name)
        except (ValueError, TypeError) as exc:
            raise click.UsageError(f"--bots: {exc}") from None
    done = [0]
    total = -(-deals // players) * players

    def progress(k: int) -> None:
        done[0] += k
        if not quiet and sys.stderr.isatty():
            click.echo(f"\r{done[0]}/{total} deals", nl=False, err=True)

    result = run_tournament(
        rules, lineup, deals, seed=seed, workers=workers, progress=progress, backend=backend, address=ray_address
    )
    if not quiet and sys.stderr.isatty():
        click.echo("", err=True)
    click.echo(
        f"{profile}, {players} players, {result.seeds} seeds × {players} rotations = {result.deals} deals, "
        f"{workers} worker(s), {result.elapsed:.1f} s"
    )
    click.echo(result.table())
    for path, text in ((json_path, lambda: json.dumps(result.to_dict(), indent=2) + "\n"), (csv_path, result.to_csv)):
        if path:
            try:
                with open(path, "w", encoding="utf-8", newline="") as fh:
                    fh.write(text())
            except OSError as exc:
                raise click.UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
