"""Where the players sit: a player's page in a tournament, and the public draw of a sitting.

Reads only (the pages of issue 13, What to build 6). A player's page answers
"where do I sit, with whom, against whom, and how is my game going"; the draw
answers "where do I sit" for everyone, findable by name on a phone. Both read
a fixed number of queries whatever the size of the tournament or its history.
"""

from __future__ import annotations

from django.db.models import Max, Prefetch

from club.games.models import PLAYER_FIELDS, GameTeam, Player, Scoring, in_a_seat
from club.games.selectors import url_maker
from club.games.services import Seating
from club.scoring.names import search_key
from club.tournaments.models import (
    Bye,
    Sitting,
    SittingGame,
    Tournament,
    TournamentEvent,
    TournamentTeam,
)
from club.tournaments.selectors import current_sitting, live_version


def page_version(tournament: Tournament) -> str:
    """A player's page's token: the results' (club.tournaments.selectors.live_version) and
    the newest line of the tournament's history, so a sitting drawn, adjusted or
    discarded shows at once (the page says where the player is to sit next)."""
    newest = TournamentEvent.objects.filter(tournament=tournament).aggregate(n=Max("id"))["n"]
    return f"{live_version(tournament)}.{newest or 0}"


def _seated_teams() -> Prefetch:
    return Prefetch(
        "game__teams",
        queryset=GameTeam.objects.select_related("team", *PLAYER_FIELDS).order_by("position"),
    )


def entry_of(tournament: Tournament, player: Player) -> TournamentTeam | None:
    """The player's registered team in the tournament, if any."""
    return (
        TournamentTeam.objects.filter(tournament=tournament)
        .filter(in_a_seat(player, "team__"))
        .select_related("team", *(f"team__{seat}" for seat in PLAYER_FIELDS))
        .first()
    )


def running_entries(player: Player) -> list[TournamentTeam]:
    """The player's teams in tournaments being played now (for the profile's link)."""
    return list(
        TournamentTeam.objects.filter(
            in_a_seat(player, "team__"), tournament__status=Tournament.Status.RUNNING
        )
        .select_related("tournament", "team")
        .order_by("-tournament__starts_on", "tournament__name")
    )


def _table(placed: SittingGame, player: Player | None, team_id: int) -> dict:
    """A game of the sitting as a player reads it: seat, partners, opponents, the score."""
    game = placed.game
    teams = list(game.teams.all())
    seating = Seating(teams, game.rules)
    points = game.scoring == Scoring.POINTS
    own = next(team for team in teams if team.team_id == team_id)
    seat = seating.seat_of(player.pk) if player is not None else None
    return {
        "placed": placed,
        "game": game,
        "seat": None if seat is None else seat + 1,
        "seats": len(seating.players),
        "partners": [p.name for p in own.players if player is None or p.pk != player.pk],
        "team": own.team.name,
        "opponents": [
            {"team": team.team.name, "players": [p.name for p in team.players]}
            for team in teams
            if team.team_id != team_id
        ],
        "figures": [
            {
                "team": team.team.name,
                "figure": team.score if points else team.tables,
                "own": team.team_id == team_id,
                "place": team.place,
            }
            for team in teams
        ],
        "points": points,
        "dealer": seating.players[game.dealer_seat].name if not game.is_finished else None,
    }


def player_page(tournament: Tournament, player: Player, entry: TournamentTeam) -> dict:
    """What a player's page shows: the sitting in play, the one drawn next, and their games."""
    sitting = current_sitting(tournament)
    team_id = entry.team_id
    context = {
        "tournament": tournament,
        "player": player,
        "entry": entry,
        "partners": [p.name for p in entry.team.players if p.pk != player.pk],
        "sitting": sitting,
        "live_version": page_version(tournament),
    }
    games = list(
        SittingGame.objects.filter(sitting__tournament=tournament, game__teams__team_id=team_id)
        .select_related("sitting", "game")
        .prefetch_related(_seated_teams())
        .order_by("-sitting__number")
    )
    context["now"] = next(
        (
            _table(placed, player, team_id)
            for placed in games
            if placed.sitting_id == getattr(sitting, "pk", None)
        ),
        None,
    )
    context["bye"] = (
        sitting is not None
        and context["now"] is None
        and Bye.objects.filter(sitting=sitting, entry=entry).exists()
    )
    proposed = tournament.sittings.filter(status=Sitting.Status.PROPOSED).first()
    if proposed is not None:
        table = next(
            (number for number, game in enumerate(proposed.proposal, 1) if entry.pk in game), None
        )
        context["proposed"] = {"sitting": proposed, "table": table}
    context["played"] = [
        _table(placed, player, team_id)
        for placed in games
        if placed.sitting_id != getattr(sitting, "pk", None) or placed.game.is_finished
    ]
    return context


def draw_page(tournament: Tournament, query: str = "") -> dict:
    """The sitting in play as a public list of tables, each with its teams' players; with
    ``query``, only the tables where a player or team of that name sits."""
    sitting = current_sitting(tournament)
    context = {
        "tournament": tournament,
        "sitting": sitting,
        "query": query,
        "tables": [],
        "byes": [],
        "proposed": tournament.sittings.filter(status=Sitting.Status.PROPOSED).first(),
    }
    if sitting is None:
        return context
    player_url = url_maker("tournaments:player", tournament.pk)
    wanted = search_key(query) if query.strip() else ""
    for placed in (
        SittingGame.objects.filter(sitting=sitting)
        .select_related("game")
        .prefetch_related(_seated_teams())
        .order_by("position")
    ):
        teams = [
            {
                "team": team.team.name,
                "players": [{"name": p.name, "url": player_url(p.pk)} for p in team.players],
            }
            for team in placed.game.teams.all()
        ]
        names = [team["team"] for team in teams] + [
            player["name"] for team in teams for player in team["players"]
        ]
        if wanted and not any(wanted in search_key(name) for name in names):
            continue
        context["tables"].append(
            {"label": placed.table_label, "game": placed.game, "teams": teams, "search": names}
        )
    for bye in Bye.objects.filter(sitting=sitting).select_related(
        "entry__team", *(f"entry__team__{seat}" for seat in PLAYER_FIELDS)
    ):
        names = [bye.entry.team.name, *(p.name for p in bye.entry.team.players)]
        if not wanted or any(wanted in search_key(name) for name in names):
            context["byes"].append(
                {
                    "team": bye.entry.team.name,
                    "players": [
                        {"name": p.name, "url": player_url(p.pk)} for p in bye.entry.team.players
                    ],
                    "search": names,
                }
            )
    return context
