"""Writing a deal the rules have settled: its round, piles and ledger, the game's new
standing, the history's line, and the news to the pages and boards.

Every write holds the game's row locked (:func:`lock`) for its whole
transaction: two scorers sending deals to one game are served one after the
other, each seeing the other's deal.
"""

from __future__ import annotations

from django.utils import timezone

from club.games.models import Change, Game, GameTeam, LedgerEntry, Pile, Round, ScorerLink
from club.games.services.replay import (
    TEAM_OUTCOME_FIELDS,
    apply_outcome,
    ledger_entry,
    settle_sent,
)
from club.games.services.seating import Seating, describe
from club.games.signals import game_changed
from club.scoring import rules as core
from club.scoring.rules import Deal

# What recording a deal saves on the game (ended_early stays as it was).
RECORDED_GAME_FIELDS = [
    "deals_played",
    "dealer_seat",
    "status",
    "winner",
    "finished_at",
    "updated_at",
]


def lock(game: Game) -> Game:
    """The game's row, read again and locked until the transaction ends."""
    return Game.objects.select_for_update().get(pk=game.pk)


def _by(user):
    return user if user is not None and user.is_authenticated else None


def log(game: Game, number: int, action: str, before, after, user, link=None) -> None:
    """The history's line for a change of the game's deals: who, what, before and after."""
    Change.objects.create(
        game=game,
        number=number,
        action=action,
        before=before,
        after=after,
        made_by=_by(user),
        scorer_link=link,
    )


def changed(game: Game, was_finished: bool) -> None:
    """Tell the pages and boards the game changed; a game opened again ends its links.

    A game's links end with it, for good: while it is over, no link of it works (the
    links read the game's status); undoing the final deal, or a correction that leaves
    no winner, opens the game again but not its links, which are marked expired then
    (the organiser issues new ones). So the deal that ends a game writes nothing more.
    """
    if was_finished and not game.is_finished:
        ScorerLink.objects.filter(game=game, expired_at__isnull=True).update(
            expired_at=timezone.now()
        )
    game_changed.send(sender=Game, game=game, was_finished=was_finished)


def new_round(game: Game, seating: Seating, settlement: core.Settlement, user=None) -> Round:
    """The deal's row, not saved yet, as the rules settled it (:func:`write_deal` and the
    bulk writer, club.games.bulk, store it)."""
    declarer = None if settlement.declarer is None else seating.players[settlement.declarer]
    return Round(
        game=game,
        number=settlement.number,
        all_pass=settlement.all_pass,
        declarer=declarer,
        bid=settlement.bid,
        trump=settlement.trump or "",
        doubling=settlement.doubling,
        thani=settlement.thani,
        dealer=seating.players[settlement.dealer],
        declaring_team=seating.teams[settlement.declaring_team],
        made=settlement.made,
        recorded_by=_by(user),
    )


def write_deal(
    game: Game,
    seating: Seating,
    entry: Deal,
    settled: tuple[core.Settlement, core.GameState],
    *,
    user=None,
    link=None,
) -> Round:
    """Store a deal the rules settled from the game's stored state (the game locked).

    The game and the seating's teams are updated in place, so the caller shows
    them as they now stand without reading them again.
    """
    settlement, state = settled
    number = settlement.number
    round_ = new_round(game, seating, settlement, user)
    round_.save(force_insert=True)
    Pile.objects.bulk_create(
        Pile(round=round_, game_team=seating.teams[team], points=points)
        for team, points in settlement.points.items()
    )
    LedgerEntry.objects.bulk_create(
        ledger_entry(round_, team, settlement) for team in seating.teams
    )
    apply_outcome(game, seating, state)
    for team in seating.teams:
        if team.position in settlement.eliminated:
            team.out_in_deal = number
    declaring = seating.teams[settlement.declaring_team]
    declaring.declared += 1
    declaring.made += settlement.made
    GameTeam.objects.bulk_update(seating.teams, TEAM_OUTCOME_FIELDS)
    game.save(update_fields=RECORDED_GAME_FIELDS)
    log(game, number, Change.Action.RECORDED, None, describe(entry, seating), user, link)
    changed(game, was_finished=False)
    return round_


def record_next(
    game: Game, seating: Seating, number: int, entry: Deal, *, user=None, link=None
) -> Round:
    """Record the game's next deal, the game locked and open: refused when it is not the
    next one or the rules refuse it, before anything is written."""
    settled = settle_sent(game, seating, number, entry)
    return write_deal(game, seating, entry, settled, user=user, link=link)
