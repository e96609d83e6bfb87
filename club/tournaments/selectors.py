"""Reads for the tournament pages, each in a fixed number of queries.

The public pages poll for changes; :func:`live_version` is the cheap token
they compare, so an unchanged tournament costs one small query per poll.
"""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal
from itertools import combinations

from django.db.models import Count, F, Max, OuterRef, Prefetch, Q, Subquery
from django.utils import timezone
from django.utils.translation import gettext as _

from club.games.models import PLAYER_FIELDS, Game, GameTeam, PendingDeal, Player, Round, Scoring
from club.games.selectors import url_maker
from club.scoring import stages as charts
from club.tournaments import checkin, substitutions
from club.tournaments.models import (
    STANDING_FIGURES,
    Bye,
    CheckIn,
    Sitting,
    SittingGame,
    Stage,
    Standing,
    Tournament,
    TournamentEvent,
    TournamentTeam,
)
from club.web.paging import page_of


def format_points(value: Decimal) -> str:
    """3.00 -> "3", 1.50 -> "1.5", 1.33 -> "1.33"."""
    return format(value.normalize(), "f")


def live_version(tournament: Tournament) -> str:
    """Changes whenever the results change or a game in progress records anything."""
    newest = Game.objects.filter(
        sitting_entry__sitting__tournament=tournament, status=Game.Status.IN_PROGRESS
    ).aggregate(newest=Max("updated_at"))["newest"]
    return _live_token(tournament.results_version, newest)


def _live_token(results_version: int, newest) -> str:
    stamp = int(newest.timestamp() * 1_000_000) if newest else 0
    return f"{results_version}.{stamp}"


def page_tokens(pk: int) -> tuple[str, int] | None:
    """A tournament's live token (as :func:`live_version` reads it) and the id of its newest
    line of history, in one query; None for no such tournament (club.web.pages' keys)."""
    in_play = Game.objects.filter(
        sitting_entry__sitting__tournament=OuterRef("pk"), status=Game.Status.IN_PROGRESS
    ).order_by("-updated_at")
    events = TournamentEvent.objects.filter(tournament=OuterRef("pk")).order_by("-id")
    row = (
        Tournament.objects.filter(pk=pk)
        .annotate(
            newest_game=Subquery(in_play.values("updated_at")[:1]),
            newest_event=Subquery(events.values("id")[:1]),
        )
        .values_list("results_version", "newest_game", "newest_event")
        .first()
    )
    if row is None:
        return None
    return _live_token(row[0], row[1]), row[2] or 0


def standing_rows(tournament: Tournament) -> list[dict]:
    """The stored standings in order, one plain row per team, as the pages show them."""
    rows = list(
        Standing.objects.filter(tournament=tournament)
        .order_by("place", "entry__team__name")
        .values(
            *STANDING_FIGURES,
            withdrawn=F("entry__withdrawn_at"),
            team=F("entry__team__name"),
            **{seat: F(f"entry__team__{seat}__name") for seat in PLAYER_FIELDS},
            **{f"{seat}_pk": F(f"entry__team__{seat}_id") for seat in PLAYER_FIELDS},
            captain_pk=F("entry__captain_id"),
        )
    )
    points_sheet = tournament.scoring == Scoring.POINTS
    player_url = url_maker("tournaments:player", tournament.pk)
    for row in rows:
        ids = [row.pop(f"{seat}_pk") for seat in PLAYER_FIELDS]
        row["player_links"] = [player_url(pk) for pk in ids if pk is not None]
        row["players"] = [row.pop(seat) for seat in PLAYER_FIELDS if row[seat] is not None]
        captain = row.pop("captain_pk")
        # The captain's place among the players (None if the team has none).
        row["captain"] = next(
            (at for at, pk in enumerate(pk for pk in ids if pk is not None) if pk == captain),
            None,
        )
        # The third column of the order: net tables, or on a points sheet the score difference.
        row["net"] = row["score_difference"] if points_sheet else row["net_tables"]
        row["points"] = format_points(row["points"])
        row["made_percent"] = (
            round(100 * row["made"] / row["declared"]) if row["declared"] else None
        )
    return rows


def _game_prefetch():
    return Prefetch(
        "games",
        queryset=SittingGame.objects.select_related("game").prefetch_related(
            Prefetch(
                "game__teams",
                queryset=GameTeam.objects.select_related("team").order_by("position"),
            )
        ),
    )


def sitting_lines(tournament: Tournament) -> list[dict]:
    """The confirmed sittings, newest first, with their games and byes, as the pages list them.

    Each game's teams are (name, tables, won, out) in seat order; on a points
    sheet (name, points, won, False): no one is out. A team won when the game names it
    its winner (``Game.winner``): a level game has none (the rules, B.5).

    Plain rows from three queries whatever the size of the tournament (the
    sittings, every team of their games, the byes): the page shows a line per
    game, and model instances of every game, its teams and their names would
    cost more than the rest of the page.
    """
    confirmed = {"tournament": tournament, "status": Sitting.Status.CONFIRMED}
    sitting_url = url_maker("tournaments:sitting", tournament.pk)
    kinds = dict(Stage.Kind.choices)
    sittings = {
        pk: {
            "number": number,
            # "Sitting 5 · Knockout" once the tournament plays in stages
            "title": Sitting.title(number) + (f" · {kinds[kind]}" if kind else ""),
            "url": sitting_url(number),
            "games": [],
            "byes": [],
        }
        for pk, number, kind in Sitting.objects.filter(**confirmed)
        .order_by("-number")
        .values_list("pk", "number", "stage__kind")
    }
    game_url = url_maker("games:detail")
    statuses = {value: str(label) for value, label in Game.Status.choices}
    games: dict[int, dict] = {}
    points_sheet = tournament.scoring == Scoring.POINTS
    entry = "game__sitting_entry__"
    for sitting_id, position, table, game_id, status, deals, name, tables, seat, winner in (
        GameTeam.objects.filter(**{f"{entry}sitting__{key}": v for key, v in confirmed.items()})
        # By ids: ordering by the sitting or the game would join in what their own order needs.
        .order_by(f"{entry}sitting_id", f"{entry}position", "position")
        .values_list(
            f"{entry}sitting_id",
            f"{entry}position",
            f"{entry}table_label",
            "game_id",
            "game__status",
            "game__deals_played",
            "team__name",
            "score" if points_sheet else "tables",
            "pk",
            "game__winner_id",
        )
    ):
        game = games.get(game_id)
        if game is None:
            game = games[game_id] = {
                "sitting_id": sitting_id,
                "position": position,
                "table_label": table,
                "url": game_url(game_id),
                "status": status,
                "status_label": statuses.get(status, status),
                "playing": status == Game.Status.IN_PROGRESS,
                "deals_played": deals,
                "teams": [],
            }
            sittings[sitting_id]["games"].append(game)
        game["teams"].append((name, tables, seat == winner, not points_sheet and tables == 0))
    for sitting_id, name in (
        Bye.objects.filter(**{f"sitting__{key}": v for key, v in confirmed.items()})
        .order_by("sitting_id", "id")
        .values_list("sitting_id", "entry__team__name")
    ):
        sittings[sitting_id]["byes"].append(name)
    return list(sittings.values())


def sittings_played(tournament: Tournament) -> dict:
    """How far the standings go: the sittings whose every game is finished, and any
    later sitting's finished games so far ({"sittings": n, "partial": [...]})."""
    rows = (
        Sitting.objects.filter(tournament=tournament, status=Sitting.Status.CONFIRMED)
        .order_by("number")
        .annotate(
            total=Count("games"),
            done=Count("games", filter=Q(games__game__status=Game.Status.FINISHED)),
        )
        .values_list("number", "total", "done")
    )
    finished, partial = 0, []
    for number, total, done in rows:
        if done == total:
            finished += 1
        elif done:
            partial.append({"number": number, "games": total, "finished": done})
    return {"sittings": finished, "partial": partial}


def live_context(tournament: Tournament, version: str | None = None) -> dict:
    """What the public, self-refreshing part of the tournament page shows.

    ``version`` is :func:`live_version`, when the caller has just read it.
    """
    sittings = sitting_lines(tournament)
    in_progress = [game for sitting in sittings for game in sitting["games"] if game["playing"]]
    in_progress.sort(key=lambda game: (game["sitting_id"], game["position"]))
    return {
        "tournament": tournament,
        "standings": standing_rows(tournament),
        "points_sheet": tournament.scoring == Scoring.POINTS,
        "sittings": sittings,
        "in_progress": in_progress,
        "live_version": version or live_version(tournament),
    }


def embed_context(tournament: Tournament, version: str | None = None) -> dict:
    """What the embeddable standings show (tournaments/embed.html): the standings alone."""
    return {
        "tournament": tournament,
        "standings": standing_rows(tournament),
        "points_sheet": tournament.scoring == Scoring.POINTS,
        "live_version": version or live_version(tournament),
    }


PROJECTOR_ROWS = 12  # teams or games a projector panel shows before the next panel


def _pages(rows: list, size: int = PROJECTOR_ROWS) -> list[dict]:
    """``rows`` in panels of ``size``, each knowing its number and how many there are."""
    chunks = [rows[at : at + size] for at in range(0, len(rows), size)] or [[]]
    return [
        {"rows": chunk, "number": number, "of": len(chunks)}
        for number, chunk in enumerate(chunks, start=1)
    ]


def projector_context(tournament: Tournament, version: str | None = None) -> dict:
    """The live context, with the standings and the games in progress in panels the
    projector shows in turn (every team and every game, a panel at a time)."""
    context = live_context(tournament, version)
    context["standing_pages"] = _pages(context["standings"])
    context["game_pages"] = _pages(context["in_progress"])
    sittings = context["sittings"]
    context["sitting_title"] = sittings[0]["title"] if sittings else ""
    return context


def tournament_page(tournament: Tournament, *, organiser: bool = False) -> dict:
    context = live_context(tournament)
    context["stages"] = stage_lines(tournament)
    if organiser:
        context["proposed"] = tournament.sittings.filter(status=Sitting.Status.PROPOSED).first()
        context["events"] = list(
            TournamentEvent.objects.filter(tournament=tournament).select_related("made_by")
        )
        context["player_names"] = list(
            Player.objects.filter(active=True).order_by("name").values_list("name", flat=True)
        )
        context["entries"] = team_list(tournament)
        context["team_count"] = len(context["entries"])
        context["next_step"] = next_step(tournament, context)
    return context


def next_step(tournament: Tournament, context: dict) -> str:
    """What the organiser does now, shown first on the tournament page: review the draw
    proposed, follow the sitting being played, register the teams, check them in (with
    check-in, while some are not), draw the next sitting, make the results final, or
    nothing ("done")."""
    if context["proposed"] is not None:
        return "review"
    if tournament.status == Tournament.Status.FINISHED:
        return "done" if tournament.is_final else "final"
    if context["in_progress"]:
        return "playing"
    still_in = {entry["pk"] for entry in context["entries"] if not entry["withdrawn"]}
    if len(still_in) < 2:
        return "register"
    if tournament.check_in:
        number = checkin.next_number(tournament)
        present = len(still_in & checkin.checked_in(tournament, number))
        if present < len(still_in):
            # A team not checked in sits the sitting out: the director checks them in first.
            context["check_ins"] = {
                "number": number,
                "present": present,
                "teams": len(still_in),
                "missing": len(still_in) - present,
            }
            return "check_in"
    return "draw"


def team_list(tournament: Tournament) -> list[dict]:
    """The registered teams for the organiser, in registration order: players, whether
    the team has played here (then it can no longer change) and whether it withdrew."""
    played = set(
        GameTeam.objects.filter(game__sitting_entry__sitting__tournament=tournament)
        .values_list("team_id", flat=True)
        .distinct()
    )
    made = substitutions.of_tournament(tournament)
    return [
        {
            "pk": entry.pk,
            "name": entry.team.name,
            "players": [player.name for player in entry.team.players],
            "played": entry.team_id in played,
            "withdrawn": entry.withdrawn_at is not None,
            "substitutions": made.get(entry.pk, []),
        }
        for entry in tournament.entries.select_related(
            "team", *(f"team__{seat}" for seat in PLAYER_FIELDS)
        ).order_by("id")
    ]


def met_pairs(tournament: Tournament, *, before: int | None = None) -> set[frozenset[int]]:
    """Pairs of registered teams (ids) that met in a game of an earlier sitting."""
    entry_of = dict(
        TournamentTeam.objects.filter(tournament=tournament).values_list("team_id", "id")
    )
    games = GameTeam.objects.filter(game__sitting_entry__sitting__tournament=tournament)
    if before is not None:
        games = games.filter(game__sitting_entry__sitting__number__lt=before)
    teams_of: dict[int, list[int]] = defaultdict(list)
    for game_id, team_id in games.values_list("game_id", "team_id"):
        if team_id in entry_of:
            teams_of[game_id].append(entry_of[team_id])
    return {
        frozenset(pair) for teams in teams_of.values() for pair in combinations(sorted(teams), 2)
    }


def rematches(sitting: Sitting, games: list[list[int]] | None = None) -> int:
    """How many pairs of teams in the (proposed) games have met before."""
    met = met_pairs(sitting.tournament, before=sitting.number)
    games = sitting.proposal if games is None else games
    return sum(
        1 for game in games for pair in combinations(sorted(game), 2) if frozenset(pair) in met
    )


def draw_entries(sitting: Sitting) -> list[TournamentTeam]:
    """The teams a proposed draw may seat, by name: every team of the tournament, or for a
    stage's sitting the teams its chart or bracket gave it."""
    entries = sitting.tournament.entries.select_related(
        *(f"team__{seat}" for seat in PLAYER_FIELDS)
    ).order_by("team__name")
    if sitting.stage_id is not None:
        drawn = {team for game in sitting.proposal for team in game} | set(sitting.proposed_byes)
        entries = entries.filter(pk__in=drawn)
    if sitting.absent:  # not checked in: not theirs to seat
        entries = entries.exclude(pk__in=sitting.absent)
    return list(entries)


def sitting_page(sitting: Sitting) -> dict:
    tournament = sitting.tournament
    entries = {entry.pk: entry for entry in draw_entries(sitting)}
    context = {"tournament": tournament, "sitting": sitting, "entries": list(entries.values())}
    # Left out of the draw for not checking in (a query only when some were).
    context["absent"] = (
        list(
            TournamentTeam.objects.filter(pk__in=sitting.absent)
            .select_related("team")
            .order_by("team__name")
        )
        if sitting.absent
        else []
    )
    if sitting.status == Sitting.Status.PROPOSED:
        labels = [f"{number}" for number in range(1, len(sitting.proposal) + 1)]
        context["proposed_games"] = [
            {"number": label, "teams": [entries[e] for e in game if e in entries]}
            for label, game in zip(labels, sitting.proposal, strict=True)
        ]
        context["proposed_byes"] = [entries[e] for e in sitting.proposed_byes if e in entries]
        context["rematches"] = rematches(sitting)
    else:
        sitting = (
            Sitting.objects.filter(pk=sitting.pk)
            .select_related("stage")
            .prefetch_related(
                _game_prefetch(),
                Prefetch("byes", queryset=Bye.objects.select_related("entry__team")),
            )
            .get()
        )
        context["sitting"] = sitting
        context["games"] = list(sitting.games.all())
        context["byes"] = list(sitting.byes.all())
        # Calling time then asks on a page that names those tables, not in a dialog first
        # (club.tournaments.calling_time: a knockout's game is never one).
        context["no_deal_yet"] = any(entry.game.ends_level_if_called for entry in context["games"])
    return context


FINISHED_PER_PAGE = 25


def tournament_lists(number: int = 1) -> dict:
    """Running and upcoming tournaments, and a page of the finished ones (newest first)."""
    current = list(
        Tournament.objects.exclude(status=Tournament.Status.FINISHED).order_by("-starts_on", "-id")
    )
    page = page_of(
        Tournament.objects.filter(status=Tournament.Status.FINISHED).order_by("-starts_on", "-id"),
        number,
        FINISHED_PER_PAGE,
    )
    return {
        "running": [t for t in current if t.status == Tournament.Status.RUNNING],
        "upcoming": [t for t in current if t.status == Tournament.Status.DRAFT],
        "finished": page.items,
        "page": page,
    }


# --- The director's board -----------------------------------------------------------

# The states of a table, in the order the board puts them: what needs the director first.
WAITING, NOT_STARTED, PLAYING, FINISHED = "waiting", "not_started", "playing", "finished"
_ATTENTION = {WAITING: 0, NOT_STARTED: 1, PLAYING: 2, FINISHED: 3}


def current_sitting(tournament: Tournament) -> Sitting | None:
    """The sitting in play: the newest confirmed one."""
    return (
        Sitting.objects.filter(tournament=tournament, status=Sitting.Status.CONFIRMED)
        .select_related("stage")
        .order_by("-number")
        .first()
    )


def board_version(tournament: Tournament, sitting: Sitting | None) -> str:
    """Changes with any result, any line of the tournament's history (a draw, a team in or
    out), any deal sent for confirmation, any check-in, and every minute (the board says
    how long each table has been quiet)."""
    pending = (
        PendingDeal.objects.filter(game__sitting_entry__sitting=sitting).aggregate(
            newest=Max("sent_at"), count=Count("id"), disputed=Count("counter_by")
        )
        if sitting is not None
        else {"newest": None, "count": 0, "disputed": 0}
    )
    stamp = int(pending["newest"].timestamp()) if pending["newest"] else 0
    minute = int(timezone.now().timestamp() // 60)
    waiting = f"{pending['count']}.{pending['disputed']}"
    live, event = page_tokens(tournament.pk) or (live_version(tournament), 0)
    checked = ""
    if tournament.check_in:  # a captain's check-in shows on the board at its next poll
        found = CheckIn.objects.filter(entry__tournament=tournament).aggregate(
            count=Count("id"), newest=Max("at")
        )
        newest = int(found["newest"].timestamp() * 1000) if found["newest"] else 0
        checked = f".{found['count']}.{newest}"
    return f"{live}.{event}.{waiting}.{stamp}.{minute}{checked}"


def director_board(
    tournament: Tournament, sitting: Sitting | None, *, version: str | None = None
) -> dict:
    """Every table of the sitting in play with its state, quietest and most urgent first.

    A table is waiting (a deal sent through a scorer link waits for the other
    team), not started (no deal yet), playing (deal N of the limit) or finished.
    ``sitting`` is :func:`current_sitting`, which the caller has read for the
    board's token. Five queries whatever the number of tables.
    """
    context = {"tournament": tournament, "sitting": sitting, "tables": [], "counts": {}}
    context["board_version"] = version or board_version(tournament, sitting)
    if sitting is None:
        return context
    now = timezone.now()
    game_url = url_maker("games:detail")
    tables: dict[int, dict] = {}
    for game_id, label, position, status, deals, limit in (
        SittingGame.objects.filter(sitting=sitting)
        .order_by("position")
        .values_list(
            "game_id",
            "table_label",
            "position",
            "game__status",
            "game__deals_played",
            "game__deal_limit",
        )
    ):
        tables[game_id] = {
            "game": game_id,
            "url": game_url(game_id),
            "table_label": label,
            "position": position,
            "finished": status == Game.Status.FINISHED,
            "deals_played": deals,
            "next_deal": deals + 1,
            "deal_limit": limit,
            "teams": [],
            "pending": None,
            "last_deal_at": None,
        }
    for game_id, name in (
        GameTeam.objects.filter(game_id__in=tables)
        .order_by("game_id", "position")
        .values_list("game_id", "team__name")
    ):
        tables[game_id]["teams"].append(name)
    for game_id, number, sent_at, sender, disputed in PendingDeal.objects.filter(
        game_id__in=tables
    ).values_list("game_id", "number", "sent_at", "sent_by__game_team__team__name", "counter_by"):
        if number == tables[game_id]["next_deal"]:  # a stale one can never count
            tables[game_id]["pending"] = {
                "number": number,
                "sent_at": sent_at,
                "team": sender,
                # both teams sent it, differently: the director chooses on the game page
                "disputed": disputed is not None,
            }
    for game_id, newest in (
        Round.objects.filter(game_id__in=tables)
        .order_by()
        .values("game_id")
        .annotate(newest=Max("recorded_at"))
        .values_list("game_id", "newest")
    ):
        tables[game_id]["last_deal_at"] = newest
    started = sitting.confirmed_at or sitting.created_at
    for table in tables.values():
        if table["finished"]:
            table["state"] = FINISHED
        elif table["pending"] is not None:
            table["state"] = WAITING
        elif table["deals_played"] == 0:
            table["state"] = NOT_STARTED
        else:
            table["state"] = PLAYING
        since = table["pending"]["sent_at"] if table["pending"] else None
        since = since or table["last_deal_at"] or started
        table["since"] = since
        table["quiet_minutes"] = max(0, int((now - since).total_seconds() // 60))
    rows = sorted(
        tables.values(),
        key=lambda t: (
            _ATTENTION[t["state"]],
            -t["quiet_minutes"] if t["state"] != FINISHED else 0,
            t["position"],
        ),
    )
    context["tables"] = rows
    context["counts"] = {
        state: sum(1 for t in rows if t["state"] == state)
        for state in (WAITING, NOT_STARTED, PLAYING, FINISHED)
    }
    return context


# --- Stages ---------------------------------------------------------------------


def _registered(stage: Stage, entries: dict[int, TournamentTeam] | None = None):
    """Each registered team's entry id by its team, and the entries that withdrew: from
    the entries the caller has read already, else in one query."""
    if entries is None:
        rows = TournamentTeam.objects.filter(tournament_id=stage.tournament_id).values_list(
            "team_id", "id", "withdrawn_at"
        )
    else:
        rows = [(entry.team_id, entry.pk, entry.withdrawn_at) for entry in entries.values()]
    entry_of, withdrawn = {}, set()
    for team_id, entry_id, withdrawn_at in rows:
        entry_of[team_id] = entry_id
        if withdrawn_at is not None:
            withdrawn.add(entry_id)
    return entry_of, withdrawn


def knockout_winners(stage: Stage, entry_of: dict[int, int]) -> dict[frozenset[int], int]:
    """The winner of each finished game of the stage, by its pair of registered teams."""
    games: dict[int, list[tuple[int, int | None]]] = defaultdict(list)
    for game_id, status, team_id, place in GameTeam.objects.filter(
        game__sitting_entry__sitting__stage=stage
    ).values_list("game_id", "game__status", "team_id", "place"):
        if status == Game.Status.FINISHED and team_id in entry_of:
            games[game_id].append((entry_of[team_id], place))
    winners = {}
    for members in games.values():
        first = [entry for entry, place in members if place == 1]
        if len(members) == 2 and len(first) == 1:
            winners[frozenset(entry for entry, _place in members)] = first[0]
    return winners


def bracket_of(stage: Stage, entries: dict[int, TournamentTeam] | None = None) -> charts.Bracket:
    """A knockout's bracket as the results so far make it; a withdrawn team's opponent
    goes through without playing. ``entries``: the tournament's, if read already."""
    entry_of, withdrawn = _registered(stage, entries)
    winners = knockout_winners(stage, entry_of)
    bracket = charts.bracket(stage.seeds, winners)
    for _round in bracket.rounds:
        walkovers = {
            frozenset((match.first, match.second)): (
                match.second if match.first in withdrawn else match.first
            )
            for matches in bracket.rounds
            for match in matches
            if match.ready and {match.first, match.second} & withdrawn
        }
        if not walkovers:
            break
        winners.update(walkovers)
        bracket = charts.bracket(stage.seeds, winners)
    return bracket


def entries_by_id(tournament: Tournament) -> dict[int, TournamentTeam]:
    """The tournament's registered teams with their players, by id."""
    return {
        entry.pk: entry
        for entry in tournament.entries.select_related(*(f"team__{seat}" for seat in PLAYER_FIELDS))
    }


def stage_lines(tournament: Tournament) -> list[dict]:
    """The tournament's stages for its page: each with its sittings played and what is next."""
    stages = list(tournament.stages.annotate(drawn=Count("sittings")).order_by("number"))
    lines = []
    for stage in stages:
        line = {"stage": stage, "drawn": stage.drawn}
        if stage.charted:
            line["planned"] = len(stage.chart)
        lines.append(line)
    return lines


def _chart_rows(stage: Stage, entries: dict[int, TournamentTeam]) -> list[dict]:
    """Each A team's opponent in each sitting of the chart (None: it sits out)."""
    rows = []
    for team in stage.groups.get("a", []):
        cells = []
        for row in stage.chart:
            opponent = next((b for a, b in row["games"] if a == team), None)
            cells.append(entries.get(opponent) if opponent is not None else None)
        rows.append({"entry": entries.get(team), "cells": cells})
    return rows


def _match_games(stage: Stage, entry_of: dict[int, int]) -> dict[frozenset[int], SittingGame]:
    """The game each pair of teams played (or plays) in the stage: the newest."""
    placed = (
        SittingGame.objects.filter(sitting__stage=stage)
        .select_related("game", "sitting")
        .prefetch_related(Prefetch("game__teams", queryset=GameTeam.objects.order_by("position")))
        .order_by("sitting__number", "position")
    )
    return {
        frozenset(entry_of[team.team_id] for team in placed_game.game.teams.all()): placed_game
        for placed_game in placed
    }


def stage_page(stage: Stage) -> dict:
    """What the stage's page shows: its groups and chart, or its bracket."""
    tournament = stage.tournament
    entries = entries_by_id(tournament)
    context = {"tournament": tournament, "stage": stage, "entries": entries}
    if stage.kind == Stage.Kind.GROUPS:
        context["group_a"] = [entries[e] for e in stage.groups.get("a", []) if e in entries]
        context["group_b"] = [entries[e] for e in stage.groups.get("b", []) if e in entries]
        context["chart_rows"] = _chart_rows(stage, entries)
        context["sittings"] = range(1, len(stage.chart) + 1)
    elif stage.kind == Stage.Kind.ROUND_ROBIN:
        context["rounds"] = [
            {
                "number": number,
                "games": [(entries.get(a), entries.get(b)) for a, b in row["games"]],
                "byes": [entries.get(team) for team in row["byes"]],
            }
            for number, row in enumerate(stage.chart, start=1)
        ]
    elif stage.kind == Stage.Kind.KNOCKOUT:
        context.update(_bracket_context(stage, entries))
    return context


def _bracket_context(stage: Stage, entries: dict[int, TournamentTeam]) -> dict:
    bracket = bracket_of(stage, entries)
    entry_of, _withdrawn = _registered(stage, entries)
    games = _match_games(stage, entry_of) if stage.status == Stage.Status.CONFIRMED else {}
    rounds = []
    for number, matches in enumerate(bracket.rounds, start=1):
        template, values = charts.round_title(number, len(bracket.rounds))
        cells = []
        for match in matches:
            pair = frozenset((match.first, match.second))
            placed = games.get(pair) if None not in pair else None
            cells.append(
                {
                    "match": match,
                    "sides": [
                        {
                            "entry": entries.get(team) if team is not None else None,
                            "seed": bracket.seeds.get(team),
                            "won": team is not None and match.winner == team,
                            "lost": team is not None
                            and match.winner is not None
                            and match.winner != team,
                        }
                        for team in (match.first, match.second)
                    ],
                    "placed": placed,
                    "bye": match.bye,
                }
            )
        rounds.append({"number": number, "title": _(template) % values, "matches": cells})
    champion = bracket.champion
    return {
        "rounds": rounds,
        "champion": entries.get(champion) if champion is not None else None,
        "seed_rows": [
            {"seed": seed, "entry": entries.get(team)}
            for seed, team in enumerate(stage.seeds, start=1)
        ],
    }
