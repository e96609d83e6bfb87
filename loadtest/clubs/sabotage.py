"""``--sabotage``: after the real check, break the database on purpose and check again.

The check (:mod:`loadtest.clubs.checks`) must find what was broken, or its zeros
prove nothing:

- lost: the last deal of one of the first club's games deleted (its number taken back);
- crossed: the last deal of another of its games moved into a game of the other club,
  as that game's next deal (its piles still point at the first game's teams);
- doubled: one stored deal of the other club taken out of the acknowledgements, as if
  it had been written without anyone being told.

The real verdict is the first check's; this one only says whether the check has teeth.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from loadtest.clubs import checks
from loadtest.clubs.tally import Tally
from loadtest.clubs.world import Site

EXPECTED = {"lost": 2, "doubled": 1, "crossed": 1}  # at least these


@dataclass
class Teeth:
    found: dict[str, int]
    done: bool  # whether there were enough deals to break

    @property
    def bitten(self) -> bool:
        return self.done and all(self.found[name] >= least for name, least in EXPECTED.items())

    def line(self) -> str:
        if not self.done:
            return "- Sabotage: too few deals to break; the check's teeth were not tried."
        found = ", ".join(f"{name} {count}" for name, count in self.found.items())
        wanted = ", ".join(f"{name} {least}" for name, least in EXPECTED.items())
        verdict = "found" if self.bitten else "NOT FOUND"
        return f"- Sabotage after the check: {verdict} ({found}; at least {wanted} broken)."


def _last_rounds(games: list[int]):
    from club.games.models import Game, Round

    played = dict(
        Game.objects.filter(pk__in=games, deals_played__gt=0).values_list("pk", "deals_played")
    )
    return [Round.objects.get(game_id=game, number=number) for game, number in played.items()]


def _told_once(tally: Tally, club: str) -> list:
    """Every acknowledgement of one deal of ``club``'s, to be taken back: a deal never
    corrected nor left unresolved, whose content no post to another game said (the check
    would take it for a crossed deal), with each of its acknowledgements (a form sent
    again is answered again: taking back one would leave the other). None when no deal
    is such."""
    said: dict[tuple, set[int]] = defaultdict(set)
    by_deal: dict[tuple[int, int], list] = defaultdict(list)
    corrected = set()  # or left unresolved: the check passes over those
    for post in tally.posts:
        said[post.content].add(post.game)
        if post.outcome == "unresolved":
            corrected.add((post.game, post.number))
        if post.outcome != "recorded":
            continue
        if post.kind != "deal":
            corrected.add((post.game, post.number))
        elif post.club == club:
            by_deal[(post.game, post.number)].append(post)
    for deal, posts in sorted(by_deal.items()):
        if deal not in corrected and all(said[post.content] == {deal[0]} for post in posts):
            return posts
    return []


def sabotage(site: Site, tally: Tally) -> Teeth:
    from django.db import connection, transaction
    from django.db.models import F

    from club.games.models import Game, Round

    connection.close()
    first, second = site.clubs
    ours = _last_rounds(first.games)
    theirs = [game for game in second.games if Game.objects.get(pk=game).deals_played > 0]
    recorded = {(p.game, p.number) for p in tally.posts if p.outcome == "recorded"}
    told = _told_once(tally, second.slug)
    if (
        len(ours) < 2
        or not theirs
        or not told
        or not all((r.game_id, r.number) in recorded for r in ours[:2])
    ):
        return Teeth({name: 0 for name in EXPECTED}, done=False)
    gone, moved = ours[0], ours[1]
    target = Game.objects.get(pk=theirs[0])
    with transaction.atomic():
        gone.delete()
        Game.objects.filter(pk=gone.game_id).update(deals_played=F("deals_played") - 1)
        Round.objects.filter(pk=moved.pk).update(game=target, number=target.deals_played + 1)
        Game.objects.filter(pk=moved.game_id).update(deals_played=F("deals_played") - 1)
        Game.objects.filter(pk=target.pk).update(deals_played=F("deals_played") + 1)
    for post in told:
        post.outcome = "refused"  # written, and nobody told
    try:
        found = checks.check(site, tally)
    finally:
        for post in told:
            post.outcome = "recorded"
    return Teeth(
        {"lost": len(found.lost), "doubled": len(found.doubled), "crossed": len(found.crossed)},
        done=True,
    )
