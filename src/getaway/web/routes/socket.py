"""The WebSocket ``/ws/{code}``: the handshake (refused while draining, the sockets per
address counted here and in the cluster), the hello within the hello timeout, each message
rate-limited and parsed by :func:`getaway.web.protocol.parse_client`, then given to the room's
service; one sender task per socket drains its outbox.

Imports: :mod:`.common`, the edge, the models and the service's names."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import secrets
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from pydantic import ValidationError

from ...text.i18n import N_
from .. import protocol
from ..edge import Limits, client_lang
from ..protocol import MAX_MESSAGE, parse_client, refusal
from ..rooms import frames
from ..rooms.errors import RoomError, draining_error
from ..rooms.handles import RESTART_CLOSE, Connection, RoomHandle
from ..rooms.service import RoomService
from .common import address_of as _address
from .common import error_response, limits_of, service_of

__all__ = ["SocketCounts", "router"]

router = APIRouter()


@dataclass
class SocketCounts:
    """This process's open sockets per client address, and the ids of its sockets (``app.state.sockets``)."""

    open: Counter[str] = field(default_factory=Counter)
    ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    #: A socket's id names its message limit: unique among processes that count in one Redis.
    prefix: str = field(default_factory=lambda: secrets.token_hex(4))


@router.websocket("/ws/{code}")
async def socket(websocket: WebSocket, code: str) -> None:
    counts: SocketCounts = websocket.app.state.sockets
    sockets, sockets_per_address = counts.open, websocket.app.state.settings.sockets_per_address
    address = websocket.client.host if websocket.client is not None else "?"
    if service_of(websocket).draining:  # refused at the handshake: the front tries another process
        await _refuse_handshake(websocket)
        return
    await websocket.accept()
    lang = client_lang(websocket)  # for errors before a hello names the language
    socket_id = f"{address}#{counts.prefix}.{next(counts.ids)}"
    service = service_of(websocket)
    # this process's count, and with many processes the cluster's (RoomService.take_socket)
    if sockets[address] >= sockets_per_address or not await service.take_socket(
        address, socket_id, sockets_per_address
    ):
        error = RoomError("too_many_sockets", N_("too many connections from your address"), 429)
        await _send_error(websocket, error, None, lang)
        await websocket.close(code=1008)
        return
    sockets[address] += 1
    try:
        await _serve(websocket, code, lang, socket_id)
    finally:
        sockets[address] -= 1
        if sockets[address] <= 0:
            del sockets[address]
        await service.free_socket(address, socket_id)


async def _serve(websocket: WebSocket, code: str, lang: str, socket_id: str) -> None:
    limits, hello_timeout = limits_of(websocket), websocket.app.state.settings.hello_timeout
    service = service_of(websocket)
    try:
        handle = await service.handle(code)
    except RoomError as exc:
        if exc.code == "draining":  # the page reconnects, to another process
            await websocket.close(code=RESTART_CLOSE)
            return
        await _send_error(websocket, exc, None, lang)
        await websocket.close(code=4404 if exc.code == "room_not_found" else 4410)
        return
    conn: Connection | None = None
    sender = None
    hello_by = time.monotonic() + hello_timeout
    try:
        while True:
            if conn is None:  # a socket that never says hello is closed after hello_timeout
                try:
                    frame = await asyncio.wait_for(websocket.receive(), max(hello_by - time.monotonic(), 0))
                except TimeoutError:
                    error = RoomError("not_hello", N_("no hello in time: closing"))
                    await _send_error(websocket, error, handle.room.version, lang)
                    await websocket.close(code=1008)
                    return
            else:
                frame = await websocket.receive()
            if frame["type"] == "websocket.disconnect":
                return
            text = frame.get("text")
            if not limits.message(socket_id):
                err = RoomError("rate_limited", N_("too many messages: slow down"))
                await _reply_error(websocket, conn, err, handle, lang)
                continue
            try:
                msg = _parse(text)
            except RoomError as err:
                await _reply_error(websocket, conn, err, handle, lang)
                continue
            if conn is None:
                if not isinstance(msg, protocol.Hello):
                    await _reply_error(websocket, None, RoomError("not_hello", N_("say hello first")), handle, lang)
                    continue
                if msg.lang is not None:
                    lang = msg.lang
                try:
                    conn = await service.attach(handle, msg.payload(), _address(websocket))
                except RoomError as exc:
                    if exc.code == "draining":
                        await websocket.close(code=RESTART_CLOSE)
                        return
                    await _send_error(websocket, exc, handle.room.version, lang)
                    continue
                sender = _start_sender(websocket, conn)
                continue
            if isinstance(msg, protocol.Hello):
                conn.error(RoomError("bad_message", N_("already said hello")), handle.room.version)
                continue
            seat = conn.seat
            if isinstance(msg, protocol.Chat) and seat is not None and not limits.chat(handle.room.code, seat):
                err = RoomError("rate_limited", N_("too many chat messages: wait a few seconds"))
                conn.error(err, handle.room.version)
                continue
            if isinstance(msg, protocol.AskRematch):  # makes a room: the address's room limit
                await _rematch(limits, service, handle, conn, _address(websocket))
                continue
            await service.message(handle, conn, msg)
    except WebSocketDisconnect:
        pass
    except RuntimeError:  # the socket was closed by the server (room closed, too slow)
        pass
    finally:
        if conn is not None:
            await service.detach(handle, conn)
        if sender is not None:
            sender.cancel()
            with contextlib.suppress(BaseException):
                await sender


async def _rematch(limits: Limits, service: RoomService, handle: RoomHandle, conn: Connection, address: str) -> None:
    try:
        if not limits.room(address):
            raise RoomError("rate_limited", N_("too many rooms or seats from your address: wait a minute"), 429)
        await service.rematch(handle, conn)
    except RoomError as exc:
        conn.error(exc, handle.room.version)


def _parse(text: str | None) -> protocol.Hello | protocol.Act | Any:
    """A client message (:func:`getaway.web.protocol.parse_client`).

    Raises:
        RoomError: binary, too long, not JSON, not a known message or a bad field (named).
    """
    if text is None:
        raise RoomError("bad_message", N_("messages are JSON text"))
    if len(text) > MAX_MESSAGE:
        raise RoomError("bad_message", N_("message too long"))
    try:
        return parse_client(text)
    except ValidationError as exc:
        raise refusal(exc) from None


async def _refuse_handshake(websocket: WebSocket) -> None:
    """Refuse a socket before accepting it: HTTP 503 ``draining`` where the server can send a
    response at the handshake (uvicorn), else a close before the accept (HTTP 403)."""
    if "websocket.http.response" in websocket.scope.get("extensions", {}):
        await websocket.send_denial_response(error_response(draining_error(), client_lang(websocket)))
    else:
        await websocket.close(code=RESTART_CLOSE)


async def _send_error(websocket: WebSocket, exc: RoomError, version: int | None, lang: str) -> None:
    with contextlib.suppress(Exception):
        await websocket.send_text(frames.encode(frames.error(exc, lang, version)))


async def _reply_error(
    websocket: WebSocket, conn: Connection | None, exc: RoomError, handle: RoomHandle, lang: str
) -> None:
    if conn is None:
        await _send_error(websocket, exc, handle.room.version, lang)
    else:
        conn.error(exc, handle.room.version)


def _start_sender(websocket: WebSocket, conn: Connection) -> Any:
    async def run() -> None:
        try:
            while True:
                text = await conn.outbox.get()
                if text is None:
                    await websocket.close(code=conn.close_code)
                    return
                await websocket.send_text(text)
        except Exception:  # the socket is gone: the receive loop ends too
            with contextlib.suppress(Exception):
                await websocket.close()

    return asyncio.create_task(run())
