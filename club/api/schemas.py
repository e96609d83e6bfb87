"""What the API answers, as typed schemas: they are its OpenAPI 3 document (/api/v1/schema/).

A game's and a tournament's detail carry the archive's own object under
``archive``, in the field names of the pinned format ``fiftysix-results/1``
(README, "Import and export"): the same words in a download and in the API.
"""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, Any, Literal

from ninja import Field, Schema

from club.leaderboards.selectors import SORTS

MAX_ID = 2**63 - 1  # the largest id a database column holds: larger ones are refused (422)
PAGE_SIZE = 25
MAX_PAGE_SIZE = 100
MAX_PAGE = 10_000


class Message(Schema):
    detail: str = Field(description="What is wrong, in plain words.")


class Invalid(Schema):
    detail: list[dict[str, Any]] = Field(
        description="Each parameter refused: where (`loc`), why (`msg`), and its kind (`type`)."
    )


def answers(ok, *, missing: bool = False) -> dict:
    """An operation's answers: ``ok``; 404 for an id no object has; 422 for a parameter
    out of its bounds; 429 past the client's rate."""
    found = {200: ok, 422: Invalid, 429: Message}
    if missing:
        found[404] = Message
    return found


class Index(Schema):
    openapi: str = Field(description="This API's OpenAPI 3 document.")
    docs: str = Field(description="Its documentation, to read and try in a browser.")
    games: str
    tournaments: str
    players: str
    player_board: str
    team_board: str
    competitions: str


class Paged(Schema):
    count: int = Field(description="How many there are, counted up to `count_limit`.")
    count_capped: bool = Field(
        description="The count stopped at its limit: there are more than `count`."
    )
    page: int
    page_size: int
    next: str | None = Field(description="The next page's address, or null on the last.")
    previous: str | None = Field(description="The previous page's address, or null.")


class TeamInGame(Schema):
    position: int = Field(description="The team's place in the game's team order, from 0.")
    name: str
    players: list[str] = Field(description="In seat order.")
    tables: int = Field(description="Tables held now (with kodi: since the last restart).")
    score: int = Field(description="Points on a points sheet; 0 where tables are played.")
    kodis: int
    place: int | None = Field(description="Its place once the game is over, else null.")
    out_in_deal: int | None = Field(description="The deal it went out in, if it did.")


class GameSummary(Schema):
    id: int
    label: str
    status: Literal["in_progress", "finished"]
    scoring: Literal["tables", "points"]
    created_at: datetime.datetime
    finished_at: datetime.datetime | None
    deals_played: int
    tournament: int | None = Field(description="The tournament's id, if a sitting drew it.")
    winner: str | None = Field(description="The winning team's name; null if none or shared.")
    teams: list[TeamInGame]
    page: str = Field(description="The game's public page.")
    url: str = Field(description="This game in the API.")


class GamePage(Paged):
    results: list[GameSummary]


class GameDetail(GameSummary):
    archive: dict[str, Any] = Field(
        description="The game as `fiftysix-results/1` writes it: its settings, teams, "
        "status and every deal's settlement (`rounds`), in the format's own field names."
    )


class TournamentSummary(Schema):
    id: int
    name: str
    status: Literal["draft", "running", "finished"]
    final: bool = Field(description="The results are final (else provisional).")
    starts_on: datetime.date
    ends_on: datetime.date | None
    venue: str
    page: str
    url: str


class TournamentPage(Paged):
    results: list[TournamentSummary]


class ChartSitting(Schema):
    games: list[list[str]] = Field(description="Each game's teams, by name.")
    byes: list[str]


class StageSummary(Schema):
    number: int
    kind: Literal["sittings", "groups", "round_robin", "knockout"]
    status: Literal["proposed", "confirmed"]
    title: str
    deal_limit: int | None
    tie_deals: int | None
    confirmed_at: datetime.datetime | None
    page: str
    groups: dict[str, list[str]] = Field(
        description="Groups A and B: each group's teams (a confirmed stage's; else empty)."
    )
    chart: list[ChartSitting] = Field(
        description="Groups and round robin: the sittings drawn ahead (a confirmed stage's)."
    )
    seeds: list[str] = Field(description="A knockout's seeds, the first first (once confirmed).")


class TournamentDetail(TournamentSummary):
    stages: list[StageSummary]
    archive: dict[str, Any] = Field(
        description="The tournament as `fiftysix-results/1` writes it: its settings, "
        "teams, confirmed sittings with their draws (`sittings`) and the standings."
    )


# --- Players, teams and the leaderboards ----------------------------------------------

# The columns a board ranks by: its page's own. The Literal is built from SORTS when the
# module loads, which a type checker cannot follow, so to it a column is a string.
if TYPE_CHECKING:
    Sort = str
else:
    Sort = Literal[tuple(SORTS)]


class Figures(Schema):
    """A side's figures over the finished games counted (the leaderboards' columns)."""

    rating: float | None = Field(
        description="OpenSkill ordinal; null before a rated game. A team's is its own, "
        "from its results as a team."
    )
    played: int
    won: int = Field(
        description="Games won: placed first alone. A level game (a first place shared) is "
        "played, not won."
    )
    win_share: float | None = Field(description="Won / played, 0 to 1; null if none played.")
    declared: int
    made: int
    doubles_won: int
    doubles_lost: int
    redoubles_won: int
    redoubles_lost: int
    tables_net: int = Field(
        description="Tables won less tables lost, at table and kodi games (a points "
        "sheet moves no tables)."
    )
    points_for: int = Field(description="At points games: the side's totals.")
    points_against: int = Field(description="At points games: the other teams' totals.")
    score_difference: int = Field(description="At points games: points for less against.")
    sessions_won: int = Field(
        description="Points games (sessions) won; a level session (equal totals) is no side's."
    )
    kodis_taken: int = Field(description="At kodi games: the kodis the side took.")
    kodis_given: int = Field(description="At kodi games: the kodis the other teams took.")
    biggest_bid: int | None = Field(description="The biggest bid made; null if none.")


class PlayerSummary(Schema):
    id: int
    name: str
    rating: float | None
    page: str
    url: str


class PlayerPage(Paged):
    results: list[PlayerSummary]


class PlayerGame(Schema):
    game: int
    label: str
    status: Literal["in_progress", "finished"]
    team: str
    partners: list[str]
    teams: int = Field(description="How many teams the game had.")
    place: int | None
    rating_change: float | None
    url: str


class PlayerDetail(PlayerSummary):
    figures: Figures
    form: list[str] = Field(
        description="The latest five finished games, newest first: W won, = level (a first "
        "place shared: played, not won), L last, else the place."
    )
    games_count: int
    games: list[PlayerGame] = Field(description="The latest games (50), newest first.")


class TeamDetail(Schema):
    id: int
    name: str
    players: list[str]
    figures: Figures
    url: str


class BoardRow(Figures):
    rank: int
    id: int
    name: str
    players: list[str] = Field(description="A team's players; empty on the players' board.")
    url: str = Field(description="The player or team in the API.")


class Board(Schema):
    count: int = Field(description="Sides on the board, every page.")
    page: int = Field(description="The page shown (a page past the end shows the last).")
    pages: int
    page_size: int
    sort: Sort
    order: Literal["asc", "desc"]
    results: list[BoardRow]


class Ranked(Schema):
    rank: int = Field(description="The place in the ranking, from 1 (ties by name).")
    player: int = Field(description="The player's id.")
    name: str
    rating: float = Field(
        description="The rating over every club's rated games (of the form of play asked for)."
    )
    games: int = Field(description="Rated games, of every club (of the form asked for).")
    clubs: list[str] = Field(description="The short names of the clubs the player plays in.")


class Ranking(Paged):
    minimum_games: int = Field(description="Rated games a player needs to be listed.")
    results: list[Ranked]


# --- Competitions: seasons and circuits -------------------------------------------------


class CompetitionSummary(Schema):
    id: int
    name: str
    circuit: bool = Field(
        description="A circuit of the federation (chosen tournaments of several clubs); "
        "else a club's season."
    )
    club: str | None = Field(description="The club's short name; null for a circuit.")
    starts_on: datetime.date
    ends_on: datetime.date
    counts: Literal["all", "form", "events"] = Field(
        description="What it counts: all the club's games and tournaments in its days, "
        "those of one form of play (`form`), or chosen tournaments."
    )
    form: Literal["", "tables", "points", "kodi"] = Field(
        description="The form of play counted (with `counts` form; else empty)."
    )
    ranks: Literal["teams", "players"]
    page: str = Field(description="The competition's public page.")
    url: str = Field(description="This competition in the API.")


class CompetitionPage(Paged):
    results: list[CompetitionSummary]


class CompetitionRule(Schema):
    method: Literal["places", "match_points"] = Field(
        description="A night's score: the points of the place (`place_points`), or the "
        "match points earned that night."
    )
    place_points: list[int] = Field(
        description="Points for 1st, 2nd, ... place; a place past the list scores 0, and "
        "places shared split the points of the places they span."
    )
    best: int | None = Field(description="Only the best N nights count; null: every night.")
    minimum: int = Field(description="Nights a line needs to be ranked.")
    final_within_days: int | None = Field(
        description="Results are due this many days after the night; null: no deadline."
    )
    late_counts: bool = Field(description="Results past their deadline count all the same.")


class CompetitionNight(Schema):
    key: str = Field(description="The night's key, as the table's lines name it.")
    day: datetime.date
    event: bool = Field(description="A tournament; else a club night (a day's games).")
    tournament: int | None = Field(description="The tournament's id, for an event.")
    name: str | None = Field(description="The tournament's name, for an event.")
    club: str | None = Field(description="The short name of the club that played it.")
    state: Literal["counted", "waiting", "late", "late_dropped"] = Field(
        description="counted; waiting (not finished, or not final); late (past its "
        "deadline, counted); late_dropped (past its deadline, not counted)."
    )
    counts: bool = Field(description="The night is in the table.")
    lines: int = Field(description="How many lines it placed.")
    page: str | None = Field(description="The tournament's public page, for an event.")


class CompetitionLine(Schema):
    place: int | None = Field(description="Null: fewer nights than the minimum, not ranked.")
    shared: bool = Field(description="The place is shared with the lines level with it.")
    id: int = Field(description="The team's or player's id.")
    name: str
    total: float = Field(description="The sum of the counted nights' scores.")
    total_exact: str = Field(description='The total written exactly ("12", "12.5", "43/3").')
    scores: dict[str, float] = Field(description="Each night's score, by night key.")
    counted: list[str] = Field(description="The keys of the nights that count, in order.")
    dropped: list[str] = Field(description="The keys of the nights dropped (best N).")
    nights: int = Field(description="The nights the line played.")
    won: int = Field(description="Nights won: placed first alone.")
    decided_by: Literal["", "won", "head_to_head", "latest", "shared"] = Field(
        description="What set the line apart from those level with it on total: nights "
        "won, head to head, the latest night; shared: level on all three; empty: none was."
    )


class CompetitionDetail(CompetitionSummary):
    rule: CompetitionRule
    nights: list[CompetitionNight] = Field(
        description="Every night and event of its days, in order, those not counted too."
    )
    table: list[CompetitionLine] = Field(
        description="Its table as of now: the ranked lines, then those under the minimum."
    )
