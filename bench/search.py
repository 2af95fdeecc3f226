"""Copy or undo: what a search pays to try a move and come back (issue 12, item 5; docs/engine.md).

Rerun with::

    .venv/bin/python bench/search.py                  # ~1 s per line, 3 interleaved rounds, best kept
    .venv/bin/python bench/search.py --seconds 3 --profile classic --players 6

The same positions (random legal play from seeded deals) go through each search pattern twice:
with ``Deal.clone()`` per move tried (``clone``) and with ``Deal.push()``/``Deal.pop()``
(``undo``), as ``getaway.bots.expert`` searches:

- ``try a move``: one legal move tried and taken back, mid-deal (the bare cost);
- ``exact endgame``: a search to the end over every legal move (up to 5,000 nodes, as the
  expert's solver stops at a node budget), from positions with at most ``--exact-cards`` cards
  in play (nodes per second);
- ``rollouts``: at a decision, each legal move followed by a uniformly random playout to the
  end (the expert's rollouts, with a light policy so that the copy's share shows).

Each line prints the rate of both and the ratio undo/clone (above 1: undo is faster).
"""

from __future__ import annotations

import argparse
import contextlib
import platform
import random
import sys
import time
from collections.abc import Callable

from getaway import Deal, Rules

Pattern = Callable[[Deal], int]
#: Nodes of one endgame search (the expert too stops at a node budget).
_NODES = 5_000


class _Budget(Exception):
    pass


def _positions(rules: Rules, count: int, cards_left: int | None, seed: int) -> list[Deal]:
    """Mid-deal positions of random legal play (with at most ``cards_left`` cards in play, if given)."""
    rng = random.Random(seed)
    found: list[Deal] = []
    d = 0
    while len(found) < count:
        deal = Deal(rules, d % rules.players, seed * 10_000 + d)
        d += 1
        stop = rng.randrange(5, 60) if cards_left is None else None
        steps = 0
        while not deal.is_over:
            in_play = sum(deal.hand_sizes) + len(deal.trick)
            if (stop is not None and steps == stop) or (cards_left is not None and in_play <= cards_left):
                if len(deal.legal_actions()) > 1:
                    found.append(deal)
                break
            legal = deal.legal_actions()
            deal.apply(legal[rng.randrange(len(legal))])
            steps += 1
    return found


def _try_clone(deal: Deal) -> int:
    for action in deal.legal_actions():
        deal.clone().apply(action)
    return len(deal.legal_actions())


def _try_undo(deal: Deal) -> int:
    for action in deal.legal_actions():
        deal.push(action)
        deal.pop()
    return len(deal.legal_actions())


def _solve_clone(deal: Deal) -> int:
    nodes = 0

    def value(d: Deal) -> None:
        nonlocal nodes
        nodes += 1
        if nodes >= _NODES:
            raise _Budget
        if d.is_over:
            return
        for action in d.legal_actions():
            child = d.clone()
            child.apply(action)
            value(child)

    with contextlib.suppress(_Budget):
        value(deal)
    return nodes


def _solve_undo(deal: Deal) -> int:
    nodes = 0

    def value(d: Deal) -> None:
        nonlocal nodes
        nodes += 1
        if nodes >= _NODES:
            raise _Budget
        if d.is_over:
            return
        for action in d.legal_actions():
            d.push(action)
            value(d)
            d.pop()

    try:
        value(deal)
    except _Budget:
        while deal.pushed:  # the moves still pushed when the budget ran out
            deal.pop()
    return nodes


def _rollouts(copy: bool) -> Pattern:
    def run(deal: Deal) -> int:
        rand = random.Random(len(deal.events)).random
        moves = 0
        for action in deal.legal_actions():
            if copy:
                child = deal.clone()
                child.apply(action)
            else:
                deal.push(action)
                child = deal
            while not child.is_over:
                legal = child.legal_actions()
                child.apply(legal[int(rand() * len(legal))])
                moves += 1
            if not copy:
                deal.pop()
        return moves

    return run


def _rate(pattern: Pattern, positions: list[Deal], seconds: float) -> float:
    """Units (moves tried, nodes, playout moves) per second over ``positions``, cycled."""
    units = 0
    i = 0
    start = time.perf_counter()
    while True:
        units += pattern(positions[i % len(positions)])
        i += 1
        if i % len(positions) == 0 and time.perf_counter() - start > seconds:
            break
    return units / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=1.0, help="time per line and method (default 1)")
    parser.add_argument("--profile", default="punjab", choices=("punjab", "classic"))
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--exact-cards", type=int, default=8, help="cards in play at the endgames (default 8)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds; the best of each line counts")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.seconds <= 0:
        parser.error("--rounds: at least 1; --seconds: more than 0")
    try:
        rules = Rules.profile(args.profile, players=args.players, takes="off")
    except ValueError as exc:
        parser.error(str(exc))
    from getaway.core._engine import COMPILED

    engine = "compiled engine (mypyc)" if COMPILED else "pure-Python engine"
    print(f"getaway search benchmark: Python {platform.python_version()}, {platform.machine()}, {engine}")
    print(f"{args.profile}, {args.players} players, takes off")
    mid = _positions(rules, 200, None, 1)
    ends = _positions(rules, 40, args.exact_cards, 2)
    lines: list[tuple[str, str, list[Deal], Pattern, Pattern]] = [
        ("try a move", "moves/s", mid, _try_clone, _try_undo),
        (f"exact endgame (<= {args.exact_cards} cards)", "nodes/s", ends, _solve_clone, _solve_undo),
        ("rollouts", "moves/s", mid[:50], _rollouts(True), _rollouts(False)),
    ]
    best: dict[tuple[str, bool], float] = {}
    sec = args.seconds / args.rounds
    for _ in range(args.rounds):
        for name, _unit, positions, with_clone, with_undo in lines:
            for undo, pattern in ((False, with_clone), (True, with_undo)):
                rate = _rate(pattern, positions, sec)
                best[(name, undo)] = max(best.get((name, undo), 0.0), rate)
    print(f"{'':32} {'unit':>8} {'clone':>11} {'undo':>11} {'undo/clone':>11}")
    for name, unit, *_ in lines:
        clone, undo = best[(name, False)], best[(name, True)]
        print(f"{name:32} {unit:>8} {clone:>11,.0f} {undo:>11,.0f} {undo / clone:>10.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
