"""The site administrator's list of clubs: names, addresses and organisers."""

from django.contrib import admin

from club.clubs.models import Club


@admin.register(Club)
class ClubAdmin(admin.ModelAdmin):
    list_display = ("name", "slug", "time_zone", "created_at")
    search_fields = ("name", "slug")
    filter_horizontal = ("organisers",)
