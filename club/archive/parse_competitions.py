"""A club's competitions in a file: its optional top-level ``competitions``, the rule of
each season and what it counts (docs/rules.md section F), written by a club's export when
the club has some, checked with the document's shape, and stored by an import once the
file's games and tournaments are.

A competition's table is never written: it is made from the games and standings whenever
it is read (club.competitions.table), so a file holds what the organiser chose and nothing
derived from the results. A competition of the file::

    {"name": "Winter league", "starts_on": "2026-01-01", "ends_on": "2026-03-31",
     "counts": "events",
     "events": [{"name": "Thursday League, January 2026", "starts_on": "2026-01-08"}],
     "ranks": "teams", "method": "places", "place_points": [10, 6, 4, 2],
     "best": 2, "minimum": 2, "final_within_days": null, "late_counts": false}

``form`` is there only when it counts one form of play, ``events`` only when it counts
chosen tournaments: each names a tournament as the format names one, by its name and its
first day, a tournament of the club the file is imported into (already there, or brought
by the same file). A competition whose name the club has already (capitals aside) takes
the file's rule and tournaments; the club's competitions the file does not name are left
as they are.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import date

from django.utils.translation import gettext as _

from club.archive.format import (
    MAX_TOURNAMENT_NAME,
    ArchiveError,
    _clean,
    _decap,
    _gettext_in_sentence,
    _is_whole,
    _Place,
    _quoted,
    max_length,
)
from club.archive.parse_settings import _parse_flag
from club.archive.parse_tournaments import _parse_date
from club.clubs.models import Club
from club.competitions.models import Competition
from club.competitions.services import (
    CHOOSE_EVENTS,
    FORMS,
    CompetitionError,
    Terms,
    save_competition,
)
from club.scoring import seasons
from club.tournaments.models import Tournament

COMPETITION_KEYS = (
    "name",
    "starts_on",
    "ends_on",
    "counts",
    "form",
    "events",
    "ranks",
    "method",
    "place_points",
    "best",
    "minimum",
    "final_within_days",
    "late_counts",
)
REQUIRED_KEYS = ("starts_on", "ends_on", "counts", "ranks", "method")
# A tournament a competition counts: the format's way of naming a tournament.
EVENT_KEYS = ("name", "starts_on")
MAX_COMPETITION_NAME = max_length(Competition, "name")
MAX_COMPETITIONS = 1000  # a file's, in all its documents: far more than any club keeps
MOST_DAYS = 32767  # what the columns of best, minimum and final_within_days hold
CHUNK = 500  # days looked up in one query


@dataclass(frozen=True)
class EventSpec:
    """A tournament a competition of the file counts: its name and its first day."""

    name: str
    starts_on: date


@dataclass(frozen=True)
class CompetitionSpec:
    """A competition of the file, checked: what the organiser chose, and the tournaments
    it counts (found in the club when it is stored)."""

    terms: Terms
    events: tuple[EventSpec, ...] = ()
    document: int | None = None  # its document's place in a list of documents


@dataclass(frozen=True)
class CompetitionsStored:
    """What an import did with the file's competitions, by name."""

    added: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    same: tuple[str, ...] = ()  # the club has them as the file has them: left so

    @property
    def saved(self) -> int:
        return len(self.added) + len(self.changed)


# --- Writing ----------------------------------------------------------------------------


def competitions_list(club: Club) -> list[dict]:
    """The ``competitions`` an export of ``club`` writes: its own (a circuit is the
    federation's, no club's), oldest first, each with the tournaments it counts; empty when
    it has none. Two queries."""
    found = list(Competition.objects.filter(club=club).order_by("starts_on", "id"))
    if not found:
        return []
    events: dict[int, list[dict]] = defaultdict(list)
    for competition_id, name, starts_on in (
        Competition.events.through.objects.filter(competition__in=[c.pk for c in found])
        .order_by("tournament__starts_on", "tournament__name", "tournament_id")
        .values_list("competition_id", "tournament__name", "tournament__starts_on")
    ):
        events[competition_id].append({"name": name, "starts_on": starts_on.isoformat()})
    return [competition_object(competition, events[competition.pk]) for competition in found]


def competition_object(competition: Competition, events: list[dict]) -> dict:
    """One competition as the file writes it, its keys always in this order."""
    data: dict = {
        "name": competition.name,
        "starts_on": competition.starts_on.isoformat(),
        "ends_on": competition.ends_on.isoformat(),
        "counts": competition.counts,
    }
    if competition.counts == Competition.Counts.FORM:
        data["form"] = competition.form
    if competition.counts == Competition.Counts.EVENTS:
        data["events"] = events
    data.update(
        ranks=competition.ranks,
        method=competition.method,
        place_points=list(competition.place_points),
        best=competition.best,
        minimum=competition.minimum,
        final_within_days=competition.final_within_days,
        late_counts=competition.late_counts,
    )
    return data


# --- Reading ----------------------------------------------------------------------------


@dataclass
class _Where(_Place):
    """A competition of the file: its errors name it, or, before its name is read, its
    place in the list."""

    document: int | None = None
    competition: str | None = None
    position: str = "competitions"

    def error(self, problem: str, *, number: int | None = None, field: str | None = None):
        if self.competition is None:
            field = f"{self.position}.{field}" if field else self.position
        return ArchiveError(
            problem, document=self.document, competition=self.competition, field=field
        )


def parse_competitions(raw: object, document: int | None = None) -> list[CompetitionSpec]:
    """A document's ``competitions``: a list of competitions, each checked whole (its
    fields, and its rule as the table would read it); refused, naming the competition and
    the field, otherwise. The tournaments it counts are looked for when it is stored."""
    if not isinstance(raw, list):
        raise ArchiveError(
            _("“competitions” must be a list of competitions, not %(value)s.")
            % {"value": _quoted(raw)},
            document=document,
        )
    if len(raw) > MAX_COMPETITIONS:
        raise _too_many(document)
    return [
        _parse_competition(
            item, _Where(None, None, document=document, position=f"competitions[{number}]")
        )
        for number, item in enumerate(raw, start=1)
    ]


def _too_many(document: int | None) -> ArchiveError:
    return ArchiveError(
        _("A file holds at most %(count)d competitions.") % {"count": MAX_COMPETITIONS},
        document=document,
        field="competitions",
    )


def file_competitions(documents: Sequence[dict]) -> list[CompetitionSpec]:
    """Every competition of the file's documents, in file order; a name given twice (capitals
    aside), in one document or two, is refused."""
    specs: list[CompetitionSpec] = []
    seen: set[str] = set()
    for number, document in enumerate(documents, start=1):
        if "competitions" not in document:
            continue
        where = number if len(documents) > 1 else None
        for spec in parse_competitions(document["competitions"], where):
            key = spec.terms.name.casefold()
            if key in seen:
                raise ArchiveError(
                    _("the file gives this competition twice."),
                    document=where,
                    competition=spec.terms.name,
                )
            seen.add(key)
            specs.append(spec)
    if len(specs) > MAX_COMPETITIONS:
        raise _too_many(None)
    return specs


def _parse_competition(item: object, where: _Where) -> CompetitionSpec:
    raw = where.json_object(item, None, what=_("a competition"))
    name = where.text(raw.get("name"), field="name", limit=MAX_COMPETITION_NAME, what=_("the name"))
    where = replace(where, competition=name)
    where.json_object(raw, COMPETITION_KEYS, what=_("a competition"))  # its keys, named
    for key in REQUIRED_KEYS:
        if key not in raw:
            raise where.error(_("the competition needs its “%(key)s”.") % {"key": key}, field=key)
    starts_on = _parse_date(where, raw["starts_on"], "starts_on")
    ends_on = _parse_date(where, raw["ends_on"], "ends_on")
    if ends_on < starts_on:
        raise where.error(_("the last day cannot be before the first day."), field="ends_on")
    counts = _choice(where, raw, "counts", Competition.Counts.values)
    form = ""
    if counts == Competition.Counts.FORM:
        if "form" not in raw:
            raise where.error(
                _("the competition needs its “%(key)s”.") % {"key": "form"}, field="form"
            )
        form = _choice(where, raw, "form", FORMS)
    elif "form" in raw:
        raise where.error(_("a form of play is given only when “counts” is “form”."), field="form")
    events = _parse_events(where, raw, counts)
    method = _choice(where, raw, "method", seasons.METHODS)
    terms = Terms(
        name=name,
        starts_on=starts_on,
        ends_on=ends_on,
        counts=counts,
        ranks=_choice(where, raw, "ranks", Competition.Ranks.values),
        method=method,
        place_points=_parse_place_points(where, raw),
        form=form,
        best=_days_or_none(where, raw, "best", low=1, what=_("the nights counted")),
        minimum=where.whole(
            raw.get("minimum", 1),
            field="minimum",
            low=0,
            high=MOST_DAYS,
            what=_("the nights to be ranked"),
        ),
        final_within_days=_days_or_none(
            where, raw, "final_within_days", low=0, what=_("the days for results")
        ),
        late_counts=_parse_flag(where, raw, "late_counts", False),
    )
    try:
        seasons.Rule(method, terms.place_points, best=terms.best, minimum=terms.minimum)
    except seasons.SeasonError as error:
        raise where.error(
            error.translated(_gettext_in_sentence), field=error.field or "method"
        ) from None
    return CompetitionSpec(terms, events, where.document)


def _choice(where: _Where, raw: dict, key: str, choices: Sequence[str]) -> str:
    value = raw.get(key)
    if not isinstance(value, str) or value not in choices:
        raise where.error(
            _("%(key)s must be one of %(choices)s, not %(value)s.")
            % {"key": key, "choices": ", ".join(choices), "value": _quoted(value)},
            field=key,
        )
    return value


def _parse_place_points(where: _Where, raw: dict) -> tuple[int, ...]:
    points = raw.get("place_points", [])
    if not isinstance(points, list) or not all(_is_whole(value) for value in points):
        raise where.error(
            _("the points for each place must be a list of whole numbers, not %(value)s.")
            % {"value": _quoted(points)},
            field="place_points",
        )
    return tuple(points)


def _days_or_none(where: _Where, raw: dict, key: str, *, low: int, what: str) -> int | None:
    """A count of nights or days, or null (or left out) for none."""
    value = raw.get(key)
    if value is None:
        return None
    return where.whole(value, field=key, low=low, high=MOST_DAYS, what=what)


def _parse_events(where: _Where, raw: dict, counts: str) -> tuple[EventSpec, ...]:
    """The tournaments a competition of chosen tournaments counts, each once."""
    if counts != Competition.Counts.EVENTS:
        if "events" in raw:
            raise where.error(
                _("tournaments are given only when “counts” is “events”."), field="events"
            )
        return ()
    listed = raw.get("events")
    if not isinstance(listed, list):
        raise where.error(
            _(
                "“events” must be a list of tournaments, each with its name and first day, not "
                "%(value)s."
            )
            % {"value": _quoted(listed)},
            field="events",
        )
    if not listed:
        raise where.error(_decap(str(CHOOSE_EVENTS)), field="events")
    events: list[EventSpec] = []
    for number, item in enumerate(listed, start=1):
        field = f"events[{number}]"
        item = where.json_object(item, EVENT_KEYS, what=_("a tournament"), field=field)
        event = EventSpec(
            where.text(
                item.get("name"),
                field=f"{field}.name",
                limit=MAX_TOURNAMENT_NAME,
                what=_("the tournament's name"),
            ),
            _parse_date(where, item.get("starts_on"), f"{field}.starts_on"),
        )
        if any(_same_event(event, other) for other in events):
            raise where.error(
                _("“%(name)s” of %(day)s is listed twice.")
                % {"name": event.name, "day": event.starts_on.isoformat()},
                field=field,
            )
        events.append(event)
    return tuple(events)


def _same_event(one: EventSpec, other: EventSpec) -> bool:
    return one.starts_on == other.starts_on and one.name.casefold() == other.name.casefold()


# --- Storing ----------------------------------------------------------------------------


def store_competitions(
    specs: Sequence[CompetitionSpec], club: Club, user=None
) -> CompetitionsStored:
    """Save the file's competitions into ``club`` through the competitions' own service,
    with its refusals, once the file's tournaments are written: a new name is added, a
    name the club has takes the file's rule and tournaments, one the club has as the file
    has it is left so. Inside the import's transaction: a refusal stores nothing at all."""
    added: list[str] = []
    changed: list[str] = []
    same: list[str] = []
    for spec in specs:
        terms = spec.terms
        error = _refusal_of(spec)
        events = _tournaments_counted(spec, club, error)
        here = Competition.objects.filter(club=club, name__iexact=terms.name).first()
        if here is not None and _as_it_is(here, terms, events):
            same.append(here.name)
            continue
        try:
            save_competition(club=club, terms=terms, events=events, user=user, competition=here)
        except CompetitionError as refused:
            raise error(_decap(refused.message), refused.field) from refused
        (changed if here is not None else added).append(terms.name)
    return CompetitionsStored(tuple(added), tuple(changed), tuple(same))


def _refusal_of(spec: CompetitionSpec) -> Callable[[str, str | None], ArchiveError]:
    """A refusal naming the competition (and its document in a list), and the field."""

    def refusal(problem: str, field: str | None) -> ArchiveError:
        return ArchiveError(
            problem, document=spec.document, competition=spec.terms.name, field=field
        )

    return refusal


def _tournaments_counted(
    spec: CompetitionSpec, club: Club, error: Callable[[str, str | None], ArchiveError]
) -> list[Tournament]:
    """The club's tournaments the competition names, each found by its name (capitals
    aside) and its first day; one it does not have is refused, named."""
    days = sorted({event.starts_on for event in spec.events})
    found: dict[tuple[str, date], Tournament] = {}
    for start in range(0, len(days), CHUNK):
        for tournament in Tournament.objects.filter(
            club=club, starts_on__in=days[start : start + CHUNK]
        ):
            found[_clean(tournament.name).casefold(), tournament.starts_on] = tournament
    tournaments = []
    for number, event in enumerate(spec.events, start=1):
        counted = found.get((event.name.casefold(), event.starts_on))
        if counted is None:
            raise error(
                _("there is no tournament “%(name)s” starting on %(day)s in this club.")
                % {"name": event.name, "day": event.starts_on.isoformat()},
                f"events[{number}]",
            )
        tournaments.append(counted)
    return tournaments


def _as_it_is(competition: Competition, terms: Terms, events: list[Tournament]) -> bool:
    """Whether the club's competition is the file's already: the same rule, the same days,
    the same tournaments."""
    stored = Terms.of(competition)
    held = set(competition.events.values_list("pk", flat=True))
    return stored == terms and held == {tournament.pk for tournament in events}
