"""Labels for the stable codes kept in exports, and the lines the game page repeats.

The game page shows every deal of the game and fifty changes of its history.
Through the template engine those lines cost more than the rest of the page
together, so they are written here (as club.web.html says), with the markup
and wording the template had; only whitespace between table cells and blocks,
which the browser ignores, differs.
"""

from django import template
from django.utils.formats import date_format
from django.utils.safestring import SafeString
from django.utils.timezone import localtime
from django.utils.translation import gettext, ngettext, pgettext

from club.games import words
from club.games.models import Doubling, Trump
from club.games.selectors import url_maker
from club.web.html import safe_join, text
from club.web.keys import new_key_input

register = template.Library()

# The words of a game's or tournament's form of play (club.games.words).
register.simple_tag(words.unit, name="unit_word")
register.simple_tag(words.call_time_question)
register.simple_tag(words.call_sitting_question)
register.filter("table_title", words.table_title)
register.simple_tag(words.after_heading)


@register.simple_tag
def captain_mark() -> SafeString:
    """What follows a team captain's name wherever a team's players are listed."""
    title = gettext("captain")
    mark = pgettext("the captain, after a name", "(c)")
    return SafeString(f' <abbr class="captain" title="{text(title)}">{text(mark)}</abbr>')


@register.filter
def trump_label(code: str | None) -> str | None:
    """The trump's name in the reader's language; any other value as it is."""
    if code is None:  # no such key in the deal: nothing to name
        return None
    try:
        return str(Trump(code).label)
    except ValueError:
        return code


@register.filter
def doubling_label(code: str | None) -> str | None:
    """The doubling's name in the reader's language; any other value as it is."""
    if code is None:  # no such key in the deal: nothing to name
        return None
    try:
        return str(Doubling(code).label)
    except ValueError:
        return code


@register.filter(name="deal_as_entered")
def deal_as_entered_filter(deal: dict) -> SafeString:
    """``{{ deal|deal_as_entered }}``: a described deal in words, escaped (as the history)."""
    return SafeString(deal_as_entered(deal))


def deal_as_entered(deal: dict) -> str:
    """A deal of the change history (``services.describe``) as one line of text.

    "Anu bid 32 Spades, Not doubled; piles: Anu & Biju 30, Chitra & Dev 26".
    Values are escaped as a template would, the translated sentence is not;
    bids and piles are below 1000, so no locale writes them other than ``str``.
    """
    if "thani" in deal:
        contract = (
            gettext("thani by %(player)s, made")
            if deal.get("made")
            else gettext("thani by %(player)s, failed")
        ) % {"player": text(deal.get("thani"))}
        return contract
    if deal.get("all_pass"):
        contract = text(gettext("all passed"))
    else:
        contract = gettext("%(declarer)s bid %(bid)s %(trump)s, %(doubling)s") % {
            "declarer": text(deal.get("declarer")),
            "bid": text(deal.get("bid")),
            "trump": text(trump_label(deal.get("trump"))),
            "doubling": text(doubling_label(deal.get("doubling"))),
        }
    piles = ", ".join(
        f"{text(team)} {text(points)}" for team, points in deal.get("points", {}).items()
    )
    # Outside the f-string: makemessages finds no gettext inside one.
    piles_word = gettext("piles")
    return f"{contract}; {text(piles_word)}: {piles}"


@register.simple_tag
def change_lines(changes: list[dict]) -> SafeString:
    """The game's history (``selectors.game_page``) as the items of ``ul.changes``.

    When, what was done to which deal by whom, and the deal before and after.
    The page shows fifty of them; through the template engine they cost more
    than the rest of the page, so they are written here, as the template did.
    """
    before, after = text(gettext("Before:")), text(gettext("After:"))
    someone = gettext("someone")
    done = gettext("%(action)s deal %(number)s (%(who)s)")
    # Time called names the deal it came after: "Ended by the organiser deal 0" read as
    # if a deal 0 had been ended.
    called = gettext("Time called after deal %(number)s (%(who)s)")
    called_first = gettext("Time called before any deal (%(who)s)")
    lines = []
    for change in changes:
        when = date_format(localtime(change["made_at"]), "SHORT_DATETIME_FORMAT")
        if change.get("time_called"):
            what = called_first if change["number"] == 0 else called
        else:
            what = done
        what = what % {
            "action": text(change["action"]),
            "number": change["number"],
            "who": text(change["who"] or someone),
        }
        line = f'<li><span class="muted">{text(when)}</span> {what}'
        if change.get("note"):  # why, as whoever did it wrote it
            line += f" · “{text(change['note'])}”"
        if change["before"]:
            line += f'<div class="small">{before} {deal_as_entered(change["before"])}</div>'
        if change["after"]:
            line += f'<div class="small">{after} {deal_as_entered(change["after"])}</div>'
        lines.append(line + "</li>")
    return safe_join(lines)


def _deal_cell(cell: dict, card_points: str) -> str:
    points, change = cell["points"], cell["change"]
    out = cell.get("out", points is None)
    state = ("declaring" if cell["declaring"] else "") + (" out" if out else "")
    pile = "—" if points is None else f'<span class="pile" title="{card_points}">{points}</span>'
    if not change:
        moved = ""
    elif change > 0:
        moved = f'<span class="up">+{change}</span> '
    else:
        moved = f'<span class="down">{change}</span> '
    balance = f'<span class="balance">→ {cell["balance"]}</span>'
    return f'<td class="{state}">{pile} {moved}{balance}</td>'


@register.simple_tag
def deal_lines(deal_rows: list, game, organiser: bool = False) -> SafeString:
    """The deals of the game page (``selectors.game_page``) as the rows of ``table.deals``.

    Each row: the number, the contract worded as games/_contract.html words it,
    made or failed, the dealer (and for an organiser the link to correct the
    deal), then each team's pile, change and tables after. A long game shows a
    hundred of them, each through the template engine costing more than the
    rest of the page; the markup is the template's, escaped as it would be.
    """
    made, failed = text(gettext("made")), text(gettext("failed"))
    card_points, correct = text(gettext("card points")), text(gettext("Correct"))
    all_passed = gettext("All passed: %(team)s to make 28, no trumps")
    declared = gettext("%(declarer)s bid %(bid)s %(trump)s")
    thani_by = gettext("Thani by %(player)s")
    dealt_by = gettext("dealt by %(dealer)s")
    # A game whose tournament's results are final takes no correction: none is offered.
    edit_url = url_maker("games:edit", game.pk) if organiser and not game.results_locked else None
    lines = []
    for deal in deal_rows:
        round_ = deal.round
        if round_.thani:
            contract = thani_by % {"player": text(round_.declarer.name)}
        elif round_.all_pass:
            contract = all_passed % {"team": text(round_.declaring_team.team.name)}
        else:
            contract = declared % {
                "declarer": text(round_.declarer.name),
                "bid": round_.bid,
                "trump": text(deal.trump),
            }
            if deal.doubling:
                contract += f" · <b>{text(deal.doubling)}</b>"
        result = (
            f'<span class="made">{made}</span>'
            if round_.made
            else f'<span class="failed">{failed}</span>'
        )
        dealer = dealt_by % {"dealer": text(round_.dealer.name)}
        if edit_url:
            dealer += f' · <a class="correct" href="{edit_url(round_.number)}">{correct}</a>'
        cells = "".join(_deal_cell(cell, card_points) for cell in deal.cells)
        lines.append(
            f"<tr><td>{round_.number}</td>"
            f'<td>{contract} {result}<div class="muted small">{dealer}</div></td>{cells}</tr>'
        )
    return safe_join(lines)


@register.simple_tag
def idempotency_key() -> str:
    """A hidden one-time key, so a resent form gets the first answer (club.games.idempotency)."""
    return new_key_input()


@register.simple_tag
def game_cards(cards) -> SafeString:
    """The home page's games (``selectors.game_list_page``'s cards) as cards, as
    games/_game_card.html wrote them: up to 90 of them through the template engine
    cost twice the rest of the page."""
    game_url = url_maker("games:detail")
    written = []
    for card in cards:
        game = card.game
        teams = []
        for team in card.teams:
            state = ("out" if team.tables == 0 else "") + (
                " winner" if game.winner_id == team.pk else ""
            )
            figure = team.score if game.scoring == "points" else team.tables
            teams.append(f'<li class="{state}">{text(team.name)} <b>{figure}</b></li>')
        won, winner = "", card.winner
        if winner is not None:
            # Outside the f-string: makemessages finds no gettext inside one.
            said = gettext("%(team)s won") % {"team": winner.name}
            won = (
                '<span class="badge"><span class="trophy" aria-hidden="true">★</span> '
                f"{text(said)}</span>"
            )
        deals = ngettext("%(deals)s deal", "%(deals)s deals", game.deals_played) % {
            "deals": game.deals_played
        }
        written.append(
            f'<a class="card game-card" href="{game_url(game.pk)}">'
            f"<strong>{text(game.title)}</strong> "  # a space before the count, as the words read
            f'<span class="muted">{text(deals)}</span>'
            f'<ul class="team-tables">{"".join(teams)}</ul>{won}</a>'
        )
    return safe_join(written)
