"""generate_club --preset clubs writes a consistent site of clubs: each club's members,
teams, tournaments and games its own, every deal settled (piles adding to 56) and every
game replaying to what is stored; by COPY on PostgreSQL, by plain inserts on SQLite."""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest
from django.core.management import CommandError, call_command
from django.db import connection, transaction
from django.db.models import Count, Sum

from club.clubs import known
from club.clubs.models import Club
from club.games import bulk
from club.games.models import PLAYER_FIELDS, Game, GameTeam, Membership, Pile, Player, Round
from club.leaderboards import figures
from club.leaderboards.models import (
    PlayerRating,
    PlayerTotals,
    RatingChange,
    RatingsState,
    TeamTotals,
)
from club.leaderboards.services import rebuild_ratings
from club.ops import synthetic, synthetic_clubs, synthetic_load
from club.ops.synthetic_check import check_games
from club.tournaments.models import SittingGame, Standing, Tournament

# Three clubs of about 25 members: two tournaments each (the second of 4-team games to
# 60 deals), two sittings, and one game of each form of play: about 1,500 deals.
SMALL_SITE = dataclasses.replace(
    synthetic_clubs.SITE_PRESETS["clubs"],
    clubs=3,
    players=60,
    tournaments=2,
    teams=4,
    sittings=2,
    four_team_every=2,
    seed=41,
)


class Rollback(Exception):
    pass


def quiet(text: str) -> None:
    pass


def assert_consistent(plan: synthetic_clubs.SitePlan) -> None:
    """What every generated site holds: the clubs and their people, each game in its club
    and among its members, every deal settled, every game replaying to its rows."""
    clubs = list(Club.objects.filter(slug__startswith=f"s{plan.seed}-").order_by("pk"))
    assert len(clubs) == plan.clubs
    assert all(club.organisers.count() == plan.organisers for club in clubs)
    players = Player.objects.filter(name__startswith=f"S{plan.seed} Player ")
    assert players.count() == plan.players
    # Everyone is a member of one club, a share of them of two or three.
    joined = Counter(
        Membership.objects.filter(player__in=players).values_list("player_id", flat=True)
    )
    assert set(joined) == set(players.values_list("pk", flat=True))
    assert set(joined.values()) == {1, 2, 3}
    assert sum(1 for count in joined.values() if count > 1) == int(plan.guests * plan.players)

    games = Game.objects.filter(club__in=clubs)
    per_club = plan.tournaments * plan.sittings * plan.teams // 4  # 2-team and 4-team tables
    assert games.count() >= plan.clubs * per_club
    assert all(game.status == Game.Status.FINISHED for game in games)
    # A tournament's game is its club's; every player seated is a member of the game's club.
    for entry in SittingGame.objects.filter(game__in=games).select_related("game", "sitting"):
        assert entry.game.club_id == Tournament.objects.get(pk=entry.sitting.tournament_id).club_id
    members = set(Membership.objects.values_list("club_id", "player_id"))
    for club_id, *seated in GameTeam.objects.filter(game__in=games).values_list(
        "game__club_id", *(f"{name}_id" for name in PLAYER_FIELDS)
    ):
        assert {(club_id, pk) for pk in seated if pk is not None} <= members
    for tournament in Tournament.objects.filter(club__in=clubs):
        assert Standing.objects.filter(tournament=tournament).count() == plan.teams

    # Every deal settled: its piles add to 56 (a thani has none).
    rounds = Round.objects.filter(game__in=games)
    assert rounds.count() > 0
    assert not (
        rounds.filter(thani=False).annotate(points=Sum("piles__points")).exclude(points=56).exists()
    )
    assert not Pile.objects.filter(round__game__in=games, round__thani=True).exists()
    assert check_games(games.values_list("pk", flat=True)) == games.count()
    # The ratings are what the leaderboards service derives, over every club's games.
    assert RatingsState.objects.get().games == Game.objects.filter(status="finished").count()
    assert PlayerRating.objects.count() > 0


def boards() -> tuple:
    """Every rating and leaderboard total the generator derived."""
    return (
        sorted(PlayerRating.objects.values_list("player_id", "mu", "sigma", "rating", "games")),
        sorted(TeamTotals.objects.values_list("team_id", "played", "won", "rating", "mu")),
        sorted(PlayerTotals.objects.values_list("player_id", "played", "won", "tables_net")),
        RatingChange.objects.count(),
    )


def site_figures(plan: synthetic_clubs.SitePlan) -> dict:
    """Totals a deterministic run reproduces, each club's apart."""
    figures = {}
    for club in Club.objects.filter(slug__startswith=f"s{plan.seed}-"):
        games = Game.objects.filter(club=club)
        figures[club.slug] = (
            games.count(),
            Round.objects.filter(game__in=games).count(),
            Round.objects.filter(game__in=games).aggregate(s=Sum("bid"))["s"],
            Pile.objects.filter(round__game__in=games).aggregate(s=Sum("points"))["s"],
            Membership.objects.filter(club=club).count(),
        )
    return figures


def generate_rolled_back(plan: synthetic_clubs.SitePlan) -> dict:
    try:
        with transaction.atomic():
            synthetic_clubs.generate_site(plan, say=quiet, check=0)
            figures = site_figures(plan)
            raise Rollback
    except Rollback:
        known.forget()  # the clubs made in the rolled-back transaction are gone
        return figures


@pytest.mark.django_db(transaction=True)
def test_the_clubs_preset_writes_a_consistent_site(capsys):
    """On PostgreSQL in two worker processes, each club's rows by COPY; on SQLite in this
    process, by plain inserts."""
    call_command(
        "generate_club",
        *("--preset", "clubs", "--clubs", "3", "--players", "60", "--tournaments", "2"),
        *("--teams", "4", "--sittings", "2", "--seed", "41", "--check", "6"),
    )
    plan = dataclasses.replace(SMALL_SITE, four_team_every=4)
    assert_consistent(plan)
    out = capsys.readouterr().out
    assert "all match" in out and "3 clubs, 60 players" in out
    # The figures and the ratings (derived at once, in two processes, on PostgreSQL) are
    # what deriving them again, one after the other, gives.
    derived = boards()
    with transaction.atomic():
        figures.rebuild_all()
    rebuild_ratings()
    assert boards() == derived
    if connection.vendor == "postgresql":
        # What was set aside for the load is there again: the keys and the indexes.
        with connection.cursor() as cursor:
            for model in synthetic_load.BARE:
                assert synthetic_load._set_aside_of(cursor, model._meta.db_table, True)
                cursor.execute(
                    "SELECT count(*) FROM pg_constraint WHERE conrelid = %s::regclass "
                    "AND contype = 'f' AND NOT convalidated",
                    [model._meta.db_table],
                )
                assert cursor.fetchone()[0] == 0


@pytest.mark.django_db
def test_copy_writes_what_the_plain_inserts_write(monkeypatch):
    """The same seed gives the same site whichever way its rows go in; on PostgreSQL
    they went in by COPY, on SQLite (no COPY) by plain inserts."""
    copied = []
    copy_rows = bulk.copy_rows
    monkeypatch.setattr(bulk, "copy_rows", lambda *args: copied.append(args[0]) or copy_rows(*args))
    first = generate_rolled_back(SMALL_SITE)
    if connection.vendor == "postgresql":
        assert {model.__name__ for model in copied} >= {"Game", "Round", "Pile", "LedgerEntry"}
    else:
        assert not copied
    copied.clear()
    monkeypatch.setattr(bulk, "can_copy", lambda: False)
    again = generate_rolled_back(SMALL_SITE)
    assert not copied
    assert first == again
    assert len(first) == 3 and all(figures[1] > 0 for figures in first.values())


@pytest.mark.django_db
def test_a_small_site_is_consistent_in_one_transaction():
    """Inside a transaction (no workers: they could not see it), still by COPY on
    PostgreSQL, with the deals' keys and indexes set aside and made again."""
    synthetic_clubs.generate_site(SMALL_SITE, say=quiet, check=4)
    assert_consistent(SMALL_SITE)


def test_club_names_are_short_names_a_club_may_have():
    plan = dataclasses.replace(SMALL_SITE, clubs=450)
    names = synthetic_clubs.club_names(plan)
    assert len({name for name, _slug in names}) == len({slug for _name, slug in names}) == 450
    for name, slug in names:
        Club(name=name, slug=slug).clean_fields(exclude=["languages", "time_zone"])
    assert names[0] == ("S41 Aluva Card Club", "s41-aluva-card-club")


@pytest.mark.django_db
def test_the_command_refuses_a_site_it_cannot_make():
    with pytest.raises(CommandError, match="at least 8 players in each club"):
        call_command(
            "generate_club", "--preset", "clubs", "--clubs", "10", "--players", "30", "--teams", "4"
        )
    with pytest.raises(CommandError, match="--clubs is for the clubs preset only"):
        call_command("generate_club", "--preset", "small", "--clubs", "3")
    synthetic_clubs.generate_site(
        dataclasses.replace(
            SMALL_SITE, clubs=1, players=10, tournaments=1, teams=2, sittings=1, form_games=0
        ),
        say=quiet,
        check=0,
    )
    with pytest.raises(CommandError, match="already holds the clubs of seed 41"):
        call_command("generate_club", "--preset", "clubs", "--seed", "41")
    assert Game.objects.values("club").annotate(n=Count("id")).count() == 1
    assert synthetic.PRESETS["small"].players == 24  # the one-club presets are as they were
