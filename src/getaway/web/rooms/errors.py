"""The refusals of the rooms: :class:`RoomError` (a command refused, nothing changed), the
:class:`RelayedError` of a refusal made on another process, and the two refusals every layer
raises (:func:`draining_error`, :func:`unsaved`).

Owns: the error type and its translation. Imports no sibling module (the socket edge, the
protocol and the HTTP routes import this module alone, not the service).
"""

from __future__ import annotations

from typing import Any

from ...core.events import IllegalActionError
from ...core.messages import Text, addressed, error_text, seat_numbers
from ...text import i18n
from ...text.i18n import N_

__all__ = ["RoomError", "RelayedError", "draining_error", "unsaved"]


class RoomError(ValueError):
    """A command refused; nothing changed.

    Attributes:
        code: machine-readable (``room_full``, ``stale_version``, ``not_your_turn`` …; docs/web.md).
        template: the English message, ``N_``-marked (translated where shown: :meth:`text`).
        args: the template's arguments.
        status: the HTTP status for the HTTP API.
    """

    def __init__(self, code: str, template: str, status: int = 400, /, **args: Any) -> None:
        super().__init__(f"{code}: {template.format(**args) if args else template}")
        self.code = code
        self.template = template
        self.args_ = args
        self.status = status

    #: the engine's exception this error reports (its message is translated by :func:`i18n.localize`)
    cause: BaseException | None = None
    #: seconds after which the client may try again (a rate limit's 429: the ``Retry-After`` header)
    retry_after: int | None = None

    def text(self, lang: str) -> str:
        """The message in ``lang`` (one of :data:`getaway.text.i18n.LANGUAGES`)."""
        with i18n.language(lang):
            if self.cause is not None:
                # An engine refusal reads "reason: message"; the reason is already in ``code``.
                text = error_text(self.cause)
                inner = text.args.get("message", text) if isinstance(self.cause, IllegalActionError) else text
                if isinstance(self.cause, IllegalActionError) and isinstance(inner, Text):
                    inner = addressed(inner, self.cause.seat)  # said to the player who tried it
                players = self.args_.get("players")  # a move's refusal names seats as the page does
                return i18n.localize(inner, seat_numbers(players) if isinstance(players, int) else None)
            message = i18n._(self.template)
            return message.format(**self.args_) if self.args_ else message

    def shown(self, lang: str) -> str:
        """:meth:`text` as a socket's ``error`` frame shows it (:func:`getaway.web.rooms.frames.error`):
        at most 400 characters, a lone surrogate quoted."""
        return self.text(lang)[:400].encode("utf-8", "backslashreplace").decode("utf-8")


class RelayedError(RoomError):
    """A :class:`RoomError` raised by the owner of a room on another process, as it came back
    (web/broker.py): its code, template and arguments, and for an engine refusal its text in
    every language (the engine's exception does not travel)."""

    def __init__(self, data: dict[str, Any]) -> None:
        super().__init__(data["code"], data["template"], data["status"], **data["args"])
        self.texts: dict[str, str] | None = data.get("texts")

    def text(self, lang: str) -> str:
        """The owner's text in ``lang`` for an engine refusal, else the template translated here."""
        if self.texts:
            return self.texts.get(lang) or self.texts.get("en") or self.code
        return super().text(lang)

    @staticmethod
    def relay(exc: RoomError) -> dict[str, Any]:
        """What travels of ``exc`` (JSON)."""
        plain = (int, float, str, bool, type(None))
        args = {k: v if isinstance(v, plain) else str(v) for k, v in exc.args_.items()}
        data: dict[str, Any] = {"code": exc.code, "template": exc.template, "args": args, "status": exc.status}
        if exc.cause is not None or isinstance(exc, RelayedError):
            data["texts"] = {lang: exc.text(lang) for lang in i18n.LANGUAGES}
        return data


def unsaved() -> RoomError:
    """The refusal of a command that could not be persisted or forwarded (503 ``server_error``)."""
    return RoomError("server_error", N_("the server could not save this; try again"), 503)


def draining_error() -> RoomError:
    """The refusal of a draining process (503 ``draining``, ``Retry-After: 1``): nothing was done,
    another process may be asked the same."""
    error = RoomError("draining", N_("the server is restarting: try again in a moment"), 503)
    error.retry_after = 1
    return error
