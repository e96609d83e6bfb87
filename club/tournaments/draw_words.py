"""How a sitting was drawn, in the reader's words.

The sitting keeps what its draw did as data (``Sitting.explained``, written by
club.scoring.draw_notes when it was drawn); its page and its printout say it
here, in the reader's language, the teams by their names. A sitting drawn
before draws were explained says nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

from django.template.defaultfilters import floatformat
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, npgettext

from club.scoring.draw_notes import still_true

Names = Mapping[int, str]


def _say(message: str, **values) -> SafeString:
    """A translated sentence filled in, everything escaped but the names' bold."""
    filled = {
        key: value if isinstance(value, int) else conditional_escape(value)
        for key, value in values.items()
    }
    return mark_safe(conditional_escape(message) % filled)


def points_words(text: str) -> str:
    """ "3" -> "3 points", "1.5" -> "1.5 points" (in the reader's way of writing numbers)."""
    value = Decimal(text)
    places = max(0, -int(value.as_tuple().exponent))
    number = floatformat(value, -places if places else 0)
    # A part of a point takes the form of "many" (the plural of 2 in most languages).
    count = int(value) if not places else 2
    return npgettext("tournament points", "%(points)s point", "%(points)s points", count) % {
        "points": number
    }


class _Teams:
    """Team names in bold, alone or listed."""

    def __init__(self, names: Names):
        self.names = names

    def one(self, team: int) -> SafeString:
        name = self.names.get(team) or _("a team no longer registered")
        return format_html("<b>{}</b>", name)

    def listed(self, teams) -> SafeString:
        return _and([self.one(team) for team in teams])


def _and(parts: list) -> SafeString:
    """ "A", "A and B", "A, B and C"."""
    parts = [conditional_escape(part) for part in parts]
    if len(parts) <= 1:
        return parts[0] if parts else mark_safe("")
    return _say(_("%(items)s and %(last)s"), items=mark_safe(", ".join(parts[:-1])), last=parts[-1])


def _method(notes: dict, stage_title: str) -> SafeString:
    method = notes.get("method")
    if method == "swiss":
        return _say(
            _(
                "Swiss draw: the tables are filled from the top of the standings down, teams on "
                "the same tournament points (a score group) together where they can be, and "
                "teams that have met apart where they can be."
            )
        )
    if method == "chart":
        return _say(
            _("Drawn from the chart of %(stage)s, made when the stage began."), stage=stage_title
        )
    if method == "bracket":
        return _say(
            _("Drawn from the bracket of %(stage)s: the matches whose teams are known."),
            stage=stage_title,
        )
    return _say(_("Random draw: no game had been played yet, so the tables were drawn at random."))


def _moved(line: dict, teams: _Teams, others) -> SafeString:
    values = {
        "team": teams.one(line["team"]),
        "points": points_words(line["from"]),
        "others": teams.listed(others),
        "table": line["table"],
    }
    down = line["way"] == "down"
    if line["why"] == "count":
        values["above"] = points_words(line["above"])
        if down:
            message = _(
                "%(team)s (%(points)s) was moved down to play %(others)s at table %(table)d: "
                "the teams on %(above)s or more could not fill whole tables."
            )
        else:
            message = _(
                "%(team)s (%(points)s) was moved up to play %(others)s at table %(table)d: "
                "the teams on %(above)s or more could not fill whole tables."
            )
    elif down:
        message = _(
            "%(team)s (%(points)s) was moved down to play %(others)s at table %(table)d, "
            "to keep apart teams that had met."
        )
    else:
        message = _(
            "%(team)s (%(points)s) was moved up to play %(others)s at table %(table)d, "
            "to keep apart teams that had met."
        )
    return _say(message, **values)


def _rematch(line: dict, teams: _Teams) -> SafeString:
    first, second = (teams.one(team) for team in line["teams"])
    if line.get("hand"):
        message = _(
            "%(first)s and %(second)s meet again at table %(table)d, as the director seated them."
        )
    else:
        message = _(
            "%(first)s and %(second)s meet again at table %(table)d: the draw found no way "
            "to keep every pair of teams that had met apart."
        )
    return _say(message, first=first, second=second, table=line["table"])


def _out(line: dict, teams: _Teams) -> SafeString:
    team = teams.one(line["team"])
    how = line.get("how")
    if line["why"] == "absent":
        return _say(
            _("%(team)s: not checked in, so left out of the draw (no game, no bye)."), team=team
        )
    if how == "lowest" and not line["byes"]:
        return _say(
            _(
                "%(team)s has the bye: byes go to the teams that have had none, the lowest "
                "placed first."
            ),
            team=team,
        )
    if how == "lowest":
        message = ngettext(
            "%(team)s has the bye: byes go to the teams with the fewest byes so far, the "
            "lowest placed first, and it had had %(count)d.",
            "%(team)s has the bye: byes go to the teams with the fewest byes so far, the "
            "lowest placed first, and it had had %(count)d.",
            line["byes"],
        )
        return _say(message, team=team, count=line["byes"])
    if how == "rematch":
        return _say(
            _(
                "%(team)s has the bye in place of %(others)s (placed lower, with as few "
                "byes), to avoid a rematch."
            ),
            team=team,
            others=teams.listed(line["instead"]),
        )
    if how == "random":
        return _say(
            _("%(team)s has the bye, drawn at random among the teams with the fewest byes so far."),
            team=team,
        )
    if how == "withdrawn":
        return _say(
            _("%(team)s has the bye: %(opponent)s, its opponent in the chart, has withdrawn."),
            team=team,
            opponent=teams.one(line["opponent"]),
        )
    if how == "absent_opponent":
        return _say(
            _("%(team)s has the bye: %(opponent)s, its opponent in the chart, is not checked in."),
            team=team,
            opponent=teams.one(line["opponent"]),
        )
    if how == "hand":
        return _say(_("%(team)s has the bye the director gave it."), team=team)
    return _say(_("%(team)s has the bye the chart gives it in this sitting."), team=team)


def _changed(change: dict) -> SafeString | None:
    tables = change["tables"]
    if not tables:
        return None
    listed = _and([str(number) for number in tables])
    return _say(
        ngettext(
            "Changed by hand: the director changed table %(tables)s after the draw, so what is "
            "said here is only what is still true of the tables as they are.",
            "Changed by hand: the director changed tables %(tables)s after the draw, so what is "
            "said here is only what is still true of the tables as they are.",
            len(tables),
        ),
        tables=listed,
    )


def explanation(explained: dict, names: Names, games, stage_title: str = "") -> dict | None:
    """The sentences of how a sitting was drawn, by part, or None for a sitting drawn
    before draws were explained. ``games`` are the sitting's tables as played (team ids),
    to name whom a moved team plays."""
    if not explained:
        return None
    notes = still_true(explained)
    teams = _Teams(names)
    tables = {number: game for number, game in enumerate(games, start=1)}
    change = notes.get("adjusted")
    return {
        "method": _method(notes, stage_title),
        "changed": _changed(change) if change else None,
        "groups": [
            _say(
                _("%(points)s: %(teams)s"),
                points=points_words(group["score"]),
                teams=teams.listed(group["teams"]),
            )
            for group in notes.get("groups", [])
        ],
        "moved": [
            _moved(line, teams, [t for t in tables.get(line["table"], []) if t != line["team"]])
            for line in notes.get("moved", [])
        ],
        "avoided": [
            _say(
                _("%(first)s and %(second)s had met before, so they were not drawn together."),
                first=teams.one(first),
                second=teams.one(second),
            )
            for first, second in notes.get("avoided", [])
        ],
        "rematches": [_rematch(line, teams) for line in notes.get("rematches", [])],
        "out": [_out(line, teams) for line in notes.get("out", [])],
    }
