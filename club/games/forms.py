"""Forms for starting a game and reporting a deal.

The forms check the shape of what was typed (numbers are numbers, a contract
has a bid and trumps); whether the deal could have happened is decided by the
rules core when the service records it.
"""

from __future__ import annotations

import re

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from club.games.models import Doubling, Trump
from club.games.services import DealEntry, Seating, TeamEntry
from club.scoring import rules as core
from club.web.fields import NameField

ALL_PASS = "pass"
RULE_FIELDS = ("tables_per_team", "payout", "double_factor", "redouble_factor")
# Where a refusal of the rules core (RulesError.field) is shown on the form.
RULE_ERROR_FIELDS = {"bands": "payout", "tables": "tables_per_team", "doubling": "double_factor"}
RANDOM_DEALER = "random"
PLAYER_COUNTS = [
    (4, gettext_lazy("4 players")),
    (6, gettext_lazy("6 players")),
    (8, gettext_lazy("8 players")),
]


class HouseRulesForm(forms.Form):
    """The house rules' fields and their checks, for a game and for a tournament.

    ``clean_house_rules`` puts the checked :class:`~club.scoring.rules.Rules` in
    ``cleaned_data["rules"]``: whenever the rules' own fields are whole numbers, so a
    payout beyond the bounds is told at once, with any other mistake.
    """

    tables_per_team = forms.IntegerField(
        label=gettext_lazy("Tables each team starts with"),
        min_value=1,
        max_value=core.MAX_TABLES,
        initial=core.DEFAULT_RULES.tables_per_team,
    )
    payout = forms.CharField(
        label=gettext_lazy("Payout schedule"),
        help_text=gettext_lazy(
            "One band per line: lowest bid, highest bid, tables if made, tables if failed."
        ),
        widget=forms.Textarea(attrs={"rows": 4}),
    )
    double_factor = forms.IntegerField(
        label=gettext_lazy("Doubled contracts move"),
        min_value=1,
        max_value=core.MAX_FACTOR,
        initial=core.DEFAULT_RULES.double_factor,
        help_text=gettext_lazy("times the tables"),
    )
    redouble_factor = forms.IntegerField(
        label=gettext_lazy("Redoubled contracts move"),
        min_value=1,
        max_value=core.MAX_FACTOR,
        initial=core.DEFAULT_RULES.redouble_factor,
        help_text=gettext_lazy("times the tables"),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["payout"].initial = format_bands(core.DEFAULT_BANDS)

    def clean_payout(self):
        text = self.cleaned_data["payout"]
        bands = []
        for line_number, line in enumerate(text.strip().splitlines(), start=1):
            parts = [part for part in re.split(r"[\s,:;/\-–]+", line) if part]
            try:
                low, high, made, failed = (int(part) for part in parts)
            except ValueError:
                raise forms.ValidationError(
                    _(
                        "Line %(line)d of the payout schedule needs four whole numbers: "
                        "lowest bid, highest bid, tables if made, tables if failed."
                    )
                    % {"line": line_number}
                ) from None
            bands.append(core.Band(low, high, made, failed))
        return tuple(bands)

    def clean_house_rules(self, cleaned: dict) -> None:
        if not all(name in cleaned for name in RULE_FIELDS):
            return
        try:
            rules = core.Rules(
                tables_per_team=cleaned["tables_per_team"],
                bands=cleaned["payout"],
                double_factor=cleaned["double_factor"],
                redouble_factor=cleaned["redouble_factor"],
            )
            core.check_house_rules(rules)
        except core.RulesError as error:
            self.add_error(RULE_ERROR_FIELDS.get(error.field), error.translated(_))
        else:
            cleaned["rules"] = rules


class NewGameForm(HouseRulesForm):
    """Teams in seat order, the first dealer, and the club's settings for the game."""

    label = NameField(label=gettext_lazy("Game label"), max_length=120)
    players = forms.TypedChoiceField(
        label=gettext_lazy("Players"), choices=PLAYER_COUNTS, coerce=int, initial=4
    )
    first_dealer = forms.CharField(
        label=gettext_lazy("First dealer"), initial=RANDOM_DEALER, required=False
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Only the teams of the chosen player count: a field the page does not show
        # must not refuse the form with an error nobody can see.
        for number in range(1, self.team_count + 1):
            self.fields[f"team{number}_name"] = NameField(
                label=_("Team %(number)d name") % {"number": number},
                max_length=170,
                required=False,
            )
            for partner in (1, 2):
                self.fields[f"team{number}_player{partner}"] = NameField(
                    label=_("Team %(number)d, player %(partner)d")
                    % {"number": number, "partner": partner},
                    max_length=80,
                    required=False,
                )

    @property
    def team_count(self) -> int:
        value = self.data.get("players") if self.is_bound else self.initial.get("players")
        try:
            count = int(value or 4)
        except (TypeError, ValueError):
            count = 4
        return count // 2 if count in (4, 6, 8) else 2

    @property
    def player_count(self) -> int:
        return self.team_count * 2

    def team_rows(self):
        """Bound fields per team, for the template, with the seat of each player."""
        rows = []
        teams = self.team_count
        for number in range(1, teams + 1):
            rows.append(
                {
                    "number": number,
                    "name": self[f"team{number}_name"],
                    "players": [
                        (self[f"team{number}_player{partner}"], (partner - 1) * teams + number - 1)
                        for partner in (1, 2)
                    ],
                }
            )
        return rows

    def clean(self):
        cleaned = super().clean()
        teams = []
        for number in range(1, self.team_count + 1):
            first = (cleaned.get(f"team{number}_player1") or "").strip()
            second = (cleaned.get(f"team{number}_player2") or "").strip()
            missing = f"team{number}_player1" if not first else f"team{number}_player2"
            if (not first or not second) and not self.has_error(missing):
                # (a name refused for a hidden character already says what is wrong)
                self.add_error(
                    missing, _("Team %(number)d needs two players.") % {"number": number}
                )
            teams.append(TeamEntry(first, second, (cleaned.get(f"team{number}_name") or "")))
        cleaned["teams"] = teams
        dealer = cleaned.get("first_dealer") or RANDOM_DEALER
        if dealer == RANDOM_DEALER:
            cleaned["first_dealer_seat"] = None
        else:
            try:
                seat = int(dealer)
            except ValueError:
                seat = -1
            if not 0 <= seat < self.team_count * 2:
                self.add_error("first_dealer", _("Choose a seated player or draw at random."))
            cleaned["first_dealer_seat"] = seat
        self.clean_house_rules(cleaned)
        return cleaned


def format_bands(bands) -> str:
    return "\n".join(f"{b.low}-{b.high}: {b.made} {b.failed}" for b in bands)


class DealForm(forms.Form):
    """One deal: the contract (or all passed) and every playing team's pile."""

    number = forms.IntegerField(widget=forms.HiddenInput, min_value=1)
    declarer = forms.ChoiceField(label=gettext_lazy("Declarer"))
    bid = forms.IntegerField(
        label=gettext_lazy("Bid"),
        required=False,
        min_value=core.DEFAULT_RULES.min_bid,
        max_value=core.DEFAULT_RULES.max_bid,
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )
    trump = forms.ChoiceField(
        label=gettext_lazy("Trumps"),
        choices=[("", gettext_lazy("— choose —")), *Trump.choices],
        required=False,
    )
    doubling = forms.ChoiceField(
        label=gettext_lazy("Doubling"),
        choices=Doubling.choices,
        initial=Doubling.NONE,
        widget=forms.RadioSelect,
        required=False,
    )

    def __init__(self, *args, seating: Seating, in_play: list[int], **kwargs):
        super().__init__(*args, **kwargs)
        self.seating = seating
        self.in_play = in_play
        choices = [("", _("— choose —")), (ALL_PASS, _("All passed"))]
        for seat, player in enumerate(seating.players):
            team = seating.teams[core.seat_order(len(seating.teams))[seat][0]]
            if team.position in in_play:
                choices.append((str(player.pk), f"{player.name} ({team.team.name})"))
        self.fields["declarer"].choices = choices
        for position in in_play:
            team = seating.teams[position]
            self.fields[f"points_{position}"] = forms.IntegerField(
                label=team.team.name,
                min_value=0,
                max_value=core.TOTAL_POINTS,
                widget=forms.NumberInput(attrs={"inputmode": "numeric", "data-pile": ""}),
                error_messages={
                    "required": _("Enter the pile of %(team)s.") % {"team": team.team.name},
                    "invalid": _("The pile of %(team)s must be a whole number.")
                    % {"team": team.team.name},
                },
            )

    def pile_fields(self):
        return [self[f"points_{position}"] for position in self.in_play]

    def clean(self):
        cleaned = super().clean()
        declarer = cleaned.get("declarer")
        if declarer and declarer != ALL_PASS:
            if cleaned.get("bid") is None and "bid" not in self.errors:
                self.add_error("bid", _("Enter the bid, from 28 to 56."))
            if not cleaned.get("trump") and "trump" not in self.errors:
                self.add_error("trump", _("Choose the trumps, or no trumps."))
        elif declarer == ALL_PASS and cleaned.get("doubling") not in (None, "", Doubling.NONE):
            self.add_error(
                "doubling", _("A deal where everyone passed cannot be doubled or redoubled.")
            )
        piles = [cleaned.get(f"points_{position}") for position in self.in_play]
        if None not in piles and sum(piles) != core.TOTAL_POINTS:
            self.add_error(
                None,
                _("The piles add up to %(total)d; they must add up to exactly 56.")
                % {"total": sum(piles)},
            )
        return cleaned

    def entry(self) -> DealEntry:
        cleaned = self.cleaned_data
        points = {position: cleaned[f"points_{position}"] for position in self.in_play}
        if cleaned["declarer"] == ALL_PASS:
            return DealEntry(points=points)
        return DealEntry(
            points=points,
            declarer=int(cleaned["declarer"]),
            bid=cleaned["bid"],
            trump=cleaned["trump"],
            doubling=cleaned.get("doubling") or Doubling.NONE,
        )

    @classmethod
    def initial_for(cls, entry: DealEntry, number: int) -> dict:
        initial = {"number": number, "doubling": entry.doubling}
        if entry.all_pass:
            initial["declarer"] = ALL_PASS
        else:
            initial.update(declarer=str(entry.declarer), bid=entry.bid, trump=entry.trump)
        for position, points in entry.points.items():
            initial[f"points_{position}"] = points
        return initial

    def add_scoring_error(self, error) -> None:
        """Show a service's refusal beside the field it concerns."""
        field = {
            "bid": "bid",
            "trump": "trump",
            "doubling": "doubling",
            "declarer": "declarer",
        }.get(error.field or "")
        self.add_error(field, error.message)
