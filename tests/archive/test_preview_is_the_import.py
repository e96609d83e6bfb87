"""The preview is the import: what Publish results would refuse, its preview refuses first,
in the same words, and what the preview offers to import is what the import stores.

Every file of the hostile corpus (tests/archive/test_hostile_files.py, and the club of
hostile names of tests/hostile/test_escaping.py) and every clash with what the site
holds already (a team name other players have here, players of the file's names here
under other identifiers, a tournament or a game here already, a tournament's game
under a label here) is sent through both pages of the web import, the preview and
then the import of that very file, with the organiser's word on its clashes of
players: both must say yes, or both no with the same refusal, and a refused import
leaves the club exactly as it was. A clash not decided yet: the preview asks about
it and offers nothing to import, and the import refuses, naming it.
"""

from __future__ import annotations

import copy
import json
import re
import uuid
from dataclasses import dataclass

import pytest
from django.contrib.messages import get_messages
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from club.archive import views
from club.archive.export import export_json
from club.archive.format import FORMAT
from club.archive.load import import_results
from club.archive.publish import parse_choices
from club.clubs import known
from club.games import services
from club.games.models import GameTeam, Player, PlayerAlias, Team
from club.games.services import TeamEntry, create_game
from club.leaderboards import services as register
from club.tournaments.models import TournamentTeam
from tests.archive.test_hostile_files import (
    BAD_UTF8,
    JSON_VALUES,
    WRONG_SHAPES,
    _paths,
    _replace,
)
from tests.archive.test_tournament_archive import NAME, build, export, wipe
from tests.factories import deal, start_game
from tests.hostile.conftest import fresh_state, snapshot
from tests.hostile.test_escaping import hostile_club  # noqa: F401 - a fixture used below

pytestmark = pytest.mark.django_db

PREVIEW = reverse("archive:import")
STORE = reverse("archive:import_store")
IMPORTED = re.compile(r"Imported (\d+) games? with (\d+) deals? from ")
KEPT = re.compile(r"(\d+) games? of the file (?:is|are) here already")
FEW = settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@dataclass(frozen=True)
class Verdict:
    """What a page said of a file: the refusal, or what is (or would be) imported."""

    refused: str = ""
    games: int = 0
    deals: int = 0
    kept: int = 0
    decide: tuple[str, ...] = ()  # the clashes of players the preview asks about, by name


def _upload(data: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile("night.json", data, content_type="application/json")


def _refusal(response, ending: str) -> str:
    context = response.context
    form = context["form"]
    if form.errors:
        return " ".join(str(error) for errors in form.errors.values() for error in errors)
    problem = context["problem"]
    assert problem.endswith(ending), problem
    return problem.removesuffix(ending)


def preview_verdict(client, data: bytes, said: dict[str, str]) -> Verdict:
    before = snapshot()
    response = client.post(PREVIEW, {"file": _upload(data), **said})
    assert response.status_code == 200
    assert snapshot() == before, "a preview wrote to the club"
    preview = response.context["preview"]
    if preview is None:
        return Verdict(refused=_refusal(response, " This file cannot be imported."))
    offered = 'name="previewed"' in response.content.decode()
    assert offered == preview.adds_anything
    if preview.decide:
        assert not offered
        return Verdict(decide=tuple(sorted(line.name for line in preview.clashes)))
    return Verdict(games=preview.games, deals=preview.deals, kept=preview.kept)


def import_verdict(client, data: bytes, said: dict[str, str]) -> Verdict:
    """The file imported as the preview's button sends it (its own fingerprint, with the
    organiser's word on its clashes), whatever the preview said."""
    before = snapshot()
    response = client.post(
        STORE,
        {
            "file": _upload(data),
            **said,
            "previewed": views._fingerprint(_upload(data), parse_choices(said), club=known.home()),
            "idempotency_key": str(uuid.uuid4()),
        },
    )
    if response.status_code == 200:
        assert snapshot() == before, "a refused import wrote to the club"
        return Verdict(refused=_refusal(response, " Nothing was imported."))
    assert response.status_code == 302, response.status_code
    said = [str(message) for message in get_messages(response.wsgi_request)]
    imported = IMPORTED.search(said[0])
    kept = next((KEPT.search(line) for line in said if KEPT.search(line)), None)
    return Verdict(
        games=int(imported.group(1)),
        deals=int(imported.group(2)),
        kept=int(kept.group(1)) if kept else 0,
    )


def _same_people(data: bytes, names) -> dict[str, str]:
    """The preview's fields saying each of ``names`` of the file's players list is this
    site's person of that name."""
    if not names:
        return {}
    listed = {player["name"]: player["id"] for player in json.loads(data)["players"]}
    return {f"who-{listed[name]}": "same" for name in names}


def same_verdict(client, text: str | bytes, *, same=()) -> Verdict:
    """Preview then import ``text``, the players of the file named in ``same`` said to be
    this site's of their names; both must say the same. With a clash undecided, the
    preview asks about it and the import refuses, naming it."""
    data = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    said = _same_people(data, same)
    previewed = preview_verdict(client, data, said)
    imported = import_verdict(client, data, said)
    if previewed.decide:
        assert "not known here by identifier" in imported.refused, imported
        assert all(name in imported.refused for name in previewed.decide), imported
        return Verdict(refused=imported.refused, decide=previewed.decide)
    assert imported == previewed
    return imported


# --- What the site holds already --------------------------------------------------------


def night() -> str:
    """A night of two games, as the venue's laptop exports it; the club is then emptied."""
    one = start_game(2, label="Friday table 1")
    services.record_deal(game=one, number=1, entry=deal(one, {0: 30, 1: 26}, "Anu", 28, "clubs"))
    two = start_game(2, label="Friday table 2", first_dealer=1)
    services.record_deal(game=two, number=1, entry=deal(two, {0: 40, 1: 16}, "Biju", 32, "spades"))
    text = export_json()
    wipe()
    return text


def _team_here(name: str, first: str, second: str) -> None:
    create_game(
        label=f"Earlier: {name}", teams=[TeamEntry(first, second, name), TeamEntry("Oz", "Pi")]
    )


def _named(name: str) -> list[list[str]]:
    """The players of each team of that name, oldest team first."""
    teams = Team.objects.filter(name=name).order_by("pk")
    return [[player.name for player in team.players] for team in teams]


def test_a_team_name_whose_players_here_differ_is_a_team_of_its_own_in_both(organiser_client):
    text = night()
    _team_here("Anu & Biju", "Xavi", "Yamuna")

    assert same_verdict(organiser_client, text) == Verdict(games=2, deals=2)
    assert _named("Anu & Biju") == [["Xavi", "Yamuna"], ["Anu", "Biju"]]
    ours = Team.objects.get(name="Anu & Biju", first_player__name="Anu")
    assert GameTeam.objects.filter(game__label__startswith="Friday", team=ours).count() == 2


def test_a_tournament_team_whose_name_is_here_with_other_players_is_imported(organiser_client):
    build(final=True)
    text = export("--tournament", NAME)
    wipe()
    _team_here("Chitra & Dev", "Xavi", "Yamuna")

    assert same_verdict(organiser_client, text) == Verdict(games=3, deals=5)
    assert _named("Chitra & Dev") == [["Xavi", "Yamuna"], ["Chitra", "Dev"]]
    registered = TournamentTeam.objects.get(tournament__name=NAME, team__name="Chitra & Dev")
    assert [p.name for p in registered.team.players] == ["Chitra", "Dev"]


def _exported(label: str, *teams: TeamEntry) -> dict:
    """The game as an export writes it, one deal played; the club is then emptied."""
    game = create_game(label=label, teams=list(teams), first_dealer=0)
    services.record_deal(game=game, number=1, entry=deal(game, {0: 30, 1: 26}, teams[0].first, 28))
    [written] = json.loads(export_json())["games"]
    wipe()
    return written


def test_a_team_the_file_names_again_with_other_players_is_another_team(organiser_client):
    one = _exported("Friday table 1", TeamEntry("Anu", "Biju", "Stars"), TeamEntry("Oz", "Pi"))
    two = _exported("Friday table 2", TeamEntry("Chitra", "Dev", "Stars"), TeamEntry("Oz", "Pi"))
    text = json.dumps({"format": FORMAT, "games": [one, two]}, ensure_ascii=False)

    assert same_verdict(organiser_client, text) == Verdict(games=2, deals=2)
    assert _named("Stars") == [["Anu", "Biju"], ["Chitra", "Dev"]]


def test_a_team_seating_a_substitute_here_is_imported(organiser_client):
    text = night()
    _team_here("Anu & Biju", "Anu", "Zubin")  # one of its players: the other sat in

    # This site's Anu is not the file's by identifier (the file's club was emptied): the
    # organiser says first that it is the same person.
    assert same_verdict(organiser_client, text).decide == ("Anu",)
    assert same_verdict(organiser_client, text, same=["Anu"]) == Verdict(games=2, deals=2)
    assert _named("Anu & Biju") == [["Anu", "Zubin"]]
    seated = GameTeam.objects.filter(game__label__startswith="Friday", team__name="Anu & Biju")
    assert sorted(seated.values_list("first_player__name", "second_player__name")) == [
        ("Anu", "Biju"),
        ("Anu", "Biju"),
    ]


def test_players_here_under_other_capitals_are_the_files_players(organiser_client):
    text = night()
    register.register_player(name="ANU", member_number="56-001")
    register.register_player(name="chitra", member_number="56-002")

    # Known here by their names only, not by the file's identifiers: asked about first.
    assert same_verdict(organiser_client, text).decide == ("Anu", "Chitra")
    said_same = ["Anu", "Chitra"]
    assert same_verdict(organiser_client, text, same=said_same) == Verdict(games=2, deals=2)
    assert Player.objects.filter(name__iexact="anu").count() == 1
    assert Player.objects.get(member_number="56-001").name == "ANU"
    # The file's identifiers are theirs now too: the next file with them finds them unasked.
    listed = {player["name"]: player["id"] for player in json.loads(text)["players"]}
    aliases = PlayerAlias.objects.values_list("identifier", "player__name")
    assert sorted((str(id_), name) for id_, name in aliases) == sorted(
        [(listed["Anu"], "ANU"), (listed["Chitra"], "chitra")]
    )


def test_a_tournament_here_already_is_refused_by_both(organiser_client):
    build(final=True)
    text = export("--tournament", NAME)

    verdict = same_verdict(organiser_client, text)
    assert f"there is already a tournament called “{NAME}”" in verdict.refused


def test_a_tournament_whose_game_label_is_here_is_refused_by_both(organiser_client):
    build(final=True)
    text = export("--tournament", NAME)
    label = json.loads(text)["games"][0]["label"]
    wipe()
    start_game(2, label=label)

    verdict = same_verdict(organiser_client, text)
    assert "already has a game with this label" in verdict.refused


def test_a_game_here_with_other_deals_is_refused_by_both(organiser_client):
    text = night()
    game = start_game(2, label="Friday table 1")
    services.record_deal(game=game, number=1, entry=deal(game, {0: 20, 1: 36}, "Chitra", 30))

    verdict = same_verdict(organiser_client, text)
    assert "already has a game with this label" in verdict.refused
    assert game.rounds.count() == 1


def test_games_here_already_as_the_file_has_them_are_kept_by_both(organiser_client):
    text = night()
    import_results(text)

    assert same_verdict(organiser_client, text) == Verdict(kept=2)


def test_standings_that_the_games_do_not_give_are_refused_by_both(organiser_client):
    build(final=True)
    document = json.loads(export("--tournament", NAME))
    wipe()
    document["tournament"]["standings"][0]["points"] = "5"

    verdict = same_verdict(organiser_client, json.dumps(document, ensure_ascii=False))
    assert "standings[1].points" in verdict.refused


def test_a_tournament_imports_on_a_site_with_games_and_players(organiser_client):
    build(final=True)
    text = export("--tournament", NAME)
    wipe()
    start_game(4, label="Another night")  # the tournament's players, in their usual teams
    register.register_player(name="INDU")

    # They are here under other identifiers than the file's: the organiser says who they are.
    here = ("Anu", "Biju", "Chitra", "Dev", "Esha", "Farid", "Gita", "Hari", "Indu")
    assert same_verdict(organiser_client, text).decide == here
    assert same_verdict(organiser_client, text, same=here) == Verdict(games=3, deals=5)
    usual = GameTeam.objects.get(game__label="Another night", position=0).team
    registered = TournamentTeam.objects.get(tournament__name=NAME, team__first_player__name="Anu")
    assert registered.team == usual


# --- The hostile corpus ------------------------------------------------------------------


@pytest.fixture
def valid_text():
    """A real export of a three-team game, the club emptied after it."""
    game = start_game(3, label="Export me")
    services.record_deal(game=game, number=1, entry=deal(game, {0: 30, 1: 20, 2: 6}, "Anu", 28))
    services.record_deal(game=game, number=2, entry=deal(game, {0: 10, 1: 40, 2: 6}, "Chitra", 40))
    text = export_json()
    wipe()
    return text


@pytest.mark.parametrize("text", WRONG_SHAPES)
def test_every_wrong_shape(organiser_client, text):
    assert same_verdict(organiser_client, text).refused


@pytest.mark.parametrize("data", BAD_UTF8)
def test_every_file_that_is_not_utf8(organiser_client, data):
    assert same_verdict(organiser_client, data).refused


@pytest.mark.parametrize("bracket", ["[]", "{}"])
def test_deeply_nested_json(organiser_client, bracket):
    opening, closing = bracket
    inner = '{"a":' * 10_000 + "1" + "}" * 10_000 if opening == "{" else "[" * 10_000 + "]" * 10_000
    text = f'{{"format": "fiftysix-results/1", "games": [{inner}]}}'
    assert same_verdict(organiser_client, text).refused


def test_the_valid_export_cut_anywhere(organiser_client, valid_text):
    text = valid_text.rstrip()
    for cut in range(0, len(text), max(1, len(text) // 25)):
        with fresh_state():
            assert same_verdict(organiser_client, text[:cut]).refused


def test_the_valid_export_whole_and_again(organiser_client, valid_text):
    assert same_verdict(organiser_client, valid_text) == Verdict(games=1, deals=2)
    assert same_verdict(organiser_client, valid_text) == Verdict(kept=1)


@given(data=st.data())
@FEW
def test_the_valid_export_with_one_value_made_hostile(organiser_client, valid_text, data):
    document = json.loads(valid_text)
    path = data.draw(st.sampled_from(list(_paths(document))))
    mutated = _replace(copy.deepcopy(document), path, data.draw(JSON_VALUES))
    with fresh_state():
        same_verdict(organiser_client, json.dumps(mutated))


@given(content=st.binary(max_size=300))
@FEW
def test_random_bytes(organiser_client, content):
    with fresh_state():
        same_verdict(organiser_client, content)


@pytest.mark.usefixtures("hostile_club")
def test_the_club_of_hostile_names_into_itself_and_into_an_empty_club(organiser_client):
    text = export_json()
    with fresh_state():
        assert same_verdict(organiser_client, text).kept == 5
    wipe()
    assert same_verdict(organiser_client, text).games == 5
