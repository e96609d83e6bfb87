"""Admin for every model. Scores are derived from the deals, so the ledger,
tables and results are read-only here: record and correct deals on the game
pages, where the rules are applied and every change is kept."""

from django.contrib import admin

from club.games.models import (
    FORM_OF_PLAY_FIELDS,
    Change,
    Game,
    GameTeam,
    LedgerEntry,
    Pile,
    Player,
    Round,
    Team,
)


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ["name", "created_at"]
    search_fields = ["name"]


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    list_display = ["name", "first_player", "second_player"]
    search_fields = ["name", "first_player__name", "second_player__name"]
    fields = ["name", "first_player", "second_player", "third_player", "fourth_player"]
    autocomplete_fields = ["first_player", "second_player", "third_player", "fourth_player"]


# The columns an inline shows of each row, every one read-only (its fields and its
# readonly_fields alike).
GAME_TEAM_SHOWN = (
    "position",
    "team",
    "first_player",
    "second_player",
    "third_player",
    "fourth_player",
    "tables",
    "score",
    "kodis",
    "place",
    "out_in_deal",
)
PILE_SHOWN = ("game_team", "points")


class GameTeamInline(admin.TabularInline):
    model = GameTeam
    fields = GAME_TEAM_SHOWN
    readonly_fields = GAME_TEAM_SHOWN
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ["label", "club", "status", "deals_played", "winner", "created_at"]
    list_filter = ["club", "status"]
    search_fields = ["label"]
    # The winner's team in the same query; no count of every game ever (a federation's
    # tens of thousands) beside the filtered one.
    list_select_related = ["winner__team", "club"]
    show_full_result_count = False
    list_per_page = 50
    readonly_fields = [
        "club",
        "status",
        "first_dealer_seat",
        "tables_per_team",
        "payout_bands",
        "double_factor",
        "redouble_factor",
        # The forms of play: like every house rule, kept as the game was played.
        *FORM_OF_PLAY_FIELDS,
        "deal_limit",
        "tie_deals",
        "deals_played",
        "dealer_seat",
        "winner",
        "created_at",
        "updated_at",
        "created_by",
    ]
    inlines = [GameTeamInline]


class PileInline(admin.TabularInline):
    model = Pile
    fields = PILE_SHOWN
    readonly_fields = PILE_SHOWN
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Round)
class RoundAdmin(ReadOnlyAdmin):
    list_display = ["game", "number", "declarer", "bid", "trump", "doubling", "made"]
    list_filter = ["made", "doubling", "trump"]
    list_select_related = ["game", "declarer"]
    inlines = [PileInline]


@admin.register(LedgerEntry)
class LedgerEntryAdmin(ReadOnlyAdmin):
    list_display = ["round", "game_team", "change", "balance"]
    list_select_related = ["round__game", "game_team__team"]


@admin.register(Change)
class ChangeAdmin(ReadOnlyAdmin):
    list_display = ["game", "number", "action", "made_by", "made_at"]
    list_filter = ["action"]
    list_select_related = ["game", "made_by"]


@admin.register(Pile)
class PileAdmin(ReadOnlyAdmin):
    list_display = ["round", "game_team", "points"]
    list_select_related = ["round__game", "game_team__team"]
