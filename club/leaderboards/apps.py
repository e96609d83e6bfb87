from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LeaderboardsConfig(AppConfig):
    name = "club.leaderboards"
    verbose_name = _("Leaderboards")

    def ready(self) -> None:
        from club.leaderboards import receivers  # noqa: F401  (connects to game changes)
