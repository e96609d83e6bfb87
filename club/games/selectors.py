"""Reads for the game pages: everything one page shows, in a fixed number of queries."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.db.models import OuterRef, Subquery
from django.urls import reverse
from django.utils.translation import gettext as _

from club.games.models import Change, Doubling, Game, GameTeam, LedgerEntry, Pile, Round, Trump
from club.games.services import Seating, load_seating
from club.scoring import rules as core
from club.scoring.names import default_team_name
from club.scoring.wire import rules_to_wire, state_to_wire
from club.web.paging import page_of

TEAM_COLOURS = ["#c0392b", "#1f6fb2", "#1e8449", "#8e44ad"]


@dataclass
class TeamRow:
    team: GameTeam
    colour: str
    change: int | None  # tables moved in the last deal

    @property
    def players_shown(self) -> bool:
        """Whether the tile lists the players under the team's name: not when the name is
        theirs already ("Anu & Biju"), which would name the team twice."""
        names = [player.name for player in self.team.players]
        return self.team.team.name != default_team_name(names)


@dataclass
class DealRow:
    round: Round
    trump: str  # the trump's name in the reader's language
    doubling: str  # "" when not doubled, else "Doubled" or "Redoubled", translated
    cells: list[dict]  # per team of the game: pile, change, balance


def url_maker(name: str, *args) -> Callable[[int], str]:
    """``reverse(name, args=[*args, pk])`` for any pk, reversed once.

    The tournament page links every game of every sitting (180 at a 40-team,
    9-sitting tournament), the game page every deal's correction; reversing
    each costs more than the rest of its line.
    """
    marker = 918273645  # a number the rest of the URL cannot contain
    head, tail = reverse(name, args=[*args, marker]).split(str(marker))
    return lambda pk: f"{head}{pk}{tail}"


def attach_seating(rounds: list[Round], seating: Seating) -> None:
    """Give each deal its declarer, dealer and declaring team from the seating already loaded.

    They are players and teams of this game, so joining them in again for every
    deal would only build the same objects once per deal.
    """
    players = {player.pk: player for player in seating.players}
    teams = {team.pk: team for team in seating.teams}
    declarer, dealer = Round.declarer.field, Round.dealer.field
    declaring_team = Round.declaring_team.field
    for round_ in rounds:
        if round_.declarer_id is None:  # all passed: no declarer
            declarer.set_cached_value(round_, None)
        elif round_.declarer_id in players:
            declarer.set_cached_value(round_, players[round_.declarer_id])
        if round_.dealer_id in players:
            dealer.set_cached_value(round_, players[round_.dealer_id])
        if round_.declaring_team_id in teams:
            declaring_team.set_cached_value(round_, teams[round_.declaring_team_id])


def _per_round(rows) -> dict[int, dict[int, tuple]]:
    """{round id: {game team id: the rest of the row}} from (round id, team id, ...) rows."""
    by_round: dict[int, dict[int, tuple]] = defaultdict(dict)
    for round_id, team_id, *values in rows:
        by_round[round_id][team_id] = values
    return by_round


def chart(
    team_rows, balances: dict[int, list[int]], tables_per_team: int, deals: int, *, points=False
) -> dict:
    """Polylines of each team's tables (or points total) after every deal, for an inline SVG.

    ``balances`` holds each team's (game team id) tables after every deal, in order;
    on a points sheet its total, drawn from 0 up to the highest total.
    """
    start = 0 if points else tables_per_team
    total = tables_per_team * len(team_rows)
    if points:
        total = max([1, *(max(values, default=0) for values in balances.values())])
    width, height = 600, 220
    step = width / max(deals, 1)
    series = []
    for row in team_rows:
        tables = [start, *balances.get(row.team.pk, [])]
        points = " ".join(
            f"{index * step:.1f},{height - balance / total * height:.1f}"
            for index, balance in enumerate(tables)
        )
        series.append({"team": row, "points": points, "last": tables[-1]})
    return {
        "width": width,
        "height": height,
        "series": series,
        # A string: the template would write a float with the reader's decimal comma
        # (es, el, da), which SVG does not read.
        "start_y": str(height - start / total * height),
        "deals": deals,
    }


def _history(game: Game) -> list[dict]:
    """The latest changes as plain rows: the page shows each as one line of text."""
    who = f"made_by__{get_user_model().USERNAME_FIELD}"
    link_team = "scorer_link__game_team__team__name"
    actions = {value: str(label) for value, label in Change.Action.choices}
    rows = list(
        Change.objects.filter(game=game)
        .order_by("-made_at", "-id")
        .values(
            "made_at",
            "action",
            "number",
            "before",
            "after",
            "note",
            who,
            "scorer_link_id",
            link_team,
        )[:50]
    )
    for row in rows:
        row["time_called"] = row["action"] == Change.Action.ENDED
        row["action"] = actions.get(row["action"], row["action"])
        row["who"] = row.pop(who)
        team, through_link = row.pop(link_team), row.pop("scorer_link_id")
        if row["who"] is None and through_link:  # a phone at the table: say whose
            row["who"] = (
                _("%(team)s's scorer link") % {"team": team} if team else _("the table's link")
            )
    return rows


def _deal_rows(game: Game, rounds: list[Round], teams) -> tuple[list[DealRow], dict]:
    """Each deal with every team's pile, change and tables after, and each team's tables
    after every deal (for the chart).

    One query: every team has a ledger row each deal, and its pile beside it (none for a
    team out, nor for a thani).
    """
    pile = Pile.objects.filter(round_id=OuterRef("round_id"), game_team_id=OuterRef("game_team_id"))
    cells_of = _per_round(
        LedgerEntry.objects.filter(round__game=game)
        .order_by()  # the model's order joins the rounds and teams again; the rows say both
        .annotate(pile=Subquery(pile.values("points")[:1]))
        .values_list("round_id", "game_team_id", "pile", "change", "balance")
    )
    trumps = {value: str(label) for value, label in Trump.choices}
    doublings = {value: str(label) for value, label in Doubling.choices}
    doublings[Doubling.NONE] = ""
    balances: dict[int, list[int]] = {team.pk: [] for team in teams}
    deal_rows = []
    for round_ in rounds:
        round_cells = cells_of.get(round_.pk, {})
        cells = []
        for team in teams:
            points, change, balance = round_cells.get(team.pk) or (None, None, None)
            if change is not None:
                balances[team.pk].append(balance)
            cells.append(
                {
                    "points": points,
                    "change": change,
                    "balance": balance,
                    "declaring": round_.declaring_team_id == team.pk,
                    # a thani has no piles; without one, no pile means the team was out
                    "out": points is None and not round_.thani,
                }
            )
        deal_rows.append(
            DealRow(
                round=round_,
                trump=trumps.get(round_.trump, round_.trump),
                doubling=doublings.get(round_.doubling, round_.doubling),
                cells=cells,
            )
        )
    return deal_rows, balances


def game_page(game: Game, *, seating: Seating | None = None, whole: bool = True) -> dict:
    """What the game page shows: tables, who deals, the cards, the deals and their history.

    Five queries however long the game: the seating, the deals, their piles and
    ledger, and the latest changes (and the game itself, read by the caller).
    Not ``whole``, for the scorer's page: the tables, the last deal and who deals
    next, without every deal and the history (three queries).
    """
    seating = seating or load_seating(game)
    teams = seating.teams
    if game.winner_id is not None:
        winner = next((team for team in teams if team.pk == game.winner_id), None)
        if winner is not None:
            Game.winner.field.set_cached_value(game, winner)
    deals = _every_deal(game, teams) if whole else _last_deal(game)
    attach_seating(deals.rounds, seating)
    team_rows = [
        TeamRow(team=team, colour=TEAM_COLOURS[team.position], change=deals.change.get(team.pk))
        for team in teams
    ]
    last = deals.last
    context = {
        "game": game,
        "seating": seating,
        "team_rows": team_rows,
        "last_round": last,
        "last_eliminated": [t for t in teams if last and t.out_in_deal == last.number],
        # With kodi: the teams the last deal left with no tables (every team starts again).
        "last_kodi": [
            team
            for team in teams
            if game.kodi
            and last is not None
            and deals.before.get(team.pk, game.tables_per_team) + (deals.change.get(team.pk) or 0)
            == 0
        ],
        "in_play": [team.position for team in teams if team.tables > 0],
        "next_number": game.deals_played + 1,
        "placed": sorted(teams, key=lambda team: (team.place or 99, team.position)),
    }
    if whole:
        context.update(
            deal_rows=list(reversed(deals.rows)),
            chart=chart(
                team_rows,
                deals.balances,
                game.tables_per_team,
                len(deals.rounds),
                points=game.scoring == core.Scoring.POINTS,
            ),
            changes=_history(game),
        )
    if not game.is_finished:
        context.update(_next_deal(game, seating))
    return context


@dataclass
class _Deals:
    """The deals a page shows, and what the last one moved: each team's change in it and
    what it held before it (by game team id)."""

    rounds: list[Round]
    last: Round | None
    change: dict[int, int]
    before: dict[int, int]
    rows: list[DealRow] = field(default_factory=list)
    balances: dict = field(default_factory=dict)


def _every_deal(game: Game, teams: list[GameTeam]) -> _Deals:
    """Every deal of the game as the page's rows (the game page)."""
    rounds = list(game.rounds.order_by("number"))
    rows, balances = _deal_rows(game, rounds, teams)
    change = (
        {team.pk: cell["change"] for team, cell in zip(teams, rows[-1].cells, strict=True)}
        if rows
        else {}
    )
    before = (
        {team.pk: cell["balance"] for team, cell in zip(teams, rows[-2].cells, strict=True)}
        if len(rows) > 1
        else {}
    )
    last = rounds[-1] if rounds else None
    return _Deals(rounds, last, change, before, rows, balances)


def _last_deal(game: Game) -> _Deals:
    """The last deal only, and what it moved (the scorer's page)."""
    rounds = list(game.rounds.filter(number=game.deals_played))
    last = rounds[0] if rounds else None
    change: dict[int, int] = {}
    before: dict[int, int] = {}
    if last is not None:
        for number, team, moved, balance in LedgerEntry.objects.filter(
            round__game=game, round__number__in=(last.number - 1, last.number)
        ).values_list("round__number", "game_team", "change", "balance"):
            if number == last.number:
                change[team] = moved
            else:
                before[team] = balance
    return _Deals(rounds, last, change, before)


def _next_deal(game: Game, seating: Seating) -> dict:
    """Who deals and bids first next, the cards, and what the phone works a deal out by."""
    teams = seating.teams
    state = core.GameState(
        rules=game.rules,
        team_count=len(teams),
        tables=[team.tables for team in teams],
        dealer=game.dealer_seat,
        deals_played=game.deals_played,
        scores=[team.score for team in teams],
        kodis=[team.kodis for team in teams],
    )
    return {
        "dealer": seating.players[state.dealer],
        "first_bidder": seating.players[state.first_bidder],
        "cards": core.card_setup(state.seated_players, game.small_deck),
        "phone_rules": phone_rules(state, seating),
    }


def phone_rules(state: core.GameState, seating: Seating) -> dict:
    """What the phone needs to work out a deal kept offline (static/js/rules.js): the
    game's rules and state, and who sits where, by the ids and names the deal form uses."""
    return {
        "rules": rules_to_wire(state.rules),
        "state": state_to_wire(state),
        "seats": [str(player.pk) for player in seating.players],
        "players": [player.name for player in seating.players],
        "teams": seating.names,
    }


def in_play_before(game: Game, seating: Seating, number: int) -> list[int]:
    """Positions of the teams still playing when deal ``number`` was dealt.

    Where no one goes out (a points sheet, kodi) that is every team: their
    ledger balances are points, or tables after a restart, not a sign of out.
    """
    if number <= 1 or not seating.rules.eliminates:
        return [team.position for team in seating.teams]
    balances = dict(
        LedgerEntry.objects.filter(round__game=game, round__number=number - 1).values_list(
            "game_team_id", "balance"
        )
    )
    return [team.position for team in seating.teams if balances.get(team.pk, 0) > 0]


# --- The games list --------------------------------------------------------------

IN_PROGRESS_SHOWN = 60  # more than a federation's busiest night has tables
FINISHED_PER_PAGE = 30
# The finished games are counted up to here, no further: the pager then says "more
# than" (club.web.paging), and the home page costs the same however long the club plays.
FINISHED_COUNTED = 3000


# What a game's card reads (club_tags.game_cards): its rules, payouts and counters are not
# read into each of up to ninety games.
CARD_FIELDS = ("label", "status", "scoring", "deals_played", "winner", "finished_at", "created_at")


@dataclass(frozen=True)
class CardTeam:
    """A team's line on a game's card: plain values, not three models a team."""

    pk: int
    tables: int
    score: int
    name: str


@dataclass(frozen=True)
class GameCard:
    """A game as the home page's card shows it: its teams in seat order, and its winner's
    name (read from its teams: no join)."""

    game: Game
    teams: list[CardTeam]

    @property
    def winner(self) -> CardTeam | None:
        return next((team for team in self.teams if team.pk == self.game.winner_id), None)


def _cards(games: list[Game]) -> list[GameCard]:
    """The games' cards: every game's teams read in one query, as rows."""
    teams: dict[int, list[CardTeam]] = defaultdict(list)
    if games:
        rows = (
            GameTeam.objects.filter(game_id__in=[game.pk for game in games])
            .order_by("game_id", "position")
            .values_list("game_id", "pk", "tables", "score", "team__name")
        )
        for game_id, pk, tables, score, name in rows:
            teams[game_id].append(CardTeam(pk, tables, score, name))
    return [GameCard(game, teams[game.pk]) for game in games]


def game_list_page(club, number: int = 1) -> dict:
    """The club's home page's games, as cards: up to :data:`IN_PROGRESS_SHOWN` being
    played (newest first), and one page of the finished ones, latest finished first. Four
    queries at most at any size, of the club or of the site (the games being played, the
    finished ones counted and a page of them, every card's teams: none when there is no
    game), and a count of the games being played when as many are as are shown."""
    games = Game.objects.filter(club=club).only(*CARD_FIELDS)
    playing = games.filter(status=Game.Status.IN_PROGRESS)
    finished = games.filter(status=Game.Status.FINISHED).order_by("-finished_at", "-id")
    page = page_of(finished, number, FINISHED_PER_PAGE, count_up_to=FINISHED_COUNTED)
    in_progress = list(playing.order_by("-created_at", "-id")[:IN_PROGRESS_SHOWN])
    cards = _cards([*in_progress, *page.items])  # both lists' teams in one query
    shown_all = len(in_progress) < IN_PROGRESS_SHOWN
    return {
        "in_progress": cards[: len(in_progress)],
        "in_progress_count": len(in_progress) if shown_all else playing.count(),
        "in_progress_shown": IN_PROGRESS_SHOWN,
        "finished": cards[len(in_progress) :],
        "page": page,
    }
