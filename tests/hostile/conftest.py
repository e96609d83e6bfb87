"""Shared tools for the hostile-input tests: hostile strings, a snapshot of every
table, a reading of the answer (accepted or refused, and with which message),
and the invariants an accepted write must keep.

Each hypothesis example runs inside ``fresh_state()``: a savepoint rolled back
at the end, so every example starts from the same database.
"""

from __future__ import annotations

import contextlib
import html
import os

import pytest
from django.contrib.messages import ERROR, get_messages
from django.db import transaction
from django.forms import BaseForm
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

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
from club.games.services import replay_game
from club.scoring import rules as core
from club.tournaments.models import (
    Bye,
    Sitting,
    SittingGame,
    Standing,
    Tournament,
    TournamentEvent,
    TournamentTeam,
)

MODELS = (
    Game,
    GameTeam,
    Round,
    Pile,
    LedgerEntry,
    Change,
    Player,
    Team,
    Tournament,
    TournamentTeam,
    Sitting,
    SittingGame,
    Bye,
    Standing,
    TournamentEvent,
    ScorerLink,
    PendingDeal,
)

# A request through the whole stack takes ~0.2 s, so the view tests keep to a few dozen
# examples each to hold the package near a minute; HOSTILE_EXAMPLES=200 digs deeper.
EXAMPLES = int(os.environ.get("HOSTILE_EXAMPLES", "20"))
HOSTILE = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

SCRIPT = "<script>alert(1)</script>"
IMG = '"><img src=x onerror=alert(1)>'
NAMES = [
    "അനു",  # Malayalam
    "สมชาย",  # Thai
    "🂡🃏",  # playing cards
    "דוד",  # Hebrew, right to left
    "محمد",  # Arabic, right to left
    "e\u0301\u0301\u0301",  # combining marks
    "\u202edlrow",  # right-to-left override
    SCRIPT,
    IMG,
    '=HYPERLINK("http://x")',
    "+1+1",
    "-2",
    "@SUM(A1)",
    "\tTab",
    "\rCR",
    "'; DROP TABLE games_player; --",
    "a\x00b",
    "\x00",
    "x" * 100_000,
    " ",
    "",
]
HUGE = ["10" + "0" * 30, "-1" + "0" * 30, str(2**63), str(-(2**63) - 1), "1e309", "NaN", "0x10"]

# What a hostile form field may hold: boundary numbers, huge numbers, strings of every kind.
hostile_text = st.one_of(
    st.sampled_from(NAMES + HUGE),
    st.text(max_size=40),
    st.text(alphabet=st.characters(codec="utf-8"), min_size=81, max_size=300),
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.sampled_from(["", "0", "1", "-1", "27", "28", "56", "57", "999", "1000", "1.5", "٣"]),
)


def hostile_value(*choices: str):
    """A field's plausible values mixed with hostile ones; None leaves the field out."""
    return st.one_of(st.none(), st.sampled_from(choices) if choices else st.nothing(), hostile_text)


def form_data(values: dict) -> dict:
    return {key: value for key, value in values.items() if value is not None}


def snapshot() -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in MODELS}


@contextlib.contextmanager
def fresh_state():
    """Run one example in a savepoint that is always rolled back."""
    with transaction.atomic():
        yield
        transaction.set_rollback(True)


def _forms(context) -> list[BaseForm]:
    found: list[BaseForm] = []
    if context is None:
        return found
    for layer in getattr(context, "dicts", [context]):
        for value in layer.values():
            if isinstance(value, BaseForm) and value.is_bound and value not in found:
                found.append(value)
    return found


def refusals(response) -> list[str]:
    """Every message of refusal the answer carries: form errors, error notes, a 4xx page."""
    found = [str(m) for m in get_messages(response.wsgi_request) if m.level >= ERROR]
    contexts = response.context
    if contexts is not None:
        for context in contexts if isinstance(contexts, list) else [contexts]:
            for form in _forms(context):
                for errors in form.errors.values():
                    found.extend(str(error) for error in errors)
            for key in ("refused", "already_recorded"):
                value = context.get(key)
                if value:
                    found.append(str(value))
            found.extend(str(fault) for fault in context.get("faults") or [])
    if 400 <= response.status_code < 500 and not found and not response.streaming:
        found.append(response.content.decode("utf-8", "replace").strip())
    return [message for message in found if message.strip()]


def body(response) -> str:
    if response.streaming:
        return b"".join(response.streaming_content).decode()
    return response.content.decode()


def check_answer(response, before: dict[str, int]) -> bool:
    """The property of every request: no 5xx; refused with a message and nothing
    changed, or accepted with the invariants kept. Returns True when accepted."""
    assert response.status_code < 500, body(response)[:2000]
    messages = refusals(response)
    after = snapshot()
    if messages:
        assert after == before, f"refused ({messages[:3]}) yet the database changed"
        if response.status_code == 200 and response.context is not None:
            # Form errors must be shown on the page, not only held by the form.
            page = html.unescape(body(response))
            for form_context in response.context:
                for form in _forms(form_context):
                    for errors in form.errors.values():
                        for error in errors:
                            assert str(error) in page, f"error not shown: {error!r}"
        return False
    assert response.status_code in (200, 204, 302), (response.status_code, body(response)[:500])
    check_invariants()
    return after != before


def check_invariants() -> None:
    """Tables conserved, piles sum to 56, the ledger equals the rules' replay, in every game."""
    for game in Game.objects.all():
        seating, settlements, state = replay_game(game)
        teams = len(seating.teams)
        assert sum(state.tables) == game.rules.tables_per_team * teams
        stored = {
            (entry.round.number, entry.game_team.position): (entry.change, entry.balance)
            for entry in LedgerEntry.objects.filter(round__game=game).select_related(
                "round", "game_team"
            )
        }
        expected = {
            (s.number, team): (s.transfers[team], s.tables_after[team])
            for s in settlements
            for team in range(teams)
        }
        assert stored == expected, game.label
        contracts = [(0, 0)] * teams
        for s in settlements:
            declared, made = contracts[s.declaring_team]
            contracts[s.declaring_team] = (declared + 1, made + s.made)
        assert [(team.declared, team.made) for team in game.teams.order_by("position")] == (
            contracts
        ), game.label
        for round_ in game.rounds.prefetch_related("piles"):
            assert sum(pile.points for pile in round_.piles.all()) == core.TOTAL_POINTS


@pytest.fixture
def anonymous_client(client):
    client.raise_request_exception = False
    return client


@pytest.fixture
def hostile_client(organiser_client):
    organiser_client.raise_request_exception = False
    return organiser_client
