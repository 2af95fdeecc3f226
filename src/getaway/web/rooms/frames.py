"""The frames the server sends on a socket, each built from its model of
:mod:`getaway.web.protocol` (the ``ServerMessage`` union: ``welcome``/``sync``, ``update``,
``absent``, ``error``, ``pong``, ``closed``, ``hint``, ``rematch``, ``chat``) and encoded once: a frame for
many sockets is encoded once and its text queued on each (:meth:`~.handles.Connection.send_text`).

The models are built with ``model_construct`` (no validation on the hot path: what the server
builds is checked against the union by the tests) and serialized by pydantic (compact JSON,
UTF-8 as is).

Owns: encoding, and the frames every module sends alike (:data:`PONG`, :func:`error`). Imports
:mod:`.errors` only.
"""

from __future__ import annotations

from typing import Final

from pydantic import BaseModel

from .. import protocol
from .errors import RoomError

__all__ = ["encode", "error", "PONG"]


def encode(frame: BaseModel) -> str:
    """The JSON text of ``frame`` (a model of the ``ServerMessage`` union): compact, non-ASCII
    characters as they are. Nested fields may be plain dicts (``room``, ``view``: built by the
    room and the engine), serialized as they are."""
    return frame.model_dump_json(warnings=False)


#: The answer to ``ping``, encoded once for every socket.
PONG: Final = encode(protocol.Pong(type="pong"))


def error(exc: RoomError, lang: str, version: int | None) -> protocol.ErrorMessage:
    """The ``error`` frame of refusal ``exc`` (docs/web.md): its code, its text in ``lang``, the
    room's ``version`` (``None`` before a room)."""
    return protocol.ErrorMessage.model_construct(type="error", code=exc.code, message=exc.shown(lang), version=version)
