from django.contrib import admin

from club.leaderboards.models import PlayerRating, RatingChange, RatingsState


@admin.register(PlayerRating)
class PlayerRatingAdmin(admin.ModelAdmin):
    """Read-only: ratings are rebuilt from the games, never edited."""

    list_display = ["player", "rating", "games", "mu", "sigma"]
    search_fields = ["player__name"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(RatingChange)
class RatingChangeAdmin(admin.ModelAdmin):
    list_display = ["player", "game", "before", "after", "position"]
    list_select_related = ["player", "game"]
    search_fields = ["player__name", "game__label"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(RatingsState)
class RatingsStateAdmin(admin.ModelAdmin):
    list_display = ["rebuilt_at", "games"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
