"""Writes for tournaments, a module a concern.

- ``lifecycle``: create a tournament, finish it, make its results final, reopen it;
- ``teams``: register teams (one, or a pasted list), edit, withdraw, reinstate them;
- ``draw``: propose a sitting's draw (Swiss, or from the stage being played), adjust or
  discard it;
- ``sittings``: confirm a sitting (its games start), issue its tables' scorer links;
- ``standings``: derive the standings from the finished games;
- ``imports``: a played tournament from an archive (club.archive).

Every write runs in one transaction with the tournament row locked
(club.tournaments.writes), so two organisers drawing the same sitting at once get
one draw, and a tournament whose results are final cannot change until it is
reopened (which is recorded). Game results go through ``club.games.services``;
these modules only derive standings from them.

The names other apps use are re-exported here; the tournaments app's own modules
import from the concern's module.
"""

from club.tournaments.calling_time import call_time as call_time
from club.tournaments.services.draw import adjust_sitting as adjust_sitting
from club.tournaments.services.draw import discard_sitting as discard_sitting
from club.tournaments.services.draw import propose_sitting as propose_sitting
from club.tournaments.services.imports import finish_import as finish_import
from club.tournaments.services.imports import import_sitting as import_sitting
from club.tournaments.services.lifecycle import create_tournament as create_tournament
from club.tournaments.services.lifecycle import finish_tournament as finish_tournament
from club.tournaments.services.lifecycle import make_final as make_final
from club.tournaments.services.lifecycle import reopen as reopen
from club.tournaments.services.sittings import confirm_sitting as confirm_sitting
from club.tournaments.services.sittings import issue_sitting_links as issue_sitting_links
from club.tournaments.services.standings import game_results as game_results
from club.tournaments.services.standings import rebuild_standings as rebuild_standings
from club.tournaments.services.standings import results_changed as results_changed
from club.tournaments.services.standings import scheme_of as scheme_of
from club.tournaments.services.standings import standing_figures as standing_figures
from club.tournaments.services.teams import RegistrationErrors as RegistrationErrors
from club.tournaments.services.teams import TeamLine as TeamLine
from club.tournaments.services.teams import edit_team as edit_team
from club.tournaments.services.teams import register_team as register_team
from club.tournaments.services.teams import register_teams as register_teams
from club.tournaments.services.teams import reinstate_team as reinstate_team
from club.tournaments.services.teams import team_size_words as team_size_words
from club.tournaments.services.teams import withdraw_team as withdraw_team
from club.tournaments.writes import TournamentError as TournamentError
