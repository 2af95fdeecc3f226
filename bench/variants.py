"""How each variant changes a deal, in random-bot play (issue 3): a Markdown table.

Rerun with::

    .venv/bin/python bench/variants.py                      # 10,000 deals per row, all cores
    .venv/bin/python bench/variants.py --deals 500 --out -  # a quick look, printed

For each profile (4 players) and each variant (alone), plays ``--deals`` seeded deals among
``random`` bots (takes off, so that rows compare the trick rules themselves) and reports the
average deal length in tricks and in plays, pick-ups per deal, cards picked up per deal, and
how deals ended. The same seeds are used for every row.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from getaway import Deal, EventKind, Rules
from getaway.bots import RandomBot, play_deal

VARIANTS: list[tuple[str, dict[str, Any]]] = [
    ("none", {}),
    ("trump (V-TRUMP)", {"trump": "spades"}),
    ("nopickup (V-NOPICKUP)", {"nopickup": True}),
    ("kicker (V-KICKER)", {"kicker": True}),
    ("dehla (V-DEHLA)", {"dehla": True}),
    ("joker (V-JOKER)", {"joker": True}),
]


def measure(job: tuple[str, str, dict[str, Any], int, int]) -> dict[str, Any]:
    """Play ``count`` deals from ``first`` seed; returns the averages of one table row."""
    profile, label, options, first, count = job
    rules = Rules.profile(profile, takes="off", **options)
    tricks, plays, pickups, picked, ends = [], [], [], [], {}
    bots = [RandomBot(0.0)] * rules.players
    for seed in range(first, first + count):
        deal = play_deal(Deal(rules, seed % rules.players, seed), bots, random.Random(seed))
        outcome = deal.outcome
        assert outcome is not None
        tricks.append(outcome.tricks)
        plays.append(sum(1 for e in deal.events if e.kind == EventKind.PLAY))
        pickups.append(sum(outcome.pickups))
        picked.append(sum(outcome.cards_picked_up))
        ends[outcome.termination] = ends.get(outcome.termination, 0) + 1
    return {
        "profile": profile,
        "variant": label,
        "deals": count,
        "tricks": tricks,
        "plays": plays,
        "pickups": pickups,
        "picked": picked,
        "ends": ends,
    }


def merge(parts: list[dict[str, Any]]) -> dict[str, Any]:
    out = dict(parts[0])
    for key in ("tricks", "plays", "pickups", "picked"):
        out[key] = [x for p in parts for x in p[key]]
    out["deals"] = sum(p["deals"] for p in parts)
    ends: dict[str, int] = {}
    for p in parts:
        for k, v in p["ends"].items():
            ends[k] = ends.get(k, 0) + v
    out["ends"] = ends
    return out


NOTES = """
How to read it (random bots play badly, so this shows what the rules do, not strategy):
- **trump** shortens deals and cuts pick-ups by about a fifth (punjab) to a half (classic):
  a void player with a spade ruffs instead of interrupting or picking up.
- **nopickup** removes pick-ups entirely; deals are the shortest. Under punjab a few deals
  end by repetition (R-LOOP): a leader whose drawn card nobody can follow keeps drawing.
- **kicker** lengthens punjab deals (the tochoo player picks up a kick) and changes nothing
  under classic, where the void player picks up anyway.
- **dehla** changes only the scoring (captured tens), so play is identical to none.
- **joker** adds a card that is led straight to the waste pile: slightly longer deals.
- **classic** with random play ends by repetition in almost half the deals: two players
  left with suits the other cannot follow pass cards back and forth for ever (R-LOOP,
  docs/rules.md). Drawn deals (R-C-TIE) are rare without trumps or no-pickup.
"""


def table(rows: list[dict[str, Any]], deals: int) -> str:
    lines = [
        f"Random bots, 4 players, takes off, {deals:,} deals per row (same seeds for every row);",
        "command: `.venv/bin/python bench/variants.py`.",
        "",
        "| profile | variant | tricks / deal | plays / deal | pick-ups / deal | cards picked up / deal "
        "| how deals ended |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        ends = ", ".join(f"{k} {100 * v / r['deals']:.1f}%" for k, v in sorted(r["ends"].items()))
        lines.append(
            f"| {r['profile']} | {r['variant']} | {statistics.fmean(r['tricks']):.1f} | "
            f"{statistics.fmean(r['plays']):.1f} | {statistics.fmean(r['pickups']):.2f} | "
            f"{statistics.fmean(r['picked']):.1f} | {ends} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=10_000, help="deals per row (default 10,000)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes (default: all cores)")
    parser.add_argument("--out", default="docs/variant-effects.md", help="Markdown file, or - for standard output")
    args = parser.parse_args(argv)
    if args.deals < 1 or args.workers < 1:
        parser.error("--deals and --workers must be at least 1")
    chunk = max(1, args.deals // (args.workers * 4))
    jobs = []
    for profile in ("punjab", "classic"):
        for label, options in VARIANTS:
            for first in range(0, args.deals, chunk):
                jobs.append((profile, label, options, first, min(chunk, args.deals - first)))
    with ProcessPoolExecutor(args.workers) as pool:
        parts = list(pool.map(measure, jobs))
    rows = []
    for profile in ("punjab", "classic"):
        for label, _ in VARIANTS:
            rows.append(merge([p for p in parts if p["profile"] == profile and p["variant"] == label]))
    text = "# What each variant does to a deal\n\n" + table(rows, args.deals) + NOTES
    if args.out == "-":
        sys.stdout.write(text)
    else:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(text)
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
