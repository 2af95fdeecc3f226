"""The page: ``/``, ``/replay``, ``/learn`` and ``/r/{code}`` all answer ``static/index.html``
(GET and HEAD), out of the OpenAPI document; :func:`mount_static` serves ``/static``."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from fastapi import APIRouter, FastAPI
from fastapi.responses import FileResponse, JSONResponse, Response
from starlette.staticfiles import StaticFiles

__all__ = ["STATIC_DIR", "mount_static", "router"]

STATIC_DIR: Final = Path(__file__).resolve().parent.parent / "static"

router = APIRouter()


def index() -> Response:
    """The page (``no-cache``), or 404 ``not_found`` when it is not built."""
    page = STATIC_DIR / "index.html"
    if not page.is_file():
        return JSONResponse({"error": {"code": "not_found", "message": "the page is not built"}}, status_code=404)
    return FileResponse(page, headers={"Cache-Control": "no-cache"})


@router.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
async def home() -> Response:
    return index()


@router.api_route("/replay", methods=["GET", "HEAD"], include_in_schema=False)
async def replay_page() -> Response:
    return index()


@router.api_route("/learn", methods=["GET", "HEAD"], include_in_schema=False)
async def learn_page() -> Response:
    return index()


@router.api_route("/r/{code}", methods=["GET", "HEAD"], include_in_schema=False)
async def room_page(code: str) -> Response:
    return index()


def mount_static(app: FastAPI) -> None:
    """Serve :data:`STATIC_DIR` at ``/static`` (a router cannot mount)."""
    app.mount("/static", StaticFiles(directory=STATIC_DIR, check_dir=False), name="static")
