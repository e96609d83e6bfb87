"""Names typed at the club: one spelling for what looks like one name (club.scoring.names).

"Anu" and "A\u200bnu" (a zero-width space inside) look the same on every page;
before, the forms kept both, as two players. Typed names are now kept in one
form (NFC, look-alike Latin forms folded) and hidden characters refused, with
the character named.
"""

from __future__ import annotations

import unicodedata

import pytest
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from club.games.models import Game, Player, Team
from club.leaderboards import services as register
from club.scoring.names import UnusableName, clean_name
from tests.games import test_views as game_views
from tests.tournaments.test_views import new_tournament_post

HIDDEN = {
    "zero-width space": "A\u200bnu",
    "right-to-left override": "\u202eunA",
    "left-to-right isolate": "An\u2066u",
    "byte-order mark": "\ufeffAnu",
    "zero-width joiner after a Latin letter": "A\u200dnu",
    "soft hyphen": "A\u00adnu",
    "a tab inside": "A\tnu",  # a tab is whitespace: collapsed, not refused
    "bell": "An\x07u",
    "private use": "Anu\ue000",
}


@pytest.mark.parametrize("what", HIDDEN)
def test_hidden_characters_are_refused_with_the_character_named(what):
    text = HIDDEN[what]
    if what == "a tab inside":
        assert clean_name(text) == "A nu"
        return
    with pytest.raises(UnusableName) as refused:
        clean_name(text)
    [hidden] = [c for c in text if unicodedata.category(c) in {"Cf", "Cc", "Co"}]
    assert refused.value.code == f"U+{ord(hidden):04X}"
    assert f"U+{ord(hidden):04X}" in str(refused.value)


def test_look_alike_forms_fold_to_the_plain_letters():
    assert clean_name("  Ａｎｕ   Ｂｉｊｕ ") == "Anu Biju"  # full-width
    assert clean_name("ﬁona") == "fiona"  # ligature
    assert clean_name("e\u0301va") == "\u00e9va"  # composed
    assert clean_name("𝐀𝐧𝐮") == "Anu"  # mathematical bold


def test_what_people_really_write_is_kept_as_written():
    # Full NFKC would split the Thai vowel "ำ" in two and turn "Mª" into "Ma".
    for name in ("สมคำ", "Mª José", "Nº 5 table", "María", "Ελένη", "Søren"):
        assert clean_name(name) == name


def test_the_joiners_of_indic_scripts_are_kept_between_their_letters():
    malayalam = "അനു\u200dക"  # a joiner between two Malayalam letters
    marathi = "र\u200dया"
    assert clean_name(malayalam) == malayalam
    assert clean_name(marathi) == marathi
    # The old-style chillu ends a word with a virama and a joiner: "മോഹന്‍".
    assert clean_name("മോഹന്\u200d") == "മോഹന്\u200d"
    assert clean_name("ജയന്\u200d നായർ") == "ജയന്\u200d നായർ"
    with pytest.raises(UnusableName):
        clean_name("\u200dഅനു")  # at the start it joins nothing


names_as_typed = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=30
)


@given(names_as_typed)
def test_a_clean_name_is_stable_and_shows_nothing_hidden(text):
    try:
        name = clean_name(text)
    except UnusableName as refused:
        assert refused.code.startswith("U+")
        return
    assert clean_name(name) == name  # cleaning twice changes nothing
    assert unicodedata.normalize("NFC", name) == name
    assert name == name.strip() and "  " not in name
    for index, char in enumerate(name):
        if unicodedata.category(char) in {"Cc", "Cf", "Co", "Cn"}:
            assert char in "\u200c\u200d" and 0 < index and not name[index - 1].isascii()


@pytest.mark.django_db
def test_a_new_game_with_a_hidden_character_in_a_name_is_refused(organiser_client):
    post = game_views.TestNewGame().valid(team1_player1="A\u200bnu")
    response = organiser_client.post(reverse("games:new"), post)
    assert response.status_code == 200
    assert "holds an invisible or control character (U+200B)" in response.content.decode()
    assert not Game.objects.exists() and not Player.objects.exists()


@pytest.mark.django_db
def test_a_full_width_name_is_the_player_already_in_the_club(organiser_client):
    register.register_player(name="Anu")
    post = game_views.TestNewGame().valid(team1_player1="Ａｎｕ", label="Ｔａｂｌｅ 1")
    response = organiser_client.post(reverse("games:new"), post)
    assert response.status_code == 302
    assert list(Player.objects.filter(name__iexact="anu").values_list("name", flat=True)) == ["Anu"]
    assert Game.objects.get().label == "Table 1"


@pytest.mark.django_db
def test_a_tournament_and_its_teams_refuse_hidden_characters(organiser_client):
    response = organiser_client.post(
        reverse("tournaments:new"), new_tournament_post(name="Monsoon\u202e Cup")
    )
    assert "(U+202E)" in response.content.decode()
    response = organiser_client.post(reverse("tournaments:new"), new_tournament_post())
    tournament_url = response["Location"]
    pk = int(tournament_url.strip("/").split("/")[-1])
    response = organiser_client.post(
        reverse("tournaments:register", args=[pk]),
        {"first": "Anu", "second": "Bi\u200bju", "name": ""},
    )
    assert "(U+200B)" in response.content.decode()
    assert not Team.objects.exists()


@pytest.mark.django_db
def test_the_register_refuses_hidden_characters(organiser_client):
    response = organiser_client.post(
        reverse("leaderboards:player_new"), {"name": "A\u200bnu", "active": "on"}
    )
    assert "(U+200B)" in response.content.decode()
    with pytest.raises(register.RegisterError):
        register.register_player(name="Anu\u202e")
    with pytest.raises(register.PlayerImportError) as refused:
        register.import_players("name,nickname\nChitra,\nA\u200bnu,\n")
    assert "Row 3, column name" in str(refused.value) and "(U+200B)" in str(refused.value)
    assert not Player.objects.exists()  # all or nothing
