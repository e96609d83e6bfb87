"""Scorer links: record a game's deals from a phone without an account.

The organiser hands out a secret link per game (or, when the game's deals need
confirming, one per team). A deal sent through a team's link in such a game
waits until a player of another team confirms it through their own link, like
bridge table devices where one side enters and the other accepts. When both
teams' phones send the same deal, the second confirms the first; when they
differ, both wait for the organiser to choose. A rejected deal is kept for the
phone that sent it (``RejectedDeal``): it reads who rejected it and why, with
its entry back in the form. The rules and the ledger stay in
``club.games.services``, whose
:func:`~club.games.services.deals.submit_deal` brings a link's deal here.
"""

from __future__ import annotations

import secrets

from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone
from django.utils.translation import gettext as _

from club.games.errors import ScoringError
from club.games.models import Change, Game, PendingDeal, RejectedDeal, Round, ScorerLink
from club.games.services.recording import lock, record_next
from club.games.services.refusals import already_recorded, check_open
from club.games.services.replay import settle_sent
from club.games.services.seating import Seating, deal_from_players, describe, load_seating
from club.scoring.rules import Deal


class LinkError(ScoringError):
    """A scorer link that cannot be used for what was asked."""


def issue_links(*, game: Game, user=None) -> list[ScorerLink]:
    """New scorer links for the game, revoking any it had: one, or one per team."""
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game.pk)
        if game.is_finished:
            raise LinkError(_("The game is over; it needs no scorer links."))
        game.scorer_links.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
        teams = list(game.teams.order_by("position")) if game.require_confirmation else [None]
        return [
            ScorerLink.objects.create(
                game=game,
                game_team=team,
                token=secrets.token_urlsafe(24),
                created_by=user if user is not None and user.is_authenticated else None,
            )
            for team in teams
        ]


def revoke_link(*, link: ScorerLink) -> None:
    ScorerLink.objects.filter(pk=link.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())


def well_formed_token(token: str) -> bool:
    """Whether a token could be one of ours (``secrets.token_urlsafe``), before any query:
    a typed or mangled URL may hold NUL, which PostgreSQL refuses in a lookup."""
    return 0 < len(token) <= 64 and all(
        char.isascii() and (char.isalnum() or char in "-_") for char in token
    )


def usable_link(token: str, club_id: int | None = None) -> ScorerLink:
    """The link for a token (of a game of club ``club_id``, when given), refused with a
    clear reason when it cannot be used."""
    found = ScorerLink.objects.select_related("game", "game_team__team").filter(token=token)
    if club_id is not None:
        found = found.filter(game__club_id=club_id)
    link = found.first() if well_formed_token(token) else None
    if link is None:
        raise LinkError(_("This scorer link does not exist. Ask the organiser for a new one."))
    if link.revoked_at is not None:
        raise LinkError(
            _("This scorer link was withdrawn by the organiser. Ask them for the current one.")
        )
    if link.game.is_finished:
        raise LinkError(_("The game is over, so this scorer link has expired."))
    if link.expired_at is not None:
        raise LinkError(
            _(
                "This scorer link expired when the game ended. The game was opened again "
                "since: ask the organiser for a new link."
            )
        )
    return link


def entry_to_json(entry: Deal, seating: Seating) -> dict:
    """A deal as a waiting deal stores it: its declarer or thani by player id."""
    data = {
        "points": {str(team): points for team, points in entry.points.items()},
        "declarer": seating.player_id(entry.declarer),
        "bid": entry.bid,
        "trump": entry.trump,
        "doubling": entry.doubling,
    }
    if entry.thani is not None:  # written only for a thani: older waiting deals read as before
        data.update(thani=seating.player_id(entry.thani), made=entry.made)
    return data


def entry_from_json(data: dict, seating: Seating) -> Deal:
    """A waiting deal as stored, in seats again."""
    points = {int(team): points for team, points in data["points"].items()}
    if data.get("thani") is not None:
        return deal_from_players(seating, {}, thani=data["thani"], made=data.get("made"))
    if data.get("declarer") is None:
        return deal_from_players(seating, points, doubling=data.get("doubling") or "none")
    return deal_from_players(
        seating,
        points,
        declarer=data["declarer"],
        bid=data.get("bid"),
        trump=data.get("trump"),
        doubling=data.get("doubling") or "none",
    )


def describe_stored(data: dict, seating: Seating) -> dict:
    """A stored deal (players by id) described for its page or the history.

    A player the game no longer seats (a record merged away with a deal of theirs
    stored before the merge named the one kept) shows as nobody rather than failing the
    page, as the deal was sent.
    """
    try:
        return describe(entry_from_json(data, seating), seating)
    except ScoringError:
        pass
    if data.get("thani") is not None:
        return {"thani": None, "made": data.get("made")}
    piles = sorted((int(team), pile) for team, pile in data["points"].items())
    return {
        "points": {seating.names[team]: pile for team, pile in piles},
        "declarer": None,
        "bid": data.get("bid"),
        "trump": data.get("trump"),
        "doubling": data.get("doubling") or "none",
    }


def send_for_confirmation(
    link: ScorerLink, game: Game, seating: Seating, number: int, entry: Deal
) -> Round | PendingDeal:
    """A link's deal in a game whose deals need confirming (the game locked and open).

    The first team's deal waits for another team (checked against the rules now,
    so the other team confirms only a deal that can be recorded); the same deal
    from another team's phone confirms it and it is recorded. It runs in a savepoint
    of its caller's (``submit_deal``'s), so a refusal after a write leaves nothing.
    """
    _drop_stale(game)
    waiting = PendingDeal.objects.select_related("sent_by").filter(game=game).first()
    if waiting is not None:
        return _second_entry(link, game, seating, waiting, number, entry)
    settle_sent(game, seating, number, entry)
    try:  # the lock is held, so only a race of two phones fails here
        pending = PendingDeal.objects.create(
            game=game, number=number, entry=entry_to_json(entry, seating), sent_by=link
        )
    except IntegrityError as error:  # another team's phone sent one at the same moment
        raise LinkError(
            _("Another deal was sent at the same moment; reload the page."), field="number"
        ) from error
    Change.objects.create(
        game=game,
        number=number,
        action=Change.Action.PROPOSED,
        after=describe(entry, seating),
        scorer_link=link,
    )
    # Sent again after a rejection: the notice has done its work.
    RejectedDeal.objects.filter(game=game).delete()
    _touch(game)
    return pending


def _second_entry(
    link: ScorerLink, game: Game, seating: Seating, waiting: PendingDeal, number: int, entry: Deal
) -> Round | PendingDeal:
    """Deal ``number`` sent while one waits (the caller holds the game's lock).

    From the other team, the same deal confirms the one waiting: both sides have
    said it, so it is recorded. A different deal waits beside it for the
    organiser to choose. Anything else is refused with what is going on.
    """
    other_team = waiting.sent_by.game_team_id != link.game_team_id
    if waiting.number != number or not other_team:
        raise LinkError(
            _("Deal %(number)d is waiting for another team to confirm it.")
            % {"number": waiting.number},
            field="number",
        )
    if waiting.counter_entry is not None:
        raise _disputed(number)
    if waiting.entry == entry_to_json(entry, seating):
        waiting.delete()
        return record_next(game, seating, number, entry, link=link)
    settle_sent(game, seating, number, entry)
    waiting.counter_entry = entry_to_json(entry, seating)
    waiting.counter_by = link
    waiting.counter_at = timezone.now()
    waiting.save(update_fields=["counter_entry", "counter_by", "counter_at"])
    Change.objects.create(
        game=game,
        number=number,
        action=Change.Action.PROPOSED,
        after=describe(entry, seating),
        scorer_link=link,
    )
    _touch(game)
    return waiting


def _disputed(number: int) -> LinkError:
    return LinkError(
        _(
            "The two teams sent different entries of deal %(number)d: the organiser chooses "
            "which counts."
        )
        % {"number": number},
        field="number",
    )


def rejection_for(link: ScorerLink, game: Game) -> RejectedDeal | None:
    """The rejection of the next deal this link's team sent, to show on its phone; gone
    once any deal of its number has counted since (even if undone after)."""
    counted_since = Change.objects.filter(
        game=game,
        number=OuterRef("number"),
        action=Change.Action.RECORDED,
        made_at__gt=OuterRef("rejected_at"),
    )
    return (
        RejectedDeal.objects.select_related("rejected_by_link__game_team__team")
        .filter(game=game, number=game.deals_played + 1, sent_by__game_team_id=link.game_team_id)
        .exclude(Exists(counted_since))
        .first()
    )


def waiting_deal(game: Game) -> PendingDeal | None:
    """The deal of the game waiting for confirmation, if it is still the next deal."""
    return (
        PendingDeal.objects.select_related(
            "sent_by__game_team__team", "counter_by__game_team__team"
        )
        .filter(game=game, number=game.deals_played + 1)
        .first()
    )


def _drop_stale(game: Game) -> None:
    # An organiser may record, undo or correct deals on the game page while a
    # deal waits; a waiting deal that is no longer the next one can never count,
    # and left in place it would block every later deal sent through a link.
    PendingDeal.objects.filter(game=game).exclude(number=game.deals_played + 1).delete()
    RejectedDeal.objects.filter(game=game).exclude(number=game.deals_played + 1).delete()


def _pending_for_other_team(link: ScorerLink, game: Game, number: int) -> PendingDeal:
    pending = _waiting(game, number)
    if pending.counter_entry is not None:
        raise _disputed(number)
    if pending.sent_by.game_team_id == link.game_team_id:
        raise LinkError(
            _("A player of another team must confirm deal %(number)d.") % {"number": number},
            field="number",
        )
    return pending


def _keep_rejection(pending: PendingDeal, reason: str, *, link=None, user=None) -> None:
    """The rejected deal, kept for the phone of the team that sent it."""
    RejectedDeal.objects.filter(game=pending.game_id).delete()
    RejectedDeal.objects.create(
        game_id=pending.game_id,
        number=pending.number,
        entry=pending.entry,
        sent_by=pending.sent_by,
        reason=reason,
        rejected_by_link=link,
        rejected_by=user if user is not None and user.is_authenticated else None,
    )


def confirm_deal(*, link: ScorerLink, number: int):
    """Another team accepts a waiting deal: it is recorded and counts from now."""
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=link.game_id)
        check_open(game)
        if not 1 <= number <= game.deals_played:
            pending = _pending_for_other_team(link, game, number)
            seating = load_seating(game)
            entry = entry_from_json(pending.entry, seating)
            pending.delete()
            return record_next(game, seating, number, entry, link=link)
        # Recorded meanwhile (by an organiser on the game page, or a second tap on
        # Confirm): the waiting copy is dropped, and the answer says what counts.
        _drop_stale(game)
    raise already_recorded(game, number)


@transaction.atomic
def reject_deal(*, link: ScorerLink, number: int, reason: str = "") -> None:
    """Another team disputes a waiting deal: it is dropped, to be entered again; the phone
    that sent it is told why and gets its entry back to fix."""
    game = Game.objects.select_for_update().get(pk=link.game_id)
    check_open(game)
    pending = _pending_for_other_team(link, game, number)
    reason = reason.strip()[:200]
    seating = load_seating(game)
    Change.objects.create(
        game=game,
        number=number,
        action=Change.Action.REJECTED,
        before=describe_stored(pending.entry, seating),
        scorer_link=link,
        note=reason,
    )
    _keep_rejection(pending, reason, link=link)
    pending.delete()
    _touch(game)


def _touch(game: Game) -> None:
    # A deal sent or dropped changes what the game's pages show (the waiting deal):
    # their live token, the game's updated_at, moves with it.
    Game.objects.filter(pk=game.pk).update(updated_at=timezone.now())


# --- The organiser and a waiting deal ----------------------------------------------------


def _waiting(game: Game, number: int) -> PendingDeal:
    """Deal ``number`` of the game waiting for confirmation, locked; refused if none waits."""
    pending = (
        PendingDeal.objects.select_for_update()
        .select_related("sent_by")
        .filter(game=game, number=number)
        .first()
    )
    if pending is None:
        raise LinkError(
            _("Deal %(number)d is not waiting for confirmation.") % {"number": number},
            field="number",
        )
    return pending


def confirm_waiting(*, game: Game, number: int, user=None, other: bool = False):
    """The organiser records a deal that waits for another team's confirmation: as its
    first team sent it, or (``other``) as the other team's phone sent it differently.
    The history keeps the entry not chosen."""
    with transaction.atomic():
        game = lock(game)
        check_open(game)
        pending = _waiting(game, number)
        if other and pending.counter_entry is None:
            raise LinkError(
                _("Only one team sent deal %(number)d.") % {"number": number}, field="number"
            )
        chosen, dropped = pending.entry, pending.counter_entry
        if other:
            chosen, dropped = dropped, chosen
        seating = load_seating(game)
        entry = entry_from_json(chosen, seating)
        pending.delete()
        recorded = record_next(game, seating, number, entry, user=user)
        if dropped is not None:
            Change.objects.create(
                game=game,
                number=number,
                action=Change.Action.REPLACED,
                before=describe_stored(dropped, seating),
                made_by=user if user is not None and user.is_authenticated else None,
            )
        return recorded


def _drop_noted(game: Game, seating: Seating, pending: PendingDeal, action: str, user) -> None:
    """Drop a waiting deal by the organiser's hand; the history keeps it and says who."""
    Change.objects.create(
        game=game,
        number=pending.number,
        action=action,
        before=describe_stored(pending.entry, seating),
        made_by=user if user is not None and user.is_authenticated else None,
    )
    pending.delete()


@transaction.atomic
def reject_waiting(*, game: Game, number: int, user=None) -> None:
    """The organiser drops a waiting deal (both entries, if two differ): the table
    enters it again. A single sender's phone is told the organiser rejected it."""
    game = lock(game)
    check_open(game)
    pending = _waiting(game, number)
    seating = load_seating(game)
    if pending.counter_entry is None:
        _keep_rejection(pending, "", user=user)
    else:
        Change.objects.create(
            game=game,
            number=number,
            action=Change.Action.REJECTED,
            before=describe_stored(pending.counter_entry, seating),
            made_by=user if user is not None and user.is_authenticated else None,
        )
    _drop_noted(game, seating, pending, Change.Action.REJECTED, user)
    _touch(game)


def note_replaced(*, game: Game, seating: Seating, number: int, user=None) -> None:
    """After the organiser recorded deal ``number`` over one that waited (the game
    locked): the waiting one is dropped, and the history keeps it beside the deal that
    counts."""
    pending = PendingDeal.objects.filter(game=game, number=number).first()
    if pending is not None:
        _drop_noted(game, seating, pending, Change.Action.REPLACED, user)
