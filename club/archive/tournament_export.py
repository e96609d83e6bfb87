"""The exports of one tournament: its archive document (its club, the tournament object
and its games) and its three CSV tables, made from stored rows as they are read."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence

from django.utils.translation import gettext as _

from club.archive.export import (
    _chunked,
    _csv_line_writer,
    _csv_stream,
    _deal_lines,
    _deal_rows,
    _document_json,
    _export_games,
    _flag,
    _safe_cell,
)
from club.archive.format import (
    CSV_TABLES,
    FORMAT,
    GAMES_CSV_COLUMNS,
    MAX_TEAMS_IN_GAME,
    POINTS_GAMES_CSV_COLUMNS,
    POINTS_STANDINGS_CSV_COLUMNS,
    STANDINGS_CSV_COLUMNS,
    TOURNAMENT_DEALS_CSV_COLUMNS,
    ArchiveError,
    _and_list,
    _quoted,
    _settings_fields,
    points_text,
    standing_keys,
)
from club.archive.parse_club import club_object
from club.archive.register import tournament_players
from club.archive.stored_games import _TOURNAMENT_GAME_FIELDS, _ExportGame
from club.clubs import known as clubs
from club.games import words
from club.games.models import PLAYER_FIELDS, Game
from club.scoring import rules as core
from club.scoring import standings as ranking
from club.tournaments import services as tournament_services
from club.tournaments.models import Bye, Sitting, SittingGame, Substitution, Tournament


def results_word(tournament: Tournament) -> str:
    """What every export says about the results: "final" or "provisional"."""
    return "final" if tournament.is_final else "provisional"


def _tournament_game_rows(tournament: Tournament) -> list[tuple]:
    """The games of the tournament's confirmed sittings, in sitting and table order.

    Values of ``_TOURNAMENT_GAME_FIELDS``: a few small columns per game, for
    ``_read_chunk`` to read the rest of a chunk at a time.
    """
    return list(
        Game.objects.filter(
            sitting_entry__sitting__tournament=tournament,
            sitting_entry__sitting__status=Sitting.Status.CONFIRMED,
        )
        .order_by("sitting_entry__sitting__number", "sitting_entry__position")
        .values_list(*_TOURNAMENT_GAME_FIELDS)
    )


def _tournament_export_games(tournament: Tournament) -> Iterator[_ExportGame]:
    return _export_games(_chunked(_tournament_game_rows(tournament)))


def _standing_rows(tournament: Tournament, *, shared_first_wins: bool = False) -> list[dict]:
    """The standings, computed from the finished games as the tournament services store them.

    Computed here rather than read from the stored rows so that points keep
    their exact value (the stored column rounds 4/3 to 1.33).
    """
    entries = list(tournament.entries.select_related("team"))  # the services' order: by name
    names = {entry.pk: entry.team.name for entry in entries}
    byes = Counter(
        Bye.objects.filter(sitting__tournament=tournament).values_list("entry_id", flat=True)
    )
    table = ranking.standings(
        [entry.pk for entry in entries],
        tournament_services.game_results(tournament),
        tournament_services.scheme_of(tournament),
        shared_first_wins=shared_first_wins,
    )
    points_sheet = tournament.scoring == core.Scoring.POINTS
    return [
        {
            "place": row.place,
            "shared": row.shared,
            "team": names[row.team],
            "points": points_text(row.points),
            "games": row.games,
            "won": row.won,
            **(
                {"score_difference": row.score_difference}
                if points_sheet
                else {"net_tables": row.net_tables}
            ),
            "declared": row.declared,
            "made": row.made,
            "byes": byes.get(row.team, 0),
        }
        for row in table
    ]


def _team_object(entry) -> dict:
    """A registered team: its name and players, and its captain when the captain is not
    the first player (a file that names no captain has the first: its export is the same)."""
    team = {"name": entry.team.name, "players": [player.name for player in entry.team.players]}
    captain = next((p.name for p in entry.team.players if p.pk == entry.captain_id), None)
    if captain is not None and entry.captain_id != entry.team.first_player_id:
        team["captain"] = captain  # a captain not of the team (set by hand) is not written
    return team


def tournament_object(tournament: Tournament) -> dict:
    """The tournament as this format writes it (its teams, settings, sittings with their
    draws, and standings), without its games: the archive's head, and the API's (club/api)."""
    data: dict = {
        "name": tournament.name,
        "starts_on": tournament.starts_on.isoformat(),
        "ends_on": tournament.ends_on.isoformat() if tournament.ends_on else None,
        "venue": tournament.venue,
        "status": tournament.status,
        "final": tournament.is_final,
        "provisional": not tournament.is_final,
    }
    data.update(_tournament_settings(tournament))
    entries = list(
        tournament.entries.select_related(*(f"team__{seat}" for seat in PLAYER_FIELDS)).order_by(
            "id"
        )
    )
    data["teams"] = [_team_object(entry) for entry in entries]
    name_of = {entry.pk: entry.team.name for entry in entries}
    made = _substitutions_list(tournament, name_of)
    if made:  # only a tournament with substitutions lists them
        data["substitutions"] = made
    data["sittings"] = _sittings_list(tournament, name_of)
    data["standings"] = _standing_rows(tournament)
    return data


def _tournament_settings(tournament: Tournament) -> dict:
    """The tournament's house rules that differ from the defaults, its deals per game,
    points by place and confirmation, and what is written only when asked for."""
    data = _settings_fields(tournament.rules)
    if data["tables_per_team"] == core.DEFAULT_RULES.tables_per_team:
        del data["tables_per_team"]  # only house rules that differ from the defaults
    data["deals_per_game"] = tournament.deal_limit
    scheme = tournament_services.scheme_of(tournament)
    data["points_by_place"] = {
        str(count): list(points) for count, points in sorted(scheme.by_team_count.items())
    }
    data["require_confirmation"] = tournament.require_confirmation
    if tournament.check_in:  # only when asked for: a file written before reads the same
        data["check_in"] = True
    if tournament.substitutions != 1:  # likewise: one a team is the default
        data["substitutions_per_team"] = tournament.substitutions
    return data


def _substitutions_list(tournament: Tournament, name_of: dict[int, str]) -> list[dict]:
    """Each substitution made, in the order they were: the team, who went out and who came
    in, from which sitting and, when the starter came back, until which."""
    return [
        {
            "team": name_of[substitution.entry_id],
            "out": substitution.player_out.name,
            "in": substitution.player_in.name,
            "from": substitution.first_sitting,
            **(
                {"until": substitution.last_sitting}
                if substitution.last_sitting is not None
                else {}
            ),
        }
        for substitution in Substitution.objects.filter(entry__tournament=tournament)
        .select_related("player_out", "player_in")
        .order_by("id")
    ]


def _sittings_list(tournament: Tournament, name_of: dict[int, str]) -> list[dict]:
    """The confirmed sittings in order, each with its tables' games, byes and absent teams.

    Three queries for every sitting together, so the export's queries do not grow with
    the tournament.
    """
    sittings = list(
        tournament.sittings.filter(status=Sitting.Status.CONFIRMED)
        .order_by("number")
        .values_list("id", "number", "game_size", "absent")
    )
    tables: dict[int, list[dict]] = {row[0]: [] for row in sittings}
    for sitting, table, label in (
        SittingGame.objects.filter(sitting_id__in=tables)
        .order_by("sitting_id", "position")
        .values_list("sitting_id", "table_label", "game__label")
    ):
        tables[sitting].append({"table": table, "game": label})
    byes: dict[int, list[str]] = {sitting: [] for sitting in tables}
    for sitting, entry_id in (
        Bye.objects.filter(sitting_id__in=tables)
        .order_by("sitting_id", "entry_id")
        .values_list("sitting_id", "entry_id")
    ):
        byes[sitting].append(name_of[entry_id])
    return [
        {
            "number": number,
            "game_size": size,
            "games": tables[pk],
            "byes": byes[pk],
            # Only a sitting with teams left out for not checking in says who.
            **({"absent": sorted(name_of[entry] for entry in absent)} if absent else {}),
        }
        for pk, number, size, absent in sittings
    ]


def stream_tournament_json(tournaments: Sequence[Tournament]) -> Iterator[str]:
    """One tournament's document, or a list of documents for several, in pieces."""
    if len(tournaments) == 1:
        yield from _tournament_document_json(tournaments[0], "")
        yield "\n"
        return
    for number, tournament in enumerate(tournaments):
        yield "[\n  " if number == 0 else ",\n  "
        yield from _tournament_document_json(tournament, "  ")
    yield "\n]\n"


def _tournament_document_json(tournament: Tournament, pad: str) -> Iterator[str]:
    head = {
        "format": FORMAT,
        "club": club_object(clubs.by_id(tournament.club_id or clubs.home_id())),
        "players": tournament_players(tournament),
        "tournament": tournament_object(tournament),
    }
    return _document_json(head, _tournament_export_games(tournament), pad)


def export_tournament_json(tournaments: Sequence[Tournament]) -> str:
    """One tournament's document, or a list of documents for several."""
    return "".join(stream_tournament_json(tournaments))


def _check_table(table: str) -> None:
    if table not in CSV_TABLES:
        raise ArchiveError(
            _("%(table)s is not a table of a tournament's export; choose %(tables)s.")
            % {"table": _quoted(table), "tables": _and_list(CSV_TABLES)}
        )


def _tournament_rows(tournament: Tournament, table: str) -> Iterator[list[object]]:
    """The rows of a tournament's standings or games table after the header."""
    results = results_word(tournament)
    points_sheet = tournament.scoring == core.Scoring.POINTS
    if table == "standings":
        keys = standing_keys(points_sheet)
        for row in _standing_rows(tournament):
            cells = [results] + [row[key] for key in keys]
            cells[2] = _flag(row["shared"])
            yield [_safe_cell(cell) for cell in cells]
        return
    for game in _tournament_export_games(tournament):
        finished, places = game.outcome
        cells = [
            results,
            game.sitting,
            _safe_cell(game.table),
            _safe_cell(game.label),
            Game.Status.FINISHED.value if finished else Game.Status.IN_PROGRESS.value,
            game.state.deals_played,
        ]
        for position in range(MAX_TEAMS_IN_GAME):
            if position < len(game.teams):
                cells += [
                    _safe_cell(game.teams[position].name),
                    places.get(position, ""),
                    (game.state.scores if points_sheet else game.state.tables)[position],
                ]
            else:
                cells += ["", "", ""]
        yield cells


def _tournament_deals(tournament: Tournament) -> Iterator[tuple[_ExportGame, tuple]]:
    """The games of the deals table, each with the cells its rows start with."""
    results = results_word(tournament)
    for game in _tournament_export_games(tournament):
        yield game, (results, game.sitting, _safe_cell(game.table))


def _tournament_csv_header(tournament: Tournament, table: str) -> tuple[str, ...]:
    if table == "deals":
        # Each team's count after the deal, named as the form of play counts it.
        after = words.after_column(tournament)
        return tuple(
            after if column == "tables_after" else column for column in TOURNAMENT_DEALS_CSV_COLUMNS
        )
    points_sheet = tournament.scoring == core.Scoring.POINTS
    if table == "standings":
        return POINTS_STANDINGS_CSV_COLUMNS if points_sheet else STANDINGS_CSV_COLUMNS
    return POINTS_GAMES_CSV_COLUMNS if points_sheet else GAMES_CSV_COLUMNS


def tournament_csv_rows(tournament: Tournament, table: str) -> Iterator[list]:
    """The header and rows of one of a tournament's CSV tables, made as they are read.

    Every row starts with "results": provisional or final.
    """
    _check_table(table)
    yield list(_tournament_csv_header(tournament, table))
    if table == "deals":
        for game, where in _tournament_deals(tournament):
            yield from map(list, _deal_rows(game, where))
    else:
        yield from map(list, _tournament_rows(tournament, table))


def stream_tournament_csv(tournament: Tournament, table: str = "deals") -> Iterator[str]:
    """One of a tournament's CSV tables as text, in pieces; an unknown table is refused now."""
    _check_table(table)
    texts: Iterable[str]
    if table == "deals":
        texts = (_deal_lines(game, where) for game, where in _tournament_deals(tournament))
    else:
        texts = map(_csv_line_writer(), _tournament_rows(tournament, table))
    return _csv_stream(_tournament_csv_header(tournament, table), texts)


def export_tournament_csv(tournament: Tournament, table: str = "deals") -> str:
    return "".join(stream_tournament_csv(tournament, table))
