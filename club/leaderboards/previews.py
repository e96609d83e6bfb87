"""A player's link preview and its picture: their rating, games, wins and form.

What a messaging app shows beside a shared profile (club.web.preview says how the
preview travels): "Rating 1234 after 56 rated games; 56 games, 30 won; form W W L 2 W",
and a picture of the same figures. The page's preview is made from what the profile
has read already; the picture reads the player's totals, rating and last five games.
"""

from __future__ import annotations

from django.db.models import OuterRef
from django.http import HttpRequest
from django.shortcuts import get_object_or_404
from django.template.defaultfilters import floatformat
from django.urls import reverse
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _

from club.clubs.addresses import club_of
from club.games.models import Game, GameTeam, Player, in_a_seat
from club.leaderboards import selectors
from club.leaderboards.models import PlayerRating, PlayerTotals
from club.leaderboards.profile import form_badge
from club.web.cards import Card, Row
from club.web.preview import Preview, VersionOf, link_preview, site_name


def summary(rating: float | None, rated: int, played: int, won: int, form: list[str]) -> str:
    """The player in a line: rating, games and wins, form."""
    if not played:
        return _("No finished game yet.")
    parts = []
    if rating is not None:
        parts.append(
            ngettext(
                "Rating %(rating)s after %(count)d rated game",
                "Rating %(rating)s after %(count)d rated games",
                rated,
            )
            % {"rating": floatformat(rating, 0), "count": rated}
        )
    parts.append(
        ngettext("%(count)d game, %(won)d won", "%(count)d games, %(won)d won", played)
        % {"count": played, "won": won}
    )
    if form:
        parts.append(_("form %(badges)s") % {"badges": " ".join(form)})
    return "; ".join(parts)


def player_preview(request: HttpRequest, context: dict, version_of: VersionOf) -> Preview | None:
    """The profile's preview, from its context (its figures, rating and form)."""
    player, figures, rating = context["player"], context["figures"], context["rating"]
    return link_preview(
        request,
        version_of,
        pk=player.pk,
        title=player.name,
        said=lambda: summary(
            rating.rating if rating else None,
            rating.games if rating else 0,
            figures.played,
            figures.won,
            context["form"],
        ),
        image=reverse("leaderboards:player_preview", args=[player.pk]),
    )


def _form(player: Player, club) -> list[str]:
    """The player's last five results at the club, newest first (as the profile's form)."""
    teams = GameTeam.objects.filter(game=OuterRef("game")).order_by().values("game")
    latest = (
        GameTeam.objects.filter(
            in_a_seat(player), game__club=club, game__status=Game.Status.FINISHED
        )
        .annotate(teams_at_game=selectors.count(teams))
        .order_by("-game__finished_at", "-game_id")
        .values_list("place", "teams_at_game", "pk", "game__winner_id")[:5]
    )
    return [form_badge(place, teams, won=seat == winner) for place, teams, seat, winner in latest]


def player_card(request: HttpRequest, pk: int) -> Card:
    """The picture of a player: rating, games played and won, contracts made, form."""
    club = club_of(request)
    player = get_object_or_404(selectors.members(club), pk=pk)
    totals = PlayerTotals.objects.filter(player=player).values(
        "played", "won", "declared", "made"
    ).first() or {"played": 0, "won": 0, "declared": 0, "made": 0}
    rated = PlayerRating.objects.filter(player=player).values_list("rating", "games").first()
    form = _form(player, club)
    rows = []
    if rated is not None:
        rows.append(
            Row(
                lead="",
                name=_("Rating"),
                figure=floatformat(rated[0], 0),
                unit=ngettext("after %(count)d game", "after %(count)d games", rated[1])
                % {"count": rated[1]},
            )
        )
    rows.append(Row(lead="", name=_("Games played"), figure=str(totals["played"])))
    rows.append(Row(lead="", name=_("Games won"), figure=str(totals["won"])))
    if totals["declared"]:
        rows.append(
            Row(
                lead="",
                name=_("Contracts made"),
                figure=str(totals["made"]),
                unit=_("of %(count)d") % {"count": totals["declared"]},
            )
        )
    kind = _("Player")
    return Card(
        kicker=f"{site_name(request)} · {kind}",
        title=player.name,
        subtitle=(_("Form: %(badges)s") % {"badges": " ".join(form)})
        if form
        else _("No finished game yet."),
        rows=tuple(rows),
        language=get_language(),
    )
