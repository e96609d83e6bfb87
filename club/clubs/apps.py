from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ClubsConfig(AppConfig):
    name = "club.clubs"
    verbose_name = _("Clubs")

    def ready(self) -> None:
        from club.clubs import known  # noqa: F401  (forgets the kept list when a club changes)
