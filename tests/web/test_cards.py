"""The pictures of shared results are drawn right in every language the site speaks.

club/web/fonts.py reads the club's Noto faces from the stylesheet the pages use and cuts
a line into runs by script; club/web/cards.py draws them, shaped by Raqm. These check
that the server can (FreeType opens the WOFF2 files, Raqm is there), that shaping is
really applied (a conjunct is narrower than its letters side by side, a Thai tone mark
takes no room, Marathi's own letter forms are chosen), that a run never splits a
cluster, and that a line cut short is cut between clusters.
"""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageChops, ImageDraw, features

from club.web import fonts, preview
from club.web.cards import HEIGHT, WIDTH, Card, Row, _fitted, _Text, draw
from club.web.fonts import BOLD, REGULAR, cut_points, faces, font, runs


def test_the_server_can_shape_and_open_every_face():
    """A deploy without Raqm (FriBiDi missing) or without WOFF2 in FreeType fails here."""
    assert features.check_feature("raqm") and fonts.shaping()
    found = faces()
    assert {face.script for face in found} == {
        "latin",
        "latin-ext",
        "greek",
        "malayalam",
        "devanagari",
        "thai",
    }
    assert {face.weight for face in found} == {REGULAR, BOLD}
    for face in found:
        assert font(face.file, 30).getlength("a" if "latin" in face.script else "") >= 0


def _shaped(text: str, script_of: str, language: str | None = None) -> float:
    face = next(face for face in faces() if face.script == script_of and face.weight == REGULAR)
    return font(face.file, 40).getlength(text, language=language)


def test_a_conjunct_is_shaped_not_set_letter_by_letter():
    # Malayalam ക്ഷ (ka, virama, ssa) is one conjunct; Devanagari क्ष the same.
    assert _shaped("ക്ഷ", "malayalam") < _shaped("ക", "malayalam") + _shaped("ഷ", "malayalam")
    assert _shaped("क्ष", "devanagari") < _shaped("क", "devanagari") + _shaped("ष", "devanagari")
    # A Thai tone mark sits over its consonant and takes no room of its own.
    assert _shaped("น้ำ", "thai") == pytest.approx(_shaped("นำ", "thai"))


def test_marathi_takes_its_own_letter_forms():
    face = next(face for face in faces() if face.script == "devanagari")
    drawn = {}
    for language in ("hi", "mr"):
        image = Image.new("L", (200, 100), 0)
        ImageDraw.Draw(image).text(
            (10, 10), "ल", font=font(face.file, 60), fill=255, language=language
        )
        drawn[language] = image
    assert ImageChops.difference(drawn["hi"], drawn["mr"]).getbbox() is not None
    (run,) = runs("लश", REGULAR, "mr")
    assert run.language == "mr"  # a Marathi page shapes its Devanagari runs as Marathi


def test_a_line_of_two_scripts_is_cut_into_runs_each_in_its_face():
    cut = runs("അനു & Biju", REGULAR, "ml")
    assert [(run.text, run.face.script, run.language) for run in cut] == [
        ("അനു", "malayalam", "ml"),
        (" & Biju", "latin", None),
    ]
    # A joiner stays in its word's run: the cluster is shaped whole.
    (word,) = runs("ന്\u200dമ", REGULAR, "ml")
    assert word.face.script == "malayalam"
    thai = runs("ผู้เล่น 5", BOLD, "th")
    assert [run.face.script for run in thai] == ["thai", "latin"]
    assert all(run.face.weight == BOLD for run in thai)


def test_a_line_is_cut_short_between_clusters():
    assert cut_points("ക്ഷമ") == [3]  # never after the virama nor before the ssa
    assert 1 not in cut_points("เล่น")  # a Thai vowel written before its consonant stays
    assert 2 not in cut_points("ผู้")  # nor is a mark parted from its letter
    long = _Text("അനു ബിജു ക്ഷേത്രം " * 10, REGULAR, 36, "ml")
    fitted = _fitted(long, 400, 30)
    assert fitted.text.endswith("…") and fitted.width() <= 400
    kept = fitted.text.removesuffix("…")
    assert len(kept) in cut_points(long.text) or kept == long.text[: len(kept)].rstrip()
    assert _fitted(_Text("Anu", REGULAR, 36, "en"), 400, 30).text == "Anu"


def test_a_description_in_a_script_without_spaces_is_cut_between_clusters():
    said = preview._short("ผู้เล่น" * 60, 50)
    assert said.endswith("…") and len(said) <= 50
    assert len(said) - 1 in cut_points("ผู้เล่น" * 60)


def test_a_card_makes_the_same_png_every_time():
    card = Card(
        kicker="Club · Standings",
        title="ഓണം കപ്പ്",
        subtitle="After sitting 3",
        rows=(Row("1", "അനു & ബിജു", "9", "pts"), Row("2=", "Chitra & Dev", "7", dim=True)),
        note="and 3 more teams",
        language="ml",
    )
    first, second = draw(card), draw(card)
    assert first == second
    image = Image.open(io.BytesIO(first))
    assert image.format == "PNG" and image.size == (WIDTH, HEIGHT) == (1200, 630)


def test_without_shaping_a_picture_is_drawn_in_english(monkeypatch):
    assert preview.drawn_in("ml") == "ml"
    monkeypatch.setattr(preview, "shaping", lambda: False)
    assert [preview.drawn_in(code) for code in ("ml", "mr", "th", "el", "es")] == [
        "en",
        "en",
        "en",
        "el",
        "es",
    ]
