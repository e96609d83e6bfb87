from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CompetitionsConfig(AppConfig):
    name = "club.competitions"
    verbose_name = _("Seasons and circuits")
