"""The leaderboard's rows, written in Python.

A page shows fifty sides with a dozen figures each; through the template
language every cell cost a variable lookup, a localisation and an ``if``, and
the rows were most of the page's time. This writes the same markup.
"""

from __future__ import annotations

from django import template
from django.template.defaultfilters import floatformat
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

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
