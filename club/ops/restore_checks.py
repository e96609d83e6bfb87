"""What a restore checks of a backup nothing proves: its logins' rights, and its results.

A signed backup is trusted: its signature proves this server wrote it, so its
results and logins are restored as stored (``club.ops.restore``). A file whose
signature does not verify, or that has none, proves nothing: whoever could
edit it could have given a team tables it never won or a login the admin's
rights, and recomputed every checksum. Such a file is checked as the results
import checks a file (``club.archive.parse_games``):

- its logins with organiser or admin rights (staff, superuser, or an organiser
  of one of its clubs) are listed before anything is written
  (``privileged_accounts``), and a login given groups or single permissions,
  which no backup holds, is refused;
- every game is replayed from its deals by the rules (``game_problems``), as
  the deal services replay it: its teams' tables conserved, each deal's piles
  adding up to 56 and valid under the game's rules, each deal's settlement
  (dealer, declaring team, made), its ledger, its teams' tables, points,
  places and the deal each went out in, and the game's status, winner, deals
  played and next dealer all equal to the replay's;
- every tournament's standings are derived again from its games
  (``standing_problems``, through ``rebuild_standings``) and compared with the
  file's, as the import compares a file's standings with its games.

The checks read the rows the restore has written inside its transaction, so
any problem they name rolls the whole restore back. They return what is wrong
(which game, deal and team, what the file says and what the rules give) rather
than stop at the first fault, so that a damaged file can be mended in one go.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Generator, Iterator, Sequence
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Count
from django.utils import formats, timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from club.competitions.models import Competition
from club.competitions.services import CompetitionError, Terms, check_terms
from club.games import services
from club.games.models import PLAYER_FIELDS, Game, GameTeam, LedgerEntry, Pile, Player, Round
from club.ops.backup_format import column
from club.scoring import rules as core
from club.scoring import standings as ranking
from club.scoring.standings import StandingsError
from club.tournaments.models import STANDING_FIGURES, Standing, Tournament, TournamentTeam
from club.tournaments.services import (
    game_results,
    rebuild_standings,
    scheme_of,
    standing_figures,
)

# --- logins ------------------------------------------------------------------------

# Rights a login may hold that a backup writes: organisers are staff accounts.
RIGHTS = ("is_staff", "is_superuser")
# Rights no backup holds (it writes neither groups nor single permissions).
NEVER_BACKED_UP = ("groups", "user_permissions")
FLAG = "--with-organisers"


def _holds(name: str, value: object) -> bool:
    """Whether the file's ``value`` gives the right, read as the restore would store it."""
    if value is None:  # no such column: the restore refuses the row
        return False
    try:
        return bool(column(get_user_model(), name).to_python(value))
    except ValidationError:
        return True  # not a yes or no: the restore refuses the row, but name it here


def _listed(value: object) -> str:
    return ", ".join(map(str, value)) if isinstance(value, list) else str(value)


def _rows(tables: object, key: str) -> list[dict]:
    """The rows of the file's table ``key`` that are rows at all (the table checks that
    follow refuse the rest)."""
    rows = tables.get(key) if isinstance(tables, dict) else None
    return [row for row in rows if isinstance(row, dict)] if isinstance(rows, list) else []


def _clubs_organised(tables: object) -> dict[str, list[str]]:
    """{user name: ["organiser of <club>", ...]}: the clubs the file makes each login organise.

    A club's organiser writes in it (club.web.auth) as a staff account writes in every
    club: a right a forger could give as well as the staff flag.
    """
    names = {
        row["id"]: str(row.get("name"))
        for row in _rows(tables, "clubs.club")
        if isinstance(row.get("id"), int)
    }
    organised: dict[str, list[str]] = defaultdict(list)
    for row in _rows(tables, "clubs.club_organisers"):
        club = row.get("club")
        name = names.get(club) if isinstance(club, int) else None
        organised[str(row.get("user"))].append(
            _("organiser of %(club)s") % {"club": name if name is not None else json.dumps(club)}
        )
    return organised


def privileged_accounts(document: dict) -> tuple[list[str], list[str]]:
    """The logins of the file with rights, each as "name (rights)": those a backup holds
    (staff, superuser, organiser of a club), and those given groups or permissions, which
    no backup holds.

    Read from the file before anything is checked or written: a table or row
    not of the expected shape is left to the table checks that follow.
    """
    tables = document.get("tables")
    named = {"is_staff": _("staff"), "is_superuser": _("superuser")}
    organised = _clubs_organised(tables)
    organisers, never = [], []
    for row in _rows(tables, "auth.user"):
        rights = [named[right] for right in RIGHTS if _holds(right, row.get(right))]
        rights += organised.pop(str(row.get("username")), [])
        given = [f"{key}: {_listed(row[key])}" for key in NEVER_BACKED_UP if row.get(key)]
        account = f"{row.get('username')} ({', '.join(rights + given)})"
        if given:
            never.append(account)
        elif rights:
            organisers.append(account)
    # An organiser who is no login of the file: the restore refuses the row; name it here.
    organisers += [f"{user} ({', '.join(clubs)})" for user, clubs in organised.items()]
    return organisers, never


def foreign_rights(document: dict) -> str | None:
    """The refusal of a file giving logins groups or single permissions, which no backup
    holds (checked before the columns, whose refusal would not name the logins)."""
    never = privileged_accounts(document)[1]
    if not never:
        return None
    return _(
        "The backup gives groups or single permissions to %(accounts)s, but no backup holds "
        "them (organisers are staff accounts): the file was changed after it was written. "
        "Nothing was restored."
    ) % {"accounts": "; ".join(never)}


def check_organisers(document: dict, *, with_organisers: bool) -> tuple[str | None, str | None]:
    """The warning naming the file's organisers and admins, and the refusal, if any.

    Nothing proves who wrote the file, so whoever did could have made any
    login an organiser. Restoring them as plain logins instead would lock the
    club's real organisers out of its pages; so the restore refuses, naming
    them, unless it is told (``with_organisers``) that they are the club's.
    """
    organisers = privileged_accounts(document)[0]
    if not organisers:
        return None, None
    warning = ngettext(
        "This unsigned backup gives organiser or admin rights to %(count)d login: %(accounts)s.",
        "This unsigned backup gives organiser or admin rights to %(count)d logins: %(accounts)s.",
        len(organisers),
    ) % {"count": len(organisers), "accounts": ", ".join(organisers)}
    if with_organisers:
        return warning, None
    return warning, _(
        "The backup's signature does not prove it, and it gives organiser or admin rights to "
        "%(accounts)s. Nothing was restored. If these are the club's organisers, restore it "
        "with %(flag)s as well."
    ) % {"accounts": ", ".join(organisers), "flag": FLAG}


# --- games ---------------------------------------------------------------------------

# Games read at once: their teams, deals, piles and ledger rows are held in memory.
CHUNK = 200

# What a replay derives, compared with what the file holds: a deal's row (as
# services.new_round writes it), a team's, the game's.
ROUND_FIELDS = (
    "all_pass",
    "declarer_id",
    "bid",
    "trump",
    "doubling",
    "thani",
    "dealer_id",
    "declaring_team_id",
    "made",
)
TEAM_FIELDS = ("tables", "score", "kodis", "place", "out_in_deal")
GAME_FIELDS = ("status", "winner_id", "deals_played", "dealer_seat")
# Problems a refusal lists; a file damaged throughout would otherwise fill the screen.
MAX_SHOWN = 20


def _game_name(game: Game) -> str:
    day = timezone.localtime(game.created_at).date() if game.created_at else None
    return _("Game %(id)d “%(label)s” of %(date)s") % {
        "id": game.pk,
        "label": game.label,
        "date": formats.date_format(day) if day else "?",
    }


class _Shown:
    """Values as a club reads them: players and teams by name, yes or no, none."""

    def __init__(self, seating: services.Seating, players: dict[int, str]):
        self.seats = [player.name for player in seating.players]
        # Keyed by id, but looked up by whatever value the file gave (``value`` below).
        self.teams: dict[Any, str] = {team.pk: team.team.name for team in seating.teams}
        self.players: dict[Any, str] = players

    def __call__(self, name: str, value: object) -> str:
        if value is None:
            return _("none")
        if isinstance(value, bool):
            return _("yes") if value else _("no")
        if name in ("declarer_id", "dealer_id"):
            return self.players.get(value, _("player %(id)s") % {"id": value})
        if name in ("declaring_team_id", "winner_id"):
            return self.teams.get(value, _("a team of another game"))
        if name == "status" and value in Game.Status.values:
            return str(Game.Status(value).label)
        if name == "dealer_seat" and isinstance(value, int) and value < len(self.seats):
            return self.seats[value]
        return str(value)


def _differs(
    model: type[models.Model], names: Sequence[str], stored: dict, expected: object, shown: _Shown
) -> Iterator[str]:
    for name in names:
        found, wanted = stored[name], getattr(expected, name)
        if found != wanted:
            field = column(model, name.removesuffix("_id"))
            yield _(
                "the file gives %(field)s as %(found)s, but the deals, settled by the rules, "
                "give %(expected)s."
            ) % {
                "field": field.verbose_name,
                "found": shown(name, found),
                "expected": shown(name, wanted),
            }


def refusal(problems: list[str]) -> str | None:
    """The refusal of a file whose results disagree with their deals, naming what does."""
    if not problems:
        return None
    shown = problems[:MAX_SHOWN]
    if len(problems) > MAX_SHOWN:
        shown.append(
            ngettext("… and %(count)d more.", "… and %(count)d more.", len(problems) - MAX_SHOWN)
            % {"count": len(problems) - MAX_SHOWN}
        )
    return _(
        "The backup's results do not agree with their deals, settled by the rules: the "
        "file was changed after it was written, or is damaged. Nothing was restored."
    ) + "".join(f"\n- {problem}" for problem in shown)


def game_problems(club_id: int | None = None) -> Iterator[str]:
    """What in the restored games (of every club, or of the club ``club_id``) disagrees
    with a replay of their deals, game by game."""
    players = dict(Player.objects.values_list("pk", "name"))
    games = Game.objects.all() if club_id is None else Game.objects.filter(club_id=club_id)
    ids = list(games.order_by("pk").values_list("pk", flat=True))
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        teams: dict[int, list[GameTeam]] = defaultdict(list)
        for team in (
            GameTeam.objects.filter(game__in=chunk)
            .select_related("team", *PLAYER_FIELDS)
            .order_by("game", "position")
        ):
            teams[team.game_id].append(team)
        rounds: dict[int, list[Round]] = defaultdict(list)
        for round_ in Round.objects.filter(game__in=chunk).order_by("game", "number"):
            rounds[round_.game_id].append(round_)
        piles: dict[int, dict[int, int]] = defaultdict(dict)
        for round_id, team_id, points in Pile.objects.filter(round__game__in=chunk).values_list(
            "round_id", "game_team_id", "points"
        ):
            piles[round_id][team_id] = points
        ledger: dict[int, dict[int, tuple[int, int]]] = defaultdict(dict)
        for round_id, team_id, change, balance in LedgerEntry.objects.filter(
            round__game__in=chunk
        ).values_list("round_id", "game_team_id", "change", "balance"):
            ledger[round_id][team_id] = (change, balance)
        for game in Game.objects.filter(pk__in=chunk).order_by("pk"):
            yield from _check_game(game, teams[game.pk], rounds[game.pk], piles, ledger, players)


class _Where:
    """Where in a game a problem is: the game, and the deal and the team when given."""

    def __init__(self, game: Game):
        self.name = _game_name(game)

    def __call__(
        self, problem: str, number: int | None = None, team: GameTeam | None = None
    ) -> str:
        where = self.name
        if number is not None:
            where = _("%(game)s, deal %(number)d") % {"game": where, "number": number}
        if team is not None:
            where = _("%(where)s, team %(team)s") % {"where": where, "team": team.team.name}
        return f"{where}: {problem}"


def _check_game(game, teams, rounds, piles, ledger, players) -> Iterator[str]:
    """What in one game disagrees with a replay of its deals, up to where no replay can go."""
    at = _Where(game)
    rules = yield from _playable_rules(game, teams, at)
    if rules is None:
        return
    yield from _tables_held(game, teams, at)
    if not (yield from _numbered(rounds, at)):
        return
    seating = services.Seating(teams, rules)
    shown = _Shown(seating, players)
    entries = yield from _entries(rounds, piles, teams, seating, at)
    if entries is None:
        return
    try:
        settlements, state = services.replay_entries(game, seating, entries)
    except services.ScoringError as error:
        yield at(error.message)
        return
    for round_, settlement in zip(rounds, settlements, strict=True):
        yield from _check_deal(game, seating, round_, settlement, shown, at)
        yield from _check_ledger(round_, teams, settlement, ledger[round_.pk], at)
    yield from _check_outcome(game, teams, seating, settlements, state, shown, at)


def _playable_rules(game, teams, at: _Where) -> Generator[str, None, core.Rules | None]:
    """The game's rules; None, the problem named, when its teams or house rules cannot be played."""
    positions = [team.position for team in teams]
    if positions != list(range(len(teams))) or len(teams) < 2:
        yield at(
            _("its teams' order at the table is %(found)s, not 1 to %(count)d of two or more.")
            % {
                "found": ", ".join(str(place + 1) for place in positions) or _("none"),
                "count": max(len(teams), 2),
            }
        )
        return None
    try:
        rules = game.rules
    except core.RulesError as error:
        yield at(
            _("its house rules cannot be played: %(reason)s") % {"reason": error.translated(_)}
        )
        return None
    except (TypeError, ValueError):  # bands the rules core cannot even read
        yield at(
            _(
                "its payout %(bands)s is not a list of bands (lowest bid, highest bid, tables "
                "when made, tables when failed)."
            )
            % {"bands": json.dumps(game.payout_bands)[:80]}
        )
        return None
    for team in teams:
        if team.size != rules.team_size:
            yield at(
                _("it has %(size)d players, but the game is played by teams of %(expected)d.")
                % {"size": team.size, "expected": rules.team_size},
                team=team,
            )
            return None
    return rules


def _tables_held(game, teams, at: _Where) -> Iterator[str]:
    """The problem when the teams hold more or fewer tables than were dealt out."""
    held, dealt = sum(team.tables for team in teams), game.tables_per_team * len(teams)
    if held != dealt:
        yield at(
            _(
                "its teams hold %(held)d tables in all, but %(dealt)d were dealt out "
                "(%(each)d a team), and tables are never made or lost."
            )
            % {"held": held, "dealt": dealt, "each": game.tables_per_team}
        )


def _numbered(rounds, at: _Where) -> Generator[str, None, bool]:
    """Whether the deals are numbered 1, 2, 3… in order; the problem named when not."""
    numbers = [round_.number for round_ in rounds]
    if numbers != list(range(1, len(rounds) + 1)):
        yield at(
            _("its deals are numbered %(found)s, not 1 to %(count)d in order.")
            % {"found": ", ".join(map(str, numbers)), "count": len(rounds)}
        )
        return False
    return True


def _entries(
    rounds, piles, teams, seating: services.Seating, at: _Where
) -> Generator[str, None, list[services.Deal] | None]:
    """Each deal as a scorer would have entered it; None, the deal named, when one cannot be."""
    position = {team.pk: team.position for team in teams}
    entries = []
    for round_ in rounds:
        if any(pk not in position for pk in piles[round_.pk]):
            yield at(_("a pile is given for a team that is not of this game."), round_.number)
            return None
        points = {position[pk]: points for pk, points in piles[round_.pk].items()}
        try:  # the replay's refusal would not name the deal
            entries.append(services.entry_from_round(round_, seating, points))
        except services.ScoringError as error:
            yield at(error.message, round_.number)
            return None
    return entries


def _check_deal(game, seating, round_, settlement, shown: _Shown, at: _Where) -> Iterator[str]:
    """What in a deal's row disagrees with the row its settlement by the rules gives."""
    expected = services.new_round(game, seating, settlement)
    stored = {field: getattr(round_, field) for field in ROUND_FIELDS}
    for problem in _differs(Round, ROUND_FIELDS, stored, expected, shown):
        yield at(problem, round_.number)


def _check_ledger(round_, teams, settlement, ledger: dict, at: _Where) -> Iterator[str]:
    """What in a deal's ledger rows, team by team, disagrees with its settlement by the rules."""
    rows = dict(ledger)
    for team in teams:
        wanted = services.ledger_entry(round_, team, settlement)
        found = rows.pop(team.pk, None)
        if found is None:
            yield at(_("the ledger has no row for this team."), round_.number, team)
        elif found != (wanted.change, wanted.balance):
            yield at(
                _(
                    "the ledger says %(change)+d (%(balance)d after), but the deal, settled "
                    "by the rules, gives %(expected_change)+d (%(expected_balance)d after)."
                )
                % {
                    "change": found[0],
                    "balance": found[1],
                    "expected_change": wanted.change,
                    "expected_balance": wanted.balance,
                },
                round_.number,
                team,
            )
    if rows:
        yield at(_("the ledger has a row for a team that is not of this game."), round_.number)


def _check_outcome(
    game, teams, seating, settlements, state, shown: _Shown, at: _Where
) -> Iterator[str]:
    """What in the teams' and the game's results disagrees with the outcome of the replay."""
    # The outcome the services would store after these deals, set on the rows read
    # (never saved): each compared with what the file holds.
    stored_teams = {team.pk: {f: getattr(team, f) for f in TEAM_FIELDS} for team in teams}
    stored_game = {f: getattr(game, f) for f in GAME_FIELDS}
    services.apply_outcome(game, seating, state)
    services.set_replayed_teams(seating, settlements)
    for team in teams:
        for problem in _differs(GameTeam, TEAM_FIELDS, stored_teams[team.pk], team, shown):
            yield at(problem, team=team)
    for problem in _differs(Game, GAME_FIELDS, stored_game, game, shown):
        yield at(problem)


# --- tournaments -----------------------------------------------------------------------


def _figures(tournament: Tournament) -> dict[int, tuple]:
    return {
        row[0]: tuple(row[1:])
        for row in Standing.objects.filter(tournament=tournament).values_list(
            "entry_id", *STANDING_FIGURES
        )
    }


def _when_shared_firsts_won(tournament: Tournament) -> dict[int, tuple]:
    """The standings as they were derived when a shared first place counted as a game won
    for each team sharing it: a file written then stays valid, as the import keeps it."""
    entries = list(
        tournament.entries.annotate(bye_count=Count("byes")).values_list("id", "bye_count")
    )
    table = ranking.standings(
        [entry for entry, _count in entries],
        game_results(tournament),
        scheme_of(tournament),
        shared_first_wins=True,
    )
    byes = dict(entries)
    return {row.team: standing_figures(row, byes[row.team]) for row in table}


def _figure(value: object) -> str:
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    return str(value)


def standing_problems(club_id: int | None = None) -> Iterator[str]:
    """What in the restored standings (of every club, or of the club ``club_id``)
    disagrees with standings derived from the games.

    Each tournament's standings are derived again, and stored, by
    ``rebuild_standings``, as an imported tournament's are; the file's are
    compared with them first (with those of the older rule of shared first
    places too, as the import compares them).
    """
    tournaments = Tournament.objects.all()
    if club_id is not None:
        tournaments = tournaments.filter(club_id=club_id)
    registered = TournamentTeam.objects.filter(tournament__in=tournaments)
    entries = dict(registered.values_list("pk", "tournament_id"))
    names = dict(registered.values_list("pk", "team__name"))
    for tournament in tournaments.order_by("pk"):
        yield from _tournament_problems(tournament, entries, names)


def _tournament_problems(
    tournament: Tournament, entries: dict[int, int], names: dict[int, str]
) -> Iterator[str]:
    """What in one tournament's standings disagrees with its games, or keeps them underived."""
    where = _("Tournament “%(name)s”") % {"name": tournament.name}
    strangers = _strangers(tournament, where)
    if strangers:
        yield from strangers
        return
    stored = _figures(tournament)
    foreign = [entry for entry in stored if entries.get(entry) != tournament.pk]
    if foreign:
        yield _("%(where)s: its standings have a line for %(teams)s, not registered in it.") % {
            "where": where,
            "teams": ", ".join(names[entry] for entry in foreign),
        }
        return
    underived = _rebuild(tournament, where)
    if underived is not None:
        yield underived
        return
    derived = _figures(tournament)
    if stored == derived or stored == _when_shared_firsts_won(tournament):
        return
    yield from _figure_problems(where, stored, derived, names)


def _strangers(tournament: Tournament, where: str) -> list[str]:
    """A problem for each team that plays in the tournament's games but is not registered."""
    registered = set(tournament.entries.values_list("team_id", flat=True))
    strangers = (
        GameTeam.objects.filter(game__sitting_entry__sitting__tournament=tournament)
        .exclude(team_id__in=registered)
        .select_related("game", "team")
    )
    return [
        _("%(where)s, %(game)s: %(team)s plays in it but is not registered.")
        % {"where": where, "game": _game_name(team.game), "team": team.team.name}
        for team in strangers
    ]


def _rebuild(tournament: Tournament, where: str) -> str | None:
    """Derive the tournament's standings again, and store them; or why they cannot be."""
    try:
        scheme_of(tournament)
    except (StandingsError, TypeError, ValueError, AttributeError):
        return _(
            "%(where)s: its points by place, %(scheme)s, are not points for each place of "
            "a game of 2, 3 and 4 teams."
        ) % {"where": where, "scheme": json.dumps(tournament.points_scheme)[:80]}
    try:
        rebuild_standings(tournament)
    except StandingsError as error:
        return _("%(where)s: its standings cannot be derived from its games (%(reason)s).") % {
            "where": where,
            "reason": error.translated(_),
        }
    return None


def _figure_problems(
    where: str, stored: dict[int, tuple], derived: dict[int, tuple], names: dict[int, str]
) -> Iterator[str]:
    """Each figure of a team's line that the file gives otherwise than its games do."""
    for entry, figures in derived.items():
        team = _("%(where)s, team %(team)s") % {"where": where, "team": names[entry]}
        if entry not in stored:
            yield _("%(team)s: the standings have no line for this team.") % {"team": team}
            continue
        for name, found, wanted in zip(STANDING_FIGURES, stored[entry], figures, strict=True):
            if found != wanted:
                yield _(
                    "%(team)s: the standings give %(field)s as %(found)s, but its games "
                    "give %(expected)s."
                ) % {
                    "team": team,
                    "field": column(Standing, name).verbose_name,
                    "found": _figure(found),
                    "expected": _figure(wanted),
                }


def competition_problems(club_id: int | None = None) -> Iterator[str]:
    """What in the restored competitions (of every club, or of the club ``club_id``) the
    competitions' service would refuse (club.competitions.services.check_terms: its days,
    what it counts and ranks, its rule, its tournaments), named: a table could not be made
    by it."""
    found = (
        Competition.objects.all()
        if club_id is None
        else Competition.objects.filter(club_id=club_id)
    )
    for competition in found.order_by("pk").select_related("club").prefetch_related("events"):
        where = _("Competition “%(name)s”") % {"name": competition.name}
        try:
            check_terms(
                competition.club,
                Terms.of(competition),
                list(competition.events.all()),
                events_in_span=False,
            )
        except CompetitionError as error:
            yield f"{where}: {error.message}"
        except (TypeError, ValueError, AttributeError):
            yield f"{where}: " + _("its rule is not one a season can be scored by.")
