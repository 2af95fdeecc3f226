"""The strategy lab (``getaway lab``): each of the seeds' six tips (:mod:`getaway.bots.tips`) put
to the test as an experiment, the heuristic with the tip switched on against the same heuristic
with it off, on the same duplicate deals.

For one rules set and one tip, two tournaments (:func:`getaway.sim.tournament.run_tournament`,
duplicate deals: every seed in every rotation) are played on the same seeds: *off*, the plain
``heuristic`` in the first seat of the line-up and ``against`` (three of it at 4 players) in the
others; *on*, ``heuristic:tips=TIP`` in that seat and the same opponents. Rotation ``r`` of a seed
puts the tested seat at seat ``r`` in both, so every deal of *on* has a twin in *off*: the same
cards, dealer, seat and opponents, only the tip differs. The *off* tournament is the same for
every tip and is played once per rules set.

The tip's effect is the difference of the tested seat's loss rates, on minus off (negative: the
tip helps). Its 95 % interval is a percentile bootstrap over duplicate sets
(:func:`getaway.sim.stats.bootstrap_mean`): the twins of one deal are paired, and the deals of
one seed (its rotations: the same cards) are not independent of each other, so the seed is the
unit that is resampled. A paired interval over single deals (Newcombe's) would treat the rotations
as independent pairs, which they are not (docs/strategy.md compares the two). The loss rates
themselves carry their Wilson intervals (:func:`getaway.sim.stats.wilson`).

Each tournament writes its partial results to ``partial/`` under the output folder, so an
interrupted lab continues where it stopped when rerun with the same arguments.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as out:
...     lab = run_lab(["punjab"], [4], ["keep-high"], deals=8, out=out)
>>> [(e.tip, e.deals) for e in lab.effects]
[('keep-high', 8)]
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..bots import make_bot
from ..bots.tips import TIPS
from ..core.messages import N_
from ..core.rules import Rules
from .simulation import DealResult
from .stats import bootstrap_mean, wilson
from .tournament import run_tournament

__all__ = ["TipEffect", "LabResult", "run_lab", "seat_losses", "verdict", "PROFILES", "PLAYERS"]

#: The rules sets of the lab by default: both profiles at 4 and 6 players.
PROFILES = ("punjab", "classic")
PLAYERS = (4, 6)

#: Verdicts of an effect (English templates; the report translates them).
HELPS, HURTS, UNCLEAR = N_("helps"), N_("hurts"), N_("no clear effect")


@dataclass(frozen=True)
class TipEffect:
    """One tip at one rules set.

    Attributes:
        tip: the tip's name (``"keep-high"``).
        profile, players: the rules set (profile defaults otherwise).
        sets: duplicate sets (seeds, each played in every rotation).
        deals: deals per setting (``sets × players``).
        off_losses, on_losses: deals the tested seat lost with the tip off and on.
        off_rate, on_rate: those as fractions of ``deals``; ``off_ci``, ``on_ci``: 95 % Wilson.
        changed: twin deals whose result for the tested seat differs (lost in one, not the other);
            0 means the tip never changed a result (it may never have applied).
        effect: ``on_rate - off_rate`` (a fraction; negative: the tip helps).
        ci_low, ci_high: 95 % percentile-bootstrap interval of ``effect`` over duplicate sets.
        verdict: ``"helps"`` (the interval below 0), ``"hurts"`` (above 0) or ``"no clear effect"``.
    """

    tip: str
    profile: str
    players: int
    sets: int
    deals: int
    off_losses: int
    on_losses: int
    off_rate: float
    on_rate: float
    off_ci: tuple[float, float]
    on_ci: tuple[float, float]
    changed: int
    effect: float
    ci_low: float
    ci_high: float
    verdict: str


@dataclass(frozen=True)
class LabResult:
    """A finished lab: one :class:`TipEffect` per rules set and tip (rules sets in the order asked,
    tips in the seeds' order), and how it was run."""

    effects: tuple[TipEffect, ...]
    against: str
    seed: int
    deals: int
    elapsed: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the settings and every effect."""
        return {
            "against": self.against,
            "seed": self.seed,
            "deals": self.deals,
            "elapsed_s": round(self.elapsed, 1),
            "effects": [asdict(e) for e in self.effects],
        }


def seat_losses(results: Sequence[DealResult], players: int) -> list[tuple[bool, ...]]:
    """Per duplicate set, whether the tested seat lost each of its deals (rotation ``r`` of a set
    seats it at seat ``r``; results in the tournament's order: set by set, rotation by rotation)."""
    return [
        tuple(result.loser == r for r, result in enumerate(results[k * players : (k + 1) * players]))
        for k in range(len(results) // players)
    ]


def verdict(low: float, high: float) -> str:
    """``"helps"`` when the whole interval of the effect is below 0, ``"hurts"`` when above, else
    ``"no clear effect"`` (English; translated where shown)."""
    return HELPS if high < 0 else HURTS if low > 0 else UNCLEAR


def _effect(tip: str, rules: Rules, off: list[tuple[bool, ...]], on: list[tuple[bool, ...]], seed: int) -> TipEffect:
    n = rules.players
    deals = len(off) * n
    low, high = bootstrap_mean([(sum(b) - sum(a)) / n for a, b in zip(off, on, strict=True)], seed=seed)
    off_losses, on_losses = sum(map(sum, off)), sum(map(sum, on))
    changed = sum(x != y for a, b in zip(off, on, strict=True) for x, y in zip(a, b, strict=True))
    return TipEffect(
        tip=tip,
        profile=rules.profile,
        players=n,
        sets=len(off),
        deals=deals,
        off_losses=off_losses,
        on_losses=on_losses,
        off_rate=off_losses / deals,
        on_rate=on_losses / deals,
        off_ci=wilson(off_losses, deals),
        on_ci=wilson(on_losses, deals),
        changed=changed,
        effect=(on_losses - off_losses) / deals,
        ci_low=low,
        ci_high=high,
        verdict=verdict(low, high),
    )


def run_lab(
    profiles: Sequence[str] = PROFILES,
    players: Sequence[int] = PLAYERS,
    tips: Sequence[str] = tuple(TIPS),
    deals: int = 2000,
    *,
    against: str = "heuristic",
    seed: int = 1,
    workers: int = 1,
    out: str | Path,
    progress: Callable[[int], None] | None = None,
    backend: str = "local",
    address: str | None = None,
) -> LabResult:
    """Play the lab: for each profile × players, the *off* tournament and one *on* tournament per
    tip, ``deals`` duplicate deals each (rounded up to whole rotations), then the effects.

    Args:
        profiles: rules profiles (``"punjab"``, ``"classic"``), their default options.
        players: table sizes.
        tips: tip names of :data:`getaway.bots.tips.TIPS`.
        deals: deals per tip and setting, at least 1.
        against: the bot in every other seat (any name :func:`getaway.bots.make_bot` knows).
        seed: base seed of the deals (the same seeds for every tip and setting).
        workers: processes (or Ray tasks at once).
        out: the output folder; partial results go to ``out/partial/`` (created), one file per
            tournament, so a rerun with the same arguments continues an interrupted lab.
        progress: called with the number of deals just finished (deals read back count at once).
        backend, address: see :func:`getaway.sim.simulation.run_jobs`.

    Raises:
        ValueError: an unknown profile, tip or bot, ``deals`` < 1, a bad table size.
        getaway.sim.tournament.ResumeError: a partial file of ``out`` belongs to another lab.
        OSError: ``out`` cannot be written.
    """
    unknown = [t for t in tips if t not in TIPS]
    if unknown:
        raise ValueError(f"tips: unknown tip {unknown[0]!r} (tips: {', '.join(TIPS)})")
    if not tips:
        raise ValueError("tips: at least one tip")
    if isinstance(deals, bool) or not isinstance(deals, int) or deals < 1:
        raise ValueError(f"deals: at least 1, not {deals!r}")
    make_bot(against)  # fail early, with the registry's message
    rule_sets = [Rules.profile(p, players=n) for p in profiles for n in players]
    partial = Path(out) / "partial"
    partial.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    effects = []
    for rules in rule_sets:
        n = rules.players

        def play(tested: str, label: str, rules: Rules = rules, n: int = n) -> list[tuple[bool, ...]]:
            lineup = [tested, *[against] * (n - 1)]
            result = run_tournament(
                rules,
                lineup,
                deals,
                seed=seed,
                workers=workers,
                progress=progress,
                backend=backend,
                address=address,
                resume=partial / f"{rules.profile}-{n}p-{label}.jsonl",
            )
            return seat_losses(result.results, n)

        off = play("heuristic", "off")
        for tip in tips:
            on = play(f"heuristic:tips={tip}", tip)
            effects.append(_effect(tip, rules, off, on, seed))
    return LabResult(tuple(effects), against, seed, deals, time.perf_counter() - start)


def total_deals(profiles: Sequence[str], players: Sequence[int], tips: Sequence[str], deals: int) -> int:
    """How many deals :func:`run_lab` plays with these arguments (for a progress bar)."""
    return sum((1 + len(tips)) * -(-deals // n) * n for _ in profiles for n in players)


# ------------------------------------------------------------------------------ the report


def _charts(lab: LabResult, folder: Path, _: Callable[[str], str]) -> list[str]:
    """Two PNGs in ``folder``: the effects with their intervals, and the loss rates on and off."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sets = list(dict.fromkeys((e.profile, e.players) for e in lab.effects))
    cols = min(2, len(sets))
    rows = -(-len(sets) // cols)
    names = []
    # 1. the effect of each tip, with its bootstrap interval (percentage points)
    fig, axes = plt.subplots(rows, cols, figsize=(6.2 * cols, 0.5 + 0.45 * len(TIPS) * rows + 1.2), squeeze=False)
    for ax, key in zip(axes.flat, sets, strict=False):
        rows_ = [e for e in lab.effects if (e.profile, e.players) == key][::-1]
        ys = range(len(rows_))
        xs = [100 * e.effect for e in rows_]
        lo = [100 * (e.effect - e.ci_low) for e in rows_]
        hi = [100 * (e.ci_high - e.effect) for e in rows_]
        colours = ["#2a9d8f" if e.verdict == HELPS else "#e76f51" if e.verdict == HURTS else "#8d99ae" for e in rows_]
        ax.barh(ys, xs, xerr=[lo, hi], color=colours, capsize=3)
        ax.axvline(0, color="black", linewidth=0.8)
        left, right = min([0.0, *(100 * e.ci_low for e in rows_)]), max([0.0, *(100 * e.ci_high for e in rows_)])
        margin = 0.05 * (right - left) or 1.0
        ax.set_xlim(left - margin, right + margin)
        ax.set_yticks(list(ys), [e.tip for e in rows_])
        ax.set_title(_("{profile}, {players} players").format(profile=key[0], players=key[1]))
        ax.set_xlabel(_("effect on the loss rate, percentage points (95% CI)"))
    for ax in list(axes.flat)[len(sets) :]:
        ax.set_visible(False)
    fig.suptitle(_("Each tip switched on: change in the heuristic's loss rate (left of 0: it helps)"))
    fig.tight_layout()
    fig.savefig(folder / "effects.png", dpi=100)
    plt.close(fig)
    names.append("effects.png")
    # 2. the loss rates, on and off, with Wilson intervals and the fair share
    fig, axes = plt.subplots(rows, cols, figsize=(6.2 * cols, 3.6 * rows + 0.6), squeeze=False)
    for ax, key in zip(axes.flat, sets, strict=False):
        rows_ = [e for e in lab.effects if (e.profile, e.players) == key]
        xs = list(range(len(rows_)))
        for offset, label, rate, ci, colour in (
            (-0.2, _("off"), "off_rate", "off_ci", "#8d99ae"),
            (0.2, _("on"), "on_rate", "on_ci", "#264653"),
        ):
            ys = [100 * getattr(e, rate) for e in rows_]
            err = [
                [100 * (getattr(e, rate) - getattr(e, ci)[0]) for e in rows_],
                [100 * (getattr(e, ci)[1] - getattr(e, rate)) for e in rows_],
            ]
            ax.bar([x + offset for x in xs], ys, width=0.4, yerr=err, capsize=2, color=colour, label=label)
        ax.axhline(100 / key[1], color="black", linestyle="--", linewidth=0.8, label=_("fair share"))
        ax.set_xticks(xs, [e.tip for e in rows_], rotation=30, ha="right")
        ax.set_ylabel(_("loss rate, % (95% CI)"))
        ax.set_title(_("{profile}, {players} players").format(profile=key[0], players=key[1]))
        ax.legend(fontsize="small")
    for ax in list(axes.flat)[len(sets) :]:
        ax.set_visible(False)
    fig.tight_layout()
    fig.savefig(folder / "loss_rates.png", dpi=100)
    plt.close(fig)
    names.append("loss_rates.png")
    return names


def _pp(x: float) -> str:
    return f"{100 * x:+.1f}"


def report(lab: LabResult, command: str, _: Callable[[str], str] = str) -> str:
    """The lab's report as Markdown (the charts of :func:`write_report` are linked by name):
    per rules set a table of the tips, then which tips help, which hurt, and by how much.
    ``_`` translates the report's sentences (the command line passes its gettext)."""
    sets = list(dict.fromkeys((e.profile, e.players) for e in lab.effects))
    first = lab.effects[0]
    lines = [
        "# " + _("Strategy lab: the seeds' tips put to the test"),
        "",
        _(
            "The heuristic with one tip switched on against the same heuristic with it off, on the same "
            "duplicate deals, against {against} in the other seats; {deals} deals per tip and setting; "
            "seed {seed}."
        ).format(against=lab.against, deals=first.deals, seed=lab.seed),
        _(
            "Effect: the change in the tested seat's loss rate, in percentage points (negative: the tip helps), "
            "with a 95% percentile-bootstrap interval over duplicate sets (the deals of one seed are not "
            "independent). Loss rates with 95% Wilson intervals. Results changed: twin deals the tested seat "
            "lost in one setting and not in the other (0: the tip never changed a result)."
        ),
        "",
        "```",
        command,
        "```",
        "",
        "![effects](effects.png)",
        "",
        "![loss rates](loss_rates.png)",
    ]
    head = [
        _("tip"),
        _("loss off"),
        _("loss on"),
        _("effect (pp)"),
        _("95% CI (pp)"),
        _("results changed"),
        _("verdict"),
    ]
    for profile, players in sets:
        rows = [e for e in lab.effects if (e.profile, e.players) == (profile, players)]
        lines += ["", "## " + _("{profile}, {players} players").format(profile=profile, players=players), ""]
        lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for e in rows:
            lines.append(
                f"| {e.tip} | {100 * e.off_rate:.1f} % | {100 * e.on_rate:.1f} % | {_pp(e.effect)} | "
                f"{_pp(e.ci_low)} … {_pp(e.ci_high)} | {e.changed} | {_(e.verdict)} |"
            )
    lines += ["", "## " + _("Which tips help, which hurt"), ""]
    for tip in dict.fromkeys(e.tip for e in lab.effects):
        rows = [e for e in lab.effects if e.tip == tip]
        parts = [
            f"{e.profile} {e.players}p {_(e.verdict)} ({_pp(e.effect)} pp, {_pp(e.ci_low)} … {_pp(e.ci_high)})"
            for e in rows
        ]
        if all(e.changed == 0 for e in rows):
            parts.append(_("it never changed a result"))
        lines.append(f"- **{tip}**: " + "; ".join(parts))
    return "\n".join(lines) + "\n"


def write_report(lab: LabResult, out: str | Path, command: str, _: Callable[[str], str] = str) -> list[Path]:
    """Write ``report.md``, ``effects.png``, ``loss_rates.png`` and ``lab.json`` into ``out``;
    returns their paths.

    Raises:
        OSError: a file cannot be written.
    """
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    charts = _charts(lab, folder, _)
    (folder / "report.md").write_text(report(lab, command, _), encoding="utf-8")
    (folder / "lab.json").write_text(json.dumps(lab.to_dict(), indent=2) + "\n", encoding="utf-8")
    return [folder / "report.md", *(folder / c for c in charts), folder / "lab.json"]
