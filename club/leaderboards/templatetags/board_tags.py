"""The leaderboard's rows, written in Python.

A page shows fifty sides with a dozen figures each; through the template
language every cell cost a variable lookup, a localisation and an ``if``, and
the rows were most of the page's time. This writes the same markup.
"""

from __future__ import annotations

from django import template
from django.template.defaultfilters import date, floatformat
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.timezone import template_localtime
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from club.games.selectors import url_maker

register = template.Library()

DASH = "—"


def _signed(value: int) -> tuple[str, str]:
    css = "up" if value > 0 else "down" if value < 0 else ""
    return (f" {css}" if css else ""), (f"+{value}" if value > 0 else str(value))


@register.simple_tag
def board_rows(rows, kind: str):
    player_url = url_maker("leaderboards:player")

    def name_cell(row) -> str:
        if kind == "players":
            return format_html('<a href="{}">{}</a>', player_url(row.subject.pk), row.name)
        pair = format_html_join(
            mark_safe(" &amp; "),
            '<a href="{}">{}</a>',
            ((player_url(player.pk), player.name) for player in row.players),
        )
        return format_html('{} <span class="small muted board-pair">{}</span>', row.name, pair)

    lines = []
    for row in rows:
        net_css, net = _signed(row.tables_net)
        lines.append(
            format_html(
                "<tr><td>{}</td>"
                '<th scope="row" class="board-name">{}</th>'
                '<td class="num">{}</td><td class="num">{}</td><td class="num">{}</td>'
                '<td class="num">{}</td><td class="num">{}</td><td class="num">{}</td>'
                '<td class="num">{}/{}</td><td class="num">{}/{}</td>'
                '<td class="num{}">{}</td><td class="num">{}</td></tr>',
                row.rank,
                name_cell(row),
                DASH if row.rating is None else floatformat(row.rating, 0),
                row.played,
                row.won,
                DASH if row.win_percent is None else f"{row.win_percent}%",
                row.declared,
                row.made,
                row.doubles_won,
                row.doubles_lost,
                row.redoubles_won,
                row.redoubles_lost,
                net_css,
                net,
                DASH if row.biggest_bid is None else row.biggest_bid,
            )
        )
    return mark_safe("\n".join(lines))  # each line built by format_html above


@register.simple_tag
def profile_games(lines):
    """The profile's list of games, one ``<li>`` each (the template's markup and wording)."""
    game_url = url_maker("games:detail")
    player_url = url_maker("leaderboards:player")
    in_progress, place, rating_change = _("in progress"), _("place"), _("rating change")
    items = []
    for line in lines:
        game, seat = line.game, line.game_team
        when = (
            date(template_localtime(game.finished_at), "SHORT_DATE_FORMAT")
            if game.is_finished
            else in_progress
        )
        badge = (
            format_html(
                '<span class="result result-{}" title="{}">{}</span>',
                line.badge.lower(),
                place,
                line.badge,
            )
            if line.badge
            else ""
        )
        delta = ""
        if line.rating_delta is not None:
            up = line.rating_delta >= 0
            delta = format_html(
                '<span class="small {}" title="{}">{}{}</span>',
                "up" if up else "down",
                rating_change,
                "+" if up else "",
                floatformat(line.rating_delta, 0),
            )
        tables = ngettext("%(count)s table", "%(count)s tables", seat.tables) % {
            "count": seat.tables
        }
        items.append(
            format_html(
                '<li><div class="profile-game"><a href="{}">{}</a> '
                '<span class="small muted">{}</span> '
                '<span class="small">{} <a href="{}">{}</a></span></div>'
                '<div class="profile-result">{} <span class="small">{}</span> {}</div></li>',
                game_url(game.pk),
                game.label,
                when,
                _("%(team)s, with") % {"team": seat.team.name},
                player_url(line.partner.pk),
                line.partner.name,
                badge,
                tables,
                delta,
            )
        )
    return mark_safe("\n".join(items))  # each item built by format_html above
