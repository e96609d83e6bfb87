"""Run every scenario against the database Django is set up with; returns plain data."""

from __future__ import annotations

import datetime as dt
import itertools
import time
import uuid
from collections.abc import Callable

from django.conf import settings
from django.db import connection

from benchmarks import scenarios as sc
from benchmarks.previews import preview_scenarios
from benchmarks.season import season_scenarios
from club.games.views import live_version as game_version
from club.leaderboards import own_parts
from club.tournaments.selectors import board
from club.tournaments.selectors import live_version as tournament_version
from club.web import after

# When the last request's answer went out: the moment its work left for later began
# (club.web.after), and how many queries it had made by then.
_answered: list[tuple[float, int]] = []
_run_after = after._run


def _marked_run(queue) -> None:
    _answered.append((time.perf_counter(), len(connection.queries_log)))
    _run_after(queue)


after._run = _marked_run


def measure(
    name: str,
    what: str,
    action: Callable[[], object],
    *,
    repeat: int,
    budget: float,
    sql: Callable[[], object] | None = None,
    warm: bool = False,
    answered: sc.Timing | None = None,
) -> sc.Timing:
    """The first run counts the queries (and warms up); then up to ``repeat`` timed runs.
    ``warm``: one run before that, so that a kept page's queries are its kept read's.
    ``answered``: also times each run until its answer went out (club.web.after), with
    the queries made by then, into that Timing (a request that left nothing for later
    is answered when it returns)."""
    status = None

    def call():
        nonlocal status
        response = action()
        if response is not None and hasattr(response, "status_code"):
            status = response.status_code
            sc.consume(response)
        return response

    if warm:
        call()
    start = time.perf_counter()
    before = len(connection.queries_log)
    _answered.clear()
    queries = sc.count_queries(call)
    first = time.perf_counter() - start
    if answered is not None:
        answered.queries = _answered[0][1] - before if _answered else queries
    samples: list[float] = []
    spent = 0.0
    least = 1 if first > budget else 3
    while len(samples) < repeat and (len(samples) < least or spent < budget):
        _answered.clear()
        tick = time.perf_counter()
        call()
        took = time.perf_counter() - tick
        samples.append(took)
        spent += took
        if answered is not None:
            answered.samples.append((_answered[0][0] if _answered else tick + took) - tick)
    timing = sc.Timing(name=name, what=what, samples=samples, queries=queries, status=status)
    if sql is not None:
        timing.floor_sql = sc.timed(sql, repeat, budget / 4)
    print(
        f"  {name:<28} median {timing.median * 1000:9.1f} ms  p95 {timing.p95 * 1000:9.1f} ms"
        f"  {queries:3d} queries  ({len(samples)} runs, status {status})",
        flush=True,
    )
    return timing


def run_all(
    *, repeat: int, budget: float, skip: tuple[str, ...] = (), only: tuple[str, ...] = ()
) -> dict:
    def wanted(name: str) -> bool:
        """Not skipped (--skip WORD), and named by --only WORD when any is given."""
        if any(word in name for word in skip):
            return False
        return not only or any(word in name for word in only)

    # The harness asks the API far more often than a client may (DJANGO_API_RATE).
    settings.CLUB_API_RATE = ""
    world = sc.find_world()
    t, game, player = world.tournament, world.game, world.player
    c = world.prefix  # the club's part of its pages' addresses ("" on a site of one club)
    print(
        f"==> {connection.vendor}: {world.deals} deals in all; tournament “{t.name}” "
        f"({world.tournament_deals} deals), game “{game.label}” ({game.deals_played} deals), "
        f"player “{player.name}”, club “{world.club.name}” ({c or 'its short addresses'})",
        flush=True,
    )
    print("==> adding the harness's sitting (fresh games and a 60-deal game)", flush=True)
    sc.add_bench_games(world, fresh=repeat // 10 + 2)
    writer = sc.SqlWriter(world)
    timings: list[sc.Timing] = []
    try:
        pub, org = world.public, world.organiser

        def run(name, what, action, sql=None, kept=False):
            """``kept``: a page club.web.pages keeps. It is measured twice: a visitor's read
            of the page already kept for its version, then (", rendered") its first render
            after a change, the pages cache emptied before each request."""
            if not wanted(name):
                print(f"  {name:<28} skipped (--skip, --only)", flush=True)
                return
            timing = measure(name, what, action, repeat=repeat, budget=budget, sql=sql, warm=kept)
            timing.extra["kept"] = kept
            timings.append(timing)
            if kept:
                fresh = measure(
                    f"{name}, rendered",
                    f"{what}, its kept copy dropped first",
                    lambda: (sc.drop_kept_pages(), action())[1],
                    repeat=repeat,
                    budget=budget,
                    sql=sql,
                )
                fresh.extra["kept"] = False
                timings.append(fresh)

        trivial = measure(
            "trivial view",
            "framework floor",
            lambda: pub.get(f"{c}/bench/trivial/"),
            repeat=max(repeat, 50),
            budget=budget,
        )
        game_url = f"{c}/games/{game.pk}/"
        run(
            "game page",
            "GET, public",
            lambda: pub.get(game_url),
            lambda: sc.sql_game_page(game.pk),
            kept=True,
        )
        unchanged = game_version(game)
        run(
            "game live poll, unchanged",
            "GET ?version=current → 204",
            lambda: pub.get(game_url, {"version": unchanged}, **sc.HTMX),
            lambda: sc.sql_game_version(game.pk),
            kept=True,
        )
        run(
            "game live poll, changed",
            "GET ?version=old → fragment",
            lambda: pub.get(game_url, {"version": "0.0"}, **sc.HTMX),
            lambda: sc.sql_game_page(game.pk),
            kept=True,
        )
        run(
            "tournament standings",
            "GET tournament page, public",
            lambda: pub.get(f"{c}/tournaments/{t.pk}/"),
            lambda: sc.sql_standings(t.pk),
            kept=True,
        )
        t_version = tournament_version(type(t).objects.get(pk=t.pk))  # bumped by the setup
        run(
            "tournament live, unchanged",
            "GET live/?version=current → 204",
            lambda: pub.get(f"{c}/tournaments/{t.pk}/live/", {"version": t_version}, **sc.HTMX),
            lambda: sc.sql_tournament_version(t.pk),
            kept=True,
        )
        run(
            "tournament live, changed",
            "GET live/?version=old → fragment",
            lambda: pub.get(f"{c}/tournaments/{t.pk}/live/", {"version": "0.0"}, **sc.HTMX),
            lambda: sc.sql_standings(t.pk),
            kept=True,
        )
        run(
            "director's board",
            "GET board, organiser",
            lambda: org.get(f"{c}/tournaments/{t.pk}/board/"),
        )
        # At the table: three tables calling the director, 200 calls answered hours ago,
        # the sitting's clock running (the board polls every second).
        token = sc.add_bench_calls(world)
        board_url = f"{c}/tournaments/{t.pk}/board/"
        run(
            "director's board, calls",
            "GET board, 3 calls open, 200 past, the clock running",
            lambda: org.get(board_url),
        )
        polled = board.board_version(t, board.current_sitting(t))
        run(
            "director's board poll",
            "GET board?version=current → 204, every second",
            lambda: org.get(board_url, {"version": polled}, **sc.HTMX),
        )
        run(
            "director calls",
            "GET the club's open calls, organiser",
            lambda: org.get(f"{c}/calls/"),
        )
        run(
            "a table's call and clock",
            "GET its part of the scorer's page, every 3 s",
            lambda: pub.get(f"{c}/s/{token}/table/", **sc.HTMX),
        )
        registered = t.entries.order_by("pk").first()
        run(
            "team's players",
            "GET a team's substitutions, organiser",
            lambda: org.get(f"{c}/tournaments/{t.pk}/teams/{registered.pk}/players/"),
        )
        run(
            "team cards",
            "GET the captains' cards, organiser",
            lambda: org.get(f"{c}/tournaments/{t.pk}/cards/"),
        )
        groups, knockout = world.bench_stages
        run(
            "stage chart",
            "GET groups A and B, public",
            lambda: pub.get(f"{c}/tournaments/{t.pk}/stages/{groups.number}/"),
            kept=True,
        )
        run(
            "knockout bracket",
            "GET 16-team bracket, public",
            lambda: pub.get(f"{c}/tournaments/{t.pk}/stages/{knockout.number}/"),
            kept=True,
        )
        seated = world.long_game.teams.select_related("team").first().team.first_player_id
        run(
            "a player's page",
            "GET where I sit, public",
            lambda: pub.get(f"{c}/tournaments/{t.pk}/players/{seated}/"),
            kept=True,
        )
        run(
            "where do I sit",
            "GET the sitting's seats, public",
            lambda: pub.get(f"{c}/tournaments/{t.pk}/seats/"),
            kept=True,
        )
        run(
            "where do I sit, a name",
            "GET seats?q=…, public",
            lambda: pub.get(f"{c}/tournaments/{t.pk}/seats/", {"q": player.name[:4]}),
            kept=True,
        )
        # Every other page a user can open: each bounded, so none grows with
        # the club's history.
        sitting = t.sittings.exclude(pk=world.bench_sitting.pk).order_by("-number").first()
        run("home page", "GET /, public", lambda: pub.get(f"{c}/"), kept=True)
        run(
            "home page, a later page",
            "GET /?page=3, public",
            lambda: pub.get(f"{c}/", {"page": 3}),
            kept=True,
        )
        run("the register", "GET /players/, public", lambda: pub.get(f"{c}/players/"))
        # A search as an organiser types one: the end of a name, which finds that player.
        # The generated names all begin alike ("S56 Player"): their first letters found
        # every player, a page of the register the larger preset fills and the smaller not.
        run(
            "the register, a search",
            "GET /players/?q=…, a name's end, public",
            lambda: pub.get(f"{c}/players/", {"q": player.name[-5:]}),
        )
        run("tournaments", "GET /tournaments/, public", lambda: pub.get(f"{c}/tournaments/"))
        run(
            "a sitting",
            "GET a sitting's page, public",
            lambda: pub.get(f"{c}/tournaments/{t.pk}/sittings/{sitting.number}/"),
        )
        run(
            "a sitting's score sheets",
            "GET sheets, organiser (codes)",
            lambda: org.get(f"{c}/tournaments/{t.pk}/sittings/{sitting.number}/sheets/"),
        )
        run("connect phones", "GET /connect/, organiser", lambda: org.get(f"{c}/connect/"))
        run("publish results", "GET /import/, organiser", lambda: org.get(f"{c}/import/"))
        run(
            "the club's players",
            "GET /players/roster.json, organiser",
            lambda: org.get(f"{c}/players/roster.json"),
        )
        run(
            "projector",
            "GET projector, public",
            lambda: pub.get(f"{c}/tournaments/{t.pk}/projector/"),
            kept=True,
        )
        run(
            "printed standings",
            "GET print, public",
            lambda: pub.get(f"{c}/tournaments/{t.pk}/print/"),
        )
        run("rules page", "GET /rules/, public", lambda: pub.get(f"{c}/rules/"))
        site_pages(run, world)
        # A club's backup page, its organiser's password page, and a page not found.
        run("a club's backup page", "GET /backup/, organiser", lambda: org.get(f"{c}/backup/"))
        run("change password", "GET /accounts/password/", lambda: org.get("/accounts/password/"))
        run("page not found", "GET a game not there, public", lambda: pub.get(f"{c}/games/0/"))
        # The read API and the embeddable pages.
        long_game = world.long_game
        team = long_game.teams.values_list("team_id", flat=True).first()
        run("api: index", "GET /api/v1/", lambda: pub.get(f"{c}/api/v1/"))
        run("api: docs", "GET /api/v1/docs/", lambda: pub.get(f"{c}/api/v1/docs/"))
        run("api: schema", "GET /api/v1/schema/", lambda: pub.get(f"{c}/api/v1/schema/"))
        run("api: games", "GET /api/v1/games/", lambda: pub.get(f"{c}/api/v1/games/"), kept=True)
        run(
            "api: games, one player's",
            "GET /api/v1/games/?player=",
            lambda: pub.get(f"{c}/api/v1/games/", {"player": player.pk}),
            kept=True,
        )
        run(
            "api: a game",
            "GET /api/v1/games/{id}/, 60 deals",
            lambda: pub.get(f"{c}/api/v1/games/{long_game.pk}/"),
            kept=True,
        )
        run(
            "api: tournaments",
            "GET /api/v1/tournaments/",
            lambda: pub.get(f"{c}/api/v1/tournaments/"),
        )
        run(
            "api: a tournament",
            "GET /api/v1/tournaments/{id}/",
            lambda: pub.get(f"{c}/api/v1/tournaments/{t.pk}/"),
            kept=True,
        )
        run("api: players", "GET /api/v1/players/", lambda: pub.get(f"{c}/api/v1/players/"))
        run(
            "api: a player",
            "GET /api/v1/players/{id}/, the busiest",
            lambda: pub.get(f"{c}/api/v1/players/{player.pk}/"),
            kept=True,
        )
        run(
            "api: a team",
            "GET /api/v1/teams/{id}/",
            lambda: pub.get(f"{c}/api/v1/teams/{team}/"),
            kept=True,
        )
        run(
            "api: player leaderboard",
            "GET /api/v1/leaderboards/players/",
            lambda: pub.get(f"{c}/api/v1/leaderboards/players/"),
            kept=True,
        )
        run(
            "api: team leaderboard, one tournament",
            "GET /api/v1/leaderboards/teams/?tournament=",
            lambda: pub.get(f"{c}/api/v1/leaderboards/teams/", {"tournament": t.pk}),
            kept=True,
        )
        run(
            "embed: standings",
            "GET the standings to frame",
            lambda: pub.get(f"{c}/tournaments/{t.pk}/embed/"),
            kept=True,
        )
        run(
            "embed: game card",
            "GET a game's card to frame",
            lambda: pub.get(f"{c}/games/{game.pk}/embed/"),
            kept=True,
        )
        # A season of 40 club nights: its table made at each reading, its pages, the API.
        season_scenarios(run, pub)
        # The link previews' pictures, drawn and kept (club/web/preview.py).
        preview_scenarios(run, world)
        run("admin: games", "GET the admin's game list", lambda: org.get("/admin/games/game/"))
        run("boards' index", "GET /leaderboards/, public", lambda: pub.get(f"{c}/leaderboards/"))
        run(
            "player leaderboard",
            "GET, public, first page",
            lambda: pub.get(f"{c}/leaderboards/players/"),
            sc.sql_leaderboard,
            kept=True,
        )
        run(
            "team leaderboard",
            "GET, public, first page",
            lambda: pub.get(f"{c}/leaderboards/teams/"),
            sc.sql_team_board,
            kept=True,
        )
        run(
            "player leaderboard, one tournament",
            "GET ?tournament=, public",
            lambda: pub.get(f"{c}/leaderboards/players/", {"tournament": t.pk}),
            lambda: sc.sql_tournament_board(t.pk),
            kept=True,
        )
        # The profile opens on the player's latest night in review (club.leaderboards.night):
        # measured as a club plays, a night of 4 games, the player's other games a night
        # each before it (the generator starts every game on one day: the whole history
        # would be one night); then a night asked for, and a year's span.
        with sc.nights_apart(world):
            run(
                "player profile",
                "GET, the busiest player, their latest night of 4 games",
                lambda: pub.get(f"{c}/players/{player.pk}/"),
                lambda: sc.sql_profile(player.pk),
                kept=True,
            )
            # Rendered after a game of others finished (it moves every profile's key): the
            # player's own parts are kept by the process (club.leaderboards.own_parts), as
            # for a player whose latest change has settled, however new the database is.
            name = "player profile, rendered, their history unchanged"
            profile = f"{c}/players/{player.pk}/"
            if wanted(name):
                settled, own_parts.SETTLED = own_parts.SETTLED, dt.timedelta(0)
                try:
                    own = measure(
                        name,
                        "GET, its kept copy dropped, the player's own parts kept",
                        lambda: (sc.drop_kept_pages(own=False), pub.get(profile))[1],
                        repeat=repeat,
                        budget=budget,
                        sql=lambda: sc.sql_profile(player.pk),
                    )
                finally:
                    own_parts.SETTLED = settled
                own.extra["kept"] = False
                timings.append(own)
            night, since = sc.nights_of(world)
            run(
                "player profile, a night",
                "GET ?night=, the busiest player's latest, 4 games",
                lambda: pub.get(f"{c}/players/{player.pk}/", {"night": night}),
                kept=True,
            )
            run(
                "player profile, a span",
                "GET ?from=&to=, the year to that night, a game a night",
                lambda: pub.get(f"{c}/players/{player.pk}/", {"from": since, "to": night}),
                kept=True,
            )
        run(
            "export JSON",
            "GET export.json, one tournament",
            lambda: pub.get(f"{c}/tournaments/{t.pk}/export.json"),
            lambda: sc.sql_export(t.pk),
        )
        run(
            "export CSV (deals)",
            "GET deals.csv, streamed",
            lambda: pub.get(f"{c}/tournaments/{t.pk}/deals.csv"),
            lambda: sc.sql_export(t.pk),
        )
        exports = {t.name: t for t in timings if t.name.startswith("export")}
        for name, path in (("export JSON", "export.json"), ("export CSV (deals)", "deals.csv")):
            if name not in exports:
                continue
            timing = exports[name]
            timing.extra["deals_per_second"] = world.tournament_deals / timing.median
            timing.extra["peak_memory_mb"] = (
                sc.peak_memory(lambda p=path: sc.consume(pub.get(f"{c}/tournaments/{t.pk}/{p}")))
                / 2**20
            )

        seatings = {g.pk: sc.scoring.load_seating(g) for g in world.fresh_games}

        def post_deal(game, number, seating):
            """Deal ``number`` of ``game`` through the deal form, as the phone sends it."""
            entry = sc._deal(seating, number)
            data = {
                "idempotency_key": str(uuid.uuid4()),  # as the form carries one
                "number": number,
                "declarer": seating.player_id(entry.declarer),
                "bid": 28,
                "trump": "spades",
                "doubling": "none",
                **{f"points_{team}": points for team, points in entry.points.items()},
            }
            response = org.post(f"{c}/games/{game.pk}/deals/", data, **sc.HTMX)
            if b"errorlist" in response.content or response.status_code != 200:
                raise SystemExit(f"recording deal {number} failed: {response.status_code}")
            return response

        counter = {"n": 0}

        def record():
            index = counter["n"]
            counter["n"] += 1
            fresh = world.fresh_games[index // 10]
            number = index % 10 + 1
            return post_deal(fresh, number, seatings[fresh.pk])

        run("record a deal", "POST deal form, htmx, organiser", record, writer.record)

        ending = iter(world.ending_games)

        def record_last():
            game = next(ending)
            return post_deal(game, 1, sc.scoring.load_seating(game))

        if wanted("record the deal that ends a game"):
            answer = sc.Timing(
                name="record the deal that ends a game, until answered",
                what="POST; the answer sent, the boards' figures and ratings still to do",
                samples=[],
                status=200,
            )
            timings.append(
                measure(
                    "record the deal that ends a game",
                    "POST; standings, then (after the answer) figures and ratings",
                    record_last,
                    repeat=repeat,
                    budget=budget,
                    sql=writer.record,
                    answered=answer,
                )
            )
            timings.append(answer)
            print(
                f"  {'  until answered':<28} median {answer.median * 1000:9.1f} ms"
                f"  p95 {answer.p95 * 1000:9.1f} ms  {answer.queries:3d} queries",
                flush=True,
            )

        long_game = world.long_game
        long_seating = sc.scoring.load_seating(long_game)
        flip = {"variant": 0}

        def correct():
            flip["variant"] ^= 1
            entry = sc._deal(long_seating, 1, flip["variant"])
            data = {
                "idempotency_key": str(uuid.uuid4()),
                "number": 1,
                "declarer": long_seating.player_id(entry.declarer),
                "bid": 28,
                "trump": "spades",
                "doubling": "none",
                **{f"points_{team}": points for team, points in entry.points.items()},
            }
            response = org.post(f"{c}/games/{long_game.pk}/deals/1/edit/", data)
            if response.status_code != 302:
                raise SystemExit(f"correcting deal 1 failed: {response.status_code}")
            return response

        for _ in range(59):  # the floor's game gets 60 deals too
            writer.record()
        run("correct deal 1 of 60", "POST correction, organiser", correct, writer.correct_first)
    finally:
        sc.remove_bench_games(world)
        writer.remove()
    rebuild = rebuild_from_scratch() if wanted("rebuild") else None

    rows = []
    for timing in timings:
        rows.append(
            {
                "name": timing.name,
                "what": timing.what,
                "median_ms": timing.median * 1000,
                "p95_ms": timing.p95 * 1000,
                "runs": len(timing.samples),
                "queries": timing.queries,
                "status": timing.status,
                "sql_floor_ms": (timing.sql_median or 0) * 1000,
                "x_framework_floor": timing.median / trivial.median,
                "x_sql_floor": timing.median / timing.sql_median if timing.sql_median else None,
                **timing.extra,
            }
        )
    return {
        "meta": {
            "deals": world.deals,
            "tournament": t.name,
            "tournament_deals": world.tournament_deals,
            "game_deals": game.deals_played,
            "player": world.player.name,
            "club": world.club.name,
            "clubs": world.clubs,
        },
        "trivial": {
            "median_ms": trivial.median * 1000,
            "p95_ms": trivial.p95 * 1000,
            "queries": trivial.queries,
        },
        "rows": rows,
        "rebuild": rebuild,
    }


def site_pages(run: Callable, world: sc.World) -> None:
    """The pages of many clubs: every club's home in turn, then the site's own pages (its
    home: its clubs on a site of several, else the club's games; its list of clubs; the
    federation's ranking, of every club, of one, a later page, of one form)."""
    pub = world.public
    # A federation's server answers every club's pages, each club's links made under
    # its own address: the clubs' homes, one club after another, each rendered.
    homes = itertools.cycle(
        [f"/clubs/{slug}/" for slug in world.slugs] if world.clubs > 1 else ["/"]
    )
    run(
        "a club's home, each club in turn",
        "GET /clubs/<each club>/, rendered, public",
        lambda: (sc.drop_kept_pages(), pub.get(next(homes)))[1],
    )
    # The site's own pages: its home (its clubs, on a site of several; else the club's
    # games), its list of clubs and the federation's ranking, of every club or one.
    run("the site's home", "GET / of the site, public", lambda: pub.get("/"))
    run("the site's clubs", "GET /clubs/, public", lambda: pub.get("/clubs/"))
    run(
        "the federation's ranking",
        "GET /ranking/, public",
        lambda: pub.get("/ranking/"),
        kept=True,
    )
    run(
        "the ranking, one club's",
        "GET /ranking/?club=, public",
        lambda: pub.get("/ranking/", {"club": world.club.slug}),
        kept=True,
    )
    run(
        "the ranking, a later page",
        "GET /ranking/?page=3, public",
        lambda: pub.get("/ranking/", {"page": 3}),
        kept=True,
    )
    run(
        "the ranking of one form",
        "GET /ranking/?form=kodi, public",
        lambda: pub.get("/ranking/", {"form": "kodi"}),
        kept=True,
    )


def rebuild_from_scratch() -> dict:
    """Every leaderboard figure and rating recomputed from the deals, then rolled back."""
    from django.db import transaction

    from club.leaderboards import figures
    from club.leaderboards.services import rebuild_ratings

    with transaction.atomic():
        start = time.perf_counter()
        games = figures.rebuild_all()
        tick = time.perf_counter()
        rebuild_ratings()
        done = time.perf_counter()
        transaction.set_rollback(True)  # the same numbers; the database is left as it was
    result = {
        "games": games,
        "figures_seconds": tick - start,
        "ratings_seconds": done - tick,
        "seconds": done - start,
    }
    print(
        f"  rebuild from scratch         {result['seconds']:9.1f} s  (figures "
        f"{result['figures_seconds']:.1f} s, ratings {result['ratings_seconds']:.1f} s, "
        f"{games} games)",
        flush=True,
    )
    return result
