from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from club.games.forms import SamePeopleForm
from club.games.models import Player
from club.games.words import KODI, POINTS, TABLES
from club.leaderboards.merge import NOT_THE_CLUBS, TWO_DIFFERENT_PLAYERS
from club.leaderboards.selectors import DEFAULT_SORT, SORTS, Filters, members
from club.leaderboards.services.importing import MAX_IMPORT_BYTES
from club.web.fields import NameField
from club.web.uploads import LimitedFileField
from club.web.widgets import QuickSelect

# A board's dates the wrong way round (the merge form's refusal is the merge's own).
END_BEFORE_START = _("The end date is before the start date.")

ACTIVE_CHOICES = [("", _("All players")), ("active", _("Active")), ("inactive", _("Inactive"))]


class RegisterSearchForm(forms.Form):
    q = forms.CharField(label=_("Search"), required=False, max_length=80)
    active = forms.ChoiceField(label=_("Show"), choices=ACTIVE_CHOICES, required=False)


class PlayerForm(forms.Form):
    name = NameField(label=_("Name"), max_length=80)
    nickname = NameField(label=_("Nickname"), max_length=80, required=False)
    member_number = NameField(label=_("Member number"), max_length=30, required=False)
    active = forms.BooleanField(label=_("Active"), required=False, initial=True)


class NewPlayerForm(SamePeopleForm, PlayerForm):
    """A player added to the register: a name another club's player has is asked about
    ("The same Anu"), as the new-game form asks (club.games.other_clubs)."""


class ClubPlayerField(forms.ModelChoiceField):
    """One of the club's players (the form sets the queryset: its members); a player of
    the site who is not the club's is refused by name."""

    def to_python(self, value):
        try:
            return super().to_python(value)
        except forms.ValidationError:
            text = str(value)
            other = None
            if text.isascii() and text.isdigit() and len(text) < 19:
                other = Player.objects.filter(pk=int(text)).first()
            if other is None:
                raise
            raise forms.ValidationError(
                NOT_THE_CLUBS % {"name": other.name}, code="not_the_clubs"
            ) from None


class MergeForm(forms.Form):
    keep = ClubPlayerField(
        label=_("Keep this record"),
        queryset=Player.objects.none(),
        empty_label=_("Choose a player"),
    )
    fold = ClubPlayerField(
        label=_("Fold this record into it"),
        queryset=Player.objects.none(),
        empty_label=_("Choose a player"),
        help_text=_("Its games, deals and teams move to the kept record; then it is deleted."),
    )

    def __init__(self, *args, club=None, **kwargs):
        """``club``: whose two players may be merged (the home club when None)."""
        super().__init__(*args, **kwargs)
        for name in ("keep", "fold"):
            self.fields[name].queryset = members(club).order_by("name")

    def clean(self):
        data = super().clean()
        if data.get("keep") and data.get("fold") and data["keep"] == data["fold"]:
            raise forms.ValidationError(TWO_DIFFERENT_PLAYERS)
        return data


class ImportForm(forms.Form):
    file = LimitedFileField(
        max_bytes=MAX_IMPORT_BYTES,
        label=_("CSV file"),
        help_text=_(
            "A header row with name (required), nickname, member_number and active (yes or no)."
        ),
    )


# The forms of play a board or the ranking may be narrowed to, as the club names them.
FORMS = [
    (TABLES, _("Tables")),
    (POINTS, _("Points sheets (56 International)")),
    (KODI, _("Kodi nights")),
]


class BoardForm(forms.Form):
    start = forms.DateField(
        label=_("From"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    end = forms.DateField(
        label=_("To"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    tournament = forms.TypedChoiceField(
        label=_("Tournament"),
        required=False,
        coerce=int,
        empty_value=None,
        widget=QuickSelect,  # the newest tournaments, and the one chosen (views)
    )
    form = forms.ChoiceField(
        label=_("Form of play"), required=False, choices=[("", _("Every form of play")), *FORMS]
    )
    sort = forms.ChoiceField(
        required=False, choices=[(key, key) for key in SORTS], widget=forms.HiddenInput
    )
    order = forms.ChoiceField(
        required=False, choices=[("desc", "desc"), ("asc", "asc")], widget=forms.HiddenInput
    )

    def __init__(self, *args, tournaments=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["tournament"].choices = [("", _("All games"))] + [
            (t.pk, t.name) for t in tournaments
        ]

    def clean(self):
        data = super().clean()
        start, end = data.get("start"), data.get("end")
        if start and end and start > end:
            self.add_error("end", END_BEFORE_START)
        return data

    def filters(self) -> Filters:
        if not self.is_valid():
            return Filters()
        data = self.cleaned_data
        return Filters(
            start=data["start"],
            end=data["end"],
            tournament=data["tournament"],
            form=data["form"] or None,
        )

    def sorting(self) -> tuple[str, bool]:
        # Read apart from the dates, so a bad date does not lose the sort.
        sort = self.data.get("sort") or DEFAULT_SORT
        sort = sort if sort in SORTS else DEFAULT_SORT
        order = self.data.get("order")
        if order not in ("asc", "desc"):
            order = "asc" if sort == "name" else "desc"
        return sort, order == "desc"
