"""The season's scenarios: a competition's table, made at each reading, and its pages.

The season is ``generate_club --preset season`` (club/ops/synthetic_season.py: 40 club
nights of 30 teams, 600 games, best 30 of 40), added to whichever preset's club the
database holds, so the same season is measured on a small and on a large history. Its
table is measured alone (``competition_table``, no request), then each page that shows
it, kept and rendered, and the API's answer. The SQL floor reads the same rows the table
is made from: the club's games of the season's days with their teams.

Each night's places are kept too (club/competitions/table.py), so a first render is
measured two ways: cold (", rendered": the pages cache emptied, every night placed) and
after one night changed (", one night changed": a game of the latest night marked
changed, as a deal recorded or corrected marks it, then the page rendered for its new key
with the other nights' places read back), the usual first render after a deal.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from collections.abc import Callable
from dataclasses import dataclass

from django.utils import timezone

from benchmarks.scenarios import drop_kept_pages, fetch, table
from club.clubs import known
from club.clubs.addresses import reverse_in
from club.clubs.models import Club
from club.competitions.models import Competition
from club.competitions.table import competition_table
from club.games.models import Game, GameTeam
from club.ops.synthetic_season import SEASON_PRESETS
from club.tournaments.models import SittingGame

SEASON = SEASON_PRESETS["season"]


@dataclass
class Season:
    competition: Competition
    club: Club
    nights: int
    lines: int
    games: int
    line: int  # the first line's id, for its page
    latest_game: int  # a game of the latest night, marked changed between renders


def find_season() -> Season | None:
    """The generated season, if the database holds one."""
    competition = Competition.objects.filter(name=SEASON.name).first()
    if competition is None:
        return None
    made = competition_table(competition)
    return Season(
        competition=competition,
        club=known.by_id(competition.club_id),
        nights=len(made.nights),
        lines=len(made.lines),
        games=Game.objects.filter(label__startswith=f"{SEASON.tag} night ").count(),
        line=made.lines[0].line,
        latest_game=Game.objects.filter(label__startswith=f"{SEASON.tag} night ")
        .order_by("-created_at", "-id")
        .values_list("pk", flat=True)
        .first(),
    )


def touch(game: int) -> None:
    """``game`` marked changed now (one UPDATE of its last change, in the timing), as a
    deal recorded or corrected in it marks it: its night's kept places and every kept page
    of the season are then under an older key, the other nights' places still kept."""
    Game.objects.filter(pk=game).update(updated_at=timezone.now())


def sql_season(competition: Competition) -> None:
    """The rows the table is made from: each team at each game of the club's days, with
    the game's start, state and rules, the team's place, tables, score and contracts (the
    time each game finished is read only for a deadline, which the season has not)."""
    zone = zoneinfo.ZoneInfo(known.by_id(competition.club_id).time_zone)
    start = dt.datetime.combine(competition.starts_on, dt.time(), tzinfo=zone)
    end = dt.datetime.combine(competition.ends_on + dt.timedelta(days=1), dt.time(), tzinfo=zone)
    fetch(
        f"SELECT t.game_id, g.created_at, g.status, g.tables_per_team, "
        f"g.scoring, t.team_id, t.place, t.tables, t.score, t.declared, t.made, "
        f"t.first_player_id, t.second_player_id, t.third_player_id, t.fourth_player_id "
        f"FROM {table(GameTeam)} t JOIN {table(Game)} g ON g.id = t.game_id "
        f"WHERE g.club_id = %s AND g.created_at >= %s AND g.created_at < %s "
        f"AND NOT EXISTS (SELECT 1 FROM {table(SittingGame)} s WHERE s.game_id = g.id) "
        f"ORDER BY t.game_id, t.position",
        [competition.club_id, start, end],
    )


def season_scenarios(run: Callable, pub) -> None:
    """The season's table and its pages (``run`` is run_all's: ``kept`` measures a kept
    page twice, read and rendered cold), each page again after one night changed."""
    season = find_season()
    if season is None:
        print("  season scenarios skipped: no season (generate_club --preset season)")
        return
    competition = season.competition
    print(
        f"  season “{competition.name}”: {season.nights} nights, {season.lines} lines, "
        f"{season.games} games",
        flush=True,
    )

    def url(name: str, *args) -> str:
        return reverse_in(season.club, name, args=[competition.pk, *args])

    floor = lambda: sql_season(competition)  # noqa: E731
    run(
        "season table, computed",
        "competition_table(), no request, every night's places kept",
        lambda: competition_table(competition),
        floor,
    )
    run(
        "season table, computed, cold",
        "competition_table(), the pages cache emptied first",
        lambda: (drop_kept_pages(), competition_table(competition))[1],
        floor,
    )
    run(
        "season table, computed, one night changed",
        "competition_table(), a game of the latest night marked changed first",
        lambda: (touch(season.latest_game), competition_table(competition))[1],
        floor,
    )
    kept_pages = [
        ("season table", "GET the competition's page, public", url("competitions:detail")),
        (
            "season line",
            "GET a team's line of nights, public",
            url("competitions:line", season.line),
        ),
        ("season projector", "GET the projector, public", url("competitions:projector")),
        ("season print", "GET the printout, public", url("competitions:print")),
        ("api: a season", "GET /api/v1/competitions/{id}/", url("api:competition")),
    ]
    for name, what, address in kept_pages:
        run(name, what, lambda a=address: pub.get(a), floor, kept=True)
        run(
            f"{name}, one night changed",
            f"{what}, a game of the latest night marked changed first",
            lambda a=address: (touch(season.latest_game), pub.get(a))[1],
            floor,
        )
    run(
        "api: competitions",
        "GET /api/v1/competitions/",
        lambda: pub.get(reverse_in(season.club, "api:competitions")),
    )
