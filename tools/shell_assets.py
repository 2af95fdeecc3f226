"""Remake the page's shipped fonts and app icons (docs/web.md "Fonts, install, offline").

    python tools/shell_assets.py fonts   # needs npm and fontTools with brotli: pip install 'fonttools[woff]'
    python tools/shell_assets.py icons   # needs playwright and Debian's chromium (the tests' browser)

``fonts`` fetches the @fontsource packages below with ``npm pack`` (into a temporary folder:
nothing of npm stays in the checkout), copies the woff2 subsets the page uses into
``src/getaway/web/static/fonts/``, cuts the big ones down with fontTools' ``pyftsubset``
(Noto Nastaliq Urdu to the Urdu block; Noto Sans Symbols 2 and Noto Sans Math to the few
symbols the page draws: the suits, ▶ ◀ ★ ✓ ✕ …, → ≤ ≥), copies each package's licence (SIL
Open Font License 1.1) beside them, and writes ``static/fonts.css`` (one ``@font-face`` per
file with its ``unicode-range``, so a page downloads only the faces its text needs, and the
font stack per language). ``icons`` draws ``static/icons/icon.svg`` into the manifest's PNG
icons (192 and 512 px, and a 512 px maskable one on a full-bleed background).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

STATIC = Path(__file__).resolve().parent.parent / "src" / "getaway" / "web" / "static"
FONTS = STATIC / "fonts"
VERSION = "5.3.0"  # the @fontsource packages' version

#: (package, family, subset of the package, weights, pyftsubset unicodes or None: the file as it is)
FACES: tuple[tuple[str, str, str, tuple[int, ...], str | None], ...] = (
    ("noto-sans", "Noto Sans", "latin", (400, 700), None),
    ("noto-sans-devanagari", "Noto Sans Devanagari", "devanagari", (400, 700), None),
    ("noto-sans-bengali", "Noto Sans Bengali", "bengali", (400, 700), None),
    ("noto-sans-gurmukhi", "Noto Sans Gurmukhi", "gurmukhi", (400, 700), None),
    # 159 kB as packaged (every Arabic-script language): the Urdu block is 119 kB
    ("noto-nastaliq-urdu", "Noto Nastaliq Urdu", "arabic", (400,), "U+0600-06FF,U+200C-200F,U+FDF2,U+FDFA,U+FDFD"),
    # 382 kB as packaged: the page draws a dozen of its symbols
    (
        "noto-sans-symbols-2",
        "Noto Sans Symbols 2",
        "symbols",
        (400,),
        "U+25B2,U+25B6,U+25BC,U+25C0,U+2605,U+2660-2667,U+2713,U+2715,U+1F0CF",
    ),
    ("noto-sans-math", "Noto Sans Math", "latin", (400,), "U+2190-2193,U+2264-2265"),
)

#: The script face each language's texts are in (the page's language list: static/i18n.js);
#: a language not listed is in Latin letters (Noto Sans).
SCRIPT_OF: dict[str, str] = {
    "hi": "Noto Sans Devanagari",
    "bn": "Noto Sans Bengali",
    "pa": "Noto Sans Gurmukhi",
    "ur": "Noto Nastaliq Urdu",
}


#: The languages' own names in the header's select (static/i18n.js LANGUAGES), which every page
#: shows: they are drawn from a face cut down to their letters ("Getaway Language Names", a few
#: kB each), so that a page in English does not download four script faces for four words.
NAMES_OF: dict[str, str] = {"hi": "हिन्दी हिंदी", "bn": "বাংলা", "pa": "ਪੰਜਾਬੀ", "ur": "اردو"}


def _pack(package: str, into: Path) -> Path:
    subprocess.run(["npm", "pack", f"@fontsource/{package}@{VERSION}"], cwd=into, check=True, capture_output=True)
    folder = into / package
    with tarfile.open(next(into.glob(f"fontsource-{package}-*.tgz"))) as tar:
        tar.extractall(folder, filter="data")
    return folder / "package"


def _ranges(unicodes: str) -> str:
    return ", ".join(part.strip() for part in unicodes.split(","))


def fonts() -> None:
    """Fetch, subset and copy the fonts; write static/fonts.css."""
    FONTS.mkdir(exist_ok=True)
    faces_css: list[str] = []
    names_css: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        for package, family, subset, weights, cut in FACES:
            root = _pack(package, Path(tmp))
            shutil.copyfile(root / "LICENSE", FONTS / f"{package}.LICENSE.txt")
            unicodes = cut or json.loads((root / "unicode.json").read_text())[subset]
            for weight in weights:
                source = root / "files" / f"{package}-{subset}-{weight}-normal.woff2"
                target = FONTS / f"{package}-{weight}.woff2"
                if cut is None:
                    shutil.copyfile(source, target)
                else:
                    subprocess.run(
                        [sys.executable, "-m", "fontTools.subset", str(source), f"--unicodes={cut}",
                         "--layout-features=*", "--flavor=woff2", f"--output-file={target}"],
                        check=True,
                    )  # fmt: skip
                faces_css.append(
                    f"@font-face {{ font-family: '{family}'; font-style: normal; font-weight: {weight}; "
                    f"font-display: swap;\n  src: url(/static/fonts/{target.name}) format('woff2');\n"
                    f"  unicode-range: {_ranges(unicodes)}; }}"
                )
            face_of = {face: lang for lang, face in SCRIPT_OF.items()}
            if family in face_of:  # the language's own name, from the 400 file
                text = "".join(sorted(set(NAMES_OF[face_of[family]].replace(" ", ""))))
                target = FONTS / f"{package}-names.woff2"
                source = root / "files" / f"{package}-{subset}-400-normal.woff2"
                subprocess.run(
                    [sys.executable, "-m", "fontTools.subset", str(source),
                     f"--text={text}", "--layout-features=*", "--flavor=woff2", f"--output-file={target}"],
                    check=True,
                )  # fmt: skip
                names_css.append(
                    f"@font-face {{ font-family: 'Getaway Language Names'; font-style: normal; font-weight: 400; "
                    f"font-display: swap;\n  src: url(/static/fonts/{target.name}) format('woff2');\n"
                    f"  unicode-range: {', '.join(f'U+{ord(c):04X}' for c in text)}; }}"
                )
    tail = ["'Noto Sans Symbols 2'", "'Noto Sans Math'", "system-ui", "sans-serif"]
    scripts = list(SCRIPT_OF.values())
    stack = ", ".join(["'Noto Sans'", *(f"'{s}'" for s in scripts), *tail])
    per_lang = [
        f":root:lang({lang}) {{ --font: 'Noto Sans', '{face}', "
        + ", ".join([*(f"'{s}'" for s in scripts if s != face), *tail])
        + "; }"
        for lang, face in SCRIPT_OF.items()
    ]
    css = (
        "/* The page's fonts (made by tools/shell_assets.py fonts: do not edit by hand). Noto faces from\n"
        " * the @fontsource packages (SIL Open Font License 1.1: fonts/*.LICENSE.txt); each face's\n"
        " * unicode-range makes a page download only the faces its text uses (docs/web.md). */\n"
        + "\n".join(faces_css)
        + f"\n:root {{ --font: {stack}; }}\n"
        + "\n".join(per_lang)
        + "\n:root, button, input, select, textarea { font-family: var(--font); }\n"
        + "\n".join(names_css)
        + "\n#lang, #lang option { font-family: 'Noto Sans', 'Getaway Language Names', system-ui, sans-serif; }\n"
    )
    (STATIC / "fonts.css").write_text(css, encoding="utf-8")


def icons() -> None:
    """Draw static/icons/icon.svg into the manifest's PNG icons with the tests' Chromium."""
    from playwright.sync_api import sync_playwright

    svg = (STATIC / "icons" / "icon.svg").read_text(encoding="utf-8")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        for name, size, pad, background in (
            ("icon-192.png", 192, 0, "transparent"),
            ("icon-512.png", 512, 0, "transparent"),
            ("icon-maskable-512.png", 512, 0.1, "#0b6e4f"),  # the safe zone: a circle of 80 %
        ):
            page = browser.new_page(viewport={"width": size, "height": size})
            inner = round(size * (1 - 2 * pad))
            page.set_content(
                f"<body style='margin:0;background:{background};display:grid;place-items:center;"
                f"width:{size}px;height:{size}px'><div style='width:{inner}px;height:{inner}px'>{svg}</div></body>"
            )
            page.screenshot(path=str(STATIC / "icons" / name), omit_background=background == "transparent")
            page.close()
        browser.close()


if __name__ == "__main__":
    {"fonts": fonts, "icons": icons}[sys.argv[1] if len(sys.argv) > 1 else "fonts"]()
