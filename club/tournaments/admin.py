"""Admin for tournaments: settings and entries editable, derived rows read-only."""

from django.contrib import admin

from club.tournaments.models import (
    Bye,
    Sitting,
    SittingGame,
    Standing,
    Tournament,
    TournamentEvent,
    TournamentTeam,
)


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows derived by the services (standings) or kept as history (events): look, never touch."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class TournamentTeamInline(admin.TabularInline):
    model = TournamentTeam
    extra = 0
    raw_id_fields = ["team"]


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ["name", "starts_on", "venue", "status", "is_final"]
    list_filter = ["status", "is_final"]
    search_fields = ["name", "venue"]
    # In this order, not the model's: the house rules come from an abstract
    # model, whose fields Django places first.
    fields = [
        "name",
        "starts_on",
        "ends_on",
        "venue",
        "status",
        "is_final",
        "tables_per_team",
        "payout_bands",
        "double_factor",
        "redouble_factor",
        "deal_limit",
        "points_scheme",
        "require_confirmation",
        "results_version",
        "created_at",
        "created_by",
    ]
    readonly_fields = ["results_version", "created_at", "created_by"]
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
    list_display = ["team", "tournament", "registered_at"]
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
