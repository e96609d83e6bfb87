"""Sent inside the transaction of every write that changes a game's deals or result.

Receivers (tournament standings, ratings) update what they derive from it in
the same transaction, so a reader never sees a result without its standings.
"""

from django.dispatch import Signal

# kwargs: game (the Game, after the change), was_finished (bool, before the change)
game_changed = Signal()
