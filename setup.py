"""Build step of ``pip install .`` / ``pip install -e .``: compile the deal state machine with mypyc.

Everything else is in pyproject.toml. ``src/getaway/deal.py`` (all the trick logic) is
compiled by mypyc into a C extension, from the same source: the Python file stays the
reference and the compiled module must behave byte for byte the same (the whole test suite
runs against the compiled build). It makes the engine about three times faster
(docs/engine.md, "Speed"). The extension needs nothing outside the standard library at run time.

When compiling is impossible (mypyc missing, no C compiler, a mypyc error) the install goes on
in pure Python with a message saying why. ``GETAWAY_PURE_PYTHON=1`` skips compiling on purpose.

An editable install (``pip install -e .``) puts the compiled module next to ``deal.py`` in
``src/getaway``, where Python imports it instead of the source: after editing ``deal.py``,
install again (``python3 dev.py test`` does so by itself; tests/test_architecture.py fails on a
stale build), or delete the ``.so`` files.
"""

from __future__ import annotations

import os
import sys

from setuptools import setup
from setuptools.command.build_ext import build_ext

#: Modules compiled with mypyc (paths from the project root).
COMPILED = ["src/getaway/deal.py"]


def _say(message: str) -> None:
    print(f"getaway setup: {message}", file=sys.stderr, flush=True)


class OptionalBuildExt(build_ext):
    """Builds the extensions, and falls back to pure Python if the C compiler fails."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # no compiler, missing headers …: the Python source still works
            _say(f"compiling the engine failed ({exc}); installing pure Python (same rules, slower engine)")

    def build_extension(self, ext) -> None:  # noqa: ANN001 - setuptools' Extension
        try:
            super().build_extension(ext)
        except Exception as exc:
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
        return mypycify(COMPILED, opt_level="3")
    except BaseException as exc:  # mypyc reports type errors with SystemExit
        _say(f"mypyc could not compile {COMPILED} ({exc!r}); pure Python engine (same rules, slower)")
        return []


setup(ext_modules=ext_modules(), cmdclass={"build_ext": OptionalBuildExt})
