"""A finished game's figures, counted in Python from its stored deals, ledger and places:
one row per side (:class:`PlayerGameFigures`, :class:`TeamGameFigures`), filed under the
game's club, tournament, start date and form of play.

The figures are defined in :mod:`club.leaderboards.selectors`. A game is won by the team it
names its winner (``Game.winner``: the team placed first alone, as the game's services
decide); a level game, its first place shared, is played and won by none.
"""

from __future__ import annotations

from collections import defaultdict

from django.db.models import F, Max, Q, Sum
from django.utils import timezone

from club.clubs import known
from club.games.models import Doubling, Game, GameTeam, LedgerEntry, Round
from club.games.words import KODI, POINTS, form_named
from club.leaderboards.models import PlayerGameFigures, TeamGameFigures

COUNTS = (
    "played",
    "won",
    "declared",
    "made",
    "doubles_won",
    "doubles_lost",
    "redoubles_won",
    "redoubles_lost",
    "tables_net",
    "points_for",
    "points_against",
    "sessions_won",
    "kodis_taken",
    "kodis_given",
)
FIELDS = (*COUNTS, "biggest_bid")
# A game's row also says its form of play (words.form_named) and its club.
GAME_FIELDS = (*FIELDS, "form", "club_id")
# A side's totals, summed from its game rows.
SUMS = {name: Sum(name) for name in COUNTS} | {"biggest_bid": Max("biggest_bid")}


# A seat (a GameTeam row) that won its game: the one its game names the winner.
WON = Q(game__winner=F("pk"))


def _blank() -> dict:
    return {**dict.fromkeys(COUNTS, 0), "biggest_bid": None}


def bigger(current: int | None, bid: int | None) -> int | None:
    """The bigger bid made; a thani has none."""
    if bid is None:
        return current
    return bid if current is None or bid > current else current


def _finished_seats(game_ids: list[int]) -> list:
    """Every seat (a GameTeam row) of the finished games among ``game_ids``, with its game's
    details."""
    return list(
        GameTeam.objects.filter(game_id__in=game_ids, game__status=Game.Status.FINISHED).values(
            "id",
            "game_id",
            "team_id",
            "first_player_id",
            "second_player_id",
            "third_player_id",
            "fourth_player_id",
            "place",
            "tables",
            "score",
            "kodis",
            "game__winner_id",
            "game__club_id",
            "game__created_at",
            "game__scoring",
            "game__kodi",
            "game__tables_per_team",
            "game__sitting_entry__sitting__tournament_id",
        )
    )


def _seat_figures(seats: list[dict]) -> tuple[dict[int, dict], dict[int, str], set[int]]:
    """Each seat's figures its seat alone gives, by seat id; each game's form of play; the
    kodi games (whose tables net their ledger gives)."""
    side: dict[int, dict] = {}  # seat id -> the team's figures at that game
    kodi_games: set[int] = set()
    # The points and kodis of every team at each game: a side's "against" and "given"
    # are the other teams'.
    scores: dict[int, int] = defaultdict(int)
    kodis: dict[int, int] = defaultdict(int)
    for seat in seats:
        scores[seat["game_id"]] += seat["score"]
        kodis[seat["game_id"]] += seat["kodis"]
    form: dict[int, str] = {}  # game id -> its form of play
    for seat in seats:
        figures = _blank()
        figures["played"] = 1
        figures["won"] = int(seat["id"] == seat["game__winner_id"])  # level: none won
        game = seat["game_id"]
        form[game] = form_named(seat["game__scoring"], seat["game__kodi"])
        # Tables net counts tables: on a points sheet every team holds its start.
        if form[game] == POINTS:
            figures["points_for"] = seat["score"]
            figures["points_against"] = scores[game] - seat["score"]
            figures["sessions_won"] = figures["won"]
        elif form[game] == KODI:
            figures["kodis_taken"] = seat["kodis"]
            figures["kodis_given"] = kodis[game] - seat["kodis"]
            kodi_games.add(game)  # its tables net from the ledger, below
        else:
            figures["tables_net"] = seat["tables"] - seat["game__tables_per_team"]
        side[seat["id"]] = figures
    return side, form, kodi_games


def _kodi_tables_net(side: dict[int, dict], kodi_games: set[int]) -> None:
    """The tables net of each seat of these kodi games, from its ledger's changes."""
    for seat_id, net in (
        LedgerEntry.objects.filter(game_team__game_id__in=kodi_games)
        .values("game_team_id")
        .annotate(net=Sum("change"))
        .values_list("game_team_id", "net")
    ):
        side[seat_id]["tables_net"] = net or 0


def _count_deals(seats: list[dict], side: dict[int, dict]) -> dict[tuple[int, int], dict]:
    """Count the games' deals into each seat's figures; returns each declarer's own count,
    by (game, player): declared, made, the biggest bid made."""
    ids = sorted({seat["game_id"] for seat in seats})
    declarer: dict[tuple[int, int], dict] = {}  # (game, player) -> declared, made, biggest
    seats_of_game: dict[int, list[int]] = defaultdict(list)
    for seat in seats:
        seats_of_game[seat["game_id"]].append(seat["id"])

    deals = Round.objects.filter(game_id__in=ids).values_list(
        "game_id", "declaring_team_id", "declarer_id", "made", "bid", "doubling", "all_pass"
    )
    for game_id, declaring, player, made, bid, doubling, all_pass in deals.iterator(
        chunk_size=5000
    ):
        if declaring is not None:
            team = side[declaring]
            team["declared"] += 1
            if made:
                team["made"] += 1
                if not all_pass:
                    team["biggest_bid"] = bigger(team["biggest_bid"], bid)
        if player is not None:
            mine = declarer.setdefault((game_id, player), {"declared": 0, "made": 0, "big": None})
            mine["declared"] += 1
            if made:
                mine["made"] += 1
                mine["big"] = bigger(mine["big"], bid)
        if doubling != Doubling.NONE and declaring is not None:
            name = "doubles" if doubling == Doubling.DOUBLE else "redoubles"
            for seat_id in seats_of_game[game_id]:
                # Declaring and made, or defending and the declarer failed, is a win.
                won = made if seat_id == declaring else not made
                side[seat_id][f"{name}_{'won' if won else 'lost'}"] += 1
    return declarer


def _rows(
    seats: list[dict],
    side: dict[int, dict],
    form: dict[int, str],
    declarer: dict[tuple[int, int], dict],
) -> tuple[list[PlayerGameFigures], list[TeamGameFigures]]:
    """The game rows: a team's are its seat's figures; a player's, their team's with their
    own declarations."""
    players, teams = [], []
    for seat in seats:
        game_id = seat["game_id"]
        where = {
            "game_id": game_id,
            "tournament_id": seat["game__sitting_entry__sitting__tournament_id"],
            "played_on": timezone.localdate(
                seat["game__created_at"], known.by_id(seat["game__club_id"]).zone
            ),
            "form": form[game_id],
            "club_id": seat["game__club_id"],
        }
        figures = side[seat["id"]]
        teams.append(TeamGameFigures(team_id=seat["team_id"], **where, **figures))
        for key in ("first_player_id", "second_player_id", "third_player_id", "fourth_player_id"):
            player = seat[key]
            if player is None:
                continue
            mine = declarer.get((game_id, player), {"declared": 0, "made": 0, "big": None})
            players.append(
                PlayerGameFigures(
                    player_id=player,
                    **where,
                    **{
                        **figures,
                        "declared": mine["declared"],
                        "made": mine["made"],
                        "biggest_bid": mine["big"],
                    },
                )
            )
    return players, teams


def games_figures(game_ids: list[int]) -> tuple[list[PlayerGameFigures], list[TeamGameFigures]]:
    """The rows of the finished games among ``game_ids``, from their stored deals: two queries.

    A team's tables net is the tables it ended with less those it started with
    (its ledger's changes add up to that, the ledger being a replay's); a kodi
    game starts every team again at each kodi, so its net is read from its
    ledger (a third query, for those games only).
    """
    seats = _finished_seats(game_ids)
    if not seats:
        return [], []
    side, form, kodi_games = _seat_figures(seats)
    if kodi_games:
        _kodi_tables_net(side, kodi_games)
    declarer = _count_deals(seats, side)
    return _rows(seats, side, form, declarer)
