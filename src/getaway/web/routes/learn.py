"""Learning from records: the replay viewer's frames, the review of a seat's decisions and the
tutorial's lessons (:mod:`getaway.web.learn` does the work). A replay frame and a review are
heavy reads: counted against the client address's budget (:func:`.common.check_heavy`; a review
weighs ``review_weight``), the review computed by the app's :class:`~getaway.web.reviews.ReviewPool`."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from .. import learn, protocol
from ..edge import client_lang
from .common import REFUSALS, address_of, check_heavy

__all__ = ["router"]

router = APIRouter()


@router.post("/api/replay", response_model=protocol.ReplayFrame, responses=REFUSALS)
async def replay_frame(request: Request, body: protocol.ReplayRequest) -> Any:
    """One frame of the replay viewer: the record's deal after ``move`` actions, one seat's view or
    every hand (a heavy read: 429 past the address's budget)."""
    check_heavy(request)
    return learn.replay_frame(body.record, body.move, body.seat, client_lang(request))


@router.post("/api/review", response_model=protocol.ReviewAnswer, responses=REFUSALS)
async def review(request: Request, body: protocol.ReviewRequest) -> Any:
    """The review of one seat's decisions in a record (the expert's losing chances; seconds of work
    in a review worker): a heavy read of ``review_weight``, 1 when it comes and the rest once its
    record is read (429 past the address's budget, or while its last review is still being made),
    503 when the review workers' queue is full."""
    check_heavy(request)
    rest = request.app.state.settings.review_weight - 1
    pool, address, lang = request.app.state.reviews, address_of(request), client_lang(request)

    def weigh() -> None:
        if rest > 0:
            check_heavy(request, rest)

    return await learn.review_of(pool, address, body.record, body.seat, lang, body.iterations, before=weigh)


@router.get("/api/lessons", response_model=list[protocol.LessonItem])
async def lessons(request: Request) -> Any:
    """The tutorial's lessons, in the order taught (titles in the client's language)."""
    return learn.lesson_list(client_lang(request))


@router.post("/api/lessons/{key}", response_model=protocol.LessonState, responses=REFUSALS)
async def lesson(request: Request, key: str, body: protocol.LessonRequest | None = None) -> Any:
    """A lesson after the learner's moves: the view, the verdict of the last move, the feedback."""
    moves = [] if body is None else list(body.moves)
    return learn.lesson_state(key, moves, client_lang(request))
