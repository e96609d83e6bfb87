"""Admin for tournaments: settings and entries editable, derived rows read-only."""

from django import forms
from django.contrib import admin
from django.utils.translation import gettext as _

from club.games.models import FORM_OF_PLAY_FIELDS, rules_from_values
from club.scoring import rules as core
from club.tournaments import substitutions
from club.tournaments.models import (
    Bye,
    Sitting,
    SittingGame,
    Standing,
    Tournament,
    TournamentEvent,
    TournamentTeam,
)
from club.tournaments.services.teams import team_size_words


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows derived by the services (standings) or kept as history (events): look, never touch."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class TournamentTeamForm(forms.ModelForm):
    """A team added here is of the tournament's size, as the registration form's are, and
    its captain one of its players (the first, if none is chosen)."""

    class Meta:
        model = TournamentTeam
        fields = ["team", "captain"]

    def clean_team(self):
        team = self.cleaned_data["team"]
        tournament = getattr(self.instance, "tournament", None)
        if tournament is not None and len(team.players) != tournament.team_size:
            raise forms.ValidationError(team_size_words(tournament.team_size))
        if self.instance.pk and team.pk != self.instance.team_id:
            if self.instance.substitutions.exists():
                raise forms.ValidationError(
                    _("This team has a substitution: undo it before changing the team's players.")
                )
        if tournament is not None:
            sits_in = substitutions.sitting_in(
                tournament, team.player_ids, besides=self.instance.pk
            )
            if sits_in is not None:
                raise forms.ValidationError(
                    _("%(player)s already plays for %(team)s in this tournament.")
                    % {"player": sits_in.player_in.name, "team": sits_in.entry.team.name}
                )
        return team

    def clean(self):
        data = super().clean()
        team, captain = data.get("team"), data.get("captain")
        if team is not None:
            if captain is None:
                data["captain"] = team.first_player
            elif captain.pk not in team.player_ids:
                self.add_error("captain", _("The captain is one of the team's players."))
        return data


class TournamentTeamInline(admin.TabularInline):
    model = TournamentTeam
    form = TournamentTeamForm
    extra = 0
    raw_id_fields = ["team", "captain"]


# The tournament's own fields, its house rules, and how its games are reported, as the
# admin edits them (the form of play is shown, never edited: TournamentAdmin).
WHEN_AND_WHERE = ["name", "starts_on", "ends_on", "venue", "status", "is_final"]
HOUSE_RULES = ["tables_per_team", "payout_bands", "double_factor", "redouble_factor"]
RESULTS = ["deal_limit", "points_scheme", "require_confirmation"]


def _first_bad_band(bands) -> int | None:
    """The line (1, 2 ...) of the first band that is not four whole numbers, if any."""
    if not isinstance(bands, list):
        return 1
    for line, band in enumerate(bands, start=1):
        if not (
            isinstance(band, list)
            and len(band) == 4
            and all(isinstance(n, int) and not isinstance(n, bool) for n in band)
        ):
            return line
    return None


class TournamentAdminForm(forms.ModelForm):
    """The house rules as typed here must be rules the games can be played by."""

    class Meta:
        model = Tournament
        fields = [*WHEN_AND_WHERE, *HOUSE_RULES, *RESULTS]

    def clean(self):
        cleaned = super().clean()
        if any(name in self.errors for name in HOUSE_RULES):
            return cleaned
        bands = cleaned.get("payout_bands") or []
        line = _first_bad_band(bands)
        if line is not None:
            raise forms.ValidationError(
                _(
                    "Line %(line)d of the payout schedule needs four whole numbers: "
                    "lowest bid, highest bid, tables if made, tables if failed."
                )
                % {"line": line}
            )
        try:
            rules = rules_from_values(
                *(cleaned.get(name, getattr(self.instance, name)) for name in HOUSE_RULES),
                deal_limit=cleaned.get("deal_limit"),
                **{name: getattr(self.instance, name) for name in FORM_OF_PLAY_FIELDS},
            )
            core.check_house_rules(rules)
        except core.RulesError as error:
            raise forms.ValidationError(error.translated(_)) from None
        return cleaned


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    form = TournamentAdminForm
    list_display = ["name", "club", "starts_on", "venue", "status", "is_final"]
    list_filter = ["club", "status", "is_final"]
    list_select_related = ["club"]
    search_fields = ["name", "venue"]
    # In this order, not the model's: the house rules come from an abstract
    # model, whose fields Django places first.
    fields = [
        *WHEN_AND_WHERE,
        *HOUSE_RULES,
        *FORM_OF_PLAY_FIELDS,
        *RESULTS,
        "results_version",
        "created_at",
        "created_by",
    ]
    # The form of play is chosen when the tournament is created, for all its games.
    readonly_fields = [*FORM_OF_PLAY_FIELDS, "results_version", "created_at", "created_by"]
    inlines = [TournamentTeamInline]


class SittingGameInline(admin.TabularInline):
    model = SittingGame
    extra = 0
    raw_id_fields = ["game"]


class ByeInline(admin.TabularInline):
    model = Bye
    extra = 0


@admin.register(Sitting)
class SittingAdmin(admin.ModelAdmin):
    list_display = ["tournament", "number", "status", "game_size", "confirmed_at"]
    list_filter = ["status"]
    list_select_related = ["tournament"]
    inlines = [SittingGameInline, ByeInline]


@admin.register(TournamentTeam)
class TournamentTeamAdmin(admin.ModelAdmin):
    form = TournamentTeamForm
    list_display = ["team", "tournament", "captain", "registered_at"]
    list_select_related = ["team", "tournament"]
    search_fields = ["team__name", "tournament__name"]
    raw_id_fields = ["team"]


@admin.register(Standing)
class StandingAdmin(ReadOnlyAdmin):
    list_display = ["tournament", "place", "entry", "points", "games", "won", "net_tables", "byes"]
    list_select_related = ["tournament", "entry__team"]
    list_filter = ["tournament"]


@admin.register(TournamentEvent)
class TournamentEventAdmin(ReadOnlyAdmin):
    list_display = ["tournament", "action", "note", "made_by", "made_at"]
    list_select_related = ["tournament", "made_by"]
    list_filter = ["action"]
