"""What the competitions' pages show: the lists, a table's rows in the reader's words, a
line's nights, the rule written out, and the token their kept pages are keyed by.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from django.db.models import Count, Max, Q, QuerySet, Sum
from django.template.defaultfilters import floatformat
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from club.clubs import known
from club.clubs.models import Club
from club.competitions import table as made
from club.competitions.forms import FORM_CHOICES as FORM_NAMES
from club.competitions.models import Competition
from club.games.models import Game
from club.games.versions import club_version, every_club_version
from club.scoring import seasons
from club.tournaments.models import Tournament
from club.web.paging import Page, page_of

STATES = {
    made.COUNTED: gettext_lazy("Counted"),
    made.WAITING: gettext_lazy("Results not final yet"),
    made.LATE_COUNTED: gettext_lazy("Late, counted"),
    made.LATE_DROPPED: gettext_lazy("Late, not counted"),
}
# What separated a line from the others of its total (the same words above and below).
DECIDED = {
    seasons.WON: gettext_lazy("equal total: placed by nights won"),
    seasons.HEAD_TO_HEAD: gettext_lazy("equal total: placed head to head"),
    seasons.LATEST: gettext_lazy("equal total: placed by the latest night"),
}
TIES = gettext_lazy(
    "Equal totals are separated by the nights won (first place alone), then head to head "
    "(who placed higher in the nights both played), then the latest night (from the last "
    "night back, the better place first). Equal on all three, they share the place."
)
PER_PAGE = 30
PROJECTOR_ROWS = 12  # lines a projector's panel shows at once
SHOWN_ON_A_PAGE = 3  # the competitions a player's page shows their line in


def figure(value: Fraction) -> str:
    """6 -> "6", 13/2 -> "6.5" ("6,5" where the reader writes so), 4/3 -> "1.33"."""
    if value.denominator == 1:
        return str(value.numerator)
    return floatformat(float(value), "-1" if (value * 10).denominator == 1 else "-2")


def _stamp(moment) -> int:
    return int(moment.timestamp() * 1_000_000) if moment else 0


def version(competition_pk: int, club: Club | None):
    """A competition page's key (club.web.pages), as ``(own, rest)``.

    ``own``, the token its live parts poll by: the competition's last change, the newest
    change to a game it may count, and its tournaments' results (their results version,
    how many finished and made final); ``rest``: the club's time zone (its nights' days)
    and the club's token (the federation's for a circuit), which moves on a tournament
    saved, a game deleted, a name changed."""
    row = (
        Competition.objects.filter(pk=competition_pk, club=club)
        .values_list("updated_at", "counts", "starts_on", "ends_on")
        .first()
    )
    if row is None:
        return None
    changed, counts, starts_on, ends_on = row
    if club is None or counts == Competition.Counts.EVENTS:
        games = Game.objects.filter(sitting_entry__sitting__tournament__competitions=competition_pk)
        events = Tournament.objects.filter(competitions=competition_pk)
    else:
        games = Game.objects.filter(club=club)
        events = Tournament.objects.filter(club=club, starts_on__range=(starts_on, ends_on))
    newest = games.aggregate(newest=Max("updated_at"))["newest"]
    results = events.aggregate(
        version=Sum("results_version"),
        finished=Count("pk", filter=Q(status=Tournament.Status.FINISHED)),
        final=Count("pk", filter=Q(is_final=True)),
    )
    own = ".".join(
        str(part)
        for part in (
            _stamp(changed),
            _stamp(newest),
            results["version"] or 0,
            results["finished"],
            results["final"],
        )
    )
    if club is None:
        return own, every_club_version
    return own, lambda: f"{known.by_id(club.pk).time_zone}|{club_version(club)}"


def needs_words(competition: Competition) -> str:
    """How many nights a team or a player needs to be ranked."""
    if competition.ranks == Competition.Ranks.PLAYERS:
        return ngettext(
            "A player needs %(count)d night to be ranked.",
            "A player needs %(count)d nights to be ranked.",
            competition.minimum,
        ) % {"count": competition.minimum}
    return ngettext(
        "A team needs %(count)d night to be ranked.",
        "A team needs %(count)d nights to be ranked.",
        competition.minimum,
    ) % {"count": competition.minimum}


# --- the lists ----------------------------------------------------------------------------


def circuits_counting(club: Club) -> QuerySet[Competition]:
    """The federation's circuits that count one of ``club``'s tournaments (listed at the
    club's address, on its page and in the API)."""
    counting = Competition.events.through.objects.filter(tournament__club=club)
    return Competition.objects.filter(club=None, pk__in=counting.values("competition_id"))


def competitions_of(club: Club | None, number: int, query: str = "") -> dict:
    """A club's competitions (the latest first) and the circuits that count its tournaments;
    on the site's page (no club), the circuits."""
    today = timezone.localdate()
    own = Competition.objects.filter(club=club).order_by("-ends_on", "name", "id")
    page: Page = page_of(own, number, PER_PAGE, query)
    circuits: list[Competition] = []
    if club is not None:
        circuits = list(circuits_counting(club).order_by("-ends_on", "name", "id")[:PER_PAGE])
    return {"competitions": page.items, "page": page, "circuits": circuits, "today": today}


# --- a table ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Chip:
    """A line's score in one night, as its row shows it."""

    score: str
    counted: bool
    title: str


def night_title(night: made.NightOf, circuit: bool) -> str:
    if night.tournament is None:
        return _("Club night")
    if circuit and night.club_id:
        return f"{night.tournament.name} · {known.by_id(night.club_id).name}"
    return night.tournament.name


def counts_words(competition: Competition, events: list[str]) -> str:
    """What the competition counts, in a sentence."""
    if competition.counts == Competition.Counts.EVENTS:
        return _("It counts these tournaments: %(names)s.") % {"names": ", ".join(events)}
    if competition.counts == Competition.Counts.FORM:
        form = str(dict(FORM_NAMES).get(competition.form, competition.form))
        return _("It counts the club's games and tournaments of one form of play: %(form)s.") % {
            "form": form
        }
    return _("It counts all the club's games and tournaments in its days.")


def rule_words(competition: Competition, nights: int, events: list[str] | None = None) -> list[str]:
    """The competition's rule, a sentence a part."""
    said = [counts_words(competition, events or [])]
    if competition.method == seasons.PLACES:
        said.append(
            _("A night scores points for its place: %(points)s; a place after the last scores 0.")
            % {"points": ", ".join(str(value) for value in competition.place_points)}
        )
        said.append(_("Places shared split the points of the places they span."))
    else:
        said.append(_("A night scores the match points earned in it."))
    if competition.best is not None:
        said.append(
            ngettext(
                "The best %(best)d night of %(nights)d counts.",
                "The best %(best)d nights of %(nights)d count.",
                competition.best,
            )
            % {"best": competition.best, "nights": nights}
        )
    if competition.minimum > 1:
        said.append(needs_words(competition))
    if competition.final_within_days is not None:
        late = (
            _("late results count") if competition.late_counts else _("late results do not count")
        )
        said.append(
            ngettext(
                "Results are due within %(days)d day of the night; %(late)s.",
                "Results are due within %(days)d days of the night; %(late)s.",
                competition.final_within_days,
            )
            % {"days": competition.final_within_days, "late": late}
        )
    return said


def _titles(found: made.Table, circuit: bool) -> tuple[dict[str, str], dict[str, str]]:
    """Each night's title, and the same after its day (a chip's hint)."""
    titles = {night.key: night_title(night, circuit) for night in found.nights}
    dated = {
        night.key: f"{date_format(night.day, 'j M Y')} · {titles[night.key]}"
        for night in found.nights
    }
    return titles, dated


def _rule(competition: Competition, found: made.Table, titles: dict[str, str]) -> list[str]:
    events = [titles[night.key] for night in found.nights if night.tournament is not None]
    return rule_words(competition, len(found.counted_nights), events)


def table_page(competition: Competition) -> dict:
    """The competition's table as its page, its print and its projector show it."""
    found = made.competition_table(competition)
    titles, dated = _titles(found, competition.is_circuit)
    rows = [_row(line, found, dated) for line in found.lines]
    return {
        "competition": competition,
        "rows": [row for row in rows if row["place"] is not None],
        "unranked": [row for row in rows if row["place"] is None],
        "nights": [
            {
                "key": night.key,
                "day": night.day,
                "title": titles[night.key],
                "state": STATES[night.state],
                "counts": night.counts,
                "url": night.tournament.get_absolute_url() if night.tournament else "",
                "lines": len(night.results),
            }
            for night in found.nights
        ],
        "counted_nights": len(found.counted_nights),
        "needs": needs_words(competition),
        "rule": _rule(competition, found, titles),
        "ties": TIES,
        "players": competition.ranks == Competition.Ranks.PLAYERS,
    }


def _row(line: seasons.Line, found: made.Table, titles: dict[str, str]) -> dict:
    counted = set(line.counted)
    return {
        "line": line.line,
        "name": found.names.get(line.line, "?"),
        "place": line.place,
        "shared": line.shared,
        "total": figure(line.total),
        "nights": line.nights,
        "won": line.won,
        # A place shared says so by its "="; what set a line apart from its total's others:
        "decided": "" if line.decided_by == seasons.SHARED else DECIDED.get(line.decided_by, ""),
        "chips": [
            Chip(figure(score), key in counted, titles[key]) for key, score in line.scores.items()
        ],
    }


def line_page(competition: Competition, line: int) -> dict | None:
    """One line's nights: each night's place and score, counted or dropped; None when the
    competition has no such line."""
    found = made.competition_table(competition)
    mine = next((each for each in found.lines if each.line == line), None)
    if mine is None:
        return None
    titles, dated = _titles(found, competition.is_circuit)
    return {
        "competition": competition,
        "row": _row(mine, found, dated),
        "detail": _detail(found, mine, titles),
        "rule": _rule(competition, found, titles),
    }


def _detail(found: made.Table, mine: seasons.Line, titles: dict[str, str]) -> list[dict]:
    counted = set(mine.counted)
    return [
        {
            "day": night.day,
            "title": titles[night.key],
            "place": result.place,
            "shared": result.sharing > 1,
            "score": figure(mine.scores[night.key]),
            "counted": night.key in counted,
        }
        for night in found.nights
        if (result := mine.places.get(night.key)) is not None
    ]


# --- a player's lines -----------------------------------------------------------------


def player_lines(player_pk: int, club: Club) -> list[dict]:
    """The player's line in the club's latest competitions of players (at most three, by
    their last day): where they stand, with the competition's link. Not by today's date,
    which the page's key does not hold."""
    shown = Competition.objects.filter(club=club, ranks=Competition.Ranks.PLAYERS).order_by(
        "-ends_on", "-id"
    )[:SHOWN_ON_A_PAGE]
    lines = []
    for competition in shown:
        found = made.competition_table(competition)
        mine = next((line for line in found.lines if line.line == player_pk), None)
        if mine is None:
            continue
        lines.append(
            {
                "competition": competition,
                "place": mine.place,
                "shared": mine.shared,
                "total": figure(mine.total),
                "nights": mine.nights,
                "ranked": sum(1 for line in found.lines if line.place is not None),
            }
        )
    return lines
