"""The examples in the documentation work as written."""

from __future__ import annotations

import json
import re
from pathlib import Path

from getaway.record import deal_from_record

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_the_record_example_in_records_md_replays():
    text = (DOCS / "records.md").read_text(encoding="utf-8")
    example = re.search(r"## Example.*?```json\n(.*?)```", text, re.S)
    assert example is not None
    deal = deal_from_record(json.loads(example.group(1)))
    assert deal.snapshot()["takes"] == [[1, 2]]  # North took East's hand
