"""The streamed exports (``club.archive``) against the rules.

The exports read what the scoring services stored instead of replaying every
game. Here a varied club is played through the real services (corrections,
an undone deal, all-pass deals, games of 2, 3 and 4 teams, custom house rules,
a deal limit, time called, names that need escaping) and every export is
compared, byte for byte, with the document the rules make by replaying each
game, written the way the exports wrote it before they streamed, with the
``players`` list of the names it uses read from the players' own rows, after the club's.
"""

from __future__ import annotations

import csv
import datetime
import io
import json
import random
from functools import partial

import pytest
from django.core.management import call_command
from django.db import connection
from django.http import StreamingHttpResponse
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from club.archive import export as archive_export
from club.archive import format as archive_format
from club.archive import tournament_export
from club.archive.export import export_csv, export_document, export_json, stream_csv, stream_json
from club.archive.format import (
    CSV_COLUMNS,
    FORMAT,
    GAMES_CSV_COLUMNS,
    TOURNAMENT_DEALS_CSV_COLUMNS,
    ArchiveError,
    TeamSpec,
)
from club.archive.load import import_results
from club.archive.tournament_export import (
    export_tournament_csv,
    export_tournament_json,
    results_word,
    stream_tournament_csv,
    stream_tournament_json,
    tournament_csv_rows,
)
from club.clubs import known
from club.games.models import Change, Game, Player, Team
from club.games.services import (
    Deal,
    ScoringError,
    TeamEntry,
    create_game,
    edit_deal,
    end_game,
    load_seating,
    record_deal,
    replay_game,
    undo_last_deal,
)
from club.scoring import rules as core
from club.tournaments import services as tournament_services
from club.tournaments.models import Sitting, Tournament
from tests.tournaments.helpers import make_tournament

pytestmark = pytest.mark.django_db

PAIRS = [
    ("Anu", "Biju"),
    ("Chitra", "Dev"),
    ("Esha", "Farid"),
    ("Gita", "Hari"),
    ('"Quoted" Kavya', "Latif \\ Back"),
    ("=SUM(A1)", "-Minus"),
    ("അനു", "สมชาย"),
    ("@Mention", "+Plus"),
]
HOUSE_RULES = core.Rules(
    tables_per_team=6,
    bands=(core.Band(28, 40, 1, 3), core.Band(41, 56, 2, 4)),
    double_factor=3,
    redouble_factor=5,
)


# --- Playing a club through the services -------------------------------------------


def _entry(
    game: Game, rng: random.Random, *, all_pass_share: float = 0.15, everyone: bool = False
) -> Deal:
    """A random deal the rules accept for the game as it stands (or as it started)."""
    playing = [team for team in game.teams.order_by("position") if team.tables or everyone]
    cuts = sorted(rng.randint(0, 56) for _ in range(len(playing) - 1))
    piles = [high - low for low, high in zip([0, *cuts], [*cuts, 56], strict=True)]
    points = {team.position: pile for team, pile in zip(playing, piles, strict=True)}
    if rng.random() < all_pass_share:
        return Deal(points=points)
    declaring = rng.choice(playing)
    return Deal(
        points=points,
        declarer=load_seating(game).seat_of(
            rng.choice([declaring.first_player_id, declaring.second_player_id])
        ),
        bid=rng.choice([28, 28, 30, 32, 36, 40, 44, 48, 56]),
        trump=rng.choice(list(core.Trump)).value,
        doubling=rng.choice(["none", "none", "none", "double", "redouble"]),
    )


def _play(game: Game, deals: int, rng: random.Random) -> Game:
    for _ in range(deals):
        game.refresh_from_db()
        if game.is_finished:
            break
        record_deal(game=game, number=game.deals_played + 1, entry=_entry(game, rng))
    game.refresh_from_db()
    return game


def _correct(game: Game, number: int, rng: random.Random) -> None:
    """Correct deal ``number`` to another random deal that leaves the later ones possible."""
    for _ in range(50):
        try:
            entry = _entry(game, rng, all_pass_share=0.3, everyone=True)
            edit_deal(game=game, number=number, entry=entry)
            return
        except ScoringError:
            continue
    raise AssertionError("no correction of the deal was accepted")


def _game(label: str, pairs: list[tuple[str, str]], **kwargs) -> Game:
    return create_game(
        label=label, teams=[TeamEntry(*pair) for pair in pairs], first_dealer=1, **kwargs
    )


def play_club(seed: int = 56) -> None:
    """Games of every kind the exports must write."""
    rng = random.Random(seed)
    # Two teams played out, with deal 2 corrected after the fact and the last deal undone.
    first = _play(_game("Friday, table 1", PAIRS[:2]), 12, rng)
    _correct(first, 2, rng)
    undo_last_deal(game=first, number=first.deals_played)
    _play(first, 200, rng)
    # Four teams of 2 tables: they go out one by one (or together) until one is left.
    _play(_game("Four teams", PAIRS[:4], rules=core.Rules(tables_per_team=2)), 200, rng)
    # Three teams, house rules, still being played.
    _play(_game("=Three, house rules", PAIRS[4:7], rules=HOUSE_RULES), 4, rng)
    # Time called by the organiser.
    early = _game("Time called", [PAIRS[0], PAIRS[4]], rules=core.Rules(tables_per_team=24))
    early = _play(early, 1, rng)  # no deal moves 24 tables: it is still being played
    end_game(game=early)
    # The deal limit reached, with names that need escaping in JSON and CSV.
    _play(_game('-Limit "five"', [PAIRS[5], PAIRS[7]], deal_limit=5), 200, rng)
    # A game with no deal yet.
    _game("Not started", [PAIRS[1], PAIRS[6]])
    # A member number travels with its player; the others have none.
    Player.objects.filter(name="Biju").update(member_number="K-17")


def play_games(count: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    first = Game.objects.count() + 1
    for number in range(first, first + count):
        _play(_game(f"Game {number}", PAIRS[:2]), 5, rng)


# --- What the rules make of the stored deals, written as before streaming -----------------


def _replayed(games) -> list[tuple[Game, list[TeamSpec], list, core.GameState]]:
    replayed = []
    for game in games:
        seating, settlements, state = replay_game(game)
        teams = [
            TeamSpec(entry.team.name, entry.first_player.name, entry.second_player.name)
            for entry in seating.teams
        ]
        replayed.append((game, teams, settlements, state))
    return replayed


def _game_documents(games) -> list[dict]:
    return [
        archive_format._game_document(
            label=game.label,
            rules=game.rules,
            teams=teams,
            first_dealer=game.first_dealer_seat,
            settlements=settlements,
            state=state,
            deal_limit=game.deal_limit,
            ended_early=game.ended_early,
        )
        for game, teams, settlements, state in _replayed(games)
    ]


def _dumps(document) -> str:
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"


def _names(document: dict) -> set[str]:
    """Every player name the document uses: at its games' tables, in a tournament's teams
    and in its substitutions."""
    teams = [team for game in document["games"] for team in game["teams"]]
    tournament = document.get("tournament", {})
    teams += tournament.get("teams", [])
    names = {name for team in teams for name in team["players"]}
    for made in tournament.get("substitutions", []):
        names |= {made["out"], made["in"]}
    return names


def with_players(head: dict, games: list[dict]) -> dict:
    """The document with its ``club`` (the home club) right after ``format``, then its
    ``players`` list: each name it uses, by
    name (lower case first), as that player's row has it: the identifier, and the member
    number when there is one."""
    document = {**head, "games": games}
    players = []
    for player in Player.objects.filter(name__in=_names(document)):
        listed = {"name": player.name, "id": str(player.identifier)}
        if player.member_number:
            listed["member_number"] = player.member_number
        players.append(listed)
    players.sort(key=lambda listed: (listed["name"].lower(), listed["name"]))
    assert {listed["name"] for listed in players} == _names(document)  # a row for each name
    home = known.home()  # the club whose export it is
    club = {"name": home.name, "slug": home.slug}
    return {"format": FORMAT, "club": club, "players": players, **head, "games": games}


def replayed_json() -> str:
    games = _game_documents(Game.objects.order_by("id"))
    return _dumps(with_players({}, games))


def _cell(value):
    if isinstance(value, str) and value.startswith(("=", "+", "-", "@", "\t", "\r")):
        return "'" + value
    return value


def _flag(value: bool) -> str:
    return "true" if value else "false"


def _replayed_deal_rows(games, where=lambda game: ()) -> list[list]:
    rows = []
    for game, teams, settlements, _state in _replayed(games):
        names = [team.name for team in teams]
        seats = archive_format._seat_names(teams)
        for s in settlements:
            for team, name in enumerate(names):
                cells = (
                    *where(game),
                    game.label,
                    s.number,
                    seats[s.dealer],
                    "" if s.declarer is None else seats[s.declarer],
                    names[s.declaring_team],
                    _flag(s.all_pass),
                    s.bid,
                    str(s.trump),
                    str(s.doubling),
                    _flag(s.made),
                    name,
                    s.points.get(team, ""),
                    s.transfers[team],
                    s.tables_after[team],
                    _flag(team in s.eliminated),
                )
                rows.append([_cell(cell) for cell in cells])
    return rows


def _csv(rows) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue()


def replayed_csv() -> str:
    return _csv([CSV_COLUMNS, *_replayed_deal_rows(Game.objects.order_by("id"))])


def _tournament_games(tournament: Tournament):
    return Game.objects.filter(
        sitting_entry__sitting__tournament=tournament,
        sitting_entry__sitting__status=Sitting.Status.CONFIRMED,
    ).order_by("sitting_entry__sitting__number", "sitting_entry__position")


def replayed_tournament_json(tournament: Tournament) -> str:
    head = tournament_export.tournament_object(tournament)
    # The sittings as they read with a query per sitting, before they were read together.
    head["sittings"] = [
        {
            "number": sitting.number,
            "game_size": sitting.game_size,
            "games": [
                {"table": item.table_label, "game": item.game.label}
                for item in sitting.games.order_by("position")
            ],
            "byes": [bye.entry.team.name for bye in sitting.byes.order_by("entry_id")],
        }
        for sitting in tournament.sittings.filter(status="confirmed").order_by("number")
    ]
    games = _game_documents(_tournament_games(tournament))
    return _dumps(with_players({"tournament": head}, games))


def replayed_tournament_csv(tournament: Tournament, table: str) -> str:
    results = results_word(tournament)

    def where(game):
        entry = game.sitting_entry
        return (results, entry.sitting.number, entry.table_label)

    if table == "deals":
        header = TOURNAMENT_DEALS_CSV_COLUMNS
        return _csv([header, *_replayed_deal_rows(_tournament_games(tournament), where)])
    rows: list = [GAMES_CSV_COLUMNS]
    for game, teams, _settlements, state in _replayed(_tournament_games(tournament)):
        finished, places = archive_format._outcome(state, game.deal_limit, game.ended_early)
        cells = [*where(game), game.label, "finished" if finished else "in_progress"]
        cells.append(state.deals_played)
        for position in range(4):
            if position < len(teams):
                cells += [teams[position].name, places.get(position, ""), state.tables[position]]
            else:
                cells += ["", "", ""]
        rows.append([_cell(cell) for cell in cells])
    return _csv(rows)


def play_tournament(name: str, sittings: int, *, call_time: bool = False) -> Tournament:
    """Sittings of 2 and then 3 teams, every game played out (at most 6 deals, the limit).

    With ``call_time`` the last sitting has one deal in its first game and none
    in the others when the organiser calls time.
    """
    tournament = make_tournament(name=name, teams=7, tables_per_team=2, deal_limit=6)
    rng = random.Random(len(name))
    for number in range(sittings):
        sitting = tournament_services.propose_sitting(
            tournament=tournament, game_size=3 if number % 2 else 2, rng=rng
        )
        sitting = tournament_services.confirm_sitting(sitting=sitting, rng=rng)
        stopped = call_time and number == sittings - 1
        for index, entry in enumerate(sitting.games.select_related("game").order_by("position")):
            _play(entry.game, (1 if index == 0 else 0) if stopped else 200, rng)
        if stopped:
            tournament_services.call_time(sitting=sitting)
    tournament.refresh_from_db()
    return tournament


# --- The exports equal the rules' document --------------------------------------------


def test_the_club_played_has_every_kind_of_game_and_deal():
    play_club()
    document = json.loads(replayed_json())
    rounds = [deal for game in document["games"] for deal in game["rounds"]]
    assert any(deal.get("all_pass") for deal in rounds)
    assert any(len(deal["eliminated"]) for deal in rounds)
    assert any(
        len(game["teams"]) == 4 and game["status"] == "finished" for game in document["games"]
    )
    assert any(game.get("ended_early") for game in document["games"])
    assert any(game.get("deal_limit") == 5 for game in document["games"])
    assert any("payout" in game and "doubling_factors" in game for game in document["games"])
    assert any(game["rounds"] == [] for game in document["games"])
    assert set(Change.objects.values_list("action", flat=True)) >= {"edited", "undone", "ended"}


@pytest.mark.parametrize("chunk", [archive_export.EXPORT_CHUNK, 1, 4])
def test_streamed_json_and_csv_equal_the_replayed_documents(monkeypatch, chunk):
    play_club()
    monkeypatch.setattr(archive_export, "EXPORT_CHUNK", chunk)
    pieces = list(stream_json())
    assert len(pieces) > 2  # made a game at a time, not whole
    assert "".join(pieces) == replayed_json() == export_json()
    assert "".join(stream_csv()) == replayed_csv() == export_csv()
    assert export_document() == json.loads(replayed_json())


def test_the_export_of_an_empty_club_is_the_same_as_before():
    """As before the players list, with that list empty, and the club whose export it is."""
    home = known.home()
    empty = {
        "format": FORMAT,
        "club": {"name": home.name, "slug": home.slug},
        "players": [],
        "games": [],
    }
    assert export_json() == _dumps(empty)
    assert export_csv() == _csv([CSV_COLUMNS])


def test_streamed_tournament_exports_equal_the_replayed_ones(monkeypatch):
    running = play_tournament("Onam Open", 3, call_time=True)
    final = play_tournament("Vishu Pairs", 2)
    tournament_services.finish_tournament(tournament=final)
    tournament_services.make_final(tournament=final)
    final.refresh_from_db()
    monkeypatch.setattr(archive_export, "EXPORT_CHUNK", 2)
    for tournament in (running, final):
        assert export_tournament_json([tournament]) == replayed_tournament_json(tournament)
        for table in ("games", "deals"):
            expected = replayed_tournament_csv(tournament, table)
            assert export_tournament_csv(tournament, table) == expected
            # The rows, for callers that write them themselves, are the same table.
            assert _csv(tournament_csv_rows(tournament, table)) == expected
    # Several tournaments: a list of the documents, as json.dumps writes a list.
    documents = [json.loads(replayed_tournament_json(t)) for t in (running, final)]
    assert export_tournament_json([running, final]) == _dumps(documents)


def test_an_unknown_csv_table_is_refused_before_anything_is_written():
    tournament = play_tournament("Onam Open", 1)
    with pytest.raises(ArchiveError, match="not a table"):
        stream_tournament_csv(tournament, "players")


# --- Queries do not grow with the games ------------------------------------------------


def _queries(export) -> int:
    with CaptureQueriesContext(connection) as queries:
        text = "".join(export())
    assert text
    return len(queries.captured_queries)


def test_a_whole_archive_export_makes_as_many_queries_for_20_games_as_for_2():
    play_games(2)
    json_two, csv_two = _queries(stream_json), _queries(stream_csv)
    play_games(18, seed=8)
    assert Game.objects.count() == 20
    assert _queries(stream_json) == json_two
    assert _queries(stream_csv) == csv_two
    # The players; the club's competitions; the games, teams, deals.
    assert json_two <= PLAYERS_LIST + COMPETITIONS + PER_CHUNK


# On PostgreSQL a chunk's deals, ledger rows and piles are read in three plain
# queries (club.archive.stored_games._deal_rows_by_table); SQLite reads them in one.
PER_CHUNK = 5 if connection.vendor == "postgresql" else 3
# The players list, before the games: the seats of every game, then those players (up to
# 500 of them a query).
PLAYERS_LIST = 2
# The club's competitions, before the games (one query when it has none, as here).
COMPETITIONS = 1


def test_more_games_than_a_chunk_take_the_same_queries_a_chunk(monkeypatch):
    play_games(10)
    monkeypatch.setattr(archive_export, "EXPORT_CHUNK", 4)
    # The players list, the competitions, then chunks of 4, 4 and 2 games.
    assert _queries(stream_json) == PLAYERS_LIST + COMPETITIONS + 3 * PER_CHUNK


def test_a_tournament_export_makes_as_many_queries_for_3_sittings_as_for_1(client):
    small = play_tournament("Small Cup", 1)
    large = play_tournament("Large Cup", 3)
    assert Game.objects.filter(sitting_entry__sitting__tournament=large).count() > 6
    for export in (
        lambda t: stream_tournament_json([t]),
        lambda t: stream_tournament_csv(t, "deals"),
        lambda t: stream_tournament_csv(t, "games"),
    ):
        assert _queries(partial(export, small)) == _queries(partial(export, large))

    def download(tournament):
        response = client.get(reverse("archive:export_json", args=[tournament.pk]))
        return response.streaming_content

    assert _queries(lambda: (p.decode() for p in download(small))) == _queries(
        lambda: (p.decode() for p in download(large))
    )


# --- Downloads and the command stream ----------------------------------------------------


def test_the_json_download_streams_and_imports_into_an_empty_club(client, tmp_path):
    tournament = play_tournament("Onam Open", 3, call_time=True)
    response = client.get(reverse("archive:export_json", args=[tournament.pk]))
    assert isinstance(response, StreamingHttpResponse)
    assert response["Content-Disposition"] == 'attachment; filename="onam-open-results.json"'
    pieces = list(response.streaming_content)
    assert len(pieces) > 2
    text = b"".join(pieces).decode("utf-8")
    assert text == replayed_tournament_json(tournament)

    Tournament.objects.all().delete()
    Game.objects.all().delete()
    Team.objects.all().delete()
    Player.objects.all().delete()
    import_results(text)
    again = Tournament.objects.get(name="Onam Open")
    response = client.get(reverse("archive:export_json", args=[again.pk]))
    assert b"".join(response.streaming_content).decode("utf-8") == text


def test_the_deals_download_streams_the_csv_table(client):
    tournament = play_tournament("Onam Open", 2)
    response = client.get(reverse("archive:deals_csv", args=[tournament.pk]))
    assert isinstance(response, StreamingHttpResponse)
    assert response["Content-Disposition"] == 'attachment; filename="onam-open-deals.csv"'
    text = b"".join(response.streaming_content).decode("utf-8")
    assert text == replayed_tournament_csv(tournament, "deals")


def test_the_command_writes_the_streamed_archive_to_a_file_and_to_stdout(tmp_path):
    play_club()
    path = tmp_path / "club.json"
    out = io.StringIO()
    call_command("export_results", "--output", str(path), stdout=out)
    assert path.read_text(encoding="utf-8") == replayed_json()
    out = io.StringIO()
    call_command("export_results", "--format", "csv", stdout=out)
    assert out.getvalue() == replayed_csv()


def test_a_failed_export_leaves_no_file_it_started(tmp_path, monkeypatch):
    play_games(2)

    def broken():
        yield '{"format": '
        raise RuntimeError("the database went away")

    monkeypatch.setattr(
        "club.archive.management.commands.export_results.stream_json", lambda club: broken()
    )
    path = tmp_path / "club.json"
    with pytest.raises(RuntimeError):
        call_command("export_results", "--output", str(path), stdout=io.StringIO())
    assert not path.exists()
    path.write_text("kept", encoding="utf-8")  # a file that was there is not removed
    with pytest.raises(RuntimeError):
        call_command("export_results", "--output", str(path), stdout=io.StringIO())
    assert path.exists()


def test_the_tournament_with_no_game_yet_exports_as_before():
    tournament = tournament_services.create_tournament(
        name="Empty Cup", starts_on=datetime.date(2025, 5, 1)
    )
    assert export_tournament_json([tournament]) == replayed_tournament_json(tournament)
