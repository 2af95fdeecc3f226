"""The pinned installs (issue 26 item 6; dev.py ``LOCK``, README "Pinned versions"): every
package pyproject.toml asks for, in the default install, the ``test`` and ``postgres`` extras and
the build's ``[build-system] requires``, is pinned in requirements/lock.txt at a version its
specifier admits (a new dependency without ``python3 dev.py lock`` fails here), and the
environment these tests run in took the lock's versions (``dev.py`` installs with
``PIP_CONSTRAINT``)."""

from __future__ import annotations

import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements" / "lock.txt"


def _pins() -> dict[str, Version]:
    pins: dict[str, Version] = {}
    for line in LOCK.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, sep, version = line.partition("==")
        assert sep and version, f"requirements/lock.txt: not a pin: {line!r}"
        pins[canonicalize_name(name.split("[", 1)[0])] = Version(version.split(";", 1)[0].strip())
    return pins


def _wanted(*, build: bool = True) -> list[Requirement]:
    """pyproject.toml's requirements: the install's and its test and postgres extras', then (with
    ``build``) the build's (``[build-system] requires``)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    extras = project["project"]["optional-dependencies"]
    names = [*project["project"]["dependencies"], *extras["test"], *extras["postgres"]]
    return [Requirement(r) for r in (*names, *(project["build-system"]["requires"] if build else ()))]


def test_every_requirement_is_pinned_at_a_version_it_admits():
    pins = _pins()
    assert len(pins) > 30
    for req in _wanted():
        if req.marker is not None and not req.marker.evaluate({"python_version": "3.11"}):
            continue
        name = canonicalize_name(req.name)
        assert name in pins, f"{req} is not in requirements/lock.txt: run `python3 dev.py lock`"
        assert req.specifier.contains(pins[name], prereleases=True), f"{req}: the lock pins {pins[name]}"


def test_this_environment_has_the_locked_versions():
    pins = _pins()
    installed = {canonicalize_name(d.metadata["Name"]): Version(d.version) for d in metadata.distributions()}
    direct = {canonicalize_name(r.name) for r in _wanted(build=False)}
    assert direct <= set(installed), sorted(direct - set(installed))
    # the build's own (setuptools, wheel, mypy) are pinned in its isolated environment, not here
    build = {canonicalize_name(r.name) for r in _wanted()} - direct
    wrong = {
        n: (str(installed[n]), str(v))
        for n, v in pins.items()
        if n in installed and n not in build and installed[n] != v
    }
    assert not wrong, f"installed (left) is not the lock's (right): {wrong}"
