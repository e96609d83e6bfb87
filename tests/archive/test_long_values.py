"""A hostile value is not repeated in full in an import's message: it is cut, its length said.

The message still names the game, the deal and the field; short values are
quoted whole, as before.
"""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from club.archive import format as archive_format
from club.archive.format import FORMAT
from club.games.models import Game

pytestmark = pytest.mark.django_db

LABEL = "Long values"
DIGITS = int("9" * 4000)


def document(**deal) -> dict:
    return {
        "format": FORMAT,
        "games": [
            {
                "label": LABEL,
                "teams": [
                    {"name": "Anu & Biju", "players": ["Anu", "Biju"]},
                    {"name": "Chitra & Dev", "players": ["Chitra", "Dev"]},
                ],
                "first_dealer": "Anu",
                "rounds": [
                    {"declarer": "Chitra", "bid": 32, "trump": "hearts",
                     "points": {"Anu & Biju": 20, "Chitra & Dev": 36}},
                    {"declarer": "Anu", "bid": 30, "trump": "clubs",
                     "points": {"Anu & Biju": 30, "Chitra & Dev": 26}, **deal},
                ],
            }
        ],
    }  # fmt: skip


def refused(tmp_path, data: dict) -> str:
    path = tmp_path / "results.json"
    path.write_text(json.dumps(data))
    with pytest.raises(CommandError) as caught:
        call_command("import_results", str(path), stdout=io.StringIO())
    assert not Game.objects.exists()
    return str(caught.value)


def test_a_4000_digit_bid_is_cut_and_the_message_still_names_the_deal_and_field(tmp_path):
    message = refused(tmp_path, document(bid=DIGITS))
    assert message == (
        f'Game "{LABEL}", deal 2, bid: a bid must be from 28 to 56; '
        "999999999999999999999999999999… (4,000 characters) is not. Nothing was imported."
    )


@pytest.mark.parametrize(
    ("deal", "field", "quoted"),
    [
        # Quoted as JSON by the importer itself (a string keeps its opening quote).
        ({"bid": "9" * 4000}, "bid", '"99999999999999999999999999999… (4,002 characters)'),
        ({"trump": "x" * 500}, "trump", '"xxxxxxxxxxxxxxxxxxxxxxxxxxxxx… (502 characters)'),
        ({"declarer": "A" * 300}, "declarer", '"AAAAAAAAAAAAAAAAAAAAAAAAAAAAA… (302 characters)'),
        # Quoted by the rules: a pile out of range, and one that is not a number.
        (
            {"points": {"Anu & Biju": DIGITS, "Chitra & Dev": 26}},
            "points",
            "999999999999999999999999999999… (4,000 characters)",
        ),
        (
            {"points": {"Anu & Biju": 56, "Chitra & Dev": "7" * 100}},
            "points",
            "'" + "7" * 29 + "… (102 characters)",
        ),
    ],
)
def test_every_long_value_is_cut(tmp_path, deal, field, quoted):
    message = refused(tmp_path, document(**deal))
    assert message.startswith(f'Game "{LABEL}", deal 2, {field}: ')
    assert quoted in message
    assert len(message) < 250


def test_a_value_of_40_characters_or_fewer_is_quoted_whole(tmp_path):
    message = refused(tmp_path, document(bid=60))
    assert f'Game "{LABEL}", deal 2, bid: a bid must be from 28 to 56; 60 is not.' in message
    assert archive_format._quoted("x" * 38) == '"' + "x" * 38 + '"'
    assert archive_format._quoted("x" * 39) == '"' + "x" * 29 + "… (41 characters)"
