from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TournamentsConfig(AppConfig):
    name = "club.tournaments"
    verbose_name = _("Tournaments")

    def ready(self) -> None:
        from club.tournaments import receivers  # noqa: F401  (connects to game changes)
