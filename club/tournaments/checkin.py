"""Check-in: a team is drawn only when it is present (docs/rules.md section E, "Check-in").

A tournament that asks for it (``Tournament.check_in``) has each team check in before
each sitting: the director taps it in on the board, or its captain checks it in from
the captain's own page (a link, printed as a QR code on the team's card). The next
draw takes only the teams checked in for it and records the others as absent: they
play no game and have no bye in that sitting, so they score nothing for it (a bye is
for the odd team out among those present). A late team checks in for the next sitting.

The captain's page is reached by a secret link of its own, like a scorer link: made when
the team's card is first printed, and replaced (the old card stops working) when the
director asks for a new one.
"""

from __future__ import annotations

import secrets

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils.translation import gettext_lazy, ngettext_lazy

from club.games.models import ScorerLink
from club.tournaments.models import CheckIn, Sitting, Tournament, TournamentTeam
from club.tournaments.writes import TournamentError, check_editable, lock

# What the director or the captain is told when a check-in or a draw is refused
# (formatted where it is raised).
NOT_ASKED = gettext_lazy("This tournament does not ask teams to check in.")
NO_MORE_SITTINGS = gettext_lazy("The tournament has finished; no more sittings are drawn.")
WITHDRAWN = gettext_lazy("%(team)s has withdrawn; bring it back in before it checks in.")
DRAWN_ALREADY = gettext_lazy(
    "Sitting %(number)d is drawn already: %(team)s can check in for the next one, "
    "or the director discards the draw and draws again."
)
TOO_FEW_IN = ngettext_lazy(
    "%(count)d team has checked in for sitting %(number)d; a draw needs two at least.",
    "%(count)d teams have checked in for sitting %(number)d; a draw needs two at least.",
    "count",
)
# Formatted with "count", the number of teams named, which the words do not show.
KNOCKOUT_NOT_IN = ngettext_lazy(
    "%(teams)s has not checked in for sitting %(number)d: a knockout match needs "
    "both its teams. Check it in, or withdraw it to give its opponent the match.",
    "%(teams)s have not checked in for sitting %(number)d: a knockout match needs "
    "both its teams. Check them in, or withdraw them to give their opponents the "
    "matches.",
    "count",
)


def captain_key(entry: TournamentTeam) -> str:
    """The secret part of the captain's page's address for ``entry``, made the first time
    it is asked for."""
    if not entry.captain_key:
        key = secrets.token_urlsafe(32)
        TournamentTeam.objects.filter(pk=entry.pk, captain_key=None).update(captain_key=key)
        entry.captain_key = (
            TournamentTeam.objects.filter(pk=entry.pk).values_list("captain_key", flat=True).get()
        )
    # Never None here: the update gives a key to a row that had none (made now, or by
    # whoever asked at the same moment), and a row that had one keeps it.
    assert entry.captain_key is not None
    return entry.captain_key


@transaction.atomic
def new_captain_key(*, entry: TournamentTeam, user=None) -> str:
    """A new secret for the captain's page: the team's old card stops working (a card
    lost, or seen by someone who should not have it). Refused once the results are final:
    nothing is left to check in for, and a final tournament changes nothing."""
    check_editable(lock(entry.tournament))
    entry.captain_key = secrets.token_urlsafe(32)
    TournamentTeam.objects.filter(pk=entry.pk).update(captain_key=entry.captain_key)
    return entry.captain_key


def entry_for_key(key: str) -> TournamentTeam | None:
    """The registration whose captain's page ``key`` opens, or None."""
    if not key or len(key) > 64:
        return None
    return (
        TournamentTeam.objects.select_related("tournament", "team", "captain")
        .filter(captain_key=key)
        .first()
    )


def next_number(tournament: Tournament) -> int:
    """The sitting teams check in for: the one after the last drawn."""
    return tournament.sittings.count() + 1


def checked_in(tournament: Tournament, number: int) -> set[int]:
    """The registrations checked in for sitting ``number``."""
    return set(
        CheckIn.objects.filter(entry__tournament=tournament, number=number).values_list(
            "entry_id", flat=True
        )
    )


def _open_for(entry: TournamentTeam) -> tuple[Tournament, int]:
    """The tournament, locked, and the sitting to check in for; refused when it cannot be."""
    tournament = lock(entry.tournament)
    _check_open(tournament, TournamentTeam.objects.select_related("team").get(pk=entry.pk))
    return tournament, next_number(tournament)


def _check_open(tournament: Tournament, entry: TournamentTeam) -> None:
    """Refuse, in the club's words, a check-in of ``entry`` that cannot be made now."""
    check_editable(tournament)
    if not tournament.check_in:
        raise TournamentError(str(NOT_ASKED))
    if tournament.status == Tournament.Status.FINISHED:
        raise TournamentError(str(NO_MORE_SITTINGS))
    if entry.withdrawn_at is not None:
        raise TournamentError(WITHDRAWN % {"team": entry.team.name})
    proposed = tournament.sittings.filter(status=Sitting.Status.PROPOSED).first()
    if proposed is not None:
        raise TournamentError(DRAWN_ALREADY % {"number": proposed.number, "team": entry.team.name})


@transaction.atomic
def check_in(*, entry: TournamentTeam, user=None, by_captain: bool = False) -> CheckIn:
    """``entry`` is present for the next sitting (once: checking in again changes nothing)."""
    _tournament, number = _open_for(entry)
    found = CheckIn.objects.filter(entry=entry, number=number).first()
    if found is not None:
        return found
    try:
        with transaction.atomic():
            return CheckIn.objects.create(
                entry=entry,
                number=number,
                by=user if user is not None and user.is_authenticated else None,
                by_captain=by_captain,
            )
    except IntegrityError:  # the captain and the director at the same moment
        return CheckIn.objects.get(entry=entry, number=number)


@transaction.atomic
def undo_check_in(*, entry: TournamentTeam, user=None) -> None:
    """The director takes back ``entry``'s check-in for the next sitting."""
    _tournament, number = _open_for(entry)
    CheckIn.objects.filter(entry=entry, number=number).delete()


def check_in_list(tournament: Tournament) -> dict:
    """What the director's check-in list shows: the next sitting and each team in, with
    whether (and how) it has checked in."""
    number = next_number(tournament)
    found = {
        row.entry_id: row
        for row in CheckIn.objects.filter(entry__tournament=tournament, number=number)
    }
    teams = [
        {"entry": entry, "check_in": found.get(entry.pk)}
        for entry in tournament.entries.filter(withdrawn_at=None)
        .select_related("team")
        .order_by("team__name")
    ]
    return {
        "number": number,
        "teams": teams,
        "present": sum(1 for team in teams if team["check_in"] is not None),
        "drawn": tournament.sittings.filter(status=Sitting.Status.PROPOSED).exists(),
    }


def absent_from(tournament: Tournament, number: int) -> set[int]:
    """With check-in, the teams still in that have not checked in for sitting ``number``
    (refused when fewer than two have); without, none."""
    if not tournament.check_in:
        return set()
    entries = set(tournament.entries.filter(withdrawn_at=None).values_list("id", flat=True))
    present = entries & checked_in(tournament, number)
    if len(present) < 2:
        raise TournamentError(TOO_FEW_IN % {"count": len(present), "number": number})
    return entries - present


@transaction.atomic
def set_check_in(*, tournament: Tournament, on: bool, user=None) -> Tournament:
    """Ask the teams to check in before each sitting, or stop asking (a club night where
    everyone is there). Sittings drawn already keep who was left out."""
    tournament = lock(tournament)
    check_editable(tournament)
    if tournament.check_in != on:
        tournament.check_in = on
        tournament.save(update_fields=["check_in"])
    return tournament


def captain_view(entry: TournamentTeam, sitting: Sitting | None) -> dict:
    """What the captain's page shows besides the team: the sitting to check in for and
    the team's check-in, and in the sitting in play its game and its scorer link."""
    tournament = entry.tournament
    number = next_number(tournament)
    found = CheckIn.objects.filter(entry=entry, number=number).first()
    game = None
    link = None
    if sitting is not None:
        placed = (
            sitting.games.filter(game__teams__team_id=entry.team_id).select_related("game").first()
        )
        if placed is not None:
            game = placed
            # A game over has no working link (its links end with it).
            link = (
                None
                if placed.game.is_finished
                else (
                    ScorerLink.objects.filter(
                        game=placed.game,
                        revoked_at__isnull=True,
                        expired_at__isnull=True,
                    )
                    .filter(Q(game_team__team_id=entry.team_id) | Q(game_team__isnull=True))
                    .order_by("game_team_id")
                    .first()
                )
            )
    try:
        _check_open(tournament, entry)
    except TournamentError:
        can_check_in = False
    else:
        can_check_in = True
    return {
        "number": number,
        "check_in": found,
        "can_check_in": can_check_in,
        "placed": game,
        "link": link,
    }


def absent_of_stage(tournament: Tournament, number: int, stage, draw) -> set[int]:
    """With check-in, the teams a stage's sitting would seat (``draw``) that have not
    checked in for it. A game of a chart with one of them is not played, and its other
    team sits out, as for a team withdrawn; a knockout match cannot be played without
    both teams, so a knockout's draw is refused, naming who is missing."""
    if not tournament.check_in:
        return set()
    seated = {team for game in draw.games for team in game} | set(draw.byes)
    absent = seated - checked_in(tournament, number)
    if absent and not stage.charted:
        names = sorted(
            TournamentTeam.objects.filter(pk__in=absent).values_list("team__name", flat=True)
        )
        raise TournamentError(
            KNOCKOUT_NOT_IN % {"teams": ", ".join(names), "number": number, "count": len(names)}
        )
    return absent
