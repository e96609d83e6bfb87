"""Writes for the club register and the ratings, one module a concern.

Terms
-----
*register*: the club's players (name, nickname, member number, active or not).
*merge*: two records of the same person become one (club.leaderboards.merge).
*ratings*: rebuilt from scratch from every finished game, so a correction
never drifts.

Every write runs in one transaction and raises :class:`RegisterError` with a
message an organiser understands; nothing is saved then.

- ``register``: adding a player, changing their details, marking them inactive;
- ``importing``: the register from a CSV file, all or nothing;
- ``ratings``: the players' ratings, in step with the finished games;
- ``owed_work``: the work owed to the boards after a game's change, done.

The names other apps and the tests use are given again here.
"""

from club.leaderboards.services.importing import MAX_IMPORT_BYTES as MAX_IMPORT_BYTES
from club.leaderboards.services.importing import PlayerImportError as PlayerImportError
from club.leaderboards.services.importing import import_players as import_players
from club.leaderboards.services.owed_work import catch_up as catch_up
from club.leaderboards.services.ratings import rated_games as rated_games
from club.leaderboards.services.ratings import rebuild_ratings as rebuild_ratings
from club.leaderboards.services.register import RegisterError as RegisterError
from club.leaderboards.services.register import register_player as register_player
from club.leaderboards.services.register import update_player as update_player
