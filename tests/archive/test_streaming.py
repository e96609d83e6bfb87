"""A file read in pieces is read as the whole file was: the same JSON, the same refusals.

The import reads a file a piece at a time (``club.archive.reading``) and decodes
each game alone. What it accepts and refuses, and the words of a refusal, with
the line, column and character counted from the file's start, must stay those of
``json.loads`` and ``bytes.decode("utf-8-sig")`` on the whole file, and the games
it checks those that the whole-file parser checked. Pieces of a few characters
put a piece's end inside every kind of value.
"""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path

import pytest
from django.conf import settings
from django.db import transaction
from hypothesis import HealthCheck, example, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from club.archive import reading
from club.archive.documents import (
    DocumentSpec,
    load_documents,
    outline_documents,
    parse_archive,
)
from club.archive.export import export_json
from club.archive.format import FORMAT, ArchiveError
from club.archive.load import import_results
from club.archive.load import read_text as read_whole_text
from club.archive.parse_games import parse_game
from club.archive.parse_tournaments import parse_tournament
from club.archive.reading import TextFile, TextInMemory
from club.archive.tournament_export import export_tournament_json
from club.games.models import Game
from club.tournaments.models import Tournament

FIXTURES = Path(settings.BASE_DIR) / "fixtures"
FUZZ = hypothesis_settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

GAME = {
    "label": "Añu's table",
    "tables_per_team": 12,
    "teams": [
        {"name": "Anu & Biju", "players": ["Añu", "Biju"]},
        {"name": "Chitra & Dev", "players": ["Chitra", "Dev"]},
    ],
    "first_dealer": "Añu",
    "rounds": [
        {
            "declarer": "Chitra",
            "bid": 32,
            "trump": "hearts",
            "doubling": "double",
            "points": {"Anu & Biju": 20, "Chitra & Dev": 36},
        },
        {"all_pass": True, "points": {"Anu & Biju": 30, "Chitra & Dev": 26}},
    ],
}
ONE = {"format": FORMAT, "games": [GAME, {**GAME, "label": "Second"}]}
# The texts the damage is done to: a document written with newlines (lines and columns
# count), and a list of two documents written on one line.
TEXTS = [
    json.dumps(ONE, indent=1, ensure_ascii=False),
    json.dumps([ONE, {"format": FORMAT, "tournament": None, "games": []}]),
]


@pytest.fixture
def small_pieces(monkeypatch):
    """Pieces of 3 characters (or bytes): every value spans several of them."""
    monkeypatch.setattr(reading, "PIECE", 3)


def outcome(read):
    try:
        return "read", read()
    except ArchiveError as error:
        return "refused", error.message


def whole(text: str):
    """The whole-file reading: each document's keys, format and repeated key."""
    return [
        (list(document), document.get("format"), document.duplicate)  # type: ignore[attr-defined]
        for document in load_documents(text)
    ]


def in_pieces(text: str):
    return [
        (list(document), document.get("format"), document.duplicate)  # type: ignore[attr-defined]
        for document in outline_documents(TextInMemory(text))
    ]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   \n  ",
        "\ufeff{}",
        "null",
        "1e999",
        "-Infinity",
        "NaN",
        "[]",
        "[1, 2]",
        "[1,]",
        "{,}",
        '{"format": "fiftysix-results/1", "games": []} x',
        '{"format": "fiftysix-results/1", "games": []}{}',
        '{"format": "fiftysix-results/1", "games": [], "games": []}',
        '{"format": "fiftysix-results/1", "games": {"a": 1}}',
        '{"format": "fiftysix-results/1" "games": []}',
        '{"format": "fiftysix-results/1", "games" []}',
        '{"format": "fiftysix-results/1", "games": [1 2]}',
        '{"format": "fiftysix-results/1", "games": [1,]}',
        '{"format": "fiftysix-results/1", "games": [{"label": "\\ud800"}]}',
        '{"format": "fiftysix-results/1", "games": [{"label": "x\\q"}]}',
        '{"format": "fiftysix-results/1", "games": [{"label": "\x01"}]}',
        '{"format": "fiftysix-results/1", "games": [{"label": "unclosed}]}',
        '{"format": "fiftysix-results/1", "games": [' + "1" * 5000 + "]}",
        '{"format": "fiftysix-results/1", "games": [' + "1" * 5000 + ".5]}",
        '{"format": "fiftysix-results/1", "games": [' + "[" * 5000 + "]" * 5000 + "]}",
        '[{"format": "fiftysix-results/1", "games": []},\n 7]',
        '[{"format": "fiftysix-results/2", "games": []}, {"games": [1]}]',
        '{"format": {"a": [1, 2, "' + "x" * 100 + '"]}, "games": []}',
    ],
)
@pytest.mark.parametrize("pieces", ["whole", "small"])
def test_the_same_words_as_json_loads_on_the_whole_file(text, pieces, monkeypatch):
    if pieces == "small":
        monkeypatch.setattr(reading, "PIECE", 3)
    assert outcome(lambda: in_pieces(text)) == outcome(lambda: whole(text))


damage = st.tuples(
    st.sampled_from(range(len(TEXTS))),
    st.lists(
        st.tuples(
            st.sampled_from(["cut", "insert", "delete"]),
            st.floats(min_value=0, max_value=1, exclude_max=True),
            st.sampled_from(list('{}[],:" \n\\0123456789.-eE+tfnaNIé\x01') + ["\\u", "\\ud83d"]),
        ),
        min_size=1,
        max_size=3,
    ),
)


def damaged(choice) -> str:
    which, changes = choice
    text = TEXTS[which]
    for kind, where, what in changes:
        at = int(where * (len(text) + 1))
        if kind == "cut":
            text = text[:at]
        elif kind == "insert":
            text = text[:at] + what + text[at:]
        else:
            text = text[:at] + text[at + 1 :]
    return text


@given(choice=damage)
@example(choice=(0, [("cut", 0.5, "")]))
@example(choice=(1, [("insert", 0.3, '"')]))
@FUZZ
def test_a_damaged_file_is_refused_as_json_loads_refuses_it(choice, small_pieces):
    text = damaged(choice)
    assert outcome(lambda: in_pieces(text)) == outcome(lambda: whole(text))


def read_text(data: bytes):
    return read_whole_text(lambda: data)


def text_file(data: bytes):
    handle = TextFile(io.BytesIO(data))
    handle.check()
    return "".join(handle.pieces())


@given(
    data=st.one_of(
        st.binary(max_size=40),
        st.lists(
            st.sampled_from(
                [b"a", b"\xc3\xa9", b"\xe2\x82\xac", b"\xf0\x9f\x98\x80", b"\xff", b"\xc3", b"\xed"]
                + [b"\xa0\x80", b"\xef\xbb\xbf", b"\x80"]
            ),
            max_size=20,
        ).map(b"".join),
    )
)
@example(data=b"\xef\xbb\xbf\xef\xbb\xbf{}")
@example(data=b"\xef\xbb")
@FUZZ
def test_utf8_is_checked_as_the_whole_file_was(data, small_pieces):
    assert outcome(lambda: text_file(data)) == outcome(lambda: read_text(data))


# --- The games checked are those the whole-file parser checked ---------------------------


def whole_file_specs(text: str) -> list[DocumentSpec]:
    """How the file was checked before it was read in pieces: parsed whole, then each game."""
    seen: dict[str, int] = {}
    index = 0
    documents = []
    for data in load_documents(text):
        games = []
        for raw in data["games"]:
            index += 1
            games.append(parse_game(raw, index, seen))
        tournament = None
        if "tournament" in data:
            tournament = parse_tournament(data["tournament"], games)
        documents.append(DocumentSpec(games, tournament))
    return documents


def fixtures_file() -> list:
    demo = json.loads((FIXTURES / "demo.json").read_text(encoding="utf-8"))
    tournaments = json.loads((FIXTURES / "demo_tournaments.json").read_text(encoding="utf-8"))
    return [demo, *tournaments]


@pytest.mark.django_db
def test_the_games_and_tournaments_checked_are_the_whole_file_parsers(small_pieces):
    text = json.dumps(fixtures_file(), indent=1)
    streamed = parse_archive(text)
    assert [len(document.games) for document in streamed] == [4, 12, 6]
    assert streamed == whole_file_specs(text)


@pytest.mark.django_db
def test_a_fault_in_a_game_and_a_cut_at_the_end_is_refused_for_the_json_first():
    documents = copy.deepcopy(fixtures_file())
    documents[0]["games"][0]["rounds"][0]["bid"] = 70
    text = json.dumps(documents)
    assert outcome(lambda: import_results(text[:-20])) == outcome(
        lambda: whole_file_specs(text[:-20])
    )
    assert "not valid JSON" in outcome(lambda: import_results(text[:-20]))[1]
    assert "bid" in outcome(lambda: import_results(text))[1]
    assert not Game.objects.exists()


# --- A tournament whose games come in another order than its sittings -------------------


class Rollback(Exception):
    pass


def imported(document) -> tuple:
    """What importing the document stores, as its summary and the club's whole export;
    then the club is as it was."""
    try:
        with transaction.atomic():
            summary = import_results(json.dumps(document))
            found = (
                summary,
                export_json(),
                export_tournament_json(list(Tournament.objects.order_by("pk"))),
            )
            raise Rollback
    except Rollback:
        return found


@pytest.mark.django_db
def test_a_tournaments_games_in_any_order_are_stored_as_in_sitting_order():
    """Written in sitting and table order, whatever order the file gives the games in:
    the same club as the file in order gives, down to the export."""
    document = fixtures_file()[1]
    in_order = imported(document)
    shuffled = copy.deepcopy(document)
    shuffled["games"].reverse()
    assert imported(shuffled) == in_order
    assert in_order[0].games == 12 and json.loads(in_order[2])["games"] == document["games"]
