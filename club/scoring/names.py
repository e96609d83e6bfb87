"""Names as the club keeps them: one spelling for what looks like one name.

Pure Python, no Django. Every name or label typed at the club (a player, a
team, a game's label, a tournament, from a form, the register or its CSV
import) goes through :func:`clean_name`:

- Unicode NFC, so an accent typed as a letter and a combining mark is the
  one accented letter; then the look-alike *compatibility* forms of Latin
  letters and digits are folded to the plain ones (NFKC, but only for these):
  full-width "Ａｎｕ" is "Anu", the ligature "ﬁ" is "fi", mathematical bold
  "𝐀𝐧𝐮" is "Anu". Full NFKC would also rewrite what people really write:
  the Thai vowel "ำ" (two code points after NFKC) and the Spanish "Mª" ("Ma");
- runs of spaces (of any kind) become one space, and the ends are trimmed;
- characters that cannot be seen or that move text around are refused:
  control characters, zero-width spaces, the byte-order mark, bidirectional
  overrides and isolates, private-use and unassigned code points. "Anu" and
  "A\u200bnu" would look alike on every page and count as two players.

The zero-width joiner and non-joiner (U+200D, U+200C) are part of how
Malayalam, Marathi and other scripts are written, so they are kept after a
letter or mark of such a script when a letter follows, or after a virama (the
old-style Malayalam chillu, "ന്‍", ends a word with one); never after a Latin
letter, where they only hide.

Archives keep their names as written (club.archive): every file the
app ever exported must stay valid and export again identically.
"""

from __future__ import annotations

import unicodedata

from club.scoring.messages import TranslatableError, _

JOINERS = {"\u200c", "\u200d"}
REFUSED_CATEGORIES = {"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"}


def unstorable(text: str) -> bool:
    """Control characters and lone surrogates: no database stores them (PostgreSQL
    refuses NUL), and none is ever meant in a name, a label or a cell."""
    return any(unicodedata.category(char) in ("Cc", "Cs") for char in text)


class UnusableName(TranslatableError):
    """A name with a character that must not be in one; ``code`` says which (``U+200B``)."""

    def __init__(self, name: str, char: str):
        self.name = "".join(c for c in name if not _hidden(c))
        self.code = f"U+{ord(char):04X}"
        super().__init__(
            _(
                "“%(name)s” holds an invisible or control character (%(code)s) that would "
                "make it look like another name; type it again without it."
            ),
            name=self.name,
            code=self.code,
        )


def _hidden(char: str) -> bool:
    return unicodedata.category(char) in REFUSED_CATEGORIES


# Compatibility forms of Latin letters and digits that look like the plain ones.
FOLDED = (
    range(0xFF01, 0xFF5F),  # full-width ASCII
    range(0xFB00, 0xFB07),  # Latin ligatures: ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ
    range(0x1D400, 0x1D800),  # mathematical letters and digits: bold, italic, script …
)


def _folded(char: str) -> bool:
    return any(ord(char) in block for block in FOLDED)


def _joins_a_script(text: str, index: int) -> bool:
    """A joiner after a letter or mark of a script that writes with them (not ASCII),
    before another letter or mark, or after a virama."""
    if index == 0:
        return False
    before = text[index - 1]
    if before.isascii() or unicodedata.category(before)[0] not in "LM":
        return False
    if unicodedata.combining(before) == 9:  # a virama: the chillu "ന്‍"
        return True
    return index < len(text) - 1 and unicodedata.category(text[index + 1])[0] in "LM"


def normal_name(text: str) -> str:
    """NFC, look-alike Latin forms folded, spaces collapsed: for lookups, never refuses."""
    text = unicodedata.normalize("NFC", text or "")
    if any(_folded(char) for char in text):
        text = "".join(unicodedata.normalize("NFKC", c) if _folded(c) else c for c in text)
    return " ".join(text.split())


def clean_name(text: str) -> str:
    """The name as it is kept; raises :class:`UnusableName` for a hidden character."""
    name = normal_name(text)
    for index, char in enumerate(name):
        if _hidden(char) and not (char in JOINERS and _joins_a_script(name, index)):
            raise UnusableName(name, char)
    return name


def default_team_name(players, limit: int = 170) -> str:
    """The name a team gets when none is given: its players joined by " & ", cut to ``limit``.

    Two names always fit (80 characters each); three or four long ones are cut
    short with an ellipsis, so the name stays within the column that keeps it.
    """
    name = " & ".join(players)
    return name if len(name) <= limit else name[: limit - 1].rstrip() + "…"


def search_key(text: str) -> str:
    """A name as a search compares it: case ignored, and the accents of the Combining
    Diacritical Marks (U+0300 to U+036F: "José" finds "Jose", "Γιώργος" "γιωργος"); the
    vowel signs of Malayalam, Marathi or Thai, which are letters of the name, stay.
    The page's script (club.js, searchKey) narrows the list by the same rule."""
    decomposed = unicodedata.normalize("NFD", " ".join(text.split()).casefold())
    kept = "".join(char for char in decomposed if not "\u0300" <= char <= "\u036f")
    return unicodedata.normalize("NFC", kept)
