"""How a ``getaway serve`` process stops: uvicorn, with a drain on SIGTERM (docs/web.md, "Behind a front").

uvicorn's own shutdown closes the listening socket, closes every WebSocket with 1012 and then
runs the app's lifespan shutdown. That order is wrong for a room server behind a front: the
pages would reconnect to another process before this one has committed its rooms' last moves
and handed them over. :class:`DrainingServer` runs :meth:`RoomService.drain
<getaway.web.rooms.RoomService.drain>` first, on the first SIGTERM (or SIGINT), while still
listening: ``/healthz`` answers 503 ``draining``, new sockets, rooms and commands are refused
with 503 (the front sends them to another process), the rooms are stopped cleanly, and their
sockets are closed with 1012 (the page reconnects at once). After ``drain_seconds`` more of
refusing (for a load balancer that polls ``/healthz``), uvicorn's shutdown runs as usual and the
process exits 0. A second signal stops at once (uvicorn's handling: the process dies of it).
"""

from __future__ import annotations

import asyncio
import logging
import signal
from types import FrameType
from typing import Any, Final

import uvicorn

__all__ = ["DrainingServer", "DRAIN_TIMEOUT"]

log = logging.getLogger("getaway.web")

#: Seconds the drain itself may take (a database that no longer answers): then uvicorn's shutdown
#: goes on, closing what is left with 1012.
DRAIN_TIMEOUT: Final = 30.0


class DrainingServer(uvicorn.Server):
    """A uvicorn server whose first SIGTERM/SIGINT drains the app's rooms before shutting down.

    Args:
        config: uvicorn's configuration; ``config.app`` is the app of
            :func:`getaway.web.app.create_app` (its ``state.service`` is drained).
        drain_seconds: seconds to go on listening (refusing with 503) after the drain, ≥ 0.

    Raises:
        ValueError: ``drain_seconds`` is negative.
    """

    def __init__(self, config: uvicorn.Config, drain_seconds: float = 0.0) -> None:
        if drain_seconds < 0:
            raise ValueError(f"drain_seconds: expected a number ≥ 0, got {drain_seconds}")
        super().__init__(config)
        self.drain_seconds = drain_seconds
        self.drain_task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._drain_asked = False

    async def serve(self, sockets: Any = None) -> None:
        self._loop = asyncio.get_running_loop()
        await super().serve(sockets)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        """The signal handler: the first SIGTERM/SIGINT of a started server starts the drain;
        any other signal (or one before the start) is uvicorn's."""
        first = not self._drain_asked and not self.should_exit
        if first and self.started and self._loop is not None and sig in (signal.SIGTERM, signal.SIGINT):
            self._drain_asked = True
            self._loop.call_soon_threadsafe(self._start_drain, sig)
            return
        super().handle_exit(sig, frame)

    def _start_drain(self, sig: int) -> None:
        self.drain_task = asyncio.create_task(self._drain(sig))

    async def _drain(self, sig: int) -> None:
        try:
            service = getattr(self.config.app.state, "service", None)
            if service is not None:
                await asyncio.wait_for(service.drain(), DRAIN_TIMEOUT)
            await asyncio.sleep(self.drain_seconds)
        except Exception:  # the shutdown must go on
            log.exception("drain failed")
        finally:
            # uvicorn's shutdown from here on. Not its handle_exit: that records the signal and
            # raises it again once the server has stopped, and a drained process would die of it
            # (exit -15) instead of exiting 0, which a supervisor (systemd, Docker) reads as a failure.
            self.should_exit = True
