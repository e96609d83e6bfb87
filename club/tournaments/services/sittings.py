"""A sitting confirmed: its games started by the tournament's house rules, its byes
recorded; and its tables' scorer links issued at once."""

from __future__ import annotations

import random

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy

from club.clubs import known as clubs
from club.games import links, words
from club.games import services as scoring
from club.games.models import PLAYER_FIELDS, Game
from club.scoring import draws
from club.tournaments import substitutions
from club.tournaments.models import Bye, Sitting, SittingGame, Tournament, TournamentEvent
from club.tournaments.services.standings import rebuild_locked
from club.tournaments.services.teams import team_entry
from club.tournaments.writes import TournamentError, check_editable, lock, log

# What the organiser is told when scorer links are refused.
CONFIRM_FIRST = gettext_lazy("Confirm the draw first: its games do not exist yet.")
EVERY_GAME_OVER = gettext_lazy("Every game of this sitting is over; none needs scorer links.")


def _start_game(tournament: Tournament, sitting: Sitting, label: str, teams, user, rng) -> Game:
    """A game of the sitting at table ``label``, by the tournament's house rules and its
    stage's deal limit and tie rule. ``teams``: (the registered team, who sits for it)."""
    stage = sitting.stage
    return scoring.create_game(
        label=words.sitting_game_label(tournament.name, sitting.number, label),
        teams=[
            team_entry([player.name for player in players], team.name, team=team)
            for team, players in teams
        ],
        rules=tournament.rules,
        user=user,
        rng=rng,
        deal_limit=stage.deal_limit if stage and stage.deal_limit else tournament.deal_limit,
        require_confirmation=tournament.require_confirmation,
        tie_deals=stage.tie_deals if stage else None,
        club=clubs.by_id(tournament.club_id),
    )


@transaction.atomic
def confirm_sitting(*, sitting: Sitting, user=None, rng: random.Random | None = None) -> Sitting:
    """Start the sitting's games with the tournament's house rules; record the byes."""
    tournament = lock(sitting.tournament)
    check_editable(tournament)
    sitting = Sitting.objects.select_related("stage").get(pk=sitting.pk)
    if sitting.status == Sitting.Status.CONFIRMED:
        return sitting  # a resent confirmation: the games exist already
    entries = {
        entry.pk: entry
        for entry in tournament.entries.select_related(*(f"team__{seat}" for seat in PLAYER_FIELDS))
    }
    changed = substitutions.of_tournament(tournament)
    labels = draws.table_labels(len(sitting.proposal))
    for position, (game_teams, label) in enumerate(zip(sitting.proposal, labels, strict=True)):
        teams = [
            (
                entries[entry_id].team,
                substitutions.line_up(
                    entries[entry_id].team.players, changed.get(entry_id, ()), sitting.number
                ),
            )
            for entry_id in game_teams
        ]
        try:
            game = _start_game(tournament, sitting, label, teams, user, rng)
        except scoring.ScoringError as error:  # e.g. a team of another size, added in the admin
            raise TournamentError(error.message) from error
        SittingGame.objects.create(sitting=sitting, game=game, table_label=label, position=position)
    Bye.objects.bulk_create(Bye(sitting=sitting, entry_id=entry) for entry in sitting.proposed_byes)
    sitting.status = Sitting.Status.CONFIRMED
    sitting.confirmed_at = timezone.now()
    sitting.save(update_fields=["status", "confirmed_at"])
    if tournament.status == Tournament.Status.DRAFT:
        tournament.status = Tournament.Status.RUNNING
        tournament.save(update_fields=["status"])
        log(tournament, TournamentEvent.Action.STARTED, user)
    log(tournament, TournamentEvent.Action.CONFIRMED, user, sitting=sitting)
    rebuild_locked(tournament)
    return sitting


@transaction.atomic
def issue_sitting_links(*, sitting: Sitting, user=None) -> int:
    """New scorer links for every game of the sitting still being played, in one go
    (each game's earlier links stop working); returns how many games got links."""
    tournament = lock(sitting.tournament)
    check_editable(tournament)
    sitting = Sitting.objects.get(pk=sitting.pk)
    if sitting.status != Sitting.Status.CONFIRMED:
        raise TournamentError(str(CONFIRM_FIRST))
    games = list(
        Game.objects.filter(sitting_entry__sitting=sitting, status=Game.Status.IN_PROGRESS)
    )
    if not games:
        raise TournamentError(str(EVERY_GAME_OVER))
    for game in games:
        links.issue_links(game=game, user=user)
    log(tournament, TournamentEvent.Action.LINKS, user, sitting=sitting)
    return len(games)
