from django.apps import AppConfig


class ArchiveConfig(AppConfig):
    name = "club.archive"
    verbose_name = "Archive (import and export of results)"
