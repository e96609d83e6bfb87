"""Malformed, hostile and very large files for ``import_results`` and ``import_players``.

The property: the command imports the file whole, or stops with a CommandError
whose message says what is wrong, and the database is left exactly as it was.
Never a traceback of any other kind.
"""

from __future__ import annotations

import copy
import io
import json
import time

import pytest
from django.core.management import CommandError, call_command
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from club.archive.export import export_json
from club.archive.format import FORMAT
from club.archive.management.commands.import_results import MAX_BYTES
from club.games.models import Player
from club.games.services import Deal, load_seating, record_deal
from tests.factories import start_game
from tests.hostile.conftest import NAMES, check_invariants, fresh_state, snapshot

pytestmark = pytest.mark.django_db

IMPORT = settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def _run(command: str, path) -> tuple[bool, str]:
    """Run the command; (imported, message). Any exception but CommandError fails the test."""
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command(command, str(path), stdout=out, stderr=err)
    except CommandError as error:
        return False, str(error)
    return True, out.getvalue()


def _import(path) -> tuple[bool, str]:
    before = snapshot()
    imported, message = _run("import_results", path)
    assert message.strip(), "no message at all"
    if imported:
        check_invariants()
    else:
        assert snapshot() == before, f"refused ({message}) yet the database changed"
    return imported, message


@pytest.fixture(scope="module")
def valid_text(django_db_setup, django_db_blocker):
    """A real export: a three-team game with deals, made and then thrown away."""
    from django.db import transaction

    with django_db_blocker.unblock(), transaction.atomic():
        game = start_game(3, label="Export me")
        seats = {player.name: at for at, player in enumerate(load_seating(game).players)}
        deals = [
            Deal(points={0: 30, 1: 20, 2: 6}, declarer=seats["Anu"], bid=28, trump="spades"),
            Deal(points={0: 10, 1: 40, 2: 6}, declarer=seats["Chitra"], bid=40, trump="clubs"),
            Deal(points={0: 20, 1: 20, 2: 16}),
            Deal(
                points={0: 50, 1: 6, 2: 0},
                declarer=seats["Biju"],
                bid=48,
                trump="no-trumps",
                doubling="double",
            ),
        ]
        for number, entry in enumerate(deals, start=1):
            record_deal(game=game, number=number, entry=entry)
        text = export_json()
        transaction.set_rollback(True)
    return text


def test_the_valid_export_imports(tmp_path, valid_text):
    path = tmp_path / "results.json"
    path.write_text(valid_text, encoding="utf-8")
    imported, message = _import(path)
    assert imported, message
    assert "1 game with 4 deals" in message


@given(cut=st.integers(min_value=0, max_value=10**6))
@IMPORT
def test_truncated_json_is_refused_clearly(tmp_path, valid_text, cut):
    text = valid_text.rstrip()
    text = text[: cut % len(text)]
    path = tmp_path / "truncated.json"
    path.write_text(text, encoding="utf-8")
    with fresh_state():
        imported, message = _import(path)
    assert not imported
    assert "Nothing was imported" in message or "not valid JSON" in message


# Files the import refuses for their shape: the corpus the web import is held to as well
# (tests/archive/test_preview_is_the_import.py).
WRONG_SHAPES = [
    "",
    " ",
    "null",
    "true",
    "0",
    "1e999",
    "-1e999",
    "NaN",
    "Infinity",
    '"fiftysix-results/1"',
    "[]",
    "[1, 2]",
    "[[]]",
    "{}",
    '{"format": null}',
    '{"format": "fiftysix-results/1"}',
    '{"format": "fiftysix-results/1", "games": {}}',
    '{"format": "fiftysix-results/1", "games": "all"}',
    '{"format": "fiftysix-results/1", "games": [null]}',
    '{"format": "fiftysix-results/1", "games": [[]]}',
    '{"format": "fiftysix-results/1", "games": [{}]}',
    '{"format": "fiftysix-results/1", "games": [], "games": []}',
    '{"format": "fiftysix-results/1", "games": [], "tournament": []}',
    '{"format": "fiftysix-results/1", "games": [], "tournament": {}}',
    '{"format": "fiftysix-results/2", "games": []}',
    '{"format": "fiftysix-results/1", "games": [], "extra": 1}',
    '{"format": "fiftysix-results/1", "games": [{"label": "\\u0000"}]}',
    '{"format": "fiftysix-results/1", "games": [{"label": "\\ud800"}]}',
    '[{"format": "fiftysix-results/1", "games": []}, 7]',
    "\ufeff{}",
]


@pytest.mark.parametrize("text", WRONG_SHAPES)
def test_wrong_shapes_are_refused_clearly(tmp_path, text):
    path = tmp_path / "shape.json"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    imported, message = _import(path)
    assert not imported
    assert len(message) > 20


@pytest.mark.parametrize("depth", [10_000, 200_000])
@pytest.mark.parametrize("bracket", ["[]", "{}"])
def test_deeply_nested_json_is_refused_clearly(tmp_path, depth, bracket):
    opening, closing = bracket
    if opening == "{":
        text = '{"a":' * depth + "1" + "}" * depth
    else:
        text = opening * depth + closing * depth
    path = tmp_path / "deep.json"
    path.write_text(f'{{"format": "fiftysix-results/1", "games": [{text}]}}', encoding="utf-8")
    imported, message = _import(path)
    assert not imported
    assert "nested too deeply" in message or "Nothing was imported" in message


@given(content=st.binary(max_size=2000))
@IMPORT
def test_random_bytes_are_refused_clearly(tmp_path, content):
    path = tmp_path / "random.json"
    path.write_bytes(content)
    with fresh_state():
        imported, message = _import(path)
    assert not imported


BAD_UTF8 = [
    b"\xff\xfe{}",
    b'{"format": "fiftysix-results/1", "games": [{"label": "\xc3\x28"}]}',
    b"\xed\xa0\x80",  # an encoded surrogate
    "{}".encode("utf-16"),
    b"\x00" * 100,
]


@pytest.mark.parametrize("content", BAD_UTF8)
def test_invalid_utf8_is_refused_clearly(tmp_path, content):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    imported, message = _import(path)
    assert not imported
    assert message


JSON_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.sampled_from([10**30, -(10**30), 2**63, -(2**63) - 1, 0, -1, 56, 57, 28, 27]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(NAMES),
    st.text(max_size=20),
)
JSON_VALUES = st.recursive(
    JSON_LEAVES,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=10,
)


def _paths(value, path=()):
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*path, index))


def _replace(document, path, new):
    if not path:
        return new
    parent = document
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = new
    return document


@given(data=st.data())
@IMPORT
def test_a_valid_file_with_one_value_made_hostile(tmp_path, valid_text, data):
    document = json.loads(valid_text)
    paths = list(_paths(document))
    path = data.draw(st.sampled_from(paths))
    hostile = data.draw(JSON_VALUES)
    mutated = _replace(copy.deepcopy(document), path, hostile)
    if data.draw(st.booleans()) and isinstance(mutated, dict):
        mutated.setdefault("games", [{}])  # sometimes also drop a key
        if mutated["games"] and isinstance(mutated["games"], list):
            game = mutated["games"][0]
            if isinstance(game, dict) and game:
                game.pop(data.draw(st.sampled_from(sorted(game, key=str))), None)
    file = tmp_path / "mutated.json"
    file.write_text(json.dumps(mutated, ensure_ascii=data.draw(st.booleans())), encoding="utf-8")
    with fresh_state():
        _import(file)


@given(document=JSON_VALUES)
@IMPORT
def test_any_json_document_is_answered_clearly(tmp_path, document):
    file = tmp_path / "any.json"
    file.write_text(json.dumps(document), encoding="utf-8")
    with fresh_state():
        imported, _message = _import(file)
    assert not imported


def _big_document(valid_text: str, size: int) -> tuple[str, int]:
    """Copies of the valid game under new labels until the file is ``size`` bytes."""
    game = json.loads(valid_text)["games"][0]
    one = len(json.dumps(game))
    count = int(size / one * 1.05) + 1  # the separators between games add a little
    games = []
    for number in range(count):
        copy_ = dict(game)
        copy_["label"] = f"Game {number}"
        games.append(copy_)
    return json.dumps({"format": FORMAT, "games": games}), count


def test_a_20_mb_file_with_a_faulty_game_is_refused_naming_it(tmp_path, valid_text):
    text, count = _big_document(valid_text, 20 * 1024 * 1024)
    assert len(text) >= 20 * 1024 * 1024
    document = json.loads(text)
    # Checking every game of 20 MB (about 12,000) takes half a minute; a fault in the 500th
    # game keeps this test short and still reads the whole file first.
    faulty = 499
    points = document["games"][faulty]["rounds"][1]["points"]
    document["games"][faulty]["rounds"][1]["points"] = dict.fromkeys(points, 50)
    path = tmp_path / "big.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    started = time.monotonic()
    imported, message = _import(path)
    assert not imported
    assert f'"Game {faulty}", deal 2' in message and "56" in message, message
    assert time.monotonic() - started < 30


def test_a_file_over_the_size_limit_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "huge.json"
    with path.open("wb") as handle:
        handle.write(b" " * (MAX_BYTES + 1))
    imported, message = _import(path)
    assert not imported
    assert "larger than 50 MB" in message


def test_the_size_limit_is_in_the_help():
    from club.archive.management.commands.import_results import Command

    assert "50 MB" in Command.help


def test_standard_input_is_limited_too(monkeypatch):
    import sys

    from club.archive.management.commands import import_results as command

    monkeypatch.setattr(command, "MAX_BYTES", 10)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"[" * 11)))
    imported, message = _import("-")
    assert not imported
    assert "larger than 0 MB" in message or "larger than" in message


def test_a_missing_file_or_a_directory_is_refused_clearly(tmp_path):
    for path in (tmp_path / "missing.json", tmp_path):
        imported, message = _import(path)
        assert not imported
        assert "Cannot read" in message


# --- import_players ----------------------------------------------------------------------


@given(content=st.binary(max_size=500))
@IMPORT
def test_import_players_takes_any_bytes(tmp_path, content):
    path = tmp_path / "players.csv"
    path.write_bytes(content)
    with fresh_state():
        before = snapshot()
        imported, message = _run("import_players", path)
        if not imported:
            assert "Nothing was imported" in message
            assert snapshot() == before


@given(
    rows=st.lists(
        st.lists(st.one_of(st.sampled_from(NAMES), st.text(max_size=30)), min_size=1, max_size=4),
        max_size=5,
    )
)
@IMPORT
def test_import_players_takes_any_cells(tmp_path, rows):
    import csv

    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["name", "nickname", "member_number", "active"])
    writer.writerows(rows)
    path = tmp_path / "players.csv"
    path.write_text(buffer.getvalue(), encoding="utf-8", errors="surrogatepass")
    with fresh_state():
        before = snapshot()
        imported, message = _run("import_players", path)
        if imported:
            for player in Player.objects.all():
                assert "\x00" not in player.name + player.nickname + player.member_number
        else:
            assert "Nothing was imported" in message
            assert snapshot() == before


def test_import_players_refuses_nul_with_the_row(tmp_path, capsys):
    path = tmp_path / "players.csv"
    path.write_bytes(b"name,nickname\nAnu,\x00\n")
    err = io.StringIO()
    with pytest.raises(CommandError, match="Nothing was imported: 1 fault"):
        call_command("import_players", str(path), stderr=err)
    assert "Row 2, column nickname" in err.getvalue()
    assert not Player.objects.exists()
