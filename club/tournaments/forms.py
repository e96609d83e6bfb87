"""Forms for the organiser's tournament pages.

They check the shape of what was typed; whether it may happen (a player in two
teams, a draw that leaves a team out) is decided by ``club.tournaments.services``.
"""

from __future__ import annotations

import re

from django import forms
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from club.games.forms import TABLES, FormOfPlayForm, SamePeopleForm
from club.scoring import rules as core
from club.scoring import stages as charts
from club.scoring import standings as ranking
from club.tournaments import stages
from club.tournaments.services.teams import TeamLine
from club.web.fields import NameField, WholeNumberField
from club.web.uploads import LimitedFileField

GAME_SIZES = [
    (2, gettext_lazy("2 teams per game")),
    (3, gettext_lazy("3 teams per game")),
    (4, gettext_lazy("4 teams per game")),
]


TEAM_SIZES = [
    (2, gettext_lazy("Teams of two")),
    (3, gettext_lazy("Teams of three (two teams a game)")),
    (4, gettext_lazy("Teams of four (two teams a game)")),
]
# A table of the new-game form with teams of that size, for the presets (FormOfPlayForm).
TABLE_OF_TEAM_SIZE = {2: "4", 3: "6x3", 4: "8x4"}


def _choice_field(form: forms.BaseForm, name: str) -> forms.ChoiceField:
    """The form's own copy of its choice field ``name``, to narrow its choices (a form's
    fields are typed as any field)."""
    field = form.fields[name]
    assert isinstance(field, forms.ChoiceField), name
    return field


def format_points(row) -> str:
    return " ".join(str(points) for points in row)


class TournamentForm(FormOfPlayForm):
    """A new tournament: when and where, its form of play and house rules for all its games."""

    name = NameField(label=gettext_lazy("Name"), max_length=120)
    starts_on = forms.DateField(
        label=gettext_lazy("First day"), widget=forms.DateInput(attrs={"type": "date"})
    )
    ends_on = forms.DateField(
        label=gettext_lazy("Last day"),
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}),
    )
    venue = NameField(label=gettext_lazy("Venue"), max_length=200, required=False)
    team_size = forms.TypedChoiceField(
        label=gettext_lazy("Teams"), choices=TEAM_SIZES, coerce=int, initial=2, required=False
    )
    deal_limit = WholeNumberField(
        label=gettext_lazy("Deals per game"),
        min_value=1,
        max_value=core.MAX_DEAL_LIMIT,
        required=False,
        help_text=gettext_lazy(
            "Leave empty to play each game until one team is left. With a limit, a game "
            "ends after that many deals and is placed by tables held (on a points sheet, "
            "by points; a points sheet needs a limit)."
        ),
    )
    points_2 = forms.CharField(label=gettext_lazy("Points in a game of 2 teams"), max_length=40)
    points_3 = forms.CharField(label=gettext_lazy("Points in a game of 3 teams"), max_length=40)
    points_4 = forms.CharField(label=gettext_lazy("Points in a game of 4 teams"), max_length=40)
    require_confirmation = forms.BooleanField(
        label=gettext_lazy("Deals from scorer links need another team's confirmation"),
        required=False,
    )
    check_in = forms.BooleanField(
        label=gettext_lazy("Teams check in before each sitting: only the teams present are drawn"),
        required=False,
    )
    substitutions = WholeNumberField(
        label=gettext_lazy("Substitutions a team may make"),
        min_value=0,
        max_value=9,
        initial=1,
        required=False,
        help_text=gettext_lazy(
            "A substitute sits in for one of a team's players from a sitting on; the player "
            "may come back later. One, as the 56 International allows in an emergency; 0 for "
            "none."
        ),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["starts_on"].initial = timezone.localdate
        for count in ranking.TEAM_COUNTS:
            field = self.fields[f"points_{count}"]
            field.initial = format_points(ranking.DEFAULT_POINTS.by_team_count[count])
            field.help_text = _("Points for 1st, 2nd, … place, separated by spaces.")

    @classmethod
    def preset_initial(cls, preset: str, team_size) -> dict:
        """The fields' values for a preset with teams of ``team_size`` (Custom: none)."""
        try:
            table = TABLE_OF_TEAM_SIZE.get(int(team_size), "4")
        except (TypeError, ValueError):
            table = "4"
        initial = super().preset_initial(preset, table)
        if "players" in initial:
            initial["team_size"] = TABLES[initial.pop("players")][1]
        return initial

    def form_of_play(self, cleaned: dict) -> dict:
        return {**super().form_of_play(cleaned), "team_size": cleaned.get("team_size") or 2}

    def _clean_points(self, count: int):
        text = self.cleaned_data[f"points_{count}"]
        parts = [part for part in re.split(r"[\s,;/\-–]+", text) if part]
        try:
            return tuple(int(part) for part in parts)
        except ValueError:
            raise forms.ValidationError(
                _(
                    "Write the points for a game of %(count)d teams as whole numbers, "
                    "e.g. %(example)s."
                )
                % {
                    "count": count,
                    "example": format_points(ranking.DEFAULT_POINTS.by_team_count[count]),
                }
            ) from None

    def clean_points_2(self):
        return self._clean_points(2)

    def clean_points_3(self):
        return self._clean_points(3)

    def clean_points_4(self):
        return self._clean_points(4)

    def clean(self):
        cleaned = super().clean()
        starts_on, ends_on = cleaned.get("starts_on"), cleaned.get("ends_on")
        if starts_on and ends_on and ends_on < starts_on:
            self.add_error("ends_on", _("The last day cannot be before the first day."))
        if all(f"points_{count}" in cleaned for count in ranking.TEAM_COUNTS):
            scheme = {count: cleaned[f"points_{count}"] for count in ranking.TEAM_COUNTS}
            try:
                ranking.PointsScheme(scheme)
            except ranking.StandingsError as error:
                count = error.params.get("count")
                field = f"points_{count}" if count in ranking.TEAM_COUNTS else None
                self.add_error(field, error.translated(_))
            else:
                cleaned["points_scheme"] = (
                    None if scheme == dict(ranking.DEFAULT_POINTS.by_team_count) else scheme
                )
        if cleaned.get("small_deck") and (cleaned.get("team_size") or 2) > 2:
            self.add_error(
                "small_deck",
                _(
                    "The 32-card deal is for a game of four players; teams of three or four "
                    "play with six or eight."
                ),
            )
        self.clean_house_rules(cleaned)
        return cleaned


# Who captains a registered team: one of its players, by seat (a team of two offers two).
CAPTAIN_SEATS = [
    ("first", gettext_lazy("First player")),
    ("second", gettext_lazy("Second player")),
    ("third", gettext_lazy("Third player")),
    ("fourth", gettext_lazy("Fourth player")),
]


class RegisterTeamForm(SamePeopleForm):
    """A team of the tournament's size: two, three or four players in seat order."""

    first = NameField(label=gettext_lazy("First player"), max_length=80)
    second = NameField(label=gettext_lazy("Second player"), max_length=80)
    third = NameField(label=gettext_lazy("Third player"), max_length=80)
    fourth = NameField(label=gettext_lazy("Fourth player"), max_length=80)
    name = NameField(label=gettext_lazy("Team name (optional)"), max_length=170, required=False)
    captain = forms.ChoiceField(
        label=gettext_lazy("Captain"),
        required=False,
        choices=CAPTAIN_SEATS,
    )

    PLAYERS = ("first", "second", "third", "fourth")

    def __init__(self, *args, team_size: int = 2, **kwargs):
        super().__init__(*args, **kwargs)
        for name in self.PLAYERS[team_size:]:
            del self.fields[name]
        _choice_field(self, "captain").choices = CAPTAIN_SEATS[:team_size]

    def player_fields(self):
        return [self[name] for name in self.PLAYERS if name in self.fields]

    def names_fields(self):
        """The fields typed as names: the players and the team's name."""
        return [field for field in self.visible_fields() if field.name != "captain"]

    def captain_name(self) -> str:
        """The name of the player chosen as captain (the first player if none is)."""
        return self.cleaned_data.get(self.cleaned_data.get("captain") or "first", "")


MAX_LIST_LINES = 200  # teams in one pasted or uploaded list
# A list's file: 200 teams (the most a list holds) of four players, a team name and names
# of 20 letters is about 22 KB, 62 KB in Malayalam (three bytes a letter). A larger file
# is not a list of teams, and is stopped while it is read (club.web.uploads).
MAX_LIST_BYTES = 100_000
_SEPARATORS = re.compile(r"\s*(?:\t|,|;|&| \+ )\s*")
# A captain is marked after the name: "Biju (c)" or "Biju*".
_CAPTAIN = re.compile(r"\s*(?:\((?:c|C)\)|\*)\s*$")


class RegisterTeamsForm(SamePeopleForm):
    """Many teams at once, a line each: players in seat order, a name before a colon.

    "Anu, Biju, Chitra" or "Thrissur Aces: Anu, Biju, Chitra"; commas, tabs (a
    spreadsheet's column), semicolons or "&" between the players. A line of one
    name more than a team's players (a spreadsheet row) starts with the team's name.
    """

    teams = forms.CharField(
        label=gettext_lazy("Teams, one a line"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 6}),
        help_text=gettext_lazy(
            "Players in seat order, separated by commas; a team name first, before a "
            "colon, if the team has one; (c) after the captain's name, if not the first "
            "player. Blank lines are skipped."
        ),
    )
    file = LimitedFileField(
        max_bytes=MAX_LIST_BYTES,
        label=gettext_lazy("Or a text or CSV file of such lines"),
        required=False,
    )

    def __init__(self, *args, team_size: int = 2, **kwargs):
        super().__init__(*args, **kwargs)
        self.team_size = team_size

    def clean(self):
        cleaned = super().clean()
        if self.has_error("file"):
            return cleaned  # refused for its size: no list was read
        text = cleaned.get("teams") or ""
        upload = cleaned.get("file")
        if upload is not None:
            try:
                text = upload.read().decode("utf-8-sig")
            except UnicodeDecodeError:
                raise forms.ValidationError(_("The file is not UTF-8 text.")) from None
        lines, errors = [], []
        for number, raw in enumerate(text.splitlines(), start=1):
            if not raw.strip():
                continue
            try:
                lines.append(self._line(number, raw))
            except forms.ValidationError as error:
                errors.append((number, error.messages[0]))
        if not lines and not errors:
            raise forms.ValidationError(_("Paste the teams, one a line, or choose a file."))
        if len(lines) + len(errors) > MAX_LIST_LINES:
            raise forms.ValidationError(
                _("A list holds at most %(count)d teams; register the rest in another.")
                % {"count": MAX_LIST_LINES}
            )
        # A line that cannot be read does not hide the others' faults: the lines read are
        # checked too (the view), and every fault is shown at once.
        cleaned["lines"] = lines
        cleaned["line_errors"] = errors
        return cleaned

    def _line(self, number: int, raw: str):
        name, listed = "", raw
        if ":" in raw:
            name, listed = raw.split(":", 1)
        parts = [part for part in _SEPARATORS.split(listed.strip()) if part]
        if not name and len(parts) == self.team_size + 1:
            name, *parts = parts  # a spreadsheet row: the name in the first column
        if len(parts) != self.team_size:
            raise forms.ValidationError(
                ngettext(
                    "a team of this tournament is %(size)d players; this line names %(count)d.",
                    "a team of this tournament is %(size)d players; this line names %(count)d.",
                    len(parts),
                )
                % {"size": self.team_size, "count": len(parts)}
            )
        field = NameField(
            max_length=80,
            error_messages={"max_length": _("A player's name is at most 80 characters.")},
        )
        marked = [at for at, part in enumerate(parts) if _CAPTAIN.search(part)]
        if len(marked) > 1:
            raise forms.ValidationError(
                _("this line marks %(count)d captains; a team has one.") % {"count": len(marked)}
            )
        parts = [_CAPTAIN.sub("", part) for part in parts]
        players = tuple(field.clean(part) for part in parts)
        name = NameField(
            max_length=170,
            required=False,
            error_messages={"max_length": _("A team's name is at most 170 characters.")},
        ).clean(name.strip())
        captain = players[marked[0]] if marked else ""
        return TeamLine(number, players, name, captain)


class EditTeamForm(RegisterTeamForm):
    """A registered team's name and players, as the registration form has them."""


class SubstitutionForm(SamePeopleForm):
    """A substitute for one of a registered team's players, from a sitting on."""

    player_out = forms.TypedChoiceField(label=gettext_lazy("Player out"), coerce=int)
    player_in = NameField(
        label=gettext_lazy("Substitute"),
        max_length=80,
        help_text=gettext_lazy("Someone registered in no team of this tournament."),
        error_messages={"required": gettext_lazy("Name the substitute.")},
    )
    first_sitting = WholeNumberField(label=gettext_lazy("From sitting"), min_value=1, max_value=999)

    def __init__(self, *args, players, first_sitting: int, **kwargs):
        super().__init__(*args, **kwargs)
        _choice_field(self, "player_out").choices = [(player.pk, player.name) for player in players]
        self.fields["first_sitting"].initial = first_sitting


class ReturnForm(forms.Form):
    """The sitting a starting player plays again from."""

    returned_from = WholeNumberField(
        label=gettext_lazy("Back from sitting"), min_value=2, max_value=999
    )


class DrawForm(forms.Form):
    game_size = forms.TypedChoiceField(
        label=gettext_lazy("Teams per game"), choices=GAME_SIZES, coerce=int, initial=2
    )

    def __init__(self, *args, team_size: int = 2, **kwargs):
        super().__init__(*args, **kwargs)
        if team_size > 2:  # teams of three or four play two teams to a game
            _choice_field(self, "game_size").choices = GAME_SIZES[:1]


class ReopenForm(forms.Form):
    reason = forms.CharField(
        label=gettext_lazy("Why reopen the results?"),
        max_length=500,
        widget=forms.TextInput,
        error_messages={"required": gettext_lazy("Say why the tournament is reopened.")},
    )


class AdjustSittingForm(forms.Form):
    """The proposed draw as one select per seat, and the byes as checkboxes.

    A table left wholly empty is dropped; anything else (a team twice, a team
    missing, a table half full) is for the service to refuse with its reason.
    """

    def __init__(self, *args, sitting, entries, **kwargs):
        super().__init__(*args, **kwargs)
        self.sitting = sitting
        choices = [("", _("— empty —"))] + [(str(entry.pk), entry.team.name) for entry in entries]
        self.table_count = max(len(sitting.proposal), len(entries) // sitting.game_size)
        self.tables = []
        for table in range(self.table_count):
            seats = []
            teams = sitting.proposal[table] if table < len(sitting.proposal) else []
            for seat in range(sitting.game_size):
                name = f"table{table}_seat{seat}"
                self.fields[name] = forms.ChoiceField(
                    label=_("Table %(table)d, team %(seat)d")
                    % {"table": table + 1, "seat": seat + 1},
                    choices=choices,
                    required=False,
                    initial=str(teams[seat]) if seat < len(teams) else "",
                )
                seats.append(name)
            self.tables.append(seats)
        self.fields["byes"] = forms.MultipleChoiceField(
            label=_("Sitting out (bye)"),
            choices=choices[1:],
            required=False,
            widget=forms.CheckboxSelectMultiple,
            initial=[str(entry) for entry in sitting.proposed_byes],
        )

    def table_rows(self):
        return [
            {"number": number, "seats": [self[name] for name in seats]}
            for number, seats in enumerate(self.tables, start=1)
        ]

    def clean(self):
        cleaned = super().clean()
        games = []
        for seats in self.tables:
            teams = [int(cleaned[name]) for name in seats if cleaned.get(name)]
            if teams:
                games.append(teams)
        cleaned["games"] = games
        cleaned["bye_ids"] = [int(value) for value in cleaned.get("byes", [])]
        return cleaned


STAGE_KINDS = [
    ("groups", gettext_lazy("Groups A and B, by a chart")),
    ("knockout", gettext_lazy("Knockout, seeded from the standings")),
    ("round_robin", gettext_lazy("Round robin: every team meets every other")),
    ("sittings", gettext_lazy("Swiss sittings, drawn one by one")),
]


class StageForm(forms.Form):
    """The next stage: its kind, how many sittings or teams, its deals and its tie rule.

    What each kind needs is checked by the service (club.tournaments.stages),
    which names the field at fault; this form only reads whole numbers.
    """

    kind = forms.ChoiceField(label=gettext_lazy("Kind of stage"), choices=STAGE_KINDS)
    sittings = WholeNumberField(
        label=gettext_lazy("Sittings of groups A and B"),
        min_value=1,
        max_value=stages.MAX_CHART_SITTINGS,
        required=False,
        help_text=gettext_lazy("Each team of A meets this many teams of B, one a sitting."),
    )
    qualifiers = WholeNumberField(
        label=gettext_lazy("Teams in the knockout"),
        min_value=2,
        max_value=charts.MAX_KNOCKOUT_TEAMS,
        required=False,
        help_text=gettext_lazy(
            "The best of the standings; the top seeds get a bye when it is not 2, 4, 8, 16 …"
        ),
    )
    deal_limit = WholeNumberField(
        label=gettext_lazy("Deals per game"),
        min_value=1,
        max_value=core.MAX_DEAL_LIMIT,
        required=False,
        help_text=gettext_lazy("Empty: the tournament's (a knockout on a points sheet plays 24)."),
    )
    tie_rule = forms.ChoiceField(
        label=gettext_lazy("A game level at its last deal"),
        choices=[
            ("", gettext_lazy("The stage's own: a knockout plays on, the others share")),
            (stages.PLAY_ON, gettext_lazy("Plays on: extra deals, then one at a time")),
            (stages.SHARED, gettext_lazy("Shares the place")),
        ],
        required=False,
    )
    tie_deals = WholeNumberField(
        label=gettext_lazy("Extra deals when a game is level"),
        min_value=0,
        max_value=core.MAX_TIE_DEALS,
        required=False,
        initial=stages.DEFAULT_TIE_DEALS,
        help_text=gettext_lazy("Then one deal at a time until the totals differ."),
    )

    def clean(self):
        cleaned = super().clean()
        kind = cleaned.get("kind")
        if kind == "groups" and cleaned.get("sittings") is None and "sittings" not in self.errors:
            self.add_error("sittings", _("Say how many sittings groups A and B play."))
        if (
            kind == "knockout"
            and cleaned.get("qualifiers") is None
            and "qualifiers" not in self.errors
        ):
            self.add_error("qualifiers", _("Say how many teams go into the knockout."))
        return cleaned


class GroupsForm(forms.Form):
    """Groups A and B of a proposed stage: a choice of group for every team."""

    def __init__(self, *args, stage, entries, **kwargs):
        super().__init__(*args, **kwargs)
        self.rows = []
        group_of = {team: "a" for team in stage.groups.get("a", [])}
        group_of.update({team: "b" for team in stage.groups.get("b", [])})
        for team, group in group_of.items():
            entry = entries.get(team)
            name = f"team{team}"
            self.fields[name] = forms.ChoiceField(
                label=entry.team.name if entry else str(team),
                choices=[("a", _("Group A")), ("b", _("Group B"))],
                initial=group,
                widget=forms.RadioSelect,
            )
            self.rows.append((team, name))

    def groups(self) -> tuple[list[int], list[int]]:
        group_a = [team for team, name in self.rows if self.cleaned_data[name] == "a"]
        group_b = [team for team, name in self.rows if self.cleaned_data[name] == "b"]
        return group_a, group_b


class SeedsForm(forms.Form):
    """A knockout's seeds: a number from 1 for every team, each once."""

    def __init__(self, *args, stage, entries, **kwargs):
        super().__init__(*args, **kwargs)
        self.rows = []
        count = len(stage.seeds)
        for seed, team in enumerate(stage.seeds, start=1):
            entry = entries.get(team)
            name = f"seed{team}"
            self.fields[name] = WholeNumberField(
                label=entry.team.name if entry else str(team),
                min_value=1,
                max_value=count,
                initial=seed,
            )
            self.rows.append((team, name))

    def clean(self):
        cleaned = super().clean()
        numbers = [cleaned.get(name) for _team, name in self.rows]
        if None not in numbers and len(set(numbers)) != len(numbers):
            raise forms.ValidationError(
                _("Give every team of the knockout a different seed, from 1 to %(count)d.")
                % {"count": len(self.rows)}
            )
        return cleaned

    def seeds(self) -> list[int]:
        return [team for team, name in sorted(self.rows, key=lambda row: self.cleaned_data[row[1]])]
