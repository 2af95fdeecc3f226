"""The layout promise (README, docs/engine.md): the core imports only the standard library
and itself; no core module imports a satellite."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import getaway

CORE = {"__init__", "_engine", "messages", "cards", "rules", "position", "events", "deal", "view", "record", "match"}
SRC = Path(getaway.__file__).parent


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level and node.module is None:  # from . import _engine
                names.update("getaway." + alias.name for alias in node.names)
            elif node.level:  # relative: .deal, ..events
                names.add("getaway." + node.module)
            elif node.module:
                names.add(node.module)
    return names


def test_core_imports_only_the_standard_library_and_the_core():
    for name in sorted(CORE):
        for imported in imports_of(SRC / f"{name}.py"):
            top = imported.split(".")[0]
            if top == "getaway":
                module = imported.split(".")[1] if "." in imported else "__init__"
                assert module in CORE, f"core module {name} imports the satellite {imported}"
            else:
                assert top in sys.stdlib_module_names or top == "__future__", f"core module {name} imports {imported}"


def test_the_core_does_not_translate():
    """The core marks its messages (``getaway.messages.N_``) but never imports ``getaway.i18n``."""
    for name in sorted(CORE):
        assert "getaway.i18n" not in imports_of(SRC / f"{name}.py"), name
