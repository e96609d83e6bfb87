"""A game's link preview and its picture: who won, by how much, where and when.

The words a messaging app shows beside a shared game (club.web.preview says how the
preview travels): "Anu & Biju won 8–4 at Onam cup, Table 2, 5 December", or, while it
is played, "Anu & Biju 8, Chitra & Dev 4 after 12 deals"; and the card of its picture
(club.web.cards), with each team's place and count.
"""

from __future__ import annotations

from django.http import HttpRequest
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _

from club.clubs.addresses import club_of
from club.games import words
from club.games.models import Game, GameTeam
from club.scoring.rules import Scoring
from club.web.cards import Card, Row
from club.web.preview import Preview, VersionOf, link_preview, site_name

DASH = "–"  # between the counts of a score: 8–4


def count_of(game: Game, team: GameTeam) -> int:
    """A team's count at the game: its tables, or its points on a points sheet."""
    return team.score if game.scoring == Scoring.POINTS else team.tables


def placed(teams: list[GameTeam]) -> list[GameTeam]:
    """The game's teams by place (a game being played: in seat order)."""
    return sorted(teams, key=lambda team: (team.place or 99, team.position))


def _day(game: Game) -> str:
    moment = game.finished_at or game.created_at
    return date_format(timezone.localtime(moment), "MONTH_DAY_FORMAT")


def _where(game: Game) -> str:
    """Where a tournament's game was played, from its label ("Onam cup, Table 2"); ""
    for a game of no tournament, whose label is its own."""
    found = words.sitting_game(game.label)
    if found is None:
        return ""
    return _("%(tournament)s, %(table)s") % found


def _winner(game: Game, teams: list[GameTeam]) -> GameTeam | None:
    return next((team for team in teams if team.pk == game.winner_id), None)


def score(game: Game, teams: list[GameTeam]) -> str:
    """The teams' counts by place: "8–4"."""
    return DASH.join(str(count_of(game, team)) for team in placed(teams))


def summary(game: Game, teams: list[GameTeam]) -> str:
    """The game in a line, in the reader's language."""
    by_place = placed(teams)
    if not game.deals_played and not game.is_finished:
        between = " " + _("vs") + " "
        return _("%(teams)s: no deal yet") % {"teams": between.join(t.name for t in teams)}
    if not game.is_finished:
        line = ", ".join(f"{team.name} {count_of(game, team)}" for team in by_place)
        return ngettext(
            "%(score)s after %(count)d deal", "%(score)s after %(count)d deals", game.deals_played
        ) % {"score": line, "count": game.deals_played}
    said = {
        "score": score(game, teams),
        "place": _where(game),
        "day": _day(game),
    }
    winner = _winner(game, teams)
    if winner is not None:
        said["team"] = winner.name
        if said["place"]:
            return _("%(team)s won %(score)s at %(place)s, %(day)s") % said
        return _("%(team)s won %(score)s, %(day)s") % said
    if said["place"]:
        return _("The first place was shared, %(score)s, at %(place)s, %(day)s") % said
    return _("The first place was shared, %(score)s, %(day)s") % said


def game_preview(
    request: HttpRequest, game: Game, teams: list[GameTeam], version_of: VersionOf
) -> Preview | None:
    """The game page's preview, from what the page has read already (its teams)."""
    return link_preview(
        request,
        version_of,
        pk=game.pk,
        title=game.title,
        said=lambda: summary(game, teams),
        image=reverse("games:preview", args=[game.pk]),
    )


def _status(game: Game, teams: list[GameTeam]) -> str:
    if game.is_finished:
        winner = _winner(game, teams)
        if winner is not None:
            return _("%(team)s won") % {"team": winner.name}
        return _("The first place was shared")
    if not game.deals_played:
        return _("No deal yet")
    return ngettext(
        "Being played, after %(count)d deal",
        "Being played, after %(count)d deals",
        game.deals_played,
    ) % {"count": game.deals_played}


def game_card(request: HttpRequest, pk: int) -> Card:
    """The picture of the game: its teams by place, each with its tables or points."""
    game = get_object_or_404(Game, pk=pk, club=club_of(request))
    teams = list(game.teams.select_related("team").order_by("position"))
    rows = tuple(
        Row(
            lead=str(team.place) if game.is_finished and team.place else "",
            name=team.name,
            figure=str(count_of(game, team)),
            unit=words.unit(game, count_of(game, team)),
            dim=not game.is_finished and team.out_in_deal is not None,
        )
        for team in placed(teams)
    )
    kind = _("Game")
    deals = ngettext("%(count)d deal", "%(count)d deals", game.deals_played) % {
        "count": game.deals_played
    }
    return Card(
        kicker=f"{site_name(request)} · {kind}",
        title=game.title,  # a tournament's game: its tournament, sitting and table
        subtitle=f"{_status(game, teams)} · {_day(game)}",
        rows=rows,
        note=deals if game.deals_played else "",
        language=get_language(),
    )
