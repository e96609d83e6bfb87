"""A name typed at a club that is another club's player: the same person only when the
organiser says so.

Players are the site's (club.games.people): the name "Anu" is one person on the whole
site. Typed at a club where no Anu plays, it would find the Anu of another club and make
her this club's, her rating moved by games she never played. So a name typed by hand
(a new game, a tournament's team or substitute, the register) that is the player of
other clubs only, not of this one, is refused until the organiser says it is the same
person: its name key among ``same_people`` (the form's tick, "The same Anu"). Otherwise
the organiser gives this player a name of their own.

Taken without a question, as before: a player of this club, a name nobody has (a new
player), and a player of no club at all (nobody's yet). A site of one club never asks.
The results files decide the same question their own way (club.games.whos_who: a
*clash*), and a tournament's drawn games seat the players its registration took.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable
from dataclasses import dataclass

from django.db import connection
from django.utils.translation import gettext_lazy

from club.clubs import known
from club.games.errors import ScoringError
from club.games.people import Membership, Player
from club.games.whos_who import name_key

# The refusal, on the field where the name was typed; "tick" is SAME_PERSON's words.
PLAYS_ELSEWHERE = gettext_lazy(
    "%(name)s plays at %(clubs)s, not at this club. If it is the same person, tick "
    "“%(tick)s”; if not, give this player a name of their own (with an initial or a "
    "surname, say)."
)
# The tick box that says so.
SAME_PERSON = gettext_lazy("The same %(name)s")


@dataclass(frozen=True)
class OtherClubs:
    """A player typed at a club they do not play in, and the clubs they play at (names)."""

    player: Player
    clubs: tuple[str, ...]

    @property
    def key(self) -> str:
        """The name key a confirmation gives (club.games.whos_who.name_key)."""
        return name_key(self.player.name)

    @property
    def tick(self) -> str:
        """The words of the tick box that confirms it is the same person."""
        return SAME_PERSON % {"name": self.player.name}

    @property
    def message(self) -> str:
        return PLAYS_ELSEWHERE % {
            "name": self.player.name,
            "clubs": ", ".join(self.clubs),
            "tick": self.tick,
        }


class PlayersOfOtherClubs(ScoringError):
    """Names typed at a club that are players of other clubs, not confirmed as the same
    people: nothing was saved. ``others``: each of them, for the form to ask."""

    def __init__(self, others: Iterable[OtherClubs], *, field: str | None = None):
        self.others = tuple(others)
        super().__init__(" ".join(other.message for other in self.others), field=field)


def same_people_keys(values: Iterable[str]) -> frozenset[str]:
    """The name keys of the names confirmed as the same people (spacing and capitals as
    the organiser's form sent them)."""
    return frozenset(name_key(value) for value in values if value.strip())


def check_same_people(
    players: Iterable[Player],
    *,
    club_id: int | None,
    same_people: Collection[str] = (),
    new: Collection[int] = (),
    field: str | None = None,
) -> None:
    """Refuse the players typed at club ``club_id`` (None: the home club) who play at other
    clubs and not at this one, unless their name key is among ``same_people``; ``new``: the
    ids of players just
    added (nobody's yet: not looked up). Call it inside the write's transaction, before the
    players join the club: it reads the memberships as they are now."""
    confirmed = same_people_keys(same_people)
    others = [
        other
        for other in of_other_clubs(players, club_id=club_id, new=new)
        if other.key not in confirmed
    ]
    if others:
        raise PlayersOfOtherClubs(others, field=field)


def of_other_clubs(
    players: Iterable[Player], *, club_id: int | None, new: Collection[int] = ()
) -> list[OtherClubs]:
    """The players who play at other clubs and not at ``club_id`` (None: the home club),
    with those clubs' names (one query; none on a site of one club)."""
    if not known.clubs().several:
        return []
    if club_id is None:
        club_id = known.home_id()
    wanted = {player.pk: player for player in players if player.pk not in new}
    if not wanted:
        return []
    clubs = _clubs_of(wanted)
    nobodys = sorted(pk for pk in wanted if not clubs[pk])
    if nobodys and connection.features.has_select_for_update:
        # A player of no club is taken as nobody's: locked, so that another club taking
        # them at this moment waits for this write and then asks, and read again, in case
        # that club took them first.
        list(Player.objects.select_for_update().filter(pk__in=nobodys).values_list("pk"))
        clubs.update(_clubs_of(nobodys))
    return [
        OtherClubs(wanted[pk], tuple(_club_names(ids)))
        for pk, ids in clubs.items()
        if ids and club_id not in ids
    ]


def _clubs_of(players: Iterable[int]) -> defaultdict[int, set[int]]:
    """The clubs each of ``players`` (ids) plays at."""
    ids = list(players)
    clubs: defaultdict[int, set[int]] = defaultdict(set)
    for pk in ids:
        clubs[pk] = set()
    rows = Membership.objects.filter(player_id__in=ids).values_list("player_id", "club_id")
    for player_id, club_id in rows:
        clubs[player_id].add(club_id)
    return clubs


def _club_names(ids: set[int]) -> list[str]:
    """The clubs' names, in order (a club another process has just added is read again)."""
    clubs = known.named(ids)
    if len(clubs) < len(ids):
        known.forget()
        clubs = known.named(ids)
    return [club.name for club in clubs]
