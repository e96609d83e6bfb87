"""Writes for a tournament's stages: draw one, adjust it, confirm it; a sitting from it.

A stage is drawn when the organiser adds it (club.scoring.stages draws the
chart or the bracket), stays *proposed* while the organiser adjusts and prints
it, and is confirmed before its first sitting. ``stage_draw`` then gives each
sitting of the stage: the next row of its chart, or the next round of its
knockout. Every write runs under the tournament's lock and is in its history.

The decisions behind it (README, "Stages"):

- A stage begins when the one before it is over: every sitting of its chart
  played, or its knockout's champion known; a Swiss stage ends whenever the
  organiser adds the next one.
- A stage plays the tournament's form of play (team size, scoring, doubling),
  so that the standings compare like with like; it has its own deal limit
  (18-deal sessions in the groups, 24 in the knockout) and tie rule (a
  knockout plays on; the other stages share a tie unless told to play on).
- A group stage or a knockout after games have been played is seeded by the
  standings so far; before any game, at random.
- A team that withdraws gets no new game: its chart opponent sits out that
  sitting, its knockout opponent goes through.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy

from club.games.models import Game
from club.scoring import draws
from club.scoring import rules as core
from club.scoring import stages as charts
from club.tournaments.models import Sitting, Stage, Standing, Tournament, TournamentEvent
from club.tournaments.selectors.stages import bracket_of
from club.tournaments.writes import TournamentError, check_editable, lock, log

MAX_CHART_SITTINGS = 50
DEFAULT_TIE_DEALS = 2
PLAY_ON, SHARED = "play_on", "shared"  # the tie rules a stage may have
KNOCKOUT_DEALS = 24  # docs/rules.md section E: longer sessions are common in a knockout

# What the organiser is told when a stage, or a sitting of one, is refused (formatted
# where it is raised).
ONLY_PROPOSED = gettext_lazy("%(stage)s is only proposed: confirm it or discard it first.")
CHART_TO_PLAY = gettext_lazy("%(stage)s has %(left)d sitting(s) of its chart still to play.")
NO_CHAMPION_YET = gettext_lazy("%(stage)s has no champion yet: play it to its final first.")
FINISHED = gettext_lazy("The tournament has finished; reopen it to add a stage.")
DRAW_WAITING = gettext_lazy("A sitting's draw is waiting: confirm it or discard it first.")
GAMES_BEING_PLAYED = gettext_lazy(
    "%(count)d game(s) are still being played: finish them or call time first."
)
CHOOSE_TIE_RULE = gettext_lazy("Choose the tie rule: play on, or share.")
KNOCKOUT_PLAYS_ON = gettext_lazy(
    "A knockout match cannot end level: only one team goes through. Choose to play on."
)
TOO_MANY_QUALIFIERS = gettext_lazy(
    "%(qualifiers)d teams cannot go into the knockout: only %(teams)d are in."
)
CHOOSE_KIND = gettext_lazy("Choose what kind of stage to play.")
GROUP_SITTINGS = gettext_lazy("Groups A and B play 1 to %(most)d sittings.")
TWO_TEAMS_FIRST = gettext_lazy("Register at least 2 teams first.")
CONFIRMED_ALREADY = gettext_lazy("%(stage)s is confirmed already; its sittings are drawn from it.")
NO_GROUPS = gettext_lazy("Only a stage of groups A and B has groups to change.")
NOT_PLACED = gettext_lazy("Every team of the stage goes in group A or B; not placed: %(teams)s.")
NO_SEEDS = gettext_lazy("Only a knockout has seeds to change.")
SEEDS_DIFFER = gettext_lazy(
    "Give every team of the knockout a different seed, from 1 to %(count)d."
)
SEED_WITHDRAWN = gettext_lazy(
    "A seeded team has withdrawn since the draw: draw the knockout again."
)
CONFIRM_BEFORE_DRAWING = gettext_lazy(
    "%(stage)s is only proposed: confirm it before drawing its first sitting."
)
ALL_DRAWN = gettext_lazy("Every sitting of %(stage)s has been drawn: add the next stage.")
STAGE_OVER = gettext_lazy("%(stage)s is over: add the next stage or finish the tournament.")
NO_MATCH_READY = gettext_lazy("No match of the knockout is ready to play yet.")


def current_stage(tournament: Tournament) -> Stage | None:
    """The stage being played (or proposed): the last one."""
    return tournament.stages.order_by("-number").first()


def _active(tournament: Tournament) -> list[int]:
    return list(
        tournament.entries.filter(withdrawn_at=None).order_by("id").values_list("id", flat=True)
    )


def _ranking(tournament: Tournament, entries: Sequence[int]) -> list[int] | None:
    """The teams in standings order, when a game has been played; else None."""
    if not Game.objects.filter(
        sitting_entry__sitting__tournament=tournament, status=Game.Status.FINISHED
    ).exists():
        return None
    wanted = set(entries)
    order = Standing.objects.filter(tournament=tournament).order_by("place", "entry__team__name")
    return [entry for entry in order.values_list("entry_id", flat=True) if entry in wanted]


def _refused(error: charts.StageError, field: str | None = None) -> TournamentError:
    return TournamentError(error.translated(gettext), field=field or error.field)


def check_stage_over(stage: Stage) -> None:
    """Refuse to go past a stage that is still being played (or only proposed)."""
    if stage.status == Stage.Status.PROPOSED:
        raise TournamentError(ONLY_PROPOSED % {"stage": stage.title})
    if stage.charted:
        left = len(stage.chart) - stage.sittings.count()
        if left > 0:
            raise TournamentError(CHART_TO_PLAY % {"stage": stage.title, "left": left})
    if stage.kind == Stage.Kind.KNOCKOUT and bracket_of(stage).champion is None:
        raise TournamentError(NO_CHAMPION_YET % {"stage": stage.title})


def _check_between_sittings(tournament: Tournament) -> None:
    if tournament.status == Tournament.Status.FINISHED:
        raise TournamentError(str(FINISHED))
    if tournament.sittings.filter(status=Sitting.Status.PROPOSED).exists():
        raise TournamentError(str(DRAW_WAITING))
    unfinished = Game.objects.filter(
        sitting_entry__sitting__tournament=tournament, status=Game.Status.IN_PROGRESS
    ).count()
    if unfinished:
        raise TournamentError(GAMES_BEING_PLAYED % {"count": unfinished})


def _deal_limit(
    tournament: Tournament, kind: str, deal_limit, tie_deals, tie_rule: str = ""
) -> tuple:
    """The stage's deal limit and tie rule, checked against the tournament's form of play.

    The tie rule (docs/rules.md section E) is the club's: play on (extra deals, then one at a
    time) or share the place. Unsaid, a knockout plays on and the other stages share; a
    knockout cannot share, since only one team can go through.
    """
    if not tie_rule:
        tie_rule = PLAY_ON if kind == Stage.Kind.KNOCKOUT else SHARED
    if tie_rule not in (PLAY_ON, SHARED):
        raise TournamentError(str(CHOOSE_TIE_RULE), field="tie_rule")
    if kind == Stage.Kind.KNOCKOUT and tie_rule == SHARED:
        raise TournamentError(str(KNOCKOUT_PLAYS_ON), field="tie_rule")
    if tie_rule == SHARED:
        tie_deals = None
    elif tie_deals is None:
        tie_deals = DEFAULT_TIE_DEALS
    if kind == Stage.Kind.KNOCKOUT and deal_limit is None:
        deal_limit = KNOCKOUT_DEALS if tournament.scoring == core.Scoring.POINTS else None
    limit = deal_limit if deal_limit is not None else tournament.deal_limit
    try:
        core.check_house_rules(replace(tournament.rules, deal_limit=limit, tie_deals=tie_deals))
    except core.RulesError as error:
        raise TournamentError(error.translated(gettext), field=error.field) from error
    return deal_limit, tie_deals


def _chart_data(chart: Sequence[charts.Sitting]) -> list[dict]:
    return [{"games": [list(game) for game in row.games], "byes": list(row.byes)} for row in chart]


def _draw(stage: Stage, entries: list[int], ranking, rng, *, sittings=None, qualifiers=None):
    """Fill in the stage's groups and chart, or its seeds, from the teams given."""
    rng = rng or random.SystemRandom()
    order = list(ranking) if ranking is not None else rng.sample(entries, len(entries))
    if stage.kind == Stage.Kind.GROUPS:
        group_a, group_b = charts.split_groups(order, seeded=True)
        stage.groups = {"a": group_a, "b": group_b}
        stage.chart = _chart_data(charts.group_chart(group_a, group_b, sittings, rng=rng))
    elif stage.kind == Stage.Kind.ROUND_ROBIN:
        stage.chart = _chart_data(charts.round_robin(order))
    elif stage.kind == Stage.Kind.KNOCKOUT:
        if qualifiers > len(entries):
            raise TournamentError(
                TOO_MANY_QUALIFIERS % {"qualifiers": qualifiers, "teams": len(entries)},
                field="qualifiers",
            )
        stage.seeds = order[:qualifiers]


@transaction.atomic
def add_stage(
    *,
    tournament: Tournament,
    kind: str,
    deal_limit: int | None = None,
    sittings: int | None = None,
    qualifiers: int | None = None,
    tie_deals: int | None = None,
    tie_rule: str = "",
    user=None,
    rng: random.Random | None = None,
) -> Stage:
    """Draw the next stage: its chart or its bracket, proposed for the organiser to look at."""
    tournament = lock(tournament)
    check_editable(tournament)
    _check_between_sittings(tournament)
    previous = current_stage(tournament)
    if previous is not None:
        check_stage_over(previous)
    if kind not in Stage.Kind.values:
        raise TournamentError(str(CHOOSE_KIND), field="kind")
    if kind == Stage.Kind.GROUPS and not 1 <= (sittings or 0) <= MAX_CHART_SITTINGS:
        raise TournamentError(
            GROUP_SITTINGS % {"most": MAX_CHART_SITTINGS},
            field="sittings",
        )
    entries = _active(tournament)
    if kind != Stage.Kind.SITTINGS and len(entries) < 2:
        raise TournamentError(str(TWO_TEAMS_FIRST), field="kind")
    if kind == Stage.Kind.KNOCKOUT:
        try:
            charts.bracket_size(qualifiers or 0)
        except charts.StageError as error:
            raise _refused(error) from error
    deal_limit, tie_deals = _deal_limit(tournament, kind, deal_limit, tie_deals, tie_rule)
    stage = Stage(
        tournament=tournament,
        number=tournament.stages.count() + 1,
        kind=kind,
        deal_limit=deal_limit,
        tie_deals=tie_deals,
    )
    try:
        _draw(
            stage,
            entries,
            _ranking(tournament, entries),
            rng,
            sittings=sittings,
            qualifiers=qualifiers,
        )
    except charts.StageError as error:
        raise _refused(error) from error
    if kind == Stage.Kind.SITTINGS:  # nothing drawn ahead, nothing to look at first
        stage.status = Stage.Status.CONFIRMED
        stage.confirmed_at = timezone.now()
    stage.save()
    log(tournament, TournamentEvent.Action.STAGE_ADDED, user, stage=stage)
    return stage


def _proposed(stage: Stage) -> tuple[Tournament, Stage]:
    tournament = lock(stage.tournament)
    check_editable(tournament)
    stage = Stage.objects.get(pk=stage.pk)
    if stage.status != Stage.Status.PROPOSED:
        raise TournamentError(CONFIRMED_ALREADY % {"stage": stage.title})
    return tournament, stage


@transaction.atomic
def redraw_stage(*, stage: Stage, user=None, rng: random.Random | None = None) -> Stage:
    """Draw a proposed stage again (a new shuffle where nothing seeds it)."""
    tournament, stage = _proposed(stage)
    entries = _active(tournament)
    try:
        _draw(
            stage,
            entries,
            _ranking(tournament, entries),
            rng,
            sittings=len(stage.chart),
            qualifiers=len(stage.seeds),
        )
    except charts.StageError as error:
        raise _refused(error) from error
    stage.save(update_fields=["groups", "chart", "seeds"])
    log(tournament, TournamentEvent.Action.STAGE_ADJUSTED, user, stage=stage)
    return stage


def _names(tournament: Tournament) -> dict[int, str]:
    return dict(tournament.entries.values_list("id", "team__name"))


@transaction.atomic
def adjust_groups(*, stage: Stage, group_a: list[int], group_b: list[int], user=None) -> Stage:
    """The organiser's groups A and B; the chart is drawn again from them, in their order."""
    tournament, stage = _proposed(stage)
    if stage.kind != Stage.Kind.GROUPS:
        raise TournamentError(str(NO_GROUPS))
    teams = set(stage.groups.get("a", [])) | set(stage.groups.get("b", []))
    if sorted([*group_a, *group_b]) != sorted(teams):
        names = _names(tournament)
        missing = [names.get(team, team) for team in teams - {*group_a, *group_b}]
        raise TournamentError(
            NOT_PLACED % {"teams": ", ".join(map(str, missing)) or "?"},
            field="groups",
        )
    if len(group_a) < len(group_b):
        group_a, group_b = group_b, group_a
    try:
        chart = charts.group_chart(group_a, group_b, len(stage.chart))
    except charts.StageError as error:
        raise _refused(error) from error
    stage.groups = {"a": list(group_a), "b": list(group_b)}
    stage.chart = _chart_data(chart)
    stage.save(update_fields=["groups", "chart"])
    log(tournament, TournamentEvent.Action.STAGE_ADJUSTED, user, stage=stage)
    return stage


@transaction.atomic
def adjust_seeds(*, stage: Stage, seeds: list[int], user=None) -> Stage:
    """The organiser's order of a knockout's seeds (the same teams, best first)."""
    tournament, stage = _proposed(stage)
    if stage.kind != Stage.Kind.KNOCKOUT:
        raise TournamentError(str(NO_SEEDS))
    if sorted(seeds) != sorted(stage.seeds) or len(set(seeds)) != len(seeds):
        raise TournamentError(
            SEEDS_DIFFER % {"count": len(stage.seeds)},
            field="seeds",
        )
    stage.seeds = list(seeds)
    stage.save(update_fields=["seeds"])
    log(tournament, TournamentEvent.Action.STAGE_ADJUSTED, user, stage=stage)
    return stage


@transaction.atomic
def confirm_stage(*, stage: Stage, user=None) -> Stage:
    """The stage as drawn (and adjusted) is the one played; sent twice, it changes nothing."""
    tournament = lock(stage.tournament)
    check_editable(tournament)
    stage = Stage.objects.get(pk=stage.pk)
    if stage.status == Stage.Status.CONFIRMED:
        return stage
    withdrawn = set(tournament.entries.exclude(withdrawn_at=None).values_list("id", flat=True))
    if stage.kind == Stage.Kind.KNOCKOUT and withdrawn & set(stage.seeds):
        raise TournamentError(str(SEED_WITHDRAWN), field="seeds")
    stage.status = Stage.Status.CONFIRMED
    stage.confirmed_at = timezone.now()
    stage.save(update_fields=["status", "confirmed_at"])
    log(tournament, TournamentEvent.Action.STAGE_CONFIRMED, user, stage=stage)
    return stage


@transaction.atomic
def discard_stage(*, stage: Stage, user=None) -> None:
    """Drop a proposed stage (nothing of it has been played)."""
    tournament, stage = _proposed(stage)
    log(tournament, TournamentEvent.Action.STAGE_DISCARDED, user, stage=stage)
    stage.delete()


# --- A sitting of a stage ---------------------------------------------------------


def stage_draw(stage: Stage, withdrawn: set[int]) -> draws.Draw:
    """The next sitting of a confirmed stage: its chart's next row, or its knockout's next round.

    A game of the chart with a withdrawn team is not played: its other team
    sits out. Raises TournamentError when the stage has nothing left to draw.
    """
    if stage.status == Stage.Status.PROPOSED:
        raise TournamentError(CONFIRM_BEFORE_DRAWING % {"stage": stage.title})
    if stage.charted:
        index = stage.sittings.count()
        if index >= len(stage.chart):
            raise TournamentError(ALL_DRAWN % {"stage": stage.title})
        row = stage.chart[index]
        games: list[tuple[int, ...]] = []
        byes = [team for team in row["byes"] if team not in withdrawn]
        for first, second in row["games"]:
            playing = [team for team in (first, second) if team not in withdrawn]
            if len(playing) == 2:
                games.append((first, second))
            else:
                byes.extend(playing)
        return draws.Draw(games=games, byes=byes, rematches=0)
    bracket = bracket_of(stage)
    if bracket.champion is not None:
        raise TournamentError(STAGE_OVER % {"stage": stage.title})
    number = bracket.round_to_play()
    if number is None:  # cannot happen while no game is being played: the bracket moves on
        raise TournamentError(str(NO_MATCH_READY))
    games = [
        (match.first, match.second)
        for match in bracket.rounds[number - 1]
        if match.ready and match.first is not None and match.second is not None
    ]
    return draws.Draw(games=games, byes=[], rematches=0)
