"""The tick that says a name typed here is another club's player, the same person
(club.games.other_clubs): ``{% same_person form field %}`` after the field the name was
typed in, or ``{% same_person form %}`` after the errors above the form."""

from __future__ import annotations

from django import template

register = template.Library()


@register.inclusion_tag("games/_same_person.html")
def same_person(form, field=None) -> dict:
    """The ticks for the players of other clubs asked about on ``field`` (a bound field;
    None: above the form), each sent as ``same_people``."""
    asked = getattr(form, "other_clubs", {})
    return {
        "others": asked.get(field.name if field is not None else None, []),
        "html_name": form.add_prefix("same_people"),
    }
