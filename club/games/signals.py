"""Sent inside the transaction of every write that changes a game's deals or result.

Receivers (tournament standings, ratings) update what they derive from it in
the same transaction, so a reader never sees a result without its standings.
"""

from django.dispatch import Signal

# kwargs: game (the Game, after the change), was_finished (bool, before the change)
game_changed = Signal()

# kwargs: games (the Games, after the write), written together by club.games.bulk (an
# import), none finished before it: the boards' figures and ratings follow them all at
# once. A tournament's standings follow its import's end (tournaments.services.finish_import),
# once its sittings hold its games.
games_written = Signal()
