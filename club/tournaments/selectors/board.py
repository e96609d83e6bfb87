"""The director's board: every table of the sitting in play, what needs attention first:
the tables calling the director on top, then the tables by state; the sitting's clock,
and once time is up the tables still playing."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Max
from django.utils import timezone

from club.games import calls
from club.games.models import DirectorCall, Game, GameTeam, PendingDeal, Round
from club.games.selectors import url_maker
from club.tournaments.models import CheckIn, Sitting, SittingGame, Tournament
from club.tournaments.selectors.live import live_version, page_tokens
from club.web.countdown import countdown

# The states of a table, in the order the board puts them: what needs the director first.
WAITING, NOT_STARTED, PLAYING, FINISHED = "waiting", "not_started", "playing", "finished"
_ATTENTION = {WAITING: 0, NOT_STARTED: 1, PLAYING: 2, FINISHED: 3}


def current_sitting(tournament: Tournament) -> Sitting | None:
    """The sitting in play: the newest confirmed one."""
    return (
        Sitting.objects.filter(tournament=tournament, status=Sitting.Status.CONFIRMED)
        .select_related("stage")
        .order_by("-number")
        .first()
    )


def tournament_calls(tournament: Tournament):
    """The calls of the tournament's tables (the board shows those open or lately answered)."""
    return DirectorCall.objects.filter(game__sitting_entry__sitting__tournament=tournament)


def _clock_token(sitting: Sitting | None, now) -> str:
    """The sitting's clock as the board shows it: set, changed, stopped, or run out."""
    if sitting is None or sitting.ends_at is None:
        return "-"
    return f"{int(sitting.ends_at.timestamp())}.{int(now >= sitting.ends_at)}"


def board_version(tournament: Tournament, sitting: Sitting | None) -> str:
    """Changes with any result, any line of the tournament's history (a draw, a team in or
    out, the clock set), any deal sent for confirmation, any check-in, any call for the
    director made, given a reason, taken back or answered, the moment time is up, and
    every minute (the board says how long each table has been quiet)."""
    pending: dict[str, Any] = (
        PendingDeal.objects.filter(game__sitting_entry__sitting=sitting).aggregate(
            newest=Max("sent_at"), count=Count("id"), disputed=Count("counter_by")
        )
        if sitting is not None
        else {"newest": None, "count": 0, "disputed": 0}
    )
    stamp = int(pending["newest"].timestamp()) if pending["newest"] else 0
    now = timezone.now()
    minute = int(now.timestamp() // 60)
    waiting = f"{pending['count']}.{pending['disputed']}"
    live, event = page_tokens(tournament.pk) or (live_version(tournament), 0)
    checked = ""
    if tournament.check_in:  # a captain's check-in shows on the board at its next poll
        found = CheckIn.objects.filter(entry__tournament=tournament).aggregate(
            count=Count("id"), newest=Max("at")
        )
        newest = int(found["newest"].timestamp() * 1000) if found["newest"] else 0
        checked = f".{found['count']}.{newest}"
    called = calls.calls_token(tournament_calls(tournament), now)
    clock = _clock_token(sitting, now)
    return f"{live}.{event}.{waiting}.{stamp}.{minute}{checked}.{called}.{clock}"


def director_board(
    tournament: Tournament, sitting: Sitting | None, *, version: str | None = None
) -> dict:
    """Every table of the sitting in play with its state, quietest and most urgent first.

    A table is waiting (a deal sent through a scorer link waits for the other
    team), not started (no deal yet), playing (deal N of the limit) or finished.
    ``sitting`` is :func:`current_sitting`, which the caller has read for the
    board's token. Six queries whatever the number of tables or of past calls.
    """
    now = timezone.now()
    shown = calls.shown_calls(tournament_calls(tournament), now)
    context: dict[str, object] = {
        "tournament": tournament,
        "sitting": sitting,
        "tables": [],
        "counts": {},
        "calls": shown,
        "clock": None,
        "still_playing": [],
    }
    context["board_version"] = version or board_version(tournament, sitting)
    if sitting is None:
        return context
    tables = _tables(sitting)
    _add_teams(tables)
    _add_pending_deals(tables)
    _add_last_deals(tables)
    _set_states(tables, sitting.confirmed_at or sitting.created_at, now)
    rows = sorted(
        tables.values(),
        key=lambda t: (
            _ATTENTION[t["state"]],
            -t["quiet_minutes"] if t["state"] != FINISHED else 0,
            t["position"],
        ),
    )
    context["tables"] = rows
    _name_calling_tables(shown, tables)
    clock = context["clock"] = countdown(sitting.ends_at, now)
    if clock is not None and clock["up"]:
        # Time is up: the tables still playing, in table order, for the director to call time.
        context["still_playing"] = sorted(
            (t for t in rows if t["state"] != FINISHED), key=lambda t: t["position"]
        )
    context["counts"] = {
        state: sum(1 for t in rows if t["state"] == state)
        for state in (WAITING, NOT_STARTED, PLAYING, FINISHED)
    }
    return context


def _tables(sitting: Sitting) -> dict[int, dict]:
    """The sitting's tables in table order, by game: where each game stands."""
    game_url = url_maker("games:detail")
    tables: dict[int, dict] = {}
    for game_id, label, position, status, deals, limit in (
        SittingGame.objects.filter(sitting=sitting)
        .order_by("position")
        .values_list(
            "game_id",
            "table_label",
            "position",
            "game__status",
            "game__deals_played",
            "game__deal_limit",
        )
    ):
        tables[game_id] = {
            "game": game_id,
            "url": game_url(game_id),
            "table_label": label,
            "position": position,
            "finished": status == Game.Status.FINISHED,
            "deals_played": deals,
            "next_deal": deals + 1,
            "deal_limit": limit,
            "teams": [],
            "pending": None,
            "last_deal_at": None,
        }
    return tables


def _add_teams(tables: dict[int, dict]) -> None:
    """Each table's team names, in seat order."""
    for game_id, name in (
        GameTeam.objects.filter(game_id__in=tables)
        .order_by("game_id", "position")
        .values_list("game_id", "team__name")
    ):
        tables[game_id]["teams"].append(name)


def _add_pending_deals(tables: dict[int, dict]) -> None:
    """The deal each table has sent through a scorer link for the other team to confirm."""
    for game_id, number, sent_at, sender, disputed in PendingDeal.objects.filter(
        game_id__in=tables
    ).values_list("game_id", "number", "sent_at", "sent_by__game_team__team__name", "counter_by"):
        if number == tables[game_id]["next_deal"]:  # a stale one can never count
            tables[game_id]["pending"] = {
                "number": number,
                "sent_at": sent_at,
                "team": sender,
                # both teams sent it, differently: the director chooses on the game page
                "disputed": disputed is not None,
            }


def _add_last_deals(tables: dict[int, dict]) -> None:
    """When each table last recorded a deal."""
    for game_id, newest in (
        Round.objects.filter(game_id__in=tables)
        .order_by()
        .values("game_id")
        .annotate(newest=Max("recorded_at"))
        .values_list("game_id", "newest")
    ):
        tables[game_id]["last_deal_at"] = newest


def _set_states(tables: dict[int, dict], started, now) -> None:
    """Each table's state, and how long it has been quiet: since its deal was sent, its
    last deal, or the sitting's start."""
    for table in tables.values():
        if table["finished"]:
            table["state"] = FINISHED
        elif table["pending"] is not None:
            table["state"] = WAITING
        elif table["deals_played"] == 0:
            table["state"] = NOT_STARTED
        else:
            table["state"] = PLAYING
        since = table["pending"]["sent_at"] if table["pending"] else None
        since = since or table["last_deal_at"] or started
        table["since"] = since
        table["quiet_minutes"] = max(0, int((now - since).total_seconds() // 60))


def _name_calling_tables(shown: dict[str, list[dict]], tables: dict[int, dict]) -> None:
    """A call from a table of the sitting in play is named by its table and teams, as the
    board names the tables; a call from an earlier sitting's game keeps its game's label."""
    for call in (*shown["open"], *shown["answered"]):
        table = tables.get(call["game"])
        if table is not None:
            call["table_label"] = table["table_label"]
            call["teams"] = table["teams"]
