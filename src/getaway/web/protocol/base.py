"""The protocol's shared value types: texts a JSON string can carry, names, languages, levels,
versions, tokens; the strict base model of every message that comes in; the length limits.

Imports no sibling module.
"""

from __future__ import annotations

from typing import Annotated, Final, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
)
from pydantic_core import PydanticCustomError

from ...bots import LEVELS
from ...text import i18n
from ...text.i18n import N_
from ..rooms.checks import check_name
from ..rooms.errors import RoomError

__all__ = [
    "MAX_MESSAGE",
    "MAX_VERSION",
    "printable",
    "Text",
    "Name",
    "Lang",
    "Level",
    "Version",
    "Token",
]

#: Longest client socket message accepted (characters; the socket's frames are capped in bytes).
MAX_MESSAGE: Final = 4096
#: Largest version or seat number a client may send (JSON's exact integers).
MAX_VERSION: Final = 2**53 - 1


def printable(text: str, limit: int = 80) -> str:
    """``text`` cut to ``limit`` characters, with whatever UTF-8 cannot carry (a lone surrogate)
    shown as a ``\\udxxx`` escape, so that an answer quoting it can always be sent.

    >>> printable("a\\ud800b")
    'a\\\\ud800b'
    """
    return text[:limit].encode("utf-8", "backslashreplace").decode("utf-8")


def _utf8(value: str) -> str:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        template = N_("{fields}: text that is not UTF-8 (a lone surrogate)")
        raise PydanticCustomError("bad_message", template, {"template": template}) from None
    return value


def _name(value: str) -> str:
    try:
        return check_name(value)
    except RoomError as exc:
        raise PydanticCustomError(exc.code, exc.template, {"template": exc.template, **exc.args_}) from None


#: Text: a JSON string UTF-8 can carry (no lone surrogates: ``"\\ud800"``).
Text = Annotated[str, AfterValidator(_utf8)]
#: A display name (:func:`getaway.web.rooms.check_name`: 1–24 printable characters, spaces collapsed).
Name = Annotated[str, AfterValidator(_utf8), AfterValidator(_name)]
Lang = Literal[tuple(i18n.LANGUAGES)]  # type: ignore[valid-type]
Level = Literal[tuple(LEVELS)]  # type: ignore[valid-type]
Version = Annotated[StrictInt, Field(ge=0, le=MAX_VERSION)]
Token = Annotated[Text, Field(max_length=200)]


class _Model(BaseModel):
    """Strict: no unknown field, no ``"4"`` for 4 nor ``true`` for 1."""

    model_config = ConfigDict(extra="forbid", strict=True)


