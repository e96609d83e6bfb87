"""Merging two records of one person: every seat, team, declaration and deal of the
folded record moves to the one kept, unless the two are plainly two people. On a club's
page both must be the club's players; the kept record becomes a player of every club the
folded one was."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy

from club.clubs.models import Club
from club.games.models import (
    PLAYER_FIELDS,
    Game,
    GameTeam,
    Membership,
    PendingDeal,
    Player,
    PlayerAlias,
    RejectedDeal,
    Round,
    Team,
    in_a_seat,
)
from club.leaderboards import figures
from club.leaderboards.services.owed_work import catch_up
from club.leaderboards.services.ratings import rebuild_ratings
from club.leaderboards.services.register import SHARED_PLAYER, RegisterError
from club.tournaments.models import Substitution, TournamentTeam

# What a refusal says.
TWO_DIFFERENT_PLAYERS = gettext_lazy("Choose two different players to merge.")
PLAYER_GONE = gettext_lazy("One of these players no longer exists.")
NOT_THE_CLUBS = gettext_lazy(
    "%(name)s is not one of the club's players; only two of the club's players can be merged here."
)
PARTNERS = gettext_lazy("%(keep)s and %(fold)s are partners in a team, so they are two people.")
SAT_AT_ONE_GAME = gettext_lazy(
    "%(keep)s and %(fold)s both sat at the game “%(game)s”, so they are two people."
)
TWO_TEAMS_OF_A_TOURNAMENT = gettext_lazy(
    "%(keep)s and %(fold)s play in different teams of the tournament “%(tournament)s”; "
    "one player cannot be in two teams of a tournament."
)
SUBSTITUTE_FOR_TWO_SIDES = gettext_lazy(
    "%(keep)s and %(fold)s both play in the tournament “%(tournament)s”, one "
    "of them as a substitute; one player cannot play for two sides."
)


@dataclass(frozen=True)
class MergeResult:
    kept: Player
    folded_name: str
    games: int  # games the folded record had played


def _refuse_partners(keep: Player, fold: Player) -> None:
    """Refuse two players who are partners in a team."""
    if any({keep.pk, fold.pk} <= team.player_ids for team in Team.objects.filter(in_a_seat(keep))):
        raise RegisterError(PARTNERS % {"keep": keep.name, "fold": fold.name}, field="fold")


def _refuse_one_game(keep: Player, fold: Player) -> None:
    """Refuse two players who sat at one game, as partners or as opponents: one person
    cannot have sat twice."""
    seats = GameTeam.objects.filter(in_a_seat([keep.pk, fold.pk], lookup="__in")).values_list(
        "game_id", "game__label", *(f"{name}_id" for name in PLAYER_FIELDS)
    )
    who_at: dict[int, set[int]] = defaultdict(set)
    labels: dict[int, str] = {}
    for game_id, label, *players in seats:
        who_at[game_id] |= set(players) & {keep.pk, fold.pk}
        labels[game_id] = label
    shared = sorted(labels[game] for game, who in who_at.items() if len(who) == 2)
    if shared:
        raise RegisterError(
            SAT_AT_ONE_GAME % {"keep": keep.name, "fold": fold.name, "game": shared[0]},
            field="fold",
        )


def _refuse_two_teams(keep: Player, fold: Player) -> None:
    """Refuse two players in different teams of one tournament: a player may be in one
    team only of each."""
    pair = [keep.pk, fold.pk]
    entries = TournamentTeam.objects.filter(in_a_seat(pair, "team__", lookup="__in")).values_list(
        "tournament_id", "tournament__name", "team_id"
    )
    teams_in: dict[int, set[int]] = defaultdict(set)
    names: dict[int, str] = {}
    for tournament, name, team in entries:
        teams_in[tournament].add(team)
        names[tournament] = name
    clash = sorted(names[t] for t, teams in teams_in.items() if len(teams) > 1)
    if clash:
        raise RegisterError(
            TWO_TEAMS_OF_A_TOURNAMENT
            % {"keep": keep.name, "fold": fold.name, "tournament": clash[0]},
            field="fold",
        )


def _refuse_two_sides(keep: Player, fold: Player) -> None:
    """Refuse a substitute of a tournament in which the other also plays (registered, or
    sitting in): they would play for two sides, or sit in for themselves."""
    pair = [keep.pk, fold.pk]
    subbed = Substitution.objects.filter(
        Q(player_in__in=pair) | Q(player_out__in=pair)
    ).values_list("entry__tournament_id", "entry__tournament__name")
    for tournament, name in subbed:
        plays = {
            pk
            for pk in pair
            if TournamentTeam.objects.filter(tournament_id=tournament)
            .filter(in_a_seat(pk, "team__") | Q(substitutions__player_in_id=pk))
            .exists()
        }
        if len(plays) == 2:
            raise RegisterError(
                SUBSTITUTE_FOR_TWO_SIDES
                % {"keep": keep.name, "fold": fold.name, "tournament": name},
                field="fold",
            )


def _refuse_merge(keep: Player, fold: Player) -> None:
    """Refuse a merge of a record with itself, or of two records that are plainly two people."""
    if keep.pk == fold.pk:
        raise RegisterError(str(TWO_DIFFERENT_PLAYERS), field="fold")
    _refuse_partners(keep, fold)
    _refuse_one_game(keep, fold)
    _refuse_two_teams(keep, fold)
    _refuse_two_sides(keep, fold)


def _move_everything(keep: Player, fold: Player) -> None:
    """Give ``keep`` every seat, team, declaration, deal, captaincy, substitution and
    identifier of ``fold``."""
    # The games the folded record sat at change who sits there: their version moves, so
    # their pages are drawn again and a deal form read before the merge is read again.
    Game.objects.filter(pk__in=GameTeam.objects.filter(in_a_seat(fold)).values("game_id")).update(
        updated_at=timezone.now()
    )
    for name in PLAYER_FIELDS:
        Team.objects.filter(**{name: fold}).update(**{name: keep})
        GameTeam.objects.filter(**{name: fold}).update(**{name: keep})
    Round.objects.filter(declarer=fold).update(declarer=keep)
    Round.objects.filter(dealer=fold).update(dealer=keep)
    # A team's captain is the same person under the name kept.
    TournamentTeam.objects.filter(captain=fold).update(captain=keep)
    Substitution.objects.filter(player_in=fold).update(player_in=keep)
    Substitution.objects.filter(player_out=fold).update(player_out=keep)
    # A deal waiting for confirmation, or rejected and kept for its phone, names its
    # declarer (or thani) by id: each entry of it names the player kept.
    for stored in [*PendingDeal.objects.all(), *RejectedDeal.objects.all()]:
        fields = [field for field in ("entry", "counter_entry") if hasattr(stored, field)]
        changed = [field for field in fields if _renamed(getattr(stored, field), fold, keep)]
        if changed:
            stored.save(update_fields=changed)

    # The folded record's identifiers stay the person's: a later file with one of them
    # finds the player kept.
    PlayerAlias.objects.filter(player=fold).update(player=keep)
    PlayerAlias.objects.create(identifier=fold.identifier, player=keep)
    # The person stays a player of every club the folded record was (its own memberships
    # go with it when it is deleted).
    clubs = Membership.objects.filter(player=fold).values_list("club_id", flat=True)
    Membership.objects.bulk_create(
        [Membership(club_id=club, player=keep) for club in clubs], ignore_conflicts=True
    )


def _renamed(entry: dict | None, fold: Player, keep: Player) -> bool:
    """Name ``keep`` where a stored deal's entry names ``fold``; whether it did."""
    found = False
    for key in ("declarer", "thani"):
        if entry is not None and entry.get(key) == fold.pk:
            entry[key] = keep.pk
            found = True
    return found


def _fold_away(keep: Player, fold: Player) -> None:
    """Delete the folded record; the kept one takes its nickname or member number where it
    has none (after the delete, as a member number is one player's)."""
    nickname = keep.nickname or fold.nickname
    member_number = keep.member_number or fold.member_number
    fold.delete()  # its ratings go with it; the rebuild after the merge gives them to keep
    if (nickname, member_number) != (keep.nickname, keep.member_number):
        keep.nickname, keep.member_number = nickname, member_number
        keep.save(update_fields=["nickname", "member_number"])


def _refuse_others(club: Club, keep: Player, fold: Player, administrator: bool) -> None:
    """Refuse a player who is not one of ``club``'s (``the_clubs``: read as they were
    locked), or, but for a site administrator, who is also another club's (``elsewhere``):
    a merge changes them in every club."""
    for player, field in ((keep, "keep"), (fold, "fold")):
        if not getattr(player, "the_clubs", False):
            raise RegisterError(NOT_THE_CLUBS % {"name": player.name}, field=field)
        if not administrator and getattr(player, "elsewhere", False):
            raise RegisterError(SHARED_PLAYER % {"name": player.name}, field=field)


@transaction.atomic
def merge_players(
    *, keep: Player, fold: Player, club: Club | None = None, administrator: bool = False
) -> MergeResult:
    """Fold ``fold`` into ``keep``: every seat, team, declaration and deal moves to ``keep``.

    Refused when the two were partners or sat at the same game (they are two
    people then), or play in different teams of one tournament, and, with a
    ``club`` (a club's page), when either is not one of its players. ``keep``
    keeps its name and identifier, and ``fold``'s identifiers become earlier ones of
    ``keep``; its empty nickname or member number is taken from
    ``fold``. Teams keep their names, so a pair that now has two teams keeps
    both; ``keep`` becomes a player of every club ``fold`` was. Ratings are rebuilt
    afterwards.
    """
    catch_up()  # the boards first owe nothing: the merge recounts from what they hold
    # Lock both in a fixed order so two merges of the same pair cannot deadlock.
    players = Player.objects.select_for_update().filter(pk__in=[keep.pk, fold.pk])
    if club is not None:
        players = players.annotate(
            the_clubs=Exists(Membership.objects.filter(club=club, player=OuterRef("pk"))),
            elsewhere=Exists(Membership.objects.filter(player=OuterRef("pk")).exclude(club=club)),
        )
    locked = {p.pk: p for p in players}
    if keep.pk == fold.pk:
        raise RegisterError(str(TWO_DIFFERENT_PLAYERS), field="fold")
    if keep.pk not in locked or fold.pk not in locked:
        raise RegisterError(str(PLAYER_GONE), field="fold")
    keep, fold = locked[keep.pk], locked[fold.pk]
    if club is not None:
        _refuse_others(club, keep, fold, administrator)
    _refuse_merge(keep, fold)

    games = GameTeam.objects.filter(in_a_seat(fold)).count()
    _move_everything(keep, fold)
    folded_name = fold.name
    _fold_away(keep, fold)
    figures.refresh_sides([keep.pk])
    rebuild_ratings()
    return MergeResult(kept=keep, folded_name=folded_name, games=games)
