"""Which code runs: the sources of :data:`MODULES` (``deal.py``, ``knowledge.py`` …) or the
modules mypyc compiled from them (setup.py).

Imported first by ``getaway/__init__.py``, for its effect: when a compiled module is stale it
imports the sources themselves as ``getaway.core.deal`` and ``getaway.core.knowledge``.
Standard library only, like the whole core.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import os
import sys
import warnings

__all__ = ["COMPILED", "MODULES"]

#: The modules of ``getaway.core`` that setup.py compiles with mypyc, as one group: the one list
#: of them (setup.py's ``COMPILED`` and dev.py's ``BUILD_INPUTS`` read it from this file's source;
#: tests/test_engine_build.py checks they do): either all of them run compiled, or all run from
#: their source.
MODULES = ("deal", "knowledge", "observation", "batch")


def _sha256(path: str) -> str:
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()


def _use_source_if_stale() -> bool:
    """Import the sources (``deal.py``, ``knowledge.py``: :data:`MODULES`) instead of their
    compiled modules when those are stale; returns whether the compiled modules are in use.

    setup.py compiles them with mypyc and records each source's SHA-256 in ``_compiled.json``.
    An editable install puts the compiled modules next to the sources, where Python would
    import them even after a source is edited: then (or with ``GETAWAY_PURE_PYTHON=1`` set)
    every source of the group is imported instead (compiled code calls its group's classes
    directly, so the group is never mixed), so that the Python files are what runs unless
    the compiled modules were built from those very files.
    """
    package = __name__.rpartition(".")[0]
    origins = {}
    for name in MODULES:
        found = importlib.util.find_spec(f"{package}.{name}")
        origins[name] = "" if found is None or found.origin is None else found.origin
    compiled = [name for name, origin in origins.items() if origin and not origin.endswith(".py")]
    if not compiled:
        return False  # not compiled
    folder = os.path.dirname(origins[compiled[0]])
    sources = {name: os.path.join(folder, name + ".py") for name in MODULES}
    if not all(os.path.exists(path) for path in sources.values()):
        return True  # installed without sources: nothing to compare with
    if os.environ.get("GETAWAY_PURE_PYTHON") != "1":
        try:
            with open(os.path.join(folder, "_compiled.json"), encoding="utf-8") as fh:
                built_from = json.load(fh)
        except (OSError, ValueError):
            return True  # compiled by hand, without a record: trusted
        if not isinstance(built_from, dict):
            built_from = {}
        stale = [
            name + ".py"
            for name in MODULES
            if name not in compiled or built_from.get(name + ".py") != _sha256(sources[name])
        ]
        if not stale:
            try:
                for name in MODULES:
                    importlib.import_module(f"{package}.{name}")
                return True
            except ImportError as exc:  # e.g. the compiled code's shared library is missing
                problem = f"cannot be imported ({exc})"
        else:
            problem = f"compiled from another version of {', '.join(stale)}"
        warnings.warn(
            f"getaway: the compiled {', '.join(origins[name] for name in compiled)}: {problem}; running"
            " the Python sources (slower) until the next install (pip install -e .)",
            RuntimeWarning,
            stacklevel=2,
        )
    for name in MODULES:
        spec = importlib.util.spec_from_file_location(f"{package}.{name}", sources[name])
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        setattr(sys.modules[package], name, module)  # as the import system does for a submodule
    return False


#: Whether the modules running are the compiled ones (mypyc), not their Python sources.
COMPILED: bool = _use_source_if_stale()
