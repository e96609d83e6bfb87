"""A registered team's captain: one of its players, named at registration (the first
named unless another is), changed by the director, shown wherever the team's players are
listed (docs/rules.md section E, "Who plays for a team")."""

from __future__ import annotations

from django.db import transaction
from django.db.models import OuterRef, Subquery
from django.utils.translation import gettext_lazy

from club.games.models import PLAYER_FIELDS, Team
from club.tournaments.models import TournamentEvent, TournamentTeam
from club.tournaments.writes import TournamentError, check_editable, lock, log

TEAM_PLAYERS = tuple(f"team__{seat}" for seat in PLAYER_FIELDS)

# What the organiser is told of a captain named who is not one of the team's players.
NOT_A_PLAYER = gettext_lazy(
    "%(player)s does not play for %(team)s: the captain is one of the team's players."
)


def captain_of(team, name: str = ""):
    """The team's captain: the player named (one of the team's), else the first named."""
    name = " ".join(name.split())
    if not name:
        return team.first_player
    for player in team.players:
        if player.name.lower() == name.lower():
            return player
    raise TournamentError(
        NOT_A_PLAYER % {"player": name, "team": team.name},
        field="captain",
    )


def first_player_captains() -> int:
    """Teams with no captain (registered before captains, restored from an older backup)
    take their first player, as registration does; returns how many."""
    first = Team.objects.filter(pk=OuterRef("team_id")).values("first_player_id")[:1]
    return TournamentTeam.objects.filter(captain=None).update(captain_id=Subquery(first))


@transaction.atomic
def set_captain(*, entry: TournamentTeam, captain: str, user=None) -> TournamentTeam:
    """Name another of the team's players its captain (at any time but after the results
    are final)."""
    tournament = lock(entry.tournament)
    check_editable(tournament)
    entry = TournamentTeam.objects.select_related("team", *TEAM_PLAYERS).get(pk=entry.pk)
    chosen = captain_of(entry.team, captain)
    if chosen.pk != entry.captain_id:
        entry.captain = chosen
        entry.save(update_fields=["captain"])
        log(
            tournament,
            TournamentEvent.Action.EDITED,
            user,
            note=f"{entry.team.name}: {chosen.name}",  # names, in no reader's language
        )
    return entry
