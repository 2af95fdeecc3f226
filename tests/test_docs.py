"""The examples in the documentation work as written."""

from __future__ import annotations

import json
import re
from pathlib import Path

from getaway.core.record import deal_from_record

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_the_record_example_in_records_md_replays():
    text = (DOCS / "records.md").read_text(encoding="utf-8")
    example = re.search(r"## Example.*?```json\n(.*?)```", text, re.S)
    assert example is not None
    deal = deal_from_record(json.loads(example.group(1)))
    assert deal.snapshot()["takes"] == [[1, 2]]  # North took East's hand


def test_the_python_examples_in_envs_md_run_as_written():
    """Every ``python`` block of docs/envs.md, run in order in one namespace (the ISMCTS block
    uses the game that the OpenSpiel block loads)."""
    import pytest

    for module in ("pettingzoo", "pyspiel", "gymnasium"):
        pytest.importorskip(module)
    text = (DOCS / "envs.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 4
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, "docs/envs.md", "exec"), namespace)  # noqa: S102 - our own documentation
    assert namespace["e"].deal.is_over and namespace["terminated"]


def test_the_options_table_of_rules_md_says_what_the_option_schema_says():
    """docs/rules.md §8 lists every option with its values and defaults: the same as
    Rules.schema() (the one definition), so the page for people cannot drift from it."""
    import ast

    from getaway import Rules

    schema = Rules.schema()
    text = (Path(__file__).resolve().parents[1] / "docs" / "rules.md").read_text(encoding="utf-8")
    rows = {}
    for line in text.splitlines():
        m = re.fullmatch(r"\| `(\w+)` \| (.+?) \| (.+?) \| (.+?) \| (.+?) \|", line)
        if m and m.group(1) in schema["options"]:
            rows[m.group(1)] = m.groups()[1:]
    assert set(rows) == set(schema["options"])

    def literal(cell: str):
        return ast.literal_eval(re.match(r"`?([^`(]+?)`?(?: \(|$)", cell).group(1).strip())

    for name, (allowed, punjab, classic, _rule) in rows.items():
        spec = schema["options"][name]
        for profile, cell in (("punjab", punjab), ("classic", classic)):
            assert literal(cell) == schema["profiles"][profile]["defaults"][name], (name, profile)
        if spec["type"] == "choice":
            listed = [ast.literal_eval(v) for v in re.findall(r"`([^`]+)`", allowed.split(" (")[0])]
            assert listed == spec["choices"], name
        elif spec["type"] == "bool":
            assert allowed == "`True`, `False`", name
        elif name == "players":
            for profile in ("punjab", "classic"):
                r = schema["profiles"][profile]["players"]
                assert f"`{profile}` {r['min']}–{r['max']}" in allowed
        elif not spec["nullable"]:
            assert f"from {spec['min']} to {spec['max']}" in allowed, name
