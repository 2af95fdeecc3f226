"""Build step of ``pip install .`` / ``pip install -e .``: compile the deal state machine with mypyc.

Everything else is in pyproject.toml. ``src/getaway/core/deal.py`` (all the trick logic) and
``src/getaway/core/knowledge.py`` (the reading of the history, every observation's first step)
are compiled by mypyc into C extensions, from the same sources: the Python files stay the
reference and the compiled modules must behave byte for byte the same (the whole test suite
runs against the compiled build). It makes the engine about three times faster
(docs/engine.md, "Speed"). The extension needs nothing outside the standard library at run time.

When compiling is impossible (mypyc missing, no C compiler, a mypyc error) the install goes on
in pure Python with a message saying why. ``GETAWAY_PURE_PYTHON=1`` skips compiling on purpose
(and, at run time, makes ``import getaway`` use the sources even where compiled modules exist).

An editable install (``pip install -e .``) puts the compiled modules next to their sources in
``src/getaway/core``, where Python would import them instead of the sources even after a source is
edited. So a build records the SHA-256 of each source it compiled (``_compiled.json``), and
``getaway/core/_engine.py`` imports all the sources themselves, with a warning, when one differs: the
Python files are what runs until the next install (``python3 dev.py test`` reinstalls by itself).
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext


def compiled_modules(root: Path) -> list[str]:
    """The modules compiled with mypyc (paths from the project ``root``), as one group whose shared
    library is ``getaway/core/_native__mypyc``: ``getaway/core/_engine.py``'s ``MODULES``, the
    one list of them (read from its source: the package is not importable while it is built;
    dev.py reads it the same way)."""
    source = (root / "src" / "getaway" / "core" / "_engine.py").read_text(encoding="utf-8")
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "MODULES" for t in node.targets):
            return [f"src/getaway/core/{name}.py" for name in ast.literal_eval(node.value)]
    raise RuntimeError("src/getaway/core/_engine.py defines no MODULES")


#: Modules compiled with mypyc (paths from the project root): :func:`compiled_modules`.
COMPILED = compiled_modules(Path(__file__).resolve().parent)
#: What the compiled modules were built from, written beside them as ``_compiled.json`` after a
#: successful build: ``getaway/core/_engine.py`` imports ``deal.py`` itself when it no longer matches.
SOURCES = {Path(path).name: hashlib.sha256(Path(path).read_bytes()).hexdigest() for path in COMPILED}


def _say(message: str) -> None:
    print(f"getaway setup: {message}", file=sys.stderr, flush=True)


class OptionalBuildExt(build_ext):
    """Builds the extensions, falls back to pure Python if the C compiler fails, and records
    the sources of a successful build."""

    failed = False

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # no compiler, missing headers …: the Python source still works
            _say(f"compiling the engine failed ({exc}); installing pure Python (same rules, slower engine)")
            self.failed = True
        if self.failed:
            self._remove_outputs()
            return
        if self.extensions:
            record = json.dumps(SOURCES, indent=1) + "\n"
            folders = {os.path.join(self.build_lib, "getaway", "core")}  # goes into the wheel
            if self.inplace:  # an editable install: the compiled modules are in the source tree
                folders.add(self.get_finalized_command("build_py").get_package_dir("getaway.core"))
            for folder in folders:
                os.makedirs(folder, exist_ok=True)
                Path(folder, "_compiled.json").write_text(record, encoding="utf-8")
            _say(f"compiled {', '.join(SOURCES)} with mypyc")

    def _remove_outputs(self) -> None:
        """mypyc makes two extensions per build, a shim and the compiled code: if either failed,
        neither may be installed (the shim alone would fail to import)."""
        build_py = self.get_finalized_command("build_py")
        for ext in self.extensions:
            built = self.get_ext_fullpath(ext.name)
            package = build_py.get_package_dir(ext.name.rpartition(".")[0])
            for path in (built, os.path.join(package, os.path.basename(built))):
                if self.inplace or path == built:
                    Path(path).unlink(missing_ok=True)

    def build_extension(self, ext) -> None:  # noqa: ANN001 - setuptools' Extension
        try:
            super().build_extension(ext)
        except Exception as exc:
            self.failed = True
            _say(f"compiling {ext.name} failed ({exc}); it stays pure Python (same rules, slower engine)")


def ext_modules() -> list:
    if os.environ.get("GETAWAY_PURE_PYTHON") == "1":
        _say("GETAWAY_PURE_PYTHON=1: not compiling; pure Python engine")
        return []
    try:
        from mypyc.build import mypycify
    except ImportError as exc:
        _say(f"mypyc is not available ({exc}); pure Python engine (same rules, slower)")
        return []
    try:
        return mypycify(COMPILED, opt_level="3", group_name="getaway.core._native")
    except BaseException as exc:  # mypyc reports type errors with SystemExit
        _say(f"mypyc could not compile {COMPILED} ({exc!r}); pure Python engine (same rules, slower)")
        return []


setup(ext_modules=ext_modules(), cmdclass={"build_ext": OptionalBuildExt})
