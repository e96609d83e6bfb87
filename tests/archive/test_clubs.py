"""Results publish into one club and come out of one club.

Two clubs: the home club and Gulf 56 (``gulf``), whose organiser is no site
administrator. A file of a night, or of a tournament, written before there were clubs
(no ``club`` key) imports into either, and into both: labels and names are a club's, so
each then holds it, its players the same people, members of both. A club's export holds
its own games, tournaments and players and says whose it is; the file of one club is
refused by the other, naming both, and nothing is saved. The commands take ``--club``;
each club's Publish results page and downloads are at its own address and import into,
or export, that club only; an import's progress is read at its club's address only.
"""

from __future__ import annotations

import io
import json
import re
import uuid

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from club.archive import progress, views
from club.archive.export import export_csv, export_document, export_json
from club.archive.format import FORMAT, ArchiveError
from club.archive.load import import_results
from club.archive.register import roster_object
from club.archive.tournament_export import export_tournament_json
from club.clubs import known
from club.clubs.addresses import reverse_in
from club.clubs.models import Club
from club.games import services
from club.games.models import Game, Membership, Player
from club.games.services import TeamEntry, create_game
from club.tournaments.models import Tournament
from tests.archive.test_tournament_archive import NAME, NAMES, build, counts, export, wipe
from tests.archive.test_web_import import night
from tests.factories import deal

pytestmark = pytest.mark.django_db

NIGHT = ["Anu", "Biju", "Chitra", "Dev"]
GULF = ["Rashid", "Salma", "Tariq", "Yusuf"]  # Gulf's own night: none of them the home club's


@pytest.fixture
def gulf(django_user_model) -> Club:
    club = Club.objects.create(name="Gulf 56", slug="gulf")
    organiser = django_user_model.objects.create_user(username="gulf-organiser", password="pw")
    club.organisers.add(organiser)
    return club


@pytest.fixture
def gulf_organiser(gulf) -> Client:
    browser = Client()
    browser.force_login(gulf.organisers.get())
    return browser


def _club_object(club: Club) -> dict:
    return {"name": club.name, "slug": club.slug}


def _without_club(text: str) -> str:
    """The file as an export wrote it before there were clubs: no ``club`` key."""
    document = json.loads(text)
    del document["club"]
    return _dumps(document)


def _of(club: Club, text: str) -> str:
    """A file without a club, as ``club``'s export writes it: the key after ``format``."""
    document = json.loads(text)
    return _dumps({"format": document.pop("format"), "club": _club_object(club), **document})


def _dumps(document) -> str:
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"


def _everything() -> dict[str, int]:
    """Every row an import could write, the clubs' memberships and the clubs too."""
    return {**counts(), "Membership": Membership.objects.count(), "Club": Club.objects.count()}


def _members(club: Club) -> list[str]:
    return sorted(Player.objects.filter(memberships__club=club).values_list("name", flat=True))


def _labels(club: Club) -> list[str]:
    return sorted(Game.objects.filter(club=club).values_list("label", flat=True))


def _night_file() -> str:
    """A night of two tables, as a file written before there were clubs; the site empty."""
    night()
    text = _without_club(export_json())
    wipe()
    return text


def _gulf_night(gulf: Club) -> Game:
    """Gulf's own "Friday table 1", of other players and another deal than the home club's."""
    game = create_game(
        label="Friday table 1",
        teams=[TeamEntry("Rashid", "Salma"), TeamEntry("Tariq", "Yusuf")],
        first_dealer=0,
        club=gulf,
    )
    services.record_deal(game=game, number=1, entry=deal(game, {0: 36, 1: 20}, "Tariq", 30))
    return game


# --- Import into a club ----------------------------------------------------------------------


def test_the_same_file_imports_into_two_clubs_and_each_holds_it(gulf):
    home = known.home()
    text = _night_file()
    first = import_results(text)
    second = import_results(text, club=gulf)
    assert (first.games, first.deals) == (second.games, second.deals) == (2, 3)
    assert _labels(home) == _labels(gulf) == ["Friday table 1", "Friday table 2"]
    assert Player.objects.count() == 4  # the same people, found by their identifiers
    assert second.players_added == 0 and second.players_here == 4
    assert _members(home) == _members(gulf) == NIGHT
    # Each club's export is the file, saying whose it is; nothing else changed in it.
    assert export_json(home) == _of(home, text)
    assert export_json(gulf) == _of(gulf, text)
    # Published again into Gulf, the file's games are Gulf's own already: left as they are.
    again = import_results(text, club=gulf)
    assert (again.games, again.kept) == (0, 2)
    assert Game.objects.count() == 4


def test_a_label_is_taken_only_in_its_own_club(gulf):
    home = known.home()
    text = _night_file()
    _gulf_night(gulf)
    import_results(text)  # the home club has no "Friday table 1": imported
    assert _labels(home) == ["Friday table 1", "Friday table 2"]
    before = _everything()
    with pytest.raises(ArchiveError) as refused:
        import_results(text, club=gulf)  # Gulf's own "Friday table 1" is another game
    assert refused.value.message == (
        'Game "Friday table 1", label: the club already has a game with this label.'
    )
    assert _everything() == before


def test_a_tournament_file_imports_into_two_clubs_with_its_games_in_each(gulf):
    home = known.home()
    build()
    text = _without_club(export("--tournament", NAME))
    wipe()
    import_results(text)
    import_results(text, club=gulf)
    tournaments = {t.club_id: t for t in Tournament.objects.filter(name=NAME)}
    assert set(tournaments) == {home.pk, gulf.pk}
    for club in (home, gulf):
        tournament = tournaments[club.pk]
        games = Game.objects.filter(sitting_entry__sitting__tournament=tournament)
        assert games.count() == 3
        assert set(games.values_list("club_id", flat=True)) == {club.pk}
        assert export_tournament_json([tournament]) == _of(club, text)
        assert _members(club) == NAMES
    assert Player.objects.count() == len(NAMES)


def test_a_tournament_name_is_taken_only_in_its_own_club(gulf):
    build()
    text = _without_club(export("--tournament", NAME))
    before = _everything()
    with pytest.raises(ArchiveError) as refused:
        import_results(text)  # the home club has it
    assert refused.value.message == (
        'Tournament "Vishu Pairs 2025", name: there is already a tournament called '
        "“Vishu Pairs 2025”."
    )
    assert _everything() == before
    import_results(text, club=gulf)
    assert Tournament.objects.filter(name=NAME, club=gulf).count() == 1


def test_a_roster_makes_its_players_the_clubs(gulf):
    text = _night_file()
    import_results(text)
    roster = roster_object(known.home())
    assert roster["club"] == _club_object(known.home())
    del roster["club"]
    import_results(json.dumps(roster), club=gulf)
    assert _members(gulf) == NIGHT
    assert Game.objects.filter(club=gulf).count() == 0


def test_a_roster_reads_the_register_in_one_query_whatever_its_size(
    gulf, django_assert_num_queries
):
    """The club's members, by name, in one query: the same for 4 players as for 40, each
    with their identifier, and no one of another club."""
    for name in GULF:
        Membership.objects.create(club=gulf, player=Player.objects.create(name=name))
    with django_assert_num_queries(1):
        few = roster_object(gulf)["players"]
    for number in range(36):
        player = Player.objects.create(name=f"gulf {number:02}", member_number=f"G{number}")
        Membership.objects.create(club=gulf, player=player)
    Membership.objects.create(club=known.home(), player=Player.objects.create(name="Not Gulf's"))
    with django_assert_num_queries(1):
        many = roster_object(gulf)["players"]
    assert [listed["name"] for listed in few] == GULF
    assert len(many) == 40 and "Not Gulf's" not in {listed["name"] for listed in many}
    assert many[0] == {"name": "gulf 00", "id": many[0]["id"], "member_number": "G0"}


# --- Export of a club -----------------------------------------------------------------------


def test_the_export_of_a_club_holds_only_its_own_and_says_whose_it_is(gulf):
    home = known.home()
    night()
    _gulf_night(gulf)
    build()  # the home club's tournament
    ours, theirs = export_document(home), export_document(gulf)
    assert list(theirs) == ["format", "club", "players", "games"]
    assert ours["club"] == _club_object(home) and theirs["club"] == _club_object(gulf)
    assert [game["label"] for game in theirs["games"]] == ["Friday table 1"]
    assert [listed["name"] for listed in theirs["players"]] == GULF
    assert len(ours["games"]) == 5  # the night's two and the tournament's three
    assert "Rashid" not in json.dumps(ours, ensure_ascii=False)
    assert {row.split(",")[0] for row in export_csv(gulf).splitlines()[1:]} == {"Friday table 1"}
    assert "Tariq" not in export_csv(home)
    # The roster is the club's players: those of Gulf's game.
    roster = roster_object(gulf)
    assert [listed["name"] for listed in roster["players"]] == GULF
    assert roster["club"] == _club_object(gulf)


def test_a_clubs_file_publishes_back_into_it_as_it_was(gulf):
    _gulf_night(gulf)
    text = export_json(gulf)
    Game.objects.filter(club=gulf).delete()
    summary = import_results(text, club=gulf)
    assert (summary.games, summary.deals) == (1, 1)
    assert export_json(gulf) == text


# --- The file's club ------------------------------------------------------------------------


def test_a_file_of_one_club_is_refused_by_another_and_nothing_is_saved(gulf, tmp_path):
    night()
    text = export_json()  # the home club's
    before = _everything()
    with pytest.raises(ArchiveError) as refused:
        import_results(text, club=gulf)
    assert refused.value.message == (
        "This file is the results of 56 Club (club); you are publishing into Gulf 56 (gulf)."
    )
    assert _everything() == before
    path = tmp_path / "night.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CommandError) as said:
        call_command("import_results", str(path), "--club", "gulf", stdout=io.StringIO())
    assert str(said.value) == f"{refused.value.message} Nothing was imported."
    assert _everything() == before
    # In a list of documents, the one of another club is named.
    listed = json.dumps([json.loads(_without_club(text)), json.loads(text)])
    with pytest.raises(ArchiveError) as refused:
        import_results(listed, club=gulf)
    assert refused.value.message == (
        "Document 2 of the list: This file is the results of 56 Club (club); you are "
        "publishing into Gulf 56 (gulf)."
    )
    assert _everything() == before


HOME_CLUB = {"name": "56 Club", "slug": "club"}


@pytest.mark.parametrize(
    ("club", "message"),
    [
        (
            "club",
            "“club” must be a JSON object with the club's “name” and its short name, "
            '“slug”, not "club".',
        ),
        (
            [],
            "“club” must be a JSON object with the club's “name” and its short name, “slug”, "
            "not [].",
        ),
        ({"name": "56 Club"}, "The club's “slug” must be text that is not empty, not null."),
        (
            {"name": " ", "slug": "club"},
            'The club\'s “name” must be text that is not empty, not " ".',
        ),
        (
            {"name": "56 Club", "slug": 56},
            "The club's “slug” must be text that is not empty, not 56.",
        ),
        (
            {**HOME_CLUB, "city": "Kochi"},
            "“city” is not a field of “club” (the fields are name and slug).",
        ),
    ],
)
def test_the_files_club_is_a_name_and_a_short_name(club, message):
    text = json.dumps({"format": FORMAT, "club": club, "games": []})
    before = _everything()
    with pytest.raises(ArchiveError) as refused:
        import_results(text)
    assert refused.value.message == message
    assert _everything() == before


def test_the_files_club_gives_each_key_once():
    text = (
        '{"format": "fiftysix-results/1", '
        '"club": {"name": "56 Club", "name": "Other", "slug": "club"}, "games": []}'
    )
    with pytest.raises(ArchiveError) as refused:
        import_results(text)
    assert refused.value.message == "The key “name” is given twice in “club”."


def test_a_file_of_the_club_by_its_short_name_imports_whatever_its_name_was():
    night()
    document = json.loads(export_json())
    document["club"]["name"] = "The club's old name"
    wipe()
    assert import_results(json.dumps(document)).games == 2


# --- The commands ---------------------------------------------------------------------------


def test_the_commands_take_a_club_by_its_short_name(gulf, tmp_path):
    home = known.home()
    path = tmp_path / "night.json"
    path.write_text(_night_file(), encoding="utf-8")
    out = io.StringIO()
    call_command("import_results", str(path), "--club", "gulf", stdout=out)
    assert "Imported 2 games with 3 deals" in out.getvalue()
    assert _labels(gulf) == ["Friday table 1", "Friday table 2"] and _labels(home) == []
    assert export("--club", "gulf") == export_json(gulf)
    assert export("--club", "gulf", "--format", "csv") == export_csv(gulf)
    assert json.loads(export())["games"] == []  # the home club's, without --club
    with pytest.raises(CommandError) as refused:
        export("--club", "gulf", "--tournament", NAME)
    assert str(refused.value).startswith("There is no tournament called “Vishu Pairs 2025”")


@pytest.mark.parametrize("command", ["import_results", "export_results"])
def test_an_unknown_club_is_named_with_the_sites_clubs(gulf, tmp_path, command):
    path = tmp_path / "night.json"
    path.write_text(_night_file(), encoding="utf-8")
    arguments = [str(path)] if command == "import_results" else []
    before = _everything()
    with pytest.raises(CommandError) as refused:
        call_command(command, *arguments, "--club", "nowhere", stdout=io.StringIO())
    assert str(refused.value) == (
        "There is no club with the short name “nowhere” (the clubs are: club, gulf)."
    )
    assert _everything() == before


# --- On the web -----------------------------------------------------------------------------


def _upload(text: str) -> SimpleUploadedFile:
    return SimpleUploadedFile("night.json", text.encode("utf-8"), content_type="application/json")


def _fingerprint(page) -> str:
    found = re.search(r'name="previewed" value="([0-9a-f]{64})"', page.content.decode())
    assert found, "the preview offers no import"
    return found.group(1)


def _store(browser: Client, club: Club, text: str, previewed: str):
    return browser.post(
        reverse_in(club, "archive:import_store"),
        {"file": _upload(text), "previewed": previewed, "idempotency_key": str(uuid.uuid4())},
    )


def test_the_web_import_at_a_clubs_address_publishes_into_that_club(gulf, gulf_organiser):
    home = known.home()
    text = _night_file()
    page = gulf_organiser.post(reverse_in(gulf, "archive:import"), {"file": _upload(text)})
    assert page.status_code == 200
    assert "Import 2 games with 3 deals" in page.content.decode()
    assert Game.objects.count() == 0  # a preview keeps nothing
    answer = _store(gulf_organiser, gulf, text, _fingerprint(page))
    assert answer.status_code == 302
    assert answer["Location"] == reverse_in(gulf, "games:list")
    assert answer["Location"].startswith("/clubs/gulf/")
    assert _labels(gulf) == ["Friday table 1", "Friday table 2"] and _labels(home) == []
    assert _members(gulf) == NIGHT and _members(home) == []
    # Gulf's organiser is no organiser of the home club's: its page says so.
    refused = gulf_organiser.get(reverse_in(home, "archive:import"))
    assert refused.status_code == 403


def test_a_preview_at_one_club_is_no_import_at_another(gulf, gulf_organiser):
    known.home().organisers.add(gulf.organisers.get())  # who organises both clubs
    text = _night_file()
    page = gulf_organiser.post(reverse_in(gulf, "archive:import"), {"file": _upload(text)})
    answer = _store(gulf_organiser, known.home(), text, _fingerprint(page))
    assert answer.status_code == 200
    assert "This is not the file, or not the choices, that were previewed" in (
        answer.content.decode()
    )
    assert Game.objects.count() == 0


def test_the_web_import_refuses_another_clubs_file_naming_both(gulf, gulf_organiser):
    night()
    text = export_json()
    before = _everything()
    page = gulf_organiser.post(reverse_in(gulf, "archive:import"), {"file": _upload(text)})
    assert page.status_code == 200
    assert (
        "This file is the results of 56 Club (club); you are publishing into Gulf 56 (gulf). "
        "This file cannot be imported."
    ) in page.content.decode()
    assert 'name="previewed"' not in page.content.decode()
    assert _everything() == before


def test_a_tournament_published_at_a_club_is_shown_at_its_address(gulf, gulf_organiser):
    build()  # the home club's, of the same name
    text = _without_club(export("--tournament", NAME))
    page = gulf_organiser.post(reverse_in(gulf, "archive:import"), {"file": _upload(text)})
    answer = _store(gulf_organiser, gulf, text, _fingerprint(page))
    theirs = Tournament.objects.get(club=gulf)
    assert answer["Location"] == reverse_in(gulf, "tournaments:detail", args=[theirs.pk])
    assert Tournament.objects.filter(name=NAME).count() == 2


DOWNLOADS = [
    "archive:export_json",
    "archive:standings_csv",
    "archive:games_csv",
    "archive:deals_csv",
]


@pytest.mark.parametrize("download", DOWNLOADS)
def test_a_tournaments_downloads_are_found_at_its_clubs_address_only(gulf, client, download):
    home = known.home()
    ours = build()
    assert client.get(reverse_in(gulf, download, args=[ours.pk])).status_code == 404
    found = client.get(reverse_in(home, download, args=[ours.pk]))
    assert found.status_code == 200
    if download == "archive:export_json":
        body = b"".join(found.streaming_content).decode()
        assert json.loads(body)["club"] == _club_object(home)


def test_a_download_is_named_after_its_club_on_a_site_of_several(gulf, gulf_organiser):
    """Files of two clubs saved in one folder are told apart by the club's short name."""
    _gulf_night(gulf)
    day = timezone.localdate().isoformat()
    games = gulf_organiser.get(reverse_in(gulf, "archive:games_json"))
    assert games["Content-Disposition"] == f'attachment; filename="gulf-club-games-{day}.json"'
    roster = gulf_organiser.get(reverse_in(gulf, "archive:roster_json"))
    assert roster["Content-Disposition"] == f'attachment; filename="gulf-club-players-{day}.json"'
    ours = build()
    standings = Client().get(reverse_in(known.home(), "archive:standings_csv", args=[ours.pk]))
    home = known.home().slug
    assert standings["Content-Disposition"] == (
        f'attachment; filename="{home}-vishu-pairs-2025-standings.csv"'
    )


def _download(browser: Client, url: str) -> tuple[dict, int]:
    with CaptureQueriesContext(connection) as queries:
        response = browser.get(url)
    assert response.status_code == 200
    return json.loads(b"".join(response.streaming_content)), len(queries)


def test_the_clubs_downloads_are_its_own_at_the_same_cost(gulf, gulf_organiser, django_user_model):
    home = known.home()
    night()
    _gulf_night(gulf)
    ours = django_user_model.objects.create_user(username="home-organiser", password="pw")
    home.organisers.add(ours)
    at_home = Client()
    at_home.force_login(ours)
    theirs, gulf_queries = _download(gulf_organiser, reverse_in(gulf, "archive:games_json"))
    mine, home_queries = _download(at_home, reverse_in(home, "archive:games_json"))
    assert [game["label"] for game in theirs["games"]] == ["Friday table 1"]
    assert theirs["club"] == _club_object(gulf) and mine["club"] == _club_object(home)
    assert sorted(game["label"] for game in mine["games"]) == ["Friday table 1", "Friday table 2"]
    assert gulf_queries == home_queries
    roster, gulf_queries = _download(gulf_organiser, reverse_in(gulf, "archive:roster_json"))
    assert [listed["name"] for listed in roster["players"]] == GULF
    _roster, home_queries = _download(at_home, reverse_in(home, "archive:roster_json"))
    assert gulf_queries == home_queries
    # Gulf's organiser downloads nothing of the home club's.
    refused = gulf_organiser.get(reverse_in(home, "archive:games_json"))
    assert refused.status_code == 403 and "fiftysix-results" not in refused.content.decode()


def test_an_imports_progress_is_read_at_its_clubs_address_only(gulf, gulf_organiser):
    organiser = gulf.organisers.get()
    known.home().organisers.add(organiser)  # who organises both clubs
    run = uuid.uuid4().hex
    told = progress.reporter(organiser, run, "import", club=gulf)
    told("check", 1, 10)
    at_gulf = gulf_organiser.get(reverse_in(gulf, "archive:import_progress"), {"run": run})
    assert at_gulf.json() == {"percent": 3, "words": "Checking the games: 1 of 10"}
    at_home = gulf_organiser.get(reverse_in(known.home(), "archive:import_progress"), {"run": run})
    assert at_home.json() == {"percent": None, "words": ""}


def test_the_fingerprint_is_the_clubs(gulf):
    text = _night_file()
    assert views._fingerprint(_upload(text), club=gulf) != views._fingerprint(
        _upload(text), club=known.home()
    )
