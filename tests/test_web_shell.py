"""The page's shell as the server serves it (issue 25, items 3 and 5; docs/web.md "Fonts,
install, offline"): the shipped fonts and their licences, the web app manifest and its icons,
the service worker's build and shell list, and the Content-Security-Policy that lets them load.
The browser's side is tests/test_web_shell_browser.py."""

from __future__ import annotations

import json
import re
import shutil
import struct

from getaway.web.routes import pages
from web_helpers import make_client

STATIC = pages.STATIC_DIR
FONTS_CSS = (STATIC / "fonts.css").read_text(encoding="utf-8")
FACES = re.findall(
    r"@font-face \{ font-family: '([^']+)';.*?url\(/static/fonts/([^)]+)\).*?unicode-range: ([^;]+);", FONTS_CSS, re.S
)


def _in_range(char: str, ranges: str) -> bool:
    for part in ranges.split(","):
        low, _, high = part.strip().removeprefix("U+").partition("-")
        if int(low, 16) <= ord(char) <= int(high or low, 16):
            return True
    return False


def test_every_face_is_a_shipped_file_with_its_licence_and_a_unicode_range():
    assert {family for family, _, _ in FACES} == {
        "Noto Sans", "Noto Sans Devanagari", "Noto Sans Bengali", "Noto Sans Gurmukhi",
        "Noto Nastaliq Urdu", "Noto Sans Symbols 2", "Noto Sans Math", "Getaway Language Names",
    }  # fmt: skip
    total = 0
    for _, file, ranges in FACES:
        data = (STATIC / "fonts" / file).read_bytes()
        assert data[:4] == b"wOF2", file
        total += len(data)
        package = file.rsplit("-", 1)[0]
        assert "SIL Open Font License" in (STATIC / "fonts" / f"{package}.LICENSE.txt").read_text(encoding="utf-8")
        assert ranges.strip()
    assert total < 400_000  # 379 kB in all; a page downloads only the faces its text uses
    suits = [r for family, _, r in FACES if family == "Noto Sans Symbols 2"]
    assert suits and all(_in_range(s, suits[0]) for s in "♠♥♦♣")
    latin = next(r for family, _, r in FACES if family == "Noto Sans")
    assert not any(_in_range(s, latin) for s in "♠♥♦♣")  # Noto Sans has no suits: Symbols 2 draws them


def test_each_language_puts_its_own_script_first():
    stacks = dict(re.findall(r":root:lang\((\w+)\) \{ --font: 'Noto Sans', '([^']+)'", FONTS_CSS))
    assert stacks == {
        "hi": "Noto Sans Devanagari",
        "bn": "Noto Sans Bengali",
        "pa": "Noto Sans Gurmukhi",
        "ur": "Noto Nastaliq Urdu",
    }
    assert "font-family: var(--font)" in FONTS_CSS
    # the language select of every page: the languages' own names from a few kB, not four script faces
    assert "#lang, #lang option { font-family: 'Noto Sans', 'Getaway Language Names', system-ui" in FONTS_CSS


def _png_size(path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    return struct.unpack(">II", data[16:24])


def test_the_manifest_is_served_as_one_with_the_icons_chromium_asks_for():
    with make_client() as client:
        r = client.get("/static/manifest.webmanifest")
        assert r.status_code == 200 and r.headers["content-type"].startswith("application/manifest+json")
        manifest = r.json()
        page = client.get("/").text
        missing = client.get("/no-such-page?lang=fr")
    assert missing.status_code == 404 and '<link rel="stylesheet" href="/static/fonts.css">' in missing.text
    assert '<link rel="manifest" href="/static/manifest.webmanifest">' in page
    assert manifest["display"] == "standalone" and manifest["start_url"] == "/" and manifest["scope"] == "/"
    assert manifest["name"] and manifest["short_name"] and manifest["theme_color"] and manifest["background_color"]
    sizes = {}
    for icon in manifest["icons"]:
        if icon["type"] == "image/png":
            width, height = _png_size(STATIC / icon["src"].removeprefix("/static/"))
            assert icon["sizes"] == f"{width}x{height}"
            sizes.setdefault(icon["purpose"], set()).add(width)
    assert sizes == {"any": {192, 512}, "maskable": {512}}


def test_the_worker_lists_the_shell_with_its_hashes_and_never_the_api():
    with make_client() as client:
        r = client.get("/sw.js")
        csp = client.get("/").headers["content-security-policy"]
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/javascript")
    assert r.headers["cache-control"] == "no-cache"
    files, precache, build = pages.shell_files()
    assert f'const BUILD = "{build}";' in r.text and json.dumps(files, sort_keys=True) in r.text
    assert "__FILES__" not in r.text and "__PRECACHE__" not in r.text
    modules = {f"/static/{p.name}" for p in STATIC.glob("*.js") if p.name != "sw.js"}
    assert modules | {"/", "/static/style.css", "/static/fonts.css", "/static/cards/svg-cards.svg"} <= set(precache)
    assert not [url for url in files if "/api/" in url or url.endswith(("sw.js", ".md", ".txt"))]
    assert (
        "/static/fonts/noto-sans-devanagari-400.woff2" in files
        and "/static/fonts/noto-sans-devanagari-400.woff2" not in precache
        and "/static/fonts/noto-sans-devanagari-names.woff2" in precache
    )
    # Pyodide (13 MB) is offline play's, kept by its own worker (routes/offline.py): not the shell's
    assert (STATIC / "offline" / "pyodide" / "pyodide.asm.wasm").is_file()
    assert not [url for url in files if url.startswith("/static/offline/pyodide/")]
    assert sum((STATIC / url.removeprefix("/static/")).stat().st_size for url in precache if url != "/") < 2_000_000
    for directive in ("font-src 'self'", "manifest-src 'self'", "worker-src 'self'"):
        assert directive in csp


def test_a_changed_static_file_is_a_new_build(tmp_path, monkeypatch):
    copy = tmp_path / "static"
    shutil.copytree(STATIC, copy)
    monkeypatch.setattr(pages, "STATIC_DIR", copy)
    before = pages.shell_files.__wrapped__()
    (copy / "style.css").write_text(
        (copy / "style.css").read_text(encoding="utf-8") + "\n/* a new build */\n", encoding="utf-8"
    )
    after = pages.shell_files.__wrapped__()
    assert after[2] != before[2] and after[0]["/static/style.css"] != before[0]["/static/style.css"]
    assert {k: v for k, v in after[0].items() if k != "/static/style.css"} == {
        k: v for k, v in before[0].items() if k != "/static/style.css"
    }


def test_every_static_file_is_in_the_package():
    import fnmatch
    import tomllib

    root = STATIC.parent.parent  # src/getaway
    pyproject = root.parent.parent / "pyproject.toml"
    globs = tomllib.loads(pyproject.read_text(encoding="utf-8"))["tool"]["setuptools"]["package-data"]["getaway"]
    for path in STATIC.rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts:
            rel = path.relative_to(root).as_posix()
            # setuptools' globs do not cross "/": web/static/* is the folder's own files only
            assert any(fnmatch.fnmatch(rel, g) and rel.count("/") == g.count("/") for g in globs), rel
