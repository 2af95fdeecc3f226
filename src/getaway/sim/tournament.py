"""Tournaments between bots, on duplicate deals: which bot loses least, with confidence intervals.

Every seed is played once per rotation of the line-up through the seats (the same cards,
the same dealer), so each bot meets each hand from each seat and the luck of the deal
cancels out. Results per bot: losses and loss rate with a 95 % Wilson interval (fair share:
one deal in ``players``), average place, and the speed of its decisions. Satellite of the
core; deals run through :func:`getaway.sim.simulation.run_jobs` (seeded, any number of workers,
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
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..bots import make_bot
from ..core.rules import Rules
from .simulation import DealResult, Job, run_jobs
from .stats import wilson  # the one Wilson interval (re-exported: getaway.sim.tournament.wilson)

__all__ = [
    "BotStats",
    "TournamentResult",
    "run_tournament",
    "wilson",
    "make_jobs",
    "duplicate_set",
    "rotations",
    "ResumeError",
]


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
        results: every :class:`~getaway.sim.simulation.DealResult` (not written to JSON).
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

    def table(self, translate: Callable[[str], str] = str) -> str:
        """A plain-text table for people; ``translate`` turns the column names into the reader's
        language (the command line passes its gettext)."""
        t = translate
        head = f"{t('bot'):<28} {t('seats'):>5} {t('deals'):>6} {t('loss'):>6} {t('95% CI'):>15} {t('place'):>5} "
        head += f"{t('dec/s'):>8} {t('med ms'):>7} {t('p99 ms'):>7}"
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


def duplicate_set(rules: Rules, lineup: Sequence[str], seed: int, k: int) -> list[Job]:
    """Duplicate set ``k`` of a run seeded ``seed``: one deal (seed ``seed * 1_000_003 + k``, its
    dealer that seed modulo the players) played by every rotation of ``lineup`` (the tournaments,
    the lab and the ladder's tables).

    >>> [(job.bots, job.seed, job.dealer) for job in duplicate_set(Rules.profile("punjab", players=3), "abc", 1, 0)]
    [(('a', 'b', 'c'), 1000003, 1), (('c', 'a', 'b'), 1000003, 1), (('b', 'c', 'a'), 1000003, 1)]
    """
    s = seed * 1_000_003 + k
    return [Job(rules, bots, s, s % rules.players) for bots in rotations(lineup)]


def make_jobs(rules: Rules, lineup: Sequence[str], deals: int, seed: int = 1) -> list[Job]:
    """Duplicate jobs: ``ceil(deals / players)`` seeds, each played by every rotation
    (:func:`duplicate_set` ``0, 1, …``)."""
    seeds = max(1, -(-deals // rules.players))
    return [job for k in range(seeds) for job in duplicate_set(rules, lineup, seed, k)]


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


class ResumeError(ValueError):
    """A partial-results file that does not belong to this tournament, or is damaged."""


#: The format tag on the first line of a partial-results file.
_PARTIAL_FORMAT = "getaway-tournament-partial/1"


def _result_to_json(r: DealResult) -> dict[str, Any]:
    """One deal's result as JSON (the job's rules are in the file's header)."""
    return r.to_dict(timings=True)


def _result_of_json(rules: Rules, d: dict[str, Any]) -> DealResult:
    return DealResult(
        job=Job(rules, tuple(d["bots"]), d["seed"], d["dealer"]),
        loser=d["loser"],
        termination=d["termination"],
        places=tuple(d["places"]),
        out_order=tuple(tuple(g) for g in d["out_order"]),
        tricks=d["tricks"],
        plays=d["plays"],
        pickups=tuple(d["pickups"]),
        takes=d["takes"],
        decisions=tuple(d["decisions"]),
        think_times=tuple(tuple(t) for t in d["think_times"]),
    )


def _read_partial(path: Path, header: dict[str, Any], rules: Rules, jobs: list[Job]) -> dict[int, list[DealResult]]:
    """The finished duplicate sets of ``path`` by set index (empty if the file does not exist).

    Raises:
        ResumeError: another tournament's file (its header differs), or a damaged line other
            than a last one cut short by an interruption (that one is dropped).
    """
    if not path.exists():
        return {}
    lines = path.read_text(encoding="utf-8").splitlines()
    if not lines:
        return {}
    try:
        first = json.loads(lines[0])
    except json.JSONDecodeError:
        raise ResumeError(f"resume: {path} is not a partial-results file (bad first line)") from None
    if isinstance(first, dict) and first != header and {**first, "deals": header["deals"]} == header:
        if not isinstance(first["deals"], int) or first["deals"] > header["deals"]:
            raise ResumeError(
                f"resume: {path} holds a longer run ({first['deals']} deals): ask for at least that many"
            )
    elif first != header:
        diff = sorted(
            k
            for k in {*header, *(first if isinstance(first, dict) else {})}
            if not isinstance(first, dict) or first.get(k) != header.get(k)
        )
        raise ResumeError(f"resume: {path} belongs to another tournament (differs in: {', '.join(diff)})")
    n = rules.players
    done: dict[int, list[DealResult]] = {}
    for number, line in enumerate(lines[1:], start=2):
        try:
            entry = json.loads(line)
            index = entry["set"]
            results = [_result_of_json(rules, d) for d in entry["results"]]
            expected = jobs[index * n : (index + 1) * n]
            if [(r.job.bots, r.job.seed, r.job.dealer) for r in results] != [
                (j.bots, j.seed, j.dealer) for j in expected
            ]:
                raise ValueError("jobs differ")
        except (json.JSONDecodeError, KeyError, TypeError, ValueError, IndexError) as exc:
            if number == len(lines):
                break  # a last line cut short: that set is played again
            raise ResumeError(f"resume: {path} line {number} is damaged ({exc})") from None
        done[index] = results
    return done


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
    resume: str | Path | None = None,
) -> TournamentResult:
    """Play ``deals`` duplicate deals (rounded up to whole rotations) among ``lineup``.

    Args:
        rules: the rules; ``rules.players`` must equal ``len(lineup)``.
        lineup: one bot name per seat (kinds, levels, ``kind:setting=value+…``); repeats allowed.
        deals: deals to play in all (each seed is played once per rotation).
        seed: base seed of the deals.
        workers: processes.
        progress: called with the number of deals just finished (deals read back from
            ``resume`` count as finished at the start).
        backend: ``"local"`` or ``"ray"`` (see :func:`getaway.sim.simulation.run_jobs`).
        address: with Ray, an existing cluster's address.
        resume: a partial-results file (JSON lines): a header with the rules, line-up, seed
            and deals, then one line per finished duplicate set (one seed in every rotation).
            Sets already in it are read back instead of played, the others are played in
            batches and appended as each batch finishes, so an interrupted run continues
            where it stopped when rerun with the same arguments; the results are the same
            as one uninterrupted run (tested). ``elapsed`` counts this run only.

    Raises:
        ValueError: wrong number of bots, unknown bot, ``deals`` < 1, ``workers`` < 1.
        ResumeError: ``resume`` belongs to another tournament or is damaged (nothing is written).
        OSError: ``resume`` cannot be read or written.
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
    if resume is None:
        results = run_jobs(jobs, workers=workers, progress=progress, backend=backend, address=address)
    else:
        results = _run_resumable(Path(resume), rules, lineup, deals, seed, jobs, workers, progress, backend, address)
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


def _run_resumable(
    path: Path,
    rules: Rules,
    lineup: tuple[str, ...],
    deals: int,
    seed: int,
    jobs: list[Job],
    workers: int,
    progress: Callable[[int], None] | None,
    backend: str,
    address: str | None,
) -> list[DealResult]:
    n = rules.players
    header = {"format": _PARTIAL_FORMAT, "rules": rules.to_dict(), "lineup": list(lineup), "seed": seed, "deals": deals}
    header = json.loads(json.dumps(header))  # as it reads back
    done = _read_partial(path, header, rules, jobs)
    if done or path.exists() and path.stat().st_size:
        _extend_header(path, header)
    sets = len(jobs) // n
    if progress is not None and done:
        progress(len(done) * n)
    todo = [k for k in range(sets) if k not in done]
    with path.open("a" if done or path.exists() and path.stat().st_size else "w", encoding="utf-8") as fh:
        if not done and fh.tell() == 0:
            fh.write(json.dumps(header) + "\n")
        else:
            _cut_damaged_tail(path, fh)
        batch = max(1, 4 * workers)
        for i in range(0, len(todo), batch):
            chosen = todo[i : i + batch]
            batch_jobs = [job for k in chosen for job in jobs[k * n : (k + 1) * n]]
            played = run_jobs(batch_jobs, workers=workers, progress=progress, backend=backend, address=address)
            for j, k in enumerate(chosen):
                entry = {"set": k, "results": [_result_to_json(r) for r in played[j * n : (j + 1) * n]]}
                fh.write(json.dumps(entry) + "\n")
                done[k] = played[j * n : (j + 1) * n]
            fh.flush()
    return [r for k in range(sets) for r in done[k]]


def _extend_header(path: Path, header: dict[str, Any]) -> None:
    """A run extended to more deals (its sets so far are the first sets of the longer run:
    set ``k``'s seed does not depend on the number of deals): the first line is rewritten to
    the new count, atomically, so the file reads back as the longer run's."""
    lines = path.read_bytes().split(b"\n", 1)
    if json.loads(lines[0]) == header:
        return
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(json.dumps(header).encode() + b"\n" + (lines[1] if len(lines) > 1 else b""))
    tmp.replace(path)


def _cut_damaged_tail(path: Path, fh: Any) -> None:
    """Drop a last line cut short by an interruption (no newline at the end) before appending."""
    fh.flush()
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        fh.truncate(data.rfind(b"\n") + 1)
        fh.seek(0, io.SEEK_END)
