"""The web protocol's messages as pydantic models (docs/web.md): every HTTP body and answer, and
every WebSocket message (a discriminated union on ``type``), used to parse what comes in and to
describe what goes out. ``GET /api/openapi.json`` (FastAPI, from these models) documents the HTTP
API; ``GET /api/socket-schema.json`` (:func:`socket_schema`) the socket's messages.

A refusal is a :class:`~getaway.web.rooms.RoomError` whose code and translated message name the
field (:func:`refusal`): ``bad_json`` (not JSON), ``unknown_type`` (a ``type`` the server does not
know), ``bad_message`` (anything else: a wrong type, a missing or unknown field, a lone surrogate),
and the checks' own codes (``name_too_long``).

>>> parse_client('{"type": "act", "action": "10h", "version": 3}')
Act(type='act', action='10h', version=3)
>>> refusal(client_error('{"type": "act", "action": 5, "version": 3}')).code
'bad_message'
>>> refusal(client_error('{"type": "fly"}')).code
'unknown_type'
"""

from __future__ import annotations

from .base import *  # noqa: F403
from .base import __all__ as _base
from .http import *  # noqa: F403
from .http import __all__ as _http
from .refusals import *  # noqa: F403
from .refusals import __all__ as _refusals
from .socket import *  # noqa: F403
from .socket import __all__ as _socket

__all__ = [*_base, *_http, *_socket, *_refusals]
