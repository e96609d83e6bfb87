"""Who is who: every player has an identifier that travels with their results, the archive
lists it (``players``), and an import finds people by it first, then by member number,
then by name; a name that is another person's here is a clash the organiser decides."""

from __future__ import annotations

import json
import uuid
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import transaction

from club.archive.export import export_json
from club.archive.format import FORMAT, ArchiveError
from club.archive.load import Undecided, import_results, import_text
from club.archive.publish import preview_text
from club.archive.reading import TextInMemory
from club.archive.register import roster_object
from club.archive.tournament_export import export_tournament_json
from club.clubs import known
from club.games.models import GameTeam, Player, PlayerAlias, Team
from club.games.services import TeamEntry, create_game, record_deal
from club.games.whos_who import Choice
from club.leaderboards.merge import merge_players
from club.leaderboards.services import register_player
from club.tournaments import services as tournaments
from club.tournaments.models import Tournament
from tests.factories import deal

pytestmark = pytest.mark.django_db

ANU = "0b5e8c1e-7f3a-4d2b-9c61-2f0e5a7d4b93"


def _night(label: str, pairs=(("Anu", "Biju"), ("Chitra", "Dev")), names=("", "")) -> None:
    game = create_game(
        label=label,
        teams=[TeamEntry(*pair, name) for pair, name in zip(pairs, names, strict=True)],
        first_dealer=0,
    )
    record_deal(game=game, number=1, entry=deal(game, {0: 30, 1: 26}, pairs[0][0], 28))


def _document(text: str | None = None) -> dict:
    return json.loads(text if text is not None else export_json())


def _file(players: list[dict], label: str = "Friday 1", pairs=(("Anu", "Biju"), ("Chitra", "Dev"))):
    return json.dumps(
        {
            "format": FORMAT,
            "players": players,
            "games": [
                {
                    "label": label,
                    "teams": [{"name": " & ".join(pair), "players": list(pair)} for pair in pairs],
                    "first_dealer": pairs[0][0],
                    "rounds": [
                        {
                            "declarer": pairs[0][0],
                            "bid": 28,
                            "trump": "hearts",
                            "points": {" & ".join(pairs[0]): 30, " & ".join(pairs[1]): 26},
                        }
                    ],
                }
            ],
        },
        ensure_ascii=False,
    )


def _listed(name: str, identifier: str | None = None, **more) -> dict:
    return {"name": name, "id": identifier or str(uuid.uuid4()), **more}


# --- Every player has an identifier, and the archive carries it -----------------------------


def test_every_player_gets_a_lasting_identifier_and_the_export_lists_them():
    _night("Tuesday")
    anu = Player.objects.get(name="Anu")
    assert isinstance(anu.identifier, uuid.UUID)
    assert Player.objects.values("identifier").distinct().count() == 4
    document = _document()
    assert list(document) == ["format", "club", "players", "games"]
    assert document["players"][0] == {"name": "Anu", "id": str(anu.identifier)}
    assert [p["name"] for p in document["players"]] == ["Anu", "Biju", "Chitra", "Dev"]
    register_player(name="Xavi", member_number="K-9")  # sat at no game: not in the file
    assert "Xavi" not in {p["name"] for p in _document()["players"]}


def test_an_older_file_without_players_imports_and_exports_again_with_them_added():
    older = {
        "format": FORMAT,
        "games": json.loads(_file([]))["games"],
    }
    import_results(json.dumps(older))
    again = _document()
    ids = {p.name: str(p.identifier) for p in Player.objects.all()}
    expected = {
        "format": FORMAT,
        "club": {"name": known.home().name, "slug": known.home().slug},
        "players": [{"name": n, "id": ids[n]} for n in ("Anu", "Biju", "Chitra", "Dev")],
        "games": again["games"],
    }
    assert again == expected
    # the games are as the file had them, the computed fields aside
    assert [t["players"] for t in again["games"][0]["teams"]] == [
        ["Anu", "Biju"],
        ["Chitra", "Dev"],
    ]


@pytest.mark.parametrize(
    ("players", "words"),
    [
        ("all", "“players” must be a list of players"),
        ([["Anu"]], "players[1]: player 1 of the list must be a JSON object"),
        ([{"name": "Anu"}], "player 1 of the list needs its “id”"),
        ([{"name": "Anu", "id": ANU, "club": 1}], "players[1].club"),
        ([{"name": "Anu", "id": ANU.upper()}], "the identifier of Anu"),
        ([{"name": "Anu", "id": ANU.replace("-", "")}], "is not an identifier"),
        ([{"name": "Anu", "id": 7}], "is not an identifier"),
        ([_listed("Anu"), _listed("ANU")], "players[2].name: ANU is listed twice"),
        (
            [_listed("Anu", ANU), _listed("Biju", ANU)],
            f"the identifier {ANU} is given to both Anu and Biju",
        ),
        ([{"name": "Anu", "id": ANU, "member_number": 12}], "the member number must be text"),
    ],
)
def test_a_malformed_players_list_is_refused_naming_it(players, words):
    with pytest.raises(ArchiveError) as refused:
        import_results(_file(players))
    assert words in refused.value.message
    assert not Player.objects.exists()


def test_one_name_with_two_identifiers_in_two_documents_is_refused():
    one = json.loads(_file([_listed("Anu", ANU)]))
    two = json.loads(_file([_listed("Anu")], label="Friday 2"))
    with pytest.raises(ArchiveError) as refused:
        import_results(json.dumps([one, two]))
    assert "Document 2 of the list" in refused.value.message
    assert "an earlier document of the file lists Anu" in refused.value.message


# --- Matching: by identifier, member number, name; clashes decided ---------------------------


def test_a_player_found_by_identifier_keeps_this_sites_name():
    thomas = register_player(name="Anu Thomas")
    import_results(_file([_listed("Anu", str(thomas.identifier))]))
    assert not Player.objects.filter(name="Anu").exists()
    seat = GameTeam.objects.get(game__label="Friday 1", position=0)
    assert seat.first_player == thomas
    assert _document()["games"][0]["teams"][0]["players"] == ["Anu Thomas", "Biju"]


def test_a_player_found_by_member_number_keeps_the_files_identifier_as_an_earlier_one():
    kurian = register_player(name="Jose Kurian", member_number="K-17")
    import_results(_file([_listed("Anu", ANU, member_number="K-17")]))
    assert GameTeam.objects.get(position=0).first_player == kurian
    assert PlayerAlias.objects.get(identifier=ANU).player == kurian
    # the next file with that identifier finds them by it
    import_results(_file([_listed("Anu", ANU)], label="Friday 2"))
    assert Player.objects.filter(name="Anu").count() == 0


def test_identifier_and_member_number_of_two_people_are_refused():
    anu = register_player(name="Anu")
    register_player(name="Biju", member_number="K-2")
    with pytest.raises(ArchiveError) as refused:
        import_results(_file([_listed("Anu", str(anu.identifier), member_number="K-2")]))
    assert "member number K-2 belongs to Biju here" in refused.value.message


def test_a_clash_is_never_merged_unasked():
    here = register_player(name="Anu")
    before = Player.objects.count()
    with pytest.raises(Undecided) as refused:
        import_results(_file([_listed("Anu", ANU)]))
    assert "Anu of the file is not known here by identifier" in refused.value.message
    assert Player.objects.count() == before
    assert not PlayerAlias.objects.exists()
    assert here.identifier != uuid.UUID(ANU)


def test_the_same_person_takes_the_files_identifier_as_an_earlier_one_of_theirs():
    here = register_player(name="Anu")
    import_text(TextInMemory(_file([_listed("Anu", ANU)])), choices={uuid.UUID(ANU): Choice(True)})
    assert GameTeam.objects.get(position=0).first_player == here
    assert PlayerAlias.objects.get(identifier=ANU).player == here
    # a later file with it finds Anu without asking
    import_results(_file([_listed("Anu", ANU)], label="Friday 2"))
    assert Player.objects.filter(name__startswith="Anu").count() == 1


def test_another_person_is_added_under_the_name_given():
    here = register_player(name="Anu")
    import_text(
        TextInMemory(_file([_listed("Anu", ANU)])),
        choices={uuid.UUID(ANU): Choice(False, "Anu  Varghese ")},
    )
    other = Player.objects.get(identifier=ANU)
    assert other.name == "Anu Varghese" and other != here
    assert GameTeam.objects.get(position=0).first_player == other
    assert _document()["games"][0]["teams"][0]["players"] == ["Anu Varghese", "Biju"]


@pytest.mark.parametrize(
    ("choice", "words"),
    [
        (Choice(False, "  "), "Give Anu of the file a name of their own"),
        (Choice(False, "biju"), "biju, the name given to Anu of the file, is taken"),
        (Choice(False, "x" * 81), "A name can be at most 80 characters"),
    ],
)
def test_another_persons_name_must_be_free(choice, words):
    register_player(name="Anu")
    register_player(name="Biju")
    with pytest.raises(ArchiveError) as refused:
        import_text(TextInMemory(_file([_listed("Anu", ANU)])), choices={uuid.UUID(ANU): choice})
    assert words in refused.value.message
    assert Player.objects.count() == 2


def test_two_players_of_the_file_who_are_one_person_here_are_refused():
    anu = register_player(name="Anu")
    PlayerAlias.objects.create(identifier=ANU, player=anu)  # a merged record's
    listed = [_listed("Anu", str(anu.identifier)), _listed("Biju", ANU)]
    with pytest.raises(ArchiveError) as refused:
        import_results(_file(listed))
    assert "Two players of the file, Anu and Biju, would both be Anu here" in refused.value.message
    assert Player.objects.count() == 1
    # the same when the organiser says a clash is someone another player of the file is
    register_player(name="Chitra")
    listed = [_listed("Anu", str(anu.identifier)), _listed("Chitra", str(uuid.uuid4()))]
    chitra = uuid.UUID(listed[1]["id"])
    import_text(TextInMemory(_file(listed, label="Friday 2")), choices={chitra: Choice(True)})
    assert Player.objects.count() == 4  # Anu, Chitra, and the file's Biju and Dev


def test_the_command_line_takes_the_same_choices(tmp_path):
    register_player(name="Anu")
    register_player(name="Chitra")
    path = tmp_path / "night.json"
    chitra = str(uuid.uuid4())
    path.write_text(_file([_listed("Anu", ANU), _listed("Chitra", chitra)]), encoding="utf-8")
    with pytest.raises(CommandError) as refused:
        call_command("import_results", str(path), stdout=StringIO())
    assert "--same-person NAME" in str(refused.value)
    assert "Anu and Chitra of the file are not known here" in str(refused.value)
    with pytest.raises(CommandError) as refused:
        call_command("import_results", str(path), "--same-person", "Dev", stdout=StringIO())
    assert "Dev is not a player listed in the file" in str(refused.value)
    out = StringIO()
    call_command(
        "import_results",
        str(path),
        "--same-person",
        "anu",
        "--another-person",
        "Chitra=Chitra Menon",
        stdout=out,
    )
    assert "Imported 1 game with 1 deal" in out.getvalue()
    assert PlayerAlias.objects.get(identifier=ANU).player.name == "Anu"
    assert Player.objects.get(identifier=chitra).name == "Chitra Menon"


def test_merging_keeps_the_folded_identifier_so_later_files_find_the_person():
    anu = register_player(name="Anu Thomas")
    folded = register_player(name="Anu")
    old = folded.identifier
    merge_players(keep=anu, fold=folded)
    assert PlayerAlias.objects.get(identifier=old).player == anu
    import_results(_file([_listed("Anu", str(old))]))
    assert GameTeam.objects.get(position=0).first_player == anu
    assert not Player.objects.filter(name="Anu").exists()


# --- A team is who plays in it ----------------------------------------------------------------


def test_two_teams_of_one_name_and_other_players_both_exist():
    _night("Tuesday", names=("Kottayam Kings", ""))
    import_results(
        _file([], pairs=(("Jose", "Thomas"), ("Esha", "Farid"))).replace(
            "Jose & Thomas", "Kottayam Kings"
        )
    )
    kings = Team.objects.filter(name="Kottayam Kings").order_by("pk")
    assert [sorted(p.name for p in team.players) for team in kings] == [
        ["Anu", "Biju"],
        ["Jose", "Thomas"],
    ]


def test_the_same_players_are_the_same_team_whatever_the_file_calls_them():
    _night("Tuesday", names=("Kottayam Kings", ""))
    import_results(_file([]).replace("Anu & Biju", "Anu and Biju"))
    assert Team.objects.filter(first_player__name="Anu").count() == 1
    assert GameTeam.objects.get(game__label="Friday 1", position=0).team.name == "Kottayam Kings"


def test_a_tournament_still_refuses_two_registered_teams_of_one_name():
    tournament = tournaments.create_tournament(name="Monsoon Cup", starts_on="2026-12-01")
    tournaments.register_team(tournament=tournament, first="Anu", second="Biju", name="Kings")
    with pytest.raises(tournaments.TournamentError) as refused:
        tournaments.register_team(tournament=tournament, first="Chitra", second="Dev", name="kings")
    assert "A team called Kings (Anu & Biju) is registered for this tournament already" in (
        refused.value.message
    )
    assert Tournament.objects.get().entries.count() == 1
    assert not Team.objects.filter(first_player__name="Chitra").exists()  # nothing left behind


# --- Site to venue to site ----------------------------------------------------------------------


def _wipe() -> None:
    Tournament.objects.all().delete()
    from club.games.models import Game

    Game.objects.all().delete()
    Team.objects.all().delete()
    Player.objects.all().delete()


def test_site_to_venue_to_site_keeps_everyone_who_they_are(client):
    """The site's players go to the laptop as the roster; a night is played there with a
    newcomer; published back, nobody is doubled, nobody clashes, and the site exports the
    night byte for byte as the laptop did."""
    _night("Site 1")
    register_player(name="Gita Nair", member_number="K-7")
    site_before = export_json()
    roster = json.dumps(roster_object(), ensure_ascii=False)
    players_before = Player.objects.count()
    with transaction.atomic():  # the venue's laptop: its own empty database
        _wipe()
        summary = import_results(roster)
        assert summary.players_added == players_before
        _night("Venue 1", pairs=(("Anu", "Gita Nair"), ("Chitra", "Newcomer")), names=("Kings", ""))
        venue_night = export_json()
        transaction.set_rollback(True)
    assert export_json() == site_before  # the site as it was
    preview = preview_text(TextInMemory(venue_night))
    assert not preview.decide and not preview.clashes
    states = {line.name: line.state for line in preview.players}
    assert states == {"Anu": "here", "Gita Nair": "here", "Chitra": "here", "Newcomer": "new"}
    summary = import_results(venue_night)
    assert summary.games == 1 and summary.players_added == 1
    assert Player.objects.count() == players_before + 1  # 0 duplicated
    gita = Player.objects.get(name="Gita Nair")
    assert (
        GameTeam.objects.filter(first_player=gita).count()
        + GameTeam.objects.filter(second_player=gita).count()
        == 1
    )
    site = _document()
    night = {**site, "games": [g for g in site["games"] if g["label"] == "Venue 1"]}
    night["players"] = [
        p for p in site["players"] if p["name"] in ("Anu", "Gita Nair", "Chitra", "Newcomer")
    ]
    assert json.dumps(night, ensure_ascii=False, indent=2) + "\n" == venue_night
    # every player's games on one page: Anu's profile holds the site's game and the night's
    profile = client.get(Player.objects.get(name="Anu").get_absolute_url())
    assert profile.status_code == 200
    assert "Site 1" in profile.content.decode() and "Venue 1" in profile.content.decode()


def test_the_international_trio_publishes_beside_the_pair_of_its_name_after_one_choice():
    """The night that could not be published: the site has a pair called Kottayam Kings
    (Jose Kurian & Thomas Chacko) and a player Anu; the laptop's 56 International trio of
    that name, with its own Anu, publishes once the one clash is decided."""
    from club.scoring.house_rules import Preset, preset_rules

    _night(
        "Site 1",
        pairs=(("Jose Kurian", "Thomas Chacko"), ("Anu", "Biju")),
        names=("Kottayam Kings", ""),
    )
    with transaction.atomic():  # the laptop, knowing nobody
        _wipe()
        game = create_game(
            label="International 1",
            teams=[
                TeamEntry("Anu", "Rahul", "Kottayam Kings", "Vinod"),
                TeamEntry("Meera", "Sara", "Chennai Chargers", "Tina"),
            ],
            first_dealer=0,
            rules=preset_rules(Preset.INTERNATIONAL),
        )
        record_deal(game=game, number=1, entry=deal(game, {0: 30, 1: 26}, "Anu", 28))
        night = export_json()
        transaction.set_rollback(True)
    preview = preview_text(TextInMemory(night))
    assert preview.decide and [line.name for line in preview.clashes] == ["Anu"]
    assert preview.clashes[0].suggested == "Anu (2)"
    anu = uuid.UUID(preview.clashes[0].identifier)
    choices = {anu: Choice(False, preview.clashes[0].suggested)}
    decided = preview_text(TextInMemory(night), choices=choices)
    assert not decided.decide and decided.adds_anything and decided.games == 1
    assert {line.name: line.new for line in decided.teams} == {
        "Kottayam Kings": True,
        "Chennai Chargers": True,
    }
    import_text(TextInMemory(night), choices=choices)
    kings = Team.objects.filter(name="Kottayam Kings")
    assert sorted(team.size for team in kings) == [2, 3]
    assert Player.objects.get(identifier=anu).name == "Anu (2)"
    assert Player.objects.filter(name="Anu").count() == 1


def test_the_venue_loads_the_roster_before_the_night(tmp_path, capsys):
    from club import venue

    register_player(name="Gita Nair", member_number="K-7")
    roster = tmp_path / "club-players.json"
    roster.write_text(json.dumps(roster_object()), encoding="utf-8")
    gita = Player.objects.get()
    with transaction.atomic():
        _wipe()
        venue.load_roster(str(roster))
        loaded = Player.objects.get()
        assert (loaded.name, loaded.identifier, loaded.member_number) == (
            "Gita Nair",
            gita.identifier,
            "K-7",
        )
        venue.load_roster(str(roster))  # again: nothing new
        assert Player.objects.count() == 1
        transaction.set_rollback(True)
    # another Gita here: no identifier nor member number in common
    Player.objects.filter(pk=gita.pk).update(identifier=uuid.uuid4(), member_number="")
    with pytest.raises(venue.VenueError) as refused:
        venue.load_roster(str(roster))
    assert refused.value.code == 2
    told = capsys.readouterr().err
    assert "Gita Nair of the file is not known here by identifier" in told
    assert "Publish results page" in told


def test_the_club_players_download_is_the_roster_and_costs_the_same_for_more_players(
    organiser_client, django_assert_num_queries
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    register_player(name="Gita Nair", member_number="K-7")

    def download():
        with CaptureQueriesContext(connection) as queries:
            response = organiser_client.get("/players/roster.json")
        assert response.status_code == 200
        assert "no-store" in response["Cache-Control"]  # names, member numbers
        return json.loads(b"".join(response.streaming_content)), len(queries)

    document, few = download()
    assert document == {
        "format": FORMAT,
        "club": {"name": known.home().name, "slug": known.home().slug},
        "players": [
            {
                "name": "Gita Nair",
                "id": str(Player.objects.get().identifier),
                "member_number": "K-7",
            }
        ],
        "games": [],
    }
    for number in range(40):
        register_player(name=f"Player {number:02d}")
    document, many = download()
    assert len(document["players"]) == 41
    assert many == few


# --- What a second night, a shared name or an odd file does --------------------------------


def _laptop(*nights: tuple[str, tuple, tuple], roster: str) -> str:
    """The laptop's whole export after these nights, from the club's roster, undone after."""
    with transaction.atomic():
        _wipe()
        import_results(roster)
        for label, pairs, names in nights:
            _night(label, pairs=pairs, names=names)
        text = export_json()
        transaction.set_rollback(True)
    return text


def test_the_laptops_next_file_publishes_though_the_site_names_the_team_and_player_otherwise():
    _night("Site 1", pairs=(("Anu", "Biju"), ("Chitra", "Dev")), names=("Kottayam Kings", ""))
    roster = json.dumps(roster_object())
    unnamed = ("", "")
    first = _laptop(("Venue 1", (("Anu", "Biju"), ("Chitra", "Dev")), unnamed), roster=roster)
    import_results(first)
    played = GameTeam.objects.get(game__label="Venue 1", position=0)
    assert played.team.name == "Kottayam Kings"  # the same players, the site's name
    from club.leaderboards.services import update_player

    update_player(player=Player.objects.get(name="Biju"), name="Biju Varghese")
    both = _laptop(
        ("Venue 1", (("Anu", "Biju"), ("Chitra", "Dev")), unnamed),
        ("Venue 2", (("Anu", "Dev"), ("Chitra", "Biju")), unnamed),
        roster=roster,
    )
    summary = import_results(both)
    assert (summary.games, summary.kept) == (1, 1)
    assert Player.objects.count() == 4


def test_two_teams_of_one_name_at_one_game_are_told_apart_and_the_game_exports_again():
    _night("Tuesday", pairs=(("Anu", "Biju"), ("Chitra", "Dev")), names=("Kings", ""))
    _night("Wednesday", pairs=(("Gita", "Hari"), ("Esha", "Farid")), names=("Kings", ""))
    game = create_game(
        label="Thursday",
        teams=[TeamEntry("Anu", "Biju"), TeamEntry("Gita", "Hari")],
        first_dealer=0,
    )
    assert [team.team.name for team in game.teams.order_by("position")] == [
        "Kings",
        "Gita & Hari",
    ]
    text = export_json()
    with transaction.atomic():
        _wipe()
        import_results(text)
        assert export_json() == text
        transaction.set_rollback(True)


def test_a_namesake_in_greek_is_a_clash_as_the_database_compares_names():
    register_player(name="Γιώργος")
    with pytest.raises(Undecided):
        import_results(_file([_listed("Γιώργος")], pairs=(("Γιώργος", "Biju"), ("Chitra", "Dev"))))
    assert Player.objects.count() == 1


def test_one_member_number_for_two_players_of_the_file_is_refused():
    listed = [_listed("Anu", member_number="K-1"), _listed("Biju", member_number="K-1")]
    with pytest.raises(ArchiveError) as refused:
        import_results(_file(listed))
    assert "member number K-1 is given to both Anu and Biju" in refused.value.message
    assert not Player.objects.exists()


def test_a_tournament_whose_captain_is_here_under_another_name_imports():
    from club.tournaments.models import TournamentTeam
    from tests.archive.test_tournament_archive import build

    tournament = build()
    document = json.loads(export_tournament_json([tournament]))
    _wipe()
    anu = register_player(name="Anu Thomas")
    team = document["tournament"]["teams"][0]
    first = team["players"][0]
    team["captain"] = first
    for listed in document["players"]:
        if listed["name"] == first:
            listed["id"] = str(anu.identifier)  # the file's first player is Anu Thomas here
    import_results(json.dumps(document))
    entry = TournamentTeam.objects.get(team__first_player=anu)
    assert entry.captain == anu
    assert not Player.objects.filter(name=first).exists()


def test_the_same_person_on_the_laptop_takes_the_clubs_identifier_so_the_night_publishes():
    register_player(name="Anu")
    club = Player.objects.get()
    roster = json.dumps(roster_object())
    with transaction.atomic():  # the laptop had its own Anu from a night without the roster
        _wipe()
        own = register_player(name="Anu")
        with pytest.raises(Undecided):
            import_results(roster)
        import_text(TextInMemory(roster), choices={club.identifier: Choice(True)})
        own.refresh_from_db()
        assert own.identifier == club.identifier
        assert PlayerAlias.objects.filter(player=own).count() == 1
        _night("Venue 1")
        night = export_json()
        transaction.set_rollback(True)
    preview = preview_text(TextInMemory(night))
    assert not preview.clashes
    import_results(night)
    assert Player.objects.filter(name="Anu").count() == 1


def test_a_choice_that_cannot_stand_asks_again_with_the_clashes():
    register_player(name="Anu")
    register_player(name="Biju")
    text = _file([_listed("Anu", ANU)])
    preview = preview_text(TextInMemory(text), choices={uuid.UUID(ANU): Choice(False, "biju")})
    assert preview.decide and not preview.adds_anything
    assert "biju, the name given to Anu of the file, is taken" in preview.refused
    assert preview.clashes[0].choice == Choice(False, "biju")
    nul = preview_text(TextInMemory(text), choices={uuid.UUID(ANU): Choice(False, "An\x00u")})
    assert nul.decide and nul.refused


def test_contradictory_choices_on_the_command_line_are_refused(tmp_path):
    register_player(name="Anu")
    path = tmp_path / "night.json"
    path.write_text(_file([_listed("Anu", ANU)]), encoding="utf-8")
    with pytest.raises(CommandError) as refused:
        call_command(
            "import_results",
            str(path),
            "--same-person",
            "Anu",
            "--another-person",
            "anu=Anu Varghese",
            stdout=StringIO(),
        )
    assert "anu is given two choices" in str(refused.value)
    with pytest.raises(CommandError) as refused:
        call_command("import_results", str(path), "--same-person", "Biju", stdout=StringIO())
    assert "Biju" in str(refused.value)
    assert Player.objects.count() == 1


def test_a_file_that_only_tells_who_is_who_is_still_worth_importing():
    kurian = register_player(name="Jose Kurian", member_number="K-17")
    roster = json.dumps(
        {
            "format": FORMAT,
            "players": [_listed("Jose", ANU, member_number="K-17")],
            "games": [],
        }
    )
    preview = preview_text(TextInMemory(roster))
    assert preview.adds_anything and preview.aliased == 1 and preview.players_new == 0
    import_results(roster)
    kurian.refresh_from_db()
    assert kurian.identifier == uuid.UUID(ANU)  # a roster: the club's identifier is theirs now
