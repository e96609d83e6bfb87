"""A player's night in review, worked out by hand.

The home club keeps the time of Kolkata (UTC+5:30): a night is a day there. Anu's night
of Saturday 14 March 2026 is three finished games (seats in play order: T1.first,
T2.first, T1.second, T2.second; the first bidder sits after the dealer):

Game 1 (4 tables each, Anu deals): Anu & Biju v Chitra & Dev
  1. Anu 30 hearts doubled, piles AB 35 / CD 21: made, 1 x 2 = 2.           AB 6, CD 2
  2. Dev 40 spades, piles CD 30 / AB 26: failed, owes 3, holds 2, pays 2.  AB 8, CD 0: won
Game 2 (4 tables each, Chitra deals, so Esha bids first): Anu & Esha v Chitra & Dev
  1. All pass: AE contracted to 28, piles AE 20 / CD 36: failed, 2.        AE 2, CD 6
  2. Chitra 29 clubs redoubled, piles 28 / 28: failed, 2 x 4 = 8, holds 6. AE 8, CD 0: won
Game 3 (2 tables each, thani 1/1, Anu deals): Anu & Biju v Chitra & Dev
  1. Biju's thani, made: 1 from CD.                                         AB 3, CD 1
  2. Chitra 48 diamonds doubled, piles CD 50 / AB 6: made, 3 x 2 = 6, AB holds 3.
                                                                            AB 0, CD 4: lost

So: 3 games, 2 won, 1 lost; tables won 2+2 + 6 + 1 = 11, lost 2 + 3 = 5, net +6.
Anu's team declared: 28-39 one (made, doubled), thani one (made), all pass one (failed):
3 declared, 2 made. The opponents declared 28-39 one (redoubled, defeated), 40-47 one
(defeated), 48-55 one (doubled, made). Doubled: ours 1 made, theirs 1 made: ahead in 1 of
2. Redoubled: theirs 1 failed: ahead in 1 of 1. Partners: Esha won 1 of 1 (+4), Biju 1
of 2 (+4 - 2 = +2): Esha is the best, on the share of games won.

Around it: a game on 10 March (the night before), one at 00:30 on 15 March in Kolkata
(still 14 March in UTC: the night after), and one of 14 March still being played.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo

import pytest
from django.core.cache import caches
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from club.clubs import known
from club.clubs.addresses import reverse_in
from club.clubs.models import Club
from club.games.models import Game, GameTeam, Player
from club.games.services import Deal, TeamEntry, create_game
from club.leaderboards import night, profile
from club.leaderboards.models import PlayerGameFigures, RatingChange
from club.scoring import rules as core
from tests.factories import seat

from .conftest import play

pytestmark = pytest.mark.django_db

KOLKATA = zoneinfo.ZoneInfo("Asia/Kolkata")
NIGHT = dt.date(2026, 3, 14)
AB, CD, AE = TeamEntry("Anu", "Biju"), TeamEntry("Chitra", "Dev"), TeamEntry("Anu", "Esha")


def at(game, when: dt.datetime) -> Game:
    """Move a game's start to ``when`` (the app never does: the tests' way to a past night)."""
    Game.objects.filter(pk=game.pk).update(created_at=when)
    game.refresh_from_db()
    return game


def kolkata(day: dt.date, hour: int, minute: int = 0) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(hour, minute), tzinfo=KOLKATA)


def game_one(label="Game 1", **kwargs):
    game = create_game(
        label=label,
        teams=[AB, CD],
        first_dealer=0,
        rules=core.Rules(tables_per_team=4),
        **kwargs,
    )
    return play(
        game,
        Deal(
            points={0: 35, 1: 21},
            declarer=seat(game, "Anu"),
            bid=30,
            trump="hearts",
            doubling="double",
        ),
        Deal(points={0: 26, 1: 30}, declarer=seat(game, "Dev"), bid=40, trump="spades"),
    )


@pytest.fixture
def anus_night():
    home = known.home()
    home.time_zone = "Asia/Kolkata"
    home.save()
    one = at(game_one(), kolkata(NIGHT, 19))
    two = create_game(
        label="Game 2", teams=[AE, CD], first_dealer=1, rules=core.Rules(tables_per_team=4)
    )
    play(
        two,
        Deal(points={0: 20, 1: 36}),
        Deal(
            points={0: 28, 1: 28},
            declarer=seat(two, "Chitra"),
            bid=29,
            trump="clubs",
            doubling="redouble",
        ),
    )
    at(two, kolkata(NIGHT, 20))
    rules = core.Rules(tables_per_team=2, thani=core.Thani(made=1, failed=1))
    three = create_game(label="Game 3", teams=[AB, CD], first_dealer=0, rules=rules)
    play(
        three,
        Deal(points={}, thani=seat(three, "Biju"), made=True),
        Deal(
            points={0: 6, 1: 50},
            declarer=seat(three, "Chitra"),
            bid=48,
            trump="diamonds",
            doubling="double",
        ),
    )
    at(three, kolkata(NIGHT, 23, 30))
    quick = core.Rules(tables_per_team=1)
    before = create_game(label="Before", teams=[AB, CD], first_dealer=0, rules=quick)
    play(before, Deal(points={0: 30, 1: 26}, declarer=0, bid=28, trump="hearts"))
    at(before, kolkata(dt.date(2026, 3, 10), 20))
    after = create_game(label="After midnight", teams=[AB, CD], first_dealer=0, rules=quick)
    play(after, Deal(points={0: 30, 1: 26}, declarer=0, bid=28, trump="hearts"))
    at(after, kolkata(dt.date(2026, 3, 15), 0, 30))  # 19:00 UTC on the 14th
    playing = create_game(label="Still playing", teams=[AB, CD], first_dealer=0)
    at(playing, kolkata(NIGHT, 22))
    for game in (one, two, three, before, after):
        assert game.is_finished
    assert not playing.is_finished
    return {"night": [one, two, three], "before": before, "after": after, "playing": playing}


def page(player: Player, **query):
    caches["pages"].clear()  # a page as rendered now, with its context, not a kept copy
    response = Client().get(player.get_absolute_url(), query)
    assert response.status_code == 200
    return response


def test_a_night_worked_out_by_hand(anus_night):
    anu = Player.objects.get(name="Anu")
    response = page(anu, night="2026-03-14")
    found = response.context["night"]
    assert (found.start, found.end, found.span) == (NIGHT, NIGHT, False)
    assert [line.game.label for line in found.games] == ["Game 1", "Game 2", "Game 3"]
    assert [line.result for line in found.games] == ["won", "won", "lost"]
    assert [line.badge for line in found.games] == ["W", "W", "L"]
    assert [[p.name for p in line.partners] for line in found.games] == [
        ["Biju"],
        ["Esha"],
        ["Biju"],
    ]
    assert [[t.team for t in line.opponents] for line in found.games] == [["Chitra & Dev"]] * 3
    assert [(line.tables_won, line.tables_lost) for line in found.games] == [(4, 0), (6, 2), (1, 3)]
    assert [line.amount for line in found.games] == ["+4 tables", "+4 tables", "-2 tables"]
    assert (found.played, found.won, found.level, found.lost) == (3, 2, 0, 1)
    assert found.summary == "3 games: 2 won, 1 lost"
    [tables] = found.forms
    assert (tables.form, tables.tables_won, tables.tables_lost, tables.tables_net) == (
        "tables",
        11,
        5,
        6,
    )
    contracts = found.contracts
    counted = {
        (row.kind, row.band.low if row.band else None): (
            row.ours.declared,
            row.ours.made,
            row.theirs.declared,
            row.defeated,
        )
        for row in contracts.rows
    }
    assert counted == {
        ("band", 28): (1, 1, 1, 1),
        ("band", 40): (0, 0, 1, 1),
        ("band", 48): (0, 0, 1, 0),
        ("band", 56): (0, 0, 0, 0),
        ("thani", None): (1, 1, 0, 0),
        ("all-pass", None): (1, 0, 0, 0),
    }
    assert (contracts.declared, contracts.made, contracts.defeated) == (3, 2, 2)
    # The team's contracts are its seats' maintained counts (GameTeam.declared, made).
    seats = GameTeam.objects.filter(pk__in=[line.seat.pk for line in found.games])
    assert sum(s.declared for s in seats) == 3 and sum(s.made for s in seats) == 2
    doubled = {
        row.doubling: (row.ours.declared, row.ours.made, row.theirs.declared, row.theirs.failed)
        for row in contracts.doubled
    }
    assert doubled == {"double": (1, 1, 1, 0), "redouble": (0, 0, 1, 1)}
    assert [(row.deals, row.won, row.lost) for row in contracts.doubled] == [(2, 1, 1), (1, 1, 0)]
    # The rating change is the sum of Anu's rating changes for the night's three games.
    changes = RatingChange.objects.filter(player=anu, game__in=anus_night["night"])
    assert changes.count() == 3
    assert found.rated == 3
    assert found.rating_change == pytest.approx(sum(c.after - c.before for c in changes))
    assert [(p.name, p.played, p.won, p.tables_net) for p in found.partners] == [
        ("Esha", 1, 1, 4),
        ("Biju", 2, 1, 2),
    ]
    assert [p.name for p in found.best] == ["Esha"]
    assert (found.previous, found.following) == (dt.date(2026, 3, 10), dt.date(2026, 3, 15))
    assert found.playing == 1
    html = response.content.decode()
    for text in (
        "Night in review",
        "3 games: 2 won, 1 lost",
        "Best with",
        "won 1 of 1 game together",
        "highest share of games won together",
        "?night=2026-03-10#night",
        "?night=2026-03-15#night",
        "1 game of this night is still being played",
        'data-kind="thani"',
        "Doubled: your side came out ahead in 1 of 2 deals.",
        "Redoubled: your side came out ahead in 1 of 1 deal.",
    ):
        assert text in html, text
    assert "Still playing" not in html.split('id="night"')[1].split("</section>")[0]


def test_the_review_counts_as_the_maintained_figures_do(anus_night):
    """Held to the boards' figures of the same games: won, tables net, doubles."""
    anu = Player.objects.get(name="Anu")
    found = page(anu, night="2026-03-14").context["night"]
    rows = PlayerGameFigures.objects.filter(player=anu, game__in=anus_night["night"])
    assert sum(row.won for row in rows) == found.won
    assert sum(row.tables_net for row in rows) == found.forms[0].tables_net
    doubled, redoubled = found.contracts.doubled
    assert sum(row.doubles_won for row in rows) == doubled.won
    assert sum(row.doubles_lost for row in rows) == doubled.lost
    assert sum(row.redoubles_won for row in rows) == redoubled.won
    assert sum(row.redoubles_lost for row in rows) == redoubled.lost


def test_the_latest_night_by_default_and_the_night_after_midnight(anus_night):
    anu = Player.objects.get(name="Anu")
    found = page(anu).context["night"]
    # 00:30 on the 15th in Kolkata is the 15th's night, though still the 14th in UTC.
    assert (found.start, found.span) == (dt.date(2026, 3, 15), False)
    assert [line.game.label for line in found.games] == ["After midnight"]
    assert (found.previous, found.following) == (NIGHT, None)
    assert page(anu, night="2026-03-10").context["night"].previous is None


def test_a_span(anus_night):
    anu = Player.objects.get(name="Anu")
    found = page(anu, **{"from": "2026-03-10", "to": "2026-03-14"}).context["night"]
    assert found.span and (found.start, found.end) == (dt.date(2026, 3, 10), NIGHT)
    assert [line.game.label for line in found.games] == ["Before", "Game 1", "Game 2", "Game 3"]
    assert (found.played, found.won, found.lost) == (4, 3, 1)
    assert (found.contracts.declared, found.contracts.made) == (4, 3)  # and Before's 28
    assert [(p.name, p.played, p.won) for p in found.partners] == [
        ("Esha", 1, 1),
        ("Biju", 3, 2),
    ]
    assert found.forms[0].tables_net == 6 + 1
    html = page(anu, **{"from": "2026-03-10", "to": "2026-03-14"}).content.decode()
    assert "Nights in review" in html and "night-nav" not in html


def test_a_span_lists_its_first_games_and_counts_them_all(anus_night, monkeypatch):
    """A span longer than a page lists its first games (in the order they started) and
    says so; its counts hold every game."""
    monkeypatch.setattr(night, "SHOWN_GAMES", 3)
    anu = Player.objects.get(name="Anu")
    response = page(anu, **{"from": "2026-03-10", "to": "2026-03-14"})
    found = response.context["night"]
    assert [line.game.label for line in found.games] == ["Before", "Game 1", "Game 2"]
    assert (found.played, found.won, found.lost, found.more_games) == (4, 3, 1, 1)
    assert "The first 3 are listed; pick a night to see the others." in response.text
    # The games listed name every player they show; the partners are named at every game,
    # listed or not (the opponents of a game not listed are not read).
    named = {
        player.name for line in found.games for seat in line.opponents for player in seat.players
    }
    assert "" not in named and named
    assert {partner.name for partner in found.partners} == {"Biju", "Esha"}


def test_a_day_with_no_games_says_so(anus_night):
    anu = Player.objects.get(name="Anu")
    response = page(anu, night="2026-03-12")
    found = response.context["night"]
    assert found.played == 0 and found.games == []
    assert (found.previous, found.following) == (dt.date(2026, 3, 10), NIGHT)
    assert "Anu finished no game at this club that started on" in response.content.decode()
    span = page(anu, **{"from": "2026-01-01", "to": "2026-01-31"})
    assert "Anu finished no game at this club from" in span.content.decode()


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"night": "2026-02-30"}, "“2026-02-30” is not a day of the calendar"),
        ({"night": "14/03/2026"}, "“14/03/2026” is not a day of the calendar"),
        ({"night": "0001-01-01"}, "0001-01-01 is outside the days a night may be"),
        ({"night": "9999-12-31"}, "9999-12-31 is outside the days a night may be"),
        (
            {"from": "2026-03-14", "to": "2026-03-01"},
            "The span starts on 14 March 2026, after its last day, 1 March 2026",
        ),
        (
            {"from": "2025-01-01", "to": "2026-03-14"},
            "A span is at most 366 days; 1 January 2025 to 14 March 2026 is 438 days.",
        ),
        ({"from": "2026-03-01"}, "The span has a first day but no last day"),
        ({"from": "", "to": "2026-03-01"}, "The span has a last day but no first day"),
        ({"from": "2026-02-29", "to": "2026-03-01"}, "“2026-02-29” is not a day of the calendar"),
        ({"night": "２０２６-０３-１４"}, "“２０２６-０３-１４” is not a day of the calendar"),
        ({"night": "2026-03-14T20:00"}, "“2026-03-14T20:00” is not a day of the calendar"),
        # A night and a span in one address (the page's forms send one or the other).
        (
            {"night": "2026-03-14", "from": "2026-03-01", "to": "2026-03-31"},
            "A night (2026-03-14) and a span (2026-03-01 to 2026-03-31) were both asked for",
        ),
        ({"night": "2026-03-14", "to": "2026-03-31"}, "and a span (… to 2026-03-31) were both"),
    ],
)
def test_bad_dates_are_named_not_ignored(anus_night, query, message):
    anu = Player.objects.get(name="Anu")
    response = page(anu, **query)
    found = response.context["night"]
    assert found.errors and found.games == [] and found.start is None
    html = response.content.decode()
    assert message in html
    assert 'role="alert"' in html


def test_a_span_of_the_most_days_is_read():
    asked = night.asked_of({"from": "2025-03-14", "to": "2026-03-14"})
    assert not asked.errors and (asked.end - asked.start).days + 1 == night.MAX_SPAN_DAYS
    too_long = night.asked_of({"from": "2025-03-13", "to": "2026-03-14"})
    assert too_long.errors


def test_a_player_with_no_finished_game_has_no_night(client):
    game = create_game(label="Unfinished", teams=[AB, CD], first_dealer=0)
    anu = Player.objects.get(name="Anu")
    response = client.get(anu.get_absolute_url())
    assert response.context["night"] is None
    assert 'id="night"' not in response.content.decode()
    assert game.pk  # and a night asked for says it has none
    asked = client.get(anu.get_absolute_url(), {"night": "2026-03-14"})
    assert "finished no game at this club" in asked.content.decode()


def _doubled_history(extra_nights: int) -> None:
    """More of Anu's nights at the club, one game each, before the night reviewed."""
    for n in range(extra_nights):
        game = game_one(label=f"History {n}")
        at(game, kolkata(dt.date(2025, 1, 1) + dt.timedelta(days=n), 20))


def _queries(action) -> int:
    with CaptureQueriesContext(connection) as captured:
        action()
    return len(captured.captured_queries)


def test_the_review_reads_a_bounded_number_of_queries(anus_night, django_assert_max_num_queries):
    anu = Player.objects.get(name="Anu")
    home = known.home()

    def reviews():
        return {
            "night": _queries(
                lambda: night.night_review(anu, home, night.asked_of({"night": "2026-03-14"}))
            ),
            "latest": _queries(lambda: night.night_review(anu, home, night.asked_of({}))),
            "span": _queries(
                lambda: night.night_review(
                    anu, home, night.asked_of({"from": "2026-03-01", "to": "2026-03-14"})
                )
            ),
        }

    first = reviews()
    # The latest night's games come with the query that finds the night; then the seats,
    # their players, the player's seats' moves, the rating changes, the deals by kind.
    assert first == {"night": 7, "latest": 6, "span": 6}
    url = anu.get_absolute_url()
    with django_assert_max_num_queries(20):  # the profile's 16, a night's among them
        Client().get(url, {"night": "2026-03-14"})
    caches["pages"].clear()
    page_before = _queries(lambda: Client().get(url, {"night": "2026-03-14"}))
    _doubled_history(6)  # Anu's history doubled: 6 finished games more
    caches["pages"].clear()
    assert reviews() == first
    assert _queries(lambda: Client().get(url, {"night": "2026-03-14"})) == page_before


@pytest.mark.parametrize("read", [1, 2, 3, night.LATEST_READ])
def test_the_latest_night_from_the_latest_games_is_the_night_read_by_its_date(
    anus_night, monkeypatch, read
):
    """However few of the latest games the night is looked for in (1: a game still being
    played alone; 2: not back to the night's start; 3: past it, not to the night before),
    the review is the one its date asks for, its game still being played counted."""
    anu = Player.objects.get(name="Anu")
    home = known.home()
    late = create_game(label="Late one", teams=[AB, CD], first_dealer=0)
    at(late, kolkata(dt.date(2026, 3, 15), 1))
    monkeypatch.setattr(night, "LATEST_READ", read)
    latest = night.night_review(anu, home, night.asked_of({}))
    dated = night.night_review(anu, home, night.asked_of({"night": "2026-03-15"}))
    assert latest.start == dated.start == dt.date(2026, 3, 15)
    assert latest.previous == dated.previous == NIGHT
    assert latest.playing == dated.playing == 1
    assert latest.played == dated.played == 1
    assert (
        [game.seat.game_id for game in latest.games]
        == [game.seat.game_id for game in dated.games]
        == [anus_night["after"].pk]
    )
    assert latest.contracts == dated.contracts


def test_points_and_kodi_games_show_points_and_kodis_not_tables():
    points = create_game(
        label="Sheet",
        teams=[AB, CD],
        first_dealer=0,
        rules=core.Rules(scoring=core.Scoring.POINTS, deal_limit=2),
    )
    # Anu 40 made (band 40-47 scores 2 on a sheet); Chitra 30 failed: 2 to AB.
    play(
        points,
        Deal(points={0: 40, 1: 16}, declarer=seat(points, "Anu"), bid=40, trump="hearts"),
        Deal(points={0: 30, 1: 26}, declarer=seat(points, "Chitra"), bid=30, trump="spades"),
    )
    kodi = create_game(
        label="Kodi",
        teams=[AB, CD],
        first_dealer=0,
        rules=core.Rules(tables_per_team=1, kodi=True, deal_limit=2),
    )
    # Anu 28 made: CD pays its only table and takes a kodi; then Dev 28 made: AB's kodi.
    play(
        kodi,
        Deal(points={0: 30, 1: 26}, declarer=seat(kodi, "Anu"), bid=28, trump="hearts"),
        Deal(points={0: 26, 1: 30}, declarer=seat(kodi, "Dev"), bid=28, trump="hearts"),
    )
    for game in (points, kodi):
        assert game.is_finished, game
    anu = Player.objects.get(name="Anu")
    response = page(anu)
    found = response.context["night"]
    by_label = {line.game.label: line for line in found.games}
    sheet, kodi_line = by_label["Sheet"], by_label["Kodi"]
    assert (sheet.points_for, sheet.points_against) == (
        GameTeam.objects.get(game=points, position=0).score,
        GameTeam.objects.get(game=points, position=1).score,
    )
    assert sheet.amount.endswith("points") and "table" not in sheet.amount
    assert (kodi_line.kodis_taken, kodi_line.kodis_given) == (1, 1)
    assert kodi_line.amount == "1 kodi taken, 1 given"
    forms = {totals.form: totals for totals in found.forms}
    assert set(forms) == {"points", "kodi"}
    assert (forms["points"].points_for, forms["points"].points_against) == (
        sheet.points_for,
        sheet.points_against,
    )
    assert (forms["kodi"].kodis_taken, forms["kodi"].kodis_given) == (1, 1)
    rows = {
        row.form: row
        for row in PlayerGameFigures.objects.filter(player=anu, game__in=[points, kodi])
    }
    assert rows["points"].points_for == forms["points"].points_for
    assert rows["kodi"].kodis_given == forms["kodi"].kodis_given
    section = response.content.decode().split('id="night"')[1].split("</section>")[0]
    assert "Points (points sheets)" in section and "Kodis (kodi nights)" in section
    assert "<dt>Tables</dt>" not in section  # no tables game that night


def test_another_clubs_night_is_not_shown_at_a_clubs_address():
    """Anu played at the home club and at Gulf 56 on the same night: each club's page
    reviews that club's game alone, and a night of Gulf's only is no night at home."""
    home = known.home()
    gulf = Club.objects.create(name="Gulf 56", slug="gulf")
    at(game_one(), kolkata(NIGHT, 19))
    same = {"anu", "biju", "chitra", "dev"}  # the home club's, the organiser said
    at(game_one(club=gulf, same_people=same), kolkata(NIGHT, 20))
    lone = create_game(
        label="Gulf only",
        teams=[AB, CD],
        first_dealer=0,
        rules=core.Rules(tables_per_team=1),
        club=gulf,
        same_people=same,
    )
    play(lone, Deal(points={0: 30, 1: 26}, declarer=0, bid=28, trump="hearts"))
    at(lone, kolkata(dt.date(2026, 3, 20), 20))
    anu = Player.objects.get(name="Anu")

    def review(url, **query):
        caches["pages"].clear()  # rendered, with its context
        return Client().get(url, query)

    for club, label in ((home, "Game 1"), (gulf, "Game 1")):
        url = reverse_in(club, "leaderboards:player", args=[anu.pk])
        found = review(url, night="2026-03-14").context["night"]
        assert [line.game.club_id for line in found.games] == [club.pk]
        assert [line.game.label for line in found.games] == [label]
        assert found.played == 1 and found.rated == 1
    at_home = reverse_in(home, "leaderboards:player", args=[anu.pk])
    response = review(at_home, night="2026-03-20")
    assert response.context["night"].played == 0
    assert "Gulf only" not in response.content.decode()
    # The latest night at home is the home club's, not Gulf's later one.
    assert review(at_home).context["night"].start == NIGHT
    assert review(at_home, night="2026-03-14").context["night"].following is None
    gulf_page = reverse_in(gulf, "leaderboards:player", args=[anu.pk])
    assert review(gulf_page).context["night"].start == dt.date(2026, 3, 20)


def test_a_latest_night_longer_than_the_games_read_finds_the_night_before(anus_night, monkeypatch):
    """The latest games read are all of the latest night: the night before is asked for."""
    monkeypatch.setattr(night, "LATEST_READ", 1)
    anu = Player.objects.get(name="Anu")
    found = night.night_review(anu, known.home(), night.asked_of({}))
    assert (found.start, found.previous, found.following) == (dt.date(2026, 3, 15), NIGHT, None)
    monkeypatch.setattr(night, "LATEST_READ", 2)
    found = night.night_review(anu, known.home(), night.asked_of({}))
    assert (found.start, found.previous) == (dt.date(2026, 3, 15), NIGHT)


def test_the_profiles_rating_changes_give_the_review_it_would_read(anus_night):
    """The profile reads the player's latest rating changes for its chart; the night takes
    them instead of reading them again, when they hold every game of the night or every
    rated game of the player's. Either way its changes are the ones read."""
    anu = Player.objects.get(name="Anu")
    home = known.home()
    asked = night.asked_of({"night": "2026-03-14"})
    read = night.night_review(anu, home, asked)
    changes = profile.player_profile(anu, club=home)["rating_changes"]
    assert changes.complete and set(changes.by_game) >= {g.pk for g in anus_night["night"]}
    deltas = [game.rating_delta for game in read.games]
    assert None not in deltas and read.rating_change == sum(deltas)
    given = night.night_review(anu, home, asked, changes)
    assert [game.rating_delta for game in given.games] == deltas
    assert given.rating_change == read.rating_change and given.rated == read.rated == 3
    assert _queries(lambda: night.night_review(anu, home, asked, changes)) == (
        _queries(lambda: night.night_review(anu, home, asked)) - 1
    )
    # The latest changes only, and not the night's first game's: read, not taken as unrated.
    first = anus_night["night"][0].pk
    partial = profile.RatingChanges(
        {game: delta for game, delta in changes.by_game.items() if game != first},
        complete=False,
    )
    assert [g.rating_delta for g in night.night_review(anu, home, asked, partial).games] == deltas
    # Every rated game of the player's, the first one missing: it was not rated.
    unrated = profile.RatingChanges(partial.by_game, complete=True)
    shown = night.night_review(anu, home, asked, unrated)
    assert [g.rating_delta for g in shown.games] == [None, *deltas[1:]]
