"""The importer writes each game's deals in bulk: exactly the rows recording them one by one writes.

The same file is imported twice into the same club, each time in a savepoint
rolled back afterwards: once by ``import_results`` as it is (its deals written
by :mod:`club.games.bulk`), once with every deal recorded through
``services.record_deal`` and time called through ``services.end_game``, as
the importer did before. Every table the app keeps is then compared row by row,
by natural keys (labels, names, positions, deal numbers; the ids and clock
times of two runs always differ, so of a time only whether it is set counts,
and the order the games finished in): games and their teams, deals, piles,
ledger, changes in their order, tournaments and standings, leaderboard figures
and totals, ratings and rating changes. The exports must be identical too. Every
player of the file is listed with an identifier (as an export lists them), so both runs
give each player the same one, as they must.
"""

from __future__ import annotations

import json
import random
import uuid
from datetime import datetime
from pathlib import Path
from types import SimpleNamespace
from unittest import mock

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from club.archive import format as archive_format
from club.archive import load as archive_load
from club.archive.export import export_json
from club.archive.format import FORMAT, TeamSpec
from club.archive.load import import_results
from club.archive.tournament_export import export_tournament_json
from club.clubs.models import Club
from club.games import services
from club.games.models import (
    Change,
    Game,
    GameTeam,
    LedgerEntry,
    PendingDeal,
    Pile,
    Player,
    Round,
    ScorerLink,
    Team,
)
from club.leaderboards.models import (
    PlayerGameFigures,
    PlayerRating,
    PlayerTotals,
    RatingChange,
    RatingsState,
    TeamGameFigures,
    TeamTotals,
)
from club.ops import synthetic
from club.scoring import rules as core
from club.tournaments.models import (
    Bye,
    Sitting,
    SittingGame,
    Stage,
    Standing,
    Tournament,
    TournamentEvent,
    TournamentTeam,
)

pytestmark = pytest.mark.django_db

FIXTURES = Path(settings.BASE_DIR) / "fixtures"

# How a row pointing at another is named, whatever its id.
NATURAL = {
    Player: ["name"],
    Team: ["name"],
    Game: ["label"],
    GameTeam: ["game__label", "position"],
    Round: ["game__label", "number"],
    ScorerLink: ["token"],
    Tournament: ["name"],
    TournamentTeam: ["tournament__name", "team__name"],
    Sitting: ["tournament__name", "number"],
    Stage: ["tournament__name", "number"],
    get_user_model(): ["username"],
    Club: ["slug"],
}
TABLES = [
    Player,
    Team,
    Game,
    GameTeam,
    Round,
    Pile,
    LedgerEntry,
    Change,
    ScorerLink,
    PendingDeal,
    Tournament,
    TournamentTeam,
    Stage,
    Sitting,
    SittingGame,
    Bye,
    Standing,
    TournamentEvent,
    PlayerGameFigures,
    TeamGameFigures,
    PlayerTotals,
    TeamTotals,
    PlayerRating,
    RatingChange,
    RatingsState,
]


class Rollback(Exception):
    pass


def write_deal_by_deal(spec, user=None, *, require_confirmation=False, played=None, registered=()):
    """The importer's writer before the bulk one: every deal through the scoring services,
    at the time the file dates the game (a tournament's day), as the bulk writer dates it."""
    if played is None:
        return _write_deal_by_deal(spec, user, require_confirmation, registered)
    with mock.patch.object(timezone, "now", return_value=played):
        return _write_deal_by_deal(spec, user, require_confirmation, registered)


def _write_deal_by_deal(spec, user, require_confirmation, registered):
    game = services.create_game(
        label=spec.label,
        teams=[
            services.TeamEntry(
                team.first,
                team.second,
                team.name,
                *team.more,
                team=registered[position] if registered else None,
            )
            for position, team in enumerate(spec.teams)
        ],
        first_dealer=spec.first_dealer,
        rules=spec.rules,
        user=user,
        deal_limit=spec.deal_limit,
        require_confirmation=require_confirmation,
    )
    for number, deal in enumerate(spec.deals, start=1):
        entry = services.Deal(
            points=dict(deal.points),
            declarer=None if deal.all_pass else deal.declarer,
            bid=None if deal.all_pass else deal.bid,
            trump=None if deal.all_pass else deal.trump,
            doubling=deal.doubling,
        )
        services.record_deal(game=game, number=number, entry=entry, user=user)
    if spec.ended_early:
        services.end_game(game=game, user=user)
    return game


class DealByDeal(archive_load._Writer):
    """The importer's writer, each game started and its deals recorded as they are read
    (the batches and the one announcement at the end are the bulk writer's)."""

    def seat(self, spec, *, require_confirmation=False, played=None, registered=()):
        game = write_deal_by_deal(
            spec,
            self.user,
            require_confirmation=require_confirmation,
            played=played,
            registered=registered,
        )
        return SimpleNamespace(game=game)

    def add(self, spec):
        self.seat(spec)

    def write(self, games):
        pass

    def announce(self):
        pass


# Fields holding ids in JSON: a sitting's draw names its tournament's teams by entry id.
ENTRY_IDS = {(Sitting, "proposal"), (Sitting, "proposed_byes")}


def _named_entries(value, names: dict[int, str]):
    if isinstance(value, list):
        return [_named_entries(item, names) for item in value]
    return names[value]


def _rows(model) -> list:
    lookups = []
    for field in model._meta.concrete_fields:
        if field.primary_key:
            continue
        if field.is_relation:
            lookups += [f"{field.name}__{key}" for key in NATURAL[field.related_model]]
        else:
            lookups.append(field.name)
    entries = dict(TournamentTeam.objects.values_list("pk", "team__name"))
    rows = []
    for row in model.objects.order_by("pk").values_list(*lookups):
        values = []
        for lookup, value in zip(lookups, row, strict=True):
            if isinstance(value, datetime):
                value = True  # set; when differs from run to run
            elif (model, lookup) in ENTRY_IDS:
                value = _named_entries(value, entries)
            values.append(value)
        rows.append(tuple(values))
    return rows


def stored() -> dict:
    """Every table as rows named by natural keys; the changes and rating changes in order."""
    tables = {}
    for model in TABLES:
        rows = _rows(model)
        # The order a game's changes were made in (its history) is kept; elsewhere only the rows.
        tables[model.__name__] = (
            sorted(rows, key=lambda row: row[0]) if model is Change else sorted(rows, key=repr)
        )
    tables["finished in order"] = list(
        Game.objects.filter(finished_at__isnull=False)
        .order_by("finished_at", "id")
        .values_list("label", flat=True)
    )
    tables["exports"] = [
        export_json(),
        export_tournament_json(list(Tournament.objects.order_by("name"))),
    ]
    return tables


def _played(team_count, first_dealer, rules, rng, *, limit=None, stop=None):
    """Random valid deals through the rules core, until won, the limit or ``stop`` deals."""
    state = core.initial_state(team_count, first_dealer, rules)
    settlements = []
    while not state.finished and not (limit and state.deals_played >= limit):
        if stop is not None and state.deals_played >= stop:
            break
        settlement, state = core.settle(state, synthetic.random_deal(state, rng))
        settlements.append(settlement)
    return settlements, state


def generated_document(seed: int = 56) -> dict:
    """Games of every kind: won, at their limit, time called (after deals or none), playing."""
    rng = random.Random(seed)
    teams = [
        TeamSpec(f"Bulk Team {n}", f"Bulk Player {2 * n - 1}", f"Bulk Player {2 * n}")
        for n in range(1, 6)
    ]
    small = core.Rules(tables_per_team=3)
    kinds = [
        # (teams, rules, limit, stop, ended early)
        (2, core.DEFAULT_RULES, None, None, False),
        (2, small, None, None, False),
        (3, small, None, None, False),
        (4, core.DEFAULT_RULES, 12, None, False),
        (3, core.DEFAULT_RULES, 9, None, False),
        (2, core.DEFAULT_RULES, None, 6, True),
        (4, core.DEFAULT_RULES, 30, 5, True),
        (2, core.DEFAULT_RULES, None, 0, True),
        (2, core.DEFAULT_RULES, None, 7, False),
        (3, core.DEFAULT_RULES, None, 0, False),
        (2, small, None, None, False),
    ]
    games = []
    for number, (count, rules, limit, stop, ended_early) in enumerate(kinds, start=1):
        chosen = rng.sample(teams, count)
        first_dealer = rng.randrange(2 * count)
        settlements, state = _played(count, first_dealer, rules, rng, limit=limit, stop=stop)
        games.append(
            archive_format._game_document(
                label=f"Bulk game {number}",
                rules=rules,
                teams=chosen,
                first_dealer=first_dealer,
                settlements=settlements,
                state=state,
                deal_limit=limit,
                ended_early=ended_early,
            )
        )
    players = [
        {"name": name, "id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"bulk-import/{name}"))}
        for name in sorted({name for team in teams for name in (team.first, team.second)})
    ]
    return {"format": FORMAT, "players": players, "games": games}


def the_file() -> str:
    """The demo club, its two tournaments (one finished and final) and the generated games."""
    demo = json.loads((FIXTURES / "demo.json").read_text())
    tournaments = json.loads((FIXTURES / "demo_tournaments.json").read_text())
    return json.dumps([demo, *tournaments, generated_document()])


def import_and_read(text: str, user) -> dict:
    try:
        with transaction.atomic():
            import_results(text, user=user)
            found = stored()
            found["replayed"] = synthetic.check_games(Game.objects.values_list("pk", flat=True))
            raise Rollback
    except Rollback:
        return found


@pytest.mark.parametrize("signed_in", [True, False])
def test_bulk_import_stores_exactly_what_recording_deal_by_deal_stores(
    signed_in, organiser, monkeypatch
):
    user = organiser if signed_in else None
    text = the_file()
    bulk = import_and_read(text, user)
    monkeypatch.setattr(archive_load, "_Writer", DealByDeal)
    by_deal = import_and_read(text, user)

    assert bulk.keys() == by_deal.keys()
    for table in bulk:
        assert bulk[table] == by_deal[table], table
    # What the comparison covered, so that it cannot pass on empty tables.
    assert bulk["replayed"] == len(bulk["Game"]) == 4 + 12 + 6 + 11
    assert any(row[2] for row in bulk["Round"])  # a deal everyone passed
    actions = {row[2] for row in bulk["Change"]}
    assert actions == {Change.Action.RECORDED, Change.Action.ENDED}
    # The login behind each change: its column, counted as _rows lays a row out.
    columns = [field.name for field in Change._meta.concrete_fields if not field.primary_key]
    made_by = {row[columns.index("made_by")] for row in bulk["Change"]}
    assert made_by == ({organiser.username} if signed_in else {None})
    assert len(bulk["Standing"]) > 0 and len(bulk["PlayerGameFigures"]) > 0
    assert len(bulk["RatingChange"]) > 0 and len(bulk["TeamTotals"]) > 0
    assert len(bulk["finished in order"]) > 20
    # Export after import gives the file's games back, the same both ways.
    assert json.loads(bulk["exports"][0])["games"][-11:] == generated_document()["games"]


def _one_game(label: str, deals: int) -> str:
    """A game still being played after ``deals`` deals (100 tables a team: nobody goes out)."""
    rules = core.Rules(tables_per_team=100)
    rng = random.Random(deals)
    teams = [
        TeamSpec("Tall & Short", "Tall", "Short"),
        TeamSpec("Up & Down", "Up", "Down"),
    ]
    settlements, state = _played(2, 0, rules, rng, stop=deals)
    document = archive_format._game_document(
        label=label, rules=rules, teams=teams, first_dealer=0, settlements=settlements, state=state
    )
    return json.dumps({"format": FORMAT, "games": [document]})


def test_the_statements_of_an_import_do_not_grow_with_its_deals():
    counts = []
    for deals in (3, 60):
        text = _one_game(f"{deals} deals", deals)
        try:
            with transaction.atomic(), CaptureQueriesContext(connection) as queries:
                summary = import_results(text)
                assert summary.deals == deals
                assert Round.objects.count() == deals
                raise Rollback
        except Rollback:
            counts.append(len(queries))
    # Was 12 or so a deal, deal by deal: 3 deals and 60 take the same statements now.
    assert counts[0] == counts[1], counts
