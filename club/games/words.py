"""The words each form of play speaks, decided in one place from its rules.

A table game counts the tables each team holds, and places the teams still playing by
them when it stops early; a points sheet (56 International) counts points, and the
higher total wins; a kodi night counts tables too, but is placed by fewest kodis first.
Pages, prompts, messages and files ask here, with the game, tournament or rules they
speak of (anything with ``scoring`` and ``kodi``), instead of testing the form of play
each on its own.
"""

from __future__ import annotations

import re

from django.utils.translation import gettext as _
from django.utils.translation import ngettext, npgettext

from club.scoring.rules import Scoring

TABLES, POINTS, KODI = "tables", "points", "kodi"


def form_of(holder) -> str:
    """ "points", "kodi" or "tables": how ``holder``'s games are counted and placed."""
    return form_named(holder.scoring, holder.kodi)


def form_named(scoring: str, kodi: bool) -> str:
    """The form of play of a game scored so, with kodi or not (as stored: a row's values)."""
    if scoring == Scoring.POINTS:
        return POINTS
    return KODI if kodi else TABLES


def amount(holder, count: int) -> str:
    """A team's count: "12 tables", "1 table", "30 points", "1 point"."""
    if form_of(holder) == POINTS:
        return ngettext("%(count)d point", "%(count)d points", count) % {"count": count}
    return ngettext("%(count)d table", "%(count)d tables", count) % {"count": count}


def unit(holder, count: int) -> str:
    """The word after a team's count, alone ("tables", "point"), for a scoreboard that
    shows the number large and the word small."""
    if form_of(holder) == POINTS:
        return npgettext("after a team's count", "point", "points", count)
    return npgettext("after a team's count", "table", "tables", count)


def how_placed_when_stopped(holder) -> str:
    """How the teams of a game stopped before its end are placed."""
    form = form_of(holder)
    if form == POINTS:
        return _("the higher total wins, equal totals share a place")
    if form == KODI:
        return _("fewest kodis first, then most tables held")
    return _("teams still playing are placed by the tables they hold")


def call_time_question(holder) -> str:
    """The question before an organiser ends a game now."""
    return _("End the game now? %(how)s.") % {"how": _capital(how_placed_when_stopped(holder))}


def call_sitting_question(holder) -> str:
    """The question before an organiser ends every game of a sitting still being played."""
    return _("End every game of this sitting still being played? %(how)s.") % {
        "how": _capital(how_placed_when_stopped(holder))
    }


def time_called_news(holder, count: int, level: int = 0) -> str:
    """What calling time on a sitting did: how many games it ended, how they are placed,
    and how many of them, with no deal, ended level."""
    news = ngettext(
        "Time called: %(count)d game ended; %(how)s.",
        "Time called: %(count)d games ended; %(how)s.",
        count,
    ) % {"count": count, "how": how_placed_when_stopped(holder)}
    if not level:
        return news
    return (
        news
        + " "
        + ngettext(
            "%(count)d table had no deal and ended level.",
            "%(count)d tables had no deal and ended level.",
            level,
        )
        % {"count": level}
    )


def game_time_called_news(holder) -> str:
    """What calling time on one game did, in the words of its form of play."""
    return _("Time called: %(how)s.") % {"how": how_placed_when_stopped(holder)}


# A game with no deal ends level when time is called (docs/rules.md, "A table with no
# deal"): the organiser is told so by name before it ends, and after.


def no_deal_line(table: str, teams) -> str:
    """One table the organiser is asked about before time is called, as in: Table 3 (Anu &
    Biju vs Chitra & Dev) has no deal: it will end level."""
    between = " " + _("vs") + " "  # outside an f-string, where makemessages finds it
    return _("%(table)s (%(teams)s) has no deal: it will end level.") % {
        "table": table,
        "teams": between.join(teams),
    }


def ended_level_news() -> str:
    """What calling time did to a game with no deal."""
    return _(
        "Time called before any deal: the game ended level; its teams share the first place "
        "and none of them won it."
    )


def after_heading(holder) -> str:
    """The heading over each team's count after a deal, on a score sheet or a table."""
    return _("Points after") if form_of(holder) == POINTS else _("Tables after")


def after_column(holder) -> str:
    """The deals CSV's column of each team's count after the deal."""
    return "points_after" if form_of(holder) == POINTS else "tables_after"


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


# --- Labels the app makes ----------------------------------------------------------
#
# A tournament's game is labelled by its tournament, sitting and table, and a table of
# a sitting "Table 3". They are stored, and exported, in English, the one form every
# reader and other tools can read back; each page shows them in its reader's language.
# A label typed by an organiser, or made in another language, is shown as it is.

_TABLE = re.compile(r"Table (\d{1,4})")
_SITTING_GAME = re.compile(r"(?P<tournament>.+) · sitting (?P<number>\d{1,4}) · (?P<table>.+)")


def sitting_game_label(tournament: str, number: int, table: str) -> str:
    """The stored label of a sitting's game: "Cup · sitting 2 · Table 3" (English)."""
    return f"{tournament} · sitting {number} · {table}"


def table_title(label: str) -> str:
    """A table's label in the reader's words: "Table 3" becomes "മേശ 3"."""
    found = _TABLE.fullmatch(label)
    if found is None:
        return label
    return _("Table %(number)s") % {"number": int(found[1])}


def sitting_game(label: str) -> dict | None:
    """A sitting's game's label read back: its tournament, its sitting's number and its
    table in the reader's words; None for any other label."""
    found = _SITTING_GAME.fullmatch(label)
    if found is None:
        return None
    return {
        "tournament": found["tournament"],
        "number": int(found["number"]),
        "table": table_title(found["table"]),
    }


def game_title(label: str) -> str:
    """A game's label in the reader's words: a sitting's game says its sitting and table
    in the reader's language; any other label is shown as it is."""
    found = _SITTING_GAME.fullmatch(label)
    if found is None:
        return label
    return _("%(tournament)s · sitting %(number)d · %(table)s") % {
        "tournament": found["tournament"],
        "number": int(found["number"]),
        "table": table_title(found["table"]),
    }
