"""A tournament's life: created, finished, its results made final, reopened for corrections.

Results made final lock the tournament's games and stop its exports saying
provisional; nothing of it changes until it is reopened, with the reason kept
in its history.
"""

from __future__ import annotations

from dataclasses import replace

from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from club.clubs import known as clubs
from club.games.models import Game, rules_fields
from club.scoring import rules as core
from club.scoring import standings as ranking
from club.tournaments.models import Sitting, Tournament, TournamentEvent
from club.tournaments.writes import TournamentError, check_editable, lock, log

# What the organiser is told when a step of a tournament's life is refused.
NO_NAME = gettext_lazy("Give the tournament a name.")
NAME_TAKEN = gettext_lazy("There is already a tournament called “%(name)s”.")
ENDS_BEFORE_IT_STARTS = gettext_lazy("The last day cannot be before the first day.")
DRAW_WAITS = gettext_lazy("A sitting is drawn but not confirmed: confirm or discard it.")
GAMES_IN_PLAY = gettext_lazy("Some games are still being played: finish them or call time.")
FINISH_FIRST = gettext_lazy("Finish the tournament before making its results final.")
SAY_WHY = gettext_lazy("Say why the tournament is reopened.")
NOTHING_TO_REOPEN = gettext_lazy("The tournament is not finished; there is nothing to reopen.")


def create_tournament(
    *,
    name: str,
    starts_on,
    ends_on=None,
    venue: str = "",
    rules: core.Rules = core.DEFAULT_RULES,
    deal_limit: int | None = None,
    points_scheme: dict[int, tuple[int, ...]] | None = None,
    require_confirmation: bool = False,
    check_in: bool = False,
    substitutions: int = 1,
    user=None,
    club=None,
) -> Tournament:
    """A new tournament of ``club`` (the home club when None), its name unique in the club
    (spaces tidied) and its house rules checked."""
    name = " ".join(name.split())
    if not name:
        raise TournamentError(str(NO_NAME), field="name")
    club_id = club.pk if club is not None else clubs.home_id()
    if Tournament.objects.filter(club_id=club_id, name__iexact=name).exists():
        raise TournamentError(NAME_TAKEN % {"name": name}, field="name")
    if ends_on and ends_on < starts_on:
        raise TournamentError(str(ENDS_BEFORE_IT_STARTS), field="ends_on")
    try:
        rules = replace(rules, deal_limit=rules.deal_limit if deal_limit is None else deal_limit)
        core.check_house_rules(rules)
    except core.RulesError as error:
        raise TournamentError(error.translated(_), field=error.field or "rules") from None
    if points_scheme:
        try:
            ranking.PointsScheme(points_scheme)
        except ranking.StandingsError as error:
            raise TournamentError(error.translated(_), field="points_scheme") from error
    with transaction.atomic():
        tournament = Tournament.objects.create(
            club_id=club_id,
            name=name,
            starts_on=starts_on,
            ends_on=ends_on,
            venue=venue.strip(),
            **rules_fields(rules),
            deal_limit=rules.deal_limit,
            points_scheme={str(k): list(v) for k, v in (points_scheme or {}).items()},
            require_confirmation=require_confirmation,
            check_in=check_in,
            substitutions=substitutions,
            created_by=user if user is not None and user.is_authenticated else None,
        )
        log(tournament, TournamentEvent.Action.CREATED, user)
    return tournament


@transaction.atomic
def finish_tournament(*, tournament: Tournament, user=None) -> Tournament:
    """The tournament is over: no draw waits and no game is still being played."""
    tournament = lock(tournament)
    check_editable(tournament)
    if tournament.sittings.filter(status=Sitting.Status.PROPOSED).exists():
        raise TournamentError(str(DRAW_WAITS))
    if Game.objects.filter(
        sitting_entry__sitting__tournament=tournament, status=Game.Status.IN_PROGRESS
    ).exists():
        raise TournamentError(str(GAMES_IN_PLAY))
    tournament.status = Tournament.Status.FINISHED
    tournament.save(update_fields=["status"])
    log(tournament, TournamentEvent.Action.FINISHED, user)
    return tournament


@transaction.atomic
def make_final(*, tournament: Tournament, user=None) -> Tournament:
    """Mark the results final: exports stop saying provisional and games are locked."""
    tournament = lock(tournament)
    if tournament.is_final:
        return tournament
    if tournament.status != Tournament.Status.FINISHED:
        raise TournamentError(str(FINISH_FIRST))
    tournament.is_final = True
    tournament.save(update_fields=["is_final"])
    Game.objects.filter(sitting_entry__sitting__tournament=tournament).update(results_locked=True)
    log(tournament, TournamentEvent.Action.FINALISED, user)
    return tournament


@transaction.atomic
def reopen(*, tournament: Tournament, reason: str, user=None) -> Tournament:
    """Reopen a final tournament for corrections; the reason is kept in its history."""
    tournament = lock(tournament)
    if not reason.strip():
        raise TournamentError(str(SAY_WHY), field="reason")
    if not tournament.is_final and tournament.status != Tournament.Status.FINISHED:
        raise TournamentError(str(NOTHING_TO_REOPEN))
    tournament.is_final = False
    tournament.status = Tournament.Status.RUNNING
    tournament.save(update_fields=["is_final", "status"])
    Game.objects.filter(sitting_entry__sitting__tournament=tournament).update(results_locked=False)
    log(tournament, TournamentEvent.Action.REOPENED, user, note=reason.strip())
    return tournament
