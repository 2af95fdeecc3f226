"""The socket protocol's message tables of docs/web.md, made from the published JSON Schema
(:func:`getaway.web.protocol.socket_schema`, ``GET /api/socket-schema.json``): one table per
direction (each message's ``type``, its fields, and its model's description) and one of the
objects they hold. tests/test_web_frames.py checks that docs/web.md holds exactly these tables,
so a message or a field is documented where it is declared, once.

``python -m getaway.web.socketdoc docs/web.md`` rewrites the tables in the file (between
:data:`BEGIN` and :data:`END`); without a file it prints them.

Owns: the tables' text. May import: :mod:`getaway.web.protocol` (and the standard library).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any, Final

from .protocol import socket_schema

__all__ = ["BEGIN", "END", "tables", "block_of", "rewrite"]

#: The line before the tables in docs/web.md.
BEGIN: Final = "<!-- socket messages: made by `python -m getaway.web.socketdoc docs/web.md` from the socket schema -->"
#: The line after them.
END: Final = "<!-- end of the socket messages -->"

_SIDES: Final = (
    ("client", "Client → server"),
    ("server", "Server → client"),
)


def _ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[1]


def _prose(text: str) -> str:
    """A docstring as one Markdown line: reST roles and ````literals```` as code, pipes escaped."""
    text = " ".join(text.split())
    text = re.sub(r":\w+:`~?(?:[\w.]+\.)?([\w]+)`", r"`\1`", text)  # :class:`~a.b.Room` → `Room`
    text = text.replace("``", "`")
    return text.replace("|", "\\|")


def _type(spec: dict[str, Any]) -> str:
    """A JSON Schema type, short: ``string``, ``integer 0–9007199254740991``, ``[Illegal]``,
    ``RoomState``, ``"en" \\| "fr"``, ``… or null``."""
    if "$ref" in spec:
        return _ref_name(spec["$ref"])
    if "anyOf" in spec:
        kinds = [k for k in spec["anyOf"] if k.get("type") != "null"]
        shown = " or ".join(_type(k) for k in kinds)
        return f"{shown} or null" if len(kinds) < len(spec["anyOf"]) else shown
    if "const" in spec:
        return f'"{spec["const"]}"'
    if "enum" in spec:
        return " \\| ".join(f'"{v}"' for v in spec["enum"])
    kind = spec.get("type", "any")
    if kind == "array":
        return f"[{_type(spec.get('items', {}))}]"
    if kind == "integer" and ("minimum" in spec or "maximum" in spec):
        return f"integer {spec.get('minimum', '…')}–{spec.get('maximum', '…')}"
    if kind == "string" and "maxLength" in spec:
        return f"string (≤ {spec['maxLength']})"
    return str(kind)


def _fields(model: dict[str, Any]) -> str:
    required = set(model.get("required", ()))
    cells = [
        f"`{name}`{'' if name in required else '?'}: {_type(spec)}"
        for name, spec in model.get("properties", {}).items()
        if name != "type"
    ]
    return "<br>".join(cells) or "—"


def tables(schema: dict[str, Any] | None = None) -> str:
    """The Markdown tables of ``schema`` (default: :func:`~getaway.web.protocol.socket_schema`):
    for each direction a row per message model (its ``type`` tags, its fields with their JSON
    types, ``?`` for one that may be left out, its description), then the objects they hold.

    Raises:
        KeyError: ``schema`` is not of the shape ``socket_schema()`` gives.
    """
    schema = schema or socket_schema()
    out: list[str] = [BEGIN, ""]
    nested: dict[str, dict[str, Any]] = {}
    for side, title in _SIDES:
        union = schema[side]
        defs = union["$defs"]
        tags: dict[str, list[str]] = {}  # model → its tags, in the order of its ``type``'s values
        for tag, ref in union["discriminator"]["mapping"].items():
            tags.setdefault(_ref_name(ref), []).append(tag)
        for name, its_tags in tags.items():
            kind = defs[name]["properties"]["type"]
            order = kind.get("enum") or [kind.get("const")]
            its_tags.sort(key=lambda t, order=order: order.index(t) if t in order else len(order))
        out += [f"**{title}** (`{side}` in the schema)", "", "| `type` | fields | what it is |", "|---|---|---|"]
        for name, its_tags in tags.items():
            model = defs[name]
            shown = ", ".join(f"`{t}`" for t in its_tags)
            out.append(f"| {shown} | {_fields(model)} | {_prose(model.get('description', ''))} |")
        out.append("")
        nested.update({name: model for name, model in defs.items() if name not in tags})
    if nested:
        out += ["**Objects in them**", "", "| object | fields | what it is |", "|---|---|---|"]
        for name, model in sorted(nested.items()):
            out.append(f"| `{name}` | {_fields(model)} | {_prose(model.get('description', ''))} |")
        out.append("")
    out.append(END)
    return "\n".join(out)


def block_of(text: str) -> str | None:
    """The tables' block of a document (from :data:`BEGIN` to :data:`END`, both lines in), or ``None``."""
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        return None
    return text[start : end + len(END)]


def rewrite(path: Path) -> bool:
    """Put :func:`tables` in the file at ``path`` in place of its block; whether it changed.

    Raises:
        ValueError: the file has no block (:data:`BEGIN` … :data:`END`).
    """
    text = path.read_text(encoding="utf-8")
    old = block_of(text)
    if old is None:
        raise ValueError(f"{path}: no {BEGIN!r} … {END!r} block")
    new = text.replace(old, tables())
    if new != text:
        path.write_text(new, encoding="utf-8")
    return new != text


if __name__ == "__main__":
    if len(sys.argv) > 1:
        for name in sys.argv[1:]:
            print(f"{name}: {'rewritten' if rewrite(Path(name)) else 'up to date'}")
    else:
        print(tables())
