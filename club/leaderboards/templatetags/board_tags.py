"""The leaderboard's rows, written in Python.

A page shows fifty sides with a dozen figures each; through the template
language every cell cost a variable lookup, a localisation and an ``if``, and
the rows were most of the page's time. This writes the same markup, as
club.web.html says.
"""

from __future__ import annotations

from django import template
from django.template.defaultfilters import date, floatformat
from django.utils.safestring import SafeString
from django.utils.timezone import template_localtime  # type: ignore[attr-defined]  # in Django, not in django-stubs
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from club.clubs.addresses import reverse_in
from club.games.models import Scoring
from club.games.selectors import url_maker
from club.leaderboards.night import signed
from club.leaderboards.profile import LEVEL
from club.web.html import safe_join, text

register = template.Library()

DASH = "—"


def _signed(value: int) -> tuple[str, str]:
    css = "up" if value > 0 else "down" if value < 0 else ""
    return (f" {css}" if css else ""), signed(value)


def _figure(row, name: str, between: str = "/") -> tuple[str, str]:
    """One figure of a board's row or a profile, as shown: its class (" up", " down" or
    none) and its text; won and lost, as doubles are, are put ``between`` each other."""
    if name == "win_share":
        return "", DASH if row.win_percent is None else f"{row.win_percent}%"
    value = getattr(row, name)
    if name in ("doubles_won", "redoubles_won"):
        return "", f"{value}{between}{getattr(row, name.replace('_won', '_lost'))}"
    if name in ("tables_net", "score_difference"):
        return _signed(value)
    if name == "biggest_bid":
        return "", DASH if value is None else str(value)
    return "", str(value)


def _cell(row, name: str) -> str:
    """One figure of a board's row, as its cell."""
    css, shown = _figure(row, name)
    return f'<td class="num{css}">{shown}</td>'


@register.simple_tag
def board_rows(rows, kind: str, shown) -> SafeString:
    """The board's sides (``selectors.board_page``) as the rows of its table, with the
    figures ``shown`` (``selectors.board_figures``) after the name and the rating."""
    player_url = url_maker("leaderboards:player")

    def name_cell(row) -> str:
        if kind == "players":
            return f'<a href="{player_url(row.subject.pk)}">{text(row.name)}</a>'
        pair = " &amp; ".join(
            f'<a href="{player_url(player.pk)}">{text(player.name)}</a>' for player in row.players
        )
        return f'{text(row.name)} <span class="small muted board-pair">{pair}</span>'

    lines = []
    for row in rows:
        rating = DASH if row.rating is None else text(floatformat(row.rating, 0))
        lines.append(
            f"<tr><td>{row.rank}</td>"
            f'<th scope="row" class="board-name">{name_cell(row)}</th>'
            f'<td class="num">{rating}</td>' + "".join(_cell(row, name) for name in shown) + "</tr>"
        )
    return safe_join(lines, "\n")


def column_labels() -> dict[str, str]:
    """Each board column's heading, in the reader's language."""
    return {
        "name": _("Name"),
        "rating": _("Rating"),
        "played": _("Played"),
        "won": _("Won"),
        "win_share": _("Win %"),
        "declared": _("Declared"),
        "made": _("Made"),
        "doubles_won": _("Doubled W/L"),
        "redoubles_won": _("Redoubled W/L"),
        "tables_net": _("Tables net"),
        "sessions_won": _("Sessions won"),
        "points_for": _("Points for"),
        "points_against": _("Points against"),
        "score_difference": _("Score difference"),
        "kodis_taken": _("Kodis taken"),
        "kodis_given": _("Kodis given"),
        "biggest_bid": _("Biggest bid made"),
    }


def _profile_labels() -> dict[str, str]:
    """A profile's figures are labelled as the board's columns, some at more length."""
    return column_labels() | {
        "played": _("Games played"),
        "won": _("Games won"),
        "declared": _("Contracts declared"),
        "made": _("Contracts made"),
        "doubles_won": _("Doubles won / lost"),
        "redoubles_won": _("Redoubles won / lost"),
        "tables_net": _("Tables won net"),
    }


@register.simple_tag
def profile_figures(figures, shown) -> SafeString:
    """A profile's figures (``selectors.board_figures``), each with its label."""
    labels = _profile_labels()
    items = []
    for name in shown:
        if name == "win_share":
            continue  # beside the games won
        css, shown_value = _figure(figures, name, between=" / ")
        if name == "won" and figures.win_percent is not None:
            shown_value += f' <span class="muted">({figures.win_percent}%)</span>'
        css = f' class="{css.strip()}"' if css else ""
        items.append(f"<div><dt>{text(labels[name])}</dt><dd{css}>{shown_value}</dd></div>")
    return safe_join(items, "\n")


@register.simple_tag
def club_figures(lines, shown, player, here) -> SafeString:
    """A player's figures at each club they played in (``profile.clubs_of``): a table of one
    row a club, its name (linked to the player's page there, but for ``here``, the page's
    club) and the figures ``shown``."""
    labels = column_labels()
    club = text(_("Club"))
    head = f'<th scope="col">{club}</th>' + "".join(
        f'<th scope="col" class="num">{text(labels[name])}</th>' for name in shown
    )
    rows = []
    for line in lines:
        name = text(line.club.name)
        if line.club.pk == here.pk:
            name = f"<strong>{name}</strong>"
        else:
            url = reverse_in(line.club, "leaderboards:player", args=[player.pk])
            name = f'<a href="{text(url)}">{name}</a>'
        cells = "".join(_cell(line.figures, figure) for figure in shown)
        rows.append(f'<tr><th scope="row">{name}</th>{cells}</tr>')
    return safe_join(
        [
            '<div class="table-scroll"><table class="board club-figures">',
            f"<thead><tr>{head}</tr></thead>",
            "<tbody>",
            *rows,
            "</tbody></table></div>",
        ],
        "\n",
    )


@register.simple_tag
def result_badge(badge: str) -> SafeString:
    """A game's result as a profile shows it (``profile.form_badge``), titled in words."""
    if badge == "W":
        css, title = "w", _("won")
    elif badge == LEVEL:
        css, title = "level", _("level: a shared first place")
    elif badge == "L":
        css, title = "l", _("last")
    else:
        css, title = text(badge), _("place %(place)s") % {"place": badge}
    return SafeString(
        f'<span class="result result-{css}" title="{text(title)}">{text(badge)}</span>'
    )


@register.simple_tag
def profile_games(lines) -> SafeString:
    """The profile's list of games, one ``<li>`` each (the template's markup and wording)."""
    game_url = url_maker("games:detail")
    player_url = url_maker("leaderboards:player")
    in_progress, rating_change = text(_("in progress")), text(_("rating change"))
    with_partner = _("%(team)s, with")
    # A game's change to the player's rating, labelled: "rating +12".
    rating_moved = _("rating %(change)s")
    items = []
    for line in lines:
        when = (
            text(date(template_localtime(line.finished_at), "SHORT_DATE_FORMAT"))
            if line.is_finished
            else in_progress
        )
        badge = result_badge(line.badge) if line.badge else ""
        delta = ""
        if line.rating_delta is not None:
            up = line.rating_delta >= 0
            change = f"{'+' if up else ''}{floatformat(line.rating_delta, 0)}"
            delta = (
                f'<span class="small {"up" if up else "down"}" title="{rating_change}">'
                f"{text(rating_moved % {'change': change})}</span>"
            )
        if line.scoring == Scoring.POINTS:  # a points sheet: the team's total, not tables
            tables = ngettext("%(count)s point", "%(count)s points", line.score) % {
                "count": line.score
            }
        else:
            tables = ngettext("%(count)s table", "%(count)s tables", line.tables) % {
                "count": line.tables
            }
        items.append(
            f'<li><div class="profile-game"><a href="{game_url(line.game_id)}">'
            f"{text(line.title)}</a> "
            f'<span class="small muted">{when}</span> '
            f'<span class="small">{text(with_partner % {"team": line.team})} '
            + " &amp; ".join(
                f'<a href="{player_url(partner.pk)}">{text(partner.name)}</a>'
                for partner in line.partners
            )
            + "</span></div>"
            f'<div class="profile-result">{badge} <span class="small">{text(tables)}</span> '
            f"{delta}</div></li>"
        )
    return safe_join(items, "\n")


@register.simple_tag
def night_games(lines) -> SafeString:
    """A night's games in review (club.leaderboards.night), one ``<li>`` each: the game,
    the partners, the opponents, the result, what it won or lost and the rating's change
    (the template's markup and wording, written here as the profile's games are)."""
    game_url = url_maker("games:detail")
    player_url = url_maker("leaderboards:player")
    with_, against = text(_("with")), text(_("against"))
    rating_moved = _("rating %(change)s")
    items = []
    for line in lines:
        partners = " &amp; ".join(
            f'<a href="{player_url(partner.pk)}">{text(partner.name)}</a>'
            for partner in line.partners
        )
        opponents = "; ".join(
            " &amp; ".join(text(each.name) for each in team.players) for team in line.opponents
        )
        delta = ""
        if line.rating_delta is not None:
            css = "up" if line.rating_delta >= 0 else "down"
            delta = (
                f'<span class="small {css}">'
                f"{text(rating_moved % {'change': line.rating_shown})}</span>"
            )
        items.append(
            f'<li><div class="night-game"><a href="{game_url(line.game.pk)}">'
            f"{text(line.game.title)}</a> "
            f'<span class="small">{with_} {partners}</span> '
            f'<span class="small muted">{against} {opponents}</span></div>'
            f'<div class="profile-result">{result_badge(line.badge)} '
            f'<span class="small">{text(line.amount)}</span> {delta}</div></li>'
        )
    return safe_join(items, "\n")


@register.simple_tag
def night_contracts(rows) -> SafeString:
    """The night's contracts by bid (``review.Contracts.rows``), a ``<tr>`` each: every
    band of bids, and a thani or an all-pass row only when a deal was one."""
    thani, all_passed = text(_("Thani")), text(_("All passed"))
    lines = []
    for row in rows:
        if not (row.kind == "band" or row.ours.declared or row.theirs.declared):
            continue
        if row.kind == "thani":
            kind, name = row.kind, thani
        elif row.kind == "all-pass":
            kind, name = row.kind, all_passed
        else:
            low, high = row.band.low, row.band.high
            kind, name = f"{row.kind}-{low}", str(low) if low == high else f"{low}–{high}"
        lines.append(
            f'<tr data-kind="{kind}"><th scope="row">{name}</th>'
            f'<td class="num">{row.ours.declared}</td><td class="num">{row.ours.made}</td>'
            f'<td class="num">{row.theirs.declared}</td><td class="num">{row.defeated}</td></tr>'
        )
    return safe_join(lines, "\n")
