from django.apps import AppConfig
from django.db.models.signals import post_migrate
from django.utils.translation import gettext_lazy as _


def rate_each_form_once(sender, apps, using, **kwargs) -> None:
    """After an upgrade, each form of play's ratings from the ratings' order, at once: at
    the first game after it, on a large site, the deal that ends it would wait for them.
    Only when the database is at the models of now (a migration back leaves it alone)."""
    fields = {field.name for field in apps.get_model("leaderboards", "RatingsState")._meta.fields}
    if "forms_kept" not in fields:
        return
    from django.db import transaction

    from club.leaderboards.models import RatingChange, RatingsState
    from club.leaderboards.services.ratings import keep_form_ratings

    state = RatingsState.objects.using(using)
    if state.filter(forms_kept=False).exists() and RatingChange.objects.using(using).exists():
        with transaction.atomic(using=using):
            keep_form_ratings()


class LeaderboardsConfig(AppConfig):
    name = "club.leaderboards"
    verbose_name = _("Leaderboards")

    def ready(self) -> None:
        from club.leaderboards import receivers  # noqa: F401  (connects to game changes)

        post_migrate.connect(rate_each_form_once, sender=self, dispatch_uid="rate-each-form")
