"""A tournament's link previews and their pictures: its standings, and a sitting's games.

What a messaging app shows beside a shared tournament (club.web.preview says how the
preview travels): "After sitting 3: 1 Anu & Biju 9 pts, 2 Chitra & Dev 7 pts, …", with
a picture of the top of the standings; and beside a shared sitting, its tables and
their scores. The page's preview is made from what the page has read already (no
query of its own); the picture reads the few rows it shows.
"""

from __future__ import annotations

from django.db.models import Prefetch
from django.http import HttpRequest
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.formats import date_format
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _

from club.clubs.addresses import club_of
from club.games import words
from club.games.models import Game, GameTeam
from club.games.previews import placed, score
from club.tournaments.models import Sitting, SittingGame, Standing, Tournament
from club.tournaments.selectors.live import format_points, sittings_played
from club.web.cards import ROWS, Card, Row
from club.web.preview import (
    Preview,
    VersionOf,
    link_preview,
    place_of,
    points_unit,
    ranked_line,
    site_name,
)

SAID = 3  # the teams a description names; the picture shows ROWS


def _heading(tournament: Tournament, finished_sittings: int) -> str:
    if tournament.is_final:
        return _("Final results")
    if finished_sittings:
        return _("After sitting %(number)d") % {"number": finished_sittings}
    return _("Standings")


def standings_summary(tournament: Tournament, rows: list[dict], finished_sittings: int) -> str:
    """The standings in a line: their heading and the first three teams with their points.
    ``rows`` hold each team's place, shared, team and points (as the standings' rows)."""
    if not rows:
        return _("No team registered yet.")
    if not finished_sittings and not any(row["games"] for row in rows):
        return ngettext(
            "No game finished yet; %(count)d team registered.",
            "No game finished yet; %(count)d teams registered.",
            len(rows),
        ) % {"count": len(rows)}
    teams = ", ".join(ranked_line(place_of(row), row["team"], row["points"]) for row in rows[:SAID])
    more = "…" if len(rows) > SAID else ""
    return _("%(heading)s: %(teams)s") % {
        "heading": _heading(tournament, finished_sittings),
        "teams": teams + more,
    }


def _finished(sittings: list[dict]) -> int:
    """The sittings whose every game is finished, from the page's list of them."""
    return sum(
        1
        for sitting in sittings
        if all(game["status"] == Game.Status.FINISHED for game in sitting["games"])
    )


def tournament_preview(
    request: HttpRequest, context: dict, version_of: VersionOf
) -> Preview | None:
    """The tournament page's preview, from its context (its standings and sittings)."""
    tournament = context["tournament"]
    return link_preview(
        request,
        version_of,
        pk=tournament.pk,
        title=tournament.name,
        said=lambda: standings_summary(
            tournament, context["standings"], _finished(context["sittings"])
        ),
        image=reverse("tournaments:preview", args=[tournament.pk]),
    )


def _when_and_where(tournament: Tournament) -> list[str]:
    day = date_format(tournament.starts_on, "DATE_FORMAT")
    return [day, tournament.venue] if tournament.venue else [day]


def _more(rows: int, shown: int, more_teams: bool) -> str:
    rest = rows - shown
    if rest <= 0:
        return ""
    if more_teams:
        return ngettext("and %(count)d more team", "and %(count)d more teams", rest) % {
            "count": rest
        }
    return ngettext("and %(count)d more table", "and %(count)d more tables", rest) % {"count": rest}


def standings_card(request: HttpRequest, pk: int) -> Card:
    """The picture of the standings: the first five teams, their points, how far played."""
    tournament = get_object_or_404(Tournament, pk=pk, club=club_of(request))
    standings = (
        Standing.objects.filter(tournament=tournament)
        .order_by("place", "entry__team__name")
        .values_list("place", "shared", "points", "entry__team__name", "entry__withdrawn_at")
    )
    rows: list[dict] = [
        {
            "place": place,
            "shared": shared,
            "points": format_points(points),
            "team": team,
            "withdrawn": withdrawn,
        }
        for place, shared, points, team, withdrawn in standings
    ]
    finished = sittings_played(tournament)["sittings"]
    kind = _("Standings")
    return Card(
        kicker=f"{site_name(request)} · {kind}",
        title=tournament.name,
        subtitle=" · ".join([_heading(tournament, finished), *_when_and_where(tournament)]),
        rows=tuple(
            Row(
                lead=place_of(row),
                name=row["team"],
                figure=row["points"],
                unit=points_unit(row["points"]),
                dim=row["withdrawn"] is not None,
            )
            for row in rows[:ROWS]
        ),
        note=_more(len(rows), ROWS, more_teams=True)
        or ("" if rows else _("No team registered yet.")),
        language=get_language(),
    )


# --- A sitting ----------------------------------------------------------------------


def _table(entry: SittingGame) -> str:
    """The table's number when it is "Table N", else its label."""
    label = entry.table_label
    return label.removeprefix("Table ") if label.removeprefix("Table ").isdecimal() else label


def _teams(teams: list[GameTeam]) -> str:
    return " – ".join(team.name for team in placed(teams))


def _state(games: list[SittingGame]) -> str:
    done = sum(1 for entry in games if entry.game.is_finished)
    if done == len(games):
        return ngettext("%(count)d game, finished", "%(count)d games, all finished", done) % {
            "count": done
        }
    return ngettext(
        "%(done)d of %(count)d game finished",
        "%(done)d of %(count)d games finished",
        len(games),
    ) % {"done": done, "count": len(games)}


def _game_line(entry: SittingGame) -> str:
    game, teams = entry.game, list(entry.game.teams.all())
    said = {"table": words.table_title(entry.table_label), "teams": _teams(teams)}
    if not game.deals_played:
        return _("%(table)s: %(teams)s") % said
    said["score"] = score(game, teams)
    if game.is_finished:
        return _("%(table)s: %(teams)s %(score)s") % said
    return _("%(table)s: %(teams)s %(score)s, being played") % said


def sitting_summary(sitting: Sitting, games: list[SittingGame]) -> str:
    """The sitting in a line: how far its games are, then each table's."""
    if sitting.status == Sitting.Status.PROPOSED:
        return ngettext(
            "Drawn, not confirmed yet: %(count)d game.",
            "Drawn, not confirmed yet: %(count)d games.",
            len(sitting.proposal),
        ) % {"count": len(sitting.proposal)}
    if not games:
        return _("No game in this sitting.")
    lines = "; ".join(_game_line(entry) for entry in games)
    return _("%(state)s: %(games)s") % {"state": _state(games), "games": lines}


def sitting_preview(request: HttpRequest, context: dict, version_of: VersionOf) -> Preview | None:
    """The sitting page's preview, from its context (its games and their teams)."""
    sitting, tournament = context["sitting"], context["tournament"]
    return link_preview(
        request,
        version_of,
        pk=tournament.pk,
        title=f"{sitting} · {tournament.name}",
        said=lambda: sitting_summary(sitting, context.get("games", [])),
        image=reverse("tournaments:sitting_preview", args=[tournament.pk, sitting.number]),
    )


def _sitting_rows(sitting: Sitting, games: list[SittingGame]) -> tuple[Row, ...]:
    if sitting.status == Sitting.Status.PROPOSED:
        return ()
    rows = []
    for entry in games[:ROWS]:
        game, teams = entry.game, list(entry.game.teams.all())
        rows.append(
            Row(
                lead=_table(entry),
                name=_teams(teams),
                figure=score(game, teams) if game.deals_played else "",
                dim=not game.is_finished,
            )
        )
    return tuple(rows)


def sitting_card(request: HttpRequest, pk: int, number: int) -> Card:
    """The picture of a sitting: its tables, each with its teams and score."""
    sitting = get_object_or_404(
        Sitting.objects.select_related("tournament"),
        tournament_id=pk,
        tournament__club=club_of(request),
        number=number,
    )
    games = list(
        sitting.games.select_related("game").prefetch_related(
            Prefetch("game__teams", queryset=GameTeam.objects.select_related("team"))
        )
        if sitting.status == Sitting.Status.CONFIRMED
        else []
    )
    tournament = sitting.tournament
    state = (
        _("Drawn, not confirmed yet")
        if sitting.status == Sitting.Status.PROPOSED
        else _state(games)
        if games
        else _("No game in this sitting.")
    )
    return Card(
        kicker=f"{site_name(request)} · {tournament.name}",
        title=str(sitting),
        subtitle=" · ".join([state, *_when_and_where(tournament)]),
        rows=_sitting_rows(sitting, games),
        note=_more(len(games), ROWS, more_teams=False),
        language=get_language(),
    )
