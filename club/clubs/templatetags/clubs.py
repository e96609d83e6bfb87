"""``{% site_url name %}``: the address of a page of the site itself (its home, the list
of clubs), which ``{% url %}`` on a club's page would make inside the club."""

from django import template

from club.clubs.addresses import reverse_in, site_reverse

register = template.Library()


@register.simple_tag
def site_url(viewname: str, *args) -> str:
    return site_reverse(viewname, args=args)


@register.simple_tag
def club_url(club, viewname: str, *args) -> str:
    """The address of ``viewname`` on ``club``'s pages (a link from another club's page or
    from the site's)."""
    return reverse_in(club, viewname, args=args)
