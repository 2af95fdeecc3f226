"""Head to head, paired: two tournaments on the same duplicate deals, one bot changed.

Each file is a tournament's partial-results file (``getaway tournament --resume FILE``), run
with the same rules, seed and deals, the bot under test (the first of the line-up) differing
and the others the same. Every duplicate set (one seed, the bot in each seat) is then played
by both: the difference of the two bots' losses in a set is one paired value, and the
interval of its mean is a bootstrap over the sets (:func:`getaway.sim.stats.bootstrap_mean`,
the lab's method). A bot is better head to head when the interval of (its losses − the
other's) lies below zero.

    python bench/paired.py A.jsonl B.jsonl [A2.jsonl B2.jsonl ...]   # pairs of files
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from getaway.sim.stats import bootstrap_mean


def _sets(path: Path) -> tuple[dict, dict[tuple[int, int], int]]:
    """The header and, per (seed of the file, set index), the losses of the line-up's first bot."""
    lines = path.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    first = header["lineup"][0]
    out: dict[tuple[int, int], int] = {}
    for line in lines[1:]:
        row = json.loads(line)
        losses = 0
        for r in row["results"]:
            seat = r["bots"].index(first)
            losses += r["loser"] == seat
        out[(header["seed"], row["set"])] = losses
    return header, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path, help="A.jsonl B.jsonl pairs (same deals, first bot changed)")
    args = parser.parse_args()
    if len(args.files) % 2:
        parser.error("files come in pairs: A.jsonl B.jsonl")
    diffs: list[float] = []
    a_total = b_total = deals = 0
    names: set[tuple[str, str]] = set()
    for a_path, b_path in zip(args.files[::2], args.files[1::2], strict=True):
        ha, a = _sets(a_path)
        hb, b = _sets(b_path)
        if ha["rules"] != hb["rules"] or ha["seed"] != hb["seed"] or ha["lineup"][1:] != hb["lineup"][1:]:
            parser.error(f"{a_path} and {b_path} are not the same deals against the same opponents")
        names.add((ha["lineup"][0], hb["lineup"][0]))
        players = ha["rules"]["players"]
        for key in sorted(a.keys() & b.keys()):
            diffs.append(float(a[key] - b[key]))
            a_total += a[key]
            b_total += b[key]
            deals += players
    low, high = bootstrap_mean(diffs)
    mean = sum(diffs) / len(diffs) if diffs else 0.0
    (a_name, b_name), *_ = sorted(names)
    print(f"{len(diffs)} duplicate sets ({deals} deals): {a_name} lost {a_total}, {b_name} lost {b_total}")
    print(
        f"losses per set, A - B: {mean:+.3f} (95 % CI {low:+.3f} to {high:+.3f}); "
        f"A better in {sum(d < 0 for d in diffs)} sets, worse in {sum(d > 0 for d in diffs)}"
    )


if __name__ == "__main__":
    main()
