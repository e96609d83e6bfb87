"""The database after the nights, read against what the clients were told.

- **Lost**: a deal acknowledged to a client that the database does not hold, or holds
  saying something else than the last acknowledged word on it (the deal as sent, or its
  last acknowledged correction).
- **Doubled**: one deal number of a game acknowledged to two different posts (one of
  them was silently dropped), or a stored deal that no answer acknowledged (written
  twice, or written from a post that was told otherwise).
- **Crossed**: a row of one club's game that belongs elsewhere: a deal saying what a
  post to another game said, a pile, ledger line, declarer, dealer or history line
  pointing into another game, a history line or deal written by the other club's
  organiser or another game's link, a player of a club's game who is not the club's
  member, a club's member who never played or registered there, a kept one-time key
  under another club's address, or any row or key of a cross-club try.
- **Invariants**: the piles of every deal sum to 56, every deal moves no table in all
  and every game holds its teams' tables, every game's ledger equals its replay
  (``club.games.services.replay_game``), and every derived row equals the services'
  replay (``club.ops.synthetic_check.check_games``).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from loadtest.clubs.forms import stored
from loadtest.clubs.tally import Post, Tally
from loadtest.clubs.world import TABLES_PER_TEAM, ClubNight, Site
from loadtest.run import ledger_and_replay


@dataclass
class Findings:
    lost: list[str] = field(default_factory=list)
    doubled: list[str] = field(default_factory=list)
    crossed: list[str] = field(default_factory=list)
    invariants: list[str] = field(default_factory=list)
    deals_stored: int = 0
    corrections_checked: int = 0


def _acknowledged(tally: Tally):
    deals: dict[tuple[int, int], list[Post]] = defaultdict(list)
    corrections: dict[tuple[int, int], list[Post]] = defaultdict(list)
    for post in tally.posts:
        if post.outcome != "recorded":
            continue
        (deals if post.kind == "deal" else corrections)[(post.game, post.number)].append(post)
    for posts in corrections.values():
        posts.sort(key=lambda post: post.order)
    return deals, corrections


def _stored_deals(site: Site) -> dict[tuple[int, int], tuple]:
    from club.games.models import Pile, Round

    games = [game for club in site.clubs for game in club.games]
    piles: dict[int, dict[int, int]] = defaultdict(dict)
    for pile in Pile.objects.filter(round__game__in=games).select_related("game_team"):
        piles[pile.round_id][pile.game_team.position] = pile.points
    return {
        (round_.game_id, round_.number): stored(round_, piles[round_.pk])
        for round_ in Round.objects.filter(game__in=games)
    }


def deals(site: Site, tally: Tally, found: Findings) -> None:
    """Lost and doubled deals, and deals saying what a post to another game said."""
    acknowledged, corrections = _acknowledged(tally)
    held = _stored_deals(site)
    found.deals_stored = len(held)
    unresolved = {(p.game, p.number) for p in tally.posts if p.outcome == "unresolved"}
    # Everything any post said, by content: where a stray deal came from.
    said = defaultdict(set)
    for post in tally.posts:
        said[post.content].add(post.game)
    for (game, number), posts in sorted(acknowledged.items()):
        if len({post.key for post in posts}) > 1:
            found.doubled.append(f"game {game} deal {number}: acknowledged to {len(posts)} posts")
        last = corrections.get((game, number))
        expected = last[-1].content if last else posts[0].content
        found.corrections_checked += bool(last)
        content = held.get((game, number))
        if content is None:
            found.lost.append(f"game {game} deal {number}: acknowledged, not stored")
        elif content != expected:
            elsewhere = said.get(content, set()) - {game}
            where = found.crossed if elsewhere else found.lost
            where.append(
                f"game {game} deal {number}: stored {content}, acknowledged {expected}"
                + (f" (posted to game {sorted(elsewhere)})" if elsewhere else "")
            )
    for (game, number), content in sorted(held.items()):
        if (game, number) in acknowledged or (game, number) in unresolved:
            continue
        elsewhere = said.get(content, set()) - {game}
        if elsewhere:
            found.crossed.append(
                f"game {game} deal {number}: what game {sorted(elsewhere)} was sent"
            )
        else:
            found.doubled.append(f"game {game} deal {number}: stored, never acknowledged")


def rows(site: Site, tally: Tally, found: Findings) -> None:
    """Every row of a club's game points into that game and that club only."""
    from django.contrib.auth import get_user_model

    from club.games.models import SubmittedForm

    organisers = dict(get_user_model().objects.values_list("username", "pk"))
    for club in site.clubs:
        own = organisers[club.organiser]
        _games(club, found)
        _deals(club, own, found)
        _members(club, found)
        _kept_keys(club, tally, found)
    tries = SubmittedForm.objects.filter(key__in=tally.probe_keys)
    for key, path in tries.values_list("key", "path"):
        found.crossed.append(f"a cross-club try's key {key} was kept, under {path}")


def _games(club: ClubNight, found: Findings) -> None:
    """The club's games are still its own, and its sitting holds them and no other."""
    from club.games.models import Game
    from club.tournaments.models import SittingGame

    for game in Game.objects.filter(pk__in=club.games).exclude(club_id=club.pk):
        found.crossed.append(f"game {game.pk} of {club.slug} is now the club {game.club_id}'s")
    sitting = SittingGame.objects.filter(sitting__tournament_id=club.tournament)
    if set(sitting.values_list("game_id", flat=True)) != set(club.games):
        found.crossed.append(f"{club.slug}'s sitting holds other games than its own")


def _deals(club: ClubNight, own: int, found: Findings) -> None:
    """Each deal's players, team, piles, ledger lines and history lines are its game's;
    what a person wrote, the club's own organiser wrote (or a link of that very game)."""
    from django.db.models import F

    from club.games.models import Change, LedgerEntry, Pile, Round

    games = club.games
    seated = {game: set(players) for game, players in club.seated.items()}
    for r in Round.objects.filter(game__in=games).select_related("declaring_team"):
        players = {r.dealer_id} | ({r.declarer_id} if r.declarer_id is not None else set())
        if not players <= seated[r.game_id]:
            found.crossed.append(f"game {r.game_id} deal {r.number}: a player not seated")
        if r.declaring_team.game_id != r.game_id or r.recorded_by_id not in (None, own):
            found.crossed.append(f"game {r.game_id} deal {r.number}: another game's team or club")
    for model, label in ((Pile, "pile"), (LedgerEntry, "ledger line")):
        strays = model.objects.filter(round__game__in=games).exclude(
            game_team__game_id=F("round__game_id")
        )
        for stray in strays:
            found.crossed.append(f"{label} {stray.pk}: its team is another game's")
    for change in Change.objects.filter(game__in=games).select_related("scorer_link"):
        link = change.scorer_link
        if (link is not None and link.game_id != change.game_id) or change.made_by_id not in (
            None,
            own,
        ):
            found.crossed.append(f"game {change.game_id} history line {change.pk}: from elsewhere")


def _members(club: ClubNight, found: Findings) -> None:
    """The club's members are the players of its games and its registered teams, all of
    them, and no one else (one person plays in both clubs, a member of both)."""
    from club.games.models import Membership
    from club.tournaments.models import TournamentTeam

    seated = set().union(*map(set, club.seated.values()))
    members = set(Membership.objects.filter(club_id=club.pk).values_list("player_id", flat=True))
    registered = TournamentTeam.objects.filter(tournament_id=club.tournament).values_list(
        "team__first_player", "team__second_player"
    )
    played = seated | {pk for pair in registered for pk in pair}
    if not seated <= members:
        found.crossed.append(f"{club.slug}: a player of its games is not its member")
    if members - played:
        found.crossed.append(
            f"{club.slug}: members who never played there {sorted(members - played)}"
        )


def _kept_keys(club: ClubNight, tally: Tally, found: Findings) -> None:
    """The one-time key of each form acknowledged at the club is kept, under its address."""
    from club.games.models import SubmittedForm

    keys = {p.key for p in tally.posts if p.club == club.slug and p.outcome == "recorded"}
    kept = dict(SubmittedForm.objects.filter(key__in=keys).values_list("key", "path"))
    for key, path in kept.items():
        if not path.startswith(club.at("/")):
            found.crossed.append(f"{club.slug}'s form {key} kept under {path}")
    for key in sorted(keys - {str(key) for key in kept}):
        # Its resend would be taken as a new form: written twice.
        found.doubled.append(f"{club.slug}'s form {key}: acknowledged, its key not kept")


def invariants(site: Site, found: Findings) -> None:
    """Piles sum to 56, tables are conserved, ledgers and every derived row equal a replay."""
    from django.db.models import Sum

    from club.games.models import Game, Pile
    from club.ops.synthetic_check import CheckFailed, check_games

    games = [game for club in site.clubs for game in club.games]
    sums = (
        Pile.objects.filter(round__game__in=games).values("round_id").annotate(total=Sum("points"))
    )
    for row in sums:
        if row["total"] != 56:
            found.invariants.append(f"deal {row['round_id']}: piles sum to {row['total']}")
    for game in Game.objects.filter(pk__in=games).prefetch_related("teams"):
        try:
            replayed_game(game, found)
        except Exception as error:  # noqa: BLE001 - a game the services cannot replay
            found.invariants.append(f"game {game.pk}: its deals cannot be replayed ({error!r})")
    for game in games:  # one by one: the first difference of each game
        try:
            check_games([game])
        except CheckFailed as error:
            found.invariants.append(str(error))
        except Exception as error:  # noqa: BLE001
            found.invariants.append(f"game {game}: the services' check failed ({error!r})")


def replayed_game(game, found: Findings) -> None:
    """The game's ledger, transfers and tables against its replay through the rules."""
    _seating, settlements, state, ledger, replayed = ledger_and_replay(game)
    if ledger != replayed:
        found.invariants.append(f"game {game.pk}: its ledger differs from its replay")
    if any(sum(s.transfers.values()) != 0 for s in settlements):
        found.invariants.append(f"game {game.pk}: a deal made or destroyed tables")
    held = [team.tables for team in game.teams.all()]
    if sum(held) != TABLES_PER_TEAM * len(held) or sorted(held) != sorted(state.tables):
        found.invariants.append(f"game {game.pk}: teams hold {held}, the replay {state.tables}")


def check(site: Site, tally: Tally) -> Findings:
    """All of it, on a fresh connection: what the servers committed."""
    from django.db import connection

    connection.close()
    found = Findings()
    deals(site, tally, found)
    rows(site, tally, found)
    invariants(site, found)
    return found
