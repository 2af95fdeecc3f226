"""``/healthz`` (is this process ready, for a load balancer) and ``/stats`` (what an operator
reads of it). Imports: :mod:`.common`, the models, the service."""

from __future__ import annotations

import asyncio
from typing import Final

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from .. import protocol
from ..rooms.service import RoomService
from .common import service_of

__all__ = ["HEALTH_TIMEOUT", "router"]

#: Seconds ``/healthz`` waits for the database's answer (then 503 ``unavailable``).
HEALTH_TIMEOUT: Final = 2.0

router = APIRouter()


@router.get("/healthz", response_model=protocol.Health, responses={503: {"model": protocol.Health}})
async def healthz(request: Request) -> Response:
    """Whether this process is ready, for a load balancer: 200 ``{"status": "ok"}`` when the
    database answers and the process is not draining; 503 ``starting`` (the rooms are not
    rebuilt yet), ``draining`` (it is stopping: SIGTERM) or ``unavailable`` (the database did not
    answer within :data:`HEALTH_TIMEOUT` seconds). Never more than the status word."""
    service: RoomService | None = getattr(request.app.state, "service", None)
    if service is None or not service.started:
        status = "starting"
    elif service.draining:
        status = "draining"
    else:
        try:
            await asyncio.wait_for(asyncio.to_thread(service.store.ping), HEALTH_TIMEOUT)
            status = "ok"
        except Exception:  # no detail: the answer is public
            status = "unavailable"
    code = 200 if status == "ok" else 503
    return JSONResponse({"status": status}, status_code=code, headers={"Cache-Control": "no-store"})


@router.get("/stats", response_model=protocol.Stats)
async def stats(request: Request) -> Response:
    """What an operator reads of this process (docs/web.md "Behind a front"): its rooms,
    its bot workers (searches, fallbacks, busy workers, the queue), its lease heartbeat and its
    review workers. Counts in memory only (never the database), nothing about a room's players,
    cards or a client's address."""
    counts = {**service_of(request).report(), "reviews": request.app.state.reviews.report()}
    report = protocol.Stats.model_validate(counts).model_dump()
    return JSONResponse(report, headers={"Cache-Control": "no-store"})
