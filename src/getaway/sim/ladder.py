"""The ladder: bots at mixed tables, rated with OpenSkill's Plackett–Luce model.

Each table seats ``rules.players`` different bots drawn from the pool (seeded) and plays one
seed in every rotation of that line-up (duplicate deals, as :mod:`.tournament`). Every deal is
one rating update: each seat a team of one, ranked by its place (R-END; tied places share a
rank). A bot's rating is ``mu`` with uncertainty ``sigma`` (OpenSkill's defaults: 25 and
25/3 before any deal); the table sorts by the conservative ``mu - 3 sigma``. Deals run through
:func:`getaway.sim.simulation.run_jobs` (all cores, or Ray), and the ratings do not depend on
the number of workers (updates follow the deals' order).

>>> from getaway import Rules
>>> rules = Rules.profile("punjab", players=3, takes="off")
>>> ladder = run_ladder(rules, ["heuristic", "random", "style:lowest"], tables=2)
>>> sorted(r.bot for r in ladder.ratings)
['heuristic', 'random', 'style:lowest']
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

from ..bots import make_bot
from ..core.rules import Rules
from .simulation import DealResult, run_jobs
from .stats import wilson
from .tournament import duplicate_set

__all__ = ["Rating", "LadderResult", "run_ladder", "ladder_tables", "rate"]


@dataclass(frozen=True)
class Rating:
    """One bot's place on the ladder.

    Attributes:
        bot: the bot's name.
        mu: the rating's mean (OpenSkill scale: 25 before any deal).
        sigma: its uncertainty (one standard deviation).
        ordinal: ``mu - 3 * sigma``, the conservative rating the table sorts by.
        deals: deals it played.
        losses: deals it lost.
        loss_rate: ``losses / deals``; ``ci_low``, ``ci_high``: its 95 % Wilson interval.
    """

    bot: str
    mu: float
    sigma: float
    ordinal: float
    deals: int
    losses: int
    loss_rate: float
    ci_low: float
    ci_high: float


@dataclass(frozen=True)
class LadderResult:
    """A ladder run: the ratings (best first) and every deal's result."""

    rules: Rules
    bots: tuple[str, ...]
    tables: int
    elapsed: float
    ratings: tuple[Rating, ...]
    results: tuple[DealResult, ...]

    def table(self) -> str:
        """The ratings as a plain-text table (best first)."""
        width = max(12, *(len(r.bot) for r in self.ratings))
        head = f"{'bot':<{width}} {'mu':>6} {'±2σ':>6} {'μ-3σ':>7} {'deals':>6} {'loss':>6} {'95% CI':>14}"
        lines = [head]
        for r in self.ratings:
            ci = f"{r.ci_low:.1%}–{r.ci_high:.1%}"
            rating = f"{r.mu:6.2f} {2 * r.sigma:6.2f} {r.ordinal:7.2f}"
            lines.append(f"{r.bot:<{width}} {rating} {r.deals:6d} {r.loss_rate:6.1%} {ci:>14}")
        return "\n".join(lines)


def ladder_tables(bots: Sequence[str], players: int, tables: int, seed: int) -> list[tuple[str, ...]]:
    """``tables`` line-ups of ``players`` different bots from ``bots``, seeded; every bot
    sits at about the same number of tables (the pool is dealt out in shuffled rounds)."""
    rng = random.Random(seed)
    out: list[tuple[str, ...]] = []
    deck: list[str] = []
    while len(out) < tables:
        table: list[str] = []
        while len(table) < players:
            if not deck:
                deck = list(bots)
                rng.shuffle(deck)
            pick = next((b for b in deck if b not in table), None)
            if pick is None:  # the rest of the round is already at this table
                deck = []
                continue
            deck.remove(pick)
            table.append(pick)
        out.append(tuple(table))
    return out


def rate(bots: Sequence[str], results: Sequence[DealResult]) -> tuple[Rating, ...]:
    """OpenSkill Plackett–Luce ratings of ``bots`` from ``results`` (one update per deal, in order)."""
    model = PlackettLuce()
    ratings = {b: model.rating(name=b) for b in bots}
    played = dict.fromkeys(bots, 0)
    lost = dict.fromkeys(bots, 0)
    for r in results:
        names = r.job.bots
        teams = [[ratings[b]] for b in names]
        new = model.rate(teams, ranks=[float(p) for p in r.places])
        for b, team in zip(names, new, strict=True):
            ratings[b] = team[0]
            played[b] += 1
        if r.loser is not None:
            lost[names[r.loser]] += 1
    out = []
    for b in bots:
        mu, sigma = ratings[b].mu, ratings[b].sigma
        lo, hi = wilson(lost[b], played[b])
        rate_ = lost[b] / played[b] if played[b] else 0.0
        out.append(Rating(b, mu, sigma, mu - 3 * sigma, played[b], lost[b], rate_, lo, hi))
    return tuple(sorted(out, key=lambda r: -r.ordinal))


def run_ladder(
    rules: Rules,
    bots: Sequence[str],
    tables: int,
    *,
    seed: int = 1,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
    backend: str = "local",
    address: str | None = None,
) -> LadderResult:
    """Play ``tables`` mixed tables (each one seed in every rotation: ``tables × players`` deals)
    among ``bots`` and rate them.

    Args:
        rules: the rules (``rules.players`` seats per table).
        bots: at least ``rules.players`` different bot names (kinds, levels, ``style:…``,
            ``package.module:Class``; see :func:`getaway.bots.make_bot`).
        tables: tables to play, at least 1.
        seed: seeds the tables' line-ups and deals.
        workers: processes (or Ray tasks at once).
        progress: called with the number of deals just finished.
        backend: ``"local"`` or ``"ray"``; address: an existing Ray cluster's.

    Raises:
        ValueError: fewer different bots than seats, an unknown bot, ``tables`` < 1.
    """
    pool = tuple(dict.fromkeys(bots))
    n = rules.players
    if len(pool) < n:
        raise ValueError(f"bots: the ladder needs at least {n} different bots for {n} seats, got {len(pool)}")
    if isinstance(tables, bool) or not isinstance(tables, int) or tables < 1:
        raise ValueError(f"tables: at least 1, not {tables!r}")
    for name in pool:
        make_bot(name)  # fail early, with the registry's message
    line_ups = ladder_tables(pool, n, tables, seed)
    jobs = [job for k, lineup in enumerate(line_ups) for job in duplicate_set(rules, lineup, seed, k)]
    start = time.perf_counter()
    results = run_jobs(jobs, workers=workers, progress=progress, backend=backend, address=address)
    return LadderResult(rules, pool, tables, time.perf_counter() - start, rate(pool, results), tuple(results))
