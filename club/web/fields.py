"""Form fields shared by the apps' forms."""

from __future__ import annotations

from django import forms
from django.utils.functional import lazy
from django.utils.translation import gettext as _

from club.scoring import names


class NameField(forms.CharField):
    """A name or label as a person types it, kept in one spelling (club.scoring.names).

    Look-alike forms are folded (full-width "Ａｎｕ" is "Anu"), spaces
    collapsed, and a hidden character (zero-width space, right-to-left
    override, control character) refused with the character named, so "Anu"
    and "A\\u200bnu" cannot become two players. Imported archives keep their
    names as written instead (club.archive), so that every exported
    file stays valid.
    """

    def to_python(self, value):
        return names.normal_name(super().to_python(value))

    def validate(self, value):
        super().validate(value)
        if value:
            try:
                names.clean_name(value)
            except names.UnusableName as error:
                raise forms.ValidationError(error.translated(_), code="hidden") from None


def _range_message(low: int, high: int) -> str:
    return _("Enter a whole number from %(low)d to %(high)d.") % {"low": low, "high": high}


# In the reader's language when the message is shown, not when the form is declared.
range_message = lazy(_range_message, str)


class WholeNumberField(forms.IntegerField):
    """A whole number within bounds, refused in the club's words with its range named.

    Django's own messages ("Ensure this value is greater than or equal to
    28.") read like a program's; ``error_messages`` given here still win, so a
    field can say what the number is (a bid, a team's pile).
    """

    def __init__(self, *, min_value: int, max_value: int, error_messages=None, **kwargs):
        text = range_message(min_value, max_value)
        messages = {"invalid": text, "min_value": text, "max_value": text}
        messages.update(error_messages or {})
        super().__init__(
            min_value=min_value, max_value=max_value, error_messages=messages, **kwargs
        )
