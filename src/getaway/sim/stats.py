"""Statistics of many bot deals (``getaway simulate``): loss rates with Wilson intervals
(:func:`getaway.core.stats.wilson`, re-exported here), deal lengths, pick-ups, takes; files
(.jsonl, .csv) and plots.

Satellite of the core; reads :class:`~getaway.sim.simulation.DealResult` s only.

>>> lo, hi = wilson(25, 100)
>>> round(lo, 3), round(hi, 3)
(0.175, 0.343)
"""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..core.messages import seat_letter
from ..core.stats import wilson  # the one Wilson interval (re-exported: getaway.sim.stats.wilson)
from .simulation import DealResult

__all__ = ["wilson", "bootstrap_mean", "Rate", "Summary", "summarize", "write_results", "plot"]


def bootstrap_mean(
    values: Sequence[float], level: float = 0.95, resamples: int = 10_000, seed: int = 1
) -> tuple[float, float]:
    """A percentile-bootstrap interval (95 % by default) of the mean of ``values``: ``(low, high)``.

    For paired differences over clusters (the lab: one value per duplicate set, the difference of
    its losses with a tip on and off): the clusters are resampled with replacement ``resamples``
    times (seeded: the same values and seed give the same interval). Values taking few distinct
    levels (whole losses per set) are resampled exactly and cheaply through multinomial counts of
    those levels (numpy). ``(0, 0)`` for no value; a constant gives ``(c, c)``.

    Raises:
        ValueError: ``level`` not strictly between 0 and 1, or ``resamples`` < 1.

    >>> bootstrap_mean([0.0] * 50 + [1.0] * 50) == bootstrap_mean([1.0, 0.0] * 50)
    True
    >>> low, high = bootstrap_mean([0.0] * 50 + [1.0] * 50)
    >>> round(low, 2), round(high, 2)
    (0.4, 0.6)
    """
    import numpy as np

    if not 0.0 < level < 1.0:
        raise ValueError(f"level: strictly between 0 and 1, not {level!r}")
    if resamples < 1:
        raise ValueError(f"resamples: at least 1, not {resamples!r}")
    if not values:
        return 0.0, 0.0
    levels, counts = np.unique(np.asarray(values, dtype=float), return_counts=True)
    n = int(counts.sum())
    draws = np.random.default_rng(seed).multinomial(n, counts / n, size=resamples)
    means = draws @ levels / n
    tail = 100 * (1 - level) / 2
    low, high = np.percentile(means, [tail, 100 - tail])
    return float(low), float(high)


@dataclass(frozen=True)
class Rate:
    """A loss rate: ``losses`` out of ``deals``, with its 95 % Wilson interval."""

    label: str
    bot: str
    deals: int
    losses: int

    @property
    def rate(self) -> float:
        return self.losses / self.deals if self.deals else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.losses, self.deals)


@dataclass(frozen=True)
class Summary:
    """What ``simulate`` prints."""

    deals: int
    seats: tuple[Rate, ...]
    bots: tuple[Rate, ...]
    drawn: int
    tricks: float
    plays: float
    pickups: float
    takes: float
    tricks_list: tuple[int, ...]


def summarize(results: Sequence[DealResult]) -> Summary:
    """Loss rate per seat and per bot, averages per deal."""
    n = len(results)
    players = results[0].job.rules.players if results else 0
    seat_losses = [0] * players
    bot_deals: dict[str, int] = {}
    bot_losses: dict[str, int] = {}
    for r in results:
        for name in r.job.bots:
            bot_deals[name] = bot_deals.get(name, 0) + 1
            bot_losses.setdefault(name, 0)
        if r.loser is not None:
            seat_losses[r.loser] += 1
            name = r.job.bots[r.loser]
            bot_losses[name] += 1
    bots_of_seat = [results[0].job.bots[s] if results else "" for s in range(players)]
    seats = tuple(Rate(str(s), bots_of_seat[s], n, seat_losses[s]) for s in range(players))
    bots = tuple(Rate(name, name, bot_deals[name], bot_losses[name]) for name in bot_deals)

    def mean(values: Sequence[float]) -> float:
        return sum(values) / len(values) if values else 0.0

    return Summary(
        deals=n,
        seats=seats,
        bots=bots,
        drawn=sum(1 for r in results if r.loser is None),
        tricks=mean([r.tricks for r in results]),
        plays=mean([r.plays for r in results]),
        pickups=mean([sum(r.pickups) for r in results]),
        takes=mean([r.takes for r in results]),
        tricks_list=tuple(r.tricks for r in results),
    )


def _row(r: DealResult) -> dict[str, object]:
    return r.to_dict()


def write_results(results: Sequence[DealResult], path: str | Path) -> None:
    """One line per deal: ``.jsonl`` (JSON objects) or ``.csv`` (lists joined with ``;``).

    Raises:
        ValueError: another extension.
        OSError: the file cannot be written.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".jsonl", ".csv"):
        raise ValueError(f"--out: expected a .jsonl or .csv file, got {path.name!r}")
    rows = [_row(r) for r in results]
    with path.open("w", encoding="utf-8", newline="") as fh:
        if suffix == ".jsonl":
            for row in rows:
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
            return
        fields = list(rows[0]) if rows else list(_row.__annotations__)
        writer = csv.DictWriter(fh, fieldnames=fields)
        writer.writeheader()
        for row in rows:
            flat = {}
            for key, value in row.items():
                if isinstance(value, list):
                    value = ";".join(
                        "|".join(str(x) for x in v) if isinstance(v, list) else ("" if v is None else str(v))
                        for v in value
                    )
                flat[key] = "" if value is None else value
            writer.writerow(flat)


def plot(summary: Summary, path: str | Path, title: str, labels: dict[str, str]) -> None:
    """A PNG: loss rate per seat with 95 % error bars, and a histogram of deal lengths in tricks.

    Args:
        labels: translated axis labels (keys ``seat``, ``loss``, ``tricks``, ``deals``).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    xs = [f"{seat_letter(int(r.label))}\n{r.bot}" for r in summary.seats]
    ys = [r.rate for r in summary.seats]
    err_lo = [r.rate - r.interval[0] for r in summary.seats]
    err_hi = [r.interval[1] - r.rate for r in summary.seats]
    left.bar(xs, ys, yerr=[err_lo, err_hi], capsize=4, color="#4c72b0")
    left.set_xlabel(labels["seat"])
    left.set_ylabel(labels["loss"])
    left.set_ylim(0, max([0.05, *[r.interval[1] for r in summary.seats]]) * 1.1)
    data = summary.tricks_list or (0,)
    bins = range(min(data), max(data) + 2)
    right.hist(data, bins=bins if len(bins) < 80 else 40, color="#dd8452")
    right.set_xlabel(labels["tricks"])
    right.set_ylabel(labels["deals"])
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
