"""``/healthz`` (is this process ready, for a load balancer) and ``/stats`` (what an operator
reads of it, on the machine only). Imports: :mod:`.common`, the models, the service, the errors."""

from __future__ import annotations

import asyncio
import ipaddress
from typing import Final

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from ...text.i18n import N_
from .. import protocol
from ..rooms.errors import RoomError
from ..rooms.service import RoomService
from .common import address_of, service_of

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
    cards or a client's address. Answered to the operator only, on the machine itself
    (:func:`local_client`); anyone else gets 404 ``not_found``, as the front answers: the bot
    counters move with each bot's decision, and a search skipped says that a bot held one legal
    card (an outsider polling them at a bot's turn learnt it).

    Raises:
        RoomError: ``not_found`` (404) for a client that is not on the loopback."""
    if not local_client(request):
        raise RoomError("not_found", N_("no such page or method: {path}"), 404, path=request.url.path)
    counts = {**service_of(request).report(), "reviews": request.app.state.reviews.report()}
    report = protocol.Stats.model_validate(counts).model_dump()
    return JSONResponse(report, headers={"Cache-Control": "no-store"})


def local_client(request: Request) -> bool:
    """Whether the client is on this machine: a loopback address (the connection's peer, or the
    client a trusted proxy names: ``forwarded_allow_ips``, so a browser behind nginx is not)."""
    try:
        return ipaddress.ip_address(address_of(request)).is_loopback
    except ValueError:  # not an address (an in-process test client's "testclient")
        return False
