"""Rooms over HTTP: create, list the public ones, quick play, join, start, close (the host's
bearer token). Every one counts against the client address's limits (:mod:`.common`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Header, Request
from fastapi.responses import JSONResponse

from ...text.i18n import N_
from .. import protocol
from ..protocol import CreateRoom, JoinRoom
from ..rooms.errors import RoomError
from .common import REFUSALS, address_of, bearer, check_address, check_reads, service_of

__all__ = ["router"]

router = APIRouter()


@router.post("/api/rooms", status_code=201, response_model=protocol.Created, responses=REFUSALS)
async def create_room(request: Request, body: CreateRoom | None = None) -> Any:
    """Create a room; with a ``name`` its creator sits at seat 0 as host."""
    body = body or CreateRoom()
    check_address(request)
    return await service_of(request).create(body.config(), body.name, address_of(request))


@router.get("/api/rooms", response_model=protocol.PublicRooms, responses=REFUSALS)
async def public_rooms(request: Request, public: bool = False) -> Any:
    """The public rooms waiting for players with a free seat (``?public=1``; private rooms are
    never listed): profile, players, options, who is there (names and seat kinds)."""
    check_reads(request)
    if not public:
        raise RoomError("bad_message", N_("only public rooms are listed: add ?public=1"))
    rooms = await service_of(request).lobby()
    return JSONResponse({"rooms": rooms}, headers={"Cache-Control": "no-store"})


@router.post("/api/quickplay", response_model=protocol.QuickPlayed, responses=REFUSALS)
async def quick_play(request: Request, body: protocol.QuickPlay) -> Any:
    """Quick play: a seat as one more host in a public room waiting for players (started at once when
    it was the last free seat), or a new public room with you as host."""
    check_address(request)
    return await service_of(request).quick_play(body.name, address_of(request))


@router.post("/api/rooms/{code}/join", response_model=protocol.Joined, responses=REFUSALS)
async def join_room(request: Request, code: str, body: JoinRoom) -> Any:
    """Take a seat (the first empty one without ``seat``): answers the seat's secret token."""
    check_address(request)
    return await service_of(request).join(code, body.name, body.seat)


@router.post("/api/rooms/{code}/start", response_model=protocol.RoomState, responses=REFUSALS)
async def start_room(request: Request, code: str, authorization: str | None = Header(None)) -> Any:
    """The host starts the match (``Authorization: Bearer <host token or the host's seat token>``)."""
    return await service_of(request).start_match(code, bearer(authorization), address_of(request))


@router.post("/api/rooms/{code}/close", response_model=protocol.RoomState, responses=REFUSALS)
async def close_room(request: Request, code: str, authorization: str | None = Header(None)) -> Any:
    """The host closes the room (same header as the start): it never resumes; reads stay."""
    return await service_of(request).close_room(code, bearer(authorization))
