"""Reads for the tournament pages, each in a fixed number of queries; a module a concern.

- ``live``: what the public pages show and refresh (standings, sittings, the token
  they poll by, the embed and the projector);
- ``pages``: the tournament's page for the organiser, and the list of tournaments;
- ``sittings``: a sitting's page (a proposed draw, or the games confirmed);
- ``board``: the director's board;
- ``stages``: a stage's page (groups and chart, round robin, or bracket).

The names other apps and the tests use are re-exported here; the tournaments app's own
modules import from the concern's module.
"""

from club.tournaments.selectors.board import board_version as board_version
from club.tournaments.selectors.board import current_sitting as current_sitting
from club.tournaments.selectors.board import director_board as director_board
from club.tournaments.selectors.live import live_version as live_version
from club.tournaments.selectors.sittings import rematches as rematches
from club.tournaments.selectors.stages import bracket_of as bracket_of
