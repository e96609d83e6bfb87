"""The lines the tournament page repeats by the dozen, written out in Python.

A 40-team tournament of 9 sittings shows 40 lines of standings and 180 games.
Through the template engine those lines cost more than the rest of the page
together, so the page grew slower with every sitting; written here (as
club.web.html says) each is a few microseconds. The markup is what
tournaments/detail.html had; only the whitespace between table cells and flex
items, which the browser ignores, is gone.
"""

from django import template
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from club.games import words
from club.games.templatetags import club_tags
from club.web.html import safe_join, text

register = template.Library()


def _team(name: str, figure: int, won: bool, out: bool) -> str:
    state = " winner" if won else " out" if out else ""
    return f'<span class="game-team{state}">{text(name)} <b>{figure}</b></span>'


@register.simple_tag
def game_lines(games: list[dict]) -> SafeString:
    """A sitting's games (``selectors.sitting_lines``) as the items of ``ul.sitting-games``."""
    return safe_join(
        f'<li class="sitting-game{" playing" if game["playing"] else ""}">'
        f'<a href="{text(game["url"])}">'
        f'<span class="table-label">{text(words.table_title(game["table_label"]))}</span>'
        f'<span class="badge {text(game["status"])}">{text(game["status_label"])}</span>'
        f'<span class="game-teams">{"".join(_team(*team) for team in game["teams"])}</span>'
        "</a></li>"
        for game in games
    )


def _players(row: dict) -> str:
    """A team's players, each a link to their page in the tournament when it is known;
    the captain marked."""
    links = row.get("player_links") or [None] * len(row["players"])
    mark = club_tags.captain_mark()
    return " · ".join(
        (f'<a href="{text(url)}">{text(player)}</a>' if url else text(player))
        + (mark if at == row.get("captain") else "")
        for at, (player, url) in enumerate(zip(row["players"], links, strict=True))
    )


@register.simple_tag
def standing_lines(rows: list[dict]) -> SafeString:
    """The standings (``selectors.standing_rows``) as the rows of ``table.standings``."""
    withdrawn_word = _("withdrawn")  # outside the f-string, where makemessages finds it
    withdrawn = f' <span class="badge withdrawn">{text(withdrawn_word)}</span>'
    lines = []
    for row in rows:
        made = (
            f'{row["made_percent"]}%<div class="muted small">{row["made"]}/{row["declared"]}</div>'
            if row["made_percent"] is not None
            else "—"
        )
        lines.append(
            f'<tr><td class="place">{row["place"]}{"=" if row["shared"] else ""}</td>'
            f'<td><span class="team-name">{text(row["team"])}</span>'
            f"{withdrawn if row.get('withdrawn') else ''}"
            f'<div class="muted small">{_players(row)}</div></td>'
            f'<td class="num points">{text(row["points"])}</td>'
            f'<td class="num">{row["games"]}</td>'
            f'<td class="num">{row["won"]}</td>'
            f'<td class="num">{"+" if row["net"] > 0 else ""}{row["net"]}</td>'
            f'<td class="num">{made}</td>'
            f'<td class="num">{row["byes"]}</td></tr>'
        )
    return safe_join(lines)
