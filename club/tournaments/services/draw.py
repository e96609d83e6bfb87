"""Drawing a sitting: proposed (Swiss, or from the stage being played), adjusted, discarded.

One draw at a time: a sitting proposed stays the tournament's draw until it is
confirmed (club.tournaments.services.sittings) or discarded, and drawing again
returns it. A sitting keeps how it was drawn (``Sitting.explained``, from
club.scoring.draw_notes) as the draw saw the standings and the earlier games; a
draw adjusted by hand keeps it, with what the director changed.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict

from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from club.games.models import PLAYER_FIELDS, Game, GameTeam
from club.scoring import draw_notes, draws
from club.tournaments import checkin, stages
from club.tournaments.models import (
    Bye,
    Sitting,
    Stage,
    Standing,
    Tournament,
    TournamentEvent,
    TournamentTeam,
)
from club.tournaments.services.teams import team_size_words
from club.tournaments.writes import TournamentError, check_editable, lock, log

# What the organiser is told when a draw is refused (formatted where it is raised).
NOT_OF_THE_SIZE = gettext_lazy("%(team)s is not a team of this tournament's size.")
GAMES_STILL_PLAYED = gettext_lazy(
    "%(count)d game(s) of the last sitting are still being played: finish them or "
    "call time before drawing the next sitting."
)
FINISHED_NO_DRAW = gettext_lazy("The tournament has finished; reopen it to draw another sitting.")
TWO_TEAMS_A_GAME = gettext_lazy(
    "Teams of three or four play two teams to a game; draw games of 2 teams."
)
STAGE_GAMES_OF_TWO = gettext_lazy("A stage's games are of 2 teams, by its chart or its bracket.")
WITHDRAWN = gettext_lazy("%(team)s has withdrawn; it gets no new games.")
NOT_CHECKED_IN = gettext_lazy(
    "%(team)s has not checked in for this sitting; discard the draw and draw again once it has."
)
CONFIRMED_ALREADY = gettext_lazy("This sitting is confirmed already; its games have started.")


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
            NOT_OF_THE_SIZE % {"team": odd.team.name} + " " + team_size_words(size)
        )


def _check_can_draw(tournament: Tournament, game_size: int) -> None:
    """Refuse a draw while games are played, once the tournament has finished, of games
    its teams do not play, or with a team of another size registered."""
    unfinished = Game.objects.filter(
        sitting_entry__sitting__tournament=tournament, status=Game.Status.IN_PROGRESS
    ).count()
    if unfinished:
        raise TournamentError(GAMES_STILL_PLAYED % {"count": unfinished})
    if tournament.status == Tournament.Status.FINISHED:
        raise TournamentError(str(FINISHED_NO_DRAW))
    if tournament.team_size > 2 and game_size != 2:
        # docs/rules.md section D: teams of three or four play two teams to a game.
        raise TournamentError(
            str(TWO_TEAMS_A_GAME),
            field="game_size",
        )
    _check_team_sizes(tournament)


@transaction.atomic
def propose_sitting(
    *, tournament: Tournament, game_size: int = 2, user=None, rng: random.Random | None = None
) -> Sitting:
    """Draw the next sitting, or return the one already proposed (one draw, never two)."""
    tournament = lock(tournament)
    check_editable(tournament)
    pending = tournament.sittings.filter(status=Sitting.Status.PROPOSED).first()
    if pending is not None:
        return pending
    _check_can_draw(tournament, game_size)
    number = tournament.sittings.count() + 1
    stage = stages.current_stage(tournament)
    if stage is not None and stage.kind != Stage.Kind.SITTINGS:
        draw, absent, explained = _stage_draw(tournament, stage, number, game_size)
    else:
        absent = checkin.absent_from(tournament, number)
        draw, explained = _swiss_draw(tournament, game_size, rng, absent)
    sitting = Sitting.objects.create(
        tournament=tournament,
        number=number,
        stage=stage,
        game_size=game_size,
        proposal=[list(game) for game in draw.games],
        proposed_byes=list(draw.byes),
        absent=sorted(absent),
        explained=explained,
    )
    log(tournament, TournamentEvent.Action.DRAWN, user, sitting=sitting)
    return sitting


def _stage_draw(
    tournament: Tournament, stage: Stage, number: int, game_size: int
) -> tuple[draws.Draw, set[int], dict]:
    """The sitting a chart or a bracket gives, the teams it leaves out for not checking
    in (with check-in, the teams it seats must be here), and how it was drawn."""
    if game_size != 2:
        raise TournamentError(
            str(STAGE_GAMES_OF_TWO),
            field="game_size",
        )
    withdrawn = set(tournament.entries.exclude(withdrawn_at=None).values_list("id", flat=True))
    draw = stages.stage_draw(stage, withdrawn)
    absent = checkin.absent_of_stage(tournament, number, stage, draw)
    if absent:
        draw = stages.stage_draw(stage, withdrawn | absent)
    if not stage.charted:
        return draw, absent, draw_notes.explain_stage(draw, bracket=True, absent=sorted(absent))
    row = stage.chart[stage.sittings.count()]  # the row stage_draw drew
    explained = draw_notes.explain_stage(
        draw, bracket=False, chart_games=row["games"], chart_byes=row["byes"], absent=sorted(absent)
    )
    return draw, absent, explained


def _swiss_draw(
    tournament: Tournament, game_size: int, rng, absent: set[int]
) -> tuple[draws.Draw, dict]:
    """A Swiss (or, first, random) draw of every team still in and present
    (club.scoring.draws), and how it was drawn (club.scoring.draw_notes)."""
    entries = [
        entry
        for entry in tournament.entries.filter(withdrawn_at=None).values_list("id", flat=True)
        if entry not in absent
    ]
    history = _history(tournament)
    ranking_order = None
    points = {}
    if history:
        points = {
            entry: value
            for entry, value in Standing.objects.filter(
                tournament=tournament, entry__withdrawn_at=None
            )
            .order_by("place", "entry__team__name")
            .values_list("entry_id", "points")
            if entry not in absent
        }
        ranking_order = list(points)
    byes_so_far = Counter(
        Bye.objects.filter(sitting__tournament=tournament).values_list("entry_id", flat=True)
    )
    try:
        draw = draws.propose_draw(
            entries,
            ranking=ranking_order,
            history=history,
            byes_so_far=byes_so_far,
            game_size=game_size,
            rng=rng,
        )
    except draws.DrawError as error:
        raise TournamentError(error.translated(_), field="game_size") from error
    explained = draw_notes.explain_draw(
        draw,
        ranking=ranking_order,
        history=history,
        byes_so_far=byes_so_far,
        scores=points,
        game_size=game_size,
        absent=sorted(absent),
    )
    return draw, explained


def _check_seatable(seated: list[int], names: dict, withdrawn: set[int], absent: set[int]):
    """Refuse a draw that seats a team withdrawn, or one not checked in for the sitting."""
    for entry_id in seated:
        if entry_id in withdrawn:
            raise TournamentError(
                WITHDRAWN % {"team": names[entry_id]},
                field="games",
            )
        if entry_id in absent:
            raise TournamentError(
                NOT_CHECKED_IN % {"team": names[entry_id]},
                field="games",
            )


@transaction.atomic
def adjust_sitting(*, sitting: Sitting, games: list[list[int]], byes: list[int], user=None):
    """The organiser's changes to a proposed draw, checked before they are kept."""
    tournament = lock(sitting.tournament)
    check_editable(tournament)
    sitting = Sitting.objects.get(pk=sitting.pk)
    if sitting.status != Sitting.Status.PROPOSED:
        raise TournamentError(str(CONFIRMED_ALREADY))
    names = dict(tournament.entries.values_list("id", "team__name"))
    withdrawn = set(tournament.entries.exclude(withdrawn_at=None).values_list("id", flat=True))
    absent = set(sitting.absent)
    _check_seatable([*(team for game in games for team in game), *byes], names, withdrawn, absent)
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
    if sitting.explained:  # what the draw did is kept; what the director changed is added
        sitting.explained = draw_notes.adjusted(
            sitting.explained, games, byes, history=_history(tournament)
        )
    sitting.save(update_fields=["proposal", "proposed_byes", "explained"])
    log(tournament, TournamentEvent.Action.ADJUSTED, user, sitting=sitting)
    return sitting


@transaction.atomic
def discard_sitting(*, sitting: Sitting, user=None) -> None:
    """Throw away a proposed draw; a confirmed sitting's games have started and stay."""
    tournament = lock(sitting.tournament)
    check_editable(tournament)
    sitting = Sitting.objects.get(pk=sitting.pk)
    if sitting.status != Sitting.Status.PROPOSED:
        raise TournamentError(str(CONFIRMED_ALREADY))
    sitting.delete()
    log(tournament, TournamentEvent.Action.DISCARDED, user, sitting=sitting)
