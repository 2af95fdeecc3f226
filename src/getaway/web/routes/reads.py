"""A room's reads: its public state, its match history and the records of its finished deals,
each counted against the client address's reads per second (:mod:`.common`); a record's
download also against the address's budget of heavy reads (shared with replays and reviews)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Request
from fastapi import Path as PathParam
from fastapi.responses import JSONResponse

from .. import protocol
from ..rooms.checks import MAX_DEALS
from .common import REFUSALS, check_heavy, check_reads, service_of

__all__ = ["router"]

router = APIRouter()


@router.get("/api/rooms/{code}", response_model=protocol.RoomState, responses=REFUSALS)
async def room_state(request: Request, code: str) -> Any:
    """The public room state."""
    check_reads(request)
    # a Response: served as built (the read path is hot), the model documents it
    return JSONResponse(await service_of(request).read_public(code))


@router.get("/api/rooms/{code}/deals/{index}/record", response_model=dict[str, Any], responses=REFUSALS)
async def deal_record(request: Request, code: str, index: Annotated[int, PathParam(ge=0, lt=MAX_DEALS)]) -> Any:
    """The engine's record (``getaway/1``, docs/records.md) of finished deal ``index`` (0-based,
    below the most deals a match has: 400 naming ``index`` otherwise); a heavy read too."""
    check_reads(request)
    check_heavy(request)
    record = await service_of(request).read_record(code, index)
    name = f"getaway-{code.upper()}-deal{index + 1}.json"  # a real room's code: the read found it
    headers = {"Content-Disposition": f'attachment; filename="{name}"'}
    return JSONResponse(record, headers=headers)


@router.get("/api/rooms/{code}/history", response_model=protocol.History, responses=REFUSALS)
async def room_history(request: Request, code: str) -> Any:
    """The match history: finished deals and the standings."""
    check_reads(request)
    return JSONResponse(await service_of(request).read_history(code))
