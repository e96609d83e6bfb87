"""The club register: adding, editing, marking inactive and importing players."""

import re

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse
from django.utils.html import escape

from club.games.models import Player
from club.leaderboards.services.importing import (
    AT_MOST,
    COLUMN_TWICE,
    COLUMNS,
    FILE_EMPTY,
    NAME_MISSING,
    NAME_ON_EARLIER_ROW,
    NO_NAME_COLUMN,
    NO_PLAYERS,
    NOT_UTF8,
    NOT_YES_OR_NO,
    NUMBER_ON_EARLIER_ROW,
    TOO_MANY_CELLS,
    UNKNOWN_COLUMN,
    PlayerImportError,
    import_players,
)
from club.leaderboards.services.register import (
    ALREADY_THE_CLUBS,
    GIVE_A_NAME,
    MEMBER_NUMBER_TAKEN,
    NAME_TAKEN,
    RegisterError,
    register_player,
    update_player,
)

pytestmark = pytest.mark.django_db


def test_register_and_clashes():
    anu = register_player(name="  Anu   Menon ", nickname="Anu", member_number="M-1")
    assert (anu.name, anu.nickname, anu.member_number, anu.active) == (
        "Anu Menon",
        "Anu",
        "M-1",
        True,
    )
    with pytest.raises(RegisterError) as error:
        register_player(name="anu menon")  # one of the club's players already
    assert error.value.message == ALREADY_THE_CLUBS % {"name": "Anu Menon"}
    assert error.value.field == "name"
    with pytest.raises(RegisterError) as error:
        register_player(name="Biju", member_number="M-1")
    assert error.value.message == MEMBER_NUMBER_TAKEN % {"number": "M-1", "name": "Anu Menon"}
    with pytest.raises(RegisterError, match=re.escape(str(GIVE_A_NAME))):
        register_player(name="   ")
    assert Player.objects.count() == 1
    # Two players without a member number are fine.
    register_player(name="Biju")
    register_player(name="Chitra")


def test_update_keeps_own_name_and_refuses_others():
    anu = register_player(name="Anu", member_number="M-1")
    register_player(name="Biju", member_number="M-2")
    anu = update_player(player=anu, name="ANU", nickname="A", member_number="M-1", active=False)
    assert (anu.name, anu.nickname, anu.active) == ("ANU", "A", False)
    with pytest.raises(RegisterError, match=re.escape(NAME_TAKEN % {"name": "Biju"})):
        update_player(player=anu, name="biju")
    taken = MEMBER_NUMBER_TAKEN % {"number": "M-2", "name": "Biju"}
    with pytest.raises(RegisterError, match=re.escape(taken)):
        update_player(player=anu, name="Anu", member_number="M-2")
    anu.refresh_from_db()
    assert (anu.name, anu.member_number) == ("ANU", "M-1")


def test_organiser_adds_and_edits_through_the_pages(organiser_client):
    response = organiser_client.post(
        reverse("leaderboards:player_new"),
        {"name": "Anu", "nickname": "", "member_number": "7", "active": "on"},
    )
    assert response.status_code == 302
    anu = Player.objects.get(name="Anu")
    response = organiser_client.post(
        reverse("leaderboards:player_new"), {"name": "ANU", "member_number": ""}
    )
    assert response.status_code == 200
    assert response.context["form"].errors["name"] == [ALREADY_THE_CLUBS % {"name": "Anu"}]
    assert escape(ALREADY_THE_CLUBS % {"name": "Anu"}) in response.content.decode()
    response = organiser_client.post(
        reverse("leaderboards:player_edit", args=[anu.pk]),
        {"name": "Anu Menon", "nickname": "Anu", "member_number": "7"},
    )
    assert response.status_code == 302
    anu.refresh_from_db()
    assert (anu.name, anu.active) == ("Anu Menon", False)  # the box was left unticked
    organiser_client.post(reverse("leaderboards:player_active", args=[anu.pk]), {"active": "1"})
    anu.refresh_from_db()
    assert anu.active


def test_register_search_and_active_filter(client):
    register_player(name="Anu Menon", nickname="Ammu", member_number="M-100")
    register_player(name="Biju", active=False)
    register_player(name="Chitra", member_number="M-200")
    url = reverse("leaderboards:players")

    def names(**params):
        return [p.name for p in client.get(url, params).context["players"]]

    assert names() == ["Anu Menon", "Biju", "Chitra"]
    assert names(q="ammu") == ["Anu Menon"]
    assert names(q="M-2") == ["Chitra"]
    assert names(active="active") == ["Anu Menon", "Chitra"]
    assert names(active="inactive") == ["Biju"]
    partial = client.get(url, {"q": "biju"}, headers={"HX-Request": "true"})
    assert b'id="results"' in partial.content and b"<html" not in partial.content


# --- Import -------------------------------------------------------------------


def test_import_adds_and_updates_by_member_number_then_name():
    register_player(name="Anu", member_number="M-1")
    register_player(name="Biju")
    result = import_players(
        "name,nickname,member_number,active\n"
        "Anu Menon,Ammu,M-1,yes\n"  # matched by number: renamed
        "biju,,M-2,no\n"  # matched by name: number and active set
        "Chitra,,,\n"  # new
    )
    assert (result.created, result.updated) == (["Chitra"], ["Anu Menon", "biju"])
    assert sorted(
        Player.objects.values_list("name", "nickname", "member_number", "active"),
        key=lambda row: row[0].lower(),
    ) == [
        ("Anu Menon", "Ammu", "M-1", True),
        ("biju", "", "M-2", False),
        ("Chitra", "", "", True),
    ]
    # Importing the same file again changes nothing and adds nobody.
    again = import_players(b"name,member_number\nAnu Menon,M-1\nChitra,\n")
    assert (again.created, again.updated, again.unchanged) == ([], [], ["Anu Menon", "Chitra"])
    assert Player.objects.count() == 3


def test_import_is_all_or_nothing_and_names_row_and_column():
    register_player(name="Dev", member_number="M-9")
    register_player(name="Esha")
    with pytest.raises(PlayerImportError) as error:
        import_players(
            "Name,Nickname,Member Number,Active\n"  # headers are matched loosely
            "Anu,,M-1,yes\n"  # fine on its own
            ",Nobody,,\n"  # row 3: no name
            "Biju,,M-1,maybe\n"  # row 4: number already on row 2, active not yes/no
            "anu,,,\n"  # row 5: name already on row 2
            "Esha,,M-9,\n"  # row 6: Dev's number, so Dev would become a second Esha
            f"{'x' * 81},,,\n"  # row 7: too long
        )
    assert [str(fault) for fault in error.value.faults] == [
        f"Row 3, column name: {NAME_MISSING}",
        f"Row 4, column active: {NOT_YES_OR_NO % {'value': 'maybe'}}",
        f"Row 4, column member_number: {NUMBER_ON_EARLIER_ROW % {'number': 'M-1', 'row': 2}}",
        f"Row 5, column name: {NAME_ON_EARLIER_ROW % {'name': 'anu', 'row': 2}}",
        f"Row 6, column name: {NAME_TAKEN % {'name': 'Esha'}}",
        f"Row 7, column name: {AT_MOST % {'max': 80}}",
    ]
    assert list(Player.objects.order_by("name").values_list("name", flat=True)) == ["Dev", "Esha"]


@pytest.mark.parametrize(
    ("data", "where", "message", "values"),
    [
        (b"", "", FILE_EMPTY, {}),
        (b"nickname\nAnu\n", "Row 1, column name: ", NO_NAME_COLUMN, {}),
        (
            b"name,age\nAnu,3\n",
            "Row 1, column age: ",
            UNKNOWN_COLUMN,
            {"columns": ", ".join(COLUMNS)},
        ),
        (b"name,name\nAnu,Anu\n", "Row 1, column name: ", COLUMN_TWICE, {}),
        (b"name\n", "", NO_PLAYERS, {}),
        (b"name\n\xff\xfe\n", "", NOT_UTF8, {}),
        (b"name\nAnu,extra\n", "Row 2: ", TOO_MANY_CELLS, {"cells": 2, "columns": 1}),
    ],
)
def test_import_file_faults(data, where, message, values):
    with pytest.raises(PlayerImportError) as error:
        import_players(data)
    assert where + (message % values if values else str(message)) in str(error.value)
    assert not Player.objects.exists()


def test_import_renames_that_swap_never_clash():
    register_player(name="Anu", member_number="1")
    register_player(name="Biju", member_number="2")
    import_players("name,member_number\nBiju,1\nAnu,2\n")
    assert dict(Player.objects.values_list("member_number", "name")) == {"1": "Biju", "2": "Anu"}


def test_import_clash_with_an_untouched_player():
    register_player(name="Anu", member_number="1")
    register_player(name="Biju")
    with pytest.raises(PlayerImportError) as error:
        import_players("name,member_number\nBiju,1\n")  # number 1 is Anu's: rename to Biju
    assert [str(f) for f in error.value.faults] == [
        f"Row 2, column name: {NAME_TAKEN % {'name': 'Biju'}}"
    ]


def test_import_page(organiser_client):
    from django.core.files.uploadedfile import SimpleUploadedFile

    url = reverse("leaderboards:import")
    bad = SimpleUploadedFile("p.csv", b"name,active\nAnu,yes\n,no\n", content_type="text/csv")
    response = organiser_client.post(url, {"file": bad})
    assert response.status_code == 200
    assert f"Row 3, column name: {NAME_MISSING}" in response.content.decode()
    assert not Player.objects.exists()
    good = SimpleUploadedFile("p.csv", b"name,active\nAnu,yes\nBiju,no\n", content_type="text/csv")
    response = organiser_client.post(url, {"file": good}, follow=True)
    assert "Import done: 2 added, 0 updated, 0 unchanged." in response.content.decode()


def test_import_command(tmp_path, capsys):
    path = tmp_path / "players.csv"
    path.write_text("name,member_number\nAnu,1\nBiju,2\n", encoding="utf-8")
    call_command("import_players", str(path))
    assert "2 added, 0 updated, 0 unchanged." in capsys.readouterr().out
    path.write_text("name,member_number\nBiju,1\n,3\n", encoding="utf-8")
    with pytest.raises(CommandError, match="Nothing was imported: 2 fault"):
        call_command("import_players", str(path))
    err = capsys.readouterr().err
    # Number 1 finds Anu, whom the row would rename to Biju, a name already taken.
    assert f"Row 2, column name: {NAME_TAKEN % {'name': 'Biju'}}" in err
    assert f"Row 3, column name: {NAME_MISSING}" in err
    with pytest.raises(CommandError, match="Cannot read"):
        call_command("import_players", str(tmp_path / "missing.csv"))


def test_import_command_for_a_club(tmp_path, capsys):
    """``--club`` names the club whose players the file holds; a player the site has
    joins it."""
    from club.clubs import known
    from club.clubs.models import Club
    from club.games.people import Membership

    register_player(name="Anu")  # the home club's
    Club.objects.create(name="Gulf 56", slug="gulf")
    path = tmp_path / "players.csv"
    path.write_text("name\nAnu\nZainab\n", encoding="utf-8")
    call_command("import_players", str(path), "--club", "gulf")
    assert "1 added, 0 updated, 1 unchanged; 1 joined Gulf 56." in capsys.readouterr().out
    joined = sorted(Membership.objects.values_list("club__slug", "player__name"))
    assert joined == sorted([(known.home().slug, "Anu"), ("gulf", "Anu"), ("gulf", "Zainab")])
    with pytest.raises(CommandError, match="No club has the short name nowhere"):
        call_command("import_players", str(path), "--club", "nowhere")
