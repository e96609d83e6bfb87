"""Writes for tournaments: register teams, draw and confirm sittings, standings, finalising.

Every write runs in one transaction with the tournament row locked, so two
organisers drawing the same sitting at once get one draw, and a tournament
whose results are final cannot change until it is reopened (which is recorded).
Game results go through ``club.games.services``; this module only derives
standings from them.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import NamedTuple

from django.db import transaction
from django.db.models import Count, F
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from club.games import links, words
from club.games import services as scoring
from club.games.models import PLAYER_FIELDS, Game, GameTeam, in_a_seat, rules_fields
from club.scoring import draws, names
from club.scoring import rules as core
from club.scoring import standings as ranking
from club.tournaments import checkin, stages, substitutions
from club.tournaments.calling_time import call_time as call_time
from club.tournaments.captains import TEAM_PLAYERS, captain_of, set_captain
from club.tournaments.models import (
    STANDING_FIGURES,
    Bye,
    Sitting,
    SittingGame,
    Stage,
    Standing,
    Tournament,
    TournamentEvent,
    TournamentTeam,
)
from club.tournaments.writes import TournamentError, check_editable
from club.tournaments.writes import lock as _lock
from club.tournaments.writes import log as _log


def scheme_of(tournament: Tournament) -> ranking.PointsScheme:
    if not tournament.points_scheme:
        return ranking.DEFAULT_POINTS
    return ranking.PointsScheme(
        {int(count): tuple(points) for count, points in tournament.points_scheme.items()}
    )


# --- Setting up ------------------------------------------------------------


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
) -> Tournament:
    name = " ".join(name.split())
    if not name:
        raise TournamentError(_("Give the tournament a name."), field="name")
    if Tournament.objects.filter(name__iexact=name).exists():
        raise TournamentError(
            _("There is already a tournament called “%(name)s”.") % {"name": name}, field="name"
        )
    if ends_on and ends_on < starts_on:
        raise TournamentError(_("The last day cannot be before the first day."), field="ends_on")
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
        _log(tournament, TournamentEvent.Action.CREATED, user)
    return tournament


def team_size_words(size: int) -> str:
    """What a team of the tournament is, for a refusal (two, three or four players)."""
    return {
        2: _("A team of this tournament is two players."),
        3: _("A team of this tournament is three players."),
        4: _("A team of this tournament is four players."),
    }[size]


def _team_of(tournament: Tournament, players: Sequence[str], name: str, *, entry=None, known=None):
    """The club's team of these players (found or added), checked for the tournament.

    Refused: a team of the wrong size, a player named twice, a team or player
    already registered, a team of the name of one registered (``entry``, when editing,
    is the registration to leave out). ``known``: an import's players and teams
    (club.games.starting.KnownNames), its listed players matched already.
    """
    given = [" ".join(player.split()) for player in players]
    given += [""] * (4 - len(given))
    size = tournament.team_size
    if any(given[size:]) or not all(given[:size]):
        if size == 2 and not any(given[2:]):
            raise TournamentError(_("A team needs two players."), field="team")
        raise TournamentError(team_size_words(size), field="team")
    players = given[:size]
    for at, player in enumerate(players):
        if any(player.lower() == other.lower() for other in players[:at]):
            raise TournamentError(
                _("%(player)s cannot partner themselves.") % {"player": player}, field="team"
            )
    team_entry = scoring.TeamEntry(players[0], players[1], name, *players[2:])
    try:
        team = scoring.find_or_add_team(
            team_entry,
            *(scoring.find_or_add_player(player, known) for player in players),
            known=known,
        )
    except scoring.ScoringError as error:
        raise TournamentError(error.message, field="team") from error
    others = TournamentTeam.objects.filter(tournament=tournament)
    if entry is not None:
        others = others.exclude(pk=entry.pk)
    if others.filter(team=team).exists():
        raise TournamentError(
            _("%(team)s is already registered for this tournament.") % {"team": team.name},
            field="team",
        )
    namesake = others.filter(team__name__iexact=team.name).select_related(
        *(f"team__{seat}" for seat in PLAYER_FIELDS)
    )
    for other in namesake[:1]:
        raise TournamentError(
            _(
                "A team called %(team)s (%(players)s) is registered for this tournament "
                "already; give this team another name."
            )
            % {"team": other.team.name, "players": " & ".join(p.name for p in other.team.players)},
            field="team",
        )
    clash = (
        others.filter(in_a_seat(team.player_ids, "team__", lookup="__in"))
        .select_related(*(f"team__{seat}" for seat in PLAYER_FIELDS))
        .first()
    )
    if clash is not None:
        player = next(p for p in clash.team.players if p.pk in team.player_ids)
        raise TournamentError(
            _("%(player)s already plays for %(team)s in this tournament.")
            % {"player": player.name, "team": clash.team.name},
            field="team",
        )
    sits_in = substitutions.sitting_in(
        tournament, team.player_ids, besides=entry.pk if entry is not None else None
    )
    if sits_in is not None:
        raise TournamentError(
            _("%(player)s already plays for %(team)s in this tournament.")
            % {"player": sits_in.player_in.name, "team": sits_in.entry.team.name},
            field="team",
        )
    return team


def _open_for_teams(tournament: Tournament) -> Tournament:
    tournament = _lock(tournament)
    check_editable(tournament)
    if tournament.status == Tournament.Status.FINISHED:
        raise TournamentError(_("The tournament has finished; no more teams can join."))
    return tournament


@transaction.atomic
def register_team(
    *,
    tournament: Tournament,
    first: str,
    second: str,
    name: str = "",
    third: str = "",
    fourth: str = "",
    captain: str = "",
    user=None,
    known=None,
) -> TournamentTeam:
    """Register a team of the tournament's size (two, three or four players, in seat order),
    with its captain (one of them; the first named if none is).

    Refused if the team or any of its players is already registered, or a team of its
    name. ``known``: an import's players and teams (club.games.starting.KnownNames).
    """
    tournament = _open_for_teams(tournament)
    team = _team_of(tournament, (first, second, third, fourth), name, known=known)
    registered = TournamentTeam.objects.create(
        tournament=tournament, team=team, captain=captain_of(team, captain)
    )
    _log(tournament, TournamentEvent.Action.REGISTERED, user, note=team.name)
    _rebuild_standings(tournament)
    return registered


@dataclass(frozen=True)
class TeamLine:
    """One team of a pasted list: its line number, players in seat order, name (optional)."""

    line: int
    players: tuple[str, ...]
    name: str = ""
    captain: str = ""  # one of the players; the first if none


class RegistrationErrors(TournamentError):
    """Some lines of a list of teams were refused: nothing of the list was stored."""

    def __init__(self, errors: list[tuple[int, str]]):
        self.errors = errors  # (line number, the reason in the club's words)
        super().__init__(
            ngettext(
                "%(count)d line was refused; no team of the list was registered.",
                "%(count)d lines were refused; no team of the list was registered.",
                len(errors),
            )
            % {"count": len(errors)}
        )


@transaction.atomic
def register_teams(
    *, tournament: Tournament, teams: Sequence[TeamLine], user=None
) -> list[TournamentTeam]:
    """Register a whole list of teams, or none of it: every refused line is reported."""
    tournament = _open_for_teams(tournament)
    errors: list[tuple[int, str]] = []
    registered = []
    for line in teams:
        try:
            with transaction.atomic():  # a refused line leaves nothing behind
                team = _team_of(tournament, line.players, line.name)
                captain = captain_of(team, line.captain)
                registered.append(
                    TournamentTeam.objects.create(tournament=tournament, team=team, captain=captain)
                )
        except TournamentError as error:
            errors.append((line.line, error.message))
    if errors:
        raise RegistrationErrors(errors)  # the outer transaction undoes the lines stored
    for entry in registered:
        _log(tournament, TournamentEvent.Action.REGISTERED, user, note=entry.team.name)
    _rebuild_standings(tournament)
    return registered


def _has_played(entry: TournamentTeam) -> bool:
    return GameTeam.objects.filter(
        team_id=entry.team_id, game__sitting_entry__sitting__tournament_id=entry.tournament_id
    ).exists()


def _in_pending_draw(entry: TournamentTeam) -> Sitting | None:
    pending = entry.tournament.sittings.filter(status=Sitting.Status.PROPOSED).first()
    if pending is not None and (
        any(entry.pk in game for game in pending.proposal) or entry.pk in pending.proposed_byes
    ):
        return pending
    return None


@transaction.atomic
def edit_team(
    *,
    entry: TournamentTeam,
    players: Sequence[str],
    name: str = "",
    captain: str = "",
    user=None,
) -> TournamentTeam:
    """Change a registered team's name or players, before it has played a game here; and its
    captain, at any time until the results are final (:func:`set_captain`)."""
    entry = TournamentTeam.objects.select_related("team", *TEAM_PLAYERS).get(pk=entry.pk)
    now = [player.name for player in entry.team.players]
    name = " ".join(name.split())
    same_name = name.lower() == entry.team.name.lower() or (
        not name and entry.team.name == names.default_team_name(now)
    )
    typed = [" ".join(player.split()).lower() for player in players if player.strip()]
    if same_name and typed == [player.lower() for player in now]:  # the captain alone
        return set_captain(entry=entry, captain=captain or entry.team.first_player.name, user=user)
    tournament = _open_for_teams(entry.tournament)
    if _has_played(entry):
        raise TournamentError(
            _("%(team)s has played in this tournament already; its team cannot change.")
            % {"team": entry.team.name}
        )
    before = entry.team.name
    team = _team_of(tournament, players, name, entry=entry)
    if team.pk != entry.team_id and entry.substitutions.exists():
        raise TournamentError(
            _("%(team)s has a substitution: undo it before changing the team's players.")
            % {"team": before}
        )
    chosen = captain_of(team, captain)
    if team.pk != entry.team_id:
        entry.team, entry.captain = team, chosen
        entry.save(update_fields=["team", "captain"])
        _log(tournament, TournamentEvent.Action.EDITED, user, note=f"{before} → {team.name}")
        _rebuild_standings(tournament)
    elif chosen.pk != entry.captain_id:
        set_captain(entry=entry, captain=chosen.name, user=user)
    return entry


@transaction.atomic
def withdraw_team(*, entry: TournamentTeam, user=None) -> TournamentTeam:
    """The team gets no new games from now on; its results stay in the standings."""
    tournament = _lock(entry.tournament)
    check_editable(tournament)
    entry = TournamentTeam.objects.select_related("team").get(pk=entry.pk)
    if entry.withdrawn_at is not None:
        return entry
    pending = _in_pending_draw(entry)
    if pending is not None:
        raise TournamentError(
            _(
                "%(team)s is in the draw of %(sitting)s: adjust or discard the draw before "
                "withdrawing it."
            )
            % {"team": entry.team.name, "sitting": pending}
        )
    entry.withdrawn_at = timezone.now()
    entry.save(update_fields=["withdrawn_at"])
    _log(tournament, TournamentEvent.Action.WITHDRAWN, user, note=entry.team.name)
    Tournament.objects.filter(pk=tournament.pk).update(results_version=F("results_version") + 1)
    return entry


@transaction.atomic
def reinstate_team(*, entry: TournamentTeam, user=None) -> TournamentTeam:
    """A withdrawn team back in: the next draws pair it again."""
    tournament = _open_for_teams(entry.tournament)
    entry = TournamentTeam.objects.select_related("team").get(pk=entry.pk)
    if entry.withdrawn_at is None:
        return entry
    entry.withdrawn_at = None
    entry.save(update_fields=["withdrawn_at"])
    _log(tournament, TournamentEvent.Action.REINSTATED, user, note=entry.team.name)
    Tournament.objects.filter(pk=tournament.pk).update(results_version=F("results_version") + 1)
    return entry


# --- Sittings --------------------------------------------------------------


def _history(tournament: Tournament) -> list[list[int]]:
    """Every earlier game of the tournament as the registered teams that met."""
    entry_of = dict(
        TournamentTeam.objects.filter(tournament=tournament).values_list("team_id", "id")
    )
    games: dict[int, list[int]] = defaultdict(list)
    for game_id, team_id in GameTeam.objects.filter(
        game__sitting_entry__sitting__tournament=tournament
    ).values_list("game_id", "team_id"):
        games[game_id].append(entry_of[team_id])
    return list(games.values())


def _check_team_sizes(tournament: Tournament) -> None:
    """Every registered team is of the tournament's size (the admin can add any team)."""
    size = tournament.team_size
    seats = {f"team__{seat}__isnull": at >= size for at, seat in enumerate(PLAYER_FIELDS)}
    odd = (
        tournament.entries.filter(withdrawn_at=None).exclude(**seats).select_related("team").first()
    )
    if odd is not None:
        raise TournamentError(
            _("%(team)s is not a team of this tournament's size.") % {"team": odd.team.name}
            + " "
            + team_size_words(size)
        )


@transaction.atomic
def propose_sitting(
    *, tournament: Tournament, game_size: int = 2, user=None, rng: random.Random | None = None
) -> Sitting:
    """Draw the next sitting, or return the one already proposed (one draw, never two)."""
    tournament = _lock(tournament)
    check_editable(tournament)
    pending = tournament.sittings.filter(status=Sitting.Status.PROPOSED).first()
    if pending is not None:
        return pending
    unfinished = Game.objects.filter(
        sitting_entry__sitting__tournament=tournament, status=Game.Status.IN_PROGRESS
    ).count()
    if unfinished:
        raise TournamentError(
            _(
                "%(count)d game(s) of the last sitting are still being played: finish them or "
                "call time before drawing the next sitting."
            )
            % {"count": unfinished}
        )
    if tournament.status == Tournament.Status.FINISHED:
        raise TournamentError(_("The tournament has finished; reopen it to draw another sitting."))
    if tournament.team_size > 2 and game_size != 2:
        # docs/rules.md section D: teams of three or four play two teams to a game.
        raise TournamentError(
            _("Teams of three or four play two teams to a game; draw games of 2 teams."),
            field="game_size",
        )
    _check_team_sizes(tournament)
    number = tournament.sittings.count() + 1
    stage = stages.current_stage(tournament)
    if stage is not None and stage.kind != Stage.Kind.SITTINGS:
        if game_size != 2:
            raise TournamentError(
                _("A stage's games are of 2 teams, by its chart or its bracket."),
                field="game_size",
            )
        withdrawn = set(tournament.entries.exclude(withdrawn_at=None).values_list("id", flat=True))
        draw = stages.stage_draw(stage, withdrawn)
        # With check-in, the teams this sitting of the stage seats must be here.
        absent = checkin.absent_of_stage(tournament, number, stage, draw)
        if absent:
            draw = stages.stage_draw(stage, withdrawn | absent)
    else:
        absent = checkin.absent_from(tournament, number)
        draw = _swiss_draw(tournament, game_size, rng, absent)
    sitting = Sitting.objects.create(
        tournament=tournament,
        number=number,
        stage=stage,
        game_size=game_size,
        proposal=[list(game) for game in draw.games],
        proposed_byes=list(draw.byes),
        absent=sorted(absent),
    )
    _log(tournament, TournamentEvent.Action.DRAWN, user, sitting=sitting)
    return sitting


def _swiss_draw(tournament: Tournament, game_size: int, rng, absent: set[int]) -> draws.Draw:
    """A Swiss (or, first, random) draw of every team still in and present
    (club.scoring.draws)."""
    entries = [
        entry
        for entry in tournament.entries.filter(withdrawn_at=None).values_list("id", flat=True)
        if entry not in absent
    ]
    history = _history(tournament)
    ranking_order = None
    if history:
        ranking_order = [
            entry
            for entry in Standing.objects.filter(tournament=tournament, entry__withdrawn_at=None)
            .order_by("place", "entry__team__name")
            .values_list("entry_id", flat=True)
            if entry not in absent
        ]
    byes_so_far = Counter(
        Bye.objects.filter(sitting__tournament=tournament).values_list("entry_id", flat=True)
    )
    try:
        return draws.propose_draw(
            entries,
            ranking=ranking_order,
            history=history,
            byes_so_far=byes_so_far,
            game_size=game_size,
            rng=rng,
        )
    except draws.DrawError as error:
        raise TournamentError(error.translated(_), field="game_size") from error


@transaction.atomic
def adjust_sitting(*, sitting: Sitting, games: list[list[int]], byes: list[int], user=None):
    """The organiser's changes to a proposed draw, checked before they are kept."""
    tournament = _lock(sitting.tournament)
    check_editable(tournament)
    sitting = Sitting.objects.get(pk=sitting.pk)
    if sitting.status != Sitting.Status.PROPOSED:
        raise TournamentError(_("This sitting is confirmed already; its games have started."))
    names = dict(tournament.entries.values_list("id", "team__name"))
    withdrawn = set(tournament.entries.exclude(withdrawn_at=None).values_list("id", flat=True))
    absent = set(sitting.absent)
    for entry_id in [*(team for game in games for team in game), *byes]:
        if entry_id in withdrawn:
            raise TournamentError(
                _("%(team)s has withdrawn; it gets no new games.") % {"team": names[entry_id]},
                field="games",
            )
        if entry_id in absent:
            raise TournamentError(
                _(
                    "%(team)s has not checked in for this sitting; discard the draw and draw "
                    "again once it has."
                )
                % {"team": names[entry_id]},
                field="games",
            )
    entries = [entry_id for entry_id in names if entry_id not in withdrawn | absent]
    if sitting.stage_id is not None:
        # A stage's sitting seats the teams its chart or bracket gave it, no others.
        drawn = {team for game in sitting.proposal for team in game} | set(sitting.proposed_byes)
        entries = [entry_id for entry_id in entries if entry_id in drawn]
    candidate = draws.Draw(games=[tuple(g) for g in games], byes=list(byes), rematches=0)
    try:
        draws.check_draw(candidate, entries, sitting.game_size)
    except draws.DrawError as error:
        # Name the team, not its id: the organiser knows the teams by name.
        raise TournamentError(error.translated(_, names), field="games") from error
    sitting.proposal = [list(game) for game in games]
    sitting.proposed_byes = list(byes)
    sitting.save(update_fields=["proposal", "proposed_byes"])
    _log(tournament, TournamentEvent.Action.ADJUSTED, user, sitting=sitting)
    return sitting


def _start_game(tournament: Tournament, sitting: Sitting, label: str, teams, user, rng) -> Game:
    """A game of the sitting at table ``label``, by the tournament's house rules and its
    stage's deal limit and tie rule. ``teams``: (the registered team, who sits for it)."""
    stage = sitting.stage
    return scoring.create_game(
        label=words.sitting_game_label(tournament.name, sitting.number, label),
        teams=[
            scoring.TeamEntry(
                *(player.name for player in players[:2]),
                team.name,
                *(player.name for player in players[2:]),
                team=team,
            )
            for team, players in teams
        ],
        rules=tournament.rules,
        user=user,
        rng=rng,
        deal_limit=stage.deal_limit if stage and stage.deal_limit else tournament.deal_limit,
        require_confirmation=tournament.require_confirmation,
        tie_deals=stage.tie_deals if stage else None,
    )


@transaction.atomic
def confirm_sitting(*, sitting: Sitting, user=None, rng: random.Random | None = None) -> Sitting:
    """Start the sitting's games with the tournament's house rules; record the byes."""
    tournament = _lock(sitting.tournament)
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
        _log(tournament, TournamentEvent.Action.STARTED, user)
    _log(tournament, TournamentEvent.Action.CONFIRMED, user, sitting=sitting)
    _rebuild_standings(tournament)
    return sitting


@transaction.atomic
def issue_sitting_links(*, sitting: Sitting, user=None) -> int:
    """New scorer links for every game of the sitting still being played, in one go
    (each game's earlier links stop working); returns how many games got links."""
    tournament = _lock(sitting.tournament)
    check_editable(tournament)
    sitting = Sitting.objects.get(pk=sitting.pk)
    if sitting.status != Sitting.Status.CONFIRMED:
        raise TournamentError(_("Confirm the draw first: its games do not exist yet."))
    games = list(
        Game.objects.filter(sitting_entry__sitting=sitting, status=Game.Status.IN_PROGRESS)
    )
    if not games:
        raise TournamentError(_("Every game of this sitting is over; none needs scorer links."))
    for game in games:
        links.issue_links(game=game, user=user)
    _log(tournament, TournamentEvent.Action.LINKS, user, sitting=sitting)
    return len(games)


# --- Finishing ---------------------------------------------------------------


@transaction.atomic
def finish_tournament(*, tournament: Tournament, user=None) -> Tournament:
    tournament = _lock(tournament)
    check_editable(tournament)
    if tournament.sittings.filter(status=Sitting.Status.PROPOSED).exists():
        raise TournamentError(_("A sitting is drawn but not confirmed: confirm or discard it."))
    if Game.objects.filter(
        sitting_entry__sitting__tournament=tournament, status=Game.Status.IN_PROGRESS
    ).exists():
        raise TournamentError(_("Some games are still being played: finish them or call time."))
    tournament.status = Tournament.Status.FINISHED
    tournament.save(update_fields=["status"])
    _log(tournament, TournamentEvent.Action.FINISHED, user)
    return tournament


@transaction.atomic
def discard_sitting(*, sitting: Sitting, user=None) -> None:
    tournament = _lock(sitting.tournament)
    check_editable(tournament)
    sitting = Sitting.objects.get(pk=sitting.pk)
    if sitting.status != Sitting.Status.PROPOSED:
        raise TournamentError(_("This sitting is confirmed already; its games have started."))
    sitting.delete()
    _log(tournament, TournamentEvent.Action.DISCARDED, user, sitting=sitting)


@transaction.atomic
def make_final(*, tournament: Tournament, user=None) -> Tournament:
    """Mark the results final: exports stop saying provisional and games are locked."""
    tournament = _lock(tournament)
    if tournament.is_final:
        return tournament
    if tournament.status != Tournament.Status.FINISHED:
        raise TournamentError(_("Finish the tournament before making its results final."))
    tournament.is_final = True
    tournament.save(update_fields=["is_final"])
    Game.objects.filter(sitting_entry__sitting__tournament=tournament).update(results_locked=True)
    _log(tournament, TournamentEvent.Action.FINALISED, user)
    return tournament


@transaction.atomic
def reopen(*, tournament: Tournament, reason: str, user=None) -> Tournament:
    """Reopen a final tournament for corrections; the reason is kept in its history."""
    tournament = _lock(tournament)
    if not reason.strip():
        raise TournamentError(_("Say why the tournament is reopened."), field="reason")
    if not tournament.is_final and tournament.status != Tournament.Status.FINISHED:
        raise TournamentError(_("The tournament is not finished; there is nothing to reopen."))
    tournament.is_final = False
    tournament.status = Tournament.Status.RUNNING
    tournament.save(update_fields=["is_final", "status"])
    Game.objects.filter(sitting_entry__sitting__tournament=tournament).update(results_locked=False)
    _log(tournament, TournamentEvent.Action.REOPENED, user, note=reason.strip())
    return tournament


# --- Standings ---------------------------------------------------------------


def results_changed(game: Game, was_finished: bool = True) -> None:
    """A game changed: keep its tournament's standings in step, in the same transaction.

    Standings count finished games only, so a deal of a game still being played
    just bumps the tournament's version (live pages then refresh its tables).
    """
    of_game = Tournament.objects.filter(sittings__games__game=game)
    if game.is_finished or was_finished:
        tournament = of_game.select_for_update(of=("self",)).first()  # locked as _lock would
        if tournament is not None:
            _rebuild_standings(tournament)
    else:
        of_game.update(results_version=F("results_version") + 1)  # none if not a tournament's


class _Member(NamedTuple):
    """A registered team's result at one game of the tournament."""

    entry: int
    place: int | None
    tables: int
    score: int
    declared: int
    made: int


def game_results(
    tournament: Tournament, entry_of: dict[int, int] | None = None
) -> list[ranking.GameResult]:
    """The finished games of the tournament as the standings calculator reads them.

    Read from the tournament's sittings down: asking the database for finished
    games first would walk every finished game of the club (SQLite takes the
    status index), so which games are finished is decided here, not in SQL.
    """
    if entry_of is None:  # team id -> registered team id
        entry_of = dict(
            TournamentTeam.objects.filter(tournament=tournament)
            .order_by()
            .values_list("team_id", "id")
        )
    of_tournament = {"game__sitting_entry__sitting__tournament": tournament}
    points = tournament.scoring == core.Scoring.POINTS  # every game is scored as its tournament
    # game id -> (tables each team started with, its teams)
    games: dict[int, tuple[int, list[_Member]]] = {}
    for game_id, status, tables_start, team, place, tables, score, declared, made in (
        GameTeam.objects.filter(**of_tournament)
        .order_by("game_id", "position")
        .values_list(
            "game_id",
            "game__status",
            "game__tables_per_team",
            "team_id",
            "place",
            "tables",
            "score",
            "declared",
            "made",
        )
    ):
        if status == Game.Status.FINISHED:
            games.setdefault(game_id, (tables_start, []))[1].append(
                _Member(entry_of[team], place, tables, score, declared, made)
            )
    results = []
    for game_id, (tables_start, members) in games.items():
        results.append(
            ranking.GameResult(
                game=game_id,
                teams=tuple(member.entry for member in members),
                places={member.entry: member.place or len(members) for member in members},
                tables_start=tables_start,
                tables_end={member.entry: member.tables for member in members},
                declared={member.entry: member.declared for member in members},
                made={member.entry: member.made for member in members},
                scores={member.entry: member.score for member in members} if points else None,
            )
        )
    return results


def rebuild_standings(tournament: Tournament) -> None:
    """Derive the tournament's standings again from its finished games, under its lock."""
    with transaction.atomic():
        _rebuild_standings(_lock(tournament))


# --- Importing a played tournament (club.archive) -------------------------------


@transaction.atomic
def import_sitting(
    *,
    tournament: Tournament,
    number: int,
    game_size: int,
    tables: Sequence[tuple[str, Game, Sequence[TournamentTeam]]],
    byes: Sequence[TournamentTeam] = (),
    absent: Sequence[TournamentTeam] = (),
) -> Sitting:
    """A sitting already played, from an archive: confirmed, with its games and byes (and
    the teams it left out for not checking in).

    ``tables`` are (table label, the game, its registered teams in seat order),
    in table order; the games are written already (the importer writes them).
    """
    sitting = Sitting.objects.create(
        tournament=tournament,
        number=number,
        status=Sitting.Status.CONFIRMED,
        game_size=game_size,
        proposal=[[entry.pk for entry in teams] for _label, _game, teams in tables],
        proposed_byes=[entry.pk for entry in byes],
        absent=sorted(entry.pk for entry in absent),
        confirmed_at=timezone.now(),
    )
    for position, (label, game, _teams) in enumerate(tables):
        # One by one: filing each game under the tournament follows its save.
        SittingGame.objects.create(sitting=sitting, game=game, table_label=label, position=position)
    Bye.objects.bulk_create(Bye(sitting=sitting, entry=entry) for entry in byes)
    return sitting


@transaction.atomic
def finish_import(*, tournament: Tournament, status: str, final: bool) -> Tournament:
    """An imported tournament's status and finality as its archive says; then its standings."""
    Tournament.objects.filter(pk=tournament.pk).update(status=status, is_final=final)
    if final:
        Game.objects.filter(sitting_entry__sitting__tournament=tournament).update(
            results_locked=True
        )
    tournament = _lock(tournament)
    _rebuild_standings(tournament)
    return tournament


CENT = Decimal("0.01")  # a standing's points are kept to two places


def standing_figures(row, byes: int) -> tuple:
    """A standings row's figures as a Standing stores them (points to the cent), in the
    order of its columns: what a rebuild compares with the stored row before writing it."""
    return (
        row.place,
        row.shared,
        (Decimal(row.points.numerator) / Decimal(row.points.denominator)).quantize(CENT),
        row.games,
        row.won,
        row.net_tables,
        row.score_difference,
        row.declared,
        row.made,
        byes,
    )


def _rebuild_standings(tournament: Tournament) -> None:
    """Derive the standings from the finished games and store them (caller holds the lock)."""
    # The registered teams once, in the order of the register (by team name), with
    # their byes and the standing each has now.
    registered = list(
        tournament.entries.annotate(bye_count=Count("byes")).values_list(
            "id", "team_id", "bye_count", *(f"standing__{name}" for name in STANDING_FIGURES)
        )
    )
    entries = [entry for entry, *_ in registered]
    byes = {entry: count for entry, _team, count, *_ in registered}
    stored = {entry: tuple(now) for entry, _team, _count, *now in registered if now[0] is not None}
    results = game_results(tournament, {team: entry for entry, team, *_ in registered})
    table = ranking.standings(entries, results, scheme_of(tournament))
    # Only the rows that changed are written (a game that ends moves a few teams), in
    # place: an upsert on the entry, one row each.
    changed = []
    for row in table:
        figures = standing_figures(row, byes.get(row.team, 0))
        if stored.get(row.team) != figures:
            changed.append(
                Standing(
                    tournament=tournament,
                    entry_id=row.team,
                    **dict(zip(STANDING_FIGURES, figures, strict=True)),
                )
            )
    if changed:
        Standing.objects.bulk_create(
            changed,
            update_conflicts=True,
            unique_fields=["entry"],
            update_fields=list(STANDING_FIGURES),
        )
    Tournament.objects.filter(pk=tournament.pk).update(results_version=F("results_version") + 1)
    tournament.results_version += 1
