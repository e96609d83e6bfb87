"""What a game refuses before a deal is read, in the club's words, named once.

Each refusal's words are a constant here; the services raise them and the
tests read them from here, so a test checks the message the organiser sees.
"""

from __future__ import annotations

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from club.games.errors import ScoringError
from club.games.models import Game, Round
from club.scoring import rules as core

ALREADY_RECORDED = _("Deal %(number)d is already recorded.")
NOT_THE_NEXT_DEAL = _("The next deal to record is deal %(expected)d, not deal %(number)d.")
PAST_THE_LIMIT = _("This game ends after %(limit)d deals; deal %(number)d cannot be recorded.")
RESULTS_FINAL = _(
    "The results of this game are final; an organiser must reopen its tournament "
    "before anything can change."
)
OVER_SHARED = _("The game is over: the first place is shared. No more deals can be recorded.")
OVER_WON = _("The game is over: %(team)s won. No more deals can be recorded.")
WON_BEFORE = _("Deal %(number)d cannot stand: the game was already won after deal %(last)d.")
DEAL_REFUSED = _("Deal %(number)d: %(problem)s")
NO_DEAL_TO_CORRECT = _("There is no deal %(number)d in this game to correct.")
NO_DEAL_TO_UNDO = _("There is no deal to undo yet.")
NO_LONGER_LAST = _(
    "Deal %(number)d is no longer the last deal (deal %(last)d is); nothing was undone."
)
KNOCKOUT_LEVEL = _(
    "This is a knockout game and it is level: it cannot end tied. Play on: the "
    "next deal decides if the totals then differ."
)


class GameClosed(ScoringError):
    """The game takes no deal now: it is over, or its tournament's results are final."""


def held_deal(game: Game, number: int | None) -> Round | None:
    """Deal ``number`` when the game holds it already: a form sent again, or sent first
    by another phone or the organiser."""
    if number is None or not 1 <= number <= game.deals_played:
        return None
    return game.rounds.filter(number=number).first()


def already_recorded(game: Game, number: int, recorded: Round | None = None) -> ScoringError:
    """The refusal of a deal the game holds: it carries the deal, to show what counts."""
    if recorded is None:
        recorded = game.rounds.filter(number=number).first()
    return ScoringError(
        str(ALREADY_RECORDED) % {"number": number}, field="number", number=number, recorded=recorded
    )


def check_unlocked(game: Game) -> None:
    """Refuse changes to a game whose tournament results are final."""
    if game.results_locked:
        raise GameClosed(str(RESULTS_FINAL), field="number")


def check_open(game: Game) -> None:
    """Refuse deals for a game that is over."""
    check_unlocked(game)
    if not game.is_finished:
        return
    if game.winner is None:
        raise GameClosed(str(OVER_SHARED), field="number")
    raise GameClosed(str(OVER_WON) % {"team": game.winner.team.name}, field="number")


def check_next(game: Game, number: int) -> None:
    """Refuse a deal that is not the game's next one (one it holds is told apart first)."""
    expected = game.deals_played + 1
    if number != expected:
        raise ScoringError(
            str(NOT_THE_NEXT_DEAL) % {"expected": expected, "number": number}, field="number"
        )


def check_deal_limit(game: Game, number: int) -> None:
    """Refuse a deal past the limit; under a tie rule the rules core decides where it is."""
    if game.deal_limit and game.tie_deals is None and number > game.deal_limit:
        raise ScoringError(
            str(PAST_THE_LIMIT) % {"limit": game.deal_limit, "number": number},
            field="number",
            number=number,
        )


def rules_refusal(error: core.DealError, names: list[str]) -> ScoringError:
    """A deal the rules refuse, as the organiser reads it, naming the deal."""
    if isinstance(error.__cause__, core.GameOver):
        message = str(WON_BEFORE) % {"number": error.number, "last": error.number - 1}
    else:
        message = str(DEAL_REFUSED) % {
            "number": error.number,
            "problem": error.translated(gettext, names),
        }
    return ScoringError(message, field=error.field, number=error.number)
