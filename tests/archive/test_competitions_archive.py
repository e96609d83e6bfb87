"""The club's competitions in the archive (``fiftysix-results/1``, its optional
``competitions``): written by the club's export only when it has some, so a club without
any exports the very bytes it always did; read back into the club through the
competitions' service, with its refusals, naming the competition and the field; never
their tables, which are made from the games at each reading.

The club is the demo's: its two tournaments (the Kerala Piravi Cup 2025, finished and
final; the Thursday League of January 2026, running) and four club games.
"""

from __future__ import annotations

import copy
import datetime as dt
import hashlib
import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import transaction

from club.archive.export import export_document, export_json
from club.archive.format import ArchiveError
from club.archive.load import import_results, summary_lines
from club.archive.publish import preview_text
from club.archive.reading import TextInMemory
from club.archive.tournament_export import export_tournament_json
from club.clubs import known
from club.clubs.models import Club
from club.competitions.models import Competition
from club.competitions.services import (
    CompetitionError,
    Terms,
    delete_competition,
    save_competition,
)
from club.competitions.table import competition_table
from club.games.models import Game, Player, Team
from club.scoring import seasons
from club.tournaments.models import Tournament

pytestmark = pytest.mark.django_db

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
CUP = ("Kerala Piravi Cup 2025", "2025-11-01")
LEAGUE = ("Thursday League, January 2026", "2026-01-08")
# The demo club's exports as the code before competitions wrote them (commit 0f2cffd), to
# the byte: its games (fixtures/demo_tournaments.json imported, then fixtures/demo.json),
# and the Kerala Piravi Cup's own document.
CLUB_EXPORT_SHA256 = "8fa4aa00aebbc5f5fe79eba6fbbc0e8a0bd77a17e711ff962059c7506b95e820"
CUP_EXPORT_SHA256 = "47f6beb5b7fa09bf97c43f72f20e43243636216f80e200e8562570889a134004"


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def demo_club() -> None:
    """The demo's club: its tournaments first, then its games (ids in that order)."""
    import_results(fixture("demo_tournaments.json"))
    import_results(fixture("demo.json"))


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cup() -> Tournament:
    return Tournament.objects.get(name=CUP[0])


def terms(**changes) -> Terms:
    made = Terms(
        name="Winter league",
        starts_on=dt.date(2025, 10, 1),
        ends_on=dt.date(2026, 3, 31),
        counts=Competition.Counts.EVENTS,
        ranks=Competition.Ranks.TEAMS,
        method=seasons.PLACES,
        place_points=(10, 6, 4, 2),
        best=1,
        minimum=1,
    )
    return Terms(**{**made.__dict__, **changes})


def the_seasons() -> list[Competition]:
    """Three competitions of the demo club, one of each kind of counting."""
    club = known.home()
    both = list(Tournament.objects.order_by("starts_on"))
    return [
        save_competition(club=club, terms=terms(), events=both),
        save_competition(
            club=club,
            terms=terms(
                name="Season 2025-26",
                counts=Competition.Counts.ALL,
                ranks=Competition.Ranks.PLAYERS,
                method=seasons.MATCH_POINTS,
                place_points=(),
                best=None,
                minimum=0,
            ),
        ),
        save_competition(
            club=club,
            terms=terms(
                name="Tables nights",
                counts=Competition.Counts.FORM,
                form="tables",
                final_within_days=3,
                late_counts=True,
                starts_on=dt.date(2025, 11, 1),
            ),
        ),
    ]


def table_of(competition: Competition) -> dict:
    """The competition's table in names and figures (ids change with a round trip)."""
    table = competition_table(competition)
    night_name = {
        night.key: night.tournament.name if night.tournament else night.day.isoformat()
        for night in table.nights
    }
    return {
        "nights": [(night_name[n.key], n.day, n.state) for n in table.nights],
        "lines": [
            (
                line.place,
                line.shared,
                table.names[line.line],
                line.total,
                [night_name[key] for key in line.counted],
                [night_name[key] for key in line.dropped],
            )
            for line in table.lines
        ],
    }


def rule_of(competition: Competition) -> tuple:
    return (
        Terms.of(competition),
        sorted(competition.events.values_list("name", "starts_on")),
    )


def wipe() -> None:
    """An empty club again (its files are kept in strings)."""
    Competition.objects.all().delete()
    Tournament.objects.all().delete()
    Game.objects.all().delete()
    Team.objects.all().delete()
    Player.objects.all().delete()


def counts() -> dict[str, int]:
    models = (Competition, Competition.events.through, Tournament, Game, Player, Team)
    return {model.__name__: model.objects.count() for model in models}


def with_competitions(document: dict, *competitions: dict) -> str:
    document = copy.deepcopy(document)
    document["competitions"] = list(competitions)
    return json.dumps(document, ensure_ascii=False)


def a_club_file(*competitions: dict) -> str:
    """The demo club's four games, and the competitions given."""
    return with_competitions(json.loads(fixture("demo.json")), *competitions)


def winter(**changes) -> dict:
    """A competition as the file writes it: the Winter league over the Piravi Cup."""
    competition = {
        "name": "Winter league",
        "starts_on": "2025-10-01",
        "ends_on": "2026-03-31",
        "counts": "events",
        "events": [{"name": CUP[0], "starts_on": CUP[1]}],
        "ranks": "teams",
        "method": "places",
        "place_points": [10, 6, 4, 2],
        "best": 1,
        "minimum": 1,
        "final_within_days": None,
        "late_counts": False,
    }
    competition.update(changes)
    return {key: value for key, value in competition.items() if value is not ...}


def refused(text: str) -> str:
    """Import ``text`` into the demo club, expect a refusal, and check nothing was saved."""
    before = counts()
    with pytest.raises(ArchiveError) as info:
        import_results(text)
    assert counts() == before
    return info.value.message


# --- the export ---------------------------------------------------------------------------


def test_a_club_without_competitions_exports_the_bytes_it_always_did():
    demo_club()
    assert sha256(export_json()) == CLUB_EXPORT_SHA256
    assert sha256(export_tournament_json([cup()])) == CUP_EXPORT_SHA256

    # A competition is in the club's export, never in a tournament's own.
    [competition, *_others] = the_seasons()
    assert "competitions" in export_document()
    assert sha256(export_tournament_json([cup()])) == CUP_EXPORT_SHA256
    # A circuit of the federation is no club's: the club's export leaves it out.
    for one in Competition.objects.filter(club=known.home()):
        delete_competition(one)
    save_competition(club=None, terms=terms(name="Federation circuit"), events=[cup()])
    assert sha256(export_json()) == CLUB_EXPORT_SHA256


def test_the_export_writes_each_competitions_rule_and_what_it_counts_never_its_table():
    demo_club()
    the_seasons()
    document = export_document()
    assert list(document) == ["format", "club", "players", "competitions", "games"]
    assert document["competitions"] == [
        {
            "name": "Winter league",
            "starts_on": "2025-10-01",
            "ends_on": "2026-03-31",
            "counts": "events",
            "events": [
                {"name": CUP[0], "starts_on": CUP[1]},
                {"name": LEAGUE[0], "starts_on": LEAGUE[1]},
            ],
            "ranks": "teams",
            "method": "places",
            "place_points": [10, 6, 4, 2],
            "best": 1,
            "minimum": 1,
            "final_within_days": None,
            "late_counts": False,
        },
        {
            "name": "Season 2025-26",
            "starts_on": "2025-10-01",
            "ends_on": "2026-03-31",
            "counts": "all",
            "ranks": "players",
            "method": "match_points",
            "place_points": [],
            "best": None,
            "minimum": 0,
            "final_within_days": None,
            "late_counts": False,
        },
        {
            "name": "Tables nights",
            "starts_on": "2025-11-01",
            "ends_on": "2026-03-31",
            "counts": "form",
            "form": "tables",
            "ranks": "teams",
            "method": "places",
            "place_points": [10, 6, 4, 2],
            "best": 1,
            "minimum": 1,
            "final_within_days": 3,
            "late_counts": True,
        },
    ]


# --- the round trip -----------------------------------------------------------------------


def test_export_wipe_import_gives_the_same_competitions_the_same_tables_and_the_same_file():
    """The club's whole history: its tournaments' files, then its games' file (whose
    tournament games are here by then, and left so), then the same competitions with the
    same tables, and the same export to the byte."""
    demo_club()
    competitions = the_seasons()
    rules = [rule_of(competition) for competition in competitions]
    tables = [table_of(competition) for competition in competitions]
    assert tables[0]["lines"] and tables[1]["lines"] and tables[2]["nights"]
    club_file = export_json()
    tournaments_file = export_tournament_json(list(Tournament.objects.order_by("pk")))

    wipe()
    import_results(tournaments_file)
    summary = import_results(club_file)

    assert summary.competitions.added == ("Winter league", "Season 2025-26", "Tables nights")
    assert summary.kept == 18 and summary.games == 4  # the tournaments' games, here already
    again = list(Competition.objects.order_by("pk"))
    assert [rule_of(competition) for competition in again] == rules
    assert [table_of(competition) for competition in again] == tables
    assert export_json() == club_file


def test_a_competition_may_count_a_tournament_the_same_file_brings():
    cup_document = json.loads(fixture("demo_tournaments.json"))[0]
    club_document = json.loads(a_club_file(winter()))
    import_results(json.dumps([cup_document, club_document], ensure_ascii=False))
    [competition] = Competition.objects.all()
    assert [event.name for event in competition.events.all()] == [CUP[0]]
    assert competition.club == known.home()
    assert table_of(competition)["lines"]


def test_the_same_competitions_published_again_change_nothing_and_a_changed_one_is_updated():
    demo_club()
    text = a_club_file(winter())
    assert import_results(text).competitions.added == ("Winter league",)
    competition = Competition.objects.get()
    changed_at = competition.updated_at

    again = import_results(text)
    assert again.competitions.same == ("Winter league",) and again.competitions.saved == 0
    competition.refresh_from_db()
    assert competition.updated_at == changed_at
    assert summary_lines(again, "night.json")[-1] == (
        "The competition “Winter league” is here already, as the file has it."
    )

    # The file's word on a competition of the same name (capitals aside) is the club's.
    later = a_club_file(
        winter(
            name="WINTER LEAGUE",
            events=[{"name": LEAGUE[0], "starts_on": LEAGUE[1]}],
            place_points=[5, 3],
            best=None,
        )
    )
    summary = import_results(later)
    assert summary.competitions.changed == ("WINTER LEAGUE",)
    assert summary_lines(summary, "night.json")[-1] == (
        "The competition “WINTER LEAGUE” now has the file's rule and tournaments."
    )
    competition = Competition.objects.get()
    assert (competition.name, competition.place_points, competition.best) == (
        "WINTER LEAGUE",
        [5, 3],
        None,
    )
    assert [event.name for event in competition.events.all()] == [LEAGUE[0]]
    # The club's competitions the file does not name are left as they are.
    save_competition(club=known.home(), terms=terms(name="Spring league"), events=[cup()])
    import_results(a_club_file())
    assert Competition.objects.count() == 2


def test_competitions_go_into_the_club_the_file_is_imported_into():
    demo_club()
    the_seasons()
    gulf = Club.objects.create(name="Gulf 56", slug="gulf")
    text = export_json().replace('"slug": "club"', '"slug": "gulf"')
    # The Gulf club has no such tournaments: the file names them, and is refused whole.
    with pytest.raises(ArchiveError) as info:
        import_results(text, club=gulf)
    assert info.value.message == (
        "Competition “Winter league”, events[1]: there is no tournament "
        "“Kerala Piravi Cup 2025” starting on 2025-11-01 in this club."
    )
    assert not Game.objects.filter(club=gulf).exists()
    document = json.loads(text)
    document["competitions"] = document["competitions"][1:]  # those of the club's own games
    import_results(json.dumps(document), club=gulf)
    assert sorted(gulf.competitions.values_list("name", flat=True)) == [
        "Season 2025-26",
        "Tables nights",
    ]
    assert Competition.objects.filter(club=known.home()).count() == 3


# --- refusals: the competition and the field named, nothing saved -------------------------


@pytest.mark.parametrize(
    ("competition", "message"),
    [
        (
            winter(ends_on="2025-09-30"),
            "Competition “Winter league”, ends_on: the last day cannot be before the first day.",
        ),
        (
            winter(starts_on="1 October"),
            'Competition “Winter league”, starts_on: "1 October" is not a date; write it as '
            "YYYY-MM-DD.",
        ),
        (
            winter(colour="blue"),
            "Competition “Winter league”, colour: this is not a field of a competition (the "
            "fields are name, starts_on, ends_on, counts, form, events, ranks, method, "
            "place_points, best, minimum, final_within_days, late_counts).",
        ),
        (
            winter(name=" "),
            "competitions[1].name: the name cannot be empty.",
        ),
        (
            winter(counts="some"),
            "Competition “Winter league”, counts: counts must be one of all, form, events, not "
            '"some".',
        ),
        (
            winter(counts="form", events=...),
            "Competition “Winter league”, form: the competition needs its “form”.",
        ),
        (
            winter(counts="form", events=..., form="bridge"),
            "Competition “Winter league”, form: form must be one of tables, points, kodi, not "
            '"bridge".',
        ),
        (
            winter(counts="all", events=..., form="tables"),
            "Competition “Winter league”, form: a form of play is given only when “counts” is "
            "“form”.",
        ),
        (
            winter(counts="all"),
            "Competition “Winter league”, events: tournaments are given only when “counts” is "
            "“events”.",
        ),
        (
            winter(events=[]),
            "Competition “Winter league”, events: choose at least one tournament to count.",
        ),
        (
            winter(events=[{"name": CUP[0], "starts_on": CUP[1]}] * 2),
            "Competition “Winter league”, events[2]: “Kerala Piravi Cup 2025” of 2025-11-01 is "
            "listed twice.",
        ),
        (
            winter(events=[{"name": CUP[0]}]),
            "Competition “Winter league”, events[1].starts_on: null is not a date; write it as "
            "YYYY-MM-DD.",
        ),
        (
            winter(ranks="pairs"),
            'Competition “Winter league”, ranks: ranks must be one of teams, players, not "pairs".',
        ),
        (
            winter(method=...),
            "Competition “Winter league”, method: the competition needs its “method”.",
        ),
        (
            winter(place_points=[4, 6]),
            "Competition “Winter league”, place_points: the points cannot rise from a place to "
            "the next.",
        ),
        (
            winter(place_points=[10, 6.5]),
            "Competition “Winter league”, place_points: the points for each place must be a "
            "list of whole numbers, not [10, 6.5].",
        ),
        (
            winter(place_points=[]),
            "Competition “Winter league”, place_points: give the points for at least the first "
            "place.",
        ),
        (
            winter(best=0),
            "Competition “Winter league”, best: the nights counted must be a whole number from "
            "1 to 32767, not 0.",
        ),
        (
            winter(minimum=None),
            "Competition “Winter league”, minimum: the nights to be ranked must be a whole "
            "number from 0 to 32767, not null.",
        ),
        (
            winter(final_within_days=-1),
            "Competition “Winter league”, final_within_days: the days for results must be a "
            "whole number from 0 to 32767, not -1.",
        ),
        (
            winter(late_counts="yes"),
            "Competition “Winter league”, late_counts: late_counts must be true or false, not "
            '"yes".',
        ),
    ],
)
def test_a_competition_the_file_gets_wrong_is_refused_naming_it_and_its_field(competition, message):
    demo_club()
    assert refused(a_club_file(competition)) == message


@pytest.mark.parametrize(
    ("competitions", "message"),
    [
        (
            {"name": "Winter league"},
            '“competitions” must be a list of competitions, not {"name": "Winter league"}.',
        ),
        (
            [winter(), winter(name="winter LEAGUE")],
            "Competition “winter LEAGUE”: the file gives this competition twice.",
        ),
    ],
)
def test_a_list_of_competitions_the_file_gets_wrong_is_refused(competitions, message):
    demo_club()
    document = json.loads(fixture("demo.json"))
    document["competitions"] = competitions
    assert refused(json.dumps(document, ensure_ascii=False)) == message


def the_service_says(**changes) -> str:
    """What the competitions' service says of the Winter league so changed (undone)."""
    with pytest.raises(CompetitionError) as info, transaction.atomic():
        save_competition(club=known.home(), terms=terms(**changes), events=[cup()])
    message = info.value.message
    return message[0].lower() + message[1:]


def test_what_the_competitions_service_refuses_an_import_refuses_in_its_words():
    """Checked as the import stores them, after the file's games: those are undone too."""
    import_results(fixture("demo_tournaments.json"))  # the file's four games are new here
    late_start = the_service_says(starts_on=dt.date(2025, 11, 2))
    assert "“Kerala Piravi Cup 2025” starts on" in late_start
    assert refused(a_club_file(winter(starts_on="2025-11-02"))) == (
        f"Competition “Winter league”, events: {late_start}"
    )
    too_long = the_service_says(ends_on=dt.date(2029, 3, 31))
    assert refused(a_club_file(winter(ends_on="2029-03-31"))) == (
        f"Competition “Winter league”, ends_on: {too_long}"
    )
    assert refused(
        a_club_file(winter(events=[{"name": "Kerala Piravi Cup", "starts_on": CUP[1]}]))
    ) == (
        "Competition “Winter league”, events[1]: there is no tournament “Kerala Piravi Cup” "
        "starting on 2025-11-01 in this club."
    )
    assert not Game.objects.filter(label="Sunday big table").exists()


def test_the_command_line_says_what_it_did_with_the_competitions(tmp_path):
    demo_club()
    path = tmp_path / "night.json"
    path.write_text(a_club_file(winter()), encoding="utf-8")
    out = io.StringIO()
    call_command("import_results", str(path), stdout=out)
    assert "Added the competition “Winter league”." in out.getvalue()
    path.write_text(a_club_file(winter(best=-2)), encoding="utf-8")
    with pytest.raises(CommandError, match="Competition “Winter league”, best: "):
        call_command("import_results", str(path), stdout=out)


# --- the web import -----------------------------------------------------------------------


def test_the_preview_lists_the_competitions_and_saves_nothing():
    demo_club()
    the_seasons()
    text = export_json()
    Competition.objects.filter(name="Tables nights").delete()
    Competition.objects.filter(name="Season 2025-26").update(minimum=3)

    before = counts()
    preview = preview_text(TextInMemory(text))
    assert counts() == before
    assert preview.competitions.added == ("Tables nights",)
    assert preview.competitions.changed == ("Season 2025-26",)
    assert preview.competitions.same == ("Winter league",)
    assert preview.games == 0 and preview.adds_anything  # the competitions are something


def test_the_publish_page_shows_the_competitions_and_stores_them(organiser_client):
    from tests.archive.test_web_import import fingerprint, preview, store

    demo_club()
    text = a_club_file(winter())
    page = preview(organiser_client, text)
    body = page.content.decode()
    assert "“Winter league”: new, to be added" in body
    assert "Save the competitions" in body
    assert not Competition.objects.exists()

    answer = store(organiser_client, text, fingerprint(page))
    assert answer.status_code == 302
    listed = organiser_client.get(answer["Location"]).content.decode()
    assert "Added the competition “Winter league”." in listed
    assert Competition.objects.get().name == "Winter league"
