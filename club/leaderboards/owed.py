"""The leaderboards follow a game that finished, or changed after finishing.

Its figures (club.leaderboards.figures) and the ratings (services.rate_game) are
brought up to date from the game as it now is. A change made through a page
leaves that work until its answer has gone out (club.web.after): the scorer who
records the deal that ends a game is answered once the game, its deals and the
tournament's standings are written, and the worker brings the boards up to
date before it takes its next request. The change's own transaction records
the game as *owed* (:class:`OwedGame`), so the work is never lost and never
read stale: every reader of the figures or ratings calls ``services.catch_up`` first
(``selectors.live_version``, which the boards, the profile and their kept
copies read; the register; a merge; a backup), and whoever comes first does it.
Outside a request (commands, imports from the command line, tests calling the
services) the work is done at once, in the change's transaction, as before.

Doing it is the same whenever it is done: a game's rows are written again from
the game as it is when the work runs (the cheap path, adding to its sides'
totals, when it has none yet), and the ratings are brought up to date from its
place in the order games finished. A game changed twice before the work runs is
owed once; a game deleted meanwhile takes its row with it (the delete's own
receivers see to its figures and ratings).
"""

from __future__ import annotations

from collections.abc import Sequence

from club.games.models import Game
from club.leaderboards import figures
from club.leaderboards.models import OwedGame
from club.leaderboards.services.owed_work import catch_up
from club.leaderboards.services.ratings import rate_game, rate_written
from club.web import after


def follow(game: Game, *, was_finished: bool) -> None:
    """``game`` finished, or was finished before this change (games.signals.game_changed)."""
    if after.answering():
        OwedGame.objects.bulk_create([OwedGame(game=game)], ignore_conflicts=True)
        after.later(catch_up)
        return
    # Games left owed first: their rows and ratings are this change's ground. If this
    # game was one of them, its work was just done from the game as it now is.
    if game.pk in catch_up():
        return
    figures.refresh_game(game, was_finished=was_finished)
    rate_game(game)


def follow_written(games: Sequence[Game]) -> None:
    """Games written together, none of them finished before (an import,
    games.bulk.announce): their rows, their sides' totals and their ratings, once for
    all of them; after the answer, as :func:`follow` leaves a game's."""
    games = [game for game in games if game.is_finished]
    if not games:
        return
    if after.answering():
        OwedGame.objects.bulk_create(
            [OwedGame(game=game) for game in games], ignore_conflicts=True, batch_size=1000
        )
        after.later(catch_up)
        return
    catch_up()
    figures.refresh_games([game.pk for game in games], had_rows=False)
    rate_written(games)
