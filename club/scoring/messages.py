"""Messages of the rules core, in English and marked for translation; no Django.

The pure modules raise :class:`TranslatableError` (or a subclass): an English
``template`` marked with :func:`_` (so ``makemessages`` finds it), the values
that fill it in, and the ``field`` at fault, so that forms and importers can
point at it. The Django layer shows it in the reader's language with
``error.translated(gettext)``.
"""

from __future__ import annotations

from collections.abc import Callable


def _(message: str) -> str:
    """Mark a message for translation; the Django layer translates it when shown."""
    return message


class Refusal(Exception):
    """A write refused, with a ``message`` already in the reader's words and the ``field`` at fault.

    The apps' errors (games' ScoringError, TournamentError, RegisterError,
    BackupError) are refusals: their views show ``message`` and point the form
    at ``field``.
    """

    def __init__(self, message: str, *, field: str | None = None):
        super().__init__(message)
        self.message = message
        self.field = field


class TranslatableError(ValueError):
    """An English message marked for translation, the values that fill it in, and a field."""

    def __init__(self, template: str, *, field: str | None = None, **params: object):
        self.template = template
        self.params = params
        self.field = field
        super().__init__(self.message)

    @property
    def message(self) -> str:
        return self.translated(lambda text: text)

    def translated(self, gettext: Callable[[str], str], team_names=None) -> str:
        """The message in the reader's language; a ``team`` value shown as its name."""
        params = dict(self.params)
        if "team" in params:
            params["team"] = self.team_name(params["team"], gettext, team_names)
        text = gettext(self.template)
        return text % params if params else text

    def team_name(self, team: object, gettext: Callable[[str], str], team_names) -> object:
        """How a ``team`` value reads: as it is, unless a subclass knows better."""
        return team
