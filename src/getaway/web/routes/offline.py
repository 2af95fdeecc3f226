"""Offline play against bots (docs/web.md "Offline"): what the page's Web Worker downloads once
and keeps, ``GET /offline/files.json`` (the list a service worker precaches), and
``GET /offline/getaway-{version}.zip``, the game's pure-Python core and bots that Pyodide runs.

The zip is built from this server's own package files (:func:`package_zip`): one copy of the
rules, never a second one committed. The Pyodide runtime (npm ``pyodide``, MPL-2.0, the files
the page needs and its licence) is vendored in ``static/offline/pyodide/``.
"""

from __future__ import annotations

import functools
import hashlib
import io
import zipfile
from pathlib import Path
from typing import Any, Final

from fastapi import APIRouter
from fastapi.responses import FileResponse, JSONResponse, Response

from ...text.i18n import N_
from ..rooms.errors import RoomError
from .common import REFUSALS

__all__ = [
    "OFFLINE_FILES",
    "PACKAGE_MODULES",
    "WORKER_CSP",
    "files_manifest",
    "package_zip",
    "router",
]

#: The package's root (``src/getaway``).
PACKAGE_DIR: Final = Path(__file__).resolve().parent.parent.parent
#: The page's static files (as :data:`getaway.web.routes.pages.STATIC_DIR`).
STATIC_DIR: Final = PACKAGE_DIR / "web" / "static"

#: What the zip holds, as globs under :data:`PACKAGE_DIR`: the package's public names, the core,
#: the bots and the offline table (:mod:`getaway.web.offline`) with the ``web`` package's
#: ``__init__`` (which imports nothing). Python sources only: the compiled engine is not shipped.
PACKAGE_MODULES: Final = ("__init__.py", "core/*.py", "bots/*.py", "web/__init__.py", "web/offline.py")

#: The static files the offline table needs, under ``static/``: the worker, the page's module,
#: and the Pyodide files (the module loader, the interpreter, the standard library, the lock file
#: Pyodide reads at start). The card drawings and the rest of the page are the app shell's.
OFFLINE_FILES: Final = (
    "offline.js",
    "offline/offline.css",
    "offline/worker.js",
    "offline/pyodide/pyodide.mjs",
    "offline/pyodide/pyodide.asm.mjs",
    "offline/pyodide/pyodide.asm.wasm",
    "offline/pyodide/python_stdlib.zip",
    "offline/pyodide/pyodide-lock.json",
)

#: The worker's own Content-Security-Policy (a dedicated worker obeys its script's, not the
#: page's): WebAssembly may be compiled (``'wasm-unsafe-eval'``, Pyodide's interpreter) and
#: modules imported from ``blob:`` URLs (the cached Pyodide modules: ``import()`` bypasses the
#: Cache API); nothing from elsewhere. The page keeps the strict policy of ``edge.SECURITY_HEADERS``.
WORKER_CSP: Final = "default-src 'none'; script-src 'self' blob: 'wasm-unsafe-eval'; connect-src 'self'"

router = APIRouter()

# a fixed date for every entry: the same sources give the same bytes (and the same version)
_EPOCH: Final = (2026, 1, 1, 0, 0, 0)


@functools.cache
def package_zip() -> tuple[bytes, str]:
    """The zip of :data:`PACKAGE_MODULES` (paths ``getaway/…``, entries sorted, fixed dates)
    and its version, the first 16 hex digits of its SHA-256: ``(bytes, version)``. Built once
    per process from the files this server runs."""
    paths = sorted({p for pattern in PACKAGE_MODULES for p in PACKAGE_DIR.glob(pattern)})
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for path in paths:
            info = zipfile.ZipInfo("getaway/" + path.relative_to(PACKAGE_DIR).as_posix(), _EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, path.read_bytes())
    data = out.getvalue()
    return data, hashlib.sha256(data).hexdigest()[:16]


@functools.cache
def _static_entry(name: str) -> dict[str, Any]:
    data = (STATIC_DIR / name).read_bytes()
    return {"url": f"/static/{name}", "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def files_manifest() -> dict[str, Any]:
    """What the page keeps for offline play: ``{"version", "package", "files": [{"url", "bytes",
    "sha256"}, …]}``; ``package`` is the zip's URL (``/offline/getaway-{version}.zip``, also in
    ``files``), ``version`` changes whenever a listed file does (the cache's name follows it).

    Raises:
        OSError: a file of :data:`OFFLINE_FILES` is missing from ``static/``.
    """
    files = [_static_entry(name) for name in OFFLINE_FILES]
    data, version = package_zip()
    package = f"/offline/getaway-{version}.zip"
    files.append({"url": package, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()})
    whole = hashlib.sha256("".join(f["sha256"] for f in files).encode()).hexdigest()[:16]
    return {"version": whole, "package": package, "files": files}


@router.get("/offline/files.json", response_model=dict[str, Any])
async def offline_files() -> Any:
    """The files of offline play (:func:`files_manifest`), to precache (``no-cache``: revalidated)."""
    return JSONResponse(files_manifest(), headers={"Cache-Control": "no-cache"})


@router.get("/static/offline/worker.js", include_in_schema=False)
async def offline_worker() -> Response:
    """``static/offline/worker.js`` with :data:`WORKER_CSP` (``no-cache``: revalidated when online)."""
    headers = {"Content-Security-Policy": WORKER_CSP, "Cache-Control": "no-cache"}
    return FileResponse(STATIC_DIR / "offline" / "worker.js", media_type="text/javascript", headers=headers)


@router.get("/offline/getaway-{version}.zip", responses=REFUSALS, response_class=Response)
async def offline_package(version: str) -> Response:
    """The game's pure-Python package for the page's Pyodide (:func:`package_zip`); immutable
    under its version. Another version: 404 ``not_found`` (the page fetches files.json again)."""
    data, current = package_zip()
    if version != current:
        raise RoomError(
            "not_found", N_("no such page or method: {path}"), 404, path=f"/offline/getaway-{version[:20]}.zip"
        )
    headers = {"Cache-Control": "public, max-age=31536000, immutable"}
    return Response(data, media_type="application/zip", headers=headers)
