"""The page: ``/``, ``/replay``, ``/learn`` and ``/r/{code}`` all answer ``static/index.html``
(GET and HEAD), out of the OpenAPI document; :func:`mount_static` serves ``/static``; ``/sw.js``
is the service worker (:func:`service_worker`); any other path outside ``/api/`` gets
:func:`not_found_page` (404, in the player's language)."""

from __future__ import annotations

import base64
import functools
import hashlib
import html
import json
from pathlib import Path
from typing import Final

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import JSONResponse, Response
from starlette.staticfiles import StaticFiles

from ...text import i18n
from ...text.i18n import N_

__all__ = [
    "RTL_LANGUAGES",
    "STATIC_DIR",
    "mount_static",
    "not_found_page",
    "page_html",
    "router",
    "service_worker",
    "shell_files",
]

STATIC_DIR: Final = Path(__file__).resolve().parent.parent / "static"

router = APIRouter()


#: The languages written right to left: their page is ``<html dir="rtl">`` (docs/web.md "Right to left").
RTL_LANGUAGES: Final = frozenset({"ur"})
#: The page's root element as ``static/index.html`` has it (English, left to right).
_HTML_TAG: Final = b'<html lang="en">'


def page_html(lang: str) -> bytes | None:
    """``static/index.html`` with its root element in ``lang``: ``<html lang="ur" dir="rtl">``
    for a right-to-left language (:data:`RTL_LANGUAGES`), ``<html lang="fr" dir="ltr">`` for the
    others; English (or a language with no catalog) is the file's bytes unchanged. ``None`` when
    the page is not built. The page's script sets the same two attributes when the player
    switches language (static/i18n.js ``loadLang``)."""
    page = STATIC_DIR / "index.html"
    if not page.is_file():
        return None
    data = page.read_bytes()
    if lang == "en" or lang not in i18n.LANGUAGES:
        return data
    direction = "rtl" if lang in RTL_LANGUAGES else "ltr"
    return data.replace(_HTML_TAG, f'<html lang="{lang}" dir="{direction}">'.encode(), 1)


def index(request: Request) -> Response:
    """The page (``no-cache``) in the language of the request's ``?lang=`` (one with a catalog),
    else the server's (``getaway serve --lang``): :func:`page_html`. 404 ``not_found`` when it
    is not built. Without a query ``/`` is the app shell's copy (:func:`shell_files` hashes the
    same bytes)."""
    asked = request.query_params.get("lang", "")
    lang = asked if asked in i18n.LANGUAGES else _default_lang(request)
    data = page_html(lang)
    if data is None:
        return JSONResponse({"error": {"code": "not_found", "message": "the page is not built"}}, status_code=404)
    return Response(data, media_type="text/html; charset=utf-8", headers={"Cache-Control": "no-cache"})


def _default_lang(request: Request) -> str:
    settings = getattr(request.app.state, "settings", None)
    return str(getattr(settings, "default_lang", None) or "en")


@router.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
async def home(request: Request) -> Response:
    return index(request)


@router.api_route("/replay", methods=["GET", "HEAD"], include_in_schema=False)
async def replay_page(request: Request) -> Response:
    return index(request)


@router.api_route("/learn", methods=["GET", "HEAD"], include_in_schema=False)
async def learn_page(request: Request) -> Response:
    return index(request)


@router.api_route("/r/{code}", methods=["GET", "HEAD"], include_in_schema=False)
async def room_page(request: Request, code: str) -> Response:
    return index(request)


#: Static files that are no part of the app shell: the worker itself and the licences and notes.
_NOT_SHELL: Final = (".md", ".txt", "LICENSE", "AUTHORS", "sw.js")
#: Folders of static/ that are not the shell: Pyodide (13 MB), which only offline play needs and
#: which its own worker keeps, checked against /offline/files.json (routes/offline.py,
#: docs/web.md "Offline against bots"): the shell's worker neither precaches nor digests it.
_NOT_SHELL_DIRS: Final = ("offline/pyodide/",)
#: The shell files fetched when the page first asks for them, not at install: the script faces
#: (a page in one language needs one or two of them; docs/web.md "Fonts, install, offline"), but
#: not their ``-names`` cuts (a few kB: the language select of every page draws them).
_ON_USE: Final = (
    "fonts/noto-sans-devanagari-",
    "fonts/noto-sans-bengali-",
    "fonts/noto-sans-gurmukhi-",
    "fonts/noto-nastaliq-urdu-",
)


@functools.cache
def shell_files(lang: str = "en") -> tuple[dict[str, str], list[str], str]:
    """The app shell of this build (read once per process and ``lang``: the static files change
    with a deploy, which restarts it). ``lang``: the server's language (``getaway serve --lang``),
    the one ``/`` is served in (:func:`page_html`).

    Returns:
        ``(files, precache, build)``: ``files`` maps each shell URL (``"/"`` for
        ``index.html``, ``"/static/…"`` for the rest) to the base64 SHA-256 of its bytes;
        ``precache`` lists the URLs the worker fetches when it installs (all but the script
        faces, :data:`_ON_USE`); ``build`` is 16 hex digits of a hash of them all and of the
        worker's own code.
    """
    files: dict[str, str] = {}
    for path in sorted(STATIC_DIR.rglob("*")):
        rel = path.relative_to(STATIC_DIR).as_posix()
        if not path.is_file() or rel.endswith(_NOT_SHELL) or rel.startswith(_NOT_SHELL_DIRS):
            continue
        url = "/" if rel == "index.html" else f"/static/{rel}"
        data = (page_html(lang) or b"") if url == "/" else path.read_bytes()
        files[url] = base64.b64encode(hashlib.sha256(data).digest()).decode()
    precache = [u for u in files if not u.removeprefix("/static/").startswith(_ON_USE) or u.endswith("-names.woff2")]
    worker = (STATIC_DIR / "sw.js").read_bytes() if (STATIC_DIR / "sw.js").is_file() else b""
    build = hashlib.sha256(json.dumps(files, sort_keys=True).encode() + worker).hexdigest()[:16]
    return files, precache, build


@router.get("/sw.js", include_in_schema=False)
async def service_worker(request: Request) -> Response:
    """The service worker (``static/sw.js`` with this build's :func:`shell_files` filled in), at
    the root so that its scope is the whole app; ``no-cache``: the browser checks it for a new
    build on every visit. 404 ``not_found`` when the page is not built."""
    template = STATIC_DIR / "sw.js"
    if not template.is_file():
        return JSONResponse({"error": {"code": "not_found", "message": "the page is not built"}}, status_code=404)
    files, precache, build = shell_files(_default_lang(request))
    code = (
        template.read_text(encoding="utf-8")
        .replace('"__BUILD__"', json.dumps(build))
        .replace("__FILES__", json.dumps(files, sort_keys=True))
        .replace("__PRECACHE__", json.dumps(precache))
    )
    return Response(code, media_type="text/javascript; charset=utf-8", headers={"Cache-Control": "no-cache"})


def mount_static(app: FastAPI) -> None:
    """Serve :data:`STATIC_DIR` at ``/static`` (a router cannot mount)."""
    app.mount("/static", StaticFiles(directory=STATIC_DIR, check_dir=False), name="static")


def _text(value: str) -> str:
    return html.escape(value, quote=False)  # element text: <, > and & only


def not_found_page(path: str, lang: str) -> Response:
    """The 404 of a path that is no page (outside ``/api/``, whose refusals stay JSON): a small
    HTML page in ``lang`` (the client's: ``?lang``, else ``Accept-Language``) that says so and
    links back to the home page. No script, the page's style sheets only (its CSP holds): its
    fonts too, so that the text renders in every language."""
    with i18n.language(lang):
        title = i18n._(N_("Page not found"))
        text = i18n._(N_("There is no page at {path}.")).format(path=path[:80])
        home = i18n._(N_("Back to the home page"))
    direction = "rtl" if lang in RTL_LANGUAGES else "ltr"
    body = (
        f'<!doctype html>\n<html lang="{lang}" dir="{direction}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_text(title)} · Getaway</title>"
        '<link rel="stylesheet" href="/static/style.css"><link rel="stylesheet" href="/static/fonts.css"></head>'
        f'<body data-status="not_found"><main class="card-panel"><h1>{_text(title)}</h1>'
        f'<p data-testid="not-found">{_text(text)}</p>'
        f'<p><a href="/" data-testid="home-link">{_text(home)}</a></p></main></body></html>\n'
    )
    return Response(body, status_code=404, media_type="text/html; charset=utf-8", headers={"Cache-Control": "no-cache"})
