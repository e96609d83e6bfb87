"""Calling the director from a table: the call, its reason, taken back, answered; and the
calls the director's board and the organisers' calls page show.

A table calls with one tap on its scorer's page: the call is made at once, and the
reason (a misdeal, a card shown, ...) may follow with one more tap. A game has one open
call at most (a named constraint): a second tap, or the other team's phone, finds the
call already open instead of making another. The call is open until an organiser marks
it answered, or the table takes it back.

The pages that show calls read only the calls open and those answered within
:data:`RECENT` (an answered call stays on the board and the phone a while, so both can
see it was answered): never the club's past calls, however many there are.
"""

from __future__ import annotations

import datetime

from django.db import IntegrityError, transaction
from django.db.models import Count, F, Max, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext_lazy

from club.games import words
from club.games.errors import ScoringError
from club.games.models import DirectorCall, Game, ScorerLink
from club.web.countdown import countdown

# An answered call stays on the director's board and the table's phone this long.
RECENT = datetime.timedelta(minutes=10)
# The most calls a page shows of each kind: more tables than a hall has.
SHOWN = 60

GAME_OVER = gettext_lazy("The game is over: call the director by voice if you need them.")
NO_SUCH_REASON = gettext_lazy("Choose one of the reasons listed.")
NO_OPEN_CALL = gettext_lazy("This table has no call open: there is nothing to take back.")
TAKEN_BACK = gettext_lazy("The table took this call back: there is nothing to answer.")


class CallError(ScoringError):
    """A call refused, with the words the table or the organiser reads."""


def _open(calls: QuerySet) -> QuerySet:
    return calls.filter(answered_at__isnull=True, withdrawn_at__isnull=True)


def _reason(reason: str) -> str:
    if reason and reason not in DirectorCall.Reason.values:
        raise CallError(str(NO_SUCH_REASON), field="reason")
    return reason


def _locked_game(game_id: int) -> Game:
    """The game's row, locked: every change of a game's calls takes it first, and only it,
    so a reason, a call taken back and an answer at the same moment queue one behind the
    other (SQLite, which has no row lock, writes one transaction at a time)."""
    return Game.objects.select_for_update().get(pk=game_id)


def call_director(
    *, game: Game, link: ScorerLink | None = None, reason: str = ""
) -> tuple[DirectorCall, bool]:
    """Call the director to ``game``'s table: (the call, whether it is new).

    A game that has a call open keeps it: the call is returned as it is, given
    ``reason`` when one is sent. The game's row is locked first, so two phones of one
    table calling at once make one call (and should the constraint still refuse the
    second insert, the first call is read).
    """
    reason = _reason(reason)
    with transaction.atomic():
        game = _locked_game(game.pk)
        if game.is_finished:
            raise CallError(str(GAME_OVER))
        found = _open(DirectorCall.objects.filter(game=game)).first()
        now = timezone.now()
        if found is not None:
            if reason and reason != found.reason:
                found.reason, found.changed_at = reason, now
                found.save(update_fields=["reason", "changed_at"])
            return found, False
        try:
            with transaction.atomic():
                call = DirectorCall.objects.create(
                    game=game,
                    scorer_link=link,
                    reason=reason,
                    made_at=now,
                    changed_at=now,
                )
        except IntegrityError:  # another phone of the table called at the same moment
            return _open(DirectorCall.objects.filter(game=game)).get(), False
    return call, True


def give_reason(*, call: DirectorCall, reason: str) -> DirectorCall:
    """The reason of the table's open call (or another one in its place). A table whose
    call was taken back or answered a moment before gets a new call with that reason: a
    player tapping a reason wants the director."""
    found, _made = call_director(game=call.game, link=call.scorer_link, reason=reason)
    return found


def withdraw_call(*, game: Game) -> DirectorCall:
    """The table takes its open call back: it leaves the board."""
    with transaction.atomic():
        _locked_game(game.pk)
        call = _open(DirectorCall.objects.filter(game_id=game.pk)).first()
        if call is None:
            raise CallError(str(NO_OPEN_CALL))
        call.withdrawn_at = call.changed_at = timezone.now()
        call.save(update_fields=["withdrawn_at", "changed_at"])
    return call


def answer_call(*, call: DirectorCall, user=None) -> DirectorCall:
    """An organiser marks the call answered. A call answered already stays as it was
    (two directors tapping at once); one the table took back is refused."""
    with transaction.atomic():
        _locked_game(call.game_id)
        call = DirectorCall.objects.get(pk=call.pk)
        if call.withdrawn_at is not None:
            raise CallError(str(TAKEN_BACK))
        if call.answered_at is None:
            call.answered_at = call.changed_at = timezone.now()
            call.answered_by = user if user is not None and user.is_authenticated else None
            call.save(update_fields=["answered_at", "answered_by", "changed_at"])
    return call


# --- What the pages show -------------------------------------------------------------------


def _shown(calls: QuerySet, now: datetime.datetime) -> QuerySet:
    """Of ``calls``, those a page shows: open, or answered within :data:`RECENT`. Read
    through the calls' own indexes (the open ones, the answered ones by when), so a page
    reads these few calls, never the club's past ones nor its games."""
    return calls.filter(
        Q(answered_at__isnull=True, withdrawn_at__isnull=True) | Q(answered_at__gte=now - RECENT)
    )


def calls_token(calls: QuerySet, now: datetime.datetime | None = None) -> str:
    """A token that moves whenever a call of ``calls`` is made, given a reason, taken back
    or answered, or an answered one leaves the page, and every minute while a call is
    open (the page says how long each has waited): one query, of the calls shown only."""
    now = now or timezone.now()
    found = _shown(calls, now).aggregate(
        count=Count("id"),
        answered=Count("answered_at"),
        reasons=Count("id", filter=~Q(reason="")),
        newest=Max("changed_at"),
        last=Max("id"),
    )
    newest = found["newest"]
    stamp = int(newest.timestamp() * 1_000_000) if newest else 0
    counts = f"{found['count']}.{found['answered']}.{found['reasons']}"
    waiting = found["count"] - found["answered"]  # the calls shown and not answered: open
    minute = f".{int(now.timestamp() // 60)}" if waiting else ""
    return f"{counts}.{found['last'] or 0}.{stamp}{minute}"


def shown_calls(calls: QuerySet, now: datetime.datetime | None = None) -> dict[str, list[dict]]:
    """The calls a page shows, in one query: ``open``, oldest first (the one waiting
    longest first), and ``answered`` lately, the last answered first. Each a plain row: its
    game, the game's label, the team whose phone called, the reason's words, when."""
    now = now or timezone.now()
    reasons = dict(DirectorCall.Reason.choices)
    rows = (
        _shown(calls, now)
        .order_by("made_at", "id")
        .values(
            "id",
            "game_id",
            "game__label",
            "reason",
            "made_at",
            "answered_at",
            "answered_by__username",
            "scorer_link__game_team__team__name",
        )[: 2 * SHOWN]
    )
    shown: dict[str, list[dict]] = {"open": [], "answered": []}
    for row in rows:
        call = {
            "id": row["id"],
            "game": row["game_id"],
            "title": words.game_title(row["game__label"]),
            "reason": reasons.get(row["reason"], ""),
            "made_at": row["made_at"],
            "waiting_minutes": max(0, int((now - row["made_at"]).total_seconds() // 60)),
            "answered_at": row["answered_at"],
            "answered_by": row["answered_by__username"] or "",
            "team": row["scorer_link__game_team__team__name"] or "",
        }
        shown["open" if row["answered_at"] is None else "answered"].append(call)
    shown["open"] = shown["open"][:SHOWN]
    shown["answered"].sort(key=lambda call: (call["answered_at"], call["id"]), reverse=True)
    shown["answered"] = shown["answered"][:SHOWN]
    return shown


def club_calls(club_id: int) -> QuerySet:
    """The club's calls, for the organisers' calls page, which reads those :func:`_shown`.

    The page starts from the calls (the index of those open or answered since a moment)
    and looks at the game of each for its club, never at the club's games, which grow
    with its history: the club is compared as ``club_id + 0``, which no index of the games
    answers, so SQLite (which has no figures of the tables' sizes to go by) cannot choose
    to start from the club's games instead. PostgreSQL starts from the calls either way.
    """
    return DirectorCall.objects.alias(club=F("game__club_id") + 0).filter(club=club_id)


def table_call(game: Game, now: datetime.datetime | None = None) -> dict:
    """What the table's phone shows of its calls, in one query: the open call, or the
    latest answered within :data:`RECENT` (so the table sees it was answered)."""
    now = now or timezone.now()
    latest = (
        _shown(DirectorCall.objects.filter(game=game), now)
        .order_by("-made_at", "-id")
        .only("id", "reason", "made_at", "answered_at")
        .first()
    )
    if latest is None:
        return {"open": None, "answered": None}
    if latest.is_open:
        return {"open": latest, "answered": None}
    return {"open": None, "answered": latest}


# How often a table's phone asks again: while its call is open (to see it answered), and
# while its game is in a tournament's sitting (to see the sitting's clock set or changed).
POLL_OPEN_CALL = 3
POLL_SITTING = 15


def table_status(game: Game, now: datetime.datetime | None = None) -> dict:
    """What the table's phone shows beside its deals: its call for the director, and the
    clock of the sitting its game is in (the server's time left, club.web.countdown). Two
    queries."""
    now = now or timezone.now()
    call = table_call(game, now)
    # The sitting's, by name: the tournaments are built on the games, never imported here.
    sitting, ends_at = (
        Game.objects.filter(pk=game.pk)
        .values_list("sitting_entry__sitting_id", "sitting_entry__sitting__ends_at")
        .first()
    ) or (None, None)
    if game.is_finished:
        poll = None
    elif call["open"] is not None:
        poll = POLL_OPEN_CALL
    elif sitting is not None:
        poll = POLL_SITTING
    else:
        poll = None
    return {
        "call": call,
        "reasons": DirectorCall.Reason.choices,
        "clock": countdown(ends_at, now) if not game.is_finished else None,
        "table_poll": poll,
    }
