"""What the public tournament pages show and refresh: the standings, the sittings and their
games, each in a fixed number of queries.

The public pages poll for changes; :func:`live_version` is the cheap token
they compare, so an unchanged tournament costs one small query per poll.
"""

from __future__ import annotations

from decimal import Decimal

from django.db.models import Count, F, Max, OuterRef, Q, Subquery

from club.games.models import PLAYER_FIELDS, Game, GameTeam, Scoring
from club.games.selectors import url_maker
from club.tournaments.models import (
    STANDING_FIGURES,
    Bye,
    Sitting,
    Stage,
    Standing,
    Tournament,
    TournamentEvent,
)
from club.web.countdown import countdown


def format_points(value: Decimal) -> str:
    """3.00 -> "3", 1.50 -> "1.5", 1.33 -> "1.33"."""
    return format(value.normalize(), "f")


def live_version(tournament: Tournament) -> str:
    """Changes whenever the results change or a game in progress records anything."""
    newest = Game.objects.filter(
        sitting_entry__sitting__tournament=tournament, status=Game.Status.IN_PROGRESS
    ).aggregate(newest=Max("updated_at"))["newest"]
    return _live_token(tournament.results_version, newest)


def _live_token(results_version: int, newest) -> str:
    stamp = int(newest.timestamp() * 1_000_000) if newest else 0
    return f"{results_version}.{stamp}"


def page_tokens(pk: int, club_id: int | None = None) -> tuple[str, int] | None:
    """A tournament's live token (as :func:`live_version` reads it) and the id of its newest
    line of history, in one query; None for no such tournament (of club ``club_id``, when
    given: club.web.pages' keys, and the polls' answers at a club's address)."""
    in_play = Game.objects.filter(
        sitting_entry__sitting__tournament=OuterRef("pk"), status=Game.Status.IN_PROGRESS
    ).order_by("-updated_at")
    events = TournamentEvent.objects.filter(tournament=OuterRef("pk")).order_by("-id")
    held = Tournament.objects.filter(pk=pk)
    if club_id is not None:
        held = held.filter(club_id=club_id)
    row = (
        held.annotate(
            newest_game=Subquery(in_play.values("updated_at")[:1]),
            newest_event=Subquery(events.values("id")[:1]),
        )
        .values_list("results_version", "newest_game", "newest_event")
        .first()
    )
    if row is None:
        return None
    return _live_token(row[0], row[1]), row[2] or 0


def standing_rows(tournament: Tournament) -> list[dict]:
    """The stored standings in order, one plain row per team, as the pages show them."""
    rows = list(
        Standing.objects.filter(tournament=tournament)
        .order_by("place", "entry__team__name")
        .values(
            *STANDING_FIGURES,
            withdrawn=F("entry__withdrawn_at"),
            team=F("entry__team__name"),
            **{seat: F(f"entry__team__{seat}__name") for seat in PLAYER_FIELDS},
            **{f"{seat}_pk": F(f"entry__team__{seat}_id") for seat in PLAYER_FIELDS},
            captain_pk=F("entry__captain_id"),
        )
    )
    points_sheet = tournament.scoring == Scoring.POINTS
    player_url = url_maker("tournaments:player", tournament.pk)
    for row in rows:
        ids = [row.pop(f"{seat}_pk") for seat in PLAYER_FIELDS]
        row["player_links"] = [player_url(pk) for pk in ids if pk is not None]
        row["players"] = [row.pop(seat) for seat in PLAYER_FIELDS if row[seat] is not None]
        captain = row.pop("captain_pk")
        # The captain's place among the players (None if the team has none).
        row["captain"] = next(
            (at for at, pk in enumerate(pk for pk in ids if pk is not None) if pk == captain),
            None,
        )
        # The third column of the order: net tables, or on a points sheet the score difference.
        row["net"] = row["score_difference"] if points_sheet else row["net_tables"]
        row["points"] = format_points(row["points"])
        row["made_percent"] = (
            round(100 * row["made"] / row["declared"]) if row["declared"] else None
        )
    return rows


def sitting_lines(tournament: Tournament) -> list[dict]:
    """The confirmed sittings, newest first, with their games and byes, as the pages list them.

    Each game's teams are (name, tables, won, out) in seat order; on a points
    sheet (name, points, won, False): no one is out. A team won when the game names it
    its winner (``Game.winner``): a level game has none (the rules, B.5).

    Plain rows from three queries whatever the size of the tournament (the
    sittings, every team of their games, the byes): the page shows a line per
    game, and model instances of every game, its teams and their names would
    cost more than the rest of the page.
    """
    confirmed = {"tournament": tournament, "status": Sitting.Status.CONFIRMED}
    sittings = _confirmed_sittings(tournament, confirmed)
    _add_games(tournament, sittings, confirmed)
    _add_byes(sittings, confirmed)
    return list(sittings.values())


def _confirmed_sittings(tournament: Tournament, confirmed: dict) -> dict[int, dict]:
    """The confirmed sittings, newest first, by id: each one's title and page, no games yet."""
    sitting_url = url_maker("tournaments:sitting", tournament.pk)
    kinds = dict(Stage.Kind.choices)
    return {
        pk: {
            "number": number,
            # "Sitting 5 · Knockout" once the tournament plays in stages
            "title": Sitting.title(number) + (f" · {kinds[kind]}" if kind else ""),
            "url": sitting_url(number),
            "games": [],
            "byes": [],
            "ends_at": ends_at,  # its clock, which the projector shows
        }
        for pk, number, kind, ends_at in Sitting.objects.filter(**confirmed)
        .order_by("-number")
        .values_list("pk", "number", "stage__kind", "ends_at")
    }


def _add_games(tournament: Tournament, sittings: dict[int, dict], confirmed: dict) -> None:
    """Each sitting's games in table order, with their teams in seat order: one row a team."""
    game_url = url_maker("games:detail")
    statuses = {value: str(label) for value, label in Game.Status.choices}
    games: dict[int, dict] = {}
    points_sheet = tournament.scoring == Scoring.POINTS
    entry = "game__sitting_entry__"
    for sitting_id, position, table, game_id, status, deals, name, tables, seat, winner in (
        GameTeam.objects.filter(**{f"{entry}sitting__{key}": v for key, v in confirmed.items()})
        # By ids: ordering by the sitting or the game would join in what their own order needs.
        .order_by(f"{entry}sitting_id", f"{entry}position", "position")
        .values_list(
            f"{entry}sitting_id",
            f"{entry}position",
            f"{entry}table_label",
            "game_id",
            "game__status",
            "game__deals_played",
            "team__name",
            "score" if points_sheet else "tables",
            "pk",
            "game__winner_id",
        )
    ):
        game = games.get(game_id)
        if game is None:
            game = games[game_id] = {
                "sitting_id": sitting_id,
                "position": position,
                "table_label": table,
                "url": game_url(game_id),
                "status": status,
                "status_label": statuses.get(status, status),
                "playing": status == Game.Status.IN_PROGRESS,
                "deals_played": deals,
                "teams": [],
            }
            sittings[sitting_id]["games"].append(game)
        game["teams"].append((name, tables, seat == winner, not points_sheet and tables == 0))


def _add_byes(sittings: dict[int, dict], confirmed: dict) -> None:
    """Each sitting's byes: the teams it gave no game, by name."""
    for sitting_id, name in (
        Bye.objects.filter(**{f"sitting__{key}": v for key, v in confirmed.items()})
        .order_by("sitting_id", "id")
        .values_list("sitting_id", "entry__team__name")
    ):
        sittings[sitting_id]["byes"].append(name)


def sittings_played(tournament: Tournament) -> dict:
    """How far the standings go: the sittings whose every game is finished, and any
    later sitting's finished games so far ({"sittings": n, "partial": [...]})."""
    rows = (
        Sitting.objects.filter(tournament=tournament, status=Sitting.Status.CONFIRMED)
        .order_by("number")
        .annotate(
            total=Count("games"),
            done=Count("games", filter=Q(games__game__status=Game.Status.FINISHED)),
        )
        .values_list("number", "total", "done")
    )
    finished, partial = 0, []
    for number, total, done in rows:
        if done == total:
            finished += 1
        elif done:
            partial.append({"number": number, "games": total, "finished": done})
    return {"sittings": finished, "partial": partial}


def shown_in_full(sittings: list[dict]) -> tuple[list[dict], list[dict]]:
    """The sittings (newest first) the page shows table by table: the newest and any still
    being played; and the others, whose results the standings hold, a link each to their
    own page. The page and the fragment its spectators poll for stay the size of a sitting
    or two, not of every sitting played."""
    full = [at == 0 or any(game["playing"] for game in s["games"]) for at, s in enumerate(sittings)]
    return (
        [sitting for sitting, whole in zip(sittings, full, strict=True) if whole],
        [sitting for sitting, whole in zip(sittings, full, strict=True) if not whole],
    )


def live_context(tournament: Tournament, version: str | None = None) -> dict:
    """What the public, self-refreshing part of the tournament page shows.

    ``version`` is :func:`live_version`, when the caller has just read it.
    """
    sittings = sitting_lines(tournament)
    in_progress = [game for sitting in sittings for game in sitting["games"] if game["playing"]]
    in_progress.sort(key=lambda game: (game["sitting_id"], game["position"]))
    shown, earlier = shown_in_full(sittings)
    return {
        "tournament": tournament,
        "standings": standing_rows(tournament),
        "points_sheet": tournament.scoring == Scoring.POINTS,
        "sittings": shown,
        "earlier_sittings": earlier,
        "in_progress": in_progress,
        "live_version": version or live_version(tournament),
    }


def embed_context(tournament: Tournament, version: str | None = None) -> dict:
    """What the embeddable standings show (tournaments/embed.html): the standings alone."""
    return {
        "tournament": tournament,
        "standings": standing_rows(tournament),
        "points_sheet": tournament.scoring == Scoring.POINTS,
        "live_version": version or live_version(tournament),
    }


PROJECTOR_ROWS = 12  # teams or games a projector panel shows before the next panel


def _pages(rows: list, size: int = PROJECTOR_ROWS) -> list[dict]:
    """``rows`` in panels of ``size``, each knowing its number and how many there are."""
    chunks = [rows[at : at + size] for at in range(0, len(rows), size)] or [[]]
    return [
        {"rows": chunk, "number": number, "of": len(chunks)}
        for number, chunk in enumerate(chunks, start=1)
    ]


def projector_context(tournament: Tournament, version: str | None = None) -> dict:
    """The live context, with the standings and the games in progress in panels the
    projector shows in turn (every team and every game, a panel at a time)."""
    context = live_context(tournament, version)
    context["standing_pages"] = _pages(context["standings"])
    context["game_pages"] = _pages(context["in_progress"])
    sittings = context["sittings"]
    context["sitting_title"] = sittings[0]["title"] if sittings else ""
    # The sitting in play's clock, as a page kept for everyone carries it: the moment time
    # is up, never the seconds left as rendered (club.web.countdown).
    context["clock"] = countdown(sittings[0]["ends_at"], kept=True) if sittings else None
    return context
