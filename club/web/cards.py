"""The picture of a result a messaging app shows beside a shared link: 1200x630, drawn here.

A page's preview (club.web.preview) names a picture of what the page says: a game's
tables, a tournament's standings, a sitting's games, a player's figures, a season's
table. Each app says what its picture holds as a :class:`Card` (a heading, a line under
it, a few rows, a note), in the reader's language; this module draws any card the same
way, with the club's own Noto faces (club.web.fonts), each run of text in the face of its
script, shaped by Raqm.

The same card always makes the same bytes (no time or random part in the PNG), so a
picture kept under its page's version (club.web.preview) is the picture made afresh.
"""

from __future__ import annotations

import functools
import io
from dataclasses import dataclass, field

from PIL import Image, ImageDraw, ImageFont

from club.web.fonts import BOLD, REGULAR, Run, cut_points, font, runs

WIDTH, HEIGHT = 1200, 630
MARGIN = 64
ELLIPSIS = "…"
# The site's own colours (static/css/club.css): its green, its paper, its ink.
GREEN = (20, 83, 45)
LIGHT_GREEN = (187, 247, 208)
PAPER = (247, 247, 242)
INK = (17, 24, 39)
MUTED = (75, 85, 99)
RULE = (214, 211, 196)
WHITE = (255, 255, 255)
COLOURS = 64
BAND = 196  # the green band's height, which holds the kicker and the heading
ROW_TOP, ROW_HEIGHT, ROWS = 286, 54, 5  # the rows' top, a row's height at five rows
MOST_ROW_HEIGHT, MOST_SCALE = 118, 1.6  # two or three rows: larger, as far as this


@dataclass(frozen=True)
class Row:
    """One line of the card's table: a short lead (a place, a table), a name, a figure."""

    lead: str
    name: str
    figure: str
    unit: str = ""  # drawn small after the figure: "tables", "pts"
    dim: bool = False  # still being played: drawn in the muted colour


@dataclass(frozen=True)
class Card:
    """What a picture says, every word already in the reader's language."""

    kicker: str  # above the heading, small: the club and the kind of page
    title: str
    subtitle: str
    rows: tuple[Row, ...] = field(default_factory=tuple)
    note: str = ""  # under the rows: "and 12 more teams"
    language: str = "en"


@dataclass(frozen=True)
class _Text:
    """A line of text at a weight and size, in the reader's language."""

    text: str
    weight: int
    size: int
    language: str

    def pieces(self) -> list[tuple[Run, ImageFont.FreeTypeFont, float]]:
        """Its runs, each with its face at this size and where it starts."""
        return _shaped(self.text, self.weight, self.size, self.language)[0]

    def width(self) -> float:
        """From the first run's start to the last ink: a last mark may hang past the
        advance (Malayalam's chandrakkala in "പോയിന്റ്"), and a right edge must hold it."""
        return _shaped(self.text, self.weight, self.size, self.language)[1]


@functools.lru_cache(maxsize=2048)
def _shaped(text: str, weight: int, size: int, language: str):
    """A line shaped once, for fitting, aligning and drawing it (the same words and sizes
    come back in every picture: "Standings", "points", the club's name)."""
    found = []
    advance = ink = 0.0
    for run in runs(text, weight, language):
        face = font(run.face.file, size)
        found.append((run, face, advance))
        ink = max(ink, advance + face.getbbox(run.text, anchor="ls", language=run.language)[2])
        advance += face.getlength(run.text, language=run.language)
    return found, max(advance, ink)


def _fitted(text: _Text, width: float, smallest: int) -> _Text:
    """``text`` made smaller until it fits ``width`` (no smaller than ``smallest``), then
    cut short at a cluster's edge, with an ellipsis, if it still does not."""
    wide = text.width()
    if wide <= width:
        return text
    # Even sizes only: fewer faces opened (a WOFF2 is unpacked for each size).
    size = max(smallest, int(text.size * width / wide) // 2 * 2)
    text = _Text(text.text, text.weight, size, text.language)
    if text.width() <= width:
        return text
    points = cut_points(text.text)
    low, high = 0, len(points) - 1
    best = _Text(ELLIPSIS, text.weight, size, text.language)
    while low <= high:  # the longest start that fits with its ellipsis
        middle = (low + high) // 2
        shorter = _Text(
            text.text[: points[middle]].rstrip() + ELLIPSIS, text.weight, size, text.language
        )
        if shorter.width() <= width:
            best, low = shorter, middle + 1
        else:
            high = middle - 1
    return best


def _draw(
    draw: ImageDraw.ImageDraw, text: _Text, x: float, baseline: float, colour, *, right=False
):
    """``text`` on ``baseline``, from ``x`` (to ``x`` when ``right``), run after run."""
    if right:
        x -= text.width()
    for run, face, at in text.pieces():
        draw.text(
            (x + at, baseline), run.text, font=face, fill=colour, anchor="ls", language=run.language
        )


def _rows(pen: ImageDraw.ImageDraw, card: Card, line) -> None:
    """The card's rows under its heading, larger when there are few (a game's two teams
    fill the space five standings would), and its note under them."""
    rows = card.rows[:ROWS]
    room_below = 58 if card.note else 20
    height = min(MOST_ROW_HEIGHT, (HEIGHT - ROW_TOP - room_below) // max(len(rows), 1))
    scale = min(MOST_SCALE, height / ROW_HEIGHT)
    size = round(36 * scale) // 2 * 2  # even sizes only, as above
    leads = [line(row.lead, BOLD, size, 24, 120) for row in rows]
    lead_width = max((lead.width() for lead in leads), default=0)
    name_at = MARGIN + (lead_width + 24 if lead_width else 0)
    for index, row in enumerate(rows):
        baseline = ROW_TOP + index * height + round(height * 0.72)
        colour = MUTED if row.dim else INK
        figure = line(row.figure, BOLD, round(size * 1.15) // 2 * 2, 24, 360)
        unit = line(row.unit, REGULAR, round(size * 0.7) // 2 * 2, 18, 240) if row.unit else None
        right = WIDTH - MARGIN
        if unit is not None:
            _draw(pen, unit, right, baseline, MUTED, right=True)
            right -= unit.width() + 12
        _draw(pen, figure, right, baseline, colour, right=True)
        room = right - figure.width() - 32 - name_at
        _draw(pen, leads[index], MARGIN + lead_width, baseline, GREEN, right=True)
        _draw(pen, line(row.name, REGULAR, size, 24, room), name_at, baseline, colour)
        rule = ROW_TOP + (index + 1) * height
        pen.line((MARGIN, rule, WIDTH - MARGIN, rule), fill=RULE, width=2)
    if card.note:  # under the last row
        _draw(
            pen, line(card.note, REGULAR, 28, 20), MARGIN, ROW_TOP + len(rows) * height + 38, MUTED
        )


def draw(card: Card) -> bytes:
    """The card as a 1200x630 PNG."""
    image = Image.new("RGB", (WIDTH, HEIGHT), PAPER)
    pen = ImageDraw.Draw(image)
    pen.rectangle((0, 0, WIDTH, BAND), fill=GREEN)
    inner = WIDTH - 2 * MARGIN
    language = card.language

    def line(words: str, weight: int, size: int, smallest: int, width: float = inner) -> _Text:
        return _fitted(_Text(words, weight, size, language), width, smallest)

    _draw(pen, line(card.kicker, REGULAR, 30, 22), MARGIN, 64, LIGHT_GREEN)
    _draw(pen, line(card.title, BOLD, 64, 40), MARGIN, 156, WHITE)
    _draw(pen, line(card.subtitle, REGULAR, 34, 24), MARGIN, 256, MUTED)
    _rows(pen, card, line)
    # A card has a few inks and their edges: 64 colours hold them, and the PNG is a third
    # of the size and made faster (messaging apps refuse large pictures).
    flat = image.quantize(COLOURS, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    out = io.BytesIO()
    flat.save(out, format="PNG", compress_level=3)
    return out.getvalue()
