"""The tournament's page for the organiser (its teams, its history, what to do next) and
the list of tournaments.
"""

from __future__ import annotations

from typing import cast

from club.games.models import PLAYER_FIELDS, GameTeam, Player
from club.tournaments import checkin, substitutions
from club.tournaments.models import Sitting, Tournament, TournamentEvent
from club.tournaments.selectors.live import live_context
from club.tournaments.selectors.stages import stage_lines
from club.web.paging import page_of


def tournament_page(tournament: Tournament, *, organiser: bool = False) -> dict:
    context = live_context(tournament)
    context["stages"] = stage_lines(tournament)
    if organiser:
        context["proposed"] = tournament.sittings.filter(status=Sitting.Status.PROPOSED).first()
        context["events"] = list(
            TournamentEvent.objects.filter(tournament=tournament).select_related("made_by")
        )
        context["player_names"] = list(
            Player.objects.filter(active=True, memberships__club_id=cast(int, tournament.club_id))
            .order_by("name")
            .values_list("name", flat=True)
        )
        context["entries"] = team_list(tournament)
        context["team_count"] = len(context["entries"])
        context["next_step"] = next_step(tournament, context)
    return context


def next_step(tournament: Tournament, context: dict) -> str:
    """What the organiser does now, shown first on the tournament page: review the draw
    proposed, follow the sitting being played, register the teams, check them in (with
    check-in, while some are not), draw the next sitting, make the results final, or
    nothing ("done")."""
    if context["proposed"] is not None:
        return "review"
    if tournament.status == Tournament.Status.FINISHED:
        return "done" if tournament.is_final else "final"
    if context["in_progress"]:
        return "playing"
    still_in = {entry["pk"] for entry in context["entries"] if not entry["withdrawn"]}
    if len(still_in) < 2:
        return "register"
    if tournament.check_in:
        number = checkin.next_number(tournament)
        present = len(still_in & checkin.checked_in(tournament, number))
        if present < len(still_in):
            # A team not checked in sits the sitting out: the director checks them in first.
            context["check_ins"] = {
                "number": number,
                "present": present,
                "teams": len(still_in),
                "missing": len(still_in) - present,
            }
            return "check_in"
    return "draw"


def team_list(tournament: Tournament) -> list[dict]:
    """The registered teams for the organiser, in registration order: players, whether
    the team has played here (then it can no longer change) and whether it withdrew."""
    played = set(
        GameTeam.objects.filter(game__sitting_entry__sitting__tournament=tournament)
        .values_list("team_id", flat=True)
        .distinct()
    )
    made = substitutions.of_tournament(tournament)
    return [
        {
            "pk": entry.pk,
            "name": entry.team.name,
            "players": [player.name for player in entry.team.players],
            "played": entry.team_id in played,
            "withdrawn": entry.withdrawn_at is not None,
            "substitutions": made.get(entry.pk, []),
        }
        for entry in tournament.entries.select_related(
            "team", *(f"team__{seat}" for seat in PLAYER_FIELDS)
        ).order_by("id")
    ]


FINISHED_PER_PAGE = 25


def tournament_lists(club, number: int = 1) -> dict:
    """The club's running and upcoming tournaments, and a page of its finished ones (newest
    first)."""
    held = Tournament.objects.filter(club=club)
    current = list(held.exclude(status=Tournament.Status.FINISHED).order_by("-starts_on", "-id"))
    page = page_of(
        held.filter(status=Tournament.Status.FINISHED).order_by("-starts_on", "-id"),
        number,
        FINISHED_PER_PAGE,
    )
    return {
        "running": [t for t in current if t.status == Tournament.Status.RUNNING],
        "upcoming": [t for t in current if t.status == Tournament.Status.DRAFT],
        "finished": page.items,
        "page": page,
    }
