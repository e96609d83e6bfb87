from django.apps import AppConfig
from django.db.models.signals import post_migrate
from django.utils.translation import gettext_lazy as _


class LeaderboardsConfig(AppConfig):
    name = "club.leaderboards"
    verbose_name = _("Leaderboards")

    def ready(self) -> None:
        from club.leaderboards import receivers  # (connects to game changes)

        post_migrate.connect(
            receivers.rate_each_form_once, sender=self, dispatch_uid="rate-each-form"
        )
