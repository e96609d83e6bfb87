"""The organiser's form of a competition: its span, what counts and its rule.

It checks the shape of what was typed; whether it may be (a tournament of another club, a
rule that cannot be scored) is decided by club.competitions.services, which names it.
"""

from __future__ import annotations

import re

from django import forms
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext_lazy as _

from club.clubs import known
from club.competitions.models import Competition
from club.competitions.services import Terms
from club.games.words import KODI, POINTS, TABLES
from club.scoring import seasons
from club.tournaments.models import Tournament
from club.web.fields import NameField, WholeNumberField

CUSTOM = "custom"
PRESET_CHOICES = [
    ("ten", _("10, 8, 6, 5, 4, 3, 2, 1")),
    ("f1", _("25, 18, 15, 12, 10, 8, 6, 4, 2, 1")),
    ("five", _("5, 4, 3, 2, 1")),
    (CUSTOM, _("My own points (below)")),
]
FORM_CHOICES = [
    ("", _("Any")),
    (TABLES, _("Tables")),
    (POINTS, _("Points sheets (56 International)")),
    (KODI, _("Kodi nights")),
]
POINTS_TYPED = re.compile(r"\d+(?:[\s,;]+\d+)*")
MAX_POINTS = 9999
NOT_POINTS = _("Type the points for 1st, 2nd, 3rd ... place as whole numbers, such as 10, 6, 4, 2.")
TOO_MANY_POINTS = _("A place scores at most %(most)d points.")
# Choices that contradict each other: refused, never silently left out.
POINTS_NOT_CHOSEN = _(
    "You typed your own points: choose “My own points” above them, or clear them."
)
POINTS_NOT_USED = _(
    "Your own points score a night by its place: choose “Points for each place”, or clear them."
)
FORM_NOT_USED = _(
    "A form of play counts only when the season counts one form of play: choose that, or “Any”."
)
EVENTS_NOT_USED = _(
    "Tournaments ticked count only when the season counts chosen tournaments: choose that, "
    "or untick them."
)
LATE_WITHOUT_DEADLINE = _(
    "Late results need a deadline: give the days results are due within, or untick this."
)
NAME_NEEDED = _("Give it a name, such as Winter league 2026.")
DAY_NEEDED = _("Give the day, such as 1 March 2026.")


def points_words(points) -> str:
    return ", ".join(str(value) for value in points)


class TournamentChoices(forms.ModelMultipleChoiceField):
    def label_from_instance(self, obj: Tournament) -> str:
        day = date_format(obj.starts_on, "j M Y")
        if self.show_club:
            return f"{obj.name} · {known.by_id(obj.club_id).name} · {day}"
        return f"{obj.name} · {day}"

    show_club = False


class CompetitionForm(forms.Form):
    name = NameField(label=_("Name"), max_length=120, error_messages={"required": NAME_NEEDED})
    starts_on = forms.DateField(
        label=_("First day"),
        widget=forms.DateInput(attrs={"type": "date"}),
        error_messages={"required": DAY_NEEDED, "invalid": DAY_NEEDED},
    )
    ends_on = forms.DateField(
        label=_("Last day"),
        widget=forms.DateInput(attrs={"type": "date"}),
        error_messages={"required": DAY_NEEDED, "invalid": DAY_NEEDED},
    )
    counts = forms.ChoiceField(
        label=_("Games and tournaments"),
        choices=Competition.Counts.choices,
        initial=Competition.Counts.ALL,
        widget=forms.RadioSelect,
    )
    form = forms.ChoiceField(label=_("Form of play"), choices=FORM_CHOICES, required=False)
    events = TournamentChoices(
        label=_("Tournaments counted"),
        queryset=Tournament.objects.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
    ranks = forms.ChoiceField(
        label=_("Ranked"),
        choices=Competition.Ranks.choices,
        initial=Competition.Ranks.TEAMS,
        widget=forms.RadioSelect,
    )
    method = forms.ChoiceField(
        label=_("A night scores"),
        choices=Competition.Method.choices,
        initial=seasons.PLACES,
        widget=forms.RadioSelect,
    )
    preset = forms.ChoiceField(
        label=_("Points for 1st, 2nd, 3rd ... place"), choices=PRESET_CHOICES, initial="ten"
    )
    place_points = forms.CharField(
        label=_("My own points"),
        required=False,
        max_length=300,
        help_text=_(
            "For 1st, 2nd, 3rd ... place, such as 10, 6, 4, 2; a place after the last scores 0."
        ),
    )
    best = WholeNumberField(
        label=_("Count only the best nights"),
        required=False,
        min_value=1,
        max_value=999,
        help_text=_("Leave empty to count every night."),
    )
    minimum = WholeNumberField(
        label=_("Nights needed to be ranked"), min_value=0, max_value=999, initial=1
    )
    final_within_days = WholeNumberField(
        label=_("Results due within days of the night"),
        required=False,
        min_value=0,
        max_value=365,
        help_text=_("Leave empty for no deadline."),
    )
    late_counts = forms.BooleanField(label=_("Late results still count"), required=False)

    def __init__(self, *args, club=None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        events = self.fields["events"]
        assert isinstance(events, TournamentChoices)
        found = Tournament.objects.order_by("-starts_on", "name", "id")
        if club is not None:
            found = found.filter(club=club)
        else:  # a circuit counts chosen tournaments of any club
            events.show_club = True
            counts = self.fields["counts"]
            assert isinstance(counts, forms.ChoiceField)
            counts.choices = [(Competition.Counts.EVENTS, Competition.Counts.EVENTS.label)]
            counts.initial = Competition.Counts.EVENTS
        # The latest 300 (a season spans a year or so), as a queryset a choice is checked in.
        latest = list(found.values_list("pk", flat=True)[:300])
        events.queryset = found.filter(pk__in=latest)
        if not self.is_bound and not self.initial:
            today = timezone.localdate()
            self.initial = {"starts_on": today, "ends_on": today.replace(month=12, day=31)}

    @classmethod
    def initial_of(cls, competition: Competition) -> dict:
        preset = next(
            (
                key
                for key, points in seasons.PRESETS.items()
                if list(points) == competition.place_points
            ),
            CUSTOM,
        )
        if competition.method != seasons.PLACES:
            preset = "ten"  # the points a change to scoring by place would start from
        terms = Terms.of(competition).__dict__
        return {
            **{name: value for name, value in terms.items() if name != "place_points"},
            "events": list(competition.events.all()),
            "preset": preset,
            "place_points": points_words(competition.place_points) if preset == CUSTOM else "",
        }

    def clean(self) -> dict:
        cleaned = super().clean() or {}
        typed = (cleaned.get("place_points") or "").strip()
        by_place = cleaned.get("method") == seasons.PLACES
        cleaned["points"] = ()
        if typed and not by_place:
            self.add_error("place_points", POINTS_NOT_USED)
        elif typed and cleaned.get("preset") != CUSTOM:
            self.add_error("place_points", POINTS_NOT_CHOSEN)
        elif by_place and cleaned.get("preset") == CUSTOM:
            cleaned["points"] = self._typed_points(typed)
        elif by_place:
            cleaned["points"] = seasons.PRESETS.get(cleaned.get("preset", ""), ())
        self._contradictions(cleaned)
        return cleaned

    def _typed_points(self, typed: str) -> tuple[int, ...]:
        if not POINTS_TYPED.fullmatch(typed):
            self.add_error("place_points", NOT_POINTS)
            return ()
        points = tuple(int(value) for value in re.split(r"[\s,;]+", typed))
        if max(points) > MAX_POINTS:
            self.add_error("place_points", TOO_MANY_POINTS % {"most": MAX_POINTS})
            return ()
        return points

    def _contradictions(self, cleaned: dict) -> None:
        counts = cleaned.get("counts")
        if cleaned.get("form") and counts != Competition.Counts.FORM:
            self.add_error("form", FORM_NOT_USED)
        if cleaned.get("events") and counts != Competition.Counts.EVENTS:
            self.add_error("events", EVENTS_NOT_USED)
        if cleaned.get("late_counts") and cleaned.get("final_within_days") is None:
            self.add_error("late_counts", LATE_WITHOUT_DEADLINE)

    def terms(self) -> Terms:
        data = self.cleaned_data
        return Terms(
            name=data["name"],
            starts_on=data["starts_on"],
            ends_on=data["ends_on"],
            counts=data["counts"],
            ranks=data["ranks"],
            method=data["method"],
            place_points=data["points"],
            form=data.get("form") or "",
            best=data.get("best"),
            minimum=data["minimum"],
            final_within_days=data.get("final_within_days"),
            late_counts=data.get("late_counts", False),
        )
