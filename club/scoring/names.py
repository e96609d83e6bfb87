"""Names as the club keeps them: one spelling for what looks like one name.

Pure Python, no Django. Every name or label that comes in (a player, a team,
a game's label, a tournament, from a form, the register or an imported file)
goes through :func:`clean_name`:

- Unicode NFKC: look-alike compatibility forms become the plain letters they
  show (full-width "Ａｎｕ" is "Anu", the ligature "ﬁ" is "fi"), so one name
  cannot be typed two ways that the club then keeps as two people;
- runs of spaces (of any kind) become one space, and the ends are trimmed;
- characters that cannot be seen or that move text around are refused:
  control characters, zero-width spaces, the byte-order mark, bidirectional
  overrides and isolates, private-use and unassigned code points. "Anu" and
  "A\\u200bnu" would look alike on every page and count as two players.

The zero-width joiner and non-joiner (U+200D, U+200C) are part of how
Malayalam, Marathi and other scripts are written, so they are kept between
two letters of such a script (not after a Latin letter, where they only
hide).

Matching (:func:`name_key`) also ignores capitals, as the database's unique
constraints do.
"""

from __future__ import annotations

import unicodedata


def _(message: str) -> str:
    """Marks a message for translation; the caller translates it (see UnusableName)."""
    return message


JOINERS = {"\u200c", "\u200d"}
REFUSED_CATEGORIES = {"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"}


class UnusableName(ValueError):
    """A name with a character that must not be in one; ``code`` says which (``U+200B``)."""

    template = _(
        "“%(name)s” holds an invisible or control character (%(code)s) that would make it "
        "look like another name; type it again without it."
    )

    def __init__(self, name: str, char: str):
        self.name = "".join(c for c in name if not _hidden(c))
        self.code = f"U+{ord(char):04X}"
        super().__init__(self.template % {"name": self.name, "code": self.code})

    def translated(self, gettext) -> str:
        return gettext(self.template) % {"name": self.name, "code": self.code}


def _hidden(char: str) -> bool:
    return unicodedata.category(char) in REFUSED_CATEGORIES


def _joins_a_script(text: str, index: int) -> bool:
    """A joiner between two letters or marks, the one before it not Latin (ASCII)."""
    if index == 0 or index == len(text) - 1:
        return False
    before, after = text[index - 1], text[index + 1]
    return (
        not before.isascii()
        and unicodedata.category(before)[0] in "LM"
        and unicodedata.category(after)[0] in "LM"
    )


def normal_name(text: str) -> str:
    """NFKC with spaces collapsed: for looking a name up, never refuses."""
    return " ".join(unicodedata.normalize("NFKC", text or "").split())


def clean_name(text: str) -> str:
    """The name as it is kept; raises :class:`UnusableName` for a hidden character."""
    name = normal_name(text)
    for index, char in enumerate(name):
        if _hidden(char) and not (char in JOINERS and _joins_a_script(name, index)):
            raise UnusableName(name, char)
    return name


def name_key(text: str) -> str:
    """How names are matched: spelling forms, spacing and capitals do not matter."""
    return normal_name(text).lower()
