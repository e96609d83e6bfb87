"""The link previews' pictures: each drawn cold and read kept (club/web/preview.py).

A picture is drawn once per version of its page and kept in the pages cache; a
messaging app asks for it by an address that holds the version. Each picture is measured
as ``run_all`` measures a kept page: read kept (its page's version, then the kept PNG),
and drawn (", rendered": the pages cache emptied before each request, so the picture is
drawn from the database and the fonts already open in the process). The standings'
picture is measured a third way, with the fonts opened again too (", fonts opened"): the
first picture a new worker draws; the season's after one night changed, as its page is
(benchmarks/season.py): the picture a changed result asks for. The target: a standings
picture under 150 ms, drawn cold.
"""

from __future__ import annotations

from collections.abc import Callable

from benchmarks import scenarios as sc
from benchmarks.season import find_season, touch
from club.clubs.addresses import reverse_in
from club.web import cards, fonts


def _fonts_opened_again() -> None:
    """As in a worker that has drawn nothing yet: every face opened and every line shaped
    again when used."""
    fonts.font.cache_clear()
    fonts.faces.cache_clear()
    cards._shaped.cache_clear()


def preview_scenarios(run: Callable, world: sc.World) -> None:
    """The pictures of a tournament's standings, a sitting, a game, the busiest player and
    the season (``run`` is run_all's: ``kept`` measures the kept read and the drawing)."""
    pub, t, c = world.public, world.tournament, world.prefix
    sitting = t.sittings.exclude(pk=world.bench_sitting.pk).order_by("-number").first()
    standings = f"{c}/tournaments/{t.pk}/preview.png"
    run(
        "standings picture",
        "GET the standings' preview.png, public",
        lambda: pub.get(standings),
        lambda: sc.sql_standings(t.pk),
        kept=True,
    )
    run(
        "standings picture, fonts opened",
        "GET the standings' preview.png, nothing kept and the fonts opened again",
        lambda: (sc.drop_kept_pages(), _fonts_opened_again(), pub.get(standings))[2],
        lambda: sc.sql_standings(t.pk),
    )
    if sitting is not None:
        run(
            "sitting picture",
            "GET a sitting's preview.png, public",
            lambda: pub.get(f"{c}/tournaments/{t.pk}/sittings/{sitting.number}/preview.png"),
            kept=True,
        )
    run(
        "game picture",
        "GET a game's preview.png, public",
        lambda: pub.get(f"{c}/games/{world.game.pk}/preview.png"),
        lambda: sc.sql_game_version(world.game.pk),
        kept=True,
    )
    run(
        "player picture",
        "GET the busiest player's preview.png, public",
        lambda: pub.get(f"{c}/players/{world.player.pk}/preview.png"),
        lambda: sc.sql_profile(world.player.pk),
        kept=True,
    )
    season = find_season()
    if season is not None:
        address = reverse_in(season.club, "competitions:preview", args=[season.competition.pk])
        run(
            "season picture",
            "GET the season's preview.png, public",
            lambda: pub.get(address),
            kept=True,
        )
        run(
            "season picture, one night changed",
            "GET the season's preview.png, a game of the latest night marked changed first",
            lambda: (touch(season.latest_game), pub.get(address))[1],
        )
