"""The club's Noto faces for pictures drawn on the server, chosen per run of text by script.

The pages' text is set in the Noto files the app serves (static/fonts, declared in
static/css/fonts.css), one file a script: Latin, Latin Extended, Greek, Malayalam,
Devanagari (Marathi) and Thai, each covering the characters of its ``unicode-range``.
A picture of a result (club.web.cards) uses the very same files, read from the same
stylesheet, so the two never disagree about which face draws a letter: a line such as
"അനു & Biju" is cut into runs, each drawn with the face whose range holds its letters.

FreeType opens the WOFF2 files as they are (Pillow's FreeType reads WOFF2 when built
with Brotli, as its wheels are), and Raqm (HarfBuzz and FriBiDi) shapes each run: a
Malayalam conjunct, a Devanagari reph or a Thai vowel mark is placed as the page
places it. Without Raqm, :func:`shaping` says so, and the pictures are drawn in English
(club.web.preview): a misplaced vowel mark is worse than a picture in another language.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from PIL import ImageFont, features

STATIC = Path(__file__).resolve().parent.parent / "static"
STYLESHEET = STATIC / "css" / "fonts.css"
REGULAR, BOLD = 400, 700
# A run in this script is shaped in the reader's language when the page is in one of them:
# Marathi's forms of some Devanagari letters differ from Hindi's ('locl' in the font).
SCRIPTS = {"malayalam": {"ml"}, "devanagari": {"mr"}, "thai": {"th"}, "greek": {"el"}}
ZERO_WIDTH_JOINERS = {"\u200c", "\u200d"}
VIRAMAS = {"\u0d4d", "\u094d", "\u0e3a"}  # a letter after one joins the letter before it
THAI_LEADING_VOWELS = {chr(code) for code in range(0x0E40, 0x0E45)}  # written before theirs


@dataclass(frozen=True)
class Face:
    """One file of the stylesheet: its weight, the script it is for, and its ranges."""

    file: str
    weight: int
    script: str
    ranges: tuple[tuple[int, int], ...]

    def covers(self, character: str) -> bool:
        code = ord(character)
        return any(low <= code <= high for low, high in self.ranges)


_FACE = re.compile(r"@font-face\s*{(?P<body>[^}]*)}")
_SRC = re.compile(r"url\(\.\./fonts/(?P<file>[^)]+)\)")


def _ranges(text: str) -> tuple[tuple[int, int], ...]:
    found = []
    for part in text.split(","):
        low, _dash, high = part.strip().removeprefix("U+").partition("-")
        found.append((int(low, 16), int(high or low, 16)))
    return tuple(found)


@functools.cache
def faces() -> tuple[Face, ...]:
    """Every face of the stylesheet, Latin first: a character several faces hold (a
    space, a joiner) starts a run in the first of them."""
    found = []
    for block in _FACE.finditer(STYLESHEET.read_text(encoding="utf-8")):
        body = block["body"]
        source = _SRC.search(body)
        weight = re.search(r"font-weight:\s*(\d+)", body)
        covered = re.search(r"unicode-range:\s*([^;]+);", body)
        if source is None or weight is None or covered is None:
            continue
        file = source["file"]
        script = file.removeprefix("noto-sans-").split("-")[0]
        if script == "latin" and "-ext-" in file:
            script = "latin-ext"
        found.append(Face(file, int(weight[1]), script, _ranges(covered[1])))
    order = ["latin", "latin-ext", "greek", "malayalam", "devanagari", "thai"]
    return tuple(sorted(found, key=lambda face: order.index(face.script)))


def shaping() -> bool:
    """Whether runs are shaped (Raqm found: HarfBuzz and FriBiDi)."""
    return bool(features.check_feature("raqm"))


@functools.cache
def font(file: str, size: int) -> ImageFont.FreeTypeFont:
    """The face ``file`` at ``size`` pixels, opened once a process (a WOFF2 is unpacked
    when it is opened, about a millisecond)."""
    engine = ImageFont.Layout.RAQM if shaping() else ImageFont.Layout.BASIC
    return ImageFont.truetype(str(STATIC / "fonts" / file), size, layout_engine=engine)


@dataclass(frozen=True)
class Run:
    """A piece of a line drawn with one face, and the language it is shaped in."""

    text: str
    face: Face
    language: str | None


def runs(text: str, weight: int, language: str) -> list[Run]:
    """``text`` cut where its script changes, each run with the face of its weight that
    holds it; a character no face holds goes with the Latin face (which draws a box).
    A character the current run's face also holds (a joiner, a mark) stays in the run,
    so a cluster is never cut in two."""
    mine = [face for face in faces() if face.weight == weight]
    found: list[Run] = []
    current: Face | None = None
    start = 0
    for at, character in enumerate(text):
        if current is not None and current.covers(character):
            continue
        face = next((face for face in mine if face.covers(character)), mine[0])
        if current is not None and face != current:
            found.append(_run(text[start:at], current, language))
            start = at
        current = face
    if current is not None:
        found.append(_run(text[start:], current, language))
    return found


def _run(text: str, face: Face, language: str) -> Run:
    return Run(text, face, language if language in SCRIPTS.get(face.script, ()) else None)


def cut_points(text: str) -> list[int]:
    """Where ``text`` may be cut short without splitting a letter from its marks: before a
    character that starts a cluster (not a mark, not a joiner, nor after a virama, a
    joiner or a Thai vowel written before its consonant)."""
    points = []
    for at in range(1, len(text)):
        character, before = text[at], text[at - 1]
        if unicodedata.category(character).startswith("M"):
            continue
        if character in ZERO_WIDTH_JOINERS or before in ZERO_WIDTH_JOINERS | VIRAMAS:
            continue
        if before in THAI_LEADING_VOWELS:
            continue
        points.append(at)
    return points
