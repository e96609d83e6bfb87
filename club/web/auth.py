"""Who may write: organisers are active staff accounts (docs/forms-of-play.md, "Who may write")."""

from __future__ import annotations

from django.contrib.auth.decorators import user_passes_test


def is_organiser(user) -> bool:
    return user.is_active and user.is_staff


organiser_required = user_passes_test(is_organiser)
