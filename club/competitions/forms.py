"""The organiser's form of a competition: its span, what counts and its rule.

It checks the shape of what was typed; whether it may be (a tournament of another club, a
rule that cannot be scored) is decided by club.competitions.services, which names it.
"""

from __future__ import annotations

import re

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from club.clubs import known
from club.competitions.models import Competition
from club.competitions.services import Terms
from club.games.words import KODI, POINTS, TABLES
from club.scoring import seasons
from club.tournaments.models import Tournament
from club.web.fields import NameField

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
POINTS_TYPED = re.compile(r"\d{1,4}(?:[\s,;]+\d{1,4})*")
NOT_POINTS = _("Type the points for 1st, 2nd, 3rd ... place as whole numbers, such as 10, 6, 4, 2.")


def points_words(points) -> str:
    return ", ".join(str(value) for value in points)


class TournamentChoices(forms.ModelMultipleChoiceField):
    def label_from_instance(self, obj: Tournament) -> str:
        day = obj.starts_on.isoformat()
        if self.show_club:
            return f"{obj.name} · {known.by_id(obj.club_id).name} · {day}"
        return f"{obj.name} · {day}"

    show_club = False


class CompetitionForm(forms.Form):
    name = NameField(label=_("Name"), max_length=120)
    starts_on = forms.DateField(
        label=_("First day"), widget=forms.DateInput(attrs={"type": "date"})
    )
    ends_on = forms.DateField(label=_("Last day"), widget=forms.DateInput(attrs={"type": "date"}))
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
    best = forms.IntegerField(
        label=_("Count only the best nights"),
        required=False,
        min_value=1,
        max_value=999,
        help_text=_("Leave empty to count every night."),
    )
    minimum = forms.IntegerField(
        label=_("Nights a line needs to be ranked"), min_value=0, max_value=999, initial=1
    )
    final_within_days = forms.IntegerField(
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
        events.queryset = found[:300]  # the latest: a season spans a year or so
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
        return {
            **{
                name: getattr(competition, name)
                for name in (
                    "name",
                    "starts_on",
                    "ends_on",
                    "counts",
                    "form",
                    "ranks",
                    "method",
                    "best",
                    "minimum",
                    "final_within_days",
                    "late_counts",
                )
            },
            "events": list(competition.events.all()),
            "preset": preset,
            "place_points": points_words(competition.place_points) if preset == CUSTOM else "",
        }

    def clean(self) -> dict:
        cleaned = super().clean() or {}
        if cleaned.get("method") != seasons.PLACES:
            cleaned["points"] = ()
        elif cleaned.get("preset") == CUSTOM:
            typed = (cleaned.get("place_points") or "").strip()
            if not POINTS_TYPED.fullmatch(typed):
                self.add_error("place_points", NOT_POINTS)
            else:
                cleaned["points"] = tuple(int(value) for value in re.split(r"[\s,;]+", typed))
        else:
            cleaned["points"] = seasons.PRESETS.get(cleaned.get("preset", ""), ())
        return cleaned

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
