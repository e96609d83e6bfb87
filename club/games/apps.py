from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    name = "club.games"
    verbose_name = _("Games")

    def ready(self) -> None:
        from club.games import versions  # noqa: F401  (moves the pages' token with a rename)
        from club.web import writes

        writes.watch_writes()  # the shared pages cache's write counters, in every process
