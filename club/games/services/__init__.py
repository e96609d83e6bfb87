"""The games' writes: start a game, take its deals, correct and undo them.

One module a concern:

- ``deals``: :func:`submit_deal`, the one way in for a deal (from the organiser's
  page or a scorer's link), and the organiser's corrections: a deal edited, the
  last one undone, time called, the ledger rebuilt;
- ``recording``: writing a settled deal (its round, piles, ledger, the game's new
  standing, the history's line) with the game's row locked;
- ``replay``: where a game stands, from what the last write stored or by
  replaying its deals through the rules core, and what a replay rewrites;
- ``refusals``: what a game refuses before a deal is read, its words named once;
- ``seating``: who sits where, and a deal in seats (the rules core's
  :class:`~club.scoring.rules.Deal`) from the form to the rules.

Starting a game lives in ``club.games.starting``; the confirmation of a deal
sent through a team's link in ``club.games.links``. The names below are the
services' public interface, each imported from the module that defines it.
"""

from __future__ import annotations

from club.games.errors import ScoringError as ScoringError
from club.games.services.deals import Sent as Sent
from club.games.services.deals import edit_deal as edit_deal
from club.games.services.deals import end_game as end_game
from club.games.services.deals import rebuild_ledger as rebuild_ledger
from club.games.services.deals import record_deal as record_deal
from club.games.services.deals import submit_deal as submit_deal
from club.games.services.deals import undo_last_deal as undo_last_deal
from club.games.services.recording import changed as changed
from club.games.services.recording import lock as lock
from club.games.services.recording import new_round as new_round
from club.games.services.refusals import GameClosed as GameClosed
from club.games.services.refusals import already_recorded as already_recorded
from club.games.services.refusals import check_open as check_open
from club.games.services.refusals import check_unlocked as check_unlocked
from club.games.services.refusals import held_deal as held_deal
from club.games.services.replay import GAME_OUTCOME_FIELDS as GAME_OUTCOME_FIELDS
from club.games.services.replay import TEAM_OUTCOME_FIELDS as TEAM_OUTCOME_FIELDS
from club.games.services.replay import apply_outcome as apply_outcome
from club.games.services.replay import ledger_entry as ledger_entry
from club.games.services.replay import outcome as outcome
from club.games.services.replay import recount_contracts as recount_contracts
from club.games.services.replay import replay_entries as replay_entries
from club.games.services.replay import replay_game as replay_game
from club.games.services.replay import save_derived as save_derived
from club.games.services.replay import set_replayed_teams as set_replayed_teams
from club.games.services.replay import settle_next as settle_next
from club.games.services.replay import stored_entries as stored_entries
from club.games.services.replay import stored_state as stored_state
from club.games.services.seating import Seating as Seating
from club.games.services.seating import deal_from_players as deal_from_players
from club.games.services.seating import describe as describe
from club.games.services.seating import entry_from_round as entry_from_round
from club.games.services.seating import load_seating as load_seating
from club.games.starting import TeamEntry as TeamEntry
from club.games.starting import check_new_game as check_new_game
from club.games.starting import create_game as create_game
from club.games.starting import find_or_add_player as find_or_add_player
from club.games.starting import find_or_add_team as find_or_add_team
from club.scoring.rules import Deal as Deal
