"""The page's own texts (msgids, English): ``GET /api/strings/{lang}`` returns them translated
with the same gettext catalogs as the command line (``N_`` marks them for extraction).

The page (static/*.js) shows every text through ``t(msgid)``; add its msgids here.
"""

from __future__ import annotations

from ..i18n import N_

UI_STRINGS: list[str] = [
    N_("Getaway"),
    N_("Create a room"),
    N_("Join"),
    N_("Start"),
    N_("Next deal"),
    N_("Your turn"),
    N_("Take left hand"),
    N_("Pass"),
    N_("Pick up"),
    N_("Spectator"),
    N_("Rules"),
]
