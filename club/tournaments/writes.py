"""What every write to a tournament shares: its refusal, its lock, its history.

``services`` (teams, sittings, standings) and ``stages`` (group charts and
knockouts) both write under the tournament's lock and record what they did in
its history, through these.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy

from club.scoring.messages import Refusal
from club.tournaments.models import Sitting, Stage, Tournament, TournamentEvent

# What the organiser is told of a change to a tournament whose results are final.
RESULTS_FINAL = gettext_lazy(
    "The results of %(name)s are final. Reopen the tournament to change anything."
)


class TournamentError(Refusal):
    """A tournament write refused, with a message for the organiser."""


def log(
    tournament: Tournament,
    action: str,
    user=None,
    note: str = "",
    sitting: Sitting | None = None,
    stage: Stage | None = None,
    sitting_number: int | None = None,
) -> None:
    """One line of the tournament's history: what was done, to which sitting or stage, by whom."""
    TournamentEvent.objects.create(
        tournament=tournament,
        action=action,
        sitting_number=sitting.number if sitting is not None else sitting_number,
        stage_number=stage.number if stage is not None else None,
        note=note,
        made_by=user if user is not None and user.is_authenticated else None,
    )


def lock(tournament: Tournament) -> Tournament:
    """The tournament, locked for this transaction.

    One writer per tournament at a time: draws, confirmations and standings
    rebuilds are serialised, so two organisers never make two draws.
    """
    return Tournament.objects.select_for_update().get(pk=tournament.pk)


def check_editable(tournament: Tournament) -> None:
    if tournament.is_final:
        raise TournamentError(RESULTS_FINAL % {"name": tournament.name})
