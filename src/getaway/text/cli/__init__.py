"""The ``getaway`` command line: ``play``, ``replay``, ``review``, ``learn`` (:mod:`.play`);
``simulate``, ``tournament``, ``ladder``, ``lab`` (:mod:`.sim`); ``serve`` (:mod:`.serve`, imported
when the command is asked for);
``rules`` and ``demo`` (:mod:`.info`). What they share, the group and the option groups
written once, is :mod:`.common`.

Built on Click; the screen is drawn with Rich (docs/cli.md says why). Every message goes
through the gettext catalogs of :mod:`getaway.text.i18n` (``--lang`` or the locale).
Errors in input are one clear line on standard error and exit code 2 (bad options,
malformed records) or 1 (a record whose replay fails).
"""

from __future__ import annotations

from . import info, play, sim  # noqa: F401 - each registers its commands on the group
from .common import cli

__all__ = ["cli", "main"]


def main() -> None:
    """Entry point of the ``getaway`` command."""
    cli(prog_name="getaway")
