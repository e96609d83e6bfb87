"""Storing a checked file, all of it or nothing: games through the deal services
and the bulk writer, tournaments through the tournament services."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.db import DatabaseError, transaction
from django.utils.translation import gettext as _

from club.archive.documents import (
    parse_archive,
)
from club.archive.format import (
    ArchiveError,
    GameSpec,
    _decap,
    _key,
    _Place,
)
from club.archive.parse_tournaments import (
    TournamentSpec,
    _check_standings,
)
from club.archive.tournament_export import (
    _standing_rows,
)
from club.games import bulk, services
from club.games.models import (
    Game,
)
from club.scoring import rules as core
from club.tournaments import services as tournament_services
from club.tournaments.models import Tournament

# --- Import -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ImportSummary:
    games: int
    deals: int
    tournaments: tuple[str, ...] = ()


def _write_game(spec: GameSpec, user=None, *, require_confirmation: bool = False) -> Game:
    """Store a checked game: started by the services (players, teams), its deals in bulk."""
    try:
        game = services.create_game(
            label=spec.label,
            teams=[
                services.TeamEntry(team.first, team.second, team.name, *team.more)
                for team in spec.teams
            ],
            first_dealer=spec.first_dealer,
            rules=spec.rules,
            user=user,
            deal_limit=spec.deal_limit,
            require_confirmation=require_confirmation,
        )
        # The deals are settled already (parse_game replayed them): their rows are
        # written in bulk, the rows record_deal and end_game would write one by one.
        bulk.write_game(
            bulk.PlayedGame(
                game=game,
                seating=services.load_seating(game),
                settlements=spec.settlements,
                state=spec.state,
                ended_early=spec.ended_early,
            ),
            user=user,
        )
    except services.ScoringError as error:
        raise ArchiveError(
            _decap(error.message), label=spec.label, number=error.number, field=error.field
        ) from error
    except DatabaseError as error:
        raise ArchiveError(
            _("the database refused it (%(reason)s).") % {"reason": error}, label=spec.label
        ) from error
    return game


def import_results(text: str, *, user=None) -> ImportSummary:
    """Check the whole file, then store all of it, or nothing when anything is wrong."""
    with transaction.atomic():
        documents = parse_archive(text)
        for document in documents:
            if document.tournament is None:
                for spec in document.games:
                    _write_game(spec, user)
            else:
                _write_tournament(document.tournament, user)
    specs = [spec for document in documents for spec in document.games]
    return ImportSummary(
        games=len(specs),
        deals=sum(len(spec.deals) for spec in specs),
        tournaments=tuple(d.tournament.name for d in documents if d.tournament is not None),
    )


def read_text(read: Callable[[], bytes]) -> str:
    """Decode a file's bytes as UTF-8 (with or without a byte-order mark)."""
    try:
        return read().decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ArchiveError(
            _("The file is not UTF-8 text (%(reason)s).") % {"reason": error}
        ) from None


def _written_when_shared_firsts_won(
    place: _Place, spec: TournamentSpec, tournament: Tournament, points_sheet: bool
) -> bool:
    """Whether the file's standings are right by the rule they were written by, when a
    shared first place counted as a game won for each team sharing it: such a file
    stays valid (its tournament is stored and exported by today's rule)."""
    legacy = _standing_rows(tournament, shared_first_wins=True)
    try:
        _check_standings(place, spec.standings, legacy, points_sheet)
    except ArchiveError:
        return False
    return True


def _write_tournament(spec: TournamentSpec, user=None) -> Tournament:
    """Store a checked tournament: its row, teams, sittings, games, byes, then standings."""
    place = _Place(None, None, tournament=spec.name)
    try:
        tournament = tournament_services.create_tournament(
            name=spec.name,
            starts_on=spec.starts_on,
            ends_on=spec.ends_on,
            venue=spec.venue,
            rules=spec.rules,
            deal_limit=spec.deal_limit,
            points_scheme=spec.points_scheme,
            require_confirmation=spec.require_confirmation,
            user=user,
        )
        entries = {
            _key(team.name): tournament_services.register_team(
                tournament=tournament,
                first=team.first,
                second=team.second,
                third=team.players[2] if len(team.players) > 2 else "",
                fourth=team.players[3] if len(team.players) > 3 else "",
                name=team.name,
                user=user,
            )
            for team in spec.teams
        }
    except tournament_services.TournamentError as error:
        raise place.error(_decap(error.message), field=error.field) from error
    for sitting_spec in spec.sittings:
        tables = [
            (
                table,
                _write_game(game_spec, user, require_confirmation=spec.require_confirmation),
                [entries[_key(team.name)] for team in game_spec.teams],
            )
            for table, game_spec in sitting_spec.games
        ]
        tournament_services.import_sitting(
            tournament=tournament,
            number=sitting_spec.number,
            game_size=sitting_spec.game_size,
            tables=tables,
            byes=[entries[_key(name)] for name in sitting_spec.byes],
        )
    tournament = tournament_services.finish_import(
        tournament=tournament, status=spec.status, final=spec.final
    )
    if spec.standings is not None:
        points_sheet = spec.rules.scoring == core.Scoring.POINTS
        try:
            _check_standings(place, spec.standings, _standing_rows(tournament), points_sheet)
        except ArchiveError:
            if not _written_when_shared_firsts_won(place, spec, tournament, points_sheet):
                raise
    return tournament
