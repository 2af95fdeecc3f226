"""Which deal state machine runs: ``deal.py`` or the module mypyc compiled from it (setup.py).

Imported first by ``getaway/__init__.py``, for its effect: when the compiled module is stale
it imports ``deal.py`` itself as ``getaway.core.deal``. Standard library only, like the whole core.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import os
import sys
import warnings

__all__ = ["COMPILED"]


def _use_source_if_stale() -> bool:
    """Import ``deal.py`` itself instead of its compiled module when that one is stale; returns
    whether the compiled module is in use.

    setup.py compiles ``deal.py`` with mypyc and records the source's SHA-256 in
    ``_compiled.json``. An editable install puts the compiled module next to ``deal.py``,
    where Python would import it even after ``deal.py`` is edited: then (or with
    ``GETAWAY_PURE_PYTHON=1`` set) the source is imported instead, so that the Python file
    is what runs unless the compiled module was built from that very file.
    """
    package = __name__.rpartition(".")[0]
    spec = importlib.util.find_spec(package + ".deal")
    if spec is None or spec.origin is None or spec.origin.endswith(".py"):
        return False  # not compiled
    folder = os.path.dirname(spec.origin)
    source = os.path.join(folder, "deal.py")
    if not os.path.exists(source):
        return True  # installed without sources: nothing to compare with
    if os.environ.get("GETAWAY_PURE_PYTHON") != "1":
        try:
            with open(os.path.join(folder, "_compiled.json"), encoding="utf-8") as fh:
                built_from = json.load(fh)["deal.py"]
        except (OSError, ValueError, KeyError):
            return True  # compiled by hand, without a record: trusted
        with open(source, "rb") as fh:
            fresh = hashlib.sha256(fh.read()).hexdigest() == built_from
        if fresh:
            try:
                importlib.import_module(package + ".deal")
                return True
            except ImportError as exc:  # e.g. the compiled code's shared library is missing
                problem = f"cannot be imported ({exc})"
        else:
            problem = "was compiled from another version of deal.py"
        warnings.warn(
            f"getaway: {spec.origin} {problem}; running the Python source (slower) until the next "
            "install (pip install -e .)",
            RuntimeWarning,
            stacklevel=2,
        )
    spec = importlib.util.spec_from_file_location(package + ".deal", source)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    setattr(sys.modules[package], "deal", module)  # noqa: B010  # as the import system does for a submodule
    return False


#: Whether the deal state machine running is the compiled one (mypyc), not ``deal.py`` itself.
COMPILED: bool = _use_source_if_stale()
