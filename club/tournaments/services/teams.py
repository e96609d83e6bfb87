"""A tournament's teams: registered (one or a pasted list), edited, withdrawn, reinstated.

A team is the club's team of its players (found or added); the tournament
refuses a team of the wrong size, a player named twice, a team or a player
registered already, and a team of the name of one registered.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext_lazy, ngettext_lazy

from club.games import services as scoring
from club.games.models import PLAYER_FIELDS, GameTeam, Team, in_a_seat
from club.games.other_clubs import OtherClubs, PlayersOfOtherClubs, check_same_people
from club.games.people import join
from club.games.starting import typed_names
from club.scoring import names
from club.tournaments import substitutions
from club.tournaments.captains import TEAM_PLAYERS, captain_of, set_captain
from club.tournaments.models import Sitting, Tournament, TournamentEvent, TournamentTeam
from club.tournaments.services.standings import rebuild_locked
from club.tournaments.writes import TournamentError, check_editable, lock, log

# What the organiser is told when a team is refused (formatted where it is raised).
TEAM_OF_TWO = gettext_lazy("A team of this tournament is two players.")
TEAM_OF_THREE = gettext_lazy("A team of this tournament is three players.")
TEAM_OF_FOUR = gettext_lazy("A team of this tournament is four players.")
TEAM_NEEDS_TWO = gettext_lazy("A team needs two players.")
OWN_PARTNER = gettext_lazy("%(player)s cannot partner themselves.")
REGISTERED_ALREADY = gettext_lazy("%(team)s is already registered for this tournament.")
NAME_REGISTERED = gettext_lazy(
    "A team called %(team)s (%(players)s) is registered for this tournament "
    "already; give this team another name."
)
PLAYS_FOR_ANOTHER = gettext_lazy("%(player)s already plays for %(team)s in this tournament.")
NO_MORE_TEAMS = gettext_lazy("The tournament has finished; no more teams can join.")
LINES_REFUSED = ngettext_lazy(
    "%(count)d line was refused; no team of the list was registered.",
    "%(count)d lines were refused; no team of the list was registered.",
    "count",
)
HAS_PLAYED = gettext_lazy("%(team)s has played in this tournament already; its team cannot change.")
HAS_A_SUBSTITUTION = gettext_lazy(
    "%(team)s has a substitution: undo it before changing the team's players."
)
IN_A_DRAW = gettext_lazy(
    "%(team)s is in the draw of %(sitting)s: adjust or discard the draw before withdrawing it."
)


def team_size_words(size: int) -> str:
    """What a team of the tournament is, for a refusal (two, three or four players)."""
    return str({2: TEAM_OF_TWO, 3: TEAM_OF_THREE, 4: TEAM_OF_FOUR}[size])


def _seated(tournament: Tournament, players: Sequence[str]) -> list[str]:
    """The players named, spaces tidied: as many as the tournament's teams have, no one twice."""
    given = [" ".join(player.split()) for player in players]
    given += [""] * (4 - len(given))
    size = tournament.team_size
    if any(given[size:]) or not all(given[:size]):
        if size == 2 and not any(given[2:]):
            raise TournamentError(str(TEAM_NEEDS_TWO), field="team")
        raise TournamentError(team_size_words(size), field="team")
    players = given[:size]
    for at, player in enumerate(players):
        if any(player.lower() == other.lower() for other in players[:at]):
            raise TournamentError(OWN_PARTNER % {"player": player}, field="team")
    return players


def team_entry(players: Sequence[str], name: str, *, team: Team | None = None) -> scoring.TeamEntry:
    """A new game's team: ``players`` in seat order (two, three or four; a seat past the
    team's size stays empty) under ``name``; ``team``: the registered team it plays for."""
    first, second, third, fourth = list(players) + [""] * (4 - len(players))
    return scoring.TeamEntry(first, second, name, third, fourth, team=team)


def _check_team_free(others, team) -> None:
    """Refuse a team registered already, or one of the name of a team registered."""
    if others.filter(team=team).exists():
        raise TournamentError(
            REGISTERED_ALREADY % {"team": team.name},
            field="team",
        )
    namesake = others.filter(team__name__iexact=team.name).select_related(
        *(f"team__{seat}" for seat in PLAYER_FIELDS)
    )
    for other in namesake[:1]:
        raise TournamentError(
            NAME_REGISTERED
            % {"team": other.team.name, "players": " & ".join(p.name for p in other.team.players)},
            field="team",
        )


def _check_players_free(tournament: Tournament, others, team, entry) -> None:
    """Refuse a player who plays for another team of the tournament, registered or as
    its substitute."""
    clash = (
        others.filter(in_a_seat(team.player_ids, "team__", lookup="__in"))
        .select_related(*(f"team__{seat}" for seat in PLAYER_FIELDS))
        .first()
    )
    if clash is not None:
        player = next(p for p in clash.team.players if p.pk in team.player_ids)
        raise TournamentError(
            PLAYS_FOR_ANOTHER % {"player": player.name, "team": clash.team.name},
            field="team",
        )
    sits_in = substitutions.sitting_in(
        tournament, team.player_ids, besides=entry.pk if entry is not None else None
    )
    if sits_in is not None:
        raise TournamentError(
            PLAYS_FOR_ANOTHER % {"player": sits_in.player_in.name, "team": sits_in.entry.team.name},
            field="team",
        )


def _team_of(
    tournament: Tournament,
    players: Sequence[str],
    name: str,
    *,
    entry=None,
    known=None,
    same_people: Collection[str] = (),
):
    """The club's team of these players (found or added), checked for the tournament.

    Refused: a team of the wrong size, a player named twice, a team or player
    already registered, a team of the name of one registered (``entry``, when editing,
    is the registration to leave out), a player of other clubs only whose name key is not
    among ``same_people`` (:class:`~club.games.other_clubs.PlayersOfOtherClubs`).
    ``known``: an import's players and teams (club.games.starting.KnownNames), its listed
    players matched already (by the file's who's who, club.games.whos_who).
    """
    players = _seated(tournament, players)
    typed = known if known is not None else typed_names()
    found = [scoring.find_or_add_player(player, typed) for player in players]
    if known is None:
        check_same_people(
            found,
            club_id=tournament.club_id,
            same_people=same_people,
            new=typed.added_players,
            field="team",
        )
    try:
        team = scoring.find_or_add_team(team_entry(players, name), *found, known=known)
    except scoring.ScoringError as error:
        raise TournamentError(error.message, field="team") from error
    others = TournamentTeam.objects.filter(tournament=tournament)
    if entry is not None:
        others = others.exclude(pk=entry.pk)
    _check_team_free(others, team)
    _check_players_free(tournament, others, team, entry)
    return team


def _open_for_teams(tournament: Tournament) -> Tournament:
    """The tournament, locked, while teams may still join or change."""
    tournament = lock(tournament)
    check_editable(tournament)
    if tournament.status == Tournament.Status.FINISHED:
        raise TournamentError(str(NO_MORE_TEAMS))
    return tournament


@transaction.atomic
def register_team(
    *,
    tournament: Tournament,
    first: str,
    second: str,
    name: str = "",
    third: str = "",
    fourth: str = "",
    captain: str = "",
    user=None,
    known=None,
    same_people: Collection[str] = (),
) -> TournamentTeam:
    """Register a team of the tournament's size (two, three or four players, in seat order),
    with its captain (one of them; the first named if none is).

    Refused if the team or any of its players is already registered, or a team of its
    name; a player of other clubs only unless their name key is among ``same_people``.
    ``known``: an import's players and teams (club.games.starting.KnownNames).
    """
    tournament = _open_for_teams(tournament)
    team = _team_of(
        tournament, (first, second, third, fourth), name, known=known, same_people=same_people
    )
    registered = TournamentTeam.objects.create(
        tournament=tournament, team=team, captain=captain_of(team, captain)
    )
    join(tournament.club_id, team.player_ids)  # registered here: the club's players
    log(tournament, TournamentEvent.Action.REGISTERED, user, note=team.name)
    rebuild_locked(tournament)
    return registered


@dataclass(frozen=True)
class TeamLine:
    """One team of a pasted list: its line number, players in seat order, name (optional)."""

    line: int
    players: tuple[str, ...]
    name: str = ""
    captain: str = ""  # one of the players; the first if none


class RegistrationErrors(TournamentError):
    """Some lines of a list of teams were refused: nothing of the list was stored.
    ``others``: the players of other clubs the lines named, not confirmed as the same."""

    def __init__(self, errors: list[tuple[int, str]], others: Sequence[OtherClubs] = ()):
        self.errors = errors  # (line number, the reason in the club's words)
        self.others = tuple(others)
        super().__init__(LINES_REFUSED % {"count": len(errors)})


@transaction.atomic
def register_teams(
    *,
    tournament: Tournament,
    teams: Sequence[TeamLine],
    user=None,
    same_people: Collection[str] = (),
) -> list[TournamentTeam]:
    """Register a whole list of teams, or none of it: every refused line is reported. A
    player of other clubs only is refused unless their name key is among ``same_people``."""
    tournament = _open_for_teams(tournament)
    errors: list[tuple[int, str]] = []
    others: list[OtherClubs] = []
    registered = []
    for line in teams:
        try:
            with transaction.atomic():  # a refused line leaves nothing behind
                team = _team_of(tournament, line.players, line.name, same_people=same_people)
                captain = captain_of(team, line.captain)
                registered.append(
                    TournamentTeam.objects.create(tournament=tournament, team=team, captain=captain)
                )
        except PlayersOfOtherClubs as refusal:
            errors.append((line.line, refusal.message))
            others.extend(refusal.others)
        except TournamentError as error:
            errors.append((line.line, error.message))
    if errors:
        raise RegistrationErrors(errors, others)  # the outer transaction undoes the lines stored
    join(tournament.club_id, {pk for entry in registered for pk in entry.team.player_ids})
    for entry in registered:
        log(tournament, TournamentEvent.Action.REGISTERED, user, note=entry.team.name)
    rebuild_locked(tournament)
    return registered


def _has_played(entry: TournamentTeam) -> bool:
    """Whether the registered team has a game in the tournament."""
    return GameTeam.objects.filter(
        team_id=entry.team_id, game__sitting_entry__sitting__tournament_id=entry.tournament_id
    ).exists()


def _in_pending_draw(entry: TournamentTeam) -> Sitting | None:
    """The proposed sitting whose draw seats the team, or gives it a bye; else None."""
    pending = entry.tournament.sittings.filter(status=Sitting.Status.PROPOSED).first()
    if pending is not None and (
        any(entry.pk in game for game in pending.proposal) or entry.pk in pending.proposed_byes
    ):
        return pending
    return None


@transaction.atomic
def edit_team(
    *,
    entry: TournamentTeam,
    players: Sequence[str],
    name: str = "",
    captain: str = "",
    user=None,
    same_people: Collection[str] = (),
) -> TournamentTeam:
    """Change a registered team's name or players, before it has played a game here; and its
    captain, at any time until the results are final (:func:`set_captain`). A player of
    other clubs only is refused unless their name key is among ``same_people``."""
    entry = TournamentTeam.objects.select_related("team", *TEAM_PLAYERS).get(pk=entry.pk)
    now = [player.name for player in entry.team.players]
    name = " ".join(name.split())
    same_name = name.lower() == entry.team.name.lower() or (
        not name and entry.team.name == names.default_team_name(now)
    )
    typed = [" ".join(player.split()).lower() for player in players if player.strip()]
    if same_name and typed == [player.lower() for player in now]:  # the captain alone
        return set_captain(entry=entry, captain=captain or entry.team.first_player.name, user=user)
    tournament = _open_for_teams(entry.tournament)
    if _has_played(entry):
        raise TournamentError(HAS_PLAYED % {"team": entry.team.name})
    before = entry.team.name
    team = _team_of(tournament, players, name, entry=entry, same_people=same_people)
    if team.pk != entry.team_id and entry.substitutions.exists():
        raise TournamentError(HAS_A_SUBSTITUTION % {"team": before})
    chosen = captain_of(team, captain)
    if team.pk != entry.team_id:
        entry.team, entry.captain = team, chosen
        entry.save(update_fields=["team", "captain"])
        join(tournament.club_id, team.player_ids)
        log(tournament, TournamentEvent.Action.EDITED, user, note=f"{before} → {team.name}")
        rebuild_locked(tournament)
    elif chosen.pk != entry.captain_id:
        set_captain(entry=entry, captain=chosen.name, user=user)
    return entry


@transaction.atomic
def withdraw_team(*, entry: TournamentTeam, user=None) -> TournamentTeam:
    """The team gets no new games from now on; its results stay in the standings."""
    tournament = lock(entry.tournament)
    check_editable(tournament)
    entry = TournamentTeam.objects.select_related("team").get(pk=entry.pk)
    if entry.withdrawn_at is not None:
        return entry
    pending = _in_pending_draw(entry)
    if pending is not None:
        raise TournamentError(IN_A_DRAW % {"team": entry.team.name, "sitting": pending})
    entry.withdrawn_at = timezone.now()
    entry.save(update_fields=["withdrawn_at"])
    log(tournament, TournamentEvent.Action.WITHDRAWN, user, note=entry.team.name)
    Tournament.objects.filter(pk=tournament.pk).update(results_version=F("results_version") + 1)
    return entry


@transaction.atomic
def reinstate_team(*, entry: TournamentTeam, user=None) -> TournamentTeam:
    """A withdrawn team back in: the next draws pair it again."""
    tournament = _open_for_teams(entry.tournament)
    entry = TournamentTeam.objects.select_related("team").get(pk=entry.pk)
    if entry.withdrawn_at is None:
        return entry
    entry.withdrawn_at = None
    entry.save(update_fields=["withdrawn_at"])
    log(tournament, TournamentEvent.Action.REINSTATED, user, note=entry.team.name)
    Tournament.objects.filter(pk=tournament.pk).update(results_version=F("results_version") + 1)
    return entry
