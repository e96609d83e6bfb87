"""The work owed to the boards (club.leaderboards.owed), done: the owed games' figures,
then the ratings."""

from __future__ import annotations

from django.db import transaction

from club.games.models import Game
from club.leaderboards import figures
from club.leaderboards.models import OwedGame, PlayerGameFigures
from club.leaderboards.services.ratings import lock_state, rate_owed


def _refresh_figures(games: dict[int, Game]) -> None:
    """Write the owed games' rows again, and their sides' totals."""
    counted = set(
        PlayerGameFigures.objects.filter(game_id__in=games)
        .values_list("game_id", flat=True)
        .distinct()
    )
    # Together, as an import's games are owed: their rows first, then their totals.
    fresh = [pk for pk in games if pk not in counted]
    if fresh:
        figures.refresh_games(fresh, had_rows=False)
    if counted:
        figures.refresh_games(sorted(counted))


def catch_up() -> set[int]:
    """Do the work owed for every game that waits for it (owed.py); returns their ids.

    One query when nothing is owed. The ratings' lock makes two catch-ups (a worker
    after its answer, a reader in another) take turns: the second finds nothing left.
    The ratings follow as :func:`~club.leaderboards.services.ratings.rate_owed` says.
    """
    if not OwedGame.objects.exists():
        return set()
    with transaction.atomic():
        state = lock_state()
        owed = list(OwedGame.objects.order_by("pk").values_list("pk", "game_id"))
        games = Game.objects.in_bulk([game for _pk, game in owed])
        _refresh_figures(games)
        rate_owed(state, games)
        OwedGame.objects.filter(pk__in=[pk for pk, _game in owed]).delete()
    return {game for _pk, game in owed}
