"""A game's deals: one way in for a deal sent, and the organiser's corrections.

:func:`submit_deal` is the one way a deal comes in, from the organiser's page
or a scorer's link alike: it decides whether the game holds that deal already,
records it, or (a link's deal in a game whose deals need confirming) holds it
for another team, whose confirmation the links keep (``club.games.links``).
:func:`edit_deal`, :func:`undo_last_deal` and :func:`end_game` replay the game's
deals through the rules core and rewrite what they derive.

Every write runs in one transaction with the game row locked. A fault raises
:class:`~club.games.errors.ScoringError` with a message a club organiser
understands, and nothing is saved.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from club.games import links
from club.games.errors import ScoringError
from club.games.models import Change, Game, PendingDeal, Pile, Round
from club.games.services import refusals
from club.games.services.recording import changed, lock, log, write_deal
from club.games.services.refusals import (
    already_recorded,
    check_open,
    check_unlocked,
    held_deal,
)
from club.games.services.replay import (
    replay_entries,
    save_derived,
    settle_sent,
    stored_entries,
)
from club.games.services.seating import Seating, describe, load_seating
from club.scoring.rules import Deal


@dataclass
class Sent:
    """What became of a deal sent, with the game and its teams as they now stand.

    One of: ``recorded`` (the deal counts), ``waiting`` (held for another team's
    confirmation), ``held`` (the game held this deal already: what counts), or
    none of them when the form itself was refused and nothing was sent.
    """

    game: Game
    seating: Seating
    recorded: Round | None = None
    waiting: PendingDeal | None = None
    held: Round | None = None


def _current(seating: Seating | None, read: Game | None, locked: Game) -> Seating:
    """The seating read with the form when no write came between, else read again."""
    if seating is not None and read is not None and read.updated_at == locked.updated_at:
        return seating
    return load_seating(locked)


def submit_deal(
    *,
    game: Game,
    number: int | None,
    entry: Deal | None,
    user=None,
    link=None,
    seating: Seating | None = None,
) -> Sent:
    """Deal ``number`` of the game, sent from the organiser's page or through a link.

    ``entry`` is the deal as the form read it, in seats (None when the form was
    refused: the game then only says whether it holds that deal, or takes none).
    ``seating`` is what the form was read against, used again when the game has
    not changed since. A deal the game holds already comes back ``held``, before
    "the game is over": the deal that ended a game is the one most often sent
    again. A game over or final is refused (:class:`refusals.GameClosed`), as is a
    deal the rules refuse, naming the deal.

    It runs in its own transaction, or in the caller's when one is open (a view
    keeps its one-time key with the answer in it): every refusal comes before
    the first write, and the writes stand or fall together.
    """
    if not transaction.get_connection().in_atomic_block:
        with transaction.atomic():
            return submit_deal(
                game=game, number=number, entry=entry, user=user, link=link, seating=seating
            )
    locked = lock(game)
    seating = _current(seating, game, locked)
    held = held_deal(locked, number)
    if held is not None:
        return Sent(locked, seating, held=held)
    check_open(locked)
    if entry is None or number is None:
        return Sent(locked, seating)
    if link is not None and locked.require_confirmation:
        # Its own savepoint: a waiting deal dropped or confirmed, then a refusal, leaves
        # nothing behind in the caller's transaction.
        with transaction.atomic():
            sent = links.send_for_confirmation(link, locked, seating, number, entry)
        if isinstance(sent, PendingDeal):
            return Sent(locked, seating, waiting=sent)
        return Sent(locked, seating, recorded=sent)
    settled = settle_sent(locked, seating, number, entry)
    with transaction.atomic(savepoint=False):  # the writes: all of them or none
        recorded = write_deal(locked, seating, entry, settled, user=user, link=link)
        if link is None and locked.require_confirmation:  # over a deal that waited: noted
            links.note_replaced(game=locked, seating=seating, number=number, user=user)
    return Sent(locked, seating, recorded=recorded)


def record_deal(
    *, game: Game, number: int, entry: Deal, user=None, seating: Seating | None = None
) -> Round:
    """Record deal ``number`` of the game at once (no confirmation asked): the deal as
    recorded, with ``game`` and ``seating`` as they now stand. A deal the game holds
    already is refused, carrying what counts (``ScoringError.recorded``)."""
    sent = submit_deal(game=game, number=number, entry=entry, user=user, seating=seating)
    if sent.held is not None:
        raise already_recorded(sent.game, number, sent.held)
    round_ = sent.recorded
    assert round_ is not None  # a deal not held and not refused is recorded
    round_.game, round_.seating = sent.game, sent.seating
    return round_


@transaction.atomic
def edit_deal(*, game: Game, number: int, entry: Deal, user=None) -> Round:
    """Correct deal ``number`` and replay the rest of the game.

    Refused, naming the deal, when the correction makes a later deal
    impossible (its declarer's team is out by then, say).
    """
    game = lock(game)
    check_unlocked(game)
    was_finished = game.is_finished
    seating = load_seating(game)
    rounds, entries = stored_entries(game, seating)
    if not 1 <= number <= len(rounds):
        raise ScoringError(str(refusals.NO_DEAL_TO_CORRECT) % {"number": number}, field="number")
    before = entries[number - 1]
    entries[number - 1] = entry
    settlements, state = replay_entries(game, seating, entries)
    settlement = settlements[number - 1]

    round_ = rounds[number - 1]
    round_.all_pass = settlement.all_pass
    round_.declarer = None if settlement.declarer is None else seating.players[settlement.declarer]
    round_.bid = settlement.bid
    round_.trump = settlement.trump or ""
    round_.doubling = settlement.doubling
    round_.thani = settlement.thani
    round_.save(update_fields=["all_pass", "declarer", "bid", "trump", "doubling", "thani"])
    round_.piles.all().delete()
    Pile.objects.bulk_create(
        Pile(round=round_, game_team=seating.teams[team], points=points)
        for team, points in settlement.points.items()
    )
    save_derived(game, seating, rounds, settlements, state)
    log(
        game,
        number,
        Change.Action.EDITED,
        describe(before, seating),
        describe(entry, seating),
        user,
    )
    changed(game, was_finished)
    return round_


@transaction.atomic
def undo_last_deal(*, game: Game, number: int, user=None) -> None:
    """Remove the last deal. ``number`` is the deal the organiser saw as last."""
    game = lock(game)
    check_unlocked(game)
    if game.deals_played == 0:
        raise ScoringError(str(refusals.NO_DEAL_TO_UNDO), field="number")
    if number != game.deals_played:
        raise ScoringError(
            str(refusals.NO_LONGER_LAST) % {"number": number, "last": game.deals_played},
            field="number",
        )
    was_finished = game.is_finished
    seating = load_seating(game)
    rounds, entries = stored_entries(game, seating)
    removed = entries.pop()
    rounds.pop().delete()
    settlements, state = replay_entries(game, seating, entries)
    game.ended_early = False  # undoing the last deal takes the game back before time was called
    save_derived(game, seating, rounds, settlements, state)
    log(game, number, Change.Action.UNDONE, describe(removed, seating), None, user)
    changed(game, was_finished)


@transaction.atomic
def end_game(*, game: Game, user=None) -> None:
    """The organiser calls time: the game ends now and is placed by tables held."""
    game = lock(game)
    check_open(game)
    seating = load_seating(game)
    rounds, entries = stored_entries(game, seating)
    settlements, state = replay_entries(game, seating, entries)
    if game.tie_deals is not None and state.leaders_level:
        raise ScoringError(str(refusals.KNOCKOUT_LEVEL), field="game")
    game.ended_early = True
    save_derived(game, seating, rounds, settlements, state)
    log(game, game.deals_played, Change.Action.ENDED, None, None, user)
    changed(game, was_finished=False)


@transaction.atomic
def rebuild_ledger(game: Game) -> None:
    """Derive everything again from the recorded deals (it must change nothing)."""
    game = lock(game)
    seating = load_seating(game)
    rounds, entries = stored_entries(game, seating)
    settlements, state = replay_entries(game, seating, entries)
    save_derived(game, seating, rounds, settlements, state)
