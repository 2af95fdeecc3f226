"""The page: ``/``, ``/replay``, ``/learn`` and ``/r/{code}`` all answer ``static/index.html``
(GET and HEAD), out of the OpenAPI document; :func:`mount_static` serves ``/static``; any other
path outside ``/api/`` gets :func:`not_found_page` (404, in the player's language)."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Final

from fastapi import APIRouter, FastAPI
from fastapi.responses import FileResponse, JSONResponse, Response
from starlette.staticfiles import StaticFiles

from ...text import i18n
from ...text.i18n import N_

__all__ = ["STATIC_DIR", "mount_static", "not_found_page", "router"]

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


def _text(value: str) -> str:
    return html.escape(value, quote=False)  # element text: <, > and & only


def not_found_page(path: str, lang: str) -> Response:
    """The 404 of a path that is no page (outside ``/api/``, whose refusals stay JSON): a small
    HTML page in ``lang`` (the client's: ``?lang``, else ``Accept-Language``) that says so and
    links back to the home page. No script, the page's style sheet only (its CSP holds)."""
    with i18n.language(lang):
        title = i18n._(N_("Page not found"))
        text = i18n._(N_("There is no page at {path}.")).format(path=path[:80])
        home = i18n._(N_("Back to the home page"))
    body = (
        f'<!doctype html>\n<html lang="{lang}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_text(title)} · Getaway</title>"
        '<link rel="stylesheet" href="/static/style.css"></head>'
        f'<body data-status="not_found"><main class="card-panel"><h1>{_text(title)}</h1>'
        f'<p data-testid="not-found">{_text(text)}</p>'
        f'<p><a href="/" data-testid="home-link">{_text(home)}</a></p></main></body></html>\n'
    )
    return Response(body, status_code=404, media_type="text/html; charset=utf-8", headers={"Cache-Control": "no-cache"})
