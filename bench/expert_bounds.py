"""What the expert's search would lose if it saw every hand: a bound, not a bot.

The expert (bots/expert.py) scores each legal action on worlds sampled from what its seat
knows. This diagnostic gives the same search the *true* world instead (the deal itself,
cloned at each decision), so its loss rate against three heuristics shows how much of the
expert's remaining loss comes from the hidden hands rather than from the search. It cheats by
construction: never a player, only a measurement (docs/bots.md "Against the panel of styles").
The same duplicate deals as ``getaway tournament --seed S`` (each seed played with the
measured seat in every position).

    python bench/expert_bounds.py --deals 300 --seed 1 -w 2
    python bench/expert_bounds.py --deals 300 --seed 1 -w 2 --bot expert   # the real expert, same harness
"""

from __future__ import annotations

import argparse
import random
from multiprocessing import Pool

from getaway import Deal, Rules
from getaway.bots import make_bot
from getaway.bots.expert import ExpertBot
from getaway.sim.jobs import Job, job_rng, play_decisions
from getaway.sim.stats import wilson
from getaway.sim.tournament import make_jobs


class SeeingExpert(ExpertBot):
    """The expert's search on the true deal instead of sampled worlds (:attr:`truth`: the deal
    being played). Cheats: a bound for measurements only."""

    truth: Deal | None = None

    def _world(self, view: object, rng: random.Random) -> Deal:  # type: ignore[override]
        assert self.truth is not None
        return self.truth.clone()


def play(job_and_bot: tuple[Job, str, int]) -> tuple[int, bool]:
    """Play one duplicate job as the tournament does; returns ``(seat of the measured bot, whether it lost)``."""
    job, bot, iterations = job_and_bot
    seat = job.bots.index("measured")
    players = [make_bot("heuristic") for _ in job.bots]
    deal = Deal(job.rules, job.dealer, job.seed)
    if bot == "seeing":
        seeing = players[seat] = SeeingExpert(iterations=iterations)
        seeing.truth = deal  # played in place: the search always sees the deal as it stands
    else:
        players[seat] = make_bot(bot)
    play_decisions(deal, players, job_rng(job))
    outcome = deal.outcome
    assert outcome is not None
    return seat, outcome.loser == seat


def main(argv: list[str] | None = None) -> int:
    """Run the measurement and print it; 0 on success (a usage error exits with 2)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="punjab", choices=["punjab", "classic"])
    parser.add_argument("-n", "--players", type=int, default=4)
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("-w", "--workers", type=int, default=2)
    parser.add_argument("--bot", default="seeing", help="'seeing' (the true world), or any bot name")
    parser.add_argument("--iterations", type=int, default=16, help="rollouts per decision of the seeing search")
    args = parser.parse_args(argv)
    if args.deals < 1 or args.workers < 1 or args.iterations < 1:
        parser.error("--deals, --workers and --iterations: at least 1")
    if not 3 <= args.players <= 8:
        parser.error("-n/--players: 3 to 8")
    try:
        make_bot("heuristic" if args.bot == "seeing" else args.bot)
    except ValueError as error:
        parser.error(f"--bot: {error}")
    rules = Rules.profile(args.profile, players=args.players)
    lineup = ["measured"] + ["heuristic"] * (args.players - 1)
    jobs = [(job, args.bot, args.iterations) for job in make_jobs(rules, lineup, args.deals, args.seed)]
    if args.workers == 1:
        results = [play(job) for job in jobs]
    else:
        with Pool(args.workers) as pool:
            results = pool.map(play, jobs, chunksize=1)
    losses = sum(lost for _, lost in results)
    low, high = wilson(losses, len(results))
    print(
        f"{args.profile} {args.players}p, {args.bot} against {args.players - 1} heuristics, seed {args.seed}: "
        f"lost {losses} of {len(results)} deals = {losses / len(results):.1%} (95 % CI {low:.1%}–{high:.1%})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
