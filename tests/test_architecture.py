"""The layout promise (README, docs/engine.md "Architecture"): the folders of ``src/getaway`` are
the architecture. ``core`` imports only the standard library and itself; every other folder is a
satellite whose imports point inward only, as the table :data:`MAY_IMPORT` says; no module is
part of an import cycle."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import getaway

SRC = Path(getaway.__file__).parent
AREAS = ("core", "bots", "sim", "envs", "text", "web")
#: Which areas each area may import (besides itself). ``root`` is ``getaway/__init__.py`` (the
#: public names, re-exported from the core) and ``getaway/__main__.py``.
MAY_IMPORT: dict[str, set[str]] = {
    "core": set(),
    "bots": {"core"},
    "sim": {"core", "bots"},
    "envs": {"core", "bots"},
    "text": {"core", "bots", "sim", "root"},
    "web": {"core", "bots", "text"},
    "root": {"core", "text"},
}
#: The command line is the composition root: ``getaway serve`` starts the web app (lazily).
ENTRY_POINTS: dict[str, set[str]] = {"getaway.text.cli.serve": {"web"}}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def area_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in AREAS else "root"


def imports_of(path: Path) -> set[str]:
    """The absolute names of every module (or package attribute) ``path`` imports, top-level or not."""
    module = module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - (node.level - 1)])
                if node.module:
                    names.add(f"{base}.{node.module}")
                else:  # from . import _engine: submodules (or names of the package)
                    names.update(f"{base}.{alias.name}" for alias in node.names)
            elif node.module:
                names.add(node.module)
    return names


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(SRC.rglob("*.py"))}


def test_every_module_is_in_an_area():
    for name in modules():
        parts = name.split(".")
        assert len(parts) <= 2 or parts[1] in AREAS, f"{name} is outside core/bots/sim/envs/text/web"
        assert len(parts) != 2 or parts[1] in (*AREAS, "__main__"), f"{name}: a module at the top of the package"


def test_the_core_imports_only_the_standard_library_and_itself():
    for name, path in modules().items():
        if area_of(name) != "core":
            continue
        for imported in imports_of(path):
            top = imported.split(".")[0]
            if top == "getaway":
                assert area_of(imported) == "core", f"core module {name} imports {imported}"
            else:
                assert top in sys.stdlib_module_names or top == "__future__", f"core module {name} imports {imported}"


def test_imports_point_inward_only():
    for name, path in modules().items():
        area = area_of(name)
        allowed = MAY_IMPORT[area] | ENTRY_POINTS.get(name, set()) | {area}
        for imported in imports_of(path):
            if imported.split(".")[0] == "getaway":
                assert area_of(imported) in allowed, f"{name} ({area}) imports {imported} ({area_of(imported)})"


#: Import edges that close a cycle and are being removed: the deal keeps a view cache (issue 12,
#: item 1: the view becomes deal facts + Knowledge and the deal no longer imports it).
KNOWN_CYCLE_EDGES: set[tuple[str, str]] = set()


def test_no_import_cycles_between_modules():
    known = modules()

    def resolve(name: str) -> str | None:  # a package attribute resolves to the package
        while name and name not in known:
            name = name.rpartition(".")[0]
        return name or None

    graph = {name: {m for i in imports_of(path) if (m := resolve(i)) and m != name} for name, path in known.items()}
    # the package __init__ files re-export (getaway/__init__ imports the core); a submodule's
    # import of its own package is how Python loads it, not a cycle of ours
    for name in graph:
        graph[name] = {m for m in graph[name] if not name.startswith(m + ".") and (name, m) not in KNOWN_CYCLE_EDGES}
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                raise AssertionError("import cycle: " + " -> ".join([*path[path.index(nxt) :], nxt]))
            if nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])


def test_the_known_cycle_edges_still_exist():
    """An edge listed in KNOWN_CYCLE_EDGES that is gone must leave the list."""
    for source, target in KNOWN_CYCLE_EDGES:
        assert target in imports_of(modules()[source]), f"{source} no longer imports {target}: remove it from the list"


def test_the_core_does_not_translate():
    """The core marks its messages (``getaway.core.messages.N_``) but never imports ``getaway.text``."""
    for name, path in modules().items():
        if area_of(name) == "core":
            assert not any(area_of(i) == "text" for i in imports_of(path) if i.startswith("getaway")), name


#: The package of the web server's rooms (issue 23): each module's docstring says which sibling
#: modules it imports ("Imports :mod:`.errors` and :mod:`.state` …"), and these arrows hold.
ROOMS = "getaway.web.rooms"
#: What the foundations may import, whatever their docstrings say: the errors nothing (the socket
#: edge, the protocol and the routes import them alone), the checks and the commands the errors, the pure
#: room those three.
ROOMS_FOUNDATIONS: dict[str, set[str]] = {
    "errors": set(),
    "checks": {"errors"},
    "commands": {"errors"},
    "state": {"errors", "checks", "commands"},
}


def _siblings_imported(path: Path) -> set[str]:
    prefix = ROOMS + "."
    return {i[len(prefix) :].split(".")[0] for i in imports_of(path) if i.startswith(prefix)}


def _siblings_declared(path: Path, siblings: set[str]) -> set[str]:
    doc = " ".join((ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or "").split())
    doc = re.sub(r":mod:`\.(\w+)`", r"<\1>", doc)
    found = re.search(r"\bImports ([^;.]*)", doc)
    assert found, f"{path.name}: its docstring does not say what it imports ('Imports …')"
    named = set(re.findall(r"<(\w+)>", found.group(1)))
    if found.group(1).startswith("every sibling"):  # "every sibling module but <frames>"
        return set(siblings) - named
    return named


def test_the_rooms_modules_import_what_their_docstrings_say():
    package = SRC / "web" / "rooms"
    paths = {p.stem: p for p in sorted(package.glob("*.py")) if p.name != "__init__.py"}
    graph = {}
    for name, path in paths.items():
        imported = _siblings_imported(path)
        declared = _siblings_declared(path, set(paths) - {name})
        assert imported == declared, f"rooms/{name}.py imports {sorted(imported)}, its docstring: {sorted(declared)}"
        if name in ROOMS_FOUNDATIONS:
            assert imported <= ROOMS_FOUNDATIONS[name], f"rooms/{name}.py imports {sorted(imported)}"
        if name != "service":
            assert "service" not in imported, f"rooms/{name}.py imports the façade (it is given it)"
        graph[name] = imported
    components = {"worker", "timers", "bots", "sockets", "reads", "lobby", "cluster", "mirror"}
    assert components <= graph["service"], "the façade holds every component"
    done: set[str] = set()

    def visit(node: str, path: list[str]) -> None:
        for nxt in sorted(graph[node]):
            assert nxt not in path, "rooms import cycle: " + " -> ".join([*path, nxt])
            if nxt not in done:
                visit(nxt, [*path, nxt])
        done.add(node)

    for name in sorted(graph):
        visit(name, [name])


def test_a_refusal_does_not_import_the_room_service():
    """``RoomError`` (what the socket edge, the protocol and learn import) comes without the service."""
    code = "import sys, getaway.web.rooms.errors; print('getaway.web.rooms.service' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
