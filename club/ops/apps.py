from django.apps import AppConfig


class OpsConfig(AppConfig):
    name = "club.ops"
    verbose_name = "Operations"
