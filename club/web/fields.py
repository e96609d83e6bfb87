"""Form fields shared by the apps' forms."""

from __future__ import annotations

from django import forms
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
