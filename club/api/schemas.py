"""What the API answers, as typed schemas: they are its OpenAPI 3 document (/api/v1/schema/).

A game's and a tournament's detail carry the archive's own object under
``archive``, in the field names of the pinned format ``fiftysix-results/1``
(README, "Import and export"): the same words in a download and in the API.
"""

from __future__ import annotations

import datetime
from typing import Any, Literal

from ninja import Field, Schema

MAX_ID = 2**63 - 1  # the largest id a database column holds: larger ones are refused (422)
PAGE_SIZE = 25
MAX_PAGE_SIZE = 100
MAX_PAGE = 100_000


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


class StageSummary(Schema):
    number: int
    kind: Literal["sittings", "groups", "round_robin", "knockout"]
    status: Literal["proposed", "confirmed"]
    title: str
    deal_limit: int | None
    tie_deals: int | None
    confirmed_at: datetime.datetime | None
    page: str


class TournamentDetail(TournamentSummary):
    stages: list[StageSummary]
    archive: dict[str, Any] = Field(
        description="The tournament as `fiftysix-results/1` writes it: its settings, "
        "teams, confirmed sittings with their draws (`sittings`) and the standings."
    )
