"""Where the players sit: a player's page in a tournament, and the public draw of a sitting.

Both pages only read. A player's page answers
"where do I sit, with whom, against whom, and how is my game going"; the draw
answers "where do I sit" for everyone, findable by name on a phone. Both read
a fixed number of queries whatever the size of the tournament or its history.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from club.clubs.models import Club
from club.db.prepared import prepared
from club.games.models import PLAYER_FIELDS, Game, GameTeam, Player, Scoring, in_a_seat
from club.games.selectors import url_maker
from club.scoring import rules as core
from club.scoring.names import search_key
from club.tournaments.models import (
    Bye,
    Sitting,
    SittingGame,
    Substitution,
    Tournament,
    TournamentTeam,
)
from club.tournaments.selectors.board import current_sitting
from club.tournaments.selectors.live import page_tokens


def page_version(tournament_id: int, club_id: int | None = None) -> str | None:
    """A player's page's token: the results' (club.tournaments.selectors.live.live_version) and
    the newest line of the tournament's history, so a sitting drawn, adjusted or
    discarded shows at once (the page says where the player is to sit next); one query
    (``page_tokens``). None for no such tournament (of club ``club_id``, when given)."""
    tokens = page_tokens(tournament_id, club_id)
    return None if tokens is None else f"{tokens[0]}.{tokens[1]}"


@dataclass
class Table:
    """A game of a sitting as these pages read it: plain values, two queries for any number."""

    sitting: int  # its number
    label: str
    game: int
    url: str
    finished: bool
    deals_played: int
    deal_limit: int | None
    points: bool
    dealer_seat: int
    team_size: int
    winner: int | None  # the team the game names its winner (Game.winner); none when level
    # (team id, team name, tables, score, place, [(player id, name), ...]) in seat order
    teams: list[tuple] = field(default_factory=list)

    @property
    def sitting_title(self) -> str:
        return Sitting.title(self.sitting)

    def seated(self) -> list[tuple[int, str]]:
        """The players in play order (club.scoring.rules.seat_order)."""
        return [
            self.teams[team][5][partner]
            for team, partner in core.seat_order(len(self.teams), self.team_size)
        ]


def _tables(placed) -> list[Table]:
    """The games of ``placed`` (SittingGame rows, in order) with their teams and players."""
    game_url = url_maker("games:detail")
    tables = {
        game: Table(
            number,
            label,
            game,
            game_url(game),
            status == Game.Status.FINISHED,
            deals,
            limit,
            scoring == Scoring.POINTS,
            dealer,
            size,
            winner,
        )
        for (
            number,
            label,
            game,
            status,
            deals,
            limit,
            scoring,
            dealer,
            size,
            winner,
        ) in placed.values_list(
            "sitting__number",
            "table_label",
            "game_id",
            "game__status",
            "game__deals_played",
            "game__deal_limit",
            "game__scoring",
            "game__dealer_seat",
            "game__team_size",
            "game__winner__team_id",
        )
    }
    seats = [value for seat in PLAYER_FIELDS for value in (f"{seat}_id", f"{seat}__name")]
    for game, team, name, tables_held, score, place, *players in (
        GameTeam.objects.filter(game_id__in=tables)
        .order_by("game_id", "position")
        .values_list("game_id", "team_id", "team__name", "tables", "score", "place", *seats)
    ):
        pairs = [(players[at], players[at + 1]) for at in range(0, 8, 2) if players[at] is not None]
        tables[game].teams.append((team, name, tables_held, score, place, pairs))
    return list(tables.values())


def _as_player_sees(table: Table, player_id: int | None, team_id: int) -> dict:
    """A table as a player of team ``team_id`` reads it: seat, partners, opponents, figures."""
    seated = table.seated()
    seat = next((at for at, (pk, _name) in enumerate(seated) if pk == player_id), None)
    own = next(team for team in table.teams if team[0] == team_id)
    return {
        "table": table,
        "seat": None if seat is None else seat + 1,
        "seats": len(seated),
        "partners": [name for pk, name in own[5] if pk != player_id],
        "team": own[1],
        "opponents": [
            {"team": team[1], "players": [name for _pk, name in team[5]]}
            for team in table.teams
            if team[0] != team_id
        ],
        "figures": [
            {
                "team": team[1],
                "figure": team[3] if table.points else team[2],
                "own": team[0] == team_id,
                "won": team[0] == table.winner,
            }
            for team in table.teams
        ],
        "dealer": None if table.finished else seated[table.dealer_seat][1],
    }


def entry_of(tournament: Tournament, player: Player) -> TournamentTeam | None:
    """The player's registered team in the tournament, if any: the team the player is
    registered with, or the one the player sits in for as a substitute."""
    teams = TournamentTeam.objects.filter(tournament=tournament).select_related(
        "team", *(f"team__{seat}" for seat in PLAYER_FIELDS)
    )
    return (
        teams.filter(in_a_seat(player, "team__")).first()
        or teams.filter(substitutions__player_in=player).first()
    )


def _replaced(away: list[Substitution], number: int | None) -> Substitution | None:
    """Of a player's substitutions ``away``, the one that has someone sit in for the player
    in sitting ``number``."""
    return next((made for made in away if number and made.covers(number)), None)


@prepared
def _running(player: int, club: int):
    return (
        TournamentTeam.objects.filter(
            in_a_seat(player, "team__"),
            tournament__status=Tournament.Status.RUNNING,
            tournament__club=club,
        )
        .order_by("-tournament__starts_on", "tournament__name")
        .values("tournament_id", "tournament__name")
    )


def running_entries(player: Player, club: Club) -> list[dict]:
    """The club's tournaments being played now in which the player has a team (the
    profile's link to where they sit): each its key and name (``tournament_id``,
    ``tournament__name``), the latest first. Prepared (club.db.prepared): every render
    of a profile reads it."""
    return _running(player.pk, club.pk)


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
        "live_version": page_version(tournament.pk),
    }
    # The team's games the player sat in: a substitute's, or a starter's less those a
    # substitute played for them.
    tables = [
        table
        for table in _tables(
            SittingGame.objects.filter(
                sitting__tournament=tournament, game__teams__team_id=team_id
            ).order_by("-sitting__number")
        )
        if any(pk == player.pk for pk, _name in table.seated())
    ]
    now_number = sitting.number if sitting is not None else None
    now = next((table for table in tables if table.sitting == now_number), None)
    proposed = tournament.sittings.filter(status=Sitting.Status.PROPOSED).first()
    # Who sits in for the player, read once, and only when there is a sitting to ask about.
    away = (
        list(entry.substitutions.filter(player_out=player).select_related("player_in"))
        if (now is None and now_number) or proposed is not None
        else []
    )
    context["replaced"] = _replaced(away, now_number) if now is None else None
    context["now"] = _as_player_sees(now, player.pk, team_id) if now is not None else None
    context["bye"] = (
        sitting is not None
        and now is None
        and Bye.objects.filter(sitting=sitting, entry=entry).exists()
    )
    if proposed is not None:
        table = next(
            (number for number, game in enumerate(proposed.proposal, 1) if entry.pk in game), None
        )
        context["proposed"] = {
            "sitting": proposed,
            "table": table,
            "replaced": _replaced(away, proposed.number),
        }
    context["played"] = [
        _as_player_sees(table, player.pk, team_id)
        for table in tables
        if table is not now or table.finished
    ]
    return context


def draw_page(tournament: Tournament, query: str = "") -> dict:
    """The sitting in play as a public list of tables, each with its teams' players; with
    ``query``, only the tables where a player or team of that name sits."""
    sitting = current_sitting(tournament)
    tables: list[dict] = []
    byes: list[dict] = []
    context = {
        "tournament": tournament,
        "sitting": sitting,
        "query": query,
        "tables": tables,
        "byes": byes,
        "proposed": tournament.sittings.filter(status=Sitting.Status.PROPOSED).first(),
    }
    if sitting is None:
        return context
    player_url = url_maker("tournaments:player", tournament.pk)
    wanted = search_key(query) if query.strip() else ""
    captains = set(
        TournamentTeam.objects.filter(tournament=tournament).values_list("captain_id", flat=True)
    )

    def side(name: str, players) -> dict:
        return {
            "team": name,
            "players": [
                {"name": player, "url": player_url(pk), "captain": pk in captains}
                for pk, player in players
            ],
            "search": [name, *(player for _pk, player in players)],
        }

    for table in _tables(SittingGame.objects.filter(sitting=sitting).order_by("position")):
        teams = [side(team[1], team[5]) for team in table.teams]
        words = [word for team in teams for word in team["search"]]
        if wanted and not any(wanted in search_key(word) for word in words):
            continue
        tables.append({"label": table.label, "url": table.url, "teams": teams, "search": words})
    seats = [
        value
        for seat in PLAYER_FIELDS
        for value in (f"entry__team__{seat}_id", f"entry__team__{seat}__name")
    ]
    for name, *players in Bye.objects.filter(sitting=sitting).values_list(
        "entry__team__name", *seats
    ):
        bye = side(
            name,
            [(players[at], players[at + 1]) for at in range(0, 8, 2) if players[at] is not None],
        )
        if not wanted or any(wanted in search_key(word) for word in bye["search"]):
            byes.append(bye)
    return context
