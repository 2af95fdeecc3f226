"""The expert's card decisions judged in the true world: how much better decision rules could do.

For every card decision with a choice of the measured expert seat (against three heuristics,
the tournament's duplicate deals), this plays each distinct legal action out on ``--worlds``
worlds sampled from the seat's knowledge, the heuristic in every seat afterwards (the
expert's rollouts, bots/model.py), and marks each world as consistent or not with every card
the others chose so far (the heuristic's choice in that world: ``expert.rebuild_checked``
over every finished trick). Each action is also played out once in the *true* deal (its
"true loss", 0 or 1). Decision rules are then scored by the sum of the true losses of the
actions they choose (lower is better) and by how often they leave the heuristic's choice for
a better ("good") or worse ("bad") action in the true deal ("true losses" counts decisions, not
deals: one deal has many decisions):

- the heuristic's choice; the expert as it played; the best action of the true deal;
- the mean over the first *w* worlds with the expert's ``margin`` (0.02);
- a paired sign test: leave the heuristic's choice only when the best action wins in *t*
  more worlds than it loses against it;
- the same on the consistent worlds only (the opponent model's inference), and with the
  consistent worlds counted four times.

It cheats by construction (the true deal judges): a measurement only, docs/bots.md
"Against the panel of styles". About 12 minutes on 2 cores for 300 deals at 48 worlds.

    python bench/expert_decisions.py --deals 300 --seed 1 --worlds 48 -w 2
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable, Sequence
from multiprocessing import Pool
from typing import Any

from getaway import Deal, Knowledge, Rules
from getaway.bots import make_bot
from getaway.bots.expert import ExpertBot, _distinct, _pop_to, _same, plan_checks, rebuild, rebuild_checked
from getaway.bots.heuristic import HeuristicBot
from getaway.core.events import Action
from getaway.core.worlds import Inconsistent, sample
from getaway.sim.jobs import Job, job_rng, play_decisions
from getaway.sim.tournament import make_jobs

Decision = dict[str, Any]


def _values(bot: ExpertBot, deal: Deal, me: int, actions: list, facts: Knowledge) -> list[float]:
    """Each action played out on ``deal`` with the heuristic everywhere after it (1 ≈ not lost)."""
    row = []
    for action in actions:
        deal.push(action, me)
        row.append(bot._model_rollout(deal, me, facts.copy()))
        _pop_to(deal, 0)
    return row


class _Logged:
    """The measured expert, logging each of its card decisions judged in the true deal."""

    def __init__(self, deal: Deal, worlds: int, seed: int) -> None:
        self.deal, self.worlds = deal, worlds
        self.expert, self.probe, self.model = make_bot("expert"), ExpertBot(), HeuristicBot()
        self.rng = random.Random(seed)  # the logged worlds' (apart from the play's generator)
        self.log: list[Decision] = []

    def act(self, view: Any, legal: Sequence[Action], rng: random.Random) -> Action:
        """The expert's action; a card decision is logged first (:func:`decisions`)."""
        action = self.expert.act(view, legal, rng)
        if view.decision != "take":
            self.log.append(self._judged(view, action))
        return action

    def _judged(self, view: Any, action: Action) -> Decision:
        me, probe, wrng = view.seat, self.probe, self.rng
        actions = _distinct(list(view.legal_actions), view.knowledge)
        public = view.knowledge.public()
        plan = plan_checks(view, 60)
        rows = []
        for _ in range(self.worlds):
            world, seed = sample(view.knowledge, wrng), wrng.getrandbits(32)
            consistent = None
            if plan is not None:
                try:
                    rebuild_checked(view, world, seed, self.model, plan)
                    consistent = True
                except Inconsistent:
                    consistent = False
            base = rebuild(view, world, seed)
            rows.append((_values(probe, base, me, actions, public.copy().rebase(base)), consistent))
        truth = self.deal.clone()
        true_values = _values(probe, truth, me, actions, public.copy().rebase(truth))
        heuristic = self.model.choose(view, view.legal_actions)[0]
        return {
            "rows": rows,
            "true": [v < 0.5 for v in true_values],
            "played": _index(actions, action, view.knowledge),
            "heuristic": _index(actions, heuristic, view.knowledge),
        }


def decisions(args: tuple[Job, int]) -> list[Decision]:
    """Play one duplicate job as the tournament does, the default expert in the measured seat;
    its card decisions, judged (:class:`_Logged`)."""
    job, worlds = args
    deal = Deal(job.rules, job.dealer, job.seed)
    players: list[Any] = [make_bot("heuristic") for _ in job.bots]
    measured = players[job.bots.index("measured")] = _Logged(deal, worlds, job.seed)
    play_decisions(deal, players, job_rng(job))
    return measured.log


def _index(actions: list, action: Any, knowledge: Knowledge) -> int:
    """The index of ``action``'s stand-in among the distinct ``actions`` (equivalent cards: ``expert._same``)."""
    return next(i for i, a in enumerate(actions) if _same(a, action, knowledge))


def mean_rule(rows: list[list[float]], h: int, margin: float = 0.02) -> int:
    """The expert's rule: the best mean, unless the heuristic's is within ``margin``."""
    means = [sum(r[i] for r in rows) / len(rows) for i in range(len(rows[0]))]
    best = max(range(len(means)), key=means.__getitem__)
    return h if means[h] >= means[best] - margin else best


def sign_rule(rows: list[list[float]], h: int, t: int) -> int:
    """Leave the heuristic's choice for the best mean only if it wins in ``t`` more worlds than it loses."""
    best = mean_rule(rows, h, 0.0)
    wins = sum(1 for r in rows if r[best] > 0.5 > r[h])
    losses = sum(1 for r in rows if r[h] > 0.5 > r[best])
    return best if wins - losses >= t else h


def best_true(d: Decision) -> int:
    """The heuristic's choice if it does not lose in the true deal, else an action that does not."""
    return min(range(len(d["true"])), key=lambda i: (d["true"][i], i != d["heuristic"]))


def score(log: list[Decision], rule: Callable[[Decision], int]) -> str:
    """The sum of the true losses of the rule's choices, and its good and bad departures."""
    total = good = bad = moved = 0
    for d in log:
        a, h, true = rule(d), d["heuristic"], d["true"]
        total += true[a]
        if a != h:
            moved += 1
            good += true[h] and not true[a]
            bad += true[a] and not true[h]
    return f"true losses {total:5d}   left the heuristic {moved:5d}: good {good:4d}, bad {bad:4d}, net {good - bad:+4d}"


def main(argv: list[str] | None = None) -> int:
    """Run the measurement and print it; 0 on success (a usage error exits with 2)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--worlds", type=int, default=48)
    parser.add_argument("-w", "--workers", type=int, default=2)
    args = parser.parse_args(argv)
    if args.deals < 1 or args.workers < 1 or args.worlds < 1:
        parser.error("--deals, --workers and --worlds: at least 1")
    rules = Rules.profile("punjab", players=4)
    jobs = [(job, args.worlds) for job in make_jobs(rules, ["measured", *["heuristic"] * 3], args.deals, args.seed)]
    if args.workers == 1:
        logs = [decisions(job) for job in jobs]
    else:
        with Pool(args.workers) as pool:
            logs = pool.map(decisions, jobs, chunksize=1)
    log = [d for deal in logs for d in deal]
    consistent = [c for d in log for _, c in d["rows"] if c is not None]
    print(
        f"{len(log)} card decisions; worlds consistent with every card the others chose: "
        f"{sum(consistent)} of {len(consistent)} ({sum(consistent) / max(1, len(consistent)):.0%})"
    )
    every = {id(d): [r for r, _ in d["rows"]] for d in log}
    checked = {id(d): [r for r, c in d["rows"] if c] or every[id(d)] for d in log}
    weighted = {id(d): [r for r, c in d["rows"] for _ in range(4 if c else 1)] for d in log}
    rules_: list[tuple[str, Callable[[Decision], int]]] = [
        ("the heuristic's choice", lambda d: d["heuristic"]),
        ("the expert as it played", lambda d: d["played"]),
        ("the best action of the true deal", best_true),
    ]
    for w in sorted({w for w in (8, 16) if w < args.worlds} | {args.worlds}):
        rules_.append((f"mean of {w} worlds, margin 0.02", lambda d, w=w: mean_rule(every[id(d)][:w], d["heuristic"])))
    for t in (2, 3, 4):
        name = f"sign test t={t}, {args.worlds} worlds"
        rules_.append((name, lambda d, t=t: sign_rule(every[id(d)], d["heuristic"], t)))
    for name, table in (("consistent worlds only", checked), ("consistent worlds ×4", weighted)):
        rules_.append((f"mean, {name}", lambda d, table=table: mean_rule(table[id(d)], d["heuristic"])))
        rules_.append((f"sign test t=3, {name}", lambda d, table=table: sign_rule(table[id(d)], d["heuristic"], 3)))
    for name, rule in rules_:
        print(f"{name:44s} {score(log, rule)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
