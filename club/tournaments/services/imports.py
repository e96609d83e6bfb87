"""A played tournament read from an archive (club.archive): its sittings as they were
played, then its status, finality and standings."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction
from django.utils import timezone

from club.games.models import Game
from club.tournaments.models import Bye, Sitting, SittingGame, Tournament, TournamentTeam
from club.tournaments.services.standings import rebuild_locked
from club.tournaments.writes import lock


@transaction.atomic
def import_sitting(
    *,
    tournament: Tournament,
    number: int,
    game_size: int,
    tables: Sequence[tuple[str, Game, Sequence[TournamentTeam]]],
    byes: Sequence[TournamentTeam] = (),
    absent: Sequence[TournamentTeam] = (),
) -> Sitting:
    """A sitting already played, from an archive: confirmed, with its games and byes (and
    the teams it left out for not checking in).

    ``tables`` are (table label, the game, its registered teams in seat order),
    in table order; the games are written already (the importer writes them), each a
    game of the tournament's club: a tournament's games are its club's.
    """
    strays = [game.label for _label, game, _teams in tables if game.club_id != tournament.club_id]
    if strays:  # the importer seats a tournament's games in its club: a caller's mistake
        raise ValueError(f"games of another club than the tournament's: {', '.join(strays)}")
    sitting = Sitting.objects.create(
        tournament=tournament,
        number=number,
        status=Sitting.Status.CONFIRMED,
        game_size=game_size,
        proposal=[[entry.pk for entry in teams] for _label, _game, teams in tables],
        proposed_byes=[entry.pk for entry in byes],
        absent=sorted(entry.pk for entry in absent),
        confirmed_at=timezone.now(),
    )
    for position, (label, game, _teams) in enumerate(tables):
        # One by one: filing each game under the tournament follows its save.
        SittingGame.objects.create(sitting=sitting, game=game, table_label=label, position=position)
    Bye.objects.bulk_create(Bye(sitting=sitting, entry=entry) for entry in byes)
    return sitting


@transaction.atomic
def finish_import(*, tournament: Tournament, status: str, final: bool) -> Tournament:
    """An imported tournament's status and finality as its archive says; then its standings."""
    Tournament.objects.filter(pk=tournament.pk).update(status=status, is_final=final)
    if final:
        Game.objects.filter(sitting_entry__sitting__tournament=tournament).update(
            results_locked=True
        )
    tournament = lock(tournament)
    rebuild_locked(tournament)
    return tournament
