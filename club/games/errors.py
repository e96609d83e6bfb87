"""What the deal services refuse, and why: the one error their callers catch."""

from __future__ import annotations

from typing import TYPE_CHECKING

from club.scoring.messages import Refusal

if TYPE_CHECKING:
    from club.games.models import Round


class ScoringError(Refusal):
    """A write refused because of what was asked, with a message for the organiser.

    ``field`` names the input at fault (``bid``, ``points``, ``number`` ...),
    ``number`` the deal it concerns, and ``recorded`` the deal already stored
    when a stale form arrives.
    """

    def __init__(
        self,
        message: str,
        *,
        field: str | None = None,
        number: int | None = None,
        recorded: Round | None = None,
    ):
        super().__init__(message, field=field)
        self.number = number
        self.recorded = recorded
