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
