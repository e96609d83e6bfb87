"""Substitution: who plays for a team tonight (docs/rules.md section E, "Who plays for a team").

The director replaces one of a registered team's players from a sitting on, up to the
tournament's limit a team (one by default, as the 56 International allows in an
emergency). The substitute may not be registered in another team of the event, nor
sit in for another team. The starting player may return from a later sitting.

A team's line-up at a sitting is its registered players with the substitutions
covering that sitting applied, each substitute in the seat of the player replaced.
The games record who sat, so the player boards, ratings and profiles credit each
player with the games they played; the games are the registered team's, so its
standing and its team rating do not depend on who sat.

Only sittings not yet confirmed may change: the games already played keep who sat.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence

from django.db import models, transaction
from django.utils.translation import gettext_lazy, ngettext_lazy

from club.games import services as scoring
from club.games.models import Player, in_a_seat
from club.games.other_clubs import check_same_people
from club.games.people import join
from club.games.starting import typed_names
from club.scoring import names
from club.tournaments.models import (
    Sitting,
    Substitution,
    Tournament,
    TournamentEvent,
    TournamentTeam,
)
from club.tournaments.writes import TournamentError, check_editable, lock, log

# What the director is told when a change of players is refused (formatted where it is
# raised).
LINE_UPS_FINAL = gettext_lazy("The tournament has finished; its line-ups cannot change.")
WITHDRAWN = gettext_lazy("%(team)s has withdrawn; bring it back in before changing its players.")
SITTING_PLAYED = gettext_lazy(
    "Sitting %(number)d has been played; a change of players starts at sitting %(first)d or later."
)
PLAYS_FOR_THE_TEAM = gettext_lazy("%(player)s already plays for %(team)s.")
REGISTERED_ELSEWHERE = gettext_lazy(
    "%(player)s is registered with %(team)s; a substitute may not belong to "
    "another team of the tournament."
)
SITS_IN_ELSEWHERE = gettext_lazy(
    "%(player)s already sits in for %(team)s; a substitute plays for one team."
)
NOT_OF_THE_TEAM = gettext_lazy("%(player)s is not one of the players of %(team)s.")
LIMIT_MADE = ngettext_lazy(
    "%(team)s has made its substitution: this tournament allows %(limit)d a team.",
    "%(team)s has made its substitutions: this tournament allows %(limit)d a team.",
    "limit",
)
NAME_THE_SUBSTITUTE = gettext_lazy("Name the substitute.")
NOT_A_NAME = gettext_lazy("“%(name)s” cannot be a player's name.")
FOR_THEMSELVES = gettext_lazy("%(player)s cannot sit in for themselves.")
REPLACED_ALREADY = gettext_lazy(
    "%(player)s is already replaced by %(substitute)s from sitting %(number)d."
)
SITS_IN_ALREADY = gettext_lazy("%(player)s already sits in for %(other)s from sitting %(number)d.")
BACK_ALREADY = gettext_lazy("%(player)s is back already, from sitting %(number)d.")
BACK_TOO_SOON = gettext_lazy(
    "%(substitute)s sits in from sitting %(first)d: %(player)s can be back from "
    "sitting %(next)d. To cancel the substitution instead, undo it."
)
ANOTHER_BEGINS = gettext_lazy(
    "Another substitution of %(team)s begins at sitting %(number)d: the return must come before it."
)
PLAYED_WITH = gettext_lazy(
    "%(substitute)s has played for %(team)s in sitting %(number)d, and the games "
    "keep who sat. Bring %(player)s back instead."
)


def first_open_sitting(tournament: Tournament) -> int:
    """The first sitting whose line-ups may still change: the first not confirmed."""
    return tournament.sittings.filter(status=Sitting.Status.CONFIRMED).count() + 1


def line_up(
    players: Sequence[Player], substitutions: Iterable[Substitution], number: int
) -> list[Player]:
    """Who sits for a team with registered ``players`` (in seat order) in sitting
    ``number``, given the team's ``substitutions``."""
    seats = list(players)
    for substitution in substitutions:
        if substitution.covers(number):
            seats = [
                substitution.player_in if player.pk == substitution.player_out_id else player
                for player in seats
            ]
    return seats


def of_tournament(tournament: Tournament) -> dict[int, list[Substitution]]:
    """Each registration's substitutions, by registration id, in one query."""
    by_entry: dict[int, list[Substitution]] = defaultdict(list)
    for substitution in Substitution.objects.filter(entry__tournament=tournament).select_related(
        "player_in", "player_out"
    ):
        by_entry[substitution.entry_id].append(substitution)
    return by_entry


def sitting_in(
    tournament: Tournament, players: Iterable[int], *, besides: int | None = None
) -> Substitution | None:
    """A substitution of the tournament that has one of ``players`` (ids) sit in for a
    team other than the registration ``besides``: a player who may then join no other
    team of the tournament, registered or as its substitute."""
    return (
        Substitution.objects.filter(entry__tournament=tournament, player_in__in=players)
        .exclude(entry_id=besides)
        .select_related("player_in", "entry__team")
        .first()
    )


def _note(substitution: Substitution) -> str:
    # Names only: the history composes the rest in the reader's language.
    out, player_in = substitution.player_out.name, substitution.player_in.name
    return f"{substitution.entry.team.name}: {out} → {player_in}"


def _check_open(tournament: Tournament, entry: TournamentTeam) -> None:
    check_editable(tournament)
    if tournament.status == Tournament.Status.FINISHED:
        raise TournamentError(str(LINE_UPS_FINAL))
    if entry.withdrawn_at is not None:
        raise TournamentError(WITHDRAWN % {"team": entry.team.name})


def _check_sitting(tournament: Tournament, number: int, field: str) -> None:
    first = first_open_sitting(tournament)
    if number < first:
        raise TournamentError(
            SITTING_PLAYED % {"number": number, "first": first},
            field=field,
        )


def check_substitute(tournament: Tournament, entry: TournamentTeam, player_in: Player) -> None:
    """Refuse a substitute registered in a team of the event, or sitting in for another."""
    other = tournament.entries.filter(in_a_seat(player_in, "team__")).select_related("team").first()
    if other is not None:
        if other.pk == entry.pk:
            raise TournamentError(
                PLAYS_FOR_THE_TEAM % {"player": player_in.name, "team": other.team.name},
                field="player_in",
            )
        raise TournamentError(
            REGISTERED_ELSEWHERE % {"player": player_in.name, "team": other.team.name},
            field="player_in",
        )
    elsewhere = sitting_in(tournament, [player_in.pk], besides=entry.pk)
    if elsewhere is not None:
        raise TournamentError(
            SITS_IN_ELSEWHERE % {"player": player_in.name, "team": elsewhere.entry.team.name},
            field="player_in",
        )


def _check_plays_for(entry: TournamentTeam, player_out: Player) -> None:
    """Refuse to replace a player who is not one of the team's."""
    if player_out.pk not in entry.team.player_ids:
        raise TournamentError(
            NOT_OF_THE_TEAM % {"player": player_out.name, "team": entry.team.name},
            field="player_out",
        )


def _check_limit(tournament: Tournament, entry: TournamentTeam, made: list[Substitution]) -> None:
    """Refuse a substitution beyond the tournament's limit a team."""
    if len(made) >= tournament.substitutions:
        raise TournamentError(
            LIMIT_MADE % {"team": entry.team.name, "limit": tournament.substitutions},
            field="player_out",
        )


def _longest_name() -> int:
    """The most characters a player's name holds: the max_length of its column (a CharField
    sets one)."""
    field = Player._meta.get_field("name")
    assert isinstance(field, models.CharField) and field.max_length is not None
    return field.max_length


def _substitute_named(
    player_in: str, player_out: Player, club_id: int | None, same_people: Collection[str]
) -> Player:
    """The club's player of the name given (added if new), who is not the player replaced;
    a player of other clubs only if their name key is among ``same_people``."""
    name = " ".join(player_in.split())
    if not name:
        raise TournamentError(str(NAME_THE_SUBSTITUTE), field="player_in")
    if names.unstorable(name) or len(name) > _longest_name():
        raise TournamentError(NOT_A_NAME % {"name": name[:80]}, field="player_in")
    typed = typed_names()
    substitute_player = scoring.find_or_add_player(name, typed)
    if substitute_player.pk == player_out.pk:
        raise TournamentError(FOR_THEMSELVES % {"player": name}, field="player_in")
    check_same_people(
        [substitute_player],
        club_id=club_id,
        same_people=same_people,
        new=typed.added_players,
        field="player_in",
    )
    return substitute_player


def _check_not_away(
    made: list[Substitution], player_out: Player, substitute_player: Player, number: int
) -> None:
    """Refuse a player already replaced from sitting ``number``, or a substitute already
    sitting in for another of the team then."""
    for earlier in made:
        away = earlier.returned_from is None or earlier.returned_from > number
        if earlier.player_out_id == player_out.pk and away:
            raise TournamentError(
                REPLACED_ALREADY
                % {
                    "player": player_out.name,
                    "substitute": earlier.player_in.name,
                    "number": earlier.first_sitting,
                },
                field="player_out",
            )
        if earlier.player_in_id == substitute_player.pk and away:
            raise TournamentError(
                SITS_IN_ALREADY
                % {
                    "player": substitute_player.name,
                    "other": earlier.player_out.name,
                    "number": earlier.first_sitting,
                },
                field="player_in",
            )


@transaction.atomic
def substitute(
    *,
    entry: TournamentTeam,
    player_out: Player,
    player_in: str,
    first_sitting: int | None = None,
    user=None,
    same_people: Collection[str] = (),
) -> Substitution:
    """``player_in`` (a name; a new player is added to the club) sits for ``player_out``
    of ``entry`` from ``first_sitting`` (by default the next sitting to be played) on.

    A player of other clubs only is refused unless their name key is among
    ``same_people`` (:class:`~club.games.other_clubs.PlayersOfOtherClubs`)."""
    tournament = lock(entry.tournament)
    entry = TournamentTeam.objects.select_related("team", "tournament").get(pk=entry.pk)
    _check_open(tournament, entry)
    number = first_open_sitting(tournament) if first_sitting is None else first_sitting
    _check_sitting(tournament, number, "first_sitting")
    _check_plays_for(entry, player_out)
    made = list(entry.substitutions.select_related("player_in", "player_out"))
    _check_limit(tournament, entry, made)
    substitute_player = _substitute_named(player_in, player_out, tournament.club_id, same_people)
    check_substitute(tournament, entry, substitute_player)
    _check_not_away(made, player_out, substitute_player, number)
    substitution = Substitution.objects.create(
        entry=entry,
        player_out=player_out,
        player_in=substitute_player,
        first_sitting=number,
        made_by=user if user is not None and user.is_authenticated else None,
    )
    join(tournament.club_id, [substitute_player.pk])  # plays here: one of the club's
    log(
        tournament,
        TournamentEvent.Action.SUBSTITUTED,
        user,
        note=_note(substitution),
        sitting_number=number,
    )
    return substitution


def _locked(substitution: Substitution) -> tuple[Tournament, Substitution]:
    tournament = lock(substitution.entry.tournament)
    substitution = Substitution.objects.select_related(
        "entry__team", "entry__tournament", "player_in", "player_out"
    ).get(pk=substitution.pk)
    _check_open(tournament, substitution.entry)
    return tournament, substitution


@transaction.atomic
def bring_back(
    *, substitution: Substitution, returned_from: int | None = None, user=None
) -> Substitution:
    """The starting player sits again from ``returned_from`` (by default the next sitting
    to be played); the substitute sits out from then on."""
    tournament, substitution = _locked(substitution)
    first = first_open_sitting(tournament)
    if substitution.returned_from is not None and substitution.returned_from < first:
        raise TournamentError(
            BACK_ALREADY
            % {"player": substitution.player_out.name, "number": substitution.returned_from}
        )
    # A return not yet played may be moved, when the sitting was given by mistake.
    number = first if returned_from is None else returned_from
    _check_sitting(tournament, number, "returned_from")
    if number <= substitution.first_sitting:
        raise TournamentError(
            BACK_TOO_SOON
            % {
                "substitute": substitution.player_in.name,
                "first": substitution.first_sitting,
                "player": substitution.player_out.name,
                "next": substitution.first_sitting + 1,
            },
            field="returned_from",
        )
    later = (
        Substitution.objects.filter(entry=substitution.entry, first_sitting__lt=number)
        .filter(first_sitting__gt=substitution.first_sitting)
        .filter(
            models.Q(player_out=substitution.player_out)
            | models.Q(player_in=substitution.player_in)
        )
        .first()
    )
    if later is not None:
        raise TournamentError(
            ANOTHER_BEGINS % {"team": substitution.entry.team.name, "number": later.first_sitting},
            field="returned_from",
        )
    substitution.returned_from = number
    substitution.save(update_fields=["returned_from"])
    log(
        tournament,
        TournamentEvent.Action.RETURNED,
        user,
        note=_note(substitution),
        sitting_number=number,
    )
    return substitution


@transaction.atomic
def undo(*, substitution: Substitution, user=None) -> None:
    """Take back a substitution no game has been played with yet (made by mistake)."""
    tournament, substitution = _locked(substitution)
    first = first_open_sitting(tournament)
    if substitution.first_sitting < first:
        raise TournamentError(
            PLAYED_WITH
            % {
                "substitute": substitution.player_in.name,
                "team": substitution.entry.team.name,
                "number": substitution.first_sitting,
                "player": substitution.player_out.name,
            }
        )
    log(
        tournament,
        TournamentEvent.Action.SUBSTITUTION_UNDONE,
        user,
        note=_note(substitution),
        sitting_number=substitution.first_sitting,
    )
    substitution.delete()


Row = tuple[TournamentTeam, Player, Player, int, int | None]


def import_substitutions(*, rows: Sequence[Row]) -> None:
    """An archive's substitutions, checked by its reader: (registration, out, in, first
    sitting, the sitting the starter is back from or None)."""
    Substitution.objects.bulk_create(
        Substitution(
            entry=entry,
            player_out=out,
            player_in=player_in,
            first_sitting=first,
            returned_from=back,
        )
        for entry, out, player_in, first, back in rows
    )
