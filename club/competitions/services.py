"""Every write to a competition: made, changed or deleted by its organisers, each checked
whole before anything is saved, and the kept pages it shows on moved in the same
transaction (club.games.versions)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass

from django.db import transaction
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from club.clubs.models import Club
from club.competitions.models import Competition
from club.games import versions
from club.games.words import KODI, POINTS, TABLES
from club.scoring import seasons
from club.scoring.messages import Refusal
from club.tournaments.models import Tournament

# The refusals, in the organiser's words (the tests compare with them).
NAME_TAKEN = gettext_lazy("The club already has a season named “%(name)s”: choose another name.")
CIRCUIT_NAME_TAKEN = gettext_lazy(
    "There is already a circuit named “%(name)s”: choose another name."
)
ENDS_BEFORE_START = gettext_lazy("The last day (%(end)s) is before the first day (%(start)s).")
CHOOSE_FORM = gettext_lazy("Choose the form of play whose games count.")
CHOOSE_EVENTS = gettext_lazy("Choose at least one tournament to count.")
A_CIRCUIT_COUNTS_EVENTS = gettext_lazy("A circuit counts the tournaments it is given.")
NOT_THE_CLUBS = gettext_lazy("“%(name)s” is another club's tournament.")
NOT_IN_SPAN = gettext_lazy(
    "“%(name)s” starts on %(day)s, outside the competition's days (%(start)s to %(end)s)."
)
TOO_LONG = gettext_lazy("A competition spans at most %(days)d days.")
CHOOSE_COUNTS = gettext_lazy(
    "Choose what counts: all the club's games and tournaments, one form of play, or chosen "
    "tournaments."
)
CHOOSE_RANKS = gettext_lazy("Choose whether teams or players are ranked.")
DUE_TOO_LATE = gettext_lazy("Results are due within %(days)d days of the night at most.")
MAX_DUE = 365
OUT_OF_YEARS = gettext_lazy("Give days between the years %(first)d and %(last)d.")
FIRST_YEAR, LAST_YEAR = 1900, 2199  # a club's seasons are of its own time
MAX_DAYS = 3 * 366  # a season, or a circuit, is a year or so: not a club's whole history
FORMS = (TABLES, POINTS, KODI)


class CompetitionError(Refusal):
    """A competition's write refused, with a message for the organiser."""


@dataclass(frozen=True)
class Terms:
    """What an organiser sets: the span, what counts, and the rule."""

    name: str
    starts_on: dt.date
    ends_on: dt.date
    counts: str
    ranks: str
    method: str
    place_points: tuple[int, ...] = ()
    form: str = ""
    best: int | None = None
    minimum: int = 1
    final_within_days: int | None = None
    late_counts: bool = False

    @classmethod
    def of(cls, competition: Competition) -> Terms:
        """A competition's terms as its row holds them (its points a list as stored; what a
        forged backup holds instead is kept as it is, for the checks to refuse)."""
        points = competition.place_points
        return cls(
            name=competition.name,
            starts_on=competition.starts_on,
            ends_on=competition.ends_on,
            counts=competition.counts,
            ranks=competition.ranks,
            method=competition.method,
            place_points=tuple(points) if isinstance(points, list) else points,
            form=competition.form,
            best=competition.best,
            minimum=competition.minimum,
            final_within_days=competition.final_within_days,
            late_counts=competition.late_counts,
        )


def _day(day: dt.date) -> str:
    """A day in the reader's words: "1 March 2026"."""
    return date_format(day, "j F Y")


def check_days(starts_on: dt.date, ends_on: dt.date) -> None:
    """The span's days: within the years a club plays in, the last not before the first,
    a few years at most (each refused naming what)."""
    for field, day in (("starts_on", starts_on), ("ends_on", ends_on)):
        if not FIRST_YEAR <= day.year <= LAST_YEAR:
            raise CompetitionError(
                str(OUT_OF_YEARS) % {"first": FIRST_YEAR, "last": LAST_YEAR}, field=field
            )
    if ends_on < starts_on:
        raise CompetitionError(
            str(ENDS_BEFORE_START) % {"end": _day(ends_on), "start": _day(starts_on)},
            field="ends_on",
        )
    if (ends_on - starts_on).days > MAX_DAYS:
        raise CompetitionError(str(TOO_LONG) % {"days": MAX_DAYS}, field="ends_on")


def check_terms(
    club: Club | None, terms: Terms, events: list[Tournament], *, events_in_span: bool = True
) -> None:
    """Everything a competition's terms must be (the form, the archive and a restore all
    come through here), refused with the first thing wrong, named. A restore does not ask
    its tournaments to start in its days (``events_in_span``): a tournament's days may
    have been changed since it was chosen."""
    check_days(terms.starts_on, terms.ends_on)
    if terms.counts not in Competition.Counts.values:
        raise CompetitionError(str(CHOOSE_COUNTS), field="counts")
    if terms.ranks not in Competition.Ranks.values:
        raise CompetitionError(str(CHOOSE_RANKS), field="ranks")
    if terms.final_within_days is not None and not 0 <= terms.final_within_days <= MAX_DUE:
        raise CompetitionError(str(DUE_TOO_LATE) % {"days": MAX_DUE}, field="final_within_days")
    if club is None and terms.counts != Competition.Counts.EVENTS:
        raise CompetitionError(str(A_CIRCUIT_COUNTS_EVENTS), field="counts")
    if terms.counts == Competition.Counts.FORM and terms.form not in FORMS:
        raise CompetitionError(str(CHOOSE_FORM), field="form")
    if terms.counts == Competition.Counts.EVENTS:
        _checked_events(club, terms, events, events_in_span)
    try:
        seasons.Rule(terms.method, terms.place_points, best=terms.best, minimum=terms.minimum)
    except seasons.SeasonError as error:
        raise CompetitionError(error.translated(_), field=error.field or "method") from error


def _checked_events(
    club: Club | None, terms: Terms, events: list[Tournament], in_span: bool
) -> None:
    if not events:
        raise CompetitionError(str(CHOOSE_EVENTS), field="events")
    for event in events:
        if club is not None and event.club_id != club.pk:
            raise CompetitionError(str(NOT_THE_CLUBS) % {"name": event.name}, field="events")
        if in_span and not terms.starts_on <= event.starts_on <= terms.ends_on:
            raise CompetitionError(
                str(NOT_IN_SPAN)
                % {
                    "name": event.name,
                    "day": _day(event.starts_on),
                    "start": _day(terms.starts_on),
                    "end": _day(terms.ends_on),
                },
                field="events",
            )


def _name_taken(club: Club | None, name: str, competition: Competition | None) -> bool:
    same = Competition.objects.filter(club=club, name__iexact=name)
    if competition is not None:
        same = same.exclude(pk=competition.pk)
    return same.exists()


@transaction.atomic
def save_competition(
    *,
    club: Club | None,
    terms: Terms,
    events: Iterable[Tournament] = (),
    user=None,
    competition: Competition | None = None,
) -> Competition:
    """Make a competition of ``club`` (None: a circuit of the federation) or change
    ``competition``; refused whole, naming what is wrong, before anything is saved."""
    events = list(events) if terms.counts == Competition.Counts.EVENTS else []
    check_terms(club, terms, events)
    if _name_taken(club, terms.name, competition):
        taken = NAME_TAKEN if club is not None else CIRCUIT_NAME_TAKEN
        raise CompetitionError(str(taken) % {"name": terms.name}, field="name")
    touched = _clubs_shown(competition) if competition is not None else set()
    if competition is None:
        competition = Competition(club=club, created_by=user if user and user.pk else None)
    for name, value in terms.__dict__.items():
        setattr(competition, name, list(value) if name == "place_points" else value)
    if terms.counts != Competition.Counts.FORM:
        competition.form = ""
    competition.save()
    competition.events.set(events)
    _moved(touched | _clubs_shown(competition))
    return competition


@transaction.atomic
def delete_competition(competition: Competition) -> None:
    touched = _clubs_shown(competition)
    competition.delete()
    _moved(touched)


def _clubs_shown(competition: Competition) -> set[int]:
    """The clubs whose pages show the competition: its club, and a circuit's events' clubs."""
    if competition.club_id is not None:
        return {competition.club_id}
    return set(competition.events.values_list("club_id", flat=True))


def _moved(clubs: set[int]) -> None:
    """The kept pages that show the competition are read anew (club.games.versions)."""
    if clubs:
        versions.bump_names(clubs)
    else:  # a circuit of no event yet: the federation's pages, which follow every club
        versions.bump_names(every=True)
