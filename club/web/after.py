"""Work that can wait until the answer has gone out.

A write's answer should carry what the writer needs and nothing more. Some work
that follows a write is needed only by *other* pages (the leaderboards' figures
and ratings of a game that has just finished): a request may leave it until its
answer is sent. :func:`later` keeps a function for that moment: Django runs it
when the response is closed, which a WSGI server does once the last byte of the
body is written (gunicorn, and the test client, which closes every response it
is given). The worker does the work before it takes its next request; the
scorer has the answer first.

Outside a request (a management command, a test or a script calling the
services) there is no answer to wait for: :func:`answering` is False and the
caller does the work at once, in its own transaction, as it always did.

What is left for later must never be read stale. Whoever leaves work for later
records that it is owed in the write's own transaction, and every reader of what
it derives does the owed work first (the leaderboards: ``services.catch_up``,
called by the pages' version). So a reader that comes between the commit and
the answer's end (another worker, another server) sees the same as one after
it. A failure here is logged and left for the next reader.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from contextvars import ContextVar

from django.conf import settings
from django.http import HttpRequest, HttpResponse

logger = logging.getLogger(__name__)
_queue: ContextVar[list[Callable[[], object]] | None] = ContextVar(
    "club_after_answer", default=None
)


def answering() -> bool:
    """Whether a request's answer is being made, so that work may wait until it is sent."""
    return _queue.get() is not None


def later(work: Callable[[], object]) -> None:
    """Run ``work`` once this request's answer has gone out (once, however often it is
    asked for); at once when there is no request."""
    queue = _queue.get()
    if queue is None:
        work()
    elif work not in queue:
        queue.append(work)


# Answers sent whose work is not done yet, in this process: counted from the moment the
# answer leaves the view, so that :func:`wait_until_done` (tests whose live server
# answers in another thread) never sees a gap between the answer and its work.
_owed = 0
_done = threading.Condition()


def _run(queue: list[Callable[[], object]]) -> None:
    global _owed
    try:
        for work in queue:
            try:
                work()
            except Exception:  # owed work stays owed: the next reader does it
                logger.exception("Work left until after the answer failed: %r", work)
    finally:
        with _done:
            _owed -= 1
            _done.notify_all()


def wait_until_done(timeout: float = 30.0) -> bool:
    """Wait until every answer this process sent has done its work (for tests: a live
    server's thread may still be at it when the test has its answer)."""
    with _done:
        return _done.wait_for(lambda: _owed <= 0, timeout)


class AfterAnswerMiddleware:
    """Gives each request a list of work for after its answer (:func:`later`)."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not settings.CLUB_WORK_AFTER_ANSWER:
            return self.get_response(request)  # the work is done in the request, at once
        token = _queue.set([])
        try:
            response = self.get_response(request)
            queue = _queue.get()
        finally:
            _queue.reset(token)
        if queue:
            global _owed
            with _done:
                _owed += 1
            # Django closes the response after its body is sent, and runs these then.
            response._resource_closers.append(lambda: _run(queue))
        return response
