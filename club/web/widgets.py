"""Form widgets that render long lists without a template per option.

Django renders every ``<option>`` of a ``Select`` through a template of its
own; a filter offering every tournament of a federation spent most of the
leaderboard's time there. These widgets write the same markup in Python.
"""

from __future__ import annotations

from django import forms
from django.forms.utils import flatatt
from django.utils.html import format_html, format_html_join


class QuickSelect(forms.Select):
    """A ``Select`` whose options are written in Python (no ``<optgroup>``)."""

    def render(self, name, value, attrs=None, renderer=None):
        context = self.get_context(name, value, attrs)["widget"]
        options = (
            (option["value"], " selected" if option["selected"] else "", option["label"])
            for _group, group_options, _index in context["optgroups"]
            for option in group_options
        )
        return format_html(
            '<select name="{}"{}>{}</select>',
            context["name"],
            flatatt(context["attrs"]),
            format_html_join("", '<option value="{}"{}>{}</option>', options),
        )
