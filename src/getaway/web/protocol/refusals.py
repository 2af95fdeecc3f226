"""The :class:`~getaway.web.rooms.errors.RoomError` for a message or body that did not validate:
its first problem, naming the field.

Imports :mod:`.base` and :mod:`.socket` (the client tags).
"""

from __future__ import annotations

from typing import Any

from pydantic import (
    ValidationError,
)

from ...text.i18n import N_
from ..rooms.errors import RoomError
from .base import printable
from .socket import CLIENT_TAGS

__all__ = [
    "refusal",
]

def _field(loc: tuple[Any, ...], whole: str = "?") -> str:
    return printable(".".join(str(p) for p in loc) or whole)


def refusal(error: ValidationError | list[Any], *, body: bool = False, field: str = "") -> RoomError:
    """The :class:`RoomError` for a message or body that did not validate: its first problem,
    naming the field (``players``, ``options.ante``, ``action``).

    Args:
        error: pydantic's error, or the list of its ``errors()`` (FastAPI's ``RequestValidationError``).
        body: an HTTP body (its locations start with ``body``, and its "not JSON" text says request).
        field: the name of the value that was parsed (``options`` of a query), before its inner fields.
    """
    errors = error.errors() if isinstance(error, ValidationError) else list(error)
    if not errors:
        return RoomError("bad_message", N_("expected a JSON object"))
    first = errors[0]
    kind = first.get("type", "")
    loc = tuple(first.get("loc", ()))
    if body and loc[:1] and loc[0] in ("body", "path", "query", "header"):
        loc = loc[1:]
    if field:
        loc = (field, *loc)
    ctx = first.get("ctx") or {}
    if kind == "json_invalid":
        if body:
            return RoomError("bad_json", N_("the request is not valid JSON"))
        return RoomError("bad_json", N_("the message is not valid JSON"))
    if kind == "union_tag_invalid":
        given = first.get("input")
        if isinstance(given, dict) and isinstance(given.get("type"), str):
            return RoomError("unknown_type", N_("unknown message type"))
        return RoomError("bad_message", N_("expected a JSON object with a type"))
    if kind in ("union_tag_not_found", "model_attributes_type", "dict_type", "model_type") and len(loc) <= 1:
        if body:
            return RoomError("bad_message", N_("expected a JSON object"))
        return RoomError("bad_message", N_("expected a JSON object with a type"))
    if not body and loc and loc[0] in CLIENT_TAGS:
        loc = loc[1:]  # the socket union's tag (an HTTP body has no union: a field may be called "lang")
    whole = "body" if body else "message"
    if "template" in ctx:  # our own checks (names, text): their code and message
        args = {k: (printable(v) if isinstance(v, str) else v) for k, v in ctx.items() if k != "template"}
        return RoomError(kind, ctx["template"], fields=_field(loc, whole), **args)
    if kind == "string_unicode":  # a lone surrogate where pydantic cannot even read it (a key)
        return RoomError(
            "bad_message", N_("{fields}: text that is not UTF-8 (a lone surrogate)"), fields=_field(loc, whole)
        )
    if kind == "missing":
        return RoomError("bad_message", N_("missing field: {fields}"), fields=_field(loc, whole))
    if kind == "extra_forbidden":
        return RoomError("bad_message", N_("unknown field: {fields}"), fields=_field(loc, whole))
    fields = _field(loc, whole)
    if kind in ("greater_than_equal", "less_than_equal") and isinstance(first.get("input"), int):
        limit = ctx.get("ge", ctx.get("le"))
        if kind == "greater_than_equal":
            return RoomError("bad_message", N_("{fields}: at least {limit}"), fields=fields, limit=limit)
        return RoomError("bad_message", N_("{fields}: at most {limit}"), fields=fields, limit=limit)
    if kind == "literal_error" and "expected" in ctx:
        # pydantic writes the choices in English ("'en', 'fr' or 'es'"): list them with commas only
        known = ", ".join(str(ctx["expected"]).rsplit(" or ", 1))
        return RoomError("bad_message", N_("{fields}: expected {known}"), fields=fields, known=printable(known))
    return RoomError("bad_message", N_("bad value for: {fields}"), fields=fields)
